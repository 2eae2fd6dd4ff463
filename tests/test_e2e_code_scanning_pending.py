"""End to end (`runner.evaluate` against the fake GitHub): with `code-scanning: true`, code
scanning with no analysis of the PR's merge commit yet is pending while the run settles — waited
for like a `require-bots` bot, read with every poll — and unreviewed at judgement if the analysis
never comes: never `go` on results nobody produced."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest

from reviewcoord.actions_io import Log
from reviewcoord.github.pygithub_gateway import PyGithubGateway
from reviewcoord.runner import Outcome, RunRequest, evaluate
from tests.e2e_support import CLAUDE, HEAD, body
from tests.fakegithub import FakeGitHub
from tests.fakegithub.server import APP_TOKEN

pytestmark = pytest.mark.e2e


class AnalysingClock:
    """Simulated time; the analysis of the merge commit lands at `analysed_at` (or never)."""

    def __init__(self, fake: FakeGitHub, analysed_at: float | None) -> None:
        self.t, self.fake, self.analysed_at = 0.0, fake, analysed_at

    def now(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.t += max(seconds, 1.0)
        if self.analysed_at is not None and self.t >= self.analysed_at:
            self.fake.add_code_scanning_analysis(2)
            self.analysed_at = None


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as gh:
        gh.add_pull(2, head_sha=HEAD)
        gh.set_file(".github/review-coordinator.yml", "main", "code-scanning: true\n")
        gh.add_issue_comment(2, login=CLAUDE, body=body("L_email_verificay3"))  # Claude: clean
        yield gh


def judge(fake: FakeGitHub, clock: AnalysingClock) -> Outcome:
    inputs = {
        "settle": "fast",
        "expected-bots": "claude",
        "poll-interval": "10",
        "full-timeout": "120",
        "confirm-delay": "0",
    }
    req = RunRequest(
        repo=fake.repo,
        pr=2,
        inputs=inputs,
        input_source="test",
        config_path=".github/review-coordinator.yml",
    )
    with PyGithubGateway(fake.repo, APP_TOKEN, base_url=fake.base_url, write_spacing=0) as gw:
        return evaluate(req, gw, clock, Log(io.StringIO()))


def test_an_analysis_that_lands_during_the_settle_is_waited_for_and_judged(
    fake: FakeGitHub,
) -> None:
    clock = AnalysingClock(fake, analysed_at=40)
    outcome = judge(fake, clock)
    assert outcome.gate == "go", outcome.reason
    assert outcome.verdict is not None
    assert outcome.verdict.bots["code-scanning"].state == "reviewed"
    assert 40 <= clock.t < 120  # waited for it, not for the whole timeout


def test_control_no_analysis_by_the_timeout_is_unreviewed_and_blocks(fake: FakeGitHub) -> None:
    clock = AnalysingClock(fake, analysed_at=None)
    outcome = judge(fake, clock)
    assert outcome.gate == "block"
    assert outcome.verdict is not None and outcome.verdict.unreviewed == ["code-scanning"]
    assert outcome.verdict.bots["code-scanning"].state == "working"
    assert "code scanning pending: no analysis of refs/pull/2/merge yet" in outcome.reason
    assert clock.t >= 120  # waited out the full settle, then said why
