"""Issue 23's routes to a `go` for a head nobody reviewed, end to end (`python entrypoint.py`
against the fake GitHub), each beside its control: the same input without the attack behaves
as it should. A signal binds to a head only by GitHub's facts about that head
(reviewcoord/binding.py); the head arrived when it became *this PR's* head
(reviewcoord/arrival.py); an edit never makes a signal newer; code scanning is complete or
pending; a bot's bare URL never becomes a link in our sticky."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e_support import (
    CLAUDE,
    CLAUDE_WORKING,
    CODEX,
    COPILOT_REVIEWER,
    HEAD,
    NEW_HEAD,
    all_clean,
    body,
    claude_tracker,
    run_action,
    stickies,
    verdict_of,
)
from tests.fakegithub import FakeGitHub
from tests.fakegithub.code_scanning import JAVASCRIPT, PYTHON

pytestmark = pytest.mark.e2e

# Shares HEAD's first ten hex: the seven of Codex's tracker and the ten of its review body.
# Ground in seconds for seven, in hours for ten; a test needs no grinding.
GROUND = HEAD[:10] + "f" * 30
CODEX_ONLY = {"expected-bots": "codex"}
CODEX_REQUIRED = {"expected-bots": "codex", "require-bots": "codex"}
CLAUDE_REQUIRED = {"expected-bots": "claude", "require-bots": "claude"}
PATCH = "@@ -8,5 +8,5 @@\n-a\n+b"  # lines 8-12: the P1's line 10


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as gh:
        gh.add_pull(2, head_sha=HEAD)
        gh.set_commit_files(HEAD, ["src/app.py"])
        yield gh


def tracker_text(sha: str) -> str:
    """Codex's real status tracker (asic-rs#381), naming `sha` by its first seven hex."""
    return body("N3_codex_status_asic381_propened").replace("8777ef4", sha[:7])


def codex_p1(fake: FakeGitHub, sha: str) -> int:
    """Codex's real review of `sha`: its wrapper ("Reviewed commit" with ten hex), its P1 at
    src/app.py:10 and its tracker naming the commit. → the tracker's id."""
    wrapper = body("X_agogo65_review").replace("a12de3c7f9", sha[:10])
    review = fake.add_review(2, login=CODEX, body=wrapper, commit_id=sha)
    fake.add_review_comment(
        2,
        login=CODEX,
        body=body("X_agogo65_inline"),
        path="src/app.py",
        line=10,
        commit_id=sha,
        review_id=review["id"],
    )
    return int(fake.add_issue_comment(2, login=CODEX, body=tracker_text(sha))["id"])


def codex_asked_and_clean(fake: FakeGitHub, sha: str, tracker: int | None = None) -> None:
    """Codex asked to review `sha`: its tracker (edited in place) names it, then its clean
    verdict and 👍 land."""
    if tracker is None:
        fake.add_issue_comment(2, login=CODEX, body=tracker_text(sha))
    else:
        fake.edit_issue_comment(tracker, tracker_text(sha))
    fake.add_issue_comment(2, login=CODEX, body=body("X_clean_swish"))
    fake.add_reaction(2, "+1", login=CODEX)


def codex_state(run: Any) -> str:
    return str(verdict_of(run)["bots"]["codex"]["state"])


# --- route 1: a prefix names the head ---------------------------------------------------


