"""End to end: Copilot's overview v2 through entrypoint.py against the fake GitHub (issue 16).

With `require-bots: copilot`, a v2 review on the head is Copilot's review (never `not_seen`):
its Open badge makes the linked inline thread critical (block), a clean v2 review gives go, and
the quota review is `failed` (unreviewed, block by name)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e_support import (
    COPILOT,
    COPILOT_REVIEWER,
    HEAD,
    body,
    run_action,
    stickies,
    verdict_of,
)
from tests.fakegithub import FakeGitHub

pytestmark = pytest.mark.e2e

INPUTS = {
    "settle": "fast",
    "fast-timeout": "20",
    "full-timeout": "40",
    "expected-bots": "copilot",
    "require-bots": "copilot",
}
UNREADABLE = "## Copilot review, layout v3\n\nSomething new Copilot says about this PR."
LINKED = "4056541956"  # the thread N4_cop_pc4r3_review's Open list links


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as gh:
        gh.add_pull(2, head_sha=HEAD)
        yield gh


def judged(fake: FakeGitHub, tmp_path: Path, review: str, state: str) -> dict[str, Any]:
    """The verdict of a run after Copilot's review `review` on the head; Copilot in `state`."""
    fake.add_review(2, login=COPILOT_REVIEWER, body=review, commit_id=HEAD)
    run = run_action(fake, tmp_path, inputs=INPUTS)
    assert run.returncode == 0, run.log
    verdict = verdict_of(run)
    assert verdict["bots"]["copilot"]["state"] == state
    return verdict


def high_finding(fake: FakeGitHub) -> str:
    """Copilot's inline comment (no level of its own) on the head. → the v2 overview whose
    Open list marks it High."""
    inline = fake.add_review_comment(
        2,
        login=COPILOT,
        body=body("N4_cop_pc4r3_inline165"),
        path="src/lib/memory-store.ts",
        line=165,
        commit_id=HEAD,
    )
    return body("N4_cop_pc4r3_review").replace(LINKED, str(inline["id"]))


def test_v2_open_badge_blocks_on_its_inline_thread(fake: FakeGitHub, tmp_path: Path) -> None:
    overview = high_finding(fake)
    verdict = judged(fake, tmp_path, overview, "reviewed")
    assert verdict["gate"] == "block"
    (group,) = verdict["critical"]
    assert group["title"] == "Reject duplicate relationships for the same ordered parent/child pair"


def test_control_v2_clean_review_gives_go(fake: FakeGitHub, tmp_path: Path) -> None:
    verdict = judged(fake, tmp_path, body("N4_cop_cargo11_green"), "reviewed")
    assert verdict["gate"] == "go" and verdict["pending"] == []


def test_v2_previously_missed_item_is_a_finding(fake: FakeGitHub, tmp_path: Path) -> None:
    verdict = judged(fake, tmp_path, body("N4_cop_pi_missed"), "reviewed")
    (group,) = verdict["advisory"]
    assert (group["file"], group["line"]) == ("orchestrate.py", 211)


def test_quota_review_is_failed_and_blocks_by_name(fake: FakeGitHub, tmp_path: Path) -> None:
    verdict = judged(fake, tmp_path, body("N4_cop_quota"), "failed")
    assert verdict["unreviewed"] == ["copilot"]
    assert verdict["gate"] == "block"
    assert verdict["critical"] == [] and verdict["advisory"] == []


# A format change is loud: a review no rule reads is `unreadable` (tests/test_unreadable.py);
# its control is test_control_v2_clean_review_gives_go.
def test_e2e_unreadable_in_verdict_sticky_and_check_run(fake: FakeGitHub, tmp_path: Path) -> None:
    verdict = judged(fake, tmp_path, UNREADABLE, "unreadable")
    assert verdict["gate"] == "block"
    (sticky,) = stickies(fake)
    # One state entry quoting its first line (issue 25), never also a finding.
    said = 'cannot read: "Copilot review, layout v3" (format changed?)'
    assert f"❓ Copilot posted a review this version {said}" in sticky["body"]
    assert verdict["critical"] == [] and verdict["advisory"] == []
    (check,) = [c for c in fake.check_runs(HEAD) if c["name"] == "review-coordinator"]
    assert said in check["output"]["summary"]


# A thread mark counts only from a review body nobody but Copilot edited: REST gives a review
# no edit time, so the body's GraphQL edit history is read for the reviews that carry marks;
# edited by someone else, its inline findings gate at critical (their badge is unknown).
OPEN_LIST = "<summary><strong>Open (1)</strong></summary>"
RESOLVED_LIST = "<summary><strong>Resolved since last review (1)</strong></summary>"


@pytest.mark.parametrize(
    ("editor", "editor_type", "gate"),
    [("octocat", "User", "block"), ("copilot-pull-request-reviewer", "Bot", "go")],
    ids=["edited-by-the-pr-author", "control-copilots-own-edit"],
)
def test_a_resolved_list_edited_into_copilots_review_by_someone_else_is_ignored(
    fake: FakeGitHub, tmp_path: Path, editor: str, editor_type: str, gate: str
) -> None:
    overview = high_finding(fake)
    review = fake.add_review(2, login=COPILOT_REVIEWER, body=overview, commit_id=HEAD)
    # The high finding's thread moved to the resolved list, by the PR author or by Copilot.
    resolved = overview.replace(OPEN_LIST, RESOLVED_LIST)
    fake.edit_review(int(review["id"]), resolved, editor=editor, editor_type=editor_type)
    run = run_action(fake, tmp_path, inputs=INPUTS)
    verdict = verdict_of(run)
    assert verdict["gate"] == gate, run.log
    if gate == "block":
        # Its badge is unknown now: the finding gates at critical, and the sticky says why.
        (group,) = verdict["critical"]
        assert (group["file"], group["line"]) == ("src/lib/memory-store.ts", 165)
        notes = [n["note"] for n in verdict["parse_notes"]]
        assert any("not taken from this comment" in n and "@octocat" in n for n in notes)
        assert any(n.startswith("kept at critical") for n in notes)
