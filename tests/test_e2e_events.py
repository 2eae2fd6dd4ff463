"""End to end: `wait: events` (docs/reviewers.md § When it reads: settle) through entrypoint.py
against the fake GitHub, whose clock (its `Date` header, its timestamps) the test moves on.

No run waits: while an expected bot has not reviewed the head within its pack's timeout
(counted from the head's arrival, GitHub's clock), the check run stays in_progress, the status
pending, the sticky says who is awaited until when — never `success`. The bot's post judges
again; with no post, the scheduled sweep after the deadline dispatches the event workflow for
that PR (it writes no verdict itself), and the dispatched run, in the PR's own concurrency group,
publishes the timed-out verdict; a sweep before the deadline dispatches nothing."""

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
from tests.test_e2e_binding import codex_p1
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
    """A `schedule` run, as the runner starts it: on the default branch."""
    return run_action(
        fake,
        tmp,
        event="schedule",
        payload={"schedule": "*/10 * * * *"},
        inputs=inputs,
        extra_env={"GITHUB_REF": "refs/heads/main", "GITHUB_REF_NAME": "main"},
    )


def dispatched(fake: FakeGitHub, tmp: Path, pr: int, **inputs: str) -> Run:
    """The run GitHub starts for the sweep's dispatch: the event workflow on `workflow_dispatch`,
    its `pr` input passed on by the reusable workflow (judge.yml: `pr: ${{ inputs.pr }}`)."""
    payload = {"inputs": {"pr": str(pr)}, "ref": "refs/heads/main", "sender": {"login": "x"}}
    return run_action(
        fake, tmp, event="workflow_dispatch", payload=payload, inputs={**inputs, "pr": str(pr)}
    )


DISPATCH = "POST /repos/octo/app/actions/workflows/review-coordinator.yml/dispatches"


def past_deadline(fake: FakeGitHub, tmp: Path) -> dict[str, str]:
    """PR 2 published waiting for Codex (settle full), then its deadline passed. → the inputs."""
    fast_pack_clean(fake)
    inputs = {**BASE, "settle": "full"}
    assert_waiting(fake, run_action(fake, tmp / "1", inputs=inputs), "Codex")
    fake.advance(FULL + 60)
    return inputs


def asked(fake: FakeGitHub) -> list[tuple[str, str, dict[str, str]]]:
    return [(d["workflow"], d["ref"], d["inputs"]) for d in fake.dispatches]


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


