"""Declared reviewers' additions of issue 25 (docs/interface.md §7): `severity.pattern` is searched
only in the bot's own words — not in fenced blocks, code spans, block quotes or `<details>` prompt
folds — like the phrases; a `withdrawn:` phrase list (an edited comment matching it is no finding,
and says so; only the bot's own edit counts); `repeats-inline: true` for review bodies that
restate the inline findings. A declared cubic, on cubic's real review (corpus
`N5_cubic_aireview1_review`: 14 findings repeated in a fenced prompt), is the case that showed
the gap: 15 findings for 1. Each attack sits by its control."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from reviewcoord.bots import parse_comment
from reviewcoord.bots.common import own_prose
from reviewcoord.config import Settings, build_settings, declared_scope, parse_config_file
from reviewcoord.ingest import ingest
from reviewcoord.judgement import ForeignEdits, Subject, judge
from reviewcoord.model import Endpoint, ParsedComment, RawComment
from reviewcoord.normalize import merged_table
from tests.bots_support import comment, load_corpus

SRC = ".github/review-coordinator.yml"
HEAD = "c0ffee" + "0" * 34
LOGIN = "acme-review[bot]"
# A reviewer that writes like cubic: `P1:` labels, a summary review that repeats its findings.
ACME = r"""
reviewers:
  acme:
    logins: ['acme-review[bot]']
    severity:
      pattern: '^(P[0-3]):'
      levels: {P0: critical, P1: critical, P2: medium, P3: low}
    reviewed: ['issues? found\*\* across']
    withdrawn: ['^No longer relevant as of [0-9a-f]{7,40}$']
"""
CUBIC_REVIEW = next(e for e in load_corpus() if e["corpus_id"] == "N5_cubic_aireview1_review")


def build(text: str) -> Settings:
    return build_settings(
        parse_config_file(text, SRC), {}, file_source=SRC, input_source="workflow inputs"
    )


@pytest.fixture
def acme() -> Iterator[Settings]:
    settings = build(ACME)
    with declared_scope(settings):
        yield settings


def said(body: str, endpoint: Endpoint = "review", cid: int = 1, **fields: object) -> RawComment:
    if endpoint == "review_comment":
        fields = {"path": "src/app.py", "line": 12, "original_commit_id": HEAD, **fields}
    elif endpoint == "review":
        fields = {"commit_id": HEAD, **fields}
    return comment(body, endpoint, LOGIN, id=cid, **fields)


def parsed(body: str, endpoint: Endpoint = "review", **fields: object) -> ParsedComment:
    return parse_comment("acme", said(body, endpoint, **fields), merged_table({}))


def test_the_own_words_blank_fences_spans_quotes_and_prompt_folds_in_place() -> None:
    body = (
        "P1: mine\n```\nP0: fenced\n```\n> P0: quoted\n`P0: span`\n<details>\n"
        "<summary>Prompt for AI agents</summary>\n\nP0: folded\n</details>\nP2: mine too"
    )
    words = own_prose(body)
    assert len(words) == len(body)
    assert [line for line in words.split("\n") if line.strip()] == ["P1: mine", "P2: mine too"]


def test_a_review_repeating_its_findings_in_a_fenced_prompt_gives_none_of_them(
    acme: Settings,
) -> None:
    review = parsed(CUBIC_REVIEW["body"])
    # Attack (the real body): 14 labels inside the fence, some naming files in code spans.
    assert CUBIC_REVIEW["body"].count("P1:") >= 5
    assert review.findings == () and review.kind == "reviewed"
    # Control: the same label as the bot's own line is a finding.
    mine = parsed("**1 issue found** across 1 file\n\nP1: The secret is hardcoded.")
    assert [(f.severity_raw, f.title) for f in mine.findings] == [
        ("P1", "The secret is hardcoded.")
    ]


@pytest.mark.parametrize(
    "quoted",
    [
        "> P0: a block quote of the PR",
        "`P0: a code span`",
        "<details>\n<summary>🤖 Prompt for AI Agent</summary>\n\nP0: for an agent\n</details>",
    ],
)
def test_a_label_in_what_the_bot_quotes_is_no_finding(acme: Settings, quoted: str) -> None:
    assert parsed(f"Looked at it.\n\n{quoted}\n").findings == ()
    control = parsed("Looked at it.\n\nP0: its own finding\n")
    assert [f.severity for f in control.findings] == ["critical"]


def test_an_inline_label_only_in_quoted_code_is_no_label(acme: Settings) -> None:
    quoted = parsed("Consider this:\n\n```\nP0: from the diff\n```", "review_comment")
    assert [(f.severity_raw, f.severity) for f in quoted.findings] == [(None, "medium")]
    own = parsed("P0: Passwords are stored in plain text.", "review_comment")
    assert [(f.severity_raw, f.severity) for f in own.findings] == [("P0", "critical")]


def test_repeats_inline_reads_a_review_body_for_its_phrases_only() -> None:
    settings = build(ACME.replace("    withdrawn:", "    repeats-inline: true\n    withdrawn:"))
    with declared_scope(settings):
        review = parsed("**2 issues found** across 1 file\n\nP1: repeated\n\nP2: repeated too")
        assert (review.kind, review.findings) == ("reviewed", ())
        inline = parsed("P1: repeated", "review_comment")
        assert [f.severity_raw for f in inline.findings] == ["P1"]
    # Control: without it, the same body's own lines are its findings.
    with declared_scope(build(ACME)):
        body = "**2 issues found** across 1 file\n\nP1: repeated\n\nP2: repeated too"
        assert len(parsed(body).findings) == 2


EDITED = (
    "P1: The token is logged.\n\nNo longer relevant as of 6a06232237270dfc6d1e39af9611ce2ac3349ce5"
)


def verdict(comments: list[RawComment], foreign: dict[tuple[str, int], str] | None = None):  # type: ignore[no-untyped-def]
    ingested = ingest(comments, head_sha=HEAD)
    subject = Subject("o/r", 1, HEAD, comments, ingested, ["acme"])
    return judge(subject, edits=ForeignEdits(bots=foreign or {})).verdict


def test_a_withdrawn_phrase_takes_the_finding_out_and_says_so(acme: Settings) -> None:
    edited = parsed(EDITED, "review_comment")
    assert edited.kind == "noise" and edited.findings == ()
    assert [f.severity for f in edited.withdrawn_findings] == ["critical"]
    assert edited.withdrawn.startswith("No longer relevant as of 6a06232")
    result = verdict([said(EDITED, "review_comment", cid=5)])
    assert result.critical == [] and any("withdrawn by acme" in n.note for n in result.parse_notes)
    # Control: before the edit it is a critical finding.
    before = verdict([said("P1: The token is logged.", "review_comment", cid=5)])
    assert [f.severity for f in before.critical] == ["critical"]


def test_attack_a_withdrawal_someone_else_wrote_keeps_the_finding(acme: Settings) -> None:
    foreign = {("review_comment", 5): "it was edited by @mallory, not only by its author"}
    result = verdict([said(EDITED, "review_comment", cid=5)], foreign)
    assert [f.severity for f in result.critical] == ["critical"]
    # The phrase quoted in code or a quote is no withdrawal either.
    quoted = EDITED.replace("No longer", "> No longer")
    assert [f.severity for f in parsed(quoted, "review_comment").findings] == ["critical"]
