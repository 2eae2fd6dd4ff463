"""`merge_group`: the event parsed from the real payload, the pure decision for every reason,
the gateway reads it needs, and the run itself in-process against the fake GitHub API (the
subprocess end-to-end runs are in test_merge_queue_e2e.py)."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from reviewcoord.actions_io import Log
from reviewcoord.errors import EventError
from reviewcoord.event import MergeGroup, resolve
from reviewcoord.github.gateway import CheckRunRef, CommitStatusRef, PullInfo
from reviewcoord.github.pygithub_gateway import PyGithubGateway
from reviewcoord.history import History, encode
from reviewcoord.merge_decision import Evidence, decide
from reviewcoord.merge_queue import MergeRun, run_merge_group
from reviewcoord.model import RawComment
from reviewcoord.render import MARKER, STALE_PREFIX, merge_group
from reviewcoord.runner import RunRequest
from tests.fakegithub import FakeGitHub

PAYLOADS = Path(__file__).parent / "fixtures/payloads"
PR_HEAD = "929f8209d40f77f4abc622a499c93a83babdbe64"
GROUP_SHA = "2ffea6db159f6b6c47a24e778fb9ef40cf6b1c7d"
OTHER = "b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4"
REF = f"refs/heads/gh-readonly-queue/main/pr-104-{PR_HEAD}"


def payload() -> dict[str, Any]:
    data = json.loads((PAYLOADS / "merge_group.checks_requested.json").read_text())
    assert isinstance(data, dict)
    return data


def with_group(**changes: Any) -> dict[str, Any]:
    data = payload()
    data["merge_group"] = {**data["merge_group"], **changes}
    return data


# --- the event -----------------------------------------------------------------------------


def test_the_real_payload_names_pr_104() -> None:
    target = resolve("merge_group", payload(), "")
    assert target.pr == 104
    assert target.merge_group == MergeGroup(104, GROUP_SHA, REF, "main", PR_HEAD)


def test_a_matching_pr_input_is_accepted_a_different_one_is_not() -> None:
    assert resolve("merge_group", payload(), "104").pr == 104
    with pytest.raises(EventError, match=r"not the PR of this merge group \(#104"):
        resolve("merge_group", payload(), "7")


def test_a_base_with_slashes_and_a_ref_without_sha() -> None:
    group = resolve(
        "merge_group",
        with_group(
            head_ref="refs/heads/gh-readonly-queue/release/v2/pr-9",
            base_ref="refs/heads/release/v2",
        ),
        "",
    ).merge_group
    assert group is not None and (group.pr, group.base, group.pr_head) == (9, "release/v2", None)


@pytest.mark.parametrize(
    "head_ref",
    [
        None,
        "",
        "refs/heads/main",
        "refs/heads/gh-readonly-queue/main/pr-x-929f8209d40f77f4abc622a499c93a83babdbe64",
        "refs/heads/gh-readonly-queue/main/pr-0-929f8209d40f77f4abc622a499c93a83babdbe64",
        "refs/heads/gh-readonly-queue/main/pr-104-929f82",
        "refs/heads/gh-readonly-queue/pr-104-929f8209d40f77f4abc622a499c93a83babdbe64",
        "refs/heads/gh-readonly-queue/main/pr-99999999999-929f8209d40f77f4abc622a499c93a83babdbe64",
        "refs/heads/gh-readonly-queue/main/pr-104-929f8209d40f77f4abc622a499c93a83babdbe64/x",
    ],
)
def test_a_malformed_head_ref_is_a_clear_event_error(head_ref: object) -> None:
    with pytest.raises(EventError, match=r"merge_group\.head_ref"):
        resolve("merge_group", with_group(head_ref=head_ref), "")


def test_other_malformed_merge_group_payloads() -> None:
    with pytest.raises(EventError, match="no 'merge_group' object"):
        resolve("merge_group", {}, "")
    with pytest.raises(EventError, match=r"merge_group\.head_sha"):
        resolve("merge_group", with_group(head_sha="main"), "")
    with pytest.raises(EventError, match=r"base_ref names 'develop'"):
        resolve("merge_group", with_group(base_ref="refs/heads/develop"), "")


# --- the decision --------------------------------------------------------------------------

GROUP = MergeGroup(104, GROUP_SHA, REF, "main", PR_HEAD)
PULL = PullInfo(
    number=104, head_sha=PR_HEAD, base_ref="main", html_url="https://github.com/o/r/pull/104"
)
RECORD = History(repo="octo/app", pr=104, heads=[OTHER, PR_HEAD], cycle=2, gate="go")
STICKY = RawComment(
    endpoint="issue_comment",
    id=9,
    author_login="github-actions[bot]",
    body=f"{MARKER}\n{encode(RECORD)}\n## verdict",
    html_url="https://github.com/o/r/pull/104#issuecomment-9",
)
CHECK = CheckRunRef(
    id=5, name="review-coordinator", status="completed", head_sha=PR_HEAD, conclusion="success"
)
STATUS = CommitStatusRef(id=3, state="success", context="review-coordinator")
GO = Evidence(GROUP, PULL, STICKY, RECORD, None, CHECK)


def test_a_complete_go_is_success() -> None:
    d = decide(GO)
    assert (d.state, d.gate) == ("success", "go") and "929f820" in d.reason
    # Without a check run of ours, our success status on the head is enough.
    assert decide(replace(GO, check=None, status=STATUS)).state == "success"
    # A head_ref without a SHA skips only that comparison.
    assert decide(replace(GO, group=replace(GROUP, pr_head=None))).state == "success"


@pytest.mark.parametrize(
    ("evidence", "gate", "words"),
    [
        (replace(GO, problem="could not read PR #104: HTTP 500"), "error", "HTTP 500"),
        (replace(GO, pull=None), "error", "not read"),
        (
            replace(GO, pull=PULL.model_copy(update={"state": "closed"})),
            "block",
            "closed, not open",
        ),
        (
            replace(GO, pull=PULL.model_copy(update={"head_sha": OTHER})),
            "block",
            "built from 929f820",
        ),
        (replace(GO, pull=PULL.model_copy(update={"base_ref": "dev"})), "block", "targets 'dev'"),
        (replace(GO, sticky=None, record=None), "block", "no verdict"),
        (replace(GO, record=None, notice="history record is corrupt"), "error", "corrupt"),
        (replace(GO, record=None), "error", "no review record"),
        (replace(GO, record=RECORD.model_copy(update={"heads": [OTHER]})), "block", "stale"),
        (
            replace(GO, sticky=STICKY.model_copy(update={"body": STICKY.body + STALE_PREFIX})),
            "block",
            "marked stale",
        ),
        (
            replace(GO, record=RECORD.model_copy(update={"gate": "block", "reason": "1 bug"})),
            "block",
            "verdict is block: 1 bug",
        ),
        (
            replace(GO, check=CHECK.model_copy(update={"status": "in_progress"})),
            "block",
            "still judging",
        ),
        (
            replace(GO, check=CHECK.model_copy(update={"conclusion": "failure"})),
            "block",
            "concluded failure",
        ),
        (
            replace(GO, check=CHECK.model_copy(update={"conclusion": None})),
            "block",
            "concluded nothing",
        ),
        (replace(GO, check=None), "block", "no completed check run or commit status"),
        (
            replace(GO, check=None, status=STATUS.model_copy(update={"state": "pending"})),
            "block",
            "is pending",
        ),
        (
            replace(GO, check=None, status=STATUS, signal_problem="could not read statuses"),
            "error",
            "could not read statuses",
        ),
    ],
)
def test_every_reason_to_fail(evidence: Evidence, gate: str, words: str) -> None:
    d = decide(evidence)
    assert (d.state, d.gate) == ("failure", gate)
    assert words in d.reason
    assert len(merge_group.description(d.gate, d.reason)) <= 140


def test_the_head_mismatch_is_named_before_the_verdict() -> None:
    """A head_ref SHA that is not the PR head fails even with a go verdict for that head."""
    record = RECORD.model_copy(update={"heads": [OTHER]})
    d = decide(replace(GO, pull=PULL.model_copy(update={"head_sha": OTHER}), record=record))
    assert d.state == "failure" and "built from" in d.reason


def test_the_report_is_inert_markdown() -> None:
    hostile = "<img src=x onerror=alert(1)> @everyone [x](javascript:alert(1)) #1\n# Heading"
    body = merge_group.report(
        repo="octo/app",
        pr=104,
        gate="block",
        reason=f"PR #104's verdict is block: {hostile}",
        group_sha=GROUP_SHA,
        pr_head=PR_HEAD,
        verdict_url="javascript:alert(1)",
        pull_url="https://github.com/o/r/pull/104",
    )
    assert "<img" not in body and " [x](javascript" not in body and "\n# Heading" not in body
    assert "(javascript:alert(1))." not in body  # an unsafe URL is never a link target
    assert "@everyone" not in body
    assert "`2ffea6d`" in body and "`929f820`" in body


# --- the gateway reads ---------------------------------------------------------------------


def test_check_run_conclusion_and_commit_statuses_are_read() -> None:
    with (
        FakeGitHub() as fake,
        PyGithubGateway(fake.repo, "app-token", base_url=fake.base_url) as gw,
    ):
        ref = gw.create_check_run("review-coordinator", PR_HEAD, "completed", conclusion="success")
        gw.create_status(PR_HEAD, "pending", "waiting", "review-coordinator", None)
        gw.create_status(PR_HEAD, "success", "go", "review-coordinator", "https://x.test/1")
        (run,) = gw.list_check_runs(PR_HEAD, "review-coordinator")
        assert (run.id, run.status, run.conclusion) == (ref.id, "completed", "success")
        statuses = gw.list_commit_statuses(PR_HEAD)
        assert [s.state for s in statuses] == ["success", "pending"]  # newest first
        assert statuses[0].creator_login == "github-actions[bot]"
        assert statuses[0].target_url == "https://x.test/1"


# --- the run, in-process -------------------------------------------------------------------


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as gh:
        gh.add_pull(104, head_sha=PR_HEAD)
        yield gh


def run_group(
    fake: FakeGitHub, inputs: dict[str, str] | None = None, token: str = "app-token"
) -> MergeRun:
    req = RunRequest(
        repo=fake.repo,
        pr=104,
        inputs=inputs or {},
        input_source="workflow inputs",
        config_path=".github/review-coordinator.yml",
    )
    log = Log(io.StringIO())
    with PyGithubGateway(
        fake.repo, token, base_url=fake.base_url, write_spacing=0, sleep=lambda _s: None
    ) as gateway:
        return run_merge_group(req, GROUP, gateway, log)


def sticky_of(fake: FakeGitHub, record: History, login: str = "github-actions[bot]") -> None:
    fake.add_issue_comment(104, login=login, body=f"{MARKER}\n{encode(record)}\n## verdict")


def test_a_sticky_by_someone_else_is_no_verdict(fake: FakeGitHub) -> None:
    sticky_of(fake, RECORD, login="mallory")
    run = run_group(fake)
    assert run.decision.gate == "block" and "no verdict" in run.decision.reason


def test_a_corrupt_record_is_an_error(fake: FakeGitHub) -> None:
    fake.add_issue_comment(
        104,
        login="github-actions[bot]",
        body=f"{MARKER}\n<!-- review-coordinator-history v1 z:AAAA -->\n",
    )
    run = run_group(fake)
    assert run.decision.gate == "error" and "unreadable" in run.decision.reason
    assert [s["state"] for s in fake.statuses(GROUP_SHA)] == ["failure"]


def test_the_config_files_names_are_used_and_a_bad_config_fails(fake: FakeGitHub) -> None:
    fake.set_file(".github/review-coordinator.yml", "main", "check-name: rc\nstatus-context: rc\n")
    sticky_of(fake, RECORD)
    run = run_group(fake)
    assert run.decision.state == "failure"  # no check run or status named rc on the head
    assert [(c["name"], c["conclusion"]) for c in fake.check_runs(GROUP_SHA)] == [("rc", "failure")]
    assert fake.statuses(GROUP_SHA)[0]["context"] == "rc"
    # A broken file never stalls the queue: the defaults (no valid earlier version), said so.
    fake.set_file(".github/review-coordinator.yml", "main", "check-name: [1\n")
    run = run_group(fake)
    assert run.decision.gate != "error"
    assert any("config file on the base branch is invalid" in n for n in run.notes)


def test_dry_run_writes_nothing(fake: FakeGitHub) -> None:
    run = run_group(fake, {"dry-run": "true"})
    assert run.decision.state == "failure"
    assert [r for r in fake.request_log() if r.method != "GET"] == []


def test_a_failed_write_is_an_error(fake: FakeGitHub) -> None:
    fake.inject("POST", rf"/statuses/{GROUP_SHA}", status=500, times=1000)
    run = run_group(fake)
    assert run.decision.gate == "error" and "could not set the commit status" in run.decision.reason
    assert fake.check_runs(GROUP_SHA)[0]["conclusion"] == "failure"


def recorded_go(fake: FakeGitHub) -> None:
    """What a finished `go` run leaves on PR 104: sticky with record, check run, status."""
    sticky_of(fake, RECORD)
    with PyGithubGateway(fake.repo, "app-token", base_url=fake.base_url) as gw:
        gw.create_check_run("review-coordinator", PR_HEAD, "completed", conclusion="success")
        gw.create_status(PR_HEAD, "success", "go", "review-coordinator", None)


@pytest.mark.parametrize(
    ("path", "state"),
    [
        (None, "success"),
        (r"/contents/", "failure"),
        (r"/user$", "success"),  # not asked: our check run's App says who we are
        (r"/pulls/104$", "failure"),
        (r"/issues/104/comments", "failure"),
        (rf"/commits/{PR_HEAD}/check-runs", "success"),  # the status on the head decides
    ],
)
def test_a_dead_read_is_never_success(fake: FakeGitHub, path: str | None, state: str) -> None:
    recorded_go(fake)
    if path is not None:
        fake.inject("GET", path, status=500, times=1000)
    run = run_group(fake)
    assert run.decision.state == state, run.decision
    assert [s["state"] for s in fake.statuses(GROUP_SHA)] == [state]
    assert [c["conclusion"] for c in fake.check_runs(GROUP_SHA)] == [state]
    if state == "failure":
        assert run.decision.gate == "error" and "HTTP 500" in run.decision.reason


def test_dead_check_runs_and_statuses_are_an_error(fake: FakeGitHub) -> None:
    recorded_go(fake)
    fake.inject("GET", rf"/commits/{PR_HEAD}/check-runs", status=500, times=1000)
    fake.inject("GET", rf"/commits/{PR_HEAD}/statuses", status=500, times=1000)
    run = run_group(fake)
    assert (run.decision.state, run.decision.gate) == ("failure", "error")
    assert "commit statuses" in run.decision.reason


def test_a_personal_token_asks_get_user_and_fails_closed_when_it_is_dead(fake: FakeGitHub) -> None:
    fake.add_token("pat", "octo-admin", user_endpoint=True)
    sticky_of(fake, RECORD, login="octo-admin")
    fake.inject("GET", r"/user$", status=500, times=1000)
    run = run_group(fake, token="pat")
    assert (run.decision.state, run.decision.gate) == ("failure", "error")
    assert "identity" in run.decision.reason
    assert [s["state"] for s in fake.statuses(GROUP_SHA)] == ["failure"]
    assert fake.check_runs(GROUP_SHA) == []  # a personal token cannot write check runs
