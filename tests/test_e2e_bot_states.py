"""End to end: bot run states and `require-bots` through entrypoint.py against the fake GitHub.

A bot that says it cannot review is neither a finding nor a review: it is not waited for, it is
listed as unreviewed, and with `require-bots` it blocks, by name."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e_support import (
    CLAUDE,
    CODEX,
    COPILOT_REVIEWER,
    CURSOR,
    HEAD,
    body,
    cursor_clean,
    run_action,
    stickies,
    verdict_of,
)
from tests.fakegithub import FakeGitHub

pytestmark = pytest.mark.e2e

SETTLE_FAST = {
    "settle": "fast",
    "fast-timeout": "20",
    "full-timeout": "40",
    "expected-bots": "codex,copilot,cursor,claude",
}


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as gh:
        gh.add_pull(2, head_sha=HEAD)
        yield gh


def fast_pack_clean(fake: FakeGitHub) -> None:
    fake.add_review(2, login=CURSOR, body=cursor_clean(HEAD), commit_id=HEAD)
    fake.add_review(2, login=COPILOT_REVIEWER, body=body("Z12"), commit_id=HEAD)
    fake.add_review(2, login=CLAUDE, body=body("L_cca1078_lgtm"), commit_id=HEAD)


def review_reads(fake: FakeGitHub) -> int:
    return sum(1 for r in fake.request_log() if r.method == "GET" and "/pulls/2/reviews" in r.path)


def test_codex_usage_limit_is_unreviewed_and_not_waited_for(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    fast_pack_clean(fake)
    fake.add_issue_comment(2, login=CODEX, body=body("X_usage_vllm"))
    run = run_action(fake, tmp_path, inputs=SETTLE_FAST)
    assert run.returncode == 0, run.log
    verdict = verdict_of(run)
    assert verdict["gate"] == "go" and verdict["critical"] == [] and verdict["advisory"] == []
    assert verdict["bots"]["codex"]["state"] == "failed"
    assert verdict["bots"]["codex"]["detail"] == "usage limit reached"
    assert verdict["unreviewed"] == ["codex"] and verdict["pending"] == []
    # Failed is final: merge patience does not wait the full timeout for Codex.
    assert "merge patience" not in run.log
    assert review_reads(fake) <= 2
    (sticky,) = stickies(fake)
    line = (
        f"Codex did not review `{HEAD[:7]}`: usage limit reached — re-request with `@codex review`"
    )
    assert line in sticky["body"]
    assert line in run.summary


def test_require_bots_blocks_when_codex_could_not_review(fake: FakeGitHub, tmp_path: Path) -> None:
    fast_pack_clean(fake)
    fake.add_issue_comment(2, login=CODEX, body=body("N3_codex_dotfiles281_quota_credits"))
    run = run_action(fake, tmp_path, inputs={**SETTLE_FAST, "require-bots": "codex"})
    assert run.returncode == 0, run.log
    assert run.outputs["gate"] == "block"
    assert run.outputs["gate-reason"] == (
        f"required bot codex has not reviewed {HEAD[:7]}: failed — usage limit reached"
    )
    (check,) = fake.check_runs(HEAD)
    assert check["conclusion"] == "failure"
    assert fake.statuses(HEAD)[-1]["state"] == "failure"
    assert verdict_of(run)["required_bots"] == ["codex"]


def test_require_bots_pending_at_the_timeout_blocks(fake: FakeGitHub, tmp_path: Path) -> None:
    fast_pack_clean(fake)
    inputs = {**SETTLE_FAST, "fast-timeout": "1", "full-timeout": "2", "require-bots": "codex"}
    run = run_action(fake, tmp_path, inputs=inputs)
    assert run.returncode == 0, run.log
    assert run.outputs["gate"] == "block"
    assert "required bot codex has not reviewed" in run.outputs["gate-reason"]
    assert "nothing posted yet" in run.outputs["gate-reason"]
    assert "require-bots" in run.log  # it waited for the full settle first


def test_require_bots_go_once_reviewed(fake: FakeGitHub, tmp_path: Path) -> None:
    fast_pack_clean(fake)
    fake.add_issue_comment(2, login=CODEX, body=body("X_clean_swish"))
    run = run_action(fake, tmp_path, inputs={**SETTLE_FAST, "require-bots": "codex,cursor"})
    assert run.returncode == 0, run.log
    assert run.outputs["gate"] == "go"
    assert verdict_of(run)["bots"]["codex"]["state"] == "reviewed"


def test_copilot_error_review_and_claude_error_are_failed(fake: FakeGitHub, tmp_path: Path) -> None:
    fake.add_review(2, login=CURSOR, body=cursor_clean(HEAD), commit_id=HEAD)
    fake.add_review(2, login=COPILOT_REVIEWER, body=body("N3_cop_vllm31104_error"), commit_id=HEAD)
    fake.add_issue_comment(
        2, login=CLAUDE, body="**Claude encountered an error after 7m 41s** —— [View job](u)"
    )
    fake.add_issue_comment(2, login=CODEX, body=body("X_clean_swish"))
    run = run_action(fake, tmp_path, inputs=SETTLE_FAST)
    assert run.returncode == 0, run.log
    verdict = verdict_of(run)
    assert verdict["unreviewed"] == ["copilot", "claude"]
    assert verdict["advisory"] == []  # the error review is not a finding
    assert verdict["bots"]["claude"]["detail"] == "encountered an error after 7m 41s"
    assert review_reads(fake) <= 2  # nobody left to wait for


def test_codex_running_tracker_is_waited_for_not_counted(fake: FakeGitHub, tmp_path: Path) -> None:
    fast_pack_clean(fake)
    tracker = body("N3_codex_status_asic381_propened").replace("`8777ef4`", f"`{HEAD[:7]}`")
    comment = fake.add_issue_comment(
        2, login=CODEX, body=tracker.replace("✅ **Completed**", "🔄 **Running**")
    )
    done: list[int] = []

    def finish(gh: FakeGitHub, request: object) -> None:
        if review_reads(gh) == 3 and not done:
            done.append(1)
            gh.edit_issue_comment(comment["id"], tracker)  # Running → Completed, in place

    fake.on_request(finish)
    inputs = {**SETTLE_FAST, "fast-timeout": "2", "full-timeout": "30", "finishing-grace": "2"}
    run = run_action(fake, tmp_path, inputs=inputs)
    assert run.returncode == 0, run.log
    assert done, "the tracker was never re-read"
    verdict = verdict_of(run)
    # Completed with no review of its own: finishing, then reviewed once the grace passed.
    assert verdict["bots"]["codex"]["state"] == "reviewed" and verdict["gate"] == "go"
    assert "no separate review landed within 2 s" in verdict["bots"]["codex"]["detail"]
    assert verdict["settle"] == "full"  # merge patience waited for Codex's tracker
