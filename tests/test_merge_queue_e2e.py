"""End to end on `merge_group`: `python entrypoint.py` with the real merge_group payload against
the fake GitHub API. The PR's verdict is made by a real `pull_request` run first (same fake,
same token), then the merge queue asks; assertions on what the server holds afterwards."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from reviewcoord.github.pygithub_gateway import PyGithubGateway
from tests.e2e_support import CODEX, NEW_HEAD, Run, all_clean, body, run_action, stickies
from tests.fakegithub import FakeGitHub

pytestmark = pytest.mark.e2e

PAYLOAD = "merge_group.checks_requested.json"
PR = 104  # from the payload's merge_group.head_ref
PR_HEAD = "929f8209d40f77f4abc622a499c93a83babdbe64"  # the PR head named in head_ref
GROUP_SHA = "2ffea6db159f6b6c47a24e778fb9ef40cf6b1c7d"  # merge_group.head_sha
OLD_HEAD = "0123456789abcdef0123456789abcdef01234567"


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as gh:
        yield gh


def judge_pr(fake: FakeGitHub, tmp: Path, *, head: str, gate: str) -> None:
    """A real pull_request run on PR 104 at `head`, leaving our sticky, status and check run."""
    run = run_action(fake, tmp, inputs={"pr": str(PR)})
    assert run.returncode == 0, run.log
    assert run.outputs["gate"] == gate
    assert fake.check_runs(head)[-1]["conclusion"] == ("success" if gate == "go" else "failure")


def go_pr(fake: FakeGitHub, tmp: Path, head: str = PR_HEAD) -> None:
    fake.add_pull(PR, head_sha=head)
    all_clean(fake, pr=PR, head=head)
    judge_pr(fake, tmp, head=head, gate="go")


def merge_group(fake: FakeGitHub, tmp: Path) -> tuple[Run, list[str]]:
    """The merge_group run, and the requests it sent ("METHOD route")."""
    before = len(fake.request_log())
    run = run_action(fake, tmp, event="merge_group", payload=PAYLOAD)
    sent = [f"{r.method} {r.route}" for r in fake.request_log()[before:]]
    return run, sent


def group_result(fake: FakeGitHub) -> tuple[str, str, str]:
    """(check conclusion, status state, check summary) on the merge group's commit."""
    (check,) = fake.check_runs(GROUP_SHA)
    (status,) = fake.statuses(GROUP_SHA)
    assert check["name"] == "review-coordinator" and check["status"] == "completed"
    assert status["context"] == "review-coordinator"
    return check["conclusion"], status["state"], check["output"]["summary"]


def assert_reported_only_on_the_group(sent: list[str]) -> None:
    """Writes go to the merge group's commit only; the sticky is never touched; no settling."""
    for line in sent:
        method, route = line.split(" ", 1)
        if method != "GET":
            assert route.endswith(("/check-runs", f"/statuses/{GROUP_SHA}")) or (
                "/check-runs/" in route and method == "PATCH"
            ), line
        assert "/issues/comments" not in route or method == "GET", line
        assert "/reviews" not in route and f"/pulls/{PR}/comments" not in route, line


def test_a_complete_go_verdict_lets_the_merge_group_pass(fake: FakeGitHub, tmp_path: Path) -> None:
    go_pr(fake, tmp_path / "pr")
    (sticky,) = stickies(fake, PR)
    run, sent = merge_group(fake, tmp_path / "mq")
    assert run.returncode == 0, run.log
    conclusion, state, summary = group_result(fake)
    assert (conclusion, state) == ("success", "success")
    assert fake.statuses(GROUP_SHA)[0]["target_url"] == sticky["html_url"]
    assert sticky["html_url"] in summary and "#104" in summary
    assert run.outputs["gate"] == "go" and run.outputs["comment-url"] == sticky["html_url"]
    assert run.outputs["next-step"] == "none"
    assert "104" in run.outputs["gate-reason"]
    assert stickies(fake, PR) == [sticky]  # untouched
    assert_reported_only_on_the_group(sent)
    # Nothing is written on the PR's own head by the merge group run.
    assert len(fake.statuses(PR_HEAD)) == 2 and len(fake.check_runs(PR_HEAD)) == 1
    verdict = json.loads(Path(run.outputs["verdict-file"]).read_text())
    assert verdict["event"] == "merge_group" and verdict["gate"] == "go"
    assert verdict["merge_group"]["head_sha"] == GROUP_SHA and verdict["head_sha"] == PR_HEAD
    assert json.loads(run.outputs["verdict"]) == verdict
    assert run.outputs["critical-count"] == "" and run.outputs["unreviewed"] == ""
    assert "Merge queue" in run.summary
    # The request budget of a merge_group run (reads: config file, the PR, its issue comments,
    # its head's check runs; writes: check run opened — which tells who we are, so no GET
    # /user —, status, check run completed).
    assert len(sent) == 7, sent
    assert "GET /user" not in sent


