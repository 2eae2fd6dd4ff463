"""Bot run states (docs/interface.md §5): what each bot did on the head, read from what it posted.

Real bodies come from the corpus by id. Wordings known only from reports (docs/bot-formats.md
marks them "reported") are matched as documented, and their tests say `reported` in the name.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from reviewcoord.bots import parse_comment
from reviewcoord.ingest import ingest
from reviewcoord.model import BotKey, ParsedComment, RawComment, Verdict
from reviewcoord.pipeline import judge
from reviewcoord.render import sticky_comment
from tests.bots_support import comment, load_corpus, source_bot

HEAD = "8777ef4a1b2c3d4e5f60718293a4b5c6d7e8f901"  # N3_codex_status_asic381_propened names 8777ef4
OLD = "1111111222222233333334444444555555566666"
T0 = datetime(2026, 9, 16, 5, 0, tzinfo=UTC)
CORPUS = {e["corpus_id"]: e for e in load_corpus()}


def real(corpus_id: str, cid: int = 1, **fields: object) -> RawComment:
    entry = CORPUS[corpus_id]
    return comment(
        entry["body"],
        entry["endpoint"],
        entry["bot_login"],
        id=cid,
        html_url=f"https://github.com/o/r/pull/1#c{cid}",
        **fields,
    )


def parsed(corpus_id: str) -> ParsedComment:
    raw = real(corpus_id)
    bot = source_bot(raw.author_login)
    assert bot is not None
    return parse_comment(bot, raw)


def states(comments: list[RawComment], head: str = HEAD, **kw: object) -> dict[str, str]:
    got = ingest(comments, head_sha=head, **kw)  # type: ignore[arg-type]
    return {bot: status.state for bot, status in got.bots.items()}


# --- each format on its real body ------------------------------------------------------------


@pytest.mark.parametrize(
    ("corpus_id", "kind", "detail"),
    [
        # Codex
        ("X_usage_vllm", "failed", "usage limit reached"),
        ("X_usage_personal", "failed", "usage limit reached"),
        ("N3_codex_dotfiles281_quota_credits", "failed", "usage limit reached"),
        ("N3_codex_status_asic381_propened", "reviewed", ""),
        ("N3_codex_status_asic364_manual", "reviewed", ""),
        # Copilot
        ("N3_cop_vllm31104_error", "failed", "encountered an error and was unable to review"),
        ("P_noreview_plain", "skipped", "no files it could review"),
        ("P_noreview_footer", "skipped", "no files it could review"),
        # Claude
        ("Rclaude", "failed", "encountered an error"),
        (
            "L_qoax_skipped",
            "failed",
            "code review skipped: your organization's overage spend limit has been reached.",
        ),
        ("L_email_verificay3", "clean", ""),  # "Claude finished" over a ticked checklist
        # Cursor
        ("C_skip_fixture", "skipped", "Bugbot is disabled for this repository"),
    ],
)
def test_notice_and_done_shapes_on_real_bodies(corpus_id: str, kind: str, detail: str) -> None:
    got = parsed(corpus_id)
    assert (got.kind, got.detail) == (kind, detail)
    assert got.findings == ()  # a notice is never a finding
    assert got.parse_note is None


def test_codex_status_table_completed_names_its_commit() -> None:
    assert parsed("N3_codex_status_asic381_propened").reviewed_commit == "8777ef4"


def codex_tracker(status: str, sha: str = "8777ef4") -> str:
    """The real tracker (N3_codex_status_asic381_propened) with its status cell rewritten: Running
    and Failed are documented, not observed in a real copy (docs/bot-formats.md §1)."""
    body: str = CORPUS["N3_codex_status_asic381_propened"]["body"]
    return body.replace("✅ **Completed**", status).replace("`8777ef4`", f"`{sha}`")


@pytest.mark.parametrize(
    ("status", "state"),
    # Completed: finishing (shown `working`) until its review lands or the grace has passed.
    [("🔄 **Running**", "working"), ("❌ **Failed**", "failed"), ("✅ **Completed**", "working")],
)
def test_codex_status_table_states_reported_running_failed(status: str, state: str) -> None:
    tracker = comment(codex_tracker(status), "issue_comment", "chatgpt-codex-connector[bot]")
    assert states([tracker])["codex"] == state


def test_codex_status_row_for_an_older_sha_says_nothing_about_the_head() -> None:
    for status in ("🔄 **Running**", "✅ **Completed**", "❌ **Failed**"):
        tracker = comment(
            codex_tracker(status, OLD[:7]), "issue_comment", "chatgpt-codex-connector[bot]"
        )
        assert states([tracker])["codex"] == "not_seen", status


def test_codex_about_box_word_running_is_not_a_running_review() -> None:
    # The About box under every tracker says "while any review is running": a Completed
    # tracker must not read as working (other gates went green 18 s in, or waited forever).
    body = codex_tracker("✅ **Completed**")
    assert "running" in body
    assert parse_comment("codex", comment(body, "issue_comment")).kind == "reviewed"


def test_codex_completed_is_not_clean_findings_come_from_inline_comments() -> None:
    tracker = comment(
        codex_tracker("✅ **Completed**"), "issue_comment", "chatgpt-codex-connector[bot]", id=1
    )
    p1 = real("Z25", 2, path="a.rs", line=3, original_commit_id=HEAD)
    verdict = judge([tracker, p1], repo="o/r", pr=1, head_sha=HEAD, expected=["codex"])
    assert verdict.gate == "block" and verdict.bots["codex"].state == "reviewed"


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        (
            "To use Codex here, create an environment for this repo.",
            "Codex is not set up for this repository (no environment or account connected)",
        ),
        (
            "To use Codex here, create a Codex account and connect to github.",
            "Codex is not set up for this repository (no environment or account connected)",
        ),
        (
            "I couldn't complete this request. Try again later.",
            "could not complete the review request",
        ),
        ("Codex was unable to complete the review.", "could not complete the review request"),
    ],
)
def test_codex_failure_notices_reported(body: str, detail: str) -> None:
    got = parse_comment("codex", comment(body, "issue_comment", "chatgpt-codex-connector[bot]"))
    assert (got.kind, got.detail, got.findings) == ("failed", detail, ())


def test_copilot_no_files_either_apostrophe_reported_curly() -> None:
    for text in (
        "Copilot wasn't able to review any files",
        "Copilot wasn’t able to review any files",
    ):
        got = parse_comment("copilot", comment(text + " in this pull request.", "review"))
        assert got.kind == "skipped", text


def test_copilot_too_many_files_reported() -> None:
    text = (
        "Copilot wasn't able to review this pull request because it exceeds the maximum number "
        "of files (300). Try reducing the number of changed files and requesting a review again."
    )
    got = parse_comment("copilot", comment(text, "review"))
    assert (got.kind, got.detail) == (
        "skipped",
        "the PR exceeds Copilot's maximum number of files (300)",
    )


AUG_2026_OVERVIEW = """### 🟡 Changes recommended

