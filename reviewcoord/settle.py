"""Settle: decide *when* to read (docs/reviewers.md § When it reads: settle). Never wait on the
slowest bot, never forever.

* `none`: read once.
* `fast`: done when every fast-pack bot (∩ expected) has finished on the head, or at
  `fast-timeout`.
* `full`: done when every expected bot has finished on the head, or at `full-timeout`.
* Merge patience: when `fast` would publish `go` while a slow-pack bot (Codex) is still pending
  on the head, keep waiting as `full` — the fast path governs iteration, the patient path merge.
  A bot named in `require-bots` is waited for the same way, whatever `merge-patience` says.
* "Finished" is a final run state: `reviewed`, `failed` or `skipped` (interface §5). A bot that
  says it cannot review is not waited for.
* `decide` is the rule at one moment, pure; the polling loop (`settle`, the CLI) calls it on
  every read, the Action once per event (reviewcoord/events.py), with the time since the head
  arrived by GitHub's clock.
* If the head moves while settling, start over on the new head (at most `max_restarts` times):
  a verdict is only ever published for a head that was read.

Time comes from an injected `Clock`, so tests run the whole loop without sleeping.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from reviewcoord.github.gateway import PullInfo
from reviewcoord.ingest import Ingested
from reviewcoord.model import FINAL_STATES, BotKey, RawComment, SettleMode
from reviewcoord.reading import Evidence


class Clock(Protocol):
    def now(self) -> float: ...

    def sleep(self, seconds: float) -> None: ...


class SystemClock:
    def now(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        time.sleep(max(0.0, seconds))


@dataclass(frozen=True)
class Reading:
    """One complete read of a PR: its head, the evidence of that head (every comment of the
    three endpoints and what the profiles in play asked for: reviewcoord/reading.py), and what
    it means (`ingested`)."""

    pull: PullInfo
    evidence: Evidence
    ingested: Ingested

    @property
    def comments(self) -> list[RawComment]:
        return list(self.evidence.comments)


@dataclass(frozen=True)
class SettlePolicy:
    mode: SettleMode
    expected: Sequence[BotKey]
    fast_pack: Sequence[BotKey]
    slow_pack: Sequence[BotKey]
    fast_timeout: float
    full_timeout: float
    poll_interval: float
    merge_patience: bool
    max_restarts: int = 3
    # `require-bots`: a `go` needs each of them reviewed, so a fast settle that would otherwise
    # publish while one is still pending waits for the full settle, merge patience or not.
    required: Sequence[BotKey] = ()


@dataclass
class Settled:
    reading: Reading
    mode: SettleMode  # what we ended up waiting for: reported as the verdict's `settle`
    timed_out: bool
    polls: int
    restarts: int
    log: list[str] = field(default_factory=list)
    # Without waiting (the Action, reviewcoord/events.py): not settled yet — who is awaited
    # and until when (GitHub's clock); the interim judgement is published as pending.
    awaiting: Awaiting | None = None


@dataclass(frozen=True)
class Awaiting:
    bots: tuple[BotKey, ...]
    until: datetime | None  # None: the head's arrival is unknown (waits until a later event)


# Bots asked again on the head (reviewcoord/rerequest.py) → the url of the state they were
# asked in: that `failed` is no longer final; the bot's next final state is.
Asked = Mapping[BotKey, str]


def waiting_for(
    reading: Reading, bots: Sequence[BotKey], again: Asked | None = None
) -> list[BotKey]:
    """The bots still to come on the head: not seen or working. `reviewed`, `failed` and
    `skipped` are final (a bot that said it cannot review is not waited for) — unless the bot
    was asked again after that very state (`again`)."""
    return [b for b in bots if not _final(reading, b, again or {})]


def _final(reading: Reading, bot: BotKey, again: Asked) -> bool:
    status = reading.ingested.bots.get(bot)
    if status is None or status.state not in FINAL_STATES:
        return False
    return status.state == "reviewed" or again.get(bot) != status.url


@dataclass(frozen=True)
class Publish:
    """Judge and publish now, as settle `mode` (`timed_out`: a bot it waited for never came)."""

    mode: SettleMode
    timed_out: bool
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Wait:
    """Not yet: `awaited` may still come until `until` seconds after the head arrived."""

    mode: SettleMode
    awaited: tuple[BotKey, ...]
    until: float
    notes: tuple[str, ...] = ()


def decide(
    reading: Reading,
    policy: SettlePolicy,
    elapsed: float,
    would_go: Callable[[Reading], bool],
    again: Asked | None = None,
    mode: SettleMode | None = None,
) -> Publish | Wait:
    """The settle rule at one moment, pure: `elapsed` seconds since the head arrived (the
    Action: GitHub's clock; the polling loop: since it started), in `mode` (the policy's
    unless the loop already escalated). `fast` escalates to `full` when it would publish `go`
    while a slow-pack bot (merge patience) or a `require-bots` bot is still pending."""
    again = again or {}
    mode = mode or policy.mode
    if mode == "none":
        return Publish("none", False)
    notes: tuple[str, ...] = ()
    if mode == "fast":
        fast_set = [b for b in policy.fast_pack if b in policy.expected]
        awaited = waiting_for(reading, fast_set, again)
        if awaited and elapsed < policy.fast_timeout:
            return Wait("fast", tuple(awaited), policy.fast_timeout)
        slow_set = [b for b in policy.slow_pack if b in policy.expected]
        patient = waiting_for(reading, slow_set, again) if policy.merge_patience else []
        required = waiting_for(reading, policy.required, again)
        if not (patient or required) or not would_go(reading):
            return Publish("fast", bool(awaited))
        why = " and ".join(
            name for name, bots in (("merge patience", patient), ("require-bots", required)) if bots
        )
        pending = ", ".join(dict.fromkeys([*patient, *required]))
        notes = (f"{why}: go while {pending} pending on head; waiting for full settle",)
    awaited = waiting_for(reading, policy.expected, again)
    if awaited and elapsed < policy.full_timeout:
        return Wait("full", tuple(awaited), policy.full_timeout, notes)
    return Publish("full", bool(awaited), notes)


def settle(
    read: Callable[[], Reading],
    policy: SettlePolicy,
    clock: Clock,
    would_go: Callable[[Reading], bool],
    on_poll: Callable[[Reading, float], Asked | None] = lambda r, t: None,
    first: Reading | None = None,
) -> Settled:
    """Poll `read` until the policy is satisfied or times out (`decide`); return the last
    reading. `first` is a reading the caller already made at the start (it counts as poll 1).
    `on_poll` may ask bots again (re-request): it returns them, and they are waited for."""
    start = clock.now()
    reading = first if first is not None else read()
    head = reading.pull.head_sha
    polls, restarts = 1, 0
    mode: SettleMode = policy.mode
    notes: list[str] = []
    again: dict[BotKey, str] = {}

    while True:
        elapsed = clock.now() - start
        again.update(on_poll(reading, elapsed) or {})
        decision = decide(reading, policy, elapsed, would_go, again, mode)
        notes.extend(decision.notes)
        if isinstance(decision, Publish):
            return Settled(reading, decision.mode, decision.timed_out, polls, restarts, notes)
        mode = decision.mode
        clock.sleep(min(policy.poll_interval, max(0.0, decision.until - elapsed)))
        reading = read()
        polls += 1
        if reading.pull.head_sha != head:
            if restarts >= policy.max_restarts:
                notes.append(
                    f"head moved {restarts + 1} times while settling; "
                    f"judging {reading.pull.head_sha[:7]} as read now"
                )
                return Settled(reading, mode, True, polls, restarts, notes)
            restarts += 1
            notes.append(f"head moved {head[:7]} → {reading.pull.head_sha[:7]}; starting over")
            head = reading.pull.head_sha
            start = clock.now()
            mode = policy.mode
            again.clear()
