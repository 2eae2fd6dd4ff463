"""End to end: the reviewers' own check runs, commit statuses and reactions, through
entrypoint.py against the fake GitHub (docs/bot-formats.md § 20). Each shape gives its state in
the verdict JSON and the sticky; each attack sits beside its control."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e_support import CODEX, HEAD, run_action, stickies, verdict_of
from tests.fakegithub import FakeGitHub

pytestmark = pytest.mark.e2e

CLEAN_GREPTILE = "Greptile has reviewed the Pull Request.\n\n8 files reviewed, 0 comments added."


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as gh:
        gh.add_pull(2, head_sha=HEAD)
        yield gh


def bugbot(fake: FakeGitHub, **kwargs: object) -> int:
    return fake.add_bot_check_run(
        HEAD,
        "Cursor Bugbot",
        app_slug="cursor",
        app_id=1210556,
        **kwargs,  # type: ignore[arg-type]
    )


def test_clean_reviews_that_are_only_checks_and_a_reaction_give_go(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    bugbot(fake)
    fake.add_bot_check_run(
        HEAD, "Greptile Review", app_slug="greptile-apps", app_id=867647, summary=CLEAN_GREPTILE
    )
    fake.add_reaction(2, "+1", login=CODEX)
    run = run_action(fake, tmp_path, inputs={"expected-bots": "cursor,greptile,codex"})
    verdict = verdict_of(run, exit_ok=True)
    assert verdict["gate"] == "go" and verdict["pending"] == []
    assert verdict["settled_on"] == ["codex", "cursor", "greptile"]
    assert verdict["bots"]["cursor"]["detail"] == "its check run `Cursor Bugbot` found no bugs"


def test_control_without_their_checks_nobody_reviewed(fake: FakeGitHub, tmp_path: Path) -> None:
    run = run_action(fake, tmp_path, inputs={"expected-bots": "cursor,greptile,codex"})
    verdict = verdict_of(run, exit_ok=True)
    assert verdict["settled_on"] == [] and verdict["pending"] == ["codex", "cursor", "greptile"]


def test_a_check_in_progress_is_waited_for_and_shown_working(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    bugbot(fake, status="in_progress", conclusion=None)
    inputs = {"expected-bots": "cursor", "settle": "fast", "fast-timeout": "2"}
    run = run_action(fake, tmp_path, inputs=inputs)
    verdict = verdict_of(run, exit_ok=True)
    assert verdict["bots"]["cursor"]["state"] == "working" and verdict["pending"] == ["cursor"]
    assert "in progress" in verdict["bots"]["cursor"]["detail"]
    polls = [
        r
        for r in fake.request_log()
        if r.method == "GET" and "/check-runs" in r.path and "check_name" not in r.path
    ]
    assert len(polls) >= 2 and sum(1 for r in polls if r.status != 304) == 1  # polls are free


def test_attack_a_workflow_job_named_like_bugbot_is_not_bugbot(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    fake.add_bot_check_run(HEAD, "Cursor Bugbot", app_slug="github-actions", app_id=15368)
    run = run_action(fake, tmp_path, inputs={"expected-bots": "cursor"})
    verdict = verdict_of(run, exit_ok=True)
    assert verdict["settled_on"] == [] and verdict["pending"] == ["cursor"]


def coderabbit_skip_status(fake: FakeGitHub, creator: str, creator_type: str) -> None:
    """CodeRabbit's legacy commit status saying it skipped the head, set by `creator`."""
    fake.add_status(
        HEAD,
        "CodeRabbit",
        "success",
        description="Review skipped: Bot user detected.",
        creator_login=creator,
        creator_type=creator_type,
    )


