"""The CLI's offline mode: replay a snapshot; clear one-line errors, exit 2, no traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from reviewcoord.cli import main
from tests.verdict_contract import check_verdict

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.json"))


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "reviewcoord.cli", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_example_replays_to_a_valid_verdict(path: Path) -> None:
    pr = json.loads(path.read_text())["pull"]["number"]
    proc = run(str(pr), "--replay", str(path), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    check_verdict(json.loads(proc.stdout))


def test_examples_cover_block_and_go() -> None:
    gates = set()
    for path in EXAMPLES:
        pr = json.loads(path.read_text())["pull"]["number"]
        gates.add(
            json.loads(run(str(pr), "--replay", str(path), "--format", "json").stdout)["gate"]
        )
    assert gates == {"block", "go"}


def test_comment_format_prints_the_sticky(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["12", "--replay", str(ROOT / "examples/pr-block.json"), "--format", "comment"]) == 0
    )
    out = capsys.readouterr().out
    assert out.startswith("<!-- review-coordinator-verdict -->\n")


def test_fail_on_block_sets_exit_code() -> None:
    proc = run(
        "12",
        "--replay",
        str(ROOT / "examples/pr-block.json"),
        "--format",
        "json",
        "--fail-on-block",
    )
    assert proc.returncode == 1


def test_explicit_expected_bots_make_missing_bot_pending() -> None:
    proc = run(
        "12",
        "--replay",
        str(ROOT / "examples/pr-block.json"),
        "--format",
        "json",
        "--expected-bots",
        "codex,claude[bot]",
    )
    v = json.loads(proc.stdout)
    assert v["pending"] == ["claude"] and "codex" in v["settled_on"]
    assert "still pending: claude" in v["gate_reason"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no such file"),
        ("{not json", "not valid JSON"),
        ("[]", "must be a JSON object"),
        ('{"format": 1, "repo": "octo/app"}', "missing key 'pull'"),
        ('{"format": 1, "repo": "octo/app", "pull": {"number": 1}}', "head.sha"),
        ('{"format": 1, "repo": "x", "pull": {}}', "'repo' must be"),
        (
            '{"format": 1, "repo": "o/r", "pull": {"number": 1, "head": {"sha": "a"}},'
            ' "reviews": {}}',
            "'reviews' must be a list",
        ),
        (
            '{"format": 1, "repo": "o/r", "pull": {"number": 1, "head": {"sha": "a"}},'
            ' "reviews": [{"id": "x"}]}',
            "reviews[0]",
        ),
        (
            '{"format": 1, "repo": "o/r", "pull": {"number": 1, "head": {"sha": "a"}},'
            ' "issue_comments": [{"id": 1, "body": 5}]}',
            "issue_comments[0]",
        ),
        ('{"repo": "o/r", "pull": {"number": 1, "head": {"sha": "a"}}}', "missing key 'format'"),
        ('{"format": 3, "repo": "o/r", "pull": {}}', "key 'format': version '3'"),
        ('{"format": "1", "repo": "o/r", "pull": {}}', "key 'format': version '1'"),
        ('{"format": true, "repo": "o/r", "pull": {}}', "key 'format'"),
        ('{"format": 1, "repo": "o/r", "pull": {}, "reveiws": []}', "unknown key 'reveiws'"),
        ('{"format": 1, "repo": "o/r", "pull": []}', "'pull' must be an object"),
        ('{"format": 1, "repo": "o/r", "pull": {}, "check_runs": 3}', "'check_runs' must be"),
        ("[" * 100_000, "JSON"),
    ],
)
def test_bad_snapshots_give_one_clear_line(
    tmp_path: Path, content: str | None, message: str
) -> None:
    path = tmp_path / "snap.json"
    if content is not None:
        path.write_text(content)
    proc = run("1", "--replay", str(path), "--format", "json")
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert message in lines[0]


def test_wrong_pr_number_and_bad_args() -> None:
    proc = run("99", "--replay", str(ROOT / "examples/pr-block.json"))
    assert proc.returncode == 2 and "not PR 99" in proc.stderr
    proc = run("abc", "--replay", "x.json")
    assert proc.returncode == 2 and "positive integer" in proc.stderr
    assert "Traceback" not in proc.stderr
    proc = run("1", "--replay", str(ROOT / "examples/pr-block.json"), "--expected-bots", "bogus")
    assert proc.returncode == 2 and "unknown bot 'bogus'" in proc.stderr


def test_verdict_file_lands_where_the_host_sees_it(tmp_path: Path) -> None:
    # Both runner layouts: tests/test_outputs.py.
    from reviewcoord.actions_io import verdict_location, write_verdict_file

    root = tmp_path / "container"
    (root / "github/home").mkdir(parents=True)
    env = {"RUNNER_TEMP": "/home/runner/work/_temp"}
    shown = write_verdict_file(verdict_location(env, 7, root=root), "{}")
    assert shown == "/home/runner/work/_temp/_github_home/review-coordinator/verdict-pr7.json"
    assert (root / "github/home/review-coordinator/verdict-pr7.json").read_text() == "{}"
    absent = tmp_path / "absent"
    plain = write_verdict_file(
        verdict_location({"RUNNER_TEMP": str(tmp_path)}, 7, root=absent), "{}"
    )
    assert plain == str(tmp_path / "review-coordinator/verdict-pr7.json")


def test_repo_with_replay_must_be_the_snapshots() -> None:
    sample = str(ROOT / "examples/pr-block.json")
    proc = run("12", "--replay", sample, "--repo", "other/repo", "--format", "json")
    assert proc.returncode == 2
    assert "--repo 'other/repo': the snapshot" in proc.stderr and "is of octo/app" in proc.stderr
    # Control: the snapshot's own repository (any case) is fine.
    same = run("12", "--replay", sample, "--repo", "Octo/App", "--format", "json")
    assert same.returncode == 0, same.stderr
    assert json.loads(same.stdout)["repo"] == "octo/app"


def test_the_examples_are_format_1() -> None:
    for path in sorted((ROOT / "examples").glob("*.json")):
        assert json.loads(path.read_text())["format"] == 1, path
