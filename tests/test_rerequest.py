"""reviewcoord/rerequest.py's decisions, without GitHub: who is due, when, and who never is."""

from __future__ import annotations

import pytest

from reviewcoord import rerequest
from reviewcoord.bots import REGISTRY, parse_comment, reviewer_keys
from reviewcoord.history import History
from reviewcoord.model import RawComment
from reviewcoord.rerequest import Timing, due
from tests.bots_support import comment, load_corpus, source_bot

HEAD = "9f1c2e4b7a0d3c5e8f6a1b2c3d4e5f60718293a4"
TIMING = Timing(fast_pack=["copilot", "cursor"], fast_timeout=180, full_timeout=480)
EXPECTED = ["codex", "copilot", "cursor", "claude"]
CORPUS = {e["corpus_id"]: e for e in load_corpus()}


def names(items: list[rerequest.Due]) -> list[str]:
    return [d.bot for d in items]


def test_not_started_is_due_at_its_packs_timeout() -> None:
    states: dict[str, tuple[str, str]] = {}
    assert names(due(states, EXPECTED, TIMING, 179, HEAD, ())) == []
    assert names(due(states, EXPECTED, TIMING, 180, HEAD, ())) == ["copilot", "cursor"]
    assert names(due(states, EXPECTED, TIMING, 480, HEAD, ())) == ["codex", "copilot", "cursor"]


def test_a_working_or_reviewed_or_skipped_bot_is_never_due() -> None:
    states = {"copilot": ("working", ""), "cursor": ("reviewed", ""), "codex": ("skipped", "")}
    assert names(due(states, EXPECTED, TIMING, 10_000, HEAD, ())) == []


def test_a_failure_on_the_head_is_due_at_once() -> None:
    states = {"copilot": ("failed", "Copilot encountered an error"), "codex": ("working", "")}
    assert names(due(states, EXPECTED, TIMING, 0, HEAD, ())) == ["copilot"]


# Real notices (tests/fixtures/bots/corpus.jsonl) that stop a bot for want of budget, billing
# or set-up: their profile marks them where it parses them; rerequest reads only that mark.
BUDGET_STOPS = [
    "N5_cr_stillwater2806_fullreview_limit",  # CodeRabbit "review limit reached (Fair Usage)"
    "N5_cr_fairusage_finished_linked",
    "N4_cr_ratelimit_verra455",
    "N4_cr_free_changeproof1",
    "N5_qodo_billing_blocked",  # "ⓘ Qodo reviews are paused because the subscription …"
    "N4_qodo_paused_subscription",
    "N4_qodo_paused_user",
    "N3_codex_dotfiles281_quota_credits",
    "N4_cop_quota",
    "N4_grep_credit_kul7",
    "N4_gem_sunset_lodestar9673",
]
RETRIABLE = ["N5_codex_wentwrong_straight", "N5_codex_wentwrong_curly"]


def _real(corpus_id: str) -> tuple[str, RawComment]:
    entry = CORPUS[corpus_id]
    bot = source_bot(entry["bot_login"])
    assert bot is not None
    return bot, comment(entry["body"], entry["endpoint"], entry["bot_login"])


@pytest.mark.parametrize("corpus_id", BUDGET_STOPS)
def test_a_real_budget_stop_is_never_asked_again(corpus_id: str) -> None:
    bot, notice = _real(corpus_id)
    parsed = parse_comment(bot, notice)
    assert parsed.kind in ("failed", "skipped") and parsed.no_budget, parsed
    assert rerequest.quota_noticed(bot, [notice])


@pytest.mark.parametrize("corpus_id", RETRIABLE)
def test_control_codex_something_went_wrong_stays_retriable(corpus_id: str) -> None:
    bot, notice = _real(corpus_id)
    parsed = parse_comment(bot, notice)
    assert parsed.kind == "failed" and not parsed.no_budget
    assert not rerequest.quota_noticed(bot, [notice])
    (item,) = due({bot: ("failed", parsed.detail)}, [bot], TIMING, 0, HEAD, ())
    assert "something went wrong" in item.why


def test_a_budget_stop_is_the_bots_own_not_words_in_another_login() -> None:
    # The Fair Usage wording written by a person, or by another bot, marks nothing.
    _, notice = _real("N5_cr_fairusage_finished_linked")
    by_person = notice.model_copy(update={"author_login": "mallory", "author_type": "User"})
    assert not rerequest.quota_noticed("coderabbit", [by_person])
    assert rerequest.quota_noticed("coderabbit", [notice])  # control: the bot's own


def test_already_asked_for_this_head_is_not_due() -> None:
    asked = [rerequest.Asked(bot="copilot", head=HEAD, at=None, how="requested_reviewers", why="x")]
    assert rerequest.asked_before(asked, "copilot", HEAD)
    assert not rerequest.asked_before(asked, "copilot", "0" * 40)  # another head: ask again
    assert names(due({}, EXPECTED, TIMING, 480, HEAD, {"copilot"})) == ["codex", "cursor"]


def test_only_bots_with_a_documented_way_are_asked() -> None:
    askable = {b for b in reviewer_keys() if rerequest.can_ask(b)}
    assert askable == {"codex", "copilot", "cursor", "coderabbit", "gemini", "greptile", "qodo"}
    copilot = REGISTRY.get("copilot")
    assert copilot is not None and copilot.review_login == "copilot-pull-request-reviewer[bot]"
    assert (
        rerequest.how("copilot") == "requested_reviewers"
        and rerequest.how("codex") == "`@codex review`"
    )


def test_the_record_keeps_the_newest_asks_and_none_when_empty() -> None:
    record = History(repo="o/r", pr=1, heads=[HEAD], cycle=1, gate="go")
    assert rerequest.merged(record, []) is None
    many = [rerequest.Asked(bot="codex", head=f"{i:040d}") for i in range(50)]
    kept = rerequest.merged(record, many)
    assert kept is not None and len(kept) == 40 and kept[-1].head == f"{49:040d}"


def test_an_old_record_without_asks_still_decodes() -> None:
    from reviewcoord.history import decode, encode

    record = History(repo="o/r", pr=1, heads=[HEAD], cycle=1, gate="go")
    body = f"<!-- review-coordinator-verdict -->\n{encode(record)}\n"
    decoded, notice = decode(body, repo="o/r", pr=1)
    assert notice is None and decoded is not None and decoded.asked is None


def test_a_long_or_hostile_failure_detail_fits_the_record() -> None:
    detail = "x\n" * 5000  # a declared reviewer's `failed` line is the bot's own text
    (item,) = due({"copilot": ("failed", detail)}, ["copilot"], TIMING, 0, HEAD, ())
    assert len(item.why) <= 300 and "\n" not in item.why
    rerequest.Asked(bot="copilot", head=HEAD, why=item.why)  # validates