def test_coderabbits_skip_status_is_skipped_in_its_own_words(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    coderabbit_skip_status(fake, "coderabbitai[bot]", "Bot")
    run = run_action(fake, tmp_path, inputs={"expected-bots": "coderabbit"})
    verdict = verdict_of(run, exit_ok=True)
    assert verdict["bots"]["coderabbit"] == {
        "state": "skipped",
        "detail": "Review skipped: Bot user detected.",
        "url": "",
    }
    (sticky,) = stickies(fake)
    assert "Review skipped: Bot user detected." in sticky["body"]


def test_attack_a_person_setting_coderabbits_status_is_not_coderabbit(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    coderabbit_skip_status(fake, "mallory", "User")
    run = run_action(fake, tmp_path, inputs={"expected-bots": "coderabbit"})
    verdict = verdict_of(run, exit_ok=True)
    assert verdict["bots"]["coderabbit"]["state"] == "not_seen"
    assert verdict["pending"] == ["coderabbit"]


def test_a_bugbot_usage_limit_check_is_failed_and_blocks_when_required(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    bugbot(fake, conclusion="neutral", title="Bugbot couldn't run - usage limit reached")
    inputs = {"expected-bots": "cursor", "require-bots": "cursor"}
    run = run_action(fake, tmp_path, inputs=inputs)
    verdict = verdict_of(run)
    assert verdict["gate"] == "block" and verdict["unreviewed"] == ["cursor"]
    assert verdict["bots"]["cursor"]["detail"] == "Bugbot couldn't run - usage limit reached"


def test_a_reviewers_check_run_completing_judges_its_pr(fake: FakeGitHub, tmp_path: Path) -> None:
    """The `check_run` trigger (docs/adopt.md § What starts a run): Bugbot's check completes
    after our settle ended; its event judges PR 2 again, and Bugbot's clean check counts."""
    from tests.workflow_support import check_run

    bugbot(fake)
    payload = check_run("cursor")
    run = run_action(
        fake, tmp_path, event="check_run", payload=payload, inputs={"expected-bots": "cursor"}
    )
    verdict = verdict_of(run, exit_ok=True)
    assert verdict["pr"] == 2 and verdict["settled_on"] == ["cursor"]
    assert verdict["gate"] == "go"


def test_a_reviewers_check_run_on_a_forks_head_judges_the_forks_pr(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    """GitHub lists no `pull_requests` in a check run on a fork's head: the PR is found among
    the open PRs by the head's SHA (one page, most recently updated first)."""
    from tests.workflow_support import check_run

    fork_head = "f" * 40
    fake.add_pull(3, head_sha=fork_head, head_repo="contributor/app")
    fake.add_bot_check_run(fork_head, "Cursor Bugbot", app_slug="cursor", app_id=1210556)
    payload = check_run("cursor", pr=None)
    payload["check_run"]["head_sha"] = fork_head
    run = run_action(
        fake, tmp_path, event="check_run", payload=payload, inputs={"expected-bots": "cursor"}
    )
    verdict = verdict_of(run, exit_ok=True)
    assert verdict["pr"] == 3 and verdict["settled_on"] == ["cursor"]
    assert "#3 has head commit" in run.log


def test_control_a_check_run_on_no_open_prs_head_writes_nothing(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    from tests.workflow_support import check_run

    payload = check_run("cursor", pr=None)
    payload["check_run"]["head_sha"] = "d" * 40  # a push to a branch without a PR
    run = run_action(fake, tmp_path, event="check_run", payload=payload)
    assert run.returncode == 0, run.log
    assert "nothing to do" in run.log
    assert [r for r in fake.request_log() if r.method != "GET"] == []


@pytest.mark.parametrize(
    "path", [r"/issues/2/reactions", r"/commits/[0-9a-f]{40}/check-runs\?filter"]
)
def test_a_failed_read_of_a_bots_own_evidence_is_never_go(
    fake: FakeGitHub, tmp_path: Path, path: str
) -> None:
    """Codex's reactions or every app's check runs unreadable (404 every time, no retry helps):
    the gate is `error` on the required check, never a `go` judged without them."""
    bugbot(fake)
    fake.add_reaction(2, "+1", login=CODEX)
    fake.inject("GET", path, status=404, times=100)
    run = run_action(fake, tmp_path, inputs={"expected-bots": "cursor,codex"})
    assert run.outputs["gate"] == "error", run.log
    assert fake.statuses(HEAD)[-1]["state"] == "error"


def test_control_the_same_reads_answered_give_go(fake: FakeGitHub, tmp_path: Path) -> None:
    bugbot(fake)
    fake.add_reaction(2, "+1", login=CODEX)
    run = run_action(fake, tmp_path, inputs={"expected-bots": "cursor,codex"})
    assert run.outputs["gate"] == "go", run.log
