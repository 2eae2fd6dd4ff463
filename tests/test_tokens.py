"""Tokens and identity: GITHUB_TOKEN, a personal access token, a GitHub App installation
token; markers in other people's comments; the token never leaks; fork PRs (read-only token).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.e2e_support import (
    CODEX,
    COPILOT,
    HEAD,
    MARKER,
    all_clean,
    body,
    run_action,
    stickies,
    writes,
)
from tests.fakegithub import APP_TOKEN, FakeGitHub
from tests.fault_matrix import run_once

ROOT = Path(__file__).resolve().parents[1]
PAT = "ghp_PersonalAccessToken0123456789abcdef"
APP = "ghs_InstallationToken0123456789abcdef"
FORK = "ghs_ReadOnlyForkToken0123456789abcdef"
SECRET = "ghs_SuperSecretToken0123456789abcdef"


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as gh:
        gh.add_pull(2, head_sha=HEAD)
        all_clean(gh)
        gh.add_token(PAT, "octo-dev", user_endpoint=True)
        gh.add_token(APP, "my-app[bot]", user_endpoint=False)
        gh.add_token(FORK, "github-actions[bot]", user_endpoint=False, read_only=True)
        gh.add_token(SECRET, "github-actions[bot]", user_endpoint=False)
        yield gh


def strangers(gh: FakeGitHub) -> list[dict[str, object]]:
    """Comments carrying our marker that are not ours: a human's and another App's."""
    return [
        gh.add_issue_comment(2, login="mallory", user_type="User", body=f"{MARKER}\nhuman"),
        gh.add_issue_comment(2, login="other-app[bot]", body=f"{MARKER}\nanother app"),
    ]


def new_nitpick(gh: FakeGitHub, i: int) -> None:
    """Something changed since the last run (so the run publishes again); the gate stays go."""
    gh.add_review_comment(2, login=COPILOT, body=body("Z59"), path=f"n{i}.py", line=1)


def untouched(gh: FakeGitHub, comments: list[dict[str, object]]) -> None:
    now = {c["id"]: c["body"] for c in gh.issue_comments(2)}
    for c in comments:
        assert now.get(c["id"]) == c["body"]
        assert not any(str(c["id"]) in w for w in writes(gh))


@pytest.mark.parametrize(
    ("token", "login"),
    [(APP_TOKEN, "github-actions[bot]"), (PAT, "octo-dev"), (APP, "my-app[bot]")],
    ids=["GITHUB_TOKEN", "PAT", "App"],
)
def test_one_sticky_per_identity_over_runs(fake: FakeGitHub, token: str, login: str) -> None:
    others = strangers(fake)
    ids, logs = [], []
    for i in range(3):
        new_nitpick(fake, i)
        outcome, log = run_once(fake, token)
        logs.append(log)
        assert outcome.gate == "go", log
        mine = [c for c in stickies(fake) if c["user"]["login"] == login]
        assert len(mine) == 1, mine
        ids.append(mine[0]["id"])
    assert len(stickies(fake)) == 3  # ours + the two strangers'
    untouched(fake, others)
    assert fake.statuses(HEAD)[-1]["state"] == "success"
    if token == PAT:  # a PAT cannot write check runs: warned, the status carries the gate
        assert fake.check_runs(HEAD) == []
        assert "only GitHub App tokens can" in logs[0]
    else:
        assert {c["conclusion"] for c in fake.check_runs(HEAD)} == {"success"}


@pytest.mark.parametrize(
    "token",
    [
        APP_TOKEN,
        PAT,
        APP,
    ],
    ids=["GITHUB_TOKEN", "PAT", "App"],
)
def test_second_run_edits_the_sticky_in_place(fake: FakeGitHub, token: str) -> None:
    run_once(fake, token)
    first = [c["id"] for c in stickies(fake)]
    new_nitpick(fake, 1)
    run_once(fake, token)
    assert [c["id"] for c in stickies(fake)] == first
    assert not any(w.startswith("DELETE") for w in writes(fake))


def test_token_never_leaks(fake: FakeGitHub, tmp_path: Path) -> None:
    """Error bodies that echo the token, on a read and on writes: it appears nowhere but in the
    `::add-mask::` command (which the runner swallows)."""
    fake.inject("POST", r"/issues/2/comments", status=422, body={"message": f"bad {SECRET}"})
    fake.inject("GET", r"/pulls/2/reviews", status=502, times=1, body=f"<p>{SECRET}</p>")
    fake.inject("PATCH", r"/check-runs/", status=500, times=100, body=f"x {SECRET} x")
    run = run_action(fake, tmp_path, token=SECRET)
    assert run.returncode == 3  # nothing could be published: gate error
    assert run.outputs["gate"] == "error"
    log_lines = [line for line in run.stdout.splitlines() if not line.startswith("::add-mask::")]
    haystacks = {
        "stdout": "\n".join(log_lines),
        "stderr": run.stderr,
        "outputs": json.dumps(run.outputs),
        "summary": run.summary,
        "verdict": Path(run.outputs["verdict-file"]).read_text(),
        "github": json.dumps([fake.issue_comments(2), fake.statuses(HEAD), fake.check_runs()]),
    }
    for name, text in haystacks.items():
        assert SECRET not in text, name
    assert f"::add-mask::{SECRET}" in run.stdout


# ------------------------------------------------------------------------------- fork PRs
def test_fork_pr_read_only_token_still_delivers_the_verdict(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    for i in range(14):  # more criticals than a step may annotate
        fake.add_review_comment(2, login=CODEX, body=body("Z25"), path=f"src/m{i}.rs", line=10)
    run = run_action(fake, tmp_path, token=FORK, inputs={"fail-on-block": "true"})
    assert run.returncode == 1 and run.outputs["gate"] == "block", run.log
    assert run.outputs["critical-count"] == "14"
    assert "Review verdict" in run.summary
    assert json.loads(Path(run.outputs["verdict-file"]).read_text())["gate"] == "block"
    # Nothing was written, and exactly one line says why, pointing to the README recipe.
    assert stickies(fake) == [] and fake.statuses(HEAD) == [] and fake.check_runs() == []
    why = [line for line in run.stdout.splitlines() if "read-only GITHUB_TOKEN" in line]
    assert len(why) == 1 and "troubleshooting" in why[0] and why[0].startswith("::warning")
    # Annotations: within GitHub's 10-per-step cap, the last one saying how many more.
    errors = [line for line in run.stdout.splitlines() if line.startswith("::error")]
    assert 1 <= len(errors) <= 10
    assert re.search(r"(\d+) more critical", errors[-1]), errors[-1]
    assert all("file=src/m" in e for e in errors[:-1])


def test_the_shipped_workflows_never_run_pr_code() -> None:
    """The user's workflows and the reusable one: no `run:` but the hand-over's `echo`, and the
    only checkout is the action's own source at the workflow's commit, never the PR's."""
    paths = [
        *sorted((ROOT / "examples/workflows").glob("*.yml")),
        ROOT / ".github/workflows/judge.yml",
    ]
    for path in paths:
        wf = yaml.safe_load(path.read_text(encoding="utf-8"))
        for name, job in wf["jobs"].items():
            for step in job.get("steps", []):
                if "run" in step:
                    assert name == "hand-over" and step["run"].startswith("echo "), step
                if "checkout" in str(step.get("uses", "")):
                    assert step["with"]["repository"] == "${{ job.workflow_repository }}"
                    assert step["with"]["ref"] == "${{ job.workflow_sha }}"
    text = (ROOT / "docs/troubleshooting.md").read_text(encoding="utf-8")
    assert "Never add a checkout of the\nPR's head" in text
