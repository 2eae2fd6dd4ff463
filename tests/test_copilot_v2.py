"""Copilot's overview v2 (issue 16 What #1) on real bodies (corpus `N4_cop_*`): a v2 review is a
review of its commit; heading and summary are no finding; the Open list's badges give their
inline threads their level (and title); Resolved threads are not open; Previously missed items
are findings; quota and error reviews are failed. Each attack sits by its control.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from reviewcoord.bots import copilot_v2
from reviewcoord.ingest import ingest
from reviewcoord.model import RawComment
from tests.bots_support import comment, load_corpus

HEAD = "88f66b1f99d93694afc920fa12434c44f9118a7c"
T0 = datetime(2026, 9, 20, 12, 0, tzinfo=UTC)
CORPUS = {e["corpus_id"]: e for e in load_corpus()}
REVIEWER = "copilot-pull-request-reviewer[bot]"
INLINE_ID = 4056541956  # N4_cop_pc4r3_inline165: the thread the round-3 overview lists as High


def real(corpus_id: str, cid: int, *, at: int = 0, **fields: object) -> RawComment:
    entry = CORPUS[corpus_id]
    extra: dict[str, object] = {"commit_id": HEAD} if entry["endpoint"] == "review" else {}
    if entry["endpoint"] == "review_comment":
        extra = {"path": entry["path"], "line": entry["line"], "original_commit_id": HEAD}
    return comment(
        entry["body"],
        entry["endpoint"],
        entry["bot_login"],
        id=cid,
        created_at=T0 + timedelta(minutes=at),
        **{**extra, **fields},
    )


def inline() -> RawComment:
    return real("N4_cop_pc4r3_inline165", INLINE_ID)


def copilot(comments: list[RawComment]) -> tuple[str, list[tuple[str, str, str | None]]]:
    got = ingest(comments, head_sha=HEAD)
    found = [(f.title, f.severity, f.severity_raw) for f in got.findings if f.bot == "copilot"]
    return got.state("copilot"), found


@pytest.mark.parametrize(
    "corpus_id", ["N4_cop_pc4r3_review", "N4_cop_pc4r4_closer", "N4_cop_cargo11_green"]
)
def test_every_v2_verdict_is_a_review_of_the_head_and_no_finding(corpus_id: str) -> None:
    # 🟡 Changes recommended, 🔵 Needs a closer look, 🟢 Approval recommended.
    state, found = copilot([real(corpus_id, 1)])
    assert state == "reviewed"
    assert found == []


def test_a_v2_review_of_another_commit_does_not_review_the_head() -> None:
    state, _ = copilot([real("N4_cop_pc4r3_review", 1, commit_id="0" * 40)])
    assert state == "not_seen"


def test_the_open_badge_gives_its_inline_thread_its_level_and_title() -> None:
    state, found = copilot([real("N4_cop_pc4r3_review", 1), inline()])
    assert state == "reviewed"
    title = "Reject duplicate relationships for the same ordered parent/child pair"
    assert found == [(title, "critical", "High severity")]


def test_control_an_inline_comment_alone_stays_medium() -> None:
    _, found = copilot([inline()])
    assert [(sev, raw) for _, sev, raw in found] == [("medium", None)]


def test_resolved_since_last_review_is_not_open() -> None:
    # Round 3 lists the thread Open (High); round 4, later, lists it Resolved.
    got = ingest(
        [real("N4_cop_pc4r3_review", 1), inline(), real("N4_cop_pc4r4_closer", 2, at=30)],
        head_sha=HEAD,
    )
    assert [f for f in got.findings if f.bot == "copilot"] == []
    assert got.state("copilot") == "reviewed"
    assert any("resolved since its last review" in n.note for n in got.parse_notes)


def test_control_the_newest_review_wins_a_thread_listed_open_again_is_open() -> None:
    later_open = [real("N4_cop_pc4r4_closer", 1), inline(), real("N4_cop_pc4r3_review", 2, at=30)]
    _, found = copilot(later_open)
    assert [sev for _, sev, _ in found] == ["critical"]


def _user_copy(corpus_id: str, cid: int) -> RawComment:
    entry = CORPUS[corpus_id]
    return comment(entry["body"], "review", REVIEWER, id=cid, commit_id=HEAD).model_copy(
        update={"author_type": "User", "created_at": T0 + timedelta(minutes=30)}
    )


def test_attack_a_person_posting_a_resolved_list_resolves_nothing() -> None:
    # A user account named like the reviewer pastes round 4's overview: its Resolved list is a
    # person's text, and Copilot's High thread stays open.
    _, found = copilot(
        [real("N4_cop_pc4r3_review", 1), inline(), _user_copy("N4_cop_pc4r4_closer", 2)]
    )
    assert [sev for _, sev, _ in found] == ["critical"]


def test_attack_a_v2_body_quoted_or_not_opening_is_not_an_overview() -> None:
    body = CORPUS["N4_cop_pc4r4_closer"]["body"]
    assert copilot_v2.is_v2(body)
    assert not copilot_v2.is_v2("Some text first.\n\n" + body)
    assert not copilot_v2.is_v2("```\n" + body + "\n```")
    quoted = "\n".join("> " + line for line in body.split("\n"))
    assert copilot_v2.read_overview(quoted).marks == []


@pytest.mark.parametrize(
    ("corpus_id", "expected"),
    [
        (
            "N4_cop_pc6_missed_resolved",
            (
                "Derive provenance text from projection.parameters.reference",
                "src/lib/observations.ts",
                41,
            ),
        ),
        (
            "N4_cop_pi_missed",
            (
                "Clear Pi probe error detail instead of reporting provider name",
                "orchestrate.py",
                211,
            ),
        ),
    ],
)
def test_previously_missed_items_are_findings_with_title_file_and_line(
    corpus_id: str, expected: tuple[str, str, int]
) -> None:
    got = ingest([real(corpus_id, 1)], head_sha=HEAD)
    assert [(f.title, f.file, f.line, f.severity, f.severity_raw) for f in got.findings] == [
        (*expected, "medium", "Medium severity")
    ]
    assert got.state("copilot") == "reviewed"
    assert got.findings[0].gist


def test_a_missed_range_gives_line_and_line_end() -> None:
    body = CORPUS["N4_cop_pi_missed"]["body"].replace(
        "`orchestrate.py:211`", "`orchestrate.py:211-219`"
    )
    got = ingest([comment(body, "review", REVIEWER, id=1, commit_id=HEAD)], head_sha=HEAD)
    assert [(f.line, f.line_end) for f in got.findings] == [(211, 219)]


def test_attack_a_missed_section_nested_in_a_resolved_item_is_no_finding() -> None:
    # Only top-level sections count: "Previously missed" inside another section is its text.
    nested = (
        "<!-- ccr-overview-v2 -->\n\n## Copilot review overview\n\n### 🔵 Needs a closer look\n\n"
        "Fine.\n\n**Findings:** None\n\n<details>\n"
        "<summary><strong>Resolved since last review (1)</strong></summary>\n\n<details>\n"
        "<summary><strong>Previously missed (1)</strong></summary>"
        "\n\n<details>\n<summary>Old item</summary>\n\n`old.py:1`\n\nObsolete.\n</details>\n"
        "</details>\n</details>"
    )
    control = nested.replace("Resolved since last review (1)", "Other (1)")
    assert copilot_v2.read_overview(nested).missed == []
    assert copilot_v2.read_overview(control).missed == []  # nested under any section: its text
    top = nested.replace(
        "<details>\n<summary><strong>Resolved since last review (1)</strong></summary>\n\n", ""
    ).removesuffix("\n</details>")
    assert [m.title for m in copilot_v2.read_overview(top).missed] == ["Old item"]


def test_attack_a_fenced_missed_item_is_no_finding() -> None:
    body = CORPUS["N4_cop_pi_missed"]["body"]
    head, _, rest = body.partition("<details>")
    fenced = head + "```html\n<details>" + rest + "\n```"
    assert copilot_v2.read_overview(fenced).missed == []
    assert len(copilot_v2.read_overview(body).missed) == 1  # control


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        (CORPUS["N4_cop_quota"]["body"], "the requesting user reached their Copilot quota limit"),
        (
            "Copilot encountered an error and was unable to review this pull request. You can try "
            "again by re-requesting a review.",
            "encountered an error and was unable to review",
        ),
    ],
)
def test_quota_and_error_reviews_are_failed_never_findings(body: str, detail: str) -> None:
    got = ingest([comment(body, "review", REVIEWER, id=1, commit_id=HEAD)], head_sha=HEAD)
    assert got.findings == []
    assert got.state("copilot") == "failed"
    assert got.bots["copilot"].detail == detail


def test_control_a_finding_that_mentions_the_quota_stays_a_finding() -> None:
    body = "The retry ignores it when Copilot was unable to review because of a quota limit."
    got = ingest(
        [comment(body, "review_comment", "Copilot", id=1, path="a.py", line=3)], head_sha=HEAD
    )
    assert len(got.findings) == 1
