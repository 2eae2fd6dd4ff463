"""The CLI against the fake GitHub API: live verdict, dry run, and `snapshot` → `--replay`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e_support import CODEX, CURSOR, HEAD, ROOT, all_clean, body, stickies, writes
from tests.fakegithub import FakeGitHub
from tests.verdict_contract import check_verdict

pytestmark = pytest.mark.e2e
PAT = "ghp_clitesttoken"


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as gh:
        gh.add_pull(2, head_sha=HEAD)
        gh.add_token(PAT, "octo-dev", user_endpoint=True)
        all_clean(gh)
        gh.add_review_comment(2, login=CODEX, body=body("Z25"), path="src/t.rs", line=178)
        gh.add_review_comment(
            2, login=CURSOR, body=body("C_jdx12718_aur201"), path="src/t.rs", line=180
        )
        yield gh


def cli(
    fake: FakeGitHub, *args: str, token_var: str = "GITHUB_TOKEN"
) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "GITHUB_API_URL": fake.base_url,
        token_var: PAT,
        "REVIEWCOORD_WRITE_SPACING": "0",
    }
    return subprocess.run(
        [sys.executable, "-m", "reviewcoord.cli", *args],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_cli_prints_the_verdict_and_publishes(fake: FakeGitHub) -> None:
    # `both` (the default): the sticky body, a rule, then the JSON; and the sticky is posted.
    proc = cli(fake, "2", "--repo", "octo/app", "--settle", "none", "--publish")
    assert proc.returncode == 0, proc.stderr
    comment, _, json_text = proc.stdout.rpartition("\n---\n\n")
    assert comment.startswith("<!-- review-coordinator-verdict -->")
    verdict = json.loads(json_text)
    check_verdict(verdict)
    assert verdict["gate"] == "block" and verdict["critical"][0]["agreement"] == 2
    (sticky,) = stickies(fake)
    assert sticky["user"]["login"] == "octo-dev"
    assert fake.statuses(HEAD)[-1]["state"] == "failure"
    assert "only GitHub App tokens" in proc.stderr  # a PAT cannot write check runs
    assert PAT not in proc.stdout + proc.stderr
    assert "--publish: writing the sticky comment, commit status and check run" in proc.stderr
    assert "on octo/app#2 as octo-dev" in proc.stderr  # who it writes as, said first


def test_cli_without_publish_reads_prints_and_writes_nothing(fake: FakeGitHub) -> None:
    proc = cli(fake, "2", "--repo", "octo/app", "--settle", "none")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("<!-- review-coordinator-verdict -->")
    assert writes(fake) == [] and stickies(fake) == [] and fake.statuses(HEAD) == []
    assert "[dry-run]" not in proc.stderr  # quiet: no payloads printed
    assert "add --publish to write the verdict" in proc.stderr


def test_cli_format_json_never_changes_what_is_published(fake: FakeGitHub) -> None:
    proc = cli(fake, "2", "--repo", "octo/app", "--settle", "none", "--format", "json", "--publish")
    assert json.loads(proc.stdout)["gate"] == "block"
    assert len(stickies(fake)) == 1  # the sticky is written as without --format
    assert fake.statuses(HEAD)[-1]["state"] == "failure"


def test_cli_dry_run_and_publish_together_is_an_error(fake: FakeGitHub) -> None:
    proc = cli(fake, "2", "--repo", "octo/app", "--dry-run", "--publish")
    assert proc.returncode == 2 and "choose one" in proc.stderr
    assert writes(fake) == []


def test_cli_dry_run_writes_nothing_and_gh_token_works(fake: FakeGitHub) -> None:
    proc = cli(
        fake,
        "2",
        "--repo",
        "octo/app",
        "--settle",
        "none",
        "--format",
        "json",
        "--dry-run",
        token_var="GH_TOKEN",
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["gate"] == "block"
    assert writes(fake) == []
    assert "[dry-run] would POST commit status" in proc.stderr


def replay_of(path: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    """`reviewcoord 2 --replay PATH --format json FLAGS…` in a fresh process."""
    argv = [sys.executable, "-m", "reviewcoord.cli", "2", "--replay", str(path), "--format", "json"]
    return subprocess.run(
        [*argv, *flags], cwd=ROOT, capture_output=True, text=True, timeout=60, check=False
    )


def test_snapshot_round_trips_through_replay(fake: FakeGitHub, tmp_path: Path) -> None:
    snap = cli(fake, "snapshot", "2", "--repo", "octo/app")
    assert snap.returncode == 0, snap.stderr
    assert json.loads(snap.stdout)["format"] == 2
    assert "the snapshot holds every comment body of octo/app#2" in snap.stderr
    path = tmp_path / "pr.json"
    path.write_text(snap.stdout)
    live = cli(
        fake,
        "2",
        "--repo",
        "octo/app",
        "--settle",
        "none",
        "--format",
        "json",
        "--dry-run",
        "--expected-bots",
        "codex,copilot,cursor,claude",
    )
    replay = replay_of(path, "--expected-bots", "codex,copilot,cursor,claude")
    assert replay.returncode == 0, replay.stderr
    live_v, replay_v = json.loads(live.stdout), json.loads(replay.stdout)
    for key in ("critical", "advisory", "gate", "gate_reason", "unknown_bots", "head_sha"):
        assert live_v[key] == replay_v[key], key
    assert writes(fake) == []


def test_a_snapshot_keeps_the_whole_reading_checks_and_reactions_included(
    tmp_path: Path,
) -> None:
    """Greptile's only sign is its check run ("0 comments added"), Codex's its 👍: the live run
    and the replay of its snapshot read both as reviewed, from the same parts."""
    with FakeGitHub() as gh:
        gh.add_pull(2, head_sha=HEAD)
        gh.add_token(PAT, "octo-dev", user_endpoint=True)
        summary = "Greptile has reviewed the Pull Request.\n\n3 files reviewed, 0 comments added."
        gh.add_bot_check_run(
            HEAD, "Greptile Review", app_slug="greptile-apps", app_id=867647, summary=summary
        )
        gh.add_reaction(2, "+1", login=CODEX)
        snap = cli(gh, "snapshot", "2", "--repo", "octo/app")
        assert snap.returncode == 0, snap.stderr
        saved = json.loads(snap.stdout)
        assert [r["name"] for r in saved["check_runs"]] == ["Greptile Review"]
        assert [r["content"] for r in saved["reactions"]] == ["+1"]
        bots = ("--expected-bots", "greptile,codex")
        live = cli(gh, "2", "--repo", "octo/app", "--settle", "none", "--format", "json", *bots)
    path = tmp_path / "pr.json"
    path.write_text(snap.stdout)
    replay = replay_of(path, *bots)
    assert replay.returncode == 0, replay.stderr
    live_v, replay_v = json.loads(live.stdout), json.loads(replay.stdout)
    for verdict in (live_v, replay_v):
        assert verdict["bots"]["greptile"]["state"] == "reviewed"
        assert verdict["bots"]["codex"]["state"] == "reviewed"
        assert verdict["gate"] == "go" and verdict["pending"] == []


def test_cli_without_token_or_repo_is_a_clear_error(fake: FakeGitHub) -> None:
    env = {"PATH": "/nonexistent", "GITHUB_API_URL": fake.base_url}
    proc = subprocess.run(
        [sys.executable, "-m", "reviewcoord.cli", "2", "--repo", "octo/app"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2 and "no GitHub token" in proc.stderr
    proc = cli(fake, "2")
    assert proc.returncode == 2 and "--repo OWNER/NAME is required" in proc.stderr


def test_cli_unknown_pr_fails_closed(fake: FakeGitHub) -> None:
    proc = cli(fake, "99", "--repo", "octo/app", "--settle", "none")
    assert proc.returncode == 3  # no trustworthy verdict
    assert "no trustworthy verdict" in proc.stderr and "Traceback" not in proc.stderr
