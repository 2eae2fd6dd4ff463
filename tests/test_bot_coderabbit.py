"""CodeRabbit (`coderabbitai[bot]`): run states of its summary comment, inline headers and
review-body items (docs/bot-formats.md §11). Tests named `reported` use wordings the formats
document reports without a corpus body."""

from __future__ import annotations

from reviewcoord.bots import REGISTRY, bot_for_author, parse_comment, rerequest_hint
from reviewcoord.bots.coderabbit import canonical_label
from tests.bots_support import comment, finishes_within_cpu, graphql_bot

LOGIN = "coderabbitai[bot]"
BASE = "a" * 40
HEAD = "b" * 40
SUMMARIZE = "<!-- This is an auto-generated comment: summarize by coderabbit.ai -->\n"
RANGE = (
    "<details>\n<summary>📥 Commits</summary>\n\nReviewing files that changed from the base of "
    f"the PR and between {BASE} and {HEAD}.\n\n</details>\n"
)
WALKTHROUGH = (
    "<!-- walkthrough_start -->\n<details>\n<summary>📝 Walkthrough</summary>\n\n"
    "## Walkthrough\n\nAdds things.\n\n</details>\n<!-- walkthrough_end -->\n"
)


def _issue(body: str):  # type: ignore[no-untyped-def]
    return parse_comment("coderabbit", comment(body, endpoint="issue_comment", login=LOGIN))


def _inline(body: str, **fields):  # type: ignore[no-untyped-def]
    fields.setdefault("path", "a.py")
    fields.setdefault("line", 10)
    return parse_comment("coderabbit", comment(body, login=LOGIN, **fields))


def _review(body: str):  # type: ignore[no-untyped-def]
    return parse_comment(
        "coderabbit", comment(body, endpoint="review", login=LOGIN, review_state="COMMENTED")
    )


def test_profile_registered() -> None:
    assert bot_for_author(LOGIN, "Bot") == "coderabbit"
    assert graphql_bot("coderabbitai") == "coderabbit"
    profile = REGISTRY.profile("coderabbit")
    assert profile.display == "CodeRabbit"
    assert profile.pack == "fast"
    assert rerequest_hint("coderabbit") == "re-request with `@coderabbitai review`"


def test_canonical_labels() -> None:
    assert canonical_label("_🟠 Major_") == "major"
    assert canonical_label("_🔴 Critical_") == "critical"
    assert canonical_label("🧹 Nitpick") == "nitpick"
    assert canonical_label("_🔵 Trivial_") == "trivial"


def test_in_progress_with_previous_walkthrough_is_working() -> None:
    body = (
        SUMMARIZE
        + "<!-- This is an auto-generated comment: review in progress by coderabbit.ai -->\n\n"
        "> [!NOTE]\n> Currently processing new changes in this PR.\n>\n> "
        + RANGE.replace("\n", "\n> ")
        + "\n<!-- end of auto-generated comment: review in progress by coderabbit.ai -->\n"
        + WALKTHROUGH
    )
    parsed = _issue(body)
    assert parsed.kind == "in_progress"
    assert parsed.reviewed_commit == HEAD


def test_walkthrough_with_range_is_reviewed_for_that_head() -> None:
    parsed = _issue(SUMMARIZE + WALKTHROUGH + RANGE)
    assert parsed.kind == "reviewed"
    assert parsed.reviewed_commit == HEAD
    assert not parsed.findings


def test_no_actionable_comments_is_clean_for_that_head() -> None:
    body = SUMMARIZE + "No actionable comments were generated in the recent review. 🎉\n" + RANGE
    parsed = _issue(body)
    assert parsed.kind == "clean"
    assert parsed.reviewed_commit == HEAD


def test_review_skipped_gives_the_reason() -> None:
    body = (
        SUMMARIZE + "<!-- This is an auto-generated comment: skip review by coderabbit.ai -->\n\n"
        "> [!IMPORTANT]\n> ## Review skipped\n> \n"
        "> Auto reviews are disabled on this repository. Please check the settings.\n"
    )
    parsed = _issue(body)
    assert parsed.kind == "skipped"
    assert parsed.detail == "Auto reviews are disabled on this repository."


def test_reported_skip_reason_path_filters() -> None:
    body = (
        SUMMARIZE
        + "> [!IMPORTANT]\n> ## Review skipped\n> \n> Review was skipped due to path filters\n"
    )
    parsed = _issue(body)
    assert parsed.kind == "skipped"
    assert "path filters" in parsed.detail


