"""The reviewers teams added in autumn 2026 — cubic, Macroscope, CodeAnt, Graphite Agent, Devin
Review — as built-in profiles (issue 25), on real bodies (tests/fixtures/bots/corpus.jsonl `N5_*`,
sources there): the right findings (bot, level, file, line), no summary or notice as a finding,
the right state; their identity by login and account type; Macroscope's withdrawal by its own
edit only. Each attack sits by its control."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from reviewcoord.bots import REGISTRY, bot_for_author, display_name, parse_comment, reviewer_keys
from reviewcoord.ingest import ingest
from reviewcoord.judgement import ForeignEdits, Subject, judge
from reviewcoord.model import RawComment
from tests.bots_support import corpus_comment, graphql_bot, load_corpus

CORPUS = {e["corpus_id"]: (n, e) for n, e in enumerate(load_corpus(), start=1)}
HEAD = "a" * 40
AT = datetime(2026, 10, 1, 12, 0, tzinfo=UTC)
NEW = {
    "cubic": ("cubic-dev-ai[bot]", "cubic"),
    "macroscope": ("macroscopeapp[bot]", "Macroscope"),
    "codeant": ("codeant-ai[bot]", "CodeAnt"),
    "graphite": ("graphite-app[bot]", "Graphite"),
    "devin": ("devin-ai-integration[bot]", "Devin Review"),
}


def real(cid: str, **changes: Any) -> RawComment:
    number, entry = CORPUS[cid]
    return corpus_comment(entry, number).model_copy(update={"created_at": AT, **changes})


def facts(raw: RawComment) -> list[tuple[str, str, str | None, str | None, int | None]]:
    bot = bot_for_author(raw.author_login, raw.author_type)
    assert bot is not None
    parsed = parse_comment(bot, raw)
    return [(f.bot, f.severity, f.severity_raw, f.file, f.line) for f in parsed.findings]


@pytest.mark.parametrize("key", sorted(NEW))
def test_each_is_a_built_in_reviewer_known_by_login_and_type(key: str) -> None:
    login, name = NEW[key]
    assert bot_for_author(login, "Bot") == key and display_name(key) == name
    assert graphql_bot(login.removesuffix("[bot]")) == key
    assert key in reviewer_keys()
    # Attack: a person's account named like the app is not the reviewer (control above).
    assert bot_for_author(login, "User") is None
    assert REGISTRY.impostor_of(login.removesuffix("[bot]"), "User") == key


@pytest.mark.parametrize(
    ("cid", "expected"),
    [
        (
            "N5_cubic_aireview1_inline_p0",
            [("cubic", "critical", "P0", "server/src/auth/password.ts", 2)],
        ),
        (
            "N5_cubic_aireview1_inline_p3",
            [("cubic", "low", "P3", "server/src/services/users.service.ts", 4)],
        ),
        (
            "N5_macro_t3code_inline_high",
            [
                (
                    "macroscope",
                    "critical",
                    "🟠 High",
                    "apps/server/src/mcp/toolkits/preview/handlers.ts",
                    57,
                )
            ],
        ),
        (
            "N5_macro_t3code_inline_medium",
            [
                (
                    "macroscope",
                    "medium",
                    "🟡 Medium",
                    "apps/web/src/components/chat/MarkdownMedia.tsx",
                    10,
                )
            ],
        ),
        (
            "N5_codeant_cc1745_inline_major",
            [
                (
                    "codeant",
                    "medium",
                    "Major",
                    ".claude/scripts/tests/pipeline-ceiling-consumers.test.sh",
                    3,
                )
            ],
        ),
        ("N5_graphite_cc1589_inline", [("graphite", "medium", None, None, None)]),
        (
            "N5_devin_hena89_red",
            [("devin", "critical", "🔴", "docs/contabo/nginx-hena-wadeena.conf", 27)],
        ),
        (
            "N5_devin_hena79_yellow",
            [("devin", "medium", "🟡", "apps/web/src/hooks/use-admin.ts", 83)],
        ),
        (
            "N5_devin_lofipulse16_flag",
            [
                (
                    "devin",
                    "low",
                    "🚩",
                    ".agent/skills/gh-pr-conversation-resolver/scripts/resolve.py",
                    100,
                )
            ],
        ),
    ],
)
def test_real_inline_findings_at_their_levels(cid: str, expected: list[Any]) -> None:
    assert facts(real(cid)) == expected


@pytest.mark.parametrize(
    ("cid", "kind"),
    [
        ("N5_cubic_aireview1_review", "reviewed"),
        ("N5_cubic_aireview2_review_ultra", "reviewed"),
        ("N5_macro_t3code_approvability", "noise"),
        ("N5_codeant_cc1745_status", "reviewed"),
        ("N5_codeant_intellora29_skip", "skipped"),
        ("N5_graphite_forge_merge_activity", "noise"),
        ("N5_devin_vibescroll1_clean", "clean"),
        ("N5_devin_found_issue", "reviewed"),
        ("N5_cubic_universal13_clean", "clean"),
        ("N5_devin_starting_badge", "in_progress"),
        ("N5_devin_outdated_report", "noise"),
    ],
)
def test_summaries_statuses_and_notices_are_no_findings(cid: str, kind: str) -> None:
    raw = real(cid)
    bot = bot_for_author(raw.author_login, raw.author_type)
    assert bot is not None
    parsed = parse_comment(bot, raw)
    assert (parsed.kind, parsed.findings, parsed.unreadable) == (kind, (), False)


def test_cubics_review_repeats_every_finding_in_its_prompt_counted_once_inline() -> None:
    review = real("N5_cubic_aireview1_review", commit_id=HEAD)
    assert review.body.count("<violation number=") == 14  # the fenced agent prompt
    inline = [
        real("N5_cubic_aireview1_inline_p0", id=1001, original_commit_id=HEAD),
        real("N5_cubic_aireview1_inline_p3", id=1002, original_commit_id=HEAD),
    ]
    got = ingest([review, *inline], head_sha=HEAD)
    assert sorted(f.severity_raw or "" for f in got.findings) == ["P0", "P3"]
    assert got.state("cubic") == "reviewed"


def test_cubics_clean_review_is_read_by_its_real_first_line_only() -> None:
    clean = real("N5_cubic_universal13_clean", commit_id=HEAD)
    assert parse_comment("cubic", clean).kind == "clean"
    got = ingest([clean], head_sha=HEAD)
    assert (got.state("cubic"), got.findings) == ("reviewed", [])
    # Control: the same review with a count is a review of its commit, findings inline.
    counted = clean.body.replace(
        "**No issues found** across 1 file", "**2 issues found** across 1 file"
    )
    framed = f"<!-- cubic:review-summary:start -->\n{counted.split(chr(10))[0]}\n"
    framed += "<!-- cubic:review-summary:end -->"
    assert parse_comment("cubic", clean.model_copy(update={"body": framed})).kind == "reviewed"
    # Never seen: "No issues found" without its "across N file(s)", or inside the summary
    # markers, or a count of 0 there. Each is unread, loudly, never a quiet clean.
    for body in (
        "**No issues found**",
        "<!-- cubic:review-summary:start -->\n**No issues found**\n"
        "<!-- cubic:review-summary:end -->",
        "<!-- cubic:review-summary:start -->\n**0 issues found** across 2 files\n"
        "<!-- cubic:review-summary:end -->",
    ):
        parsed = parse_comment("cubic", clean.model_copy(update={"body": body}))
        assert parsed.kind != "clean" and parsed.unreadable, body


def test_a_cubic_label_quoted_in_its_own_prompt_is_never_read_as_a_finding() -> None:
    # The review body's lines "P0: …" sit inside its fence: no finding comes of them.
    parsed = parse_comment("cubic", real("N5_cubic_aireview1_review"))
    assert not parsed.findings and "P0: Passwords" in parsed_body("N5_cubic_aireview1_review")


def parsed_body(cid: str) -> str:
    return real(cid).body


def test_codeants_status_marker_binds_its_newest_record_to_a_commit() -> None:
    status = real("N5_codeant_cc1745_status")
    done = "d5884e6f93e5446faf984e374ce4e473186e1195"
    assert ingest([status], head_sha=done).state("codeant") == "reviewed"
    assert ingest([status], head_sha=HEAD).state("codeant") == "not_seen"  # another commit
    running = status.body.replace('"done":true', '"done":false')
    parsed = parse_comment("codeant", status.model_copy(update={"body": running}))
    assert (parsed.kind, parsed.reviewed_commit) == ("in_progress", done)
    broken = status.body.replace('[{"label"', "[{label")
    assert parse_comment("codeant", status.model_copy(update={"body": broken})).kind == "noise"


def test_graphite_needs_its_footer_on_its_own_inline_comment() -> None:
    finding = real("N5_graphite_cc1589_inline")
    assert parse_comment("graphite", finding).findings
    fenced = "Something.\n\n```\n*Spotted by [Graphite](https://app.graphite.com/x)*\n```\n"
    quoted = parse_comment("graphite", finding.model_copy(update={"body": fenced}))
    assert not quoted.findings and quoted.unreadable


def test_devin_marker_gives_the_native_id_and_the_place() -> None:
    raw = real("N5_devin_hena89_red", path=None, line=None)
    (finding,) = parse_comment("devin", raw).findings
    assert finding.native_id == "BUG_pr-review-job-6dfb32b85da9457bad1e5e29adea9150_0003"
    assert (finding.file, finding.line, finding.line_end) == (
        "docs/contabo/nginx-hena-wadeena.conf",
        24,
        27,
    )


def test_devin_starting_is_working_and_its_superseded_report_is_noise() -> None:
    start = real("N5_devin_starting_badge")
    assert ingest([start], head_sha=HEAD).state("devin") == "working"
    outdated = parse_comment("devin", real("N5_devin_outdated_report"))
    assert outdated.kind == "noise" and not outdated.unreadable and not outdated.findings
    # Control: the same report without the note is a review of its commit.
    note, report = real("N5_devin_outdated_report").body.split("\n\n", 1)
    assert note.startswith("> [!NOTE]")
    fresh = real("N5_devin_outdated_report", body=report)
    assert parse_comment("devin", fresh).kind == "reviewed"


# --------------------------------------------------------------------- Macroscope's edits


def macroscope_on_head(cid: str, number: int) -> RawComment:
    return real(cid, id=number, original_commit_id=HEAD, path="a.ts", line=5)


def verdict_with(comments: list[RawComment], foreign: dict[tuple[str, int], str] | None = None):  # type: ignore[no-untyped-def]
    ingested = ingest(comments, head_sha=HEAD)
    subject = Subject("o/r", 1, HEAD, comments, ingested, ["macroscope"])
    return judge(subject, edits=ForeignEdits(bots=foreign or {})).verdict


def test_macroscope_withdraws_a_finding_by_its_own_edit() -> None:
    withdrawn = macroscope_on_head("N5_macro_t3code_no_longer_relevant", 7)
    parsed = parse_comment("macroscope", withdrawn)
    assert parsed.findings == () and len(parsed.withdrawn_findings) == 1
    assert parsed.withdrawn.startswith("No longer relevant as of 6a06232")
    verdict = verdict_with([withdrawn])
    assert verdict.critical == [] and verdict.advisory == []
    assert any("withdrawn by Macroscope in its own edit" in n.note for n in verdict.parse_notes)
    resolved = parse_comment("macroscope", macroscope_on_head("N5_macro_t3code_resolved", 8))
    assert resolved.withdrawn.startswith("✅ Resolved in 148c355")
    # Control: the same finding before the edit is open.
    body = withdrawn.body.rsplit("\n\nNo longer relevant", 1)[0]
    control = verdict_with([withdrawn.model_copy(update={"body": body})])
    assert [f.severity for f in control.advisory] == ["medium"]


def test_attack_a_withdrawal_someone_else_edited_in_withdraws_nothing() -> None:
    withdrawn = macroscope_on_head("N5_macro_t3code_resolved", 9)
    foreign = {("review_comment", 9): "it was edited by @mallory, not only by its author"}
    verdict = verdict_with([withdrawn], foreign)
    assert [f.severity for f in verdict.critical] == ["critical"]  # 🟠 High, held
    assert any("edited by @mallory" in n.note for n in verdict.parse_notes)
    # Control: the same comment with only Macroscope's own edits withdraws it.
    assert verdict_with([withdrawn]).critical == []


def test_withdrawal_words_quoted_in_code_are_no_withdrawal() -> None:
    raw = macroscope_on_head("N5_macro_t3code_inline_medium", 10)
    fenced = (
        raw.body + "\n\n```\nNo longer relevant as of 6a06232237270dfc6d1e39af9611ce2ac3349ce5\n```"
    )
    parsed = parse_comment("macroscope", raw.model_copy(update={"body": fenced}))
    assert parsed.findings and not parsed.withdrawn


@pytest.mark.parametrize("chip", ["Critical", "Minor", "Blocker", ""])
def test_attack_a_codeant_level_chip_never_seen_is_unread_not_a_quiet_medium(chip: str) -> None:
    """Only `Major` is in a real CodeAnt body: another chip (or none) is a layout not seen — a
    `Critical` read as `medium` would turn a blocker advisory. Loud: unreadable, no finding."""
    finding = real("N5_codeant_cc1745_inline_major")
    major = "🟠 `Major`"
    assert major in finding.body
    swapped = finding.body.replace(major, f"🔴 `{chip}`" if chip else "")
    parsed = parse_comment("codeant", finding.model_copy(update={"body": swapped}))
    assert parsed.unreadable and parsed.findings == () and parsed.kind == "noise"
    assert f"level chip `{chip or 'Occurrence: Rarely'}`" in (parsed.parse_note or "")
    # control: the real body, `Major`, is a finding at `medium`
    (real_finding,) = parse_comment("codeant", finding).findings
    assert real_finding.severity == "medium" and real_finding.severity_raw == "Major"


@pytest.mark.parametrize("level", ["🔵 **Low**", "🔴 **Critical**"])
def test_a_macroscope_level_never_seen_in_a_real_body_is_unread(level: str) -> None:
    """Only High and Medium are in real Macroscope bodies: `🔵 **Low**` (named in survey notes)
    and a `Critical` are layouts not seen — unread, loudly, never a guessed level."""
    raw = macroscope_on_head("N5_macro_t3code_inline_medium", 11)
    medium = "🟡 **Medium**"
    assert raw.body.startswith(medium)
    parsed = parse_comment(
        "macroscope", raw.model_copy(update={"body": raw.body.replace(medium, level, 1)})
    )
    assert parsed.unreadable and parsed.findings == ()
    # control: the real body is a finding at `medium`
    (finding,) = parse_comment("macroscope", raw).findings
    assert finding.severity == "medium"


def test_cubics_check_saying_it_skipped_is_no_quiet_skip() -> None:
    """No skipped or failed cubic run was found: its words are quoted, never read as a skip."""
    from reviewcoord.bots.checks import CheckView
    from reviewcoord.bots.cubic import CHECKS

    (check,) = CHECKS
    meaning = check.meaning
    skipped = CheckView("completed", "skipped", "Skipping review", "", "u", None)
    said = meaning(skipped)
    assert said is not None and said.state == "failed" and "Skipping review" in said.detail
    # control: its real "AI review completed" (success) says its review follows
    done = meaning(CheckView("completed", "success", "AI review completed", "", "u", None))
    assert done is not None and done.state == "finishing"