def test_a_block_verdict_fails_the_merge_group(fake: FakeGitHub, tmp_path: Path) -> None:
    fake.add_pull(PR, head_sha=PR_HEAD)
    all_clean(fake, pr=PR, head=PR_HEAD)
    fake.add_review_comment(PR, login=CODEX, body=body("Z25"), path="src/typed_dict.rs", line=178)
    judge_pr(fake, tmp_path / "pr", head=PR_HEAD, gate="block")
    run, sent = merge_group(fake, tmp_path / "mq")
    assert run.returncode == 0, run.log  # a block verdict is a verdict (no fail-on-block)
    conclusion, state, summary = group_result(fake)
    assert (conclusion, state) == ("failure", "failure")
    assert run.outputs["gate"] == "block" and "verdict is block" in run.outputs["gate-reason"]
    assert run.outputs["next-step"] == "wait_review"
    assert "verdict is block" in summary
    assert_reported_only_on_the_group(sent)


def test_no_sticky_is_no_verdict(fake: FakeGitHub, tmp_path: Path) -> None:
    fake.add_pull(PR, head_sha=PR_HEAD)
    all_clean(fake, pr=PR, head=PR_HEAD)  # the bots are clean, but nobody judged the PR
    run, sent = merge_group(fake, tmp_path / "mq")
    conclusion, state, summary = group_result(fake)
    assert (conclusion, state) == ("failure", "failure")
    assert run.outputs["gate"] == "block" and "no verdict" in run.outputs["gate-reason"]
    assert "no verdict" in fake.statuses(GROUP_SHA)[0]["description"]
    assert "/pull/104" in summary  # links the PR when there is no sticky to link
    assert_reported_only_on_the_group(sent)


def test_a_verdict_for_an_older_head_fails(fake: FakeGitHub, tmp_path: Path) -> None:
    go_pr(fake, tmp_path / "pr", head=OLD_HEAD)
    fake.set_head(PR, PR_HEAD)  # pushed since; head_ref names the new head
    run, _sent = merge_group(fake, tmp_path / "mq")
    conclusion, state, _summary = group_result(fake)
    assert (conclusion, state) == ("failure", "failure")
    assert run.outputs["gate"] == "block" and "stale verdict" in run.outputs["gate-reason"]
    assert "0123456" in run.outputs["gate-reason"]


def test_head_ref_sha_that_is_not_the_pr_head_fails(fake: FakeGitHub, tmp_path: Path) -> None:
    go_pr(fake, tmp_path / "pr", head=NEW_HEAD)  # a complete go — but for another head
    run, _sent = merge_group(fake, tmp_path / "mq")
    conclusion, state, _summary = group_result(fake)
    assert (conclusion, state) == ("failure", "failure")
    assert run.outputs["gate"] == "block"
    assert "built from 929f820" in run.outputs["gate-reason"]


def test_an_unreadable_pr_fails_closed(fake: FakeGitHub, tmp_path: Path) -> None:
    go_pr(fake, tmp_path / "pr")
    fake.inject("GET", rf"/pulls/{PR}$", status=500, times=1000)
    run, sent = merge_group(fake, tmp_path / "mq")
    assert run.returncode == 3  # no trustworthy verdict (errors.py)
    conclusion, state, summary = group_result(fake)
    assert (conclusion, state) == ("failure", "failure")
    assert run.outputs["gate"] == "error"
    assert f"could not read PR #{PR}" in run.outputs["gate-reason"]
    assert f"pulls/{PR}" in summary
    assert all(s["state"] != "success" for s in fake.statuses(GROUP_SHA))
    assert_reported_only_on_the_group(sent)


def test_a_run_still_judging_the_head_holds_the_group(fake: FakeGitHub, tmp_path: Path) -> None:
    """The sticky says go, but a newer run on the same head has opened its check run and not
    finished yet (as while it settles): not yet."""
    go_pr(fake, tmp_path / "pr")
    with PyGithubGateway(fake.repo, "app-token", base_url=fake.base_url) as gateway:
        gateway.create_check_run("review-coordinator", PR_HEAD, "in_progress")
    run, _sent = merge_group(fake, tmp_path / "mq")
    conclusion, state, _summary = group_result(fake)
    assert (conclusion, state) == ("failure", "failure")
    assert run.outputs["gate"] == "block" and "still judging" in run.outputs["gate-reason"]


def test_a_token_without_check_runs_falls_back_to_the_status(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    """A personal token cannot write check runs: the PR's status carries its gate, and the merge
    group gets a status only."""
    fake.add_token("pat", "octo-admin", user_endpoint=True)
    fake.add_pull(PR, head_sha=PR_HEAD)
    all_clean(fake, pr=PR, head=PR_HEAD)
    assert run_action(fake, tmp_path / "pr", inputs={"pr": str(PR)}, token="pat").returncode == 0
    assert fake.check_runs(PR_HEAD) == []
    run = run_action(fake, tmp_path / "mq", event="merge_group", payload=PAYLOAD, token="pat")
    assert run.returncode == 0, run.log
    assert [s["state"] for s in fake.statuses(GROUP_SHA)] == ["success"]
    assert fake.check_runs(GROUP_SHA) == []
    assert run.outputs["gate"] == "go"
