"""Issue 23's routes 11 and 12, end to end (`python entrypoint.py` against the fake GitHub, one
fresh process per run, state only in our sticky), each beside its control: the same input
without the hazard behaves as it should.

* Route 11 — a late critical is demoted. Convergence mode judges the push that could have caused
  a finding: the range since the last head *that bot* reviewed (the whole PR for its first
  review), only changes-requested cycles count, a file-less critical is never exempt, and an
  exemption is decided again each cycle.
* Route 12 — line numbers drift. A recorded finding's lines travel through each compare between
  judged heads; an edit at its old numbers is not at it, and a compare without a patch is no
  evidence at all.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reviewcoord.history import History, decode
from tests.e2e_support import (
    CLAUDE,
    CODEX,
    CURSOR,
    HEAD,
    NEW_HEAD,
    Run,
    body,
    cursor_clean,
    run_action,
    stickies,
    verdict_of,
)
from tests.fakegithub import FakeGitHub

pytestmark = pytest.mark.e2e

H3 = "c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6"
H4 = "d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f607"
BUG_COMMIT = "16bb91031364200d101c932819f3101bf4285770"  # the commit in Bugbot's real body
FILES = ["README.md", "src/auth.py", "src/db.py"]
CURSOR_REQUIRED = {"expected-bots": "cursor", "require-bots": "cursor"}


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as gh:
        gh.add_pull(2, head_sha=HEAD)
        gh.set_commit_files(HEAD, FILES)
        gh.enable_graphql()
        gh.set_permission("mona", "write")
        yield gh


class Runs:
    def __init__(self, fake: FakeGitHub, tmp: Path, inputs: dict[str, str]) -> None:
        self.fake, self.tmp, self.inputs, self.n = fake, tmp, inputs, 0

    def __call__(self) -> dict[str, Any]:
        self.n += 1
        run: Run = run_action(self.fake, self.tmp / str(self.n), inputs=dict(self.inputs))
        return verdict_of(run, exit_ok=True)


def record(fake: FakeGitHub) -> History:
    (sticky,) = stickies(fake)
    history, notice = decode(sticky["body"], repo=fake.repo, pr=2)
    assert notice is None and history is not None
    return history


def bugbot_critical(
    fake: FakeGitHub, head: str, path: str, line: int, start: int | None = None
) -> dict[str, Any]:
    """Bugbot's real High-severity finding (its BUGBOT_BUG_ID stays one finding), for `head`."""
    text = body("C_jdx12718_lock156").replace(BUG_COMMIT, head)
    return fake.add_review_comment(
        2, login=CURSOR, body=text, path=path, line=line, start_line=start, commit_id=head
    )


def bugbot_clean(fake: FakeGitHub, head: str) -> None:
    fake.add_review(2, login=CURSOR, body=cursor_clean(head), commit_id=head)


# --- route 11: a late critical is demoted ---------------------------------------------------


