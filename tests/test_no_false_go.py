"""Issue 15's routes to a false `go`, as unit tests of the pure stages, each beside its
control (the same input without the attack). The end-to-end ones: test_e2e_no_false_go.py."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from reviewcoord.ingest import ANY_TIME, ingest, is_on_head
from reviewcoord.model import ParsedComment, RawComment
from reviewcoord.runner import RunRequest, fallback_settings
from tests.e2e_support import body

HEAD = "a" * 40
ARRIVED = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


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
    assert not is_on_head(before, ParsedComment(kind="clean"), HEAD, ARRIVED)
    assert ingest([before], head_sha=HEAD, head_time=ARRIVED).state("claude") == "not_seen"


def test_control_an_undated_comment_after_the_head_arrived_is_on_it() -> None:
    after = claude_comment(ARRIVED + timedelta(seconds=1))
    assert is_on_head(after, ParsedComment(kind="clean"), HEAD, ARRIVED)
    assert ingest([after], head_sha=HEAD, head_time=ARRIVED).state("claude") == "reviewed"


def test_an_unknown_arrival_time_counts_nothing_undated_as_on_the_head() -> None:
    late = claude_comment(ARRIVED + timedelta(days=1))
    assert not is_on_head(late, ParsedComment(kind="clean"), HEAD, None)
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