def test_reported_skip_notice_with_a_real_review_range_is_reviewed() -> None:
    body = (
        SUMMARIZE
        + "> [!IMPORTANT]\n> ## Review skipped\n> \n> Auto incremental reviews are disabled.\n"
        + RANGE
        + WALKTHROUGH
    )
    parsed = _issue(body)
    assert parsed.kind == "reviewed"
    assert parsed.reviewed_commit == HEAD


def test_reported_rate_limit_is_failed() -> None:
    body = (
        SUMMARIZE + "<!-- This is an auto-generated comment: rate limited by coderabbit.ai -->\n\n"
        "> [!WARNING]\n> ## Review limit reached\n>\n> you've reached your PR review limit, "
        "so we couldn't start this review.\n> Or wait 12 minutes for your next included review.\n"
        f'<!-- {{"headCommitId": "{HEAD}"}} -->\n'
        "<!-- end of auto-generated comment: rate limited by coderabbit.ai -->\n" + WALKTHROUGH
    )
    parsed = _issue(body)
    assert parsed.kind == "failed"
    assert parsed.detail == "review limit reached"
    assert parsed.reviewed_commit == HEAD


def test_reported_review_failed_is_failed() -> None:
    body = (
        SUMMARIZE + "<!-- This is an auto-generated comment: failure by coderabbit.ai -->\n\n"
        "> [!CAUTION]\n> ## Review failed\n>\n> The head commit changed during the review.\n"
    )
    parsed = _issue(body)
    assert parsed.kind == "failed"
    assert not parsed.findings


def test_reported_reviews_paused_is_skipped() -> None:
    body = (
        SUMMARIZE + "<!-- This is an auto-generated comment: review paused by coderabbit.ai -->\n"
        "> [!NOTE]\n> ## Reviews paused\n"
    )
    assert _issue(body).kind == "skipped"


def test_inline_header_type_first() -> None:
    body = (
        "_⚠️ Potential issue_ | _🔴 Critical_ | _🏗️ Heavy lift_\n\n**Guard the nil service.**\n\n"
        "Calling it panics. More text.\n"
    )
    parsed = _inline(body)
    assert parsed.kind == "finding"
    (finding,) = parsed.findings
    assert finding.title == "Guard the nil service."
    assert finding.severity_raw == "_🔴 Critical_"
    assert finding.severity == "critical"
    # The other header fields are detail the gist leads with, never a severity (issue 25).
    assert finding.gist == "[Potential issue · Heavy lift] Calling it panics."
    assert (finding.file, finding.line) == ("a.py", 10)


def test_inline_header_category_first_effort_ignored() -> None:
    body = "_🎯 Functional Correctness_ | _🟠 Major_ | _⚡ Quick win_\n\n**Match exact names.**\n"
    (finding,) = _inline(body).findings
    assert finding.severity_raw == "_🟠 Major_"
    assert finding.severity == "medium"


def test_inline_minor_and_trivial_are_low() -> None:
    for label in ("_🟡 Minor_", "_🔵 Trivial_"):
        (finding,) = _inline(f"_🧹 Nitpick_ | {label}\n\n**Rename it.**\n").findings
        assert finding.severity_raw == label
        assert finding.severity == "low"


def test_emoji_alone_is_not_a_severity() -> None:
    (finding,) = _inline("_⚠️ Potential issue_ | _🔴_\n\n**Something.**\n").findings
    assert finding.severity_raw is None
    assert finding.severity == "medium"


def test_other_login_is_not_coderabbit() -> None:
    assert bot_for_author("coderabbit-fan[bot]", "Bot") is None


def test_review_body_nitpick_and_outside_diff_items() -> None:
    body = (
        "**Actionable comments posted: 2**\n\n"
        "<details>\n<summary>⚠️ Outside diff range comments (2)</summary><blockquote>\n\n"
        "<details>\n<summary>src/app.py (2)</summary><blockquote>\n\n"
        "`12-15`: **Close the file handle.**\n\nIt leaks. Use a context manager.\n\n---\n\n"
        "`40`: **Check for None.**\n\n_⚠️ Potential issue_ | _🔴 Critical_\n\nIt crashes.\n\n"
        "</blockquote></details>\n\n</blockquote></details>\n"
        "<details>\n<summary>🧹 Nitpick comments (1)</summary><blockquote>\n\n"
        "<details>\n<summary>tests/test_app.py (1)</summary><blockquote>\n\n"
        "`39-40`: **Add a marker.**\n\nTests should be marked.\n\n"
        "</blockquote></details>\n\n</blockquote></details>\n"
        "<details>\n<summary>🔇 Additional comments (1)</summary><blockquote>\n\n"
        "<details>\n<summary>src/other.py (1)</summary><blockquote>\n\n"
        "`3-4`: **LGTM!**\n\nLooks good.\n\n</blockquote></details>\n\n</blockquote></details>\n"
        "<details>\n<summary>📜 Review details</summary>\n\n**Configuration used**: defaults\n"
        "</details>\n"
    )
    parsed = _review(body)
    assert parsed.kind == "finding"
    got = [
        (f.file, f.line, f.line_end, f.title, f.severity_raw, f.severity) for f in parsed.findings
    ]
    assert got == [
        ("src/app.py", 12, 15, "Close the file handle.", None, "medium"),
        ("src/app.py", 40, None, "Check for None.", "_🔴 Critical_", "critical"),
        ("tests/test_app.py", 39, 40, "Add a marker.", "🧹 Nitpick", "low"),
    ]
    assert parsed.findings[0].gist == "It leaks."


