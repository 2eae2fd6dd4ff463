"""The Actions runner's files and workflow commands (docs/github-platform.md §3.4), and a
plain-terminal log.

Only `cli`/`action` build these; everything else receives a `Log`.
"""

from __future__ import annotations

import secrets
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

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
        for name, value in values.items():
            delimiter = f"ghadelimiter_{secrets.token_hex(8)}"
            fh.write(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")


def append_summary(path: str | None, markdown: str) -> None:
    if not path:
        return
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(markdown.rstrip("\n") + "\n")


# In a Docker container action RUNNER_TEMP still names the *host's* folder, which is not mounted;
# its `_github_home` subfolder is, at /github/home (actions/runner ContainerActionHandler).
CONTAINER_HOME = Path("/github/home")


def write_verdict_file(
    runner_temp: str | None, pr: int, text: str, *, container_home: Path = CONTAINER_HOME
) -> str:
    """Write the verdict JSON; return the path as later steps (on the host) will see it."""
    name = Path("review-coordinator") / f"verdict-pr{pr}.json"
    if runner_temp and container_home.is_dir():
        target, shown = container_home / name, Path(runner_temp) / "_github_home" / name
    else:
        target = (Path(runner_temp) if runner_temp else Path.cwd()) / name
        shown = target
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    return str(shown)
