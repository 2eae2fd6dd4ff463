"""End to end: `rerequest: true` asks a missing review once per head and bot (issue 17).

Copilot through `POST pulls/{n}/requested_reviewers`, Codex with its documented `@codex review`
comment; never twice for one head (whichever run), never after a quota notice, never with a
read-only token (a fork PR), never when `rerequest` is off. Each attack has its control."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reviewcoord.history import decode
from tests.e2e_support import (
    CLAUDE,
    CODEX,
    COPILOT_REVIEWER,
    CURSOR,
    HEAD,
    MARKER,
    NEW_HEAD,
    body,
    cursor_clean,
    run_action,
    stickies,
)
from tests.fakegithub import FakeGitHub

pytestmark = pytest.mark.e2e

# Every timeout 0: a bot that has not started is due at once (no test waits).
ASK = {
    "settle": "full",
    "fast-timeout": "0",
    "full-timeout": "0",
    "expected-bots": "codex,copilot,cursor,claude",
    "rerequest": "true",
}


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as gh:
        gh.add_pull(2, head_sha=HEAD)
        yield gh


def codex_asks(fake: FakeGitHub) -> list[dict[str, Any]]:
    return [c for c in fake.issue_comments(2) if c["body"].startswith("@codex review")]


def copilot_asks(fake: FakeGitHub) -> list[tuple[int, list[str]]]:
    return [r for r in fake.review_requests if r[1] == [COPILOT_REVIEWER]]


def posts_to_reviewers(fake: FakeGitHub) -> int:
    return sum(
        1 for r in fake.request_log() if r.method == "POST" and "requested_reviewers" in r.path
    )


def record(fake: FakeGitHub) -> Any:
    (sticky,) = stickies(fake)
    history, notice = decode(sticky["body"], repo=fake.repo, pr=2)
    assert history is not None, notice
    return history


def outputs(run: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(Path(run.outputs["verdict-file"]).read_text())
    return data


def test_copilot_and_codex_are_asked_once_and_the_sticky_says_so(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    fake.add_review(2, login=CURSOR, body=cursor_clean(HEAD), commit_id=HEAD)
    fake.add_review(2, login=CLAUDE, body=body("L_cca1078_lgtm"), commit_id=HEAD)
    run = run_action(fake, tmp_path / "1", inputs={**ASK, "require-bots": "copilot"})
    assert run.returncode == 0, run.log
    assert copilot_asks(fake) == [(2, [COPILOT_REVIEWER])]
    (ask,) = codex_asks(fake)
    assert ask["user"]["login"] == "github-actions[bot]"
    (sticky,) = stickies(fake)
    assert f"asked Copilot to review `{HEAD[:7]}`" in sticky["body"]
    assert "with a review request: it had not started" in sticky["body"]
    assert f"asked Codex to review `{HEAD[:7]}`" in sticky["body"]
    assert "with `@codex review`" in sticky["body"]
    asked = {(a.bot, a.head) for a in record(fake).asked}
    assert asked == {("copilot", HEAD), ("codex", HEAD)}
    assert all(a.at for a in record(fake).asked)  # GitHub's time of the write
    assert run.outputs["gate"] == "block" and run.outputs["next-step"] == "wait_review"
    assert sorted(outputs(run)["rerequested"]) == ["codex", "copilot"]
    assert "review-coordinator asked it again" in stickies(fake)[0]["body"]

    # A second run on the same head (something new: not a noop) asks nobody again.
    fake.add_issue_comment(2, login="octocat", body="looks fine to me")
    again = run_action(fake, tmp_path / "2", inputs=ASK)
    assert again.returncode == 0, again.log
    assert "nothing new since" not in again.log
    assert len(copilot_asks(fake)) == 1 and len(codex_asks(fake)) == 1
    assert f"asked Copilot to review `{HEAD[:7]}`" in stickies(fake)[0]["body"]

    # A new head: each is asked once more, for that head.
    fake.set_head(2, NEW_HEAD)
    third = run_action(fake, tmp_path / "3", inputs=ASK)
    assert third.returncode == 0, third.log
    assert len(copilot_asks(fake)) == 2 and len(codex_asks(fake)) == 2
    heads = [(a.bot, a.head) for a in record(fake).asked]
    assert heads.count(("copilot", NEW_HEAD)) == 1 and heads.count(("copilot", HEAD)) == 1


def test_a_failed_copilot_is_asked_again_at_once(fake: FakeGitHub, tmp_path: Path) -> None:
    fake.add_review(2, login=COPILOT_REVIEWER, body=body("N3_cop_vllm31104_error"), commit_id=HEAD)
    inputs = {**ASK, "expected-bots": "copilot", "fast-timeout": "600", "full-timeout": "600"}
    inputs["settle"] = "none"
    run = run_action(fake, tmp_path, inputs=inputs)
    assert run.returncode == 0, run.log
    assert copilot_asks(fake) == [(2, [COPILOT_REVIEWER])]
    assert "it could not review" in stickies(fake)[0]["body"]
    assert run.outputs["next-step"] == "none"  # go: nothing gates on Copilot


def test_a_failed_required_copilot_without_rerequest_says_rerequest_review(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    fake.add_review(2, login=COPILOT_REVIEWER, body=body("N3_cop_vllm31104_error"), commit_id=HEAD)
    inputs = {"settle": "none", "expected-bots": "copilot", "require-bots": "copilot"}
    run = run_action(fake, tmp_path, inputs=inputs)
    assert run.returncode == 0, run.log
    assert posts_to_reviewers(fake) == 0
    assert run.outputs["gate"] == "block" and run.outputs["next-step"] == "rerequest_review"


def test_no_ask_after_a_quota_notice(fake: FakeGitHub, tmp_path: Path) -> None:
    fake.add_issue_comment(2, login=CODEX, body=body("X_usage_vllm"))
    run = run_action(fake, tmp_path, inputs={**ASK, "expected-bots": "codex"})
    assert run.returncode == 0, run.log
    assert codex_asks(fake) == []
    assert "asked Codex" not in stickies(fake)[0]["body"]


def test_control_codex_without_a_quota_notice_is_asked(fake: FakeGitHub, tmp_path: Path) -> None:
    run = run_action(fake, tmp_path, inputs={**ASK, "expected-bots": "codex"})
    assert run.returncode == 0, run.log
    assert len(codex_asks(fake)) == 1
    assert MARKER not in codex_asks(fake)[0]["body"]  # never mistaken for our sticky


def test_a_quota_notice_on_an_older_head_still_counts(fake: FakeGitHub, tmp_path: Path) -> None:
    fake.add_issue_comment(2, login=CODEX, body=body("X_usage_vllm"))
    fake.set_head(2, NEW_HEAD)  # the notice is older than the new head: not its state
    run = run_action(fake, tmp_path, inputs={**ASK, "expected-bots": "codex"})
    assert run.returncode == 0, run.log
    assert codex_asks(fake) == []


def test_no_ask_on_a_read_only_fork_run(fake: FakeGitHub, tmp_path: Path) -> None:
    fake.add_token("fork-token", "github-actions[bot]", user_endpoint=False, read_only=True)
    run = run_action(fake, tmp_path, inputs=ASK, token="fork-token")
    assert run.returncode == 0, run.log
    assert posts_to_reviewers(fake) == 0 and codex_asks(fake) == []
    assert run.outputs["next-step"] == "none"


def test_control_the_same_run_with_a_writable_token_asks(fake: FakeGitHub, tmp_path: Path) -> None:
    run = run_action(fake, tmp_path, inputs=ASK)
    assert run.returncode == 0, run.log
    assert posts_to_reviewers(fake) == 1 and len(codex_asks(fake)) == 1


def test_rerequest_off_by_default_asks_nobody(fake: FakeGitHub, tmp_path: Path) -> None:
    inputs = {k: v for k, v in ASK.items() if k != "rerequest"}
    run = run_action(fake, tmp_path, inputs=inputs)
    assert run.returncode == 0, run.log
    assert posts_to_reviewers(fake) == 0 and codex_asks(fake) == []


def test_claude_is_never_asked_automatically(fake: FakeGitHub, tmp_path: Path) -> None:
    # Its documented trigger runs the repository's own workflow, which a comment written with
    # the workflow token does not start: nothing to ask with.
    run = run_action(fake, tmp_path, inputs={**ASK, "expected-bots": "claude"})
    assert run.returncode == 0, run.log
    assert [c for c in fake.issue_comments(2) if "@claude" in c["body"]] == []


def test_a_declared_reviewer_is_asked_with_its_declared_trigger(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    config = (
        "reviewers:\n  kilo:\n    logins: ['kilo-code-bot[bot]']\n    trigger: '@kilo review'\n"
    )
    fake.set_file(".github/review-coordinator.yml", "main", config)
    run = run_action(fake, tmp_path, inputs={**ASK, "expected-bots": "kilo"})
    assert run.returncode == 0, run.log
    asks = [c for c in fake.issue_comments(2) if c["body"].startswith("@kilo review")]
    assert len(asks) == 1
    assert "asked kilo to review" in stickies(fake)[0]["body"]


def test_control_a_declared_reviewer_without_trigger_is_not_asked(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    config = "reviewers:\n  kilo:\n    logins: ['kilo-code-bot[bot]']\n"
    fake.set_file(".github/review-coordinator.yml", "main", config)
    run = run_action(fake, tmp_path, inputs={**ASK, "expected-bots": "kilo"})
    assert run.returncode == 0, run.log
    assert [c for c in fake.issue_comments(2) if "@kilo" in c["body"]] == []


def test_a_dry_run_asks_nobody_and_claims_nothing(fake: FakeGitHub, tmp_path: Path) -> None:
    run = run_action(fake, tmp_path, inputs={**ASK, "dry-run": "true"})
    assert run.returncode == 0, run.log
    assert posts_to_reviewers(fake) == 0 and codex_asks(fake) == []
    assert "[dry-run] would ask copilot to review again" in run.log
    assert outputs(run)["rerequested"] == []
