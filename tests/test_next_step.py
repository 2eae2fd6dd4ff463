"""`next-step` (docs/interface.md §4) and "What unblocks this" on every surface (issue 17)."""

from __future__ import annotations

from reviewcoord.model import BotStatus, Verdict
from reviewcoord.next_step import NEXT_STEPS, next_step
from reviewcoord.render import check_output, job_summary, sticky_comment
from tests.render_scenarios import SCENARIOS


def required_missing(state: str, detail: str = "") -> Verdict:
    v = SCENARIOS["clean"]()
    return v.model_copy(
        update={
            "gate": "block",
            "gate_reason": "a required reviewer did not review",
            "required_bots": ["codex"],
            "bots": {"codex": BotStatus(state=state, detail=detail)},  # type: ignore[arg-type]
            "unreviewed": ["codex"] if state in ("failed", "skipped") else [],
            "pending": ["codex"] if state in ("not_seen", "working") else [],
        }
    )


def test_each_gate_has_its_step() -> None:
    blocking = SCENARIOS["blocking"]()
    assert next_step(SCENARIOS["clean"](), "go") == "none"
    assert next_step(blocking, "block") == "fix_findings"
    contested = blocking.critical[0].model_copy(update={"status": "awaiting_decision"})
    awaiting = blocking.model_copy(update={"critical": [contested, *blocking.critical[1:]]})
    assert next_step(awaiting, "block") == "accept_or_fix"
    assert next_step(required_missing("not_seen"), "block") == "wait_review"
    assert next_step(required_missing("failed", "an error"), "block") == "rerequest_review"
    asked = required_missing("failed", "an error").model_copy(update={"rerequested": ["codex"]})
    assert next_step(asked, "block") == "wait_review"
    assert next_step(None, "error", bad_input=True) == "fix_config"
    assert next_step(None, "error") == "github_unreadable"
    assert next_step(None, "block") == "wait_review"  # merge_group
    assert set(NEXT_STEPS) == {
        "none",
        "fix_findings",
        "accept_or_fix",
        "wait_review",
        "rerequest_review",
        "fix_config",
        "github_unreadable",
    }


def test_a_blocking_verdict_says_what_unblocks_it_on_every_surface() -> None:
    v = SCENARIOS["blocking"]()
    for body in (sticky_comment(v), check_output(v).summary, job_summary(v)):
        assert "### What unblocks this" in body
        assert "**Fix it:** push a commit that fixes F1, F2" in body
        assert "Reply in the bot's thread" in body
        assert "write access who is not the PR author" in body
        assert "`/review-coordinator accept F1 wontfix: REASON`" in body
        assert "`/review-coordinator accept F2 wontfix: REASON`" in body


def test_control_a_go_verdict_has_no_such_section() -> None:
    v = SCENARIOS["clean"]()
    assert "What unblocks this" not in sticky_comment(v)


def test_a_missing_required_review_says_what_happened_and_how_to_ask() -> None:
    body = sticky_comment(required_missing("failed", "usage limit reached"))
    line = (
        "- **Get Codex's review:** it said it could not review `9f1c2ab`: usage limit reached "
        "— re-request with `@codex review` (required)"
    )
    assert line in body
    waiting = sticky_comment(required_missing("not_seen"))
    assert "- **Wait for Codex:** it has not finished on `9f1c2ab` yet" in waiting


def test_a_differing_group_says_which_member_is_critical() -> None:
    body = sticky_comment(SCENARIOS["differing"]())
    assert "   - Codex:P1 (**critical** on our scale: it makes this finding critical) — " in body
    assert "Copilot:medium (no label) — Remove" in body  # the others are not marked


def test_a_bot_asked_again_says_so_in_what_unblocks() -> None:
    v = required_missing("failed", "an error").model_copy(update={"rerequested": ["codex"]})
    body = sticky_comment(v)
    assert "review-coordinator asked it again (`rerequest`, see the notes)" in body
    assert ", else re-request with `@codex review`" in body
