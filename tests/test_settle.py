"""Settle with an injected clock: fast, full, none, merge patience, head moves, timeouts."""

from __future__ import annotations

from collections.abc import Callable

from reviewcoord.bots import bot_keys
from reviewcoord.github.gateway import PullInfo
from reviewcoord.ingest import Ingested
from reviewcoord.model import BotKey, BotState, BotStatus
from reviewcoord.reading import Evidence
from reviewcoord.settle import Publish, Reading, SettlePolicy, Wait, decide, settle


class FakeClock:
    def __init__(self) -> None:
        self.t = 0.0
        self.sleeps: list[float] = []

    def now(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.t += seconds


def reading(head: str = "h1", **states: BotState) -> Reading:
    full: dict[BotKey, BotStatus] = {
        b: BotStatus(state=states.get(b, "not_seen")) for b in bot_keys()
    }
    return Reading(
        pull=PullInfo(number=1, head_sha=head, base_ref="main"),
        evidence=Evidence(),
        ingested=Ingested(findings=[], bots=full, unknown_bots=[], parse_notes=[]),
    )


def script(clock: FakeClock, timeline: list[tuple[float, Reading]]) -> Callable[[], Reading]:
    """read() returns the latest reading whose time has come."""

    def read() -> Reading:
        current = timeline[0][1]
        for at, r in timeline:
            if clock.t >= at:
                current = r
        return current

    return read


def policy(mode: str = "fast", **kw: object) -> SettlePolicy:
    base: dict[str, object] = dict(
        mode=mode,
        # The four bots these scenarios script (other built-in bots stay out of them).
        expected=["codex", "copilot", "cursor", "claude"],
        fast_pack=["claude", "copilot", "cursor"],
        slow_pack=["codex"],
        fast_timeout=180,
        full_timeout=480,
        poll_interval=15,
        merge_patience=False,
    )
    base.update(kw)
    return SettlePolicy(**base)  # type: ignore[arg-type]


def test_fast_fires_when_fast_pack_done_not_at_timeout() -> None:
    clock = FakeClock()
    read = script(
        clock,
        [(0, reading()), (40, reading(claude="reviewed", copilot="reviewed", cursor="reviewed"))],
    )
    result = settle(read, policy(), clock, lambda r: False)
    assert result.mode == "fast" and not result.timed_out
    assert clock.t == 45 and result.polls == 4


def test_fast_times_out_and_never_waits_forever() -> None:
    clock = FakeClock()
    result = settle(
        script(clock, [(0, reading(claude="working"))]), policy(), clock, lambda r: False
    )
    assert result.timed_out and clock.t == 180
    assert all(s <= 15 for s in clock.sleeps)


def test_in_progress_is_pending_until_finished() -> None:
    clock = FakeClock()
    read = script(
        clock,
        [
            (0, reading(claude="working", copilot="reviewed", cursor="reviewed")),
            (100, reading(claude="reviewed", copilot="reviewed", cursor="reviewed")),
        ],
    )
    result = settle(read, policy(), clock, lambda r: False)
    assert clock.t == 105 and not result.timed_out


def test_merge_patience_waits_for_slow_bot_on_go() -> None:
    clock = FakeClock()
    fast_done = reading(claude="reviewed", copilot="reviewed", cursor="reviewed")
    all_done = reading(codex="reviewed", claude="reviewed", copilot="reviewed", cursor="reviewed")
    read = script(clock, [(0, fast_done), (300, all_done)])
    result = settle(read, policy(merge_patience=True), clock, lambda r: True)
    assert result.mode == "full" and clock.t == 300 and not result.timed_out
    assert any("merge patience" in n for n in result.log)


def test_merge_patience_does_not_delay_a_block() -> None:
    clock = FakeClock()
    read = script(clock, [(0, reading(claude="reviewed", copilot="reviewed", cursor="reviewed"))])
    result = settle(read, policy(merge_patience=True), clock, lambda r: False)
    assert result.mode == "fast" and clock.t == 0


def test_full_waits_for_everyone_or_full_timeout() -> None:
    clock = FakeClock()
    read = script(clock, [(0, reading(claude="reviewed", copilot="reviewed", cursor="reviewed"))])
    result = settle(read, policy("full"), clock, lambda r: True)
    assert result.timed_out and clock.t == 480


def test_none_reads_once() -> None:
    clock = FakeClock()
    calls = []

    def read() -> Reading:
        calls.append(1)
        return reading()

    result = settle(read, policy("none"), clock, lambda r: True)
    assert result.mode == "none" and len(calls) == 1 and clock.t == 0


def test_empty_fast_pack_fires_at_once_then_patience_decides() -> None:
    clock = FakeClock()
    read = script(clock, [(0, reading())])
    result = settle(read, policy(expected=["codex"], merge_patience=True), clock, lambda r: True)
    assert result.mode == "full" and result.timed_out and clock.t == 480


def test_head_move_restarts_on_new_head_and_is_bounded() -> None:
    clock = FakeClock()
    read = script(
        clock,
        [
            (0, reading("h1")),
            (30, reading("h2")),
            (60, reading("h2", claude="reviewed", copilot="reviewed", cursor="reviewed")),
        ],
    )
    result = settle(read, policy(), clock, lambda r: False)
    assert result.reading.pull.head_sha == "h2" and result.restarts == 1
    assert any("head moved" in n for n in result.log)

    clock = FakeClock()
    heads = iter(range(100))

    def moving() -> Reading:
        return reading(f"h{next(heads)}")

    result = settle(moving, policy(max_restarts=3), clock, lambda r: False)
    assert result.restarts == 3 and result.timed_out


def test_failed_and_skipped_are_final_no_waiting_for_them() -> None:
    clock = FakeClock()
    done = reading(claude="failed", copilot="skipped", cursor="reviewed", codex="failed")
    result = settle(script(clock, [(0, done)]), policy("full"), clock, lambda r: True)
    assert (result.mode, result.timed_out, result.polls, clock.t) == ("full", False, 1, 0)


def test_a_failed_bot_that_shows_working_again_is_waited_for() -> None:
    # Someone asked Claude again after its error: its tracker says working, so it is pending.
    clock = FakeClock()
    timeline = [
        (0, reading(claude="working", copilot="reviewed", cursor="reviewed")),
        (60, reading(claude="reviewed", copilot="reviewed", cursor="reviewed")),
    ]
    result = settle(script(clock, timeline), policy(), clock, lambda r: False)
    assert not result.timed_out and clock.t >= 60


def test_require_bots_waits_for_the_full_settle_even_without_merge_patience() -> None:
    clock = FakeClock()
    fast_done = reading(claude="reviewed", copilot="reviewed", cursor="reviewed")
    codex_in = reading(codex="reviewed", claude="reviewed", copilot="reviewed", cursor="reviewed")
    read = script(clock, [(0, fast_done), (300, codex_in)])
    result = settle(read, policy(required=["codex"]), clock, lambda r: True)
    assert result.mode == "full" and not result.timed_out and clock.t >= 300
    assert any("require-bots" in note for note in result.log)


def test_require_bots_does_not_delay_a_block() -> None:
    clock = FakeClock()
    fast_done = reading(claude="reviewed", copilot="reviewed", cursor="reviewed")
    result = settle(
        script(clock, [(0, fast_done)]), policy(required=["codex"]), clock, lambda r: False
    )
    assert (result.mode, clock.t) == ("fast", 0)


# --- re-requests (issue 17): a bot asked again after `failed` is waited for -------------------


def test_a_failed_bot_asked_again_is_waited_for_until_it_reviews() -> None:
    clock = FakeClock()
    done = dict(claude="reviewed", cursor="reviewed", codex="reviewed")
    read = script(
        clock,
        [(0, reading(copilot="failed", **done)), (60, reading(copilot="reviewed", **done))],
    )
    asked: list[float] = []

    def on_poll(r: Reading, elapsed: float) -> dict[str, str]:
        if r.ingested.state("copilot") == "failed" and not asked:
            asked.append(elapsed)
            return {"copilot": ""}  # the url of the failed state it was asked in
        return {}

    result = settle(read, policy("full"), clock, lambda r: False, on_poll)
    assert asked == [0.0] and not result.timed_out
    assert result.reading.ingested.state("copilot") == "reviewed" and clock.t == 60


def test_control_a_failed_bot_not_asked_is_final_at_once() -> None:
    clock = FakeClock()
    done = dict(claude="reviewed", cursor="reviewed", codex="reviewed")
    read = script(clock, [(0, reading(copilot="failed", **done))])
    result = settle(read, policy("full"), clock, lambda r: False)
    assert result.polls == 1 and clock.t == 0 and not result.timed_out


def test_a_bot_that_fails_again_after_the_ask_is_final_again() -> None:
    clock = FakeClock()
    first = reading(copilot="failed", claude="reviewed", cursor="reviewed", codex="reviewed")
    again = first.ingested.bots["copilot"].model_copy(update={"url": "https://x/new-failure"})
    later = Reading(
        pull=first.pull,
        evidence=Evidence(),
        ingested=Ingested(
            findings=[],
            bots={**first.ingested.bots, "copilot": again},
            unknown_bots=[],
            parse_notes=[],
        ),
    )
    read = script(clock, [(0, first), (30, later)])
    calls: list[int] = []

    def on_poll(r: Reading, elapsed: float) -> dict[str, str]:
        calls.append(1)
        return {"copilot": ""} if len(calls) == 1 else {}

    result = settle(read, policy("full"), clock, lambda r: False, on_poll)
    assert not result.timed_out and clock.t == 30  # its new failure is final: no timeout wait


# --- decide: the rule at one moment (`wait: events`, reviewcoord/events.py) -------------------

FAST_DONE = {"claude": "reviewed", "copilot": "reviewed", "cursor": "reviewed"}


def test_decide_none_publishes_at_once() -> None:
    assert decide(reading(), policy("none"), 0, lambda r: True) == Publish("none", False)


def test_decide_fast_waits_for_the_fast_pack_until_its_timeout() -> None:
    got = decide(reading(claude="reviewed"), policy(), 179, lambda r: True)
    assert got == Wait("fast", ("copilot", "cursor"), 180)
    late = decide(reading(claude="reviewed"), policy(), 180, lambda r: False)
    assert late == Publish("fast", True)


def test_decide_full_waits_for_every_expected_bot_until_its_timeout() -> None:
    got = decide(reading(**FAST_DONE), policy("full"), 479, lambda r: True)
    assert got == Wait("full", ("codex",), 480)
    assert decide(reading(**FAST_DONE), policy("full"), 480, lambda r: True) == Publish(
        "full", True
    )


def test_decide_merge_patience_escalates_a_go_to_the_full_wait() -> None:
    patient = policy(merge_patience=True)
    got = decide(reading(**FAST_DONE), patient, 10, lambda r: True)
    assert isinstance(got, Wait) and got.mode == "full" and got.awaited == ("codex",)
    assert got.until == 480 and "merge patience" in got.notes[0]
    # a block needs no patience: published as the fast settle
    assert decide(reading(**FAST_DONE), patient, 10, lambda r: False) == Publish("fast", False)


def test_decide_require_bots_escalates_whatever_merge_patience_says() -> None:
    got = decide(reading(**FAST_DONE), policy(required=["codex"]), 10, lambda r: True)
    assert isinstance(got, Wait) and got.awaited == ("codex",) and "require-bots" in got.notes[0]
    done = decide(reading(codex="reviewed", **FAST_DONE), policy(required=["codex"]), 10, bool)
    assert done == Publish("fast", False)
