from reviewcoord.cli import main

raise SystemExit(main())
