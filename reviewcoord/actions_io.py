"""The Actions runner's files and workflow commands (docs/github-platform.md §3.4), and a
plain-terminal log.

Only `cli`/`action` build these; everything else receives a `Log`.
"""

from __future__ import annotations

import secrets
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Literal, TextIO

from reviewcoord.verdict_output import scrub

# A workflow command's message must not carry raw newlines or '%' (they would end or forge the
# command): GitHub's own escaping.
_ESCAPES = (("%", "%25"), ("\r", "%0D"), ("\n", "%0A"))
_PROPERTY_ESCAPES = (*_ESCAPES, (":", "%3A"), (",", "%2C"))

# Annotations a step may create, per type (GitHub caps them; docs/github-platform.md §3.4).
ANNOTATION_CAP = 10


def _escape(text: str, table: tuple[tuple[str, str], ...] = _ESCAPES) -> str:
    for raw, escaped in table:
        text = text.replace(raw, escaped)
    return text


class Log:
    """Human log lines; in Actions, also workflow commands (notice/warning/error, groups)."""

    def __init__(self, stream: TextIO | None = None, *, actions: bool = False) -> None:
        self.stream = stream or sys.stderr
        self.actions = actions
        self._secrets: list[str] = []
        self._counts: dict[str, int] = {}

    def mask(self, secret: str) -> None:
        if secret:
            self._secrets.append(secret)
            if self.actions:
                self._write(f"::add-mask::{_escape(secret)}")

    def _clean(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, "***")
        return text

    def _write(self, line: str) -> None:
        self.stream.write(line + "\n")
        self.stream.flush()

    def annotations_left(self, kind: str) -> int:
        """How many more `kind` annotations GitHub will still show for this step."""
        return max(0, ANNOTATION_CAP - self._counts.get(kind, 0)) if self.actions else 10**9

    def info(self, message: str) -> None:
        self._write(self._clean(message))

    def _command(
        self, kind: str, message: str, *, file: str | None, line: int | None, title: str | None
    ) -> None:
        message = self._clean(message)
        if not self.actions:
            self._write(f"{kind}: {message}")
            return
        count = self._counts.get(kind, 0) + 1
        self._counts[kind] = count
        if count > ANNOTATION_CAP:
            self._write(f"{kind}: {message}")  # past the cap GitHub drops them; keep the log
            return
        props = []
        if file:
            props.append(f"file={_escape(file, _PROPERTY_ESCAPES)}")
            if line:
                props.append(f"line={line}")
        if title:
            props.append(f"title={_escape(title, _PROPERTY_ESCAPES)}")
        head = f"::{kind} {','.join(props)}::" if props else f"::{kind}::"
        self._write(head + _escape(message))

    def notice(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        title: str | None = None,
    ) -> None:
        self._command("notice", message, file=file, line=line, title=title)

    def warning(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        title: str | None = None,
    ) -> None:
        self._command("warning", message, file=file, line=line, title=title)

    def error(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        title: str | None = None,
    ) -> None:
        self._command("error", message, file=file, line=line, title=title)

    @contextmanager
    def group(self, title: str) -> Iterator[None]:
        if self.actions:
            self._write(f"::group::{_escape(self._clean(title))}")
        else:
            self._write(f"== {self._clean(title)}")
        try:
            yield
        finally:
            if self.actions:
                self._write("::endgroup::")