def test_route1_a_ground_prefix_does_not_carry_codexs_review_to_the_new_head(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    tracker = codex_p1(fake, HEAD)
    assert run_action(fake, tmp_path / "1", inputs=CODEX_ONLY).outputs["gate"] == "block"
    fake.push(2, GROUND, ["src/app.py"])
    fake.set_patch(GROUND, "src/app.py", PATCH)
    fake.edit_issue_comment(tracker, tracker_text(HEAD))  # Codex's tracker, touched after it
    run = run_action(fake, tmp_path / "2", inputs=CODEX_ONLY)
    v = verdict_of(run)
    assert v["head_sha"] == GROUND and codex_state(run) != "reviewed", run.log
    assert run.outputs["gate"] == "block" and v["critical"][0]["carried_forward"]
    assert not [c for c in v["changes"] if c["change"] == "likely_fixed"]


def test_route1_control_codexs_review_of_the_new_head_fixes_the_p1(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    tracker = codex_p1(fake, HEAD)
    run_action(fake, tmp_path / "1", inputs=CODEX_ONLY)
    fake.push(2, NEW_HEAD, ["src/app.py"])
    fake.set_patch(NEW_HEAD, "src/app.py", PATCH)
    codex_asked_and_clean(fake, NEW_HEAD, tracker)
    run = run_action(fake, tmp_path / "2", inputs=CODEX_ONLY)
    v = verdict_of(run)
    assert codex_state(run) == "reviewed" and run.outputs["gate"] == "go", run.log
    assert [c["change"] for c in v["changes"]] == ["likely_fixed"]


# --- route 2: an old head's verdict lands after the push --------------------------------


def test_route2_codexs_late_verdict_for_the_old_head_is_not_a_review_of_the_new_one(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    eyes = fake.add_reaction(2, "eyes", login=CODEX)  # Codex starts on HEAD
    assert run_action(fake, tmp_path / "1", inputs=CODEX_REQUIRED).outputs["gate"] == "block"
    fake.push(2, NEW_HEAD, ["src/app.py"])
    fake.remove_reaction(eyes)  # Codex finishes HEAD: 👀 goes, 👍 and its verdict come
    fake.add_reaction(2, "+1", login=CODEX)
    fake.add_issue_comment(2, login=CODEX, body=body("X_clean_swish"))
    run = run_action(fake, tmp_path / "2", inputs=CODEX_REQUIRED)
    assert verdict_of(run)["head_sha"] == NEW_HEAD and codex_state(run) == "not_seen", run.log
    assert run.outputs["gate"] == "block"


def test_route2_control_without_the_push_codexs_verdict_counts(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    eyes = fake.add_reaction(2, "eyes", login=CODEX)
    run_action(fake, tmp_path / "1", inputs=CODEX_REQUIRED)
    fake.remove_reaction(eyes)
    fake.add_reaction(2, "+1", login=CODEX)
    fake.add_issue_comment(2, login=CODEX, body=body("X_clean_swish"))
    run = run_action(fake, tmp_path / "2", inputs=CODEX_REQUIRED)
    assert codex_state(run) == "reviewed" and run.outputs["gate"] == "go", run.log


def test_route2_control_codex_asked_for_the_new_head_counts(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    eyes = fake.add_reaction(2, "eyes", login=CODEX)
    run_action(fake, tmp_path / "1", inputs=CODEX_REQUIRED)
    fake.push(2, NEW_HEAD, ["src/app.py"])
    fake.remove_reaction(eyes)
    codex_asked_and_clean(fake, NEW_HEAD)
    run = run_action(fake, tmp_path / "2", inputs=CODEX_REQUIRED)
    assert codex_state(run) == "reviewed" and run.outputs["gate"] == "go", run.log


# --- route 3: arrival time from another PR ----------------------------------------------


def test_route3_a_commit_first_pushed_to_another_pr_arrives_here_when_force_pushed(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    fake.add_pull(3, head_sha=NEW_HEAD)  # a throw-away PR: NEW_HEAD's suite is on its branch
    fake.add_issue_comment(2, login=CODEX, body=body("X_clean_swish"))  # Codex on HEAD, here
    fake.push(2, NEW_HEAD, ["src/app.py"], force=True)
    run = run_action(fake, tmp_path, inputs=CODEX_REQUIRED)
    assert verdict_of(run)["head_sha"] == NEW_HEAD and codex_state(run) == "not_seen", run.log
    assert run.outputs["gate"] == "block"


def test_route3_control_a_review_after_the_force_push_counts(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    fake.add_pull(3, head_sha=NEW_HEAD)
    fake.push(2, NEW_HEAD, ["src/app.py"], force=True)
    codex_asked_and_clean(fake, NEW_HEAD)
    run = run_action(fake, tmp_path, inputs=CODEX_REQUIRED)
    assert codex_state(run) == "reviewed" and run.outputs["gate"] == "go", run.log


def test_route3_our_check_run_judging_another_pr_does_not_date_the_fast_forward_here(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    fake.add_pull(3, head_sha=NEW_HEAD)  # NEW_HEAD (a child of HEAD) is first on PR 3
    pr3 = run_action(fake, tmp_path / "pr3", inputs={**CLAUDE_REQUIRED, "pr": "3"})
    assert verdict_of(pr3)["head_sha"] == NEW_HEAD  # our check run on NEW_HEAD, for PR 3
    claude_tracker(fake)  # Claude's run on PR 2, for HEAD, begun after that check run
    fake.push(2, NEW_HEAD, ["src/app.py"])  # a fast-forward: no suite on PR 2's branch
    run = run_action(fake, tmp_path / "pr2", inputs=CLAUDE_REQUIRED)
    v = verdict_of(run)
    assert v["head_sha"] == NEW_HEAD and v["bots"]["claude"]["state"] != "reviewed", run.log
    assert run.outputs["gate"] == "block"


def test_route3_control_our_check_run_for_this_pr_dates_the_fast_forward(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    fake.add_pull(3, head_sha=NEW_HEAD)
    run_action(fake, tmp_path / "pr3", inputs={**CLAUDE_REQUIRED, "pr": "3"})
    fake.push(2, NEW_HEAD, ["src/app.py"])
    first = run_action(fake, tmp_path / "pr2-1", inputs=CLAUDE_REQUIRED)  # ours, for PR 2
    assert first.outputs["gate"] == "block"  # no fact yet says when NEW_HEAD came here
    claude_tracker(fake)  # Claude's run on PR 2 begun after our check run for PR 2
    run = run_action(fake, tmp_path / "pr2-2", inputs=CLAUDE_REQUIRED)
    assert verdict_of(run)["bots"]["claude"]["state"] == "reviewed", run.log
    assert run.outputs["gate"] == "go"


# --- route 4: an edit re-dates an old clean review --------------------------------------


def test_route4_an_edit_by_someone_else_does_not_redate_claudes_old_review(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    lgtm = claude_tracker(fake)  # Claude reviewed HEAD
    assert run_action(fake, tmp_path / "1", inputs=CLAUDE_REQUIRED).outputs["gate"] == "go"
    fake.push(2, NEW_HEAD, ["src/app.py"])
    text = body("L_email_verificay3") + " "
    fake.edit_issue_comment(lgtm, text, editor="octocat", editor_type="User")  # the PR author
    run = run_action(fake, tmp_path / "2", inputs=CLAUDE_REQUIRED)
    v = verdict_of(run)
    assert v["head_sha"] == NEW_HEAD and v["bots"]["claude"]["state"] == "not_seen", run.log
    assert run.outputs["gate"] == "block"


def test_route4_a_working_tracker_edited_into_a_verdict_by_someone_else_is_no_review(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    stub = fake.add_issue_comment(2, login=CLAUDE, body=CLAUDE_WORKING)  # Claude's job starts
    fake.edit_issue_comment(
        int(stub["id"]), body("L_email_verificay3"), editor="octocat", editor_type="User"
    )
    run = run_action(fake, tmp_path, inputs=CLAUDE_REQUIRED)
    v = verdict_of(run)
    assert v["bots"]["claude"]["state"] != "reviewed" and run.outputs["gate"] == "block", run.log
    assert any("not counted as a review" in n["note"] for n in v["parse_notes"])


def test_route4_control_claudes_own_run_on_the_new_head_counts(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    claude_tracker(fake)
    run_action(fake, tmp_path / "1", inputs=CLAUDE_REQUIRED)
    fake.push(2, NEW_HEAD, ["src/app.py"])
    claude_tracker(fake)  # Claude's job on NEW_HEAD: its tracker begun after the push
    run = run_action(fake, tmp_path / "2", inputs=CLAUDE_REQUIRED)
    v = verdict_of(run)
    assert v["bots"]["claude"]["state"] == "reviewed" and run.outputs["gate"] == "go", run.log


# --- route 5: commit_id null ------------------------------------------------------------

COPILOT_REQUIRED = {"expected-bots": "copilot", "require-bots": "copilot"}


@pytest.mark.parametrize("found", [False, True], ids=["commit_id-null", "control-commit_id-head"])
def test_route5_a_review_whose_commit_github_did_not_find_is_not_on_the_head(
    fake: FakeGitHub, tmp_path: Path, found: bool
) -> None:
    fake.add_review(2, login=COPILOT_REVIEWER, body=body("Z12"), commit_found=found)
    run = run_action(fake, tmp_path, inputs=COPILOT_REQUIRED)
    state = verdict_of(run)["bots"]["copilot"]["state"]
    assert (state, run.outputs["gate"]) == (
        ("reviewed", "go") if found else ("not_seen", "block")
    ), run.log


# --- route 13: code scanning is complete or pending ---------------------------------------

SCANNED = {"expected-bots": "codex,copilot,cursor,claude"}


def scanned(fake: FakeGitHub) -> None:
    fake.set_file(".github/review-coordinator.yml", "main", "code-scanning: true\n")
    all_clean(fake)
    fake.add_base_analysis(PYTHON)
    fake.add_base_analysis(JAVASCRIPT)


def test_route13_one_category_of_two_analysed_is_pending_not_go(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    scanned(fake)
    fake.add_code_scanning_analysis(2, category=PYTHON)  # JavaScript still running
    run = run_action(fake, tmp_path, inputs=SCANNED)
    v = verdict_of(run)
    assert run.outputs["gate"] != "go" and "code-scanning" in v["unreviewed"], run.log
    assert "javascript" in v["bots"]["code-scanning"]["detail"]


def test_route13_control_every_category_analysed_is_go(fake: FakeGitHub, tmp_path: Path) -> None:
    scanned(fake)
    fake.add_code_scanning_analysis(2, category=PYTHON)
    fake.add_code_scanning_analysis(2, category=JAVASCRIPT)
    run = run_action(fake, tmp_path, inputs=SCANNED)
    assert run.outputs["gate"] == "go", run.log
    assert verdict_of(run)["bots"]["code-scanning"]["state"] == "reviewed"


@pytest.mark.parametrize(
    ("dismisser", "gate"), [("octocat", "block"), ("mona", "go")], ids=["pr-author", "control"]
)
def test_route13_an_alert_the_pr_author_dismissed_still_counts(
    fake: FakeGitHub, tmp_path: Path, dismisser: str, gate: str
) -> None:
    scanned(fake)
    fake.add_code_scanning_analysis(2, category=JAVASCRIPT)
    alert = fake.add_code_scanning_alert(2, security_severity_level="high", path="app/db.py")
    fake.set_code_scanning_alert_state(alert["number"], "dismissed", dismissed_by=dismisser)
    run = run_action(fake, tmp_path, inputs=SCANNED)
    v = verdict_of(run)
    assert run.outputs["gate"] == gate, run.log
    if gate == "block":
        (finding,) = v["critical"]
        assert finding["gist"].startswith("dismissed by the PR author")
        assert "dismissed by the PR author" in stickies(fake)[0]["body"]


# --- route 14: a bot's bare URL never autolinks in our sticky ----------------------------


def test_route14_bare_urls_in_a_bot_title_do_not_autolink(fake: FakeGitHub, tmp_path: Path) -> None:
    inline = body("X_agogo65_inline").replace(
        "Defer draining commands until their deadline buffer",
        "Fetch https://evil.example/login and www.evil.example first",
    )
    fake.add_review_comment(2, login=CODEX, body=inline, path="src/app.py", line=10)
    run = run_action(fake, tmp_path, inputs=CODEX_ONLY)
    assert run.outputs["gate"] == "block", run.log
    sticky = stickies(fake)[0]["body"]
    assert "https\u2060://evil.example/login" in sticky and "www\u2060.evil.example" in sticky
    assert "https://evil.example" not in sticky and "www.evil.example" not in sticky
    # Control: the finding's own link, which we write, stays a link to the bot's comment.
    assert "](https://github.com/octo/app/pull/2#discussion_r" in sticky
