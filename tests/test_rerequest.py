"""reviewcoord/rerequest.py's decisions, without GitHub: who is due, when, and who never is."""

from __future__ import annotations

from reviewcoord import rerequest
from reviewcoord.bots import REGISTRY, reviewer_keys
from reviewcoord.history import History
from reviewcoord.rerequest import Timing, due

HEAD = "9f1c2e4b7a0d3c5e8f6a1b2c3d4e5f60718293a4"
TIMING = Timing(fast_pack=["copilot", "cursor"], fast_timeout=180, full_timeout=480)
EXPECTED = ["codex", "copilot", "cursor", "claude"]


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


def test_a_failure_is_due_at_once_unless_it_is_about_budget() -> None:
    states = {
        "copilot": ("failed", "Copilot encountered an error"),
        "codex": ("failed", "usage limit reached"),
    }
    assert names(due(states, EXPECTED, TIMING, 0, HEAD, ())) == ["copilot"]
    for detail in (
        "usage limit reached",
        "credits are required for reviews",
        "daily quota limit reached",
        "Codex is not set up for this repository (no environment or account connected)",
    ):
        assert rerequest.no_budget(detail), detail
    assert not rerequest.no_budget("could not complete the review request")


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
