"""Gemini Code Assist (docs/bot-formats.md §12): badge levels, titles, run states."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from reviewcoord.bots import bot_for_author, display_name, parse_comment, rerequest_hint
from reviewcoord.ingest import ingest
from reviewcoord.model import RawComment
from tests.bots_support import comment, graphql_bot, load_corpus

LOGIN = "gemini-code-assist[bot]"
HEAD = "8777ef4a1b2c3d4e5f60718293a4b5c6d7e8f901"
T0 = datetime(2026, 9, 16, 5, 0, tzinfo=UTC)
CORPUS = {e["corpus_id"]: e for e in load_corpus()}


def real(corpus_id: str, cid: int = 1, **fields: object) -> RawComment:
    entry = CORPUS[corpus_id]
    return comment(entry["body"], entry["endpoint"], LOGIN, id=cid, **fields)


def test_profile() -> None:
    assert bot_for_author(LOGIN, "Bot") == "gemini"
    assert graphql_bot("gemini-code-assist") == "gemini"
    assert display_name("gemini") == "Gemini"
    assert rerequest_hint("gemini") == "re-request with `/gemini review`"


@pytest.mark.parametrize(
    ("image", "level"),
    [
        ("critical.svg", "critical"),
        ("high-priority.svg", "medium"),
        ("medium-priority.svg", "medium"),
        ("low-priority.svg", "low"),
    ],
)
def test_badge_image_is_the_level(image: str, level: str) -> None:
    badge = f"![x](https://www.gstatic.com/codereviewagent/{image})"
    body = f"{badge}\n\nThe cache is never invalidated. It grows without bound."
    got = parse_comment("gemini", comment(body, login=LOGIN, path="a.py", line=3))
    assert got.kind == "finding"
    (finding,) = got.findings
    assert finding.severity == level
    assert finding.severity_raw == badge
    assert finding.title == "The cache is never invalidated."
    assert (finding.file, finding.line) == ("a.py", 3)


def test_numbered_list_under_one_badge_is_one_finding() -> None:
    got = parse_comment("gemini", real("N3_gem_uos8_high_refs"))
    assert len(got.findings) == 1
    assert got.findings[0].title == CORPUS["N3_gem_uos8_high_refs"]["title"]


@pytest.mark.parametrize("endpoint", ["issue_comment", "review"])
def test_currently_reviewing_summary_is_working_on_both_endpoints(endpoint: str) -> None:
    body = CORPUS["N3_gem_tflang106_summary_reviewing"]["body"]
    got = parse_comment("gemini", comment(body, endpoint, LOGIN))  # type: ignore[arg-type]
    assert got.kind == "in_progress"
    assert not got.findings


def test_code_review_is_reviewed_and_its_prose_is_no_label() -> None:
    got = parse_comment("gemini", real("N3_gem_tflang106_codereview"))
    assert got.kind == "reviewed"
    assert not got.findings


def test_working_until_the_code_review_arrives() -> None:
    summary = real("N3_gem_tflang106_summary_reviewing", 1, created_at=T0, commit_id=HEAD)
    review = real(
        "N3_gem_tflang106_codereview", 2, created_at=T0 + timedelta(minutes=3), commit_id=HEAD
    )
    assert ingest([summary], head_sha=HEAD).state("gemini") == "working"
    assert ingest([summary, review], head_sha=HEAD).state("gemini") == "reviewed"


def test_reported_daily_quota_is_failed() -> None:
    body = "You have reached your daily quota limit. Please wait up to 24 hours and try again."
    got = parse_comment("gemini", comment(body, "issue_comment", LOGIN))
    assert got.kind == "failed"
    assert not got.findings
    assert ingest([comment(body, "issue_comment", LOGIN)], head_sha=HEAD).state("gemini") == (
        "failed"
    )
