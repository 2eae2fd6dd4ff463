"""Codex security reviews and Codex's error notice (issue 25), on the real bodies of mryfmo/dotfiles
#297 (tests/fixtures/bots/corpus.jsonl `N5_codex_*`, sources there): the security container is no
finding, each security finding is a finding at its badge's level, and the status table's security
row tells the security review's state — never the code review's."""

from __future__ import annotations

from datetime import UTC, datetime

from reviewcoord.bots import parse_comment
from reviewcoord.bots.codex_tracker import rows
from reviewcoord.ingest import ingest
from tests.bots_support import corpus_comment, load_corpus

CODEX = "chatgpt-codex-connector[bot]"
CORPUS = {e["corpus_id"]: (n, e) for n, e in enumerate(load_corpus(), start=1)}
HEAD = "04e143e2c93d9b8a7065769e3db1dbf7cff75a8f"
AT = datetime(2026, 10, 6, 8, 32, tzinfo=UTC)


def real(cid: str, **changes: object):  # type: ignore[no-untyped-def]
    number, entry = CORPUS[cid]
    raw = corpus_comment(entry, number)
    return raw.model_copy(update={"created_at": AT, **changes})


def table_row(name: str, status: str, sha: str = "04e143e") -> str:
    return f"| {name} | {status} <relative-time>x</relative-time> | `{sha}` | PR opened |"


def tracker(*table_rows: str) -> str:
    head = "| Review | Status | Commit | Review trigger |\n| --- | --- | --- | --- |\n"
    return (
        "<!-- codex-pull-request-review-summary -->\n## Codex Review Summary\n\n"
        + head
        + "\n".join(table_rows)
    )


def test_the_security_inline_finding_is_a_finding_at_its_badges_level() -> None:
    parsed = parse_comment("codex", real("N5_codex_dotfiles297_security_finding"))
    (finding,) = parsed.findings
    assert (finding.bot, finding.severity_raw, finding.severity) == ("codex", "P1", "critical")
    assert (finding.file, finding.line) == ("scripts/gh-auth.sh", 64)
    assert finding.title == "Security: Keep the machine token out of sandbox-readable storage"


def test_the_security_review_container_is_no_finding_and_not_unreadable() -> None:
    parsed = parse_comment("codex", real("N5_codex_dotfiles297_security_container"))
    assert parsed.kind == "noise" and not parsed.findings and not parsed.unreadable
    assert parsed.reviewed_commit == "04e143e2c9"


def test_a_table_whose_only_completed_row_is_the_security_review_is_no_code_review() -> None:
    table = real("N5_codex_dotfiles297_status_security", endpoint="issue_comment")
    parsed = parse_comment("codex", table)
    assert parsed.kind == "noise" and not parsed.tracker_done and not parsed.findings
    # Its Security findings list repeats the inline finding: counted once, there.
    finding = real("N5_codex_dotfiles297_security_finding", commit_id=HEAD)
    notice = real("N3_codex_dotfiles281_quota_credits", id=99)
    got = ingest([table, finding, notice], head_sha=HEAD)
    assert [f.title for f in got.findings] == [
        "Security: Keep the machine token out of sandbox-readable storage"
    ]
    # The security finding is a review of the head; the table adds no "finishing" to it, and the
    # credit notice beside it (the code review never ran) never undoes a finished review.
    assert got.state("codex") == "reviewed" and "codex" not in got.finishing
    alone = ingest([table, notice], head_sha=HEAD)
    assert alone.state("codex") == "failed" and "codex" not in alone.finishing
    control = tracker(table_row("📝 **Code Review**", "✅ **Completed**"))
    assert parse_comment("codex", table.model_copy(update={"body": control})).tracker_done


def table_says(body: str):  # type: ignore[no-untyped-def]
    return parse_comment("codex", real("N5_codex_dotfiles297_status_security", body=body))


def test_the_code_review_row_decides_and_a_running_security_review_keeps_it_working() -> None:
    both = tracker(
        table_row("📝 **Code Review**", "✅ **Completed**"),
        table_row("🔒 **Security Review**", "🔄 **Running**"),
    )
    parsed = parse_comment("codex", real("N5_codex_dotfiles297_status_security", body=both))
    assert (parsed.kind, parsed.reviewed_commit) == ("in_progress", "04e143e")
    assert "security review running" in parsed.detail
    # The security row on another commit says nothing about this one: the code row decides.
    other = tracker(
        table_row("📝 **Code Review**", "✅ **Completed**"),
        table_row("🔒 **Security Review**", "🔄 **Running**", sha="1111111"),
    )
    assert parse_comment(
        "codex", real("N5_codex_dotfiles297_status_security", body=other)
    ).tracker_done
    # A security review that failed is not a failed code review.
    failed = tracker(table_row("🔒 **Security Review**", "⚠️ **Failed**"))
    parsed = parse_comment("codex", real("N5_codex_dotfiles297_status_security", body=failed))
    assert parsed.kind == "noise"
    alone = tracker(table_row("🔒 **Security Review**", "🔄 **Running**"))
    assert parse_comment(
        "codex", real("N5_codex_dotfiles297_status_security", body=alone)
    ).kind == ("in_progress")


def test_the_rows_are_named_by_what_they_review() -> None:
    table = real("N5_codex_dotfiles297_status_security").body
    (row,) = rows(table)
    assert (row.review, row.word, row.commit, row.trigger) == (
        "security",
        "completed",
        "04e143e",
        "PR opened",
    )


def test_something_went_wrong_is_failed_in_both_quote_styles_and_retriable() -> None:
    for cid in ("N5_codex_wentwrong_straight", "N5_codex_wentwrong_curly"):
        parsed = parse_comment("codex", real(cid))
        assert parsed.kind == "failed" and not parsed.findings and not parsed.unreadable
        assert "@codex review" in parsed.detail
    # Retriable: a later review of the head makes Codex reviewed again.
    error = real("N5_codex_wentwrong_straight", id=1)
    review = real(
        "N5_codex_dotfiles297_security_finding",
        id=2,
        commit_id=HEAD,
        created_at=AT.replace(minute=40),
    )
    assert ingest([error], head_sha=HEAD).state("codex") == "failed"
    assert ingest([error, review], head_sha=HEAD).state("codex") == "reviewed"


def test_the_error_wording_quoted_inside_a_finding_is_no_notice() -> None:
    quoted = "Handle this.\n\n> Codex Review: Something went wrong. Try again later."
    parsed = parse_comment("codex", real("N5_codex_wentwrong_straight", body=quoted))
    assert parsed.kind != "failed"
