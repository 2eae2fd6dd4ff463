"""reviewcoord.preflight: the container's uid cannot write the runner's files -> stop, say why.

The real thing (uid 1001 in the image, files of another uid) is in tests/test_container.py; these
tests run as any user, so write access is simulated through os.access and os.getuid.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from reviewcoord import preflight


def _env(tmp_path: Path) -> dict[str, str]:
    out = tmp_path / "set_output_x"
    summary = tmp_path / "step_summary_x"
    out.touch()
    summary.touch()
    return {
        "GITHUB_ACTIONS": "true",
        "GITHUB_OUTPUT": str(out),
        "GITHUB_STEP_SUMMARY": str(summary),
        "RUNNER_TEMP": "/home/runner/work/_temp",
    }


def _container(tmp_path: Path) -> Path:
    """A stand-in for the container's / with the runner's /github/home mount (legacy layout)."""
    root = tmp_path / "root"
    (root / "github" / "home").mkdir(parents=True)
    return root


def test_all_writable_is_quiet(tmp_path: Path) -> None:
    env = _env(tmp_path)
    assert preflight.unwritable(env, root=_container(tmp_path)) == []
    assert preflight.unwritable(env, root=tmp_path / "not-a-container") == []


def test_reports_each_unwritable_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env = _env(tmp_path)
    root = _container(tmp_path)
    home = root / "github" / "home"
    blocked = {env["GITHUB_OUTPUT"], str(home)}
    monkeypatch.setattr(preflight.os, "access", lambda p, mode: str(p) not in blocked)
    problems = preflight.unwritable(env, root=root)
    assert len(problems) == 2
    assert problems[0].startswith(f"GITHUB_OUTPUT ({env['GITHUB_OUTPUT']}): owner uid ")
    assert re.search(r", mode 0[0-7]{3}$", problems[0]), problems[0]
    # /github/home/review-coordinator does not exist yet: its parent, the mount, is what counts
    assert problems[1].startswith(f"the verdict file's folder {home}: ")
    text = preflight.message(problems, uid=1001)
    assert "runs as uid 1001" in text and "Runners whose user is not uid 1001" in text


def test_missing_file_checks_its_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env = {"GITHUB_ACTIONS": "true", "GITHUB_OUTPUT": str(tmp_path / "not-yet")}
    monkeypatch.setattr(preflight.os, "access", lambda p, mode: Path(p) != tmp_path)
    [problem] = preflight.unwritable(env, root=tmp_path / "absent")
    assert f"({tmp_path / 'not-yet'}): owner uid" in problem


def test_check_prints_an_error_annotation_and_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    env = _env(tmp_path)
    monkeypatch.setattr(preflight.os, "getuid", lambda: 1001)
    monkeypatch.setattr(preflight.os, "access", lambda p, mode: False)
    assert preflight.check(env) == preflight.EXIT_CANNOT_WRITE == 2
    line = capsys.readouterr().out
    assert line.startswith("::error title=review-coordinator cannot write its outputs::")
    assert line.count("\n") == 1  # one workflow command, newlines escaped


def test_check_is_silent_outside_actions_and_as_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = _env(tmp_path)
    monkeypatch.setattr(preflight.os, "access", lambda p, mode: False)
    assert preflight.check({**env, "GITHUB_ACTIONS": ""}) is None
    monkeypatch.setattr(preflight.os, "getuid", lambda: 0)
    assert preflight.check(env) is None
