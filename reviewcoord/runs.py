"""What each reviewer did on a PR, folded run after run into the record (`history.BotRun`), and
which findings another reviewer corroborated: the facts `reviewcoord scorecard` reads back from
the last sticky, since they cannot be re-derived from a record's findings alone.

Pure: the previous record's tally, this run's verdict and reading in, the next tally out. A flag
once set stays set (a reviewer that ran out of quota on the first head and reviewed the second
one both failed and reviewed on this PR); the time to review is measured once, on the first head
where the head's commit time and the reviewer's first finished review of it are both known.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime

from reviewcoord.history import BotRun, History
from reviewcoord.ingest import Ingested
from reviewcoord.judgement import base_sid
from reviewcoord.model import BotKey, Verdict


def _minutes(reviewed: datetime | None, head_time: datetime | None) -> float | None:
    """Head commit → first review, in minutes; None when a time is missing or the clocks
    disagree (a review older than its head's commit is a skewed clock, never a figure)."""
    if reviewed is None or head_time is None:
        return None
    delta = (reviewed - head_time).total_seconds() / 60
    return round(delta, 1) if delta >= 0 else None


def next_runs(
    previous: Mapping[BotKey, BotRun] | None,
    verdict: Verdict,
    ingested: Ingested,
    owed: Iterable[BotKey],
    head_time: datetime | None,
) -> dict[BotKey, BotRun]:
    """The tally after this run. `owed`: the bots expected or required on this head."""
    owed = set(owed)
    states = {b: s.state for b, s in verdict.bots.items()}
    active = {b for b, state in states.items() if state != "not_seen"}
    keys = sorted({*(previous or {}), *owed, *active, *ingested.unreadable})
    out: dict[BotKey, BotRun] = {}
    for bot in keys:
        old = (previous or {}).get(bot) or BotRun()
        state = states.get(bot, "not_seen")
        minutes = old.minutes
        if minutes is None and state == "reviewed":
            minutes = _minutes(ingested.reviewed_at.get(bot), head_time)
        out[bot] = BotRun(
            expected=old.expected or bot in owed,
            reviewed=old.reviewed or state == "reviewed",
            failed=old.failed or state == "failed",
            skipped=old.skipped or state == "skipped",
            unreadable=old.unreadable or bot in ingested.unreadable,
            minutes=minutes,
            effort=ingested.efforts.get(bot, "")[:20] or old.effort,
        )
    return out


def next_corroborated(
    previous: Sequence[str] | None, verdict: Verdict, record: History
) -> list[str]:
    """Base stable ids another reviewer reported as the same issue, in this cycle or an earlier
    one: every source of a published finding whose sources all report one issue (`agrees`) and
    come from two reviewers or more. Kept only for findings the record still holds."""
    found = set(previous or ())
    for vf in [*verdict.critical, *verdict.advisory]:
        if vf.agrees and len({s.bot for s in vf.sources}) >= 2:
            found.update(base_sid(s.stable_id) for s in vf.sources)
    held = {e.stable_id for e in record.findings}
    return sorted(found & held)
