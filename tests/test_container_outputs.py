"""The real image on both runner layouts for Docker container actions: the `verdict-file` it reports
opens on the host, as a later `run:` step of the job would open it, and holds what the `verdict`
output holds. Layouts (tests/container_support.py): "legacy" = runners before 2.331.0 (only
`<temp>/_github_home` mounted, RUNNER_TEMP the host path); "runner-temp" = 2.331.0 and later
(`<temp>` also mounted at /github/runner_temp, RUNNER_TEMP=/github/runner_temp)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.container_support import (
    LAYOUTS,
    BuiltImage,
    Layout,
    container_image,
    run_action_container,
)
from tests.e2e_support import CODEX, HEAD, PAYLOADS, all_clean, body
from tests.fakegithub import FakeGitHub
from tests.verdict_contract import check_verdict

pytestmark = pytest.mark.docker
__all__ = ["container_image"]  # the session fixture, imported for pytest


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as gh:
        gh.add_pull(2, head_sha=HEAD)
        all_clean(gh)
        gh.add_review_comment(2, login=CODEX, body=body("Z25"), path="src/typed_dict.rs", line=178)
        yield gh


def env(fake: FakeGitHub) -> dict[str, str]:
    return {
        "GITHUB_API_URL": fake.base_url,
        "GITHUB_REPOSITORY": fake.repo,
        "GITHUB_EVENT_NAME": "pull_request",
        "REVIEWCOORD_WRITE_SPACING": "0",
        "INPUT_GITHUB-TOKEN": "app-token",
        "INPUT_SETTLE": "none",
    }


@pytest.mark.parametrize("layout", LAYOUTS)
def test_verdict_file_opens_on_the_host_and_equals_the_verdict_output(
    container_image: BuiltImage, fake: FakeGitHub, tmp_path: Path, layout: Layout
) -> None:
    workdir = tmp_path / "workspace"
    workdir.mkdir()
    run = run_action_container(
        env(fake),
        event_path=PAYLOADS / "pull_request.opened.json",
        workdir=workdir,
        image=container_image.tag,
        layout=layout,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    outputs = run.outputs()
    assert outputs["gate"] == "block"
    line = outputs["verdict"]
    assert len(line.splitlines()) == 1 and line.isascii()
    verdict = json.loads(line)
    check_verdict(verdict)
    assert verdict["gate"] == "block" and verdict["head_sha"] == HEAD
    assert "truncated" not in verdict

    # As a host step: open the reported path as given, translating nothing.
    reported = outputs["verdict-file"]
    assert reported.startswith("/") and not reported.startswith("/github/"), reported
    assert json.loads(Path(reported).read_text(encoding="utf-8")) == verdict
    # The same place on both layouts: <runner temp>/_github_home/review-coordinator/.
    assert reported == str(run.runner_temp / "_github_home/review-coordinator/verdict-pr2.json")
    assert not any(workdir.iterdir())  # nothing left in the checkout
    assert outputs["unreviewed"] == ""
    assert outputs["critical-count"] == str(len(verdict["critical"]))


def test_runner_temp_mount_without_runner_workspace_uses_the_workspace(
    container_image: BuiltImage, fake: FakeGitHub, tmp_path: Path
) -> None:
    """2.331.0+ layout with no usable RUNNER_WORKSPACE: the host path of the temp directory is
    unknown, so the file goes into the workspace and `verdict-file` is relative to it (a `run:`
    step's default working directory)."""
    workdir = tmp_path / "workspace"
    workdir.mkdir()
    run = run_action_container(
        {**env(fake), "RUNNER_WORKSPACE": ""},
        event_path=PAYLOADS / "pull_request.opened.json",
        workdir=workdir,
        image=container_image.tag,
        layout="runner-temp",
    )
    assert run.returncode == 0, run.stdout + run.stderr
    outputs = run.outputs()
    assert outputs["verdict-file"] == ".review-coordinator/verdict-pr2.json"
    on_host = workdir / outputs["verdict-file"]  # cwd = GITHUB_WORKSPACE in a host step
    assert json.loads(on_host.read_text(encoding="utf-8")) == json.loads(outputs["verdict"])
    assert "::warning::verdict file written to the workspace" in run.stdout


def test_runner_temp_layout_plumbing(container_image: BuiltImage, tmp_path: Path) -> None:
    """run_action_container's 2.331.0+ layout, checked from Python in the image."""
    event = tmp_path / "event.json"
    event.write_text('{"action": "opened", "number": 7}')
    workdir = tmp_path / "workspace"
    workdir.mkdir()
    script = """
import os
env = os.environ
assert env["RUNNER_TEMP"] == "/github/runner_temp" and os.path.isdir("/github/runner_temp")
assert os.path.samefile("/github/runner_temp/_github_home", "/github/home")
assert os.path.isdir("/github/runner_temp/_runner_file_commands")
assert not os.path.exists(env["RUNNER_WORKSPACE"])  # a host path, untranslated
assert not env["RUNNER_WORKSPACE"].startswith("/github/")
"""
    run = run_action_container(
        {"GITHUB_EVENT_NAME": "pull_request"},
        event_path=event,
        workdir=workdir,
        image=container_image.tag,
        args=["-c", script],
        entrypoint="/opt/venv/bin/python3",
        layout="runner-temp",
    )
    assert run.returncode == 0, run.stderr
    assert run.runner_temp.name == "_temp"
    assert run.runner_workspace == run.runner_temp.parent / "app"
