"""Events, not waiting (`wait: events`, docs/reviewers.md § When it reads: settle): a run
reads, judges and publishes once, then exits. While an expected bot has not finished on the
head and its pack's timeout, counted from the head's arrival by GitHub's clock, has not
passed, what it publishes is pending: the sticky with the interim judgement and who is awaited
until when, the commit status `pending`, our check run `in_progress` (never a conclusion), its
`output.text` holding the deadline where only our App can write it (`deadline_of`). The bot's
own post starts the next run; the scheduled sweep (reviewcoord/sweep.py) dispatches the event
workflow for the PRs whose deadline passed with nobody coming, whose run judges them.

Fail closed: an arrival or a server time that cannot be read counts as no time passed (the
check stays pending; a later event or sweep judges again), never as a timeout.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from reviewcoord.actions_io import Log
from reviewcoord.bots import REGISTRY
from reviewcoord.model import Verdict
from reviewcoord.settle import Asked, Awaiting, Publish, Reading, Settled, SettlePolicy, decide

_MARK = "<!-- review-coordinator-awaiting until="
_DEADLINE = re.compile(
    r"<!-- review-coordinator-awaiting until=(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ) -->"
)


def decide_now(
    reading: Reading,
    policy: SettlePolicy,
    times: tuple[datetime | None, datetime | None],
    could_go: Callable[[Reading], bool],
    on_poll: Callable[[Reading, float], Asked | None],
    log: Log,
) -> Settled:
    """The settle rule once, at GitHub's time now since the head arrived (`times`: the head's
    arrival, reviewcoord/arrival.py, else our first check run on it; and the `Date` of GitHub's
    latest reply): a `Settled` to publish, or one `awaiting` to publish as pending."""
    arrival, now = times
    elapsed = max(0.0, (now - arrival).total_seconds()) if now and arrival else 0.0
    again = on_poll(reading, elapsed)
    decision = decide(reading, policy, elapsed, could_go, again)
    notes = list(decision.notes)
    if isinstance(decision, Publish):
        return Settled(reading, decision.mode, decision.timed_out, 1, 0, notes)
    until = arrival + timedelta(seconds=decision.until) if arrival else None
    log.info(
        f"awaiting {', '.join(decision.awaited)} until {when(until)} "
        f"({elapsed:.0f}s since the head arrived): publishing pending, not waiting"
    )
    return Settled(reading, decision.mode, False, 1, 0, notes, Awaiting(decision.awaited, until))


def when(until: datetime | None) -> str:
    """`HH:MM UTC` (with the date when it is not today by GitHub's clock is unknown here)."""
    if until is None:
        return "a later event (the head's arrival is unknown)"
    return until.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def awaiting_line(awaiting: Awaiting, mode: str) -> str:
    """The sticky's, the check's and the job summary's line while a bot is awaited."""
    names = ", ".join(REGISTRY.display(b) for b in awaiting.bots)
    return (
        f"Awaiting {names} until {when(awaiting.until)} (settle `{mode}`): the gate stays "
        "pending until each has reviewed this head or the time has passed; their posts, or the "
        "scheduled sweep after that time, judge it again"
    )


def interim(verdict: Verdict, awaiting: Awaiting) -> Verdict:
    """The verdict while waiting: never `go` — `block`, saying who is awaited until when."""
    names = ", ".join(awaiting.bots)
    reason = f"awaiting {names} until {when(awaiting.until)}; so far: {verdict.gate_reason}"
    until = awaiting.until.astimezone(UTC).isoformat() if awaiting.until else None
    return verdict.model_copy(
        update={
            "gate": "block",
            "gate_reason": reason[:300],
            "awaiting": list(awaiting.bots),
            "awaiting_until": until,
        }
    )


def deadline_text(awaiting: Awaiting) -> str | None:
    """The machine-readable deadline for our check run's `output.text` (only our App can
    write it), or None when unknown (then no sweep picks the PR: a later event judges it)."""
    if awaiting.until is None:
        return None
    return f"{_MARK}{awaiting.until.astimezone(UTC).strftime('%Y-%m-%dT%H:%M:%SZ')} -->"


def deadline_of(text: str | None) -> datetime | None:
    """The deadline our waiting check run holds (its `output.text`), or None."""
    found = _DEADLINE.search(text or "")
    if found is None:
        return None
    return datetime.strptime(found.group(1), "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