The parser drops the last record when the input has no trailing newline.

<details>
<summary>Pull request overview</summary>

Adds a streaming CSV reader and its tests.

</details>

<details>
<summary>Review details</summary>

### Suppressed comments (1)

**src/reader.py:41**
* [nitpick] The loop variable shadows the module-level `row`.

- **Files reviewed:** 2/2 changed files
- **Comments generated:** 1
- **Review effort level:** Balanced

</details>
"""


def test_copilot_aug_2026_details_overview_reported() -> None:
    # The `<details>` overview / "Review details" layout (docs/bot-formats.md §2, generation 3):
    # the overview is not a finding; its suppressed comments still are (low).
    got = parse_comment("copilot", comment(AUG_2026_OVERVIEW, "review"))
    assert got.kind == "finding"
    assert [(f.title, f.severity, f.file, f.line) for f in got.findings] == [
        ("The loop variable shadows the module-level `row`.", "low", "src/reader.py", 41)
    ]
    overview_only = AUG_2026_OVERVIEW.split("<details>\n<summary>Review details", 1)[0]
    assert parse_comment("copilot", comment(overview_only, "review")).findings == ()


def test_claude_error_after_duration_reported_template() -> None:
    body = (
        "**Claude encountered an error after 7m 41s** —— [View job](https://github.com/o/r/"
        "actions/runs/1)\n\n---\n### Todo\n- [x] Read the diff\n- [x] Check tests\n"
        "- [ ] Post findings\n"
    )
    got = parse_comment("claude", comment(body, "issue_comment", "claude[bot]"))
    assert (got.kind, got.detail) == ("failed", "encountered an error after 7m 41s")


def test_claude_finished_with_ticked_checklist_is_reviewed_reported_flattened() -> None:
    body = (
        "**Claude finished @bob's task in 2m 7s** —— [View job](u)\n\n---\n"
        "- [x] Read changed files\n- [x] Review\n- [x] Post findings\n\n### Review: ✅ LGTM\n"
    )
    tracker = comment(body, "issue_comment", "claude[bot]")
    assert states([tracker])["claude"] == "reviewed"


def test_claude_finished_with_open_tasks_did_not_review_reported() -> None:
    # A finished header over an unticked task list (docs/bot-formats.md §16, reported): the job
    # ended without posting its review. Never clean; not waited for.
    body = (
        "**Claude finished @bob's task in 1m** —— [View job](u)\n\n---\n"
        "- [x] Read changed files\n- [ ] Review\n- [ ] Post findings\n\nI started a review.\n"
    )
    got = parse_comment("claude", comment(body, "issue_comment", "claude[bot]"))
    assert (got.kind, got.detail) == ("failed", "finished with 2 tasks left open")


def test_bugbot_usage_limit_reported() -> None:
    got = parse_comment(
        "cursor", comment("Bugbot couldn't run - usage limit reached", "issue_comment")
    )
    assert (got.kind, got.detail) == ("failed", "usage limit reached")


def test_bugbot_skips_a_pr_opened_by_a_bot() -> None:
    assert states([], pr_by_bot=True)["cursor"] == "skipped"
    assert states([], pr_by_bot=False)["cursor"] == "not_seen"
    grok = "a294dcb8c3bc65cb87ec637840114aac8f85a199"  # the commit C_grok_clean names
    text = CORPUS["C_grok_clean"]["body"].replace(grok, HEAD).replace(grok[:7], HEAD[:7])
    clean = comment(text, "review", "cursor[bot]", commit_id=HEAD)
    assert states([clean], pr_by_bot=True)["cursor"] == "reviewed"  # it reviewed after all


# --- deriving the state from several signals -------------------------------------------------


def at(raw: RawComment, minutes: int) -> RawComment:
    stamp = T0 + timedelta(minutes=minutes)
    return raw.model_copy(update={"created_at": stamp, "updated_at": stamp})


def codex_notice(cid: int, minutes: int) -> RawComment:
    return at(real("X_usage_vllm", cid), minutes)


def codex_clean(cid: int, minutes: int) -> RawComment:
    return at(real("X_clean_swish", cid), minutes)


def test_failed_is_final_until_the_bot_reviews_again() -> None:
    assert states([codex_notice(1, 1)])["codex"] == "failed"
    assert states([codex_notice(1, 1), codex_clean(2, 5)])["codex"] == "reviewed"


def test_a_later_failure_does_not_undo_a_review_of_the_same_head() -> None:
    assert states([codex_clean(1, 1), codex_notice(2, 5)])["codex"] == "reviewed"


def test_working_after_a_failure_is_working_again() -> None:
    running = at(
        comment(
            codex_tracker("🔄 **Running**"), "issue_comment", "chatgpt-codex-connector[bot]", id=3
        ),
        9,
    )
    assert states([codex_notice(1, 1), running])["codex"] == "working"


def test_undated_signals_take_the_cautious_reading() -> None:
    running = comment(
        codex_tracker("🔄 **Running**"), "issue_comment", "chatgpt-codex-connector[bot]", id=1
    )
    done = comment(
        codex_tracker("✅ **Completed**"), "issue_comment", "chatgpt-codex-connector[bot]", id=2
    )
    assert states([done, running])["codex"] == "working"


def test_unknown_wording_from_a_known_bot_is_a_visible_note_never_reviewed() -> None:
    odd = comment("Codex pondered this PR deeply.", "issue_comment", "chatgpt-codex-connector[bot]")
    got = ingest([odd], head_sha=HEAD)
    # Loud (issue 16): a comment no rule reads makes the bot `unreadable`, never `reviewed`.
    assert got.state("codex") == "unreadable"
    assert got.bots["codex"].detail == (
        'posted a comment this version cannot read: "Codex pondered this PR deeply." '
        "(format changed?)"
    )
    assert got.parse_notes and not got.findings  # one state entry and its note: no finding
    tracker = comment(
        codex_tracker("🤔 **Pondering**"), "issue_comment", "chatgpt-codex-connector[bot]"
    )
    got = ingest([tracker], head_sha=HEAD)
    assert got.state("codex") == "not_seen" and got.parse_notes and not got.findings


def test_a_notice_never_counts_as_a_finding_or_a_review() -> None:
    verdict = judge([codex_notice(1, 1)], repo="o/r", pr=1, head_sha=HEAD, expected=["codex"])
    assert verdict.critical == [] and verdict.advisory == []
    assert verdict.settled_on == [] and verdict.unreviewed == ["codex"]
    assert verdict.bots["codex"].detail == "usage limit reached"
    assert verdict.bots["codex"].url == "https://github.com/o/r/pull/1#c1"


# --- the gate and require-bots ---------------------------------------------------------------


def verdict_for(
    comments: list[RawComment], expected: list[BotKey], required: list[BotKey]
) -> Verdict:
    return judge(comments, repo="o/r", pr=1, head_sha=HEAD, expected=expected, required=required)


def test_require_bots_blocks_on_a_failed_bot_naming_it_and_its_state() -> None:
    v = verdict_for([codex_notice(1, 1)], ["codex"], ["codex"])
    assert v.gate == "block"
    assert v.gate_reason == (
        "required bot codex has not reviewed 8777ef4: failed — usage limit reached"
    )


def test_require_bots_blocks_while_pending_and_goes_once_reviewed() -> None:
    assert verdict_for([], ["codex"], ["codex"]).gate == "block"
    assert verdict_for([codex_clean(1, 1)], ["codex"], ["codex"]).gate == "go"


def test_without_require_bots_a_failed_bot_does_not_block_but_is_unreviewed() -> None:
    v = verdict_for([codex_notice(1, 1)], ["codex"], [])
    assert (v.gate, v.unreviewed, v.pending) == ("go", ["codex"], [])


def test_sticky_says_per_bot_what_it_did_on_the_head() -> None:
    comments = [codex_notice(1, 1), real("C_skip_fixture", 2), real("Z12", 3, commit_id=HEAD)]
    v = verdict_for(comments, ["codex", "cursor", "copilot", "claude"], ["codex"])
    text = sticky_comment(v)
    assert (
        "- ⚠️ Codex did not review `8777ef4`: usage limit reached — re-request with "
        "`@codex review` (required) · [source](https://github.com/o/r/pull/1#c1)"
    ) in text
    assert "- ✅ Copilot reviewed `8777ef4` · [source]" in text
    assert "- ⏭️ Cursor skipped `8777ef4`: Bugbot is disabled for this repository" in text
    assert "- ⏳ Claude has not posted on `8777ef4` yet" in text
