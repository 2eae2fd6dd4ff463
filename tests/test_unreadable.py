"""A format change is loud (issue 16 What #5, issue 25): a known bot's comment on the head that no
rule of its profile reads gives the bot the state `unreadable` — never `reviewed` — in the verdict
JSON, the sticky and the check run; with `require-bots` it keeps the gate from `go`. It is one
state entry quoting the comment's first line (and a parse note linking it), never also a
finding; a later readable signal of the same bot on the same head supersedes it. Each case sits
by its control (the same bot posting a body its profile reads)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from reviewcoord.ingest import ingest
from reviewcoord.pipeline import judge
from reviewcoord.render import sticky_comment
from tests.bots_support import comment, load_corpus
from tests.e2e_support import COPILOT_REVIEWER, HEAD
from tests.verdict_contract import check_verdict

CORPUS = {e["corpus_id"]: e for e in load_corpus()}
# A Copilot review in a layout no rule reads (what the next format change will look like).
NEW_LAYOUT = "## Copilot review, layout v3\n\nSomething new Copilot says about this PR."
LINE = (
    '❓ Copilot posted a review this version cannot read: "Copilot review, layout v3" '
    "(format changed?)"
)


def copilot_review(text: str) -> Any:
    return comment(text, "review", COPILOT_REVIEWER, commit_id=HEAD)


def _at(raw: Any, minute: int, number: int) -> Any:
    when = datetime(2026, 12, 1, 10, minute, tzinfo=UTC)
    return raw.model_copy(update={"id": number, "created_at": when})


def test_unreadable_is_one_state_entry_never_a_finding_and_wins_over_an_earlier_review() -> None:
    readable = _at(copilot_review(CORPUS["N4_cop_cargo11_green"]["body"]), 1, 1)
    odd = _at(copilot_review(NEW_LAYOUT), 2, 2)
    got = ingest([readable, odd], head_sha=HEAD)
    assert got.state("copilot") == "unreadable"
    assert got.findings == [] and len(got.parse_notes) == 1
    assert '"Copilot review, layout v3"' in got.bots["copilot"].detail
    control = ingest([readable], head_sha=HEAD)
    assert control.state("copilot") == "reviewed"


def test_a_later_readable_signal_of_the_same_bot_on_the_head_supersedes_unreadable() -> None:
    odd = _at(copilot_review(NEW_LAYOUT), 1, 1)
    retried = _at(copilot_review(CORPUS["N4_cop_cargo11_green"]["body"]), 5, 2)
    got = ingest([odd, retried], head_sha=HEAD)
    assert got.state("copilot") == "reviewed" and got.findings == []
    # Same time: the more cautious signal is the later one — still unreadable.
    tie = ingest([odd, retried.model_copy(update={"created_at": odd.created_at})], head_sha=HEAD)
    assert tie.state("copilot") == "unreadable"
    # Another bot's readable signal never clears it.
    other = _at(comment(CORPUS["N4_cop_cargo11_green"]["body"], "review", "cursor[bot]"), 6, 3)
    assert ingest([odd, other], head_sha=HEAD).state("copilot") == "unreadable"


def test_an_unreadable_comment_on_an_older_head_says_nothing_about_this_one() -> None:
    old = comment(NEW_LAYOUT, "review", COPILOT_REVIEWER, commit_id="0" * 40)
    assert ingest([old], head_sha=HEAD).state("copilot") == "not_seen"


def test_the_sticky_says_it_and_require_bots_blocks() -> None:
    verdict = judge(
        [copilot_review(NEW_LAYOUT)],
        repo="o/r",
        pr=2,
        head_sha=HEAD,
        expected=["copilot"],
        required=["copilot"],
    )
    data = verdict.to_json_dict()
    check_verdict(data)
    assert data["bots"]["copilot"]["state"] == "unreadable"
    assert data["unreviewed"] == ["copilot"] and data["pending"] == []
    assert verdict.gate == "block" and "cannot read" in verdict.gate_reason
    assert LINE in sticky_comment(verdict)
    control = judge(
        [copilot_review(CORPUS["N4_cop_cargo11_green"]["body"])],
        repo="o/r",
        pr=2,
        head_sha=HEAD,
        expected=["copilot"],
        required=["copilot"],
    )
    assert control.gate == "go"


def test_no_corpus_body_of_a_known_bot_is_unreadable() -> None:
    # The corpus test asserts no parse note; here the state too: every real body is read.
    from tests.bots_support import corpus_comment, source_bot

    for index, entry in enumerate(CORPUS.values()):
        bot = source_bot(entry["bot_login"])
        if bot is None or entry["endpoint"] == "unknown":
            continue
        raw = corpus_comment(entry, index + 1).model_copy(update={"commit_id": None})
        assert ingest([raw], head_sha=HEAD).state(bot) != "unreadable", entry["corpus_id"]
