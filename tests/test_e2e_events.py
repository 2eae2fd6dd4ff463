"""End to end: `wait: events` (docs/reviewers.md § When it reads: settle) through entrypoint.py
against the fake GitHub, whose clock (its `Date` header, its timestamps) the test moves on.

No run waits: while an expected bot has not reviewed the head within its pack's timeout
(counted from the head's arrival, GitHub's clock), the check run stays in_progress, the status
pending, the sticky says who is awaited until when — never `success`. The bot's post judges
again; with no post, the scheduled sweep after the deadline publishes the timed-out verdict;
a sweep before it publishes nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e_support import (
    CLAUDE,
    CODEX,
    COPILOT_REVIEWER,
    HEAD,
    Run,
    body,
    run_action,
    stickies,
    verdict_of,
    writes,
)
from tests.fakegithub import FakeGitHub
from tests.test_e2e_bot_states import fast_pack_clean

pytestmark = pytest.mark.e2e

FAST, FULL = 600, 1200
BASE = {
    "wait": "events",
    "fast-timeout": str(FAST),
    "full-timeout": str(FULL),
    "expected-bots": "codex,copilot,cursor,claude",
}


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as gh:
        gh.add_pull(2, head_sha=HEAD)
        yield gh


def ours(fake: FakeGitHub) -> dict[str, Any]:
    runs = [r for r in fake.check_runs(HEAD) if r["name"] == "review-coordinator"]
    assert len(runs) == 1, runs
    return runs[0]


def status(fake: FakeGitHub) -> dict[str, Any]:
    return fake.statuses(HEAD)[-1]


def assert_waiting(fake: FakeGitHub, run: Run, *awaited: str) -> None:
    """Pending everywhere, never a conclusion; the sticky names who is awaited, until when."""
    assert run.returncode == 0, run.log
    check = ours(fake)
    assert check["status"] == "in_progress" and check["conclusion"] is None
    assert "review-coordinator-awaiting until=" in (check["output"]["text"] or "")
    assert status(fake)["state"] == "pending"
    assert not [s for s in fake.statuses(HEAD) if s["state"] == "success"]
    sticky = stickies(fake)[-1]["body"]
    assert "Awaiting" in sticky and " UTC" in sticky
    for bot in awaited:
        assert bot in sticky
    assert run.outputs["gate"] == "block"
    assert "awaiting" in run.outputs["gate-reason"]


def sweep(fake: FakeGitHub, tmp: Path, **inputs: str) -> Run:
    return run_action(
        fake, tmp, event="schedule", payload={"schedule": "*/10 * * * *"}, inputs=inputs
    )


@pytest.mark.parametrize("mode", ["fast", "full"])
def test_a_pending_bot_is_published_as_waiting_then_its_post_judges(
    fake: FakeGitHub, tmp_path: Path, mode: str
) -> None:
    fast_pack_clean(fake)
    inputs = {**BASE, "settle": mode, "merge-patience": "true"}
    first = run_action(fake, tmp_path / "1", inputs=inputs)
    assert_waiting(fake, first, "Codex")
    assert verdict_of(first)["pending"] == ["codex"]
    fake.add_issue_comment(2, login=CODEX, body=body("X_clean_swish"))
    fake.advance(60)
    second = run_action(
        fake, tmp_path / "2", event="issue_comment", payload=_comment(), inputs=inputs
    )
    assert second.returncode == 0, second.log
    assert second.outputs["gate"] == "go", second.log
    assert ours(fake)["conclusion"] == "success"
    assert status(fake)["state"] == "success"
    assert "Awaiting" not in stickies(fake)[-1]["body"]


@pytest.mark.parametrize(
    ("extra", "awaited"),
    [
        ({"settle": "fast"}, "Cursor"),  # a fast-pack bot, within fast-timeout
        ({"settle": "full"}, "Cursor"),
        ({"settle": "fast", "merge-patience": "true"}, "Cursor"),
        ({"settle": "fast", "require-bots": "codex"}, "Cursor"),
    ],
)
def test_never_success_while_an_expected_bot_is_pending_within_its_timeout(
    fake: FakeGitHub, tmp_path: Path, extra: dict[str, str], awaited: str
) -> None:
    fake.add_review(2, login=COPILOT_REVIEWER, body=body("Z12"), commit_id=HEAD)
    fake.add_review(2, login=CLAUDE, body=body("L_cca1078_lgtm"), commit_id=HEAD)
    fake.add_issue_comment(2, login=CODEX, body=body("X_clean_swish"))
    assert_waiting(fake, run_action(fake, tmp_path, inputs={**BASE, **extra}), awaited)


def test_require_bots_keeps_a_fast_go_waiting_for_the_required_bot(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    fast_pack_clean(fake)
    inputs = {**BASE, "settle": "fast", "require-bots": "codex"}
    assert_waiting(fake, run_action(fake, tmp_path, inputs=inputs), "Codex")


def test_settle_none_reads_once_and_publishes(fake: FakeGitHub, tmp_path: Path) -> None:
    """`none` waits for nobody, in either mode: a missing bot is pending in a published verdict."""
    fast_pack_clean(fake)
    run = run_action(fake, tmp_path, inputs={**BASE, "settle": "none"})
    assert run.returncode == 0, run.log
    assert ours(fake)["status"] == "completed"
    assert verdict_of(run)["pending"] == ["codex"] and not verdict_of(run).get("awaiting")


def test_the_sweep_publishes_the_timed_out_verdict_only_after_the_deadline(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    fast_pack_clean(fake)
    inputs = {**BASE, "settle": "full"}
    assert_waiting(fake, run_action(fake, tmp_path / "1", inputs=inputs), "Codex")
    before = len(writes(fake))
    fake.advance(FULL - 120)  # not yet: a sweep before the deadline writes nothing
    early = sweep(fake, tmp_path / "2", **inputs)
    assert early.returncode == 0, early.log
    assert len(writes(fake)) == before, writes(fake)[before:]
    assert ours(fake)["status"] == "in_progress"
    fake.advance(600)  # the next sweep, one interval later, is past the deadline
    late = sweep(fake, tmp_path / "3", **inputs)
    assert late.returncode == 0, late.log
    check = ours(fake)
    assert check["status"] == "completed", late.log
    assert status(fake)["state"] != "pending"
    assert "timed out with codex still pending" in stickies(fake)[-1]["body"]


def test_a_sweep_with_no_waiting_pr_reads_little_and_writes_nothing(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    run = sweep(fake, tmp_path, **BASE)
    assert run.returncode == 0, run.log
    assert writes(fake) == []
    assert "due none" in run.log


@pytest.mark.parametrize("wait", ["", "poll"])  # unset (the default) or said
def test_a_sweep_under_wait_poll_reads_nothing_and_writes_nothing(
    fake: FakeGitHub, tmp_path: Path, wait: str
) -> None:
    """A repository that never opted in pays nothing for a `schedule`: one line, exit 0 —
    even with a PR left waiting past its deadline by an earlier `wait: events` run (its next
    event judges it)."""
    fast_pack_clean(fake)
    inputs = {**BASE, "settle": "full"}
    assert_waiting(fake, run_action(fake, tmp_path / "1", inputs=inputs), "Codex")
    fake.advance(FULL + 600)
    before = len(fake.request_log())
    run = sweep(fake, tmp_path / "2", **{**inputs, "wait": wait})
    assert run.returncode == 0, run.log
    assert len(fake.request_log()) == before
    assert run.log.count("nothing to sweep") == 1 and "::notice::" in run.log
    assert ours(fake)["status"] == "in_progress"
    # Control: the same sweep under `wait: events` judges that PR.
    assert sweep(fake, tmp_path / "3", **inputs).returncode == 0
    assert ours(fake)["status"] == "completed"


def test_a_sweep_refuses_an_unknown_wait(fake: FakeGitHub, tmp_path: Path) -> None:
    run = sweep(fake, tmp_path, **{**BASE, "wait": "Events"})
    assert run.returncode == 2, run.log
    assert "must be poll or events" in run.log and fake.request_log() == []


def _comment() -> dict[str, Any]:
    return {
        "action": "created",
        "issue": {"number": 2, "pull_request": {"url": "x"}},
        "comment": {"user": {"login": CODEX, "type": "Bot"}, "body": "x"},
    }
