"""What the command line shares between its modes: the argument parser type that raises instead
of exiting, PR numbers, and the verdict printed on stdout."""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from reviewcoord.errors import UsageError
from reviewcoord.model import Verdict


class Parser(argparse.ArgumentParser):
    """argparse that raises instead of printing usage and exiting."""

    def error(self, message: str) -> None:  # type: ignore[override]
        # cli prints "reviewcoord: error: …" once; the message names the command, not again.
        raise UsageError(f"{message} (see `{self.prog} --help`)")


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


def print_verdict(verdict: Verdict, fmt: str, out: TextIO) -> None:
    if fmt in ("comment", "both"):
        from reviewcoord.render import sticky_comment

        out.write(sticky_comment(verdict))
        out.write("\n")
    if fmt == "both":
        out.write("\n---\n\n")
    if fmt in ("json", "both"):
        out.write(json.dumps(verdict.to_json_dict(), indent=2, ensure_ascii=False))
        out.write("\n")
