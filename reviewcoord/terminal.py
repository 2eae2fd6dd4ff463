"""What the command line shares between its modes: the argument parser type that raises instead
of exiting (and suggests the flag you meant), PR numbers, and the verdict printed on stdout —
plain text for a person at a terminal, JSON and/or the sticky's Markdown for scripts."""

from __future__ import annotations

import argparse
import difflib
import json
import re
import sys
from collections.abc import Mapping, Sequence
from typing import Any, TextIO

from reviewcoord.errors import UsageError
from reviewcoord.model import Verdict

# What `--format` accepts: the Action's three formats, plus `text` (the terminal rendering,
# printed only; it is not a setting and changes nothing that is published).
FORMATS = ("text", "json", "comment", "both")
_NEGATIVE_NUMBER = re.compile(r"^-\d+$|^-\d*\.\d+$")


class Parser(argparse.ArgumentParser):
    """argparse that raises instead of printing usage and exiting, and that answers a mistyped
    flag with the closest real one ("did you mean --dry-run?")."""

    _argv: list[str] = []  # noqa: RUF012 (set per parse)

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: Any = None
    ) -> tuple[argparse.Namespace, list[str]]:
        self._argv = list(sys.argv[1:] if args is None else args)
        return super().parse_known_args(self._argv, namespace)

    def error(self, message: str) -> None:  # type: ignore[override]
        # cli prints "reviewcoord: error: …" once; the message names the command, not again.
        # A mistyped flag is the likelier cause of whatever argparse tripped over first
        # (`--fromat json` makes "json" look like the PR number), so it is named instead.
        typo = self._mistyped_flag()
        if typo is not None:
            wrong, right = typo
            message = f"unrecognized argument: {wrong} (did you mean {right}?)"
        raise UsageError(f"{message} (see `{self.prog} --help`)")

    def _known(self, name: str) -> bool:
        if name in self._option_string_actions:
            return True
        # argparse accepts an unambiguous prefix of a long option (`--dry` for `--dry-run`).
        return (
            self.allow_abbrev
            and name.startswith("--")
            and any(opt.startswith(name) for opt in self._option_string_actions)
        )

    def _mistyped_flag(self) -> tuple[str, str] | None:
        """The first unknown `-…` argument with a close real option, and that option."""
        options = sorted(self._option_string_actions)
        for arg in self._argv:
            if arg == "--":
                break
            if not arg.startswith("-") or arg == "-" or _NEGATIVE_NUMBER.match(arg):
                continue
            name = arg.split("=", 1)[0]
            if self._known(name):
                continue
            close = difflib.get_close_matches(name, options, n=1, cutoff=0.6)
            if close:
                return name, close[0]
        return None


def pr_number(text: str) -> int:
    try:
        value = int(text.lstrip("#"))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"PR number must be a positive integer, got {text!r}"
        ) from None
    if value <= 0 or value > 2**31 - 1:
        raise argparse.ArgumentTypeError(f"PR number must be a positive integer, got {text!r}")
    return value


def count(text: str, *, least: int = 1) -> int:
    """A whole number of at least `least` (a count of PRs, seconds): `-3` or `2.5` is an error
    naming what was given, never a silently odd run."""
    try:
        value = int(text.strip())
    except ValueError:
        value = None
    if value is None or value < least or value > 10**9:
        what = "a positive whole number" if least == 1 else f"a whole number ≥ {least}"
        raise argparse.ArgumentTypeError(f"must be {what}, got {text[:40]!r}")
    return value


def seconds(text: str) -> int:
    """A number of seconds: 0 or more."""
    return count(text, least=0)


def is_tty(out: TextIO) -> bool:
    isatty = getattr(out, "isatty", None)
    try:
        return bool(isatty()) if callable(isatty) else False
    except (OSError, ValueError):  # a closed or odd stream is not a terminal
        return False


def output_format(given: str | None, configured: str, out: TextIO) -> str:
    """What to print: `--format` when given; else plain text on a terminal; else the configured
    format (`both` unless the config file says otherwise), so scripts and pipes keep today's
    output."""
    if given:
        return given
    return "text" if is_tty(out) else configured


def use_colour(out: TextIO, env: Mapping[str, str]) -> bool:
    """Colour only on a terminal, never with NO_COLOR set to anything (https://no-color.org)
    and never on TERM=dumb."""
    return is_tty(out) and not env.get("NO_COLOR") and env.get("TERM") != "dumb"


def print_verdict(
    verdict: Verdict, fmt: str, out: TextIO, env: Mapping[str, str] | None = None
) -> None:
    if fmt == "text":
        from reviewcoord.render.plain import plain_text

        out.write(plain_text(verdict, colour=use_colour(out, {} if env is None else env)))
        return
    if fmt in ("comment", "both"):
        from reviewcoord.render import sticky_comment

        out.write(sticky_comment(verdict))
        out.write("\n")
    if fmt == "both":
        out.write("\n---\n\n")
    if fmt in ("json", "both"):
        out.write(json.dumps(verdict.to_json_dict(), indent=2, ensure_ascii=False))
        out.write("\n")
