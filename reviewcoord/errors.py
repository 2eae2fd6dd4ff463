"""One error hierarchy, chosen by what the user must do about it.

    ReviewCoordError            base; cli maps every subclass to an exit code
    ├── UsageError              bad command line / action input (exit 2)
    ├── ConfigError             bad config file or input value (exit 2; status `error`)
    ├── EventError              event payload we cannot turn into a PR (exit 2)
    ├── SnapshotError           replay snapshot missing, not JSON, wrong shape (exit 2)
    └── GatewayError            GitHub could not be read/written completely (exit 3; fail closed)
        └── WriteForbidden      403 "Resource not accessible by integration" (read-only token)

Exit codes (docs/cli.md), the same for the CLI and the Action:

A single bot comment that fails to parse is *data* (a note in the verdict), never an exception.
"""

import difflib
from collections.abc import Mapping, Sequence
from typing import Any

EXIT_OK = 0  # a verdict (block or go)
EXIT_BLOCK = 1  # the gate is block and --fail-on-block / `fail-on-block` is set
EXIT_USAGE = 2  # bad arguments, inputs, event, snapshot or config
EXIT_UNREADABLE = 3  # GitHub could not be read completely: no trustworthy verdict (gate error)
EXIT_INTERNAL = 4  # a bug in review-coordinator


class ReviewCoordError(Exception):
    exit_code = EXIT_INTERNAL


class UsageError(ReviewCoordError):
    exit_code = EXIT_USAGE


class ConfigError(ReviewCoordError):
    """`key`: the dotted key the problem is about, when it is about one (its line is found by
    reviewcoord/config.py in the file's text)."""

    exit_code = EXIT_USAGE

    def __init__(self, message: str, *, key: str = "", line: int | None = None) -> None:
        super().__init__(message)
        self.key = key
        self.line = line  # the key's line in the file, once found


class EventError(ReviewCoordError):
    exit_code = EXIT_USAGE


class SnapshotError(ReviewCoordError):
    exit_code = EXIT_USAGE


class GatewayError(ReviewCoordError):
    """An endpoint could not be read (or written) completely, after retries."""

    exit_code = EXIT_UNREADABLE

    def __init__(
        self, message: str, *, endpoint: str = "", status: int | None = None, detail: str = ""
    ) -> None:
        super().__init__(message)
        self.endpoint = endpoint
        self.status = status
        # GitHub's own `message` for an error answer ("no analysis found"), when it gave one.
        self.detail = detail


class WriteForbidden(GatewayError):
    """The token may read but not write (fork PRs get a read-only GITHUB_TOKEN)."""


def closest(word: str, choices: Sequence[str], cutoff: float = 0.6) -> str | None:
    """The choice `word` is most probably a typo of (`codx` → `codex`), case aside; else None."""
    lowered = {choice.casefold(): choice for choice in choices}
    close = difflib.get_close_matches(word.strip().casefold(), list(lowered), n=1, cutoff=cutoff)
    return lowered[close[0]] if close else None


def validation_message(error: Mapping[str, Any], allowed_keys: str) -> str:
    """pydantic's complaint about one config value, in the config errors' words: an unknown key
    says which allowed key it is probably a typo of, and lists the `allowed_keys`; a choice
    lists what is allowed."""
    message = str(error.get("msg", "invalid value")).removeprefix("Value error, ")
    if error.get("type") == "extra_forbidden":
        loc = error.get("loc") or ("",)
        allowed = [k.strip() for k in allowed_keys.split(",")]
        close = closest(str(loc[-1]), allowed)
        guess = f"; did you mean '{close}'?" if close else ""
        return f"unknown key; allowed keys: {allowed_keys}{guess}"
    if error.get("type") == "literal_error":
        return message.replace("Input should be", "allowed:")
    return message
