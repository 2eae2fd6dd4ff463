import os
import sys

from reviewcoord.preflight import check

# An Action run (no arguments, GITHUB_ACTIONS=true) first checks that this container's user can
# write the runner's files: see reviewcoord/preflight.py.
if len(sys.argv) == 1 and (code := check(os.environ)) is not None:
    raise SystemExit(code)

from reviewcoord.cli import main

raise SystemExit(main())