def test_the_sweep_dispatches_the_due_pr_and_the_dispatched_run_publishes_the_timeout(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    fast_pack_clean(fake)
    inputs = {**BASE, "settle": "full"}
    assert_waiting(fake, run_action(fake, tmp_path / "1", inputs=inputs), "Codex")
    before = len(writes(fake))
    fake.advance(FULL - 120)  # not yet: a sweep before the deadline dispatches nothing
    early = sweep(fake, tmp_path / "2", **inputs)
    assert early.returncode == 0, early.log
    assert len(writes(fake)) == before, writes(fake)[before:]
    assert asked(fake) == [] and "due none" in early.log
    fake.advance(600)  # the next sweep, one interval later, is past the deadline
    late = sweep(fake, tmp_path / "3", **inputs)
    assert late.returncode == 0, late.log
    # Its one write: the dispatch. No status, check run or sticky of its own.
    assert writes(fake)[before:] == [DISPATCH]
    assert asked(fake) == [("review-coordinator.yml", "main", {"pr": "2"})]
    assert ours(fake)["status"] == "in_progress" and status(fake)["state"] == "pending"
    # GitHub runs the event workflow in the PR's group: that run judges, past the deadline.
    run = dispatched(fake, tmp_path / "4", 2, **inputs)
    assert run.returncode == 0, run.log
    assert ours(fake)["status"] == "completed", run.log
    assert status(fake)["state"] != "pending"
    assert "timed out with codex still pending" in stickies(fake)[-1]["body"]


def test_a_critical_posted_after_the_sweep_read_is_never_overwritten_by_a_go(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    """The race the sweep had when it judged in its own group: it read before a bot's critical,
    the bot's event run published `block`, then the sweep's stale `go` landed. Now the sweep
    writes no verdict; the run it dispatched reads when it runs (after the event's run: one
    group), and the gate stays `block`."""
    inputs = past_deadline(fake, tmp_path)
    assert sweep(fake, tmp_path / "2", **inputs).returncode == 0
    assert asked(fake) == [("review-coordinator.yml", "main", {"pr": "2"})]
    codex_p1(fake, HEAD)  # after the sweep's last read
    event = run_action(
        fake, tmp_path / "3", event="issue_comment", payload=_comment(), inputs=inputs
    )
    assert event.outputs["gate"] == "block", event.log
    run = dispatched(fake, tmp_path / "4", 2, **inputs)
    assert run.outputs["gate"] == "block", run.log
    assert all(r["conclusion"] != "success" for r in fake.check_runs(HEAD))
    assert not [s for s in fake.statuses(HEAD) if s["state"] == "success"]


def test_the_sweep_dispatches_at_most_its_budget_oldest_deadline_first(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    fake.add_pull(5, head_sha="d" * 40)
    inputs = {**BASE, "settle": "full", "expected-bots": "codex"}
    for n, pr in enumerate((2, 5)):  # PR 2 waits first, so its deadline is the older
        first = dispatched(fake, tmp_path / f"w{n}", pr, **inputs)
        assert first.returncode == 0, first.log
        fake.advance(30)
    fake.advance(FULL + 60)
    run = sweep(fake, tmp_path / "s", **{**inputs, "sweep-budget": "1"})
    assert run.returncode == 0, run.log
    assert "due #2, #5" in run.log and "dispatching 1 (`sweep-budget`)" in run.log
    assert asked(fake) == [("review-coordinator.yml", "main", {"pr": "2"})]
    again = sweep(fake, tmp_path / "s2", **{**inputs, "sweep-budget": "2"})
    assert again.returncode == 0, again.log
    assert [d[2]["pr"] for d in asked(fake)] == ["2", "2", "5"]


def test_a_sweep_without_actions_write_fails_loudly_and_writes_nothing(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    inputs = past_deadline(fake, tmp_path)
    fake.actions_write = False  # the relay did not grant `actions: write`
    before = len(writes(fake))
    run = sweep(fake, tmp_path / "2", **inputs)
    assert run.returncode == 3, run.log
    assert "::error::" in run.log and "`actions: write`" in run.log
    assert writes(fake)[before:] == [DISPATCH]  # the one refused attempt, not retried
    assert asked(fake) == []
    assert ours(fake)["status"] == "in_progress"  # pending: never a premature go
    # Control: granted, the same sweep dispatches.
    fake.actions_write = True
    assert sweep(fake, tmp_path / "3", **inputs).returncode == 0
    assert asked(fake) == [("review-coordinator.yml", "main", {"pr": "2"})]


def test_a_sweep_naming_a_workflow_github_lacks_fails_and_says_which_input(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    inputs = past_deadline(fake, tmp_path)
    run = sweep(fake, tmp_path / "2", **inputs, **{"sweep-workflow": "review.yml"})
    assert run.returncode == 3, run.log
    assert "`sweep-workflow`" in run.log and asked(fake) == []


def test_a_dry_run_sweep_prints_its_dispatch_and_sends_none(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    inputs = past_deadline(fake, tmp_path)
    before = len(writes(fake))
    run = sweep(fake, tmp_path / "2", **inputs, **{"dry-run": "true"})
    assert run.returncode == 0, run.log
    assert "[dry-run] would POST workflow dispatch" in run.log and '"pr": "2"' in run.log
    assert writes(fake)[before:] == [] and asked(fake) == []


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
    # Control: the same sweep under `wait: events` dispatches that PR.
    assert sweep(fake, tmp_path / "3", **inputs).returncode == 0
    assert asked(fake) == [("review-coordinator.yml", "main", {"pr": "2"})]


def test_a_sweep_that_knows_no_default_branch_refuses_and_reads_nothing(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    """The dispatch must name the branch whose workflow file runs: the runner sets it on a
    `schedule` (GITHUB_REF_NAME); without it, or with a path for `sweep-workflow`, exit 2."""
    bare = run_action(
        fake, tmp_path / "1", event="schedule", payload={"schedule": "*/10 * * * *"}, inputs=BASE
    )
    assert bare.returncode == 2 and "GITHUB_REF_NAME" in bare.log, bare.log
    path = sweep(fake, tmp_path / "2", **BASE, **{"sweep-workflow": ".github/workflows/r.yml"})
    assert path.returncode == 2 and "'sweep-workflow'" in path.log, path.log
    assert fake.request_log() == []


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
