"""A first run on a repository with no history (issue "install in five minutes"): with no AI
reviewer ever seen there, `expected-bots: auto` expects none, so the run judges what is there at
once instead of waiting out the timeouts, and the sticky says so and how to name reviewers."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from reviewcoord.resolve import AUTO_FOUND_NONE, auto_found
from tests.e2e_support import (
    CURSOR,
    HEAD,
    SimulatedClock,
    body,
    evaluate_in_process,
    stickies,
)
from tests.fakegithub import FakeGitHub


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as gh:
        gh.add_pull(2, head_sha=HEAD)
        yield gh


def test_a_first_run_with_no_reviewer_seen_settles_in_one_poll(fake: FakeGitHub) -> None:
    clock = SimulatedClock()
    outcome = evaluate_in_process(fake, {}, clock)  # the defaults: settle fast, expected auto
    assert outcome.settled.polls <= 1 and not outcome.settled.timed_out
    assert clock.t < 15  # no poll interval slept through, let alone the 180 s fast-timeout
    verdict = outcome.verdict
    assert verdict.expected_bots == [] and verdict.pending == []
    assert verdict.gate == "go"
    reason = f"no findings: no AI reviewer is expected or has reviewed {HEAD[:7]}"
    assert verdict.gate_reason == reason
    (sticky,) = stickies(fake)
    assert AUTO_FOUND_NONE in " ".join(sticky["body"].split())
    assert "expected-bots: codex, copilot" in sticky["body"]


def test_control_a_reviewer_seen_on_the_repository_is_waited_for(fake: FakeGitHub) -> None:
    """Once Bugbot has posted anywhere on the repository, `auto` expects it: the run waits for
    it within the fast settle (here it never posts on PR 2, so the timeout ends the wait)."""
    fake.add_pull(1, head_sha="a" * 40)
    fake.add_review_comment(1, login=CURSOR, body=body("C_jdx12718_lock156"), path="a.py", line=1)
    clock = SimulatedClock()
    outcome = evaluate_in_process(fake, {"fast-timeout": "60"}, clock)
    assert outcome.verdict.expected_bots == ["cursor"]
    assert outcome.settled.polls > 1 and outcome.settled.timed_out
    assert clock.t >= 60
    (sticky,) = stickies(fake)
    flat = " ".join(sticky["body"].split())
    assert AUTO_FOUND_NONE not in flat
    # What `auto` found, and the line that names it from the first run on.
    assert auto_found(["cursor"]) in flat and "`expected-bots: cursor`" in flat


def test_a_bot_seen_on_this_pr_is_expected_on_its_first_run(fake: FakeGitHub) -> None:
    fake.add_review(2, login=CURSOR, body=body("C_jdx12718_review"), commit_id=HEAD)
    outcome = evaluate_in_process(fake, {}, SimulatedClock())
    assert outcome.verdict.expected_bots == ["cursor"]
    assert AUTO_FOUND_NONE not in outcome.notes and auto_found(["cursor"]) in outcome.notes


def test_named_reviewers_get_no_note_about_auto(fake: FakeGitHub) -> None:
    """Control: `expected-bots` named, nothing of `auto` to say."""
    fake.add_review(2, login=CURSOR, body=body("C_jdx12718_review"), commit_id=HEAD)
    outcome = evaluate_in_process(fake, {"expected-bots": "cursor"}, SimulatedClock())
    assert not [n for n in outcome.notes if "expected-bots" in n]