def write_outputs(path: str | None, values: Mapping[str, str]) -> None:
    """Append `name<<DELIM … DELIM` blocks to GITHUB_OUTPUT (safe for any value)."""
    if not path:
        return
    with open(path, "a", encoding="utf-8") as fh:
        for name, raw in values.items():
            value: str = scrub(raw)  # a lone surrogate cannot be written as UTF-8
            delimiter = f"ghadelimiter_{secrets.token_hex(8)}"
            while delimiter in value:  # a value line equal to it would end the value early
                delimiter = f"ghadelimiter_{secrets.token_hex(16)}"
            fh.write(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")


def append_summary(path: str | None, markdown: str) -> None:
    if not path:
        return
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(markdown.rstrip("\n") + "\n")


# Where the verdict file goes, so that a later `run:` step of the same job (on the host, not in our
# container) can open the path `verdict-file` reports. Docker container actions see one of two
# layouts (actions/runner src/Runner.Worker/Handlers/ContainerActionHandler.cs):
#
# * runners before 2.331.0: the runner's temp directory T is not mounted, only T/_github_home is,
#   at /github/home. Environment values are translated to container paths only under the mounted
#   directories, so RUNNER_TEMP still names T on the host.
# * runners 2.331.0 and later (behind the flag actions_container_action_runner_temp since 2.329.0,
#   actions/runner#4011; always on since #4163): T is mounted at /github/runner_temp too, and
#   RUNNER_TEMP is translated to /github/runner_temp. No variable names T on the host any more.
#
# On both the file is T/_github_home/review-coordinator/verdict-pr<N>.json: the same host path,
# which a host step can also build itself as "$RUNNER_TEMP/_github_home/review-coordinator/...".
# Its host name: before 2.331.0, RUNNER_TEMP. From 2.331.0 on it is derived: the runner keeps T and
# runner.workspace side by side in its work directory W (HostContext: Temp = W/_temp; JobExtension:
# runner.workspace = W/<repository name>), and RUNNER_WORKSPACE lies under no mounted directory, so
# it reaches the container untranslated: T = dirname(RUNNER_WORKSPACE)/_temp. Reading the host path
# from /proc/self/mountinfo would not do: it names the source relative to its filesystem's root.
# When even that cannot be derived (no absolute host RUNNER_WORKSPACE), the file goes into the
# working directory, /github/workspace = the host's GITHUB_WORKSPACE, which is also a `run:` step's
# default working directory, and `verdict-file` is that path relative to it.
CONTAINER_ROOT = Path("/")
_RUNNER_TEMP_MOUNT = "github/runner_temp"  # under CONTAINER_ROOT
_HOME_MOUNT = "github/home"
_HOME_IN_TEMP = "_github_home"
_TEMP_IN_WORK = "_temp"
VERDICT_DIR = "review-coordinator"
WORKSPACE_DIR = ".review-coordinator"  # the fallback, in the working directory


@dataclass(frozen=True)
class VerdictLocation:
    """Where to write the verdict file, and the path to report for it."""

    target: Path  # as this process sees it
    shown: str  # as a later step sees it: absolute on the host, or relative to the workspace
    layout: Literal["runner-temp-mount", "home-mount", "workspace", "local"]  # 2.331.0+, older, …


def _host_path(value: str | None) -> PurePosixPath | None:
    """`value` if it is an absolute path that is not one of the container's /github mounts."""
    if not value or not value.startswith("/"):
        return None
    path = PurePosixPath(value)
    return None if path.parts[1:2] == ("github",) else path


def verdict_location(
    env: Mapping[str, str], pr: int, *, root: Path = CONTAINER_ROOT, cwd: Path | None = None
) -> VerdictLocation:
    name = PurePosixPath(VERDICT_DIR) / f"verdict-pr{pr}.json"
    runner_temp = env.get("RUNNER_TEMP") or ""
    mounted_temp = root / _RUNNER_TEMP_MOUNT
    home = root / _HOME_MOUNT
    if mounted_temp.is_dir():
        # 2.331.0+: the host path of T is RUNNER_TEMP if the runner left it untranslated, else
        # derived from RUNNER_WORKSPACE (see above).
        host_temp = _host_path(runner_temp)
        if host_temp is None:
            workspace = _host_path(env.get("RUNNER_WORKSPACE"))
            if workspace is not None and workspace.name:
                host_temp = workspace.parent / _TEMP_IN_WORK
        if host_temp is not None:
            return VerdictLocation(
                mounted_temp / _HOME_IN_TEMP / name,
                str(host_temp / _HOME_IN_TEMP / name),
                "runner-temp-mount",
            )
    elif home.is_dir() and _host_path(runner_temp) is not None:
        # Before 2.331.0: RUNNER_TEMP is the host's T; /github/home is T/_github_home.
        return VerdictLocation(
            home / name, str(PurePosixPath(runner_temp) / _HOME_IN_TEMP / name), "home-mount"
        )
    base = cwd or Path.cwd()
    if mounted_temp.is_dir() or home.is_dir():
        # A container whose host temp directory is unknown: the workspace, relative.
        relative = PurePosixPath(WORKSPACE_DIR) / name.name
        return VerdictLocation(base / relative, str(relative), "workspace")
    # Not in a container (the CLI, or an Action run on the host): RUNNER_TEMP, else here.
    target = (Path(runner_temp) if runner_temp else base) / name
    return VerdictLocation(target, str(target), "local")


def write_verdict_file(location: VerdictLocation, text: str) -> str:
    """Write the verdict JSON (whole); return the path to report."""
    location.target.parent.mkdir(parents=True, exist_ok=True)
    location.target.write_text(text, encoding="utf-8")
    return location.shown
