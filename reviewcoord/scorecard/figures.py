"""The scorecard's pure core: the last record of each PR of the window → the figures.

Nothing is re-parsed: a PR's figures come from the record in our sticky's last revision
(reviewcoord/history.py). Findings are the record's entries, one per finding (base stable id)
however many cycles it lived, at the level it was last published at; what became of each is its
last status (`likely_fixed`, `accepted` with its kind, `awaiting`, `open` = open at merge). The
reviewers' run figures (expected, reviewed, failed, skipped, unreadable, minutes to review) and
corroboration come from the record's `bt` / `co` (reviewcoord/runs.py); a record written before
they existed lacks them: its PR is listed in `untallied` and counted in none of those figures
(its findings still count; none of them counts as corroborated). Never guessed.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from reviewcoord.history import BotRun, Entry, History
from reviewcoord.model import AcceptKind

ACCEPT_KINDS: tuple[AcceptKind, ...] = ("wontfix", "by-design", "follow-up")


@dataclass(frozen=True)
class PrRecord:
    """One closed PR of the window and what its sticky held (None: no readable record)."""

    number: int
    merged: bool
    record: History | None


class _Out(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


class FindingCounts(_Out):
    total: int = 0
    critical: int = 0
    medium: int = 0
    low: int = 0


class ReviewerFigures(_Out):
    """One item of `reviewers` (docs/interface.md § Scorecard JSON)."""

    bot: str
    prs_expected: int
    prs_reviewed: int
    failed: int
    skipped: int
    unreadable: int
    findings: FindingCounts
    likely_fixed: int
    accepted: int
    by_kind: dict[str, int]
    awaiting: int
    open_at_merge: int
    corroborated: int
    unique: int
    acted_on: float | None
    median_minutes_to_review: float | None
    # PRs by the review effort it said it used there (Copilot's "Lite", "Balanced", "Max");
    # empty for a reviewer that names none.
    review_effort: dict[str, int] = Field(default_factory=dict)


class Scorecard(_Out):
    """`--format json` (docs/interface.md § Scorecard JSON)."""

    schema_: int = Field(1, alias="schema", serialization_alias="schema")
    repo: str
    since: str
    until: str
    prs: int
    closed_unmerged: int
    merged_over_block: list[int]
    unjudged: list[int]
    untallied: list[int]
    reviewers: list[ReviewerFigures]

    def to_json_dict(self) -> dict[str, object]:
        return self.model_dump(mode="json", by_alias=True)


@dataclass
class _Tally:
    """Running sums for one reviewer."""

    prs_expected: int = 0
    prs_reviewed: int = 0
    failed: int = 0
    skipped: int = 0
    unreadable: int = 0
    total: int = 0
    critical: int = 0
    medium: int = 0
    low: int = 0
    likely_fixed: int = 0
    accepted: int = 0
    awaiting: int = 0
    open_at_merge: int = 0
    corroborated: int = 0

    def __post_init__(self) -> None:
        self.by_kind: dict[str, int] = dict.fromkeys(ACCEPT_KINDS, 0)
        self.minutes: list[float] = []
        self.efforts: dict[str, int] = {}

    def add_run(self, run: BotRun) -> None:
        self.prs_expected += run.expected
        self.prs_reviewed += run.reviewed
        self.failed += run.failed
        self.skipped += run.skipped
        self.unreadable += run.unreadable
        if run.minutes is not None:
            self.minutes.append(run.minutes)
        if run.effort:
            self.efforts[run.effort] = self.efforts.get(run.effort, 0) + 1

    def add_finding(self, e: Entry, corroborated: bool) -> None:
        self.total += 1
        setattr(self, e.level, getattr(self, e.level) + 1)
        self.corroborated += corroborated
        if e.status == "likely_fixed":
            self.likely_fixed += 1
        elif e.status == "awaiting":
            self.awaiting += 1
        elif e.status == "open":
            self.open_at_merge += 1
        else:
            self.accepted += 1
            if e.acceptance is not None:
                self.by_kind[e.acceptance.kind] = self.by_kind.get(e.acceptance.kind, 0) + 1

    def figures(self, bot: str) -> ReviewerFigures:
        return ReviewerFigures(
            bot=bot,
            prs_expected=self.prs_expected,
            prs_reviewed=self.prs_reviewed,
            failed=self.failed,
            skipped=self.skipped,
            unreadable=self.unreadable,
            findings=FindingCounts(
                total=self.total, critical=self.critical, medium=self.medium, low=self.low
            ),
            likely_fixed=self.likely_fixed,
            accepted=self.accepted,
            by_kind=dict(self.by_kind),
            awaiting=self.awaiting,
            open_at_merge=self.open_at_merge,
            corroborated=self.corroborated,
            unique=self.total - self.corroborated,
            acted_on=round(self.likely_fixed / self.total, 3) if self.total else None,
            median_minutes_to_review=(
                round(statistics.median(self.minutes), 1) if self.minutes else None
            ),
            review_effort=dict(sorted(self.efforts.items())),
        )


def _add_record(tallies: dict[str, _Tally], record: History) -> None:
    for bot, run in (record.bots or {}).items():
        tallies.setdefault(bot, _Tally()).add_run(run)
    corroborated = set(record.corroborated or ())
    for e in record.findings:
        tallies.setdefault(e.bot, _Tally()).add_finding(e, e.stable_id in corroborated)


def stamp(t: datetime) -> str:
    """A window bound as shown in the JSON (UTC, seconds)."""
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def scorecard(repo: str, since: datetime, until: datetime, pulls: Sequence[PrRecord]) -> Scorecard:
    """The figures of the closed PRs of the window (merged ones only; the rest counted apart)."""
    merged = sorted((p for p in pulls if p.merged), key=lambda p: p.number)
    tallies: dict[str, _Tally] = {}
    for p in merged:
        if p.record is not None:
            _add_record(tallies, p.record)
    return Scorecard(
        repo=repo,
        since=stamp(since),
        until=stamp(until),
        prs=len(merged),
        closed_unmerged=sum(1 for p in pulls if not p.merged),
        merged_over_block=[p.number for p in merged if p.record and p.record.gate == "block"],
        unjudged=[p.number for p in merged if p.record is None],
        untallied=[p.number for p in merged if p.record and p.record.bots is None],
        reviewers=[tallies[bot].figures(bot) for bot in sorted(tallies)],
    )
