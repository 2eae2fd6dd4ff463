"""Every notice is a state (issue 16 What #2): the late-2026 notices of each bot are `failed`
(error, quota, credits, billing) or `skipped` (sunset, plan, too many files, skip rules), with the
bot's own words as the detail, never a finding; warnings and advertisements report nothing. Real
bodies from the corpus (`N4_*`); each attack (the same words where they are not the bot's framing)
sits by its control."""

from __future__ import annotations

import pytest

from reviewcoord.bots import parse_comment
from reviewcoord.ingest import ingest
from reviewcoord.model import Endpoint, Verdict
from reviewcoord.pipeline import judge
from reviewcoord.render import sticky_comment
from tests.bots_support import comment, load_corpus, source_bot

HEAD = "c" * 40
CORPUS = {e["corpus_id"]: e for e in load_corpus()}


def read(corpus_id: str) -> tuple[str, str, int]:
    entry = CORPUS[corpus_id]
    bot = source_bot(entry["bot_login"])
    assert bot is not None
    parsed = parse_comment(bot, comment(entry["body"], entry["endpoint"], entry["bot_login"]))
    return parsed.kind, parsed.detail, len(parsed.findings)


@pytest.mark.parametrize(
    ("corpus_id", "kind", "detail"),
    [
        ("N4_cop_quota", "failed", "the requesting user reached their Copilot quota limit"),
        (
            "N4_gem_sunset_lodestar9673",
            "skipped",
            "The consumer version of Gemini Code Assist on GitHub has been sunset. It will not "
            "review again: remove `gemini` from `expected-bots`.",
        ),
        (
            "N4_grep_credit_kul7",
            "failed",
            "`Kuldeep2822k` has reached the 50-credit limit for trial accounts. To continue "
            "receiving code reviews, upgrade your plan.",
        ),
        (
            "N4_grep_toomany_log1229",
            "skipped",
            "Too many files changed for review. (`3000 files found`, `500 file limit`)",
        ),
        (
            "N4_qodo_paused_subscription",
            "failed",
            "Qodo reviews are paused because the subscription is no longer active.",
        ),
        ("N4_qodo_paused_user", "failed", "Qodo reviews are paused for this user."),
        (
            "N4_cr_free_changeproof1",
            "skipped",
            "Grimblaz-and-Friends is on CodeRabbit Free, which includes PR summaries. Ask your "
            "admin to upgrade for code reviews.",
        ),
        ("N4_cr_ratelimit_verra455", "failed", "review limit reached"),
    ],
)
def test_real_notice_is_a_state_with_the_bots_words(corpus_id: str, kind: str, detail: str) -> None:
    assert read(corpus_id) == (kind, detail, 0)


# Wordings known from FORMATS-2026 §9 only (no public body found to copy): `reported`.
@pytest.mark.parametrize(
    ("bot", "login", "endpoint", "body", "kind"),
    [
        (
            "gemini",
            "gemini-code-assist[bot]",
            "issue_comment",
            "Gemini is unable to generate a review for this pull request due to the file types "
            "involved not being currently supported.",
            "skipped",
        ),
        ("greptile", "greptile-apps[bot]", "issue_comment", "Your free trial has ended.", "failed"),
        (
            "greptile",
            "greptile-apps[bot]",
            "issue_comment",
            "Want your agent to iterate on Greptile's feedback? Try greploops",
            "noise",
        ),
        (
            "qodo",
            "qodo-code-review[bot]",
            "issue_comment",
            "ⓘ You are approaching your monthly quota for Qodo.",
            "noise",
        ),
        (
            "coderabbit",
            "coderabbitai[bot]",
            "issue_comment",
            "<!-- This is an auto-generated comment: skip review by coderabbit.ai -->\n\n"
            "Reviews are skipped: this repository has fewer than 10 stars.",
            "skipped",
        ),
    ],
)
def test_reported_notices(bot: str, login: str, endpoint: Endpoint, body: str, kind: str) -> None:
    parsed = parse_comment(bot, comment(body, endpoint, login))
    assert (parsed.kind, parsed.findings) == (kind, ())


