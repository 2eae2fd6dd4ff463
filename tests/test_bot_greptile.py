"""Greptile (docs/bot-formats.md §13): badges, titles, the Fix-in-Codex range, the summary's
reviewed commit and Greptile's own withdrawal of a finding."""

from __future__ import annotations

import pytest

from reviewcoord.bots import bot_for_author, display_name, parse_comment, rerequest_hint
from reviewcoord.ingest import ingest
from reviewcoord.model import RawComment
from tests.bots_support import comment, graphql_bot, load_corpus

LOGIN = "greptile-apps[bot]"
HEAD = "fd4f3c3bf0cb80ce508a37bd9a6f2a892d3980b8"  # U_greptile_summary's last reviewed commit
CORPUS = {e["corpus_id"]: e for e in load_corpus()}


def badge(alt: str) -> str:
    src = f"https://greptile-static-assets.s3.amazonaws.com/badges/{alt.lower()}.svg?v=9"
    return f'<a href="#"><img alt="{alt}" src="{src}" align="top"></a>'


def real(corpus_id: str, cid: int = 1, **fields: object) -> RawComment:
    entry = CORPUS[corpus_id]
    return comment(entry["body"], entry["endpoint"], LOGIN, id=cid, **fields)


def test_profile() -> None:
    assert bot_for_author(LOGIN, "Bot") == "greptile"
    assert graphql_bot("greptile-apps") == "greptile"
    assert display_name("greptile") == "Greptile"
    assert rerequest_hint("greptile") == "re-request with `@greptileai`"


@pytest.mark.parametrize(
    ("alt", "level"), [("P0", "critical"), ("P1", "medium"), ("P2", "low"), ("P3", "low")]
)
def test_badge_levels(alt: str, level: str) -> None:
    body = f"{badge(alt)} **Off by one**\n\nThe loop skips the last item."
    (finding,) = parse_comment("greptile", comment(body, login=LOGIN, path="a.py")).findings
    assert (finding.severity_raw, finding.severity, finding.title) == (alt, level, "Off by one")


def test_plain_title_and_security_tag_kept_out_of_the_title() -> None:
    security = (
        '<img alt="security" src="https://greptile-static-assets.s3.amazonaws.com/badges/'
        'Security.svg?v=2" align="top">'
    )
    body = f"{badge('P1')} {security} Token logged in plain text\n\nThe token is printed."
    (finding,) = parse_comment("greptile", comment(body, login=LOGIN)).findings
    assert finding.title == "Token logged in plain text"
    assert finding.severity_raw == "P1"
    assert finding.gist.startswith("[security] ")


def test_fix_in_codex_line_range_when_the_anchor_lacks_it() -> None:
    (finding,) = parse_comment("greptile", real("N3_grep_uos8_p0_fixincodex")).findings
    assert (finding.file, finding.line, finding.line_end) == ("src/V12_002.cs", 255, 256)
    assert finding.severity == "critical"
    anchored = real("N3_grep_uos8_p0_fixincodex", line=300)
    (finding,) = parse_comment("greptile", anchored).findings
    assert (finding.line, finding.line_end) == (300, None)


def test_empty_review_and_summary_are_no_findings() -> None:
    empty = parse_comment("greptile", real("N3_grep_nvf5117_review_empty"))
    assert (empty.kind, empty.findings) == ("noise", ())
    summary = parse_comment("greptile", real("U_greptile_summary"))
    assert summary.kind == "reviewed"
    assert summary.findings == ()
    assert summary.reviewed_commit == HEAD


def test_summary_marks_reviewed_only_on_its_commit() -> None:
    assert ingest([real("U_greptile_summary")], head_sha=HEAD).state("greptile") == "reviewed"
    other = "1" * 40
    assert ingest([real("U_greptile_summary")], head_sha=other).state("greptile") == "not_seen"


WITHDRAWAL = (
    "That context resolves the concern. The value is resolved before this line runs, "
    "so I’m withdrawing this finding; no code change is needed."
)


def test_withdrawal_end_to_end() -> None:
    finding = real("N3_grep_nvf5117_p1", 10)
    reply = comment(
        WITHDRAWAL,
        "review_comment",
        LOGIN,
        id=11,
        in_reply_to_id=10,
        html_url="https://github.com/o/r/pull/1#discussion_r11",
    )
    before = ingest([finding], head_sha=HEAD)
    assert [f.title for f in before.findings] == ["Unsafe exception-state iteration"]
    after = ingest([finding, reply], head_sha=HEAD)
    assert after.findings == []
    assert [(n.bot, n.url, n.note) for n in after.parse_notes] == [
        (
            "greptile",
            "https://github.com/o/r/pull/1#discussion_r11",
            "finding withdrawn by Greptile in its thread: Unsafe exception-state iteration",
        )
    ]


def test_withdrawal_only_touches_the_same_bots_comment() -> None:
    other_bot = comment(
        "**<sub><sub>![P1 Badge](https://img.shields.io/badge/P1-orange?style=flat)</sub></sub>"
        "  Something**\n\nIt breaks.",
        "review_comment",
        "chatgpt-codex-connector[bot]",
        id=10,
    )
    ours = real("N3_grep_nvf5117_p1", 12)
    reply = comment(WITHDRAWAL, "review_comment", LOGIN, id=11, in_reply_to_id=10)
    got = ingest([other_bot, ours, reply], head_sha=HEAD)
    assert {f.bot for f in got.findings} == {"codex", "greptile"}
    assert got.parse_notes == [] or all("withdrawn" not in n.note for n in got.parse_notes)


def test_ordinary_reply_is_noise() -> None:
    reply = comment("Thanks, makes sense.", "review_comment", LOGIN, in_reply_to_id=5)
    got = parse_comment("greptile", reply)
    assert (got.kind, got.withdraws) == ("noise", None)
