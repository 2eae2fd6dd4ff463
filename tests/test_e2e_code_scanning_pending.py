"""End to end (`runner.evaluate` against the fake GitHub): with `code-scanning: true`, code
scanning with no analysis of the PR's merge commit yet is pending while the run settles — waited
for like a `require-bots` bot, read with every poll — and unreviewed at judgement if the analysis
never comes: never `go` on results nobody produced."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from reviewcoord.runner import Outcome
from tests.e2e_support import CLAUDE, HEAD, SimulatedClock, body, evaluate_in_process
from tests.fakegithub import FakeGitHub

pytestmark = pytest.mark.e2e


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as gh:
        gh.add_pull(2, head_sha=HEAD)
        gh.set_file(".github/review-coordinator.yml", "main", "code-scanning: true\n")
        gh.add_issue_comment(2, login=CLAUDE, body=body("L_email_verificay3"))  # Claude: clean
        yield gh


def judge(fake: FakeGitHub, clock: SimulatedClock) -> Outcome:
    inputs = {
        "settle": "fast",
        "expected-bots": "claude",
        "poll-interval": "10",
        "full-timeout": "120",
        "confirm-delay": "0",
    }
    outcome: Outcome = evaluate_in_process(fake, inputs, clock)
    return outcome


def test_an_analysis_that_lands_during_the_settle_is_waited_for_and_judged(
    fake: FakeGitHub,
) -> None:
    clock = SimulatedClock().at(40, lambda: fake.add_code_scanning_analysis(2))
    outcome = judge(fake, clock)
    assert outcome.gate == "go", outcome.reason
    assert outcome.verdict is not None
    assert outcome.verdict.bots["code-scanning"].state == "reviewed"
    assert 40 <= clock.t < 120  # waited for it, not for the whole timeout


def test_control_no_analysis_by_the_timeout_is_unreviewed_and_blocks(fake: FakeGitHub) -> None:
    clock = SimulatedClock()  # the analysis never comes
    outcome = judge(fake, clock)
    assert outcome.gate == "block"
    assert outcome.verdict is not None and outcome.verdict.unreviewed == ["code-scanning"]
    assert outcome.verdict.bots["code-scanning"].state == "working"
    assert "code scanning pending: no analysis of refs/pull/2/merge yet" in outcome.reason
    assert clock.t >= 120  # waited out the full settle, then said why
