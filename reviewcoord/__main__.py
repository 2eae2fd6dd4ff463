"""`python -m reviewcoord …`: the same command as `reviewcoord …`."""

from reviewcoord.cli import main

raise SystemExit(main())