def test_a_marker_only_skip_gives_coderabbits_own_words() -> None:
    body = (
        "<!-- This is an auto-generated comment: skip review by coderabbit.ai -->\n\n"
        "Reviews are skipped: this repository has fewer than 10 stars."
    )
    parsed = parse_comment("coderabbit", comment(body, "issue_comment", "coderabbitai[bot]"))
    assert parsed.detail == "Reviews are skipped: this repository has fewer than 10 stars."


@pytest.mark.parametrize(
    ("bot", "login", "endpoint", "body"),
    [
        # Greptile: a P2 finding titled with the notice's words is a finding.
        (
            "greptile",
            "greptile-apps[bot]",
            "review_comment",
            '<a href="#"><img alt="P2" src="https://greptile-static-assets.s3.amazonaws.com/'
            'badges/p2.svg?v=9" align="top"></a> **Too many files changed for review**\n\n'
            "The guard skips the check when the count is large.",
        ),
        # Gemini: the sunset sentence quoted further down a comment is no notice of Gemini's.
        (
            "gemini",
            "gemini-code-assist[bot]",
            "review_comment",
            "![medium](https://www.gstatic.com/codereviewagent/medium-priority.svg)\n\nThe README "
            "still says: > [!CAUTION] The consumer version of Gemini Code Assist on GitHub has "
            "been sunset.",
        ),
        # CodeRabbit: an inline finding that quotes the Free-plan notice.
        (
            "coderabbit",
            "coderabbitai[bot]",
            "review_comment",
            "_⚠️ Potential issue_ | _🟠 Major_\n\n**acme is on CodeRabbit Free, which includes PR "
            "summaries.**\n\nThe banner text is hard-coded.",
        ),
    ],
)
def test_attack_notice_words_inside_a_finding_stay_a_finding(
    bot: str, login: str, endpoint: Endpoint, body: str
) -> None:
    parsed = parse_comment(bot, comment(body, endpoint, login, path="a.py", line=3))
    assert parsed.kind == "finding" and len(parsed.findings) == 1


def test_attack_a_quoted_qodo_pause_is_not_qodos_notice() -> None:
    body = "> Qodo reviews are paused because the subscription is no longer active."
    parsed = parse_comment("qodo", comment(body, "issue_comment", "qodo-code-review[bot]"))
    assert parsed.kind != "failed"
    control = body.removeprefix("> ")
    assert (
        parse_comment("qodo", comment(control, "issue_comment", "qodo-code-review[bot]")).kind
        == "failed"
    )


def test_attack_a_person_posting_the_sunset_notice_is_not_gemini() -> None:
    body = CORPUS["N4_gem_sunset_lodestar9673"]["body"]
    raw = comment(body, "issue_comment", "gemini-code-assist[bot]").model_copy(
        update={"author_type": "User"}
    )
    got = ingest([raw], head_sha=HEAD)
    assert got.state("gemini") == "not_seen"
    control = ingest([comment(body, "issue_comment", "gemini-code-assist[bot]")], head_sha=HEAD)
    assert control.state("gemini") == "skipped"


def test_bugbot_review_without_marker_and_with_the_billing_warning_is_a_review() -> None:
    plain = "Cursor Bugbot has reviewed your changes and found 2 potential issues."
    warned = "This is the final PR Bugbot will review for you during this billing cycle\n\n" + plain
    for body in (plain, warned):
        got = ingest([comment(body, "review", "cursor[bot]", commit_id=HEAD)], head_sha=HEAD)
        assert got.state("cursor") == "reviewed", body
        assert got.findings == []
    limit = "Bugbot couldn't run - usage limit reached"
    got = ingest([comment(limit, "issue_comment", "cursor[bot]")], head_sha=HEAD)
    assert got.state("cursor") == "failed"


def test_the_sunset_shows_in_the_sticky_with_the_advice() -> None:
    raw = comment(
        CORPUS["N4_gem_sunset_lodestar9673"]["body"], "issue_comment", "gemini-code-assist[bot]"
    )
    verdict: Verdict = judge([raw], repo="o/r", pr=1, head_sha=HEAD, expected=["gemini"])
    assert verdict.bots["gemini"].state == "skipped"
    assert verdict.critical == [] and verdict.advisory == []
    text = sticky_comment(verdict)
    assert "Gemini skipped" in text and "remove `gemini` from `expected-bots`" in text
