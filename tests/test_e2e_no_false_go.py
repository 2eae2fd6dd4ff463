"""Issue 15's routes to a false `go`, end to end (`python entrypoint.py` against the fake
GitHub), each beside its control: the same input without the attack behaves as it should.

* Server time only: "posted on this head" for a comment without a commit id is measured
  against the time GitHub saw the head arrive (its check suite), never the commit's own date.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e_support import CLAUDE, HEAD, NEW_HEAD, Run, body, run_action
from tests.fakegithub import FakeGitHub
from tests.verdict_contract import check_verdict

pytestmark = pytest.mark.e2e

CLAUDE_ONLY = {"expected-bots": "claude", "require-bots": "claude"}
LONG_AGO = "2020-01-01T00:00:00Z"


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as gh:
        gh.add_pull(2, head_sha=HEAD)
        gh.set_commit_files(HEAD, ["src/app.py"])
        yield gh


def verdict_of(run: Run) -> dict[str, Any]:
    v = json.loads(Path(run.outputs["verdict-file"]).read_text())
    check_verdict(v)
    return v


def claude_clean(fake: FakeGitHub) -> None:
    """Claude's real clean tracker comment: an issue comment that names no commit."""
    fake.add_issue_comment(2, login=CLAUDE, body=body("L_email_verificay3"))


def test_a_commit_dated_in_the_past_does_not_inherit_claudes_clean_review(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    claude_clean(fake)  # Claude reviewed HEAD
    fake.push(2, NEW_HEAD, ["src/app.py"])
    fake.set_commit_date(NEW_HEAD, LONG_AGO)  # the pusher dates the new commit before it
    run = run_action(fake, tmp_path, inputs=CLAUDE_ONLY)
    v = verdict_of(run)
    assert v["head_sha"] == NEW_HEAD and v["bots"]["claude"]["state"] == "not_seen", run.log
    assert run.outputs["gate"] == "block" and "claude" not in v["settled_on"]


def test_control_a_claude_review_after_the_push_counts(fake: FakeGitHub, tmp_path: Path) -> None:
    fake.push(2, NEW_HEAD, ["src/app.py"])
    fake.set_commit_date(NEW_HEAD, LONG_AGO)
    claude_clean(fake)  # posted after NEW_HEAD arrived
    run = run_action(fake, tmp_path, inputs=CLAUDE_ONLY)
    v = verdict_of(run)
    assert v["bots"]["claude"]["state"] == "reviewed", run.log
    assert run.outputs["gate"] == "go" and v["settled_on"] == ["claude"]


def test_an_unknown_arrival_time_is_not_on_this_head(fake: FakeGitHub, tmp_path: Path) -> None:
    """No check suite on the head (GitHub's clock unknown): an undated comment does not count;
    the run's own check run then dates the head, and a comment after it counts."""
    fake.push(2, NEW_HEAD, ["src/app.py"])
    fake.forget_arrival(NEW_HEAD)
    claude_clean(fake)
    run = run_action(fake, tmp_path / "1", inputs=CLAUDE_ONLY)
    assert verdict_of(run)["bots"]["claude"]["state"] == "not_seen", run.log
    claude_clean(fake)  # after our check run on NEW_HEAD: GitHub's clock knows the head now
    again = run_action(fake, tmp_path / "2", inputs=CLAUDE_ONLY)
    assert verdict_of(again)["bots"]["claude"]["state"] == "reviewed", again.log
