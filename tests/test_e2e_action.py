"""End to end: `python entrypoint.py` in a subprocess with the Actions environment, a real event
payload and the fake GitHub API; assertions on what the server holds afterwards.

Timing is never asserted in seconds: "fires early" is asserted as "polled only a few times"."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e_support import (
    CLAUDE,
    CODEX,
    COPILOT,
    COPILOT_REVIEWER,
    CURSOR,
    HEAD,
    MARKER,
    NEW_HEAD,
    all_clean,
    body,
    cursor_clean,
    run_action,
    stickies,
    writes,
)
from tests.fakegithub import FakeGitHub
from tests.verdict_contract import check_verdict

pytestmark = pytest.mark.e2e


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as gh:
        gh.add_pull(2, head_sha=HEAD)
        yield gh


def pulls_lists(fake: FakeGitHub) -> int:
    return sum(1 for r in fake.request_log() if r.method == "GET" and "/pulls/2/reviews" in r.path)


def test_all_bots_clean_is_go(fake: FakeGitHub, tmp_path: Path) -> None:
    all_clean(fake)
    run = run_action(fake, tmp_path)
    assert run.returncode == 0, run.log
    assert run.outputs["gate"] == "go" and run.outputs["next-step"] == "none"
    assert run.outputs["settled-on"] == "codex,copilot,cursor,claude"
    assert run.outputs["pending"] == ""
    assert [s["state"] for s in fake.statuses(HEAD)] == ["pending", "success"]
    (check,) = fake.check_runs(HEAD)
    assert (check["status"], check["conclusion"], check["name"]) == (
        "completed",
        "success",
        "review-coordinator",
    )
    (sticky,) = stickies(fake)
    assert sticky["user"]["login"] == "github-actions[bot]"
    assert fake.statuses(HEAD)[-1]["target_url"] == sticky["html_url"]
    assert run.outputs["comment-url"] == sticky["html_url"]
    verdict = json.loads(Path(run.outputs["verdict-file"]).read_text())
    check_verdict(verdict)
    assert verdict["head_sha"] == HEAD and verdict["pr"] == 2
    assert "Review verdict" in run.summary


def test_codex_p1_on_page_two_blocks(fake: FakeGitHub, tmp_path: Path) -> None:
    all_clean(fake)
    for i in range(130):  # Copilot nitpicks fill page 1 (per_page=100)
        fake.add_review_comment(2, login=COPILOT, body=body("Z59"), path=f"f{i}.py", line=3)
    fake.add_review_comment(2, login=CODEX, body=body("Z25"), path="src/typed_dict.rs", line=178)
    run = run_action(fake, tmp_path)
    assert run.returncode == 0, run.log
    assert run.outputs["gate"] == "block" and run.outputs["next-step"] == "fix_findings"
    assert run.outputs["critical-count"] == "1"
    assert any("/repositories/4242/pulls/2/comments" in r.path for r in fake.request_log())
    assert fake.statuses(HEAD)[-1]["state"] == "failure"
    assert fake.check_runs(HEAD)[0]["conclusion"] == "failure"
    annotations = fake.check_runs(HEAD)[0]["annotations"]
    assert len(annotations) == 131
    assert "Guard reverse TypedDict comparison" in stickies(fake)[0]["body"]


def test_second_run_edits_the_same_sticky(fake: FakeGitHub, tmp_path: Path) -> None:
    all_clean(fake)
    run_action(fake, tmp_path / "1")
    (first,) = stickies(fake)
    fake.add_review_comment(
        2, login=CURSOR, body=body("C_jdx12718_lock156"), path="mise.lock", line=156
    )
    run = run_action(fake, tmp_path / "2")
    (second,) = stickies(fake)
    assert second["id"] == first["id"] and run.outputs["gate"] == "block"
    assert "Lockfile points aube at unofficial repo" in second["body"]
    assert any(w.startswith("PATCH") and "issues/comments" in w for w in writes(fake))


def test_three_old_stickies_of_ours_become_one(fake: FakeGitHub, tmp_path: Path) -> None:
    all_clean(fake)
    olds = [
        fake.add_issue_comment(2, login="github-actions[bot]", body=f"{MARKER}\nold {i}")
        for i in range(3)
    ]
    run = run_action(fake, tmp_path)
    assert run.returncode == 0, run.log
    (left,) = stickies(fake)
    assert left["id"] == olds[-1]["id"]  # the newest is kept and updated
    assert "Review verdict" in left["body"]


def test_a_humans_comment_with_the_marker_is_untouched(fake: FakeGitHub, tmp_path: Path) -> None:
    all_clean(fake)
    human = fake.add_issue_comment(
        2, login="mallory", user_type="User", body=f"{MARKER}\nI am the verdict now"
    )
    run_action(fake, tmp_path)
    bodies = {c["id"]: c["body"] for c in fake.issue_comments(2)}
    assert bodies[human["id"]] == human["body"]
    assert not any(str(human["id"]) in w for w in writes(fake))
    assert len(stickies(fake)) == 2  # the human's and ours


def test_issue_comment_on_plain_issue_writes_nothing(fake: FakeGitHub, tmp_path: Path) -> None:
    run = run_action(
        fake, tmp_path, event="issue_comment", payload="issue_comment.created.on-issue.json"
    )
    assert run.returncode == 0
    assert "plain issue" in run.log
    assert fake.request_log() == []


def test_workflow_dispatch_without_pr_is_a_clear_error(fake: FakeGitHub, tmp_path: Path) -> None:
    run = run_action(fake, tmp_path, event="workflow_dispatch", payload="workflow_dispatch.json")
    assert run.returncode != 0
    assert "::error::workflow_dispatch needs the 'pr' input" in run.stdout
    assert writes(fake) == []


def test_workflow_dispatch_with_pr(fake: FakeGitHub, tmp_path: Path) -> None:
    all_clean(fake)
    run = run_action(
        fake,
        tmp_path,
        event="workflow_dispatch",
        payload="workflow_dispatch.json",
        inputs={"pr": "2"},
    )
    assert run.returncode == 0 and run.outputs["gate"] == "go"


def test_issue_comment_on_pr_resolves_pr(fake: FakeGitHub, tmp_path: Path) -> None:
    all_clean(fake)
    run = run_action(
        fake, tmp_path, event="issue_comment", payload="issue_comment.created.on-pr.json"
    )
    assert run.returncode == 0 and run.outputs["gate"] == "go"


def test_fast_settle_fires_when_fast_pack_done(fake: FakeGitHub, tmp_path: Path) -> None:
    """The fast pack posts during the second poll; the run must stop right after, far from
    its 60 s timeout (asserted as a poll count, not seconds)."""
    fake.add_issue_comment(2, login=CODEX, body=body("X_clean_swish"))

    def post_when_polled(gh: FakeGitHub, request: object) -> None:
        if pulls_lists(gh) == 2 and not gh.check_runs(HEAD)[0].get("_fast_posted"):
            gh.check_runs(HEAD)[0]["_fast_posted"] = True
            gh.add_review(2, login=CURSOR, body=cursor_clean(), commit_id=HEAD)
            gh.add_review(2, login=COPILOT_REVIEWER, body=body("Z12"), commit_id=HEAD)
            gh.add_review(2, login=CLAUDE, body=body("L_cca1078_lgtm"), commit_id=HEAD)

    fake.on_request(post_when_polled)
    run = run_action(
        fake,
        tmp_path,
        inputs={
            "settle": "fast",
            "fast-timeout": "60",
            "expected-bots": "codex,copilot,cursor,claude",
        },
    )
    assert run.returncode == 0, run.log
    assert run.outputs["gate"] == "go"
    assert pulls_lists(fake) <= 4


def test_merge_patience_waits_for_codex_then_blocks(fake: FakeGitHub, tmp_path: Path) -> None:
    fake.add_review(2, login=CURSOR, body=cursor_clean(), commit_id=HEAD)
    fake.add_review(2, login=COPILOT_REVIEWER, body=body("Z12"), commit_id=HEAD)
    fake.add_review(2, login=CLAUDE, body=body("L_cca1078_lgtm"), commit_id=HEAD)
    posted = []

    def codex_late(gh: FakeGitHub, request: object) -> None:
        if pulls_lists(gh) == 3 and not posted:
            posted.append(1)
            gh.add_review_comment(2, login=CODEX, body=body("Z27"), path="src/x.rs", line=307)

    fake.on_request(codex_late)
    run = run_action(
        fake,
        tmp_path,
        inputs={
            "settle": "fast",
            "fast-timeout": "30",
            "full-timeout": "60",
            "expected-bots": "codex,copilot,cursor,claude",
        },
    )
    assert run.returncode == 0, run.log
    assert run.outputs["gate"] == "block"
    assert "merge patience" in run.log
    assert json.loads(Path(run.outputs["verdict-file"]).read_text())["settle"] == "full"
    assert pulls_lists(fake) <= 6


def test_claude_working_stub_is_pending_until_edited(fake: FakeGitHub, tmp_path: Path) -> None:
    fake.add_issue_comment(2, login=CODEX, body=body("X_clean_swish"))
    fake.add_review(2, login=CURSOR, body=cursor_clean(), commit_id=HEAD)
    fake.add_review(2, login=COPILOT_REVIEWER, body=body("Z12"), commit_id=HEAD)
    stub = fake.add_issue_comment(
        2,
        login=CLAUDE,
        body='Claude Code is working… <img src="https://github.com/user-attachments/assets/x" '
        'width="14px" height="14px" style="vertical-align: middle; margin-left: 4px;" />'
        "\n\nI'll analyze this and get back to you.\n\n[View job run](https://github.com/x)",
    )
    edited = []

    def finish(gh: FakeGitHub, request: object) -> None:
        if pulls_lists(gh) == 3 and not edited:
            edited.append(1)
            gh.edit_issue_comment(stub["id"], body("L_email_claude54"))

    fake.on_request(finish)
    run = run_action(
        fake,
        tmp_path,
        inputs={
            "settle": "fast",
            "fast-timeout": "60",
            "merge-patience": "false",
            "expected-bots": "codex,copilot,cursor,claude",
        },
    )
    assert run.returncode == 0, run.log
    # The stub is edited right after poll 3 read the reviews: polls 1-2 saw only the stub (and
    # did not settle), poll 3 read the edited issue comment and settled; a `go` reads once more
    # to confirm (interface §3 `confirm-delay`).
    assert run.outputs["gate"] == "go"
    assert pulls_lists(fake) == 4
    assert "claude" in run.outputs["settled-on"]
    assert int(run.outputs["advisory-count"]) >= 1


def test_a_502_on_one_page_then_success(fake: FakeGitHub, tmp_path: Path) -> None:
    all_clean(fake)
    for i in range(120):
        fake.add_review_comment(2, login=COPILOT, body=body("Z59"), path=f"f{i}.py", line=3)
    fake.add_review_comment(2, login=CODEX, body=body("Z25"), path="src/typed_dict.rs", line=178)
    fake.inject("GET", r"/repositories/4242/pulls/2/comments", status=502, times=1)
    run = run_action(fake, tmp_path)
    assert run.returncode == 0, run.log
    assert run.outputs["gate"] == "block"


def test_a_persistent_502_fails_closed(fake: FakeGitHub, tmp_path: Path) -> None:
    all_clean(fake)
    fake.inject("GET", r"/pulls/2/comments", status=502, times=1000)
    run = run_action(fake, tmp_path)
    assert run.returncode == 3  # no trustworthy verdict
    assert run.outputs["gate"] == "error" and run.outputs["next-step"] == "github_unreadable"
    assert fake.statuses(HEAD)[-1]["state"] == "error"
    assert all(s["state"] != "success" for s in fake.statuses(HEAD))
    (check,) = fake.check_runs(HEAD)
    assert check["conclusion"] == "failure"
    assert "pulls/2/comments" in check["output"]["summary"]
    assert stickies(fake) == []  # no sticky with a partial verdict


def test_persistent_failure_keeps_previous_sticky_marked_stale(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    all_clean(fake)
    run_action(fake, tmp_path / "1")
    (before,) = stickies(fake)
    fake.inject("GET", r"/pulls/2/reviews", status=503, times=1000)
    fake.add_issue_comment(2, login=CODEX, body=body("X_clean_swish"))  # change something
    run = run_action(fake, tmp_path / "2")
    assert run.outputs["gate"] == "error"
    (after,) = stickies(fake)
    assert after["id"] == before["id"]
    assert "stale" in after["body"].lower()
    assert after["body"].startswith(MARKER)


def test_head_change_mid_settle_judges_new_head_only(fake: FakeGitHub, tmp_path: Path) -> None:
    fake.add_review_comment(2, login=CODEX, body=body("Z25"), path="a.rs", line=5)
    moved = []

    def push(gh: FakeGitHub, request: object) -> None:
        if pulls_lists(gh) == 2 and not moved:
            moved.append(1)
            gh.set_head(2, NEW_HEAD)
            gh.add_review(2, login=CURSOR, body=cursor_clean(NEW_HEAD), commit_id=NEW_HEAD)
            gh.add_review(2, login=COPILOT_REVIEWER, body=body("Z12"), commit_id=NEW_HEAD)
            gh.add_review(2, login=CLAUDE, body=body("L_cca1078_lgtm"), commit_id=NEW_HEAD)

    fake.on_request(push)
    run = run_action(
        fake,
        tmp_path,
        inputs={
            "settle": "fast",
            "fast-timeout": "60",
            "merge-patience": "false",
            "expected-bots": "codex,copilot,cursor,claude",
        },
    )
    assert run.returncode == 0, run.log
    verdict = json.loads(Path(run.outputs["verdict-file"]).read_text())
    assert verdict["head_sha"] == NEW_HEAD
    assert fake.statuses(NEW_HEAD)[-1]["state"] in ("success", "failure")
    assert all(s["state"] in ("pending", "error") for s in fake.statuses(HEAD))
    assert fake.check_runs(HEAD)[0]["status"] == "completed"


def test_dry_run_writes_nothing(fake: FakeGitHub, tmp_path: Path) -> None:
    all_clean(fake)
    fake.add_review_comment(2, login=CODEX, body=body("Z25"), path="a.rs", line=5)
    run = run_action(fake, tmp_path, inputs={"dry-run": "true"})
    assert run.returncode == 0, run.log
    assert writes(fake) == []
    assert run.outputs["gate"] == "block"
    assert "[dry-run] would POST issue comment" in run.log
    assert "[dry-run] would POST commit status" in run.log


def test_format_json_writes_no_sticky(fake: FakeGitHub, tmp_path: Path) -> None:
    all_clean(fake)
    run = run_action(fake, tmp_path, inputs={"format": "json"})
    assert run.returncode == 0 and stickies(fake) == []
    assert fake.statuses(HEAD)[-1]["state"] == "success"


def test_invalid_config_on_base_branch_is_reported_never_a_lock(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    """tests/test_broken_config.py has the whole story; here: the run still judges."""
    all_clean(fake)
    fake.set_file(".github/review-coordinator.yml", "main", "settle: whenever\n")
    run = run_action(fake, tmp_path)
    assert run.returncode == 0 and run.outputs["gate"] == "go", run.log
    assert ".github/review-coordinator.yml" in run.stdout and "'settle'" in run.stdout
    assert fake.statuses(HEAD)[-1]["state"] == "success"


def test_config_is_read_from_base_branch_and_inputs_win(fake: FakeGitHub, tmp_path: Path) -> None:
    all_clean(fake)
    fake.set_file(
        ".github/review-coordinator.yml",
        "main",
        "check-name: judge\nstatus-context: judge-status\nformat: json\n",
    )
    fake.set_file(".github/review-coordinator.yml", "feature-2", "check-name: pwned\n")
    run = run_action(fake, tmp_path, inputs={"format": "both"})
    assert run.returncode == 0, run.log
    assert fake.check_runs(HEAD)[0]["name"] == "judge"
    assert fake.statuses(HEAD)[-1]["context"] == "judge-status"
    assert len(stickies(fake)) == 1  # the input `format: both` beat the file's json


def test_fork_pr_read_only_token_still_delivers(fake: FakeGitHub, tmp_path: Path) -> None:
    all_clean(fake)
    fake.add_review_comment(2, login=CODEX, body=body("Z25"), path="a.rs", line=5)
    fake.add_token("fork-token", "github-actions[bot]", user_endpoint=False, read_only=True)
    run = run_action(fake, tmp_path, token="fork-token")
    assert run.returncode == 0, run.log
    assert run.outputs["gate"] == "block"
    assert "docs/troubleshooting.md § Fork pull requests" in run.log
    assert "::error file=a.rs,line=5" in run.stdout
    assert writes(fake) != [] and fake.statuses(HEAD) == [] and stickies(fake) == []


def test_token_never_leaks(fake: FakeGitHub, tmp_path: Path) -> None:
    all_clean(fake)
    fake.add_token("ghp_s3cr3tvalue", "octo-admin", user_endpoint=True)
    run = run_action(fake, tmp_path, token="ghp_s3cr3tvalue")
    assert run.returncode == 0, run.log
    assert "::add-mask::ghp_s3cr3tvalue" in run.stdout
    rest = run.stdout.replace("::add-mask::ghp_s3cr3tvalue", "")
    assert "ghp_s3cr3tvalue" not in rest + run.stderr + run.summary + json.dumps(run.outputs)
    assert stickies(fake)[0]["user"]["login"] == "octo-admin"
