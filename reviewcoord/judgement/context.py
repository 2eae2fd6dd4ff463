"""What a judgement knows beyond the comments: the subject (whose PR, which head, which bots),
the cycle context (the record from our sticky, how this head relates to the last reviewed one,
and the reads the reconciliation may need), and the settings that shape the verdict."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from reviewcoord.group import DEFAULT_WINDOW
from reviewcoord.history import History
from reviewcoord.ingest import ANY_TIME, Ingested
from reviewcoord.judgement.shift import Push
from reviewcoord.model import BotKey, Level, RawComment, SettleMode

Mode = Literal["initial", "incremental", "full", "same_head"]


@dataclass(frozen=True)
class Subject:
    """One reading of one PR: what is judged."""

    repo: str
    pr: int
    head_sha: str
    comments: Sequence[RawComment]
    ingested: Ingested
    expected: Sequence[BotKey]
    head_time: datetime | None = ANY_TIME
    settle: SettleMode = "none"


@dataclass(frozen=True)
class JudgeSettings:
    """The part of the run's settings that shapes a verdict."""

    group_window: int = DEFAULT_WINDOW
    severity_overrides: Mapping[str, Mapping[str, Level]] = field(default_factory=dict)
    required: Sequence[BotKey] = ()


@dataclass(frozen=True)
class ForeignEdits:
    """Comments whose text is not only their author's ((endpoint, id) → why; reviewcoord/edits.py):
    people's command comments (ignored) and bots' comments (their findings are held)."""

    commands: Mapping[tuple[str, int], str] = field(default_factory=dict)
    bots: Mapping[tuple[str, int], str] = field(default_factory=dict)


@dataclass(frozen=True)
class CycleLookups:
    """Reads the reconciliation may need, each called at most when needed (runner caches)."""

    # Review-comment id → "resolved" / "outdated" for threads GitHub marks so.
    threads: Callable[[], Mapping[int, str]] = lambda: {}
    # A login's permission on the repository ("admin" … "none").
    permission: Callable[[str], str] = lambda login: "none"


@dataclass(frozen=True)
class CycleContext:
    record: History | None
    notice: str | None  # corrupt / foreign record
    cycle: int
    mode: Mode | None  # None: no cycle context at all (a replay, the stateless judgement)
    previous_head: str | None
    force_push: bool
    pr_author: str
    own_login: str | None
    convergence_after: int
    fingerprint: str
    lookups: CycleLookups = field(default_factory=CycleLookups)
    # When GitHub says the record's sticky revision was written (our sticky's `updated_at`):
    # a command created before it answered an earlier revision. None: unknown (replays).
    revision_time: datetime | None = None
    # A noop (it writes nothing) may take an applied command's permission from the record; a
    # judged run reads it again (once per commenter): the record never grants.
    permission_from_record: bool = False
    # Plain data from the cycle-context step (reviewcoord/cycles.py), never read while judging:
    # what the compare from the record's last head to this one changed (the recorded findings'
    # lines travel through it: judgement/shift.py); unknown by default.
    latest: Push = field(default_factory=Push.unknown)
    # In convergence mode, per reviewer with a finding on this head: the files changed since
    # the last head it reviewed before this one (the whole PR's when it reviewed none). A
    # reviewer missing here, or None: unknown, so its findings could have come from the push.
    since_review: Mapping[BotKey, frozenset[str] | None] = field(default_factory=dict)
    # A noop (nothing changed on this head since the last run) takes convergence's decisions
    # from the record that run wrote: the same facts, not read again.
    convergence_from_record: bool = False
    # Why the gate may not go on this run (a record that had to be discarded: cycles.Cycles);
    # kept in the record until someone allowed to judge again does. None: not held.
    hold: str | None = None


def first_cycle(cycle: int = 1) -> CycleContext:
    """No record, nothing to reconcile: the stateless judgement (a replay, a first run)."""
    return CycleContext(
        record=None,
        notice=None,
        cycle=cycle,
        mode=None,
        previous_head=None,
        force_push=False,
        pr_author="",
        own_login=None,
        convergence_after=0,
        fingerprint="",
    )


def cycle_for(record: History | None, head_sha: str, explicit: int | None) -> int:
    if explicit:
        return explicit
    if record is None:
        return 1
    return record.cycle if record.last_head == head_sha else record.cycle + 1
