"""Issue 15's routes to a false `go`, as unit tests of the pure stages, each beside its
control (the same input without the attack). The end-to-end ones: test_e2e_no_false_go.py."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from reviewcoord.binding import HeadFacts, Signal, binds_to_head
from reviewcoord.ingest import ANY_TIME, FINISHING, finished_by_grace, ingest
from reviewcoord.model import RawComment, Verdict
from reviewcoord.pipeline import judge
from reviewcoord.reading import not_analysed
from reviewcoord.render import sticky_comment
from reviewcoord.render.plain import plain_text
from reviewcoord.runner import RunRequest, fallback_settings
from tests.e2e_support import body

HEAD = "a" * 40
ARRIVED = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def clean_at(at: datetime) -> Signal:
    return Signal("claude", "issue_comment", when=at)


def claude_comment(at: datetime) -> RawComment:
    return RawComment(
        endpoint="issue_comment",
        id=7,
        author_login="claude[bot]",
        author_type="Bot",
        body=body("L_email_verificay3"),
        created_at=at,
        updated_at=at,
    )


# --- server time only -------------------------------------------------------------------


def test_an_undated_comment_before_the_head_arrived_is_not_on_it() -> None:
    before = claude_comment(ARRIVED - timedelta(minutes=5))
    assert not binds_to_head(clean_at(before.created_at or ARRIVED), HeadFacts(HEAD, ARRIVED))
    assert ingest([before], head_sha=HEAD, head_time=ARRIVED).state("claude") == "not_seen"


def test_control_an_undated_comment_after_the_head_arrived_is_on_it() -> None:
    after = claude_comment(ARRIVED + timedelta(seconds=1))
    assert binds_to_head(clean_at(after.created_at or ARRIVED), HeadFacts(HEAD, ARRIVED))
    assert ingest([after], head_sha=HEAD, head_time=ARRIVED).state("claude") == "reviewed"


def test_an_unknown_arrival_time_counts_nothing_undated_as_on_the_head() -> None:
    late = claude_comment(ARRIVED + timedelta(days=1))
    assert not binds_to_head(clean_at(late.created_at or ARRIVED), HeadFacts(HEAD, None))
    assert ingest([late], head_sha=HEAD, head_time=None).state("claude") == "not_seen"
    # An offline judgement (a replay) has no GitHub clock: what it was given counts.
    assert ingest([late], head_sha=HEAD, head_time=ANY_TIME).state("claude") == "reviewed"


# --- every failure reaches the check the branch rule requires ----------------------------


def _request(**inputs: str) -> RunRequest:
    return RunRequest(
        repo="o/r", pr=1, inputs=inputs, input_source="workflow inputs", config_path="c.yml"
    )


def test_a_failure_is_reported_under_the_configured_check_name() -> None:
    got = fallback_settings(_request(**{"check-name": "ai-review", "settle": "bogus"}))
    assert (got.check_name, got.status_context) == ("ai-review", "review-coordinator")
    from_file = fallback_settings(_request(), {"check-name": "gate", "status-context": "gate"})
    assert (from_file.check_name, from_file.status_context) == ("gate", "gate")
    # The input wins over the file, as it does when the settings are valid.
    both = fallback_settings(_request(**{"check-name": "ai-review"}), {"check-name": "gate"})
    assert both.check_name == "ai-review"


def test_control_an_invalid_check_name_itself_falls_back_to_the_default() -> None:
    got = fallback_settings(_request(**{"check-name": "x" * 101}), {"check-name": ["no"]})
    assert got.check_name == "review-coordinator"


# --- honest go ---------------------------------------------------------------------------


def _verdict(comments: list[RawComment], expected: list[str]) -> Verdict:
    return judge(comments, repo="o/r", pr=1, head_sha=HEAD, expected=expected)


def test_a_go_without_the_reviews_names_the_bots_and_claims_no_review() -> None:
    v = _verdict([], ["claude", "codex"])
    assert v.gate == "go" and v.pending == ["codex", "claude"]
    assert v.gate_reason == (
        "no findings so far; codex, claude have not reviewed aaaaaaa: the gate is judged again "
        "when they post"
    )
    body = sticky_comment(v)
    assert "reported nothing to fix" not in body and "clean" not in body
    assert "have not reviewed this head; the gate is judged again when they post" in body
    assert "reported nothing to fix" not in plain_text(v)


def test_control_a_go_after_every_review_says_clean() -> None:
    v = _verdict([claude_comment(ARRIVED)], ["claude"])
    assert (v.gate, v.gate_reason, v.settled_on) == ("go", "clean: no findings", ["claude"])
    assert "the bots that reviewed this head reported nothing to fix" in sticky_comment(v)


# --- evidence for "likely fixed" -------------------------------------------------------


def test_code_scanning_needs_an_analysis_of_the_current_merge_commit() -> None:
    merge = "m" * 40
    assert not_analysed([{"commit_sha": merge, "ref": "refs/pull/1/merge"}], merge) is None
    old = not_analysed([{"commit_sha": "o" * 40}], merge)
    assert old is not None and "no analysis of the PR's merge commit mmmmmmm" in old
    assert not_analysed([], merge) is not None
    assert not_analysed(["not an object", {"commit_sha": None}], merge) is not None
    assert not_analysed([{"commit_sha": merge}], None) is not None  # no merge commit yet


# --- done means delivered: a tracker's "Completed" is finishing, not reviewed -----------------

CODEX_LOGIN = "chatgpt-codex-connector[bot]"


def codex(body_text: str, cid: int, at: datetime, endpoint: str = "issue_comment") -> RawComment:
    return RawComment(
        endpoint=endpoint,  # type: ignore[arg-type]
        id=cid,
        author_login=CODEX_LOGIN,
        author_type="Bot",
        body=body_text,
        created_at=at,
        updated_at=at,
        commit_id=HEAD if endpoint == "review" else None,
    )


def completed_tracker(at: datetime) -> RawComment:
    text = body("N3_codex_status_asic381_propened").replace("`8777ef4`", f"`{HEAD[:7]}`")
    return codex(text, 1, at)


def test_a_completed_tracker_without_its_review_is_finishing() -> None:
    got = ingest([completed_tracker(ARRIVED)], head_sha=HEAD, head_time=ARRIVED)
    assert got.state("codex") == "working" and got.finishing == {"codex"}
    assert got.bots["codex"].detail == FINISHING
    # After the grace (the run's clock), it counts as reviewed, and says why.
    later = finished_by_grace(got, ["codex"], 60)
    assert later.state("codex") == "reviewed" and not later.finishing
    assert "no separate review landed within 60 s" in later.bots["codex"].detail


def test_control_the_review_landing_after_the_tracker_counts_at_once() -> None:
    review = codex(
        "Codex Review: Didn't find any major issues.", 2, ARRIVED + timedelta(seconds=9), "review"
    )
    got = ingest([completed_tracker(ARRIVED), review], head_sha=HEAD, head_time=ARRIVED)
    assert got.state("codex") == "reviewed" and not got.finishing
    # A tracker turning Completed after the review landed does not undo it either.
    early = review.model_copy(update={"created_at": ARRIVED, "updated_at": ARRIVED})
    got = ingest(
        [completed_tracker(ARRIVED + timedelta(seconds=5)), early], head_sha=HEAD, head_time=ARRIVED
    )
    assert got.state("codex") == "reviewed"
