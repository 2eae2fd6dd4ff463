"""`--config-file` with `--replay`: a snapshot judged under a local copy of the repository's
config file — its declared reviewers, severity overrides and packs — as a live run would judge
it under the base branch's copy."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from reviewcoord import cli
from tests.declared_support import KILO_CONFIG, KILO_LOGIN

ROOT = Path(__file__).resolve().parents[1]


def snapshot_with_kilo(tmp_path: Path) -> Path:
    data: dict[str, Any] = json.loads((ROOT / "examples/pr-go.json").read_text(encoding="utf-8"))
    head = data["pull"]["head"]["sha"]
    user = {"login": KILO_LOGIN, "type": "Bot"}
    data["review_comments"].append(
        {
            "id": 9101,
            "user": user,
            "body": "**Critical** Token is logged in plain text\n\nThe token reaches the log.",
            "path": "src/auth.py",
            "line": 12,
            "original_line": 12,
            "commit_id": head,
            "original_commit_id": head,
            "created_at": "2026-11-20T10:09:00Z",
            "updated_at": "2026-11-20T10:09:00Z",
            "html_url": "https://github.com/octo/app/pull/34#discussion_r9101",
        }
    )
    data["reviews"].append(
        {
            "id": 9102,
            "user": user,
            "body": "## Review complete\n\n1 issue.",
            "state": "COMMENTED",
            "commit_id": head,
            "submitted_at": "2026-11-20T10:10:00Z",
            "html_url": "https://github.com/octo/app/pull/34#pullrequestreview-9102",
        }
    )
    path = tmp_path / "pr.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def replay(*args: str) -> tuple[int, dict[str, Any]]:
    out = io.StringIO()
    code = cli.main(["34", "--format", "json", *args], {}, out)
    return code, json.loads(out.getvalue()) if code == 0 else {}


def test_a_declared_reviewer_is_judged_in_a_replay_with_the_config_file(tmp_path: Path) -> None:
    config = tmp_path / "review-coordinator.yml"
    config.write_text(KILO_CONFIG, encoding="utf-8")
    snap = str(snapshot_with_kilo(tmp_path))
    code, verdict = replay("--replay", snap, "--config-file", str(config))
    assert code == 0
    assert verdict["gate"] == "block"
    (lead,) = verdict["critical"]
    assert lead["sources"][0]["bot"] == "kilo" and lead["sources"][0]["severity_raw"] == "Critical"
    assert verdict["bots"]["kilo"]["state"] == "reviewed"
    assert "kilo" in verdict["expected_bots"]
    # Without the file, the same bot is only seen, not judged.
    code, verdict = replay("--replay", snap)
    assert code == 0 and verdict["gate"] == "go"
    assert KILO_LOGIN in verdict["unknown_bots"]


def test_a_bad_config_file_is_a_usage_error_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "bad.yml"
    config.write_text("reviewers:\n  kilo:\n    logins: [x]\n    pack: medium\n", encoding="utf-8")
    snap = str(ROOT / "examples/pr-go.json")
    assert cli.main(["34", "--replay", snap, "--config-file", str(config)], {}, io.StringIO()) == 2
    assert f"{config}: line 4, key 'reviewers.kilo.pack'" in capsys.readouterr().err
    missing = str(tmp_path / "missing.yml")
    assert cli.main(["34", "--replay", snap, "--config-file", missing], {}, io.StringIO()) == 2
    assert "--config-file" in capsys.readouterr().err


def test_config_file_is_for_replays_only(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["34", "--repo", "o/r", "--config-file", "x.yml"], {}, io.StringIO()) == 2
    assert "only with --replay" in capsys.readouterr().err