def test_review_body_without_items_is_a_done_signal() -> None:
    parsed = _review(
        "**Actionable comments posted: 3**\n\n"
        "<details>\n<summary>📜 Review details</summary>\n</details>\n"
    )
    assert parsed.kind == "reviewed"
    assert not parsed.findings


def test_unknown_wording_is_unreadable_never_a_finding() -> None:
    parsed = _inline("Something entirely new from CodeRabbit.")
    assert parsed.unreadable and not parsed.findings
    assert parsed.parse_note is not None


def test_large_bodies_stay_linear() -> None:
    nasty = "_a_ | " * 50_000 + "`1-" * 50_000 + "<summary>" * 50_000 + "**" * 100_000

    def parse_all() -> None:
        for endpoint in ("review", "issue_comment", "review_comment"):
            parse_comment("coderabbit", comment(nasty, endpoint=endpoint, login=LOGIN))  # type: ignore[arg-type]
            parse_comment(
                "coderabbit",
                comment(SUMMARIZE + nasty, endpoint=endpoint, login=LOGIN),  # type: ignore[arg-type]
            )

    assert finishes_within_cpu(5, parse_all)


# --- titles (issue 16 What #6): the finding's own title line, never a fold or a category -----


def _inline_title(body: str) -> str:
    (finding,) = parse_comment("coderabbit", comment(body, login="coderabbitai[bot]")).findings
    return finding.title


def test_title_is_never_a_fold_summary_or_a_bold_line_inside_it() -> None:
    # N4_cr_rf154_critical_1888's layout: header, a `🧩 Analysis chain` fold, then the title.
    body = (
        "_🩺 Stability & Availability_ | _🔴 Critical_ | _⚡ Quick win_\n\n<details>\n"
        "<summary>🧩 Analysis chain</summary>\n\n**Script output**\n\n```shell\n**not it**\n```\n"
        "</details>\n\n**Change the receivers.** Value receivers copy the mutex.\n"
    )
    assert _inline_title(body) == "Change the receivers."


def test_control_a_title_right_after_the_category_header() -> None:
    body = "_📐 Maintainability & Code Quality_ | _🟡 Minor_\n\n**Line 680 ends.**\n\nText."
    assert _inline_title(body) == "Line 680 ends."


def test_no_bold_title_the_first_prose_line_outside_folds() -> None:
    body = (
        "_⚠️ Potential issue_ | _🟠 Major_\n\n<details>\n<summary>🧩 Analysis chain</summary>\n"
        "inside\n</details>\n\nThe lock is held across I/O.\n"
    )
    assert _inline_title(body) == "The lock is held across I/O."


def test_a_review_whose_only_item_is_outside_the_diff_new_layout() -> None:
    # N4_cr_webpack22122_outside: the item lives only in the body, in the late-2026 fold layout.
    from reviewcoord.ingest import ingest
    from tests.bots_support import load_corpus

    (entry,) = [e for e in load_corpus() if e["corpus_id"] == "N4_cr_webpack22122_outside"]
    raw = comment(entry["body"], "review", "coderabbitai[bot]", commit_id=HEAD)
    got = ingest([raw], head_sha=HEAD)
    assert got.state("coderabbit") == "reviewed"
    assert [(f.title, f.severity, f.file, f.line) for f in got.findings] == [
        ("Normalize beforeSnapshot hook failures.", "medium", "lib/NormalModule.js", 1758)
    ]
    # Without its "Actionable comments posted" lead the fold still makes it a review.
    lead_less = entry["body"].split("\n", 2)[2]
    got = ingest([comment(lead_less, "review", "coderabbitai[bot]", commit_id=HEAD)], head_sha=HEAD)
    assert len(got.findings) == 1 and got.state("coderabbit") == "reviewed"
