"""What one evaluation is asked to judge, and what it came to (reviewcoord/evaluation.py runs
it; the Action, the CLI's live mode and the merge queue build the request)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from reviewcoord.config import Settings
from reviewcoord.model import Verdict
from reviewcoord.settle import Settled
from reviewcoord.trusted import ACTIONS_BOT


@dataclass(frozen=True)
class RunRequest:
    repo: str
    pr: int
    inputs: Mapping[str, object]  # hyphenated keys; '' or None = not set
    input_source: str  # "workflow inputs" / "command line": named in config errors
    config_path: str
    identity_hint: str | None = ACTIONS_BOT  # None: the command line (a personal token)
    rejudge: bool = False  # never a noop (`workflow_dispatch`: someone asked to judge again)
    # The PR head the event payload names (untrusted, maybe stale): only where a failure is
    # written when `GET pulls/{n}` itself fails; never judged.
    event_head: str | None = None
    # Settle by polling in this run (the CLI, `wait: poll`), or decide once and, while a bot
    # is awaited, publish pending and exit (`wait: events`: reviewcoord/events.py).
    waits: bool = True


@dataclass
class Outcome:
    gate: Literal["block", "go", "error"]
    reason: str
    verdict: Verdict | None = None
    head_sha: str | None = None
    comment_url: str = ""
    settings: Settings | None = None
    settled: Settled | None = None
    read_only: bool = False
    notes: list[str] = field(default_factory=list)
    error_details: list[str] = field(default_factory=list)
    bad_input: bool = False  # the error is the user's to fix (invalid configuration): exit 2
    waiting: bool = False  # published pending: a bot is awaited (`wait: events`), exit 0
