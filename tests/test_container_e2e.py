"""The real image, run like the Actions runner runs a Docker container action, against the fake
GitHub API on 127.0.0.1 with a real event payload: the end-to-end happy path, in its container."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.container_support import BuiltImage, container_image, run_action_container
from tests.e2e_support import CODEX, HEAD, PAYLOADS, all_clean, body, stickies
from tests.fakegithub import FakeGitHub
from tests.verdict_contract import check_verdict

pytestmark = pytest.mark.docker
__all__ = ["container_image"]  # the session fixture, imported for pytest


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as gh:
        gh.add_pull(2, head_sha=HEAD)
        yield gh


def env(fake: FakeGitHub, **inputs: str) -> dict[str, str]:
    values = {
        "GITHUB_API_URL": fake.base_url,
        "GITHUB_REPOSITORY": fake.repo,
        "GITHUB_EVENT_NAME": "pull_request",
        "REVIEWCOORD_WRITE_SPACING": "0",
        "INPUT_GITHUB-TOKEN": "app-token",
        "INPUT_SETTLE": "none",
    }
    values.update({f"INPUT_{k.upper()}": v for k, v in inputs.items()})
    return values


def test_container_happy_path(
    container_image: BuiltImage, fake: FakeGitHub, tmp_path: Path
) -> None:
    all_clean(fake)
    run = run_action_container(
        env(fake),
        event_path=PAYLOADS / "pull_request.opened.json",
        workdir=tmp_path,
        image=container_image.tag,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    outputs = run.outputs()
    assert outputs["gate"] == "go"
    assert outputs["settled-on"] == "codex,copilot,cursor,claude"
    assert [s["state"] for s in fake.statuses(HEAD)] == ["pending", "success"]
    (check,) = fake.check_runs(HEAD)
    assert (check["status"], check["conclusion"]) == ("completed", "success")
    (sticky,) = stickies(fake)
    assert outputs["comment-url"] == sticky["html_url"]
    # The verdict file is reported at the host path the next step can read.
    host_path = Path(outputs["verdict-file"])
    assert str(host_path).startswith(str(run.runner_temp / "_github_home"))
    verdict = json.loads(host_path.read_text())
    check_verdict(verdict)
    assert verdict["head_sha"] == HEAD
    assert "Review verdict" in run.summary()
    log = (run.stdout + run.stderr).replace("::add-mask::app-token", "")
    assert "app-token" not in log


def test_container_blocks_on_a_codex_p1(
    container_image: BuiltImage, fake: FakeGitHub, tmp_path: Path
) -> None:
    all_clean(fake)
    fake.add_review_comment(2, login=CODEX, body=body("Z25"), path="src/typed_dict.rs", line=178)
    run = run_action_container(
        env(fake, **{"fail-on-block": "true"}),
        event_path=PAYLOADS / "pull_request.opened.json",
        workdir=tmp_path,
        image=container_image.tag,
    )
    assert run.returncode == 1
    assert run.outputs()["gate"] == "block"
    assert fake.statuses(HEAD)[-1]["state"] == "failure"
