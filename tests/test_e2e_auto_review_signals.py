"""End to end: `expected-bots: auto` counts a bot only from a comment its profile reads as a
review signal (a finding, a verdict, a run state), never from any comment of its login (issue
25). Devin's coding agent greets a PR from Devin Review's login (`N5_devin_tindocs1_agent`) and
Graphite's merge queue logs its activity from Graphite Agent's (`N5_graphite_forge_merge_activity`):
neither reviews, so neither makes its reviewer expected, on another PR or on this one. Each attack
sits by its control: the same reviewers' real findings do make them expected."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e_support import HEAD, OTHER_PR, body, pulls_two_and_five, run_action, verdict_of
from tests.fakegithub import FakeGitHub

pytestmark = pytest.mark.e2e

DEVIN, GRAPHITE = "devin-ai-integration[bot]", "graphite-app[bot]"
QUICK = {"fast-timeout": "2", "full-timeout": "3"}


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    yield from pulls_two_and_five()


def chatter(fake: FakeGitHub, pr: int) -> None:
    fake.add_issue_comment(pr, login=DEVIN, body=body("N5_devin_tindocs1_agent"))
    fake.add_issue_comment(pr, login=GRAPHITE, body=body("N5_graphite_forge_merge_activity"))


def test_attack_agent_and_merge_queue_comments_make_nobody_expected(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    chatter(fake, OTHER_PR)
    chatter(fake, 2)
    run = run_action(fake, tmp_path, inputs=QUICK)
    assert run.returncode == 0, run.log
    verdict = verdict_of(run)
    assert verdict["expected_bots"] == [] and verdict["pending"] == []
    # Known noise, not an unreadable body: nothing for the sticky to shout about.
    for bot in ("devin", "graphite"):
        assert verdict["bots"].get(bot, {}).get("state") != "unreadable", verdict["bots"]
    assert "no rule of this bot's profile reads it" not in run.log


def test_control_their_real_findings_make_them_expected(fake: FakeGitHub, tmp_path: Path) -> None:
    chatter(fake, OTHER_PR)
    sha = "d" * 40
    fake.add_review_comment(OTHER_PR, login=DEVIN, body=body("N5_devin_hena79_yellow"),
                            path="d.ts", line=83, commit_id=sha)  # fmt: skip
    fake.add_review_comment(OTHER_PR, login=GRAPHITE, body=body("N5_graphite_cc1589_inline"),
                            path="c.sh", line=3, commit_id=sha)  # fmt: skip
    run = run_action(fake, tmp_path, inputs=QUICK)
    assert run.returncode == 0, run.log
    verdict = verdict_of(run)
    assert verdict["expected_bots"] == ["graphite", "devin"]
    assert verdict["pending"] == ["graphite", "devin"]


def test_control_a_finding_on_this_pr_makes_its_bot_expected(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    chatter(fake, 2)
    fake.add_review_comment(2, login=GRAPHITE, body=body("N5_graphite_cc1589_inline"),
                            path="c.sh", line=3, commit_id=HEAD)  # fmt: skip
    verdict = verdict_of(run_action(fake, tmp_path, inputs=QUICK), exit_ok=True)
    assert verdict["expected_bots"] == ["graphite"]
