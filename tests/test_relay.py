"""The shipped workflows end to end against the fake GitHub, for each event and token kind: GitHub
decides which job starts (the reusable workflow's real `if:`, tests/ghexpr.py) and which token it
gets (read-only for a fork's or Dependabot's `pull_request*` run, GitHub's rule); a judging job is
the real `entrypoint.py`; a hand-over completes and GitHub delivers the relay's `workflow_run`,
whose judging job gets a token that can write. The write path for forks is the relay's."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests import workflow_support as wf
from tests.e2e_support import CODEX, CURSOR, HEAD, Run, body, cursor_clean, run_action, stickies
from tests.fakegithub import FakeGitHub

FORK_TOKEN = "ghs_ReadOnlyForkRunToken000000000000000"
WRITE_TOKEN = "app-token"  # the fake's GITHUB_TOKEN of a base-repository run


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as gh:
        gh.add_token(FORK_TOKEN, "github-actions[bot]", user_endpoint=False, read_only=True)
        yield gh


def fork_pr(fake: FakeGitHub) -> None:
    """PR 2 from the fork `contributor/app`, branch `feature-2` (the relay's lookup label)."""
    fake.add_pull(2, head_sha=HEAD, head_repo="contributor/app", author="contributor")
    fake.add_review(2, login=CURSOR, body=cursor_clean(HEAD), commit_id=HEAD)


def deliver(
    fake: FakeGitHub, tmp: Path, event: str, payload: dict[str, Any], inputs: dict[str, str]
) -> list[tuple[str, str, Run | None]]:
    """What GitHub does with one event: (workflow, job, the action's run if it ran), the relay's
    run included when a hand-over completed."""
    job = wf.job_for(event, payload)
    if job is None:
        return [("review-coordinator", "none", None)]
    if job == "hand-over":  # `echo`, success: GitHub then runs the relay from the default branch
        relay = wf.relay_event(event, payload)
        rest = deliver(fake, tmp / "relay", "workflow_run", relay, inputs)
        return [("review-coordinator", "hand-over", None), *rest]
    token = FORK_TOKEN if wf.read_only(event, payload) else WRITE_TOKEN
    run = run_action(fake, tmp, event=event, payload=payload, inputs=inputs, token=token)
    workflow = "review-coordinator relay" if event == "workflow_run" else "review-coordinator"
    return [(workflow, "judge", run)]


def fork_payload(event: str) -> dict[str, Any]:
    """A real payload of `event` on the fake's fork PR 2 (head `contributor/app:feature-2`)."""
    if event == "pull_request":
        p = wf.pull_request("opened", fork=True)
    elif event == "pull_request_review":
        p = wf.review(CODEX, body("X_agogo65_review"), fork=True)
    else:
        p = wf.review_comment("octocat", "this is intended", fork=True)
    p["pull_request"]["head"]["repo"]["full_name"] = "contributor/app"
    p["pull_request"]["head"]["ref"] = "feature-2"
    p["pull_request"]["head"]["sha"] = HEAD
    return p


@pytest.mark.parametrize("event", wf.READ_ONLY_EVENTS)
def test_a_forks_read_only_run_hands_over_and_the_relay_publishes(
    fake: FakeGitHub, tmp_path: Path, event: str
) -> None:
    fork_pr(fake)
    steps = deliver(fake, tmp_path, event, fork_payload(event), {"expected-bots": "cursor"})
    assert [(w, j) for w, j, _ in steps] == [
        ("review-coordinator", "hand-over"),
        ("review-coordinator relay", "judge"),
    ]
    run = steps[-1][2]
    assert run is not None and run.returncode == 0, run.log if run else ""
    assert run.outputs["gate"] == "go" and "#2 has head contributor:feature-2" in run.log
    # Published from the base repository: sticky, status and check run on the fork's head.
    assert len(stickies(fake)) == 1
    assert fake.statuses(HEAD)[-1]["state"] == "success"
    assert max(fake.check_runs(HEAD), key=lambda r: r["id"])["conclusion"] == "success"


def test_the_relay_never_writes_with_the_forks_token(fake: FakeGitHub, tmp_path: Path) -> None:
    """Control: the fork's own run never runs the action; had it, its token could not write."""
    fork_pr(fake)
    payload = fork_payload("pull_request")
    assert wf.job_for("pull_request", payload) == "hand-over"
    run = run_action(fake, tmp_path, event="pull_request", payload=payload, token=FORK_TOKEN)
    assert run.returncode == 0 and stickies(fake) == [] and fake.statuses(HEAD) == []


@pytest.mark.parametrize(
    ("event", "payload"),
    [
        ("issue_comment", wf.issue_comment("octocat", "/review-coordinator accept F1 wontfix: x")),
        ("check_run", wf.check_run("cursor", pr=None)),
        ("workflow_dispatch", wf.dispatch(2)),
    ],
)
def test_a_forks_base_repository_events_judge_directly(
    fake: FakeGitHub, tmp_path: Path, event: str, payload: dict[str, Any]
) -> None:
    """`issue_comment`, `check_run` and `workflow_dispatch` run in the base repository with a
    token that can write, fork or not: no hand-over."""
    fork_pr(fake)
    if event == "check_run":
        payload["check_run"]["head_sha"] = HEAD  # a fork's head: found among the open PRs
    inputs = {"expected-bots": "cursor", **({"pr": "2"} if event == "workflow_dispatch" else {})}
    steps = deliver(fake, tmp_path, event, payload, inputs)
    assert [(w, j) for w, j, _ in steps] == [("review-coordinator", "judge")]
    run = steps[0][2]
    assert run is not None and run.returncode == 0, run.log if run else ""
    assert fake.statuses(HEAD)[-1]["state"] == "success"


def test_a_same_repository_pr_judges_on_its_own_event(fake: FakeGitHub, tmp_path: Path) -> None:
    fake.add_pull(2, head_sha=HEAD)
    fake.add_review(2, login=CURSOR, body=cursor_clean(HEAD), commit_id=HEAD)
    steps = deliver(fake, tmp_path, "pull_request", wf.pull_request("opened"), {})
    assert [(w, j) for w, j, _ in steps] == [("review-coordinator", "judge")]
    assert fake.statuses(HEAD)[-1]["state"] == "success"
    # Its completion starts the relay too, which judges nothing (the run could write).
    relay = wf.relay_event("pull_request", wf.pull_request("opened"))
    assert wf.job_for("workflow_run", relay) is None


def test_dependabots_pr_is_published_by_the_relay(fake: FakeGitHub, tmp_path: Path) -> None:
    fake.add_pull(2, head_sha=HEAD, author="dependabot[bot]", author_type="Bot")
    payload = wf.pull_request("synchronize", actor="dependabot[bot]")
    steps = deliver(fake, tmp_path, "pull_request", payload, {"expected-bots": ""})
    assert [(w, j) for w, j, _ in steps] == [
        ("review-coordinator", "hand-over"),
        ("review-coordinator relay", "judge"),
    ]
    assert fake.statuses(HEAD)[-1]["state"] == "success"


def test_a_fork_cannot_point_the_relay_at_another_forks_pr(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    """Two forks with a branch of the same name: the relay of `mallory`'s run finds mallory's
    PR by its owner and branch, never `contributor`'s; with no open PR of its own, nothing."""
    fork_pr(fake)
    relay = wf.relay_event("pull_request", fork_payload("pull_request"))
    relay["workflow_run"]["head_repository"]["full_name"] = "mallory/app"
    relay["workflow_run"]["head_repository"]["owner"]["login"] = "mallory"
    run = run_action(fake, tmp_path, event="workflow_run", payload=relay, token=WRITE_TOKEN)
    assert run.returncode == 0, run.log
    assert "no open pull request has head mallory:feature-2" in run.log
    assert stickies(fake) == [] and fake.statuses(HEAD) == []
    # Control: mallory's own PR from that branch is the one judged.
    fake.add_pull(3, head_sha="c" * 40, head_repo="mallory/app", author="mallory")
    fake._pulls[3]["head"]["ref"] = "feature-2"  # same branch name, another fork
    fake._pulls[3]["head"]["label"] = "mallory:feature-2"
    run = run_action(fake, tmp_path / "2", event="workflow_run", payload=relay, token=WRITE_TOKEN)
    assert run.returncode == 0 and "#3 has head mallory:feature-2" in run.log
    assert fake.statuses("c" * 40) and fake.statuses(HEAD) == []
