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


def test_v2_open_badge_blocks_on_its_inline_thread(fake: FakeGitHub, tmp_path: Path) -> None:
    inline = fake.add_review_comment(
        2,
        login=COPILOT,
        body=body("N4_cop_pc4r3_inline165"),
        path="src/lib/memory-store.ts",
        line=165,
        commit_id=HEAD,
    )
    overview = body("N4_cop_pc4r3_review").replace(LINKED, str(inline["id"]))
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
