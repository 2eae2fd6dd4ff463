"""Before an Action run in the container: can this user write what the runner mounted for it?

The image runs as uid 1001 (the Dockerfile's USER), the user of GitHub-hosted runners. The runner
creates the file-command files (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, …) and the folders it mounts
(/github/home, /github/runner_temp, the workspace) as *its* user, mode 0644/0755: a container user
with the same uid can write them, any other non-root uid cannot. Rather than computing a whole
verdict and failing on the first write, stop at once with a message that says which file, whose it
is and what to do.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from reviewcoord.actions_io import CONTAINER_ROOT, verdict_location

# Exit code: as for a bad event or input (reviewcoord.action): nothing was written.
EXIT_CANNOT_WRITE = 2
HELP = "docs/troubleshooting.md, 'Runners whose user is not uid 1001'"
FILE_COMMANDS = ("GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY")


def _describe(path: Path) -> str:
    try:
        st = path.stat()
    except OSError as exc:
        return f"cannot stat it: {exc.strerror}"
    return f"owner uid {st.st_uid}, gid {st.st_gid}, mode {st.st_mode & 0o7777:04o}"


def _nearest_existing(path: Path) -> Path:
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def unwritable(env: Mapping[str, str], *, root: Path = CONTAINER_ROOT) -> list[str]:
    """One line per runner-provided path this process cannot write (empty when all is well)."""
    problems = []
    for name in FILE_COMMANDS:
        value = env.get(name)
        if not value:
            continue
        path = Path(value)
        target = path if path.exists() else path.parent
        if not os.access(target, os.W_OK):
            problems.append(f"{name} ({path}): {_describe(target)}")
    # The verdict file: under the runner's temp or home mount, or the workspace
    # (reviewcoord.actions_io.verdict_location). Outside a container it is the host's own.
    location = verdict_location(env, 0, root=root)
    if location.layout != "local":
        folder = _nearest_existing(location.target.parent)
        if not os.access(folder, os.W_OK | os.X_OK):
            problems.append(f"the verdict file's folder {folder}: {_describe(folder)}")
    return problems


def message(problems: list[str], *, uid: int | None = None) -> str:
    uid = os.getuid() if uid is None else uid
    return (
        f"review-coordinator cannot write its outputs: this container runs as uid {uid}, and "
        + "; ".join(problems)
        + ". The image runs as uid 1001, the user of GitHub-hosted runners; this runner creates "
        "these files as another user. Run the job on a runner whose user is uid 1001, or see "
        f"{HELP}."
    )


def check(env: Mapping[str, str]) -> int | None:
    """In an Action run, print a workflow error and return the exit code if a write would fail."""
    if env.get("GITHUB_ACTIONS") != "true" or os.getuid() == 0:
        return None
    problems = unwritable(env)
    if not problems:
        return None
    text = message(problems).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    print(f"::error title=review-coordinator cannot write its outputs::{text}", flush=True)
    return EXIT_CANNOT_WRITE