def test_pending_blocks_are_not_changes_requested_and_a_late_critical_blocks(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    """The issue's reproduction: `require-bots: cursor`, two README-only pushes judged while
    Bugbot is slow, then its first critical on src/auth.py on head 3."""
    run = Runs(fake, tmp_path, CURSOR_REQUIRED)
    assert run()["gate"] == "block"  # Bugbot pending
    fake.push(2, NEW_HEAD, ["README.md"])
    assert run()["gate"] == "block"  # Bugbot pending
    fake.push(2, H3, ["README.md"])
    bugbot_critical(fake, H3, "src/auth.py", 20)
    v = run()
    assert v["gate"] == "block" and [f["file"] for f in v["critical"]] == ["src/auth.py"]
    assert v["convergence"]["active"] is False and v["convergence"]["block_cycles"] == 0


def converging_with_a_slow_bugbot(fake: FakeGitHub, run: Runs, *, bugbot_early: bool) -> None:
    """Two changes-requested cycles (Codex's P1 on src/db.py), a maintainer accepting it after
    the second; Bugbot either reviewed both heads clean (`bugbot_early`) or is only now
    reviewing for the first time. Head 3 changes README.md only."""
    fake.add_review_comment(
        2, login=CODEX, body=body("Z25"), path="src/db.py", line=10, commit_id=HEAD
    )
    if bugbot_early:
        bugbot_clean(fake, HEAD)
    assert run()["gate"] == "block"
    fake.push(2, NEW_HEAD, ["README.md"])
    if bugbot_early:
        bugbot_clean(fake, NEW_HEAD)
    assert run()["gate"] == "block"
    fake.add_issue_comment(
        2,
        login="mona",
        user_type="User",
        body="/review-coordinator accept F1 follow-up #12: the P1 lands with the pool rework",
    )
    fake.push(2, H3, ["README.md"])
    bugbot_critical(fake, H3, "src/auth.py", 20)


def test_a_bots_first_critical_is_judged_against_the_whole_pr(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    run = Runs(fake, tmp_path, CURSOR_REQUIRED)
    converging_with_a_slow_bugbot(fake, run, bugbot_early=False)
    v = run()
    assert v["convergence"]["active"] and v["convergence"]["block_cycles"] == 2
    assert v["gate"] == "block", v["gate_reason"]
    (f,) = v["critical"]
    assert f["file"] == "src/auth.py" and f["severity_adjustment"] is None
    assert v["convergence"]["exempted"] == []


def test_control_a_critical_its_bots_latest_push_did_not_touch_is_let_through(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    """Bugbot reviewed heads 1 and 2: its latest push (2→3) changed README.md only, so its new
    critical on src/auth.py is adjacent hardening (the design's words), shown at medium."""
    run = Runs(fake, tmp_path, CURSOR_REQUIRED)
    converging_with_a_slow_bugbot(fake, run, bugbot_early=True)
    v = run()
    assert v["gate"] == "go" and v["critical"] == [], v["gate_reason"]
    (f,) = v["advisory"]
    assert f["severity"] == "medium" and f["severity_adjustment"]["from_level"] == "critical"
    assert v["convergence"]["exempted"] == [f["id"]]
    reviewed = record(fake).reviewed or {}
    assert reviewed["cursor"] == [NEW_HEAD, H3]


def test_an_exemption_is_decided_again_when_its_bot_reports_it_after_its_file_changed(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    run = Runs(fake, tmp_path, CURSOR_REQUIRED)
    converging_with_a_slow_bugbot(fake, run, bugbot_early=True)
    assert run()["gate"] == "go"  # let through on head 3
    fake.push(2, H4, ["src/auth.py"])  # the author works in src/auth.py
    bugbot_critical(fake, H4, "src/auth.py", 24)  # Bugbot reports it again on head 4
    v = run()
    assert v["gate"] == "block" and [f["file"] for f in v["critical"]] == ["src/auth.py"]
    assert v["convergence"]["exempted"] == []


def test_control_an_exemption_stands_while_its_bots_pushes_leave_its_file_alone(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    run = Runs(fake, tmp_path, CURSOR_REQUIRED)
    converging_with_a_slow_bugbot(fake, run, bugbot_early=True)
    assert run()["gate"] == "go"
    fake.push(2, H4, ["README.md"])
    bugbot_critical(fake, H4, "src/auth.py", 20)
    v = run()
    assert v["gate"] == "go" and len(v["convergence"]["exempted"]) == 1


def claude_critical(where: str) -> str:
    """Claude's review layout with a 🔴 Critical section (as issue 15's tests read it)."""
    return (
        "## Code Review\n\n### 🔴 Critical Issues\n\n"
        f"#### 1. Session tokens are never rotated{where}\n"
        "The login flow keeps the first token for the whole session.\n"
    )


def converging_with_claude(fake: FakeGitHub, run: Runs, where: str) -> dict[str, Any]:
    """Two changes-requested cycles with Claude reviewing each head clean, an acceptance, then
    Claude's critical on head 3 (a README-only push)."""
    fake.add_review_comment(
        2, login=CODEX, body=body("Z25"), path="src/db.py", line=10, commit_id=HEAD
    )
    fake.add_review(2, login=CLAUDE, body=body("L_cca1078_lgtm"), commit_id=HEAD)
    assert run()["gate"] == "block"
    fake.push(2, NEW_HEAD, ["README.md"])
    fake.add_review(2, login=CLAUDE, body=body("L_cca1078_lgtm"), commit_id=NEW_HEAD)
    assert run()["gate"] == "block"
    fake.add_issue_comment(
        2, login="mona", user_type="User", body="/review-coordinator accept F1 wontfix: known"
    )
    fake.push(2, H3, ["README.md"])
    fake.add_review(2, login=CLAUDE, body=claude_critical(where), commit_id=H3)
    return run()


CLAUDE_ONLY = {"expected-bots": "claude"}


def test_a_critical_with_no_file_is_never_exempt(fake: FakeGitHub, tmp_path: Path) -> None:
    v = converging_with_claude(fake, Runs(fake, tmp_path, CLAUDE_ONLY), "")
    assert v["convergence"]["active"], v["gate_reason"]
    assert v["gate"] == "block"
    (f,) = v["critical"]
    assert f["file"] is None and f["severity_adjustment"] is None


def test_control_the_same_critical_naming_a_file_outside_the_push_is_let_through(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    v = converging_with_claude(fake, Runs(fake, tmp_path, CLAUDE_ONLY), " in `src/auth.py:20`")
    assert v["gate"] == "go", v["gate_reason"]
    (f,) = v["advisory"]
    assert f["file"] == "src/auth.py" and f["severity_adjustment"]["to_level"] == "medium"


# --- route 12: line numbers drift -----------------------------------------------------------

CURSOR_ONLY = {"expected-bots": "cursor"}
INSERT_100_ABOVE = "@@ -10,0 +11,100 @@\n" + "+# added\n" * 100


def edit(first: int) -> str:
    """A patch rewriting six lines from `first` (old-side numbering)."""
    return f"@@ -{first},6 +{first},6 @@\n" + "-old\n" * 6 + "+new\n" * 6


def finding_moved_by_100_lines(fake: FakeGitHub, run: Runs, *, patch: bool = True) -> None:
    """Bugbot's critical at src/db.py:50–52 on head 1; head 2 inserts 100 lines above it
    (with its patch, or none: a binary or too large diff); Bugbot reviews head 2 clean."""
    bugbot_critical(fake, HEAD, "src/db.py", 52, start=50)
    assert run()["gate"] == "block"
    assert record(fake).findings[0].span == (50, 52)
    fake.push(2, NEW_HEAD, ["src/db.py"])
    if patch:
        fake.set_patch(NEW_HEAD, "src/db.py", INSERT_100_ABOVE)
    bugbot_clean(fake, NEW_HEAD)
    v = run()
    assert v["gate"] == "block" and v["critical"][0]["carried_forward"]
    assert record(fake).findings[0].span == ((150, 152) if patch else None)


def push_editing(fake: FakeGitHub, first: int) -> None:
    fake.push(2, H3, ["src/db.py"])
    fake.set_patch(H3, "src/db.py", edit(first))
    bugbot_clean(fake, H3)


def test_an_edit_at_a_findings_old_line_numbers_is_not_a_fix(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    run = Runs(fake, tmp_path, CURSOR_ONLY)
    finding_moved_by_100_lines(fake, run)
    push_editing(fake, 48)  # lines 48–53 of head 2: 100 lines above the finding
    v = run()
    assert v["gate"] == "block" and v["critical"][0]["carried_forward"]
    assert not [c for c in v["changes"] if c["change"] == "likely_fixed"]
    assert record(fake).findings[0].span == (150, 152)


def test_control_an_edit_where_the_finding_moved_to_is_likely_fixed(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    run = Runs(fake, tmp_path, CURSOR_ONLY)
    finding_moved_by_100_lines(fake, run)
    push_editing(fake, 148)  # lines 148–153 of head 2: the finding's lines
    v = run()
    assert v["gate"] == "go", v["gate_reason"]
    (change,) = v["changes"]
    assert change["change"] == "likely_fixed"
    assert change["note"].startswith("a push since its bot reported it changed the lines")


def test_a_compare_without_a_patch_is_no_evidence_for_the_finding(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    """Head 2 changes src/db.py but GitHub gives no patch: where the finding went is unknown, so
    head 3's edit at 148–153 is no evidence either, until Bugbot states it again."""
    run = Runs(fake, tmp_path, CURSOR_ONLY)
    finding_moved_by_100_lines(fake, run, patch=False)
    push_editing(fake, 148)
    v = run()
    assert v["gate"] == "block" and v["critical"][0]["carried_forward"]
    assert v["changes"] == []
