"""Issue 15 "No false go", the parts owned by the bot profiles: each route an attacker (or a
careless day) takes to turn a finding into a notice, a person into a bot, a refusal into a
withdrawal, or a critical layout into a medium — and, beside each, the control that shows the
same input without the attack behaves as it should."""

from __future__ import annotations

from pathlib import Path

import pytest

from reviewcoord.bots import parse_comment
from reviewcoord.ingest import ingest
from reviewcoord.model import ParsedComment, RawComment
from reviewcoord.pipeline import judge
from reviewcoord.render import sticky_comment
from tests.bots_support import comment, corpus_comment, load_corpus

HEAD = "c0ffee" + "0" * 34
QUOTED_SKIP = "```\nlog('⚠️ **Code review skipped** — spend limit reached')\n```"
FINISHED = (
    "**Claude finished @octocat's task in 2m 3s** —— [View job](https://github.com/x)\n\n---\n"
)


def _corpus(corpus_id: str) -> RawComment:
    for number, entry in enumerate(load_corpus(), start=1):
        if entry["corpus_id"] == corpus_id:
            return corpus_comment(entry, number)
    raise KeyError(corpus_id)


def run(bot: str, body: str, endpoint: str = "review_comment", **fields: object) -> ParsedComment:
    login = {
        "claude": "claude[bot]",
        "coderabbit": "coderabbitai[bot]",
        "copilot": "Copilot",
        "codex": "chatgpt-codex-connector[bot]",
        "cursor": "cursor[bot]",
        "gemini": "gemini-code-assist[bot]",
        "greptile": "greptile-apps[bot]",
    }[bot]
    return parse_comment(bot, comment(body, endpoint, login, **fields))  # type: ignore[arg-type]


# --- Why 1: text inside a finding never makes it a notice -------------------------------------


def test_claude_managed_critical_quoting_code_review_skipped_stays_critical() -> None:
    attack = run("claude", f"🔴 **Important** The token is logged.\n\n{QUOTED_SKIP}", path="a.py")
    assert attack.kind == "finding" and attack.findings[0].severity == "critical"
    # Control: Claude's real skip notice (L_qoax_skipped) is still a failed run.
    control = parse_comment("claude", _corpus("L_qoax_skipped"))
    assert control.kind == "failed" and "spend limit" in control.detail


def test_claude_finished_review_quoting_code_review_skipped_keeps_its_finding() -> None:
    body = (
        FINISHED + "### 🔴 **Critical: The token is logged**\n**Location:** `src/log.py:7`\n\n"
        "Code review skipped — this string is the PR's own log line.\n" + QUOTED_SKIP
    )
    attack = run("claude", body, "issue_comment")
    assert attack.kind == "finding"
    assert [(f.title, f.severity, f.file, f.line) for f in attack.findings] == [
        ("The token is logged", "critical", "src/log.py", 7)
    ]


def test_claude_error_and_working_only_by_their_lead() -> None:
    quoted = (
        FINISHED + "### 🔴 **Critical: Shell injection**\n"
        "> **Claude encountered an error** —— and Claude Code is working…\n"
    )
    assert run("claude", quoted, "issue_comment").findings[0].severity == "critical"
    assert run("claude", "**Claude encountered an error after 45s** —— [View job](u)",
               "issue_comment").kind == "failed"  # fmt: skip
    assert run("claude", "Claude Code is working… <img src='x'/>", "issue_comment").kind == (
        "in_progress"
    )


CR_CRITICAL = (
    "_⚠️ Potential issue_ | _🔴 Critical_\n\n**SQL built from user input.**\n\n"
    "The handler logs:\n\n```\n<!-- This is an auto-generated comment: rate limited by "
    "coderabbit.ai -->\n> ## Review limit reached\nReview limit reached\n```\n"
)


def test_coderabbit_critical_quoting_review_limit_reached_stays_critical() -> None:
    attack = run("coderabbit", CR_CRITICAL, path="a.py", line=3)
    assert attack.kind == "finding"
    assert [(f.title, f.severity) for f in attack.findings] == [
        ("SQL built from user input.", "critical")
    ]
    # Control: the same words as CodeRabbit frames its own notice are a rate limit.
    notice = (
        "<!-- This is an auto-generated comment: summarize by coderabbit.ai -->\n"
        "<!-- This is an auto-generated comment: rate limited by coderabbit.ai -->\n\n"
        "> [!WARNING]\n> ## Review limit reached\n>\n> you've reached your PR review limit.\n"
    )
    assert run("coderabbit", notice, "issue_comment").kind == "failed"


def test_coderabbit_summary_quoting_a_notice_heading_in_code_is_not_one() -> None:
    body = (
        "<!-- This is an auto-generated comment: summarize by coderabbit.ai -->\n"
        "## Walkthrough\n\n```md\n> ## Review skipped\n```\n"
    )
    assert run("coderabbit", body, "issue_comment").kind == "noise"


def test_copilot_finding_mentioning_fixed_in_a_sha_stays_a_finding() -> None:
    attack = run(
        "copilot",
        "This retries forever when the server is down; the loop was fixed in 0c66f2d but "
        "reintroduced here.",
        path="a.py",
        line=4,
    )
    assert attack.kind == "finding" and attack.findings
    # Control: the coding agent's real reply (Z41) opens as a reply and stays chatter.
    assert parse_comment("copilot", _corpus("Z41")).kind == "noise"


@pytest.mark.parametrize(
    ("bot", "body", "endpoint"),
    [
        ("codex", "Something new.\n\n> Codex usage limits have been reached", "issue_comment"),
        ("cursor", "Something new.\n\n`Skipping Bugbot: disabled`", "issue_comment"),
        ("gemini", "Something new.\n\nYou have reached your daily quota limit", "issue_comment"),
        ("copilot", "Overview.\n\nCopilot encountered an error and was unable to review", "review"),
    ],
)
def test_other_bots_notices_only_by_their_first_line(bot: str, body: str, endpoint: str) -> None:
    attack = run(bot, body, endpoint)
    assert attack.unreadable and attack.parse_note  # unclassified: loud, never a notice
    # Control: the notice as the bot's first line is still the notice.
    notice = body.split("\n\n", 1)[1].strip("> `")
    assert run(bot, notice, endpoint).kind in ("failed", "skipped")


# --- Why 3: only an affirmative withdrawal withdraws ------------------------------------------

GREPTILE_P0 = (
    '<a href="#"><img alt="P0" src="https://greptile-static-assets.s3.amazonaws.com/badges/'
    'p0.svg?v=9" align="top"></a> **Unsafe exception-state iteration**\n\nIt crashes.'
)


@pytest.mark.parametrize(
    ("reply", "withdrawn"),
    [
        ("I will not withdraw this finding; the crash is real.", False),
        ("I'm not withdrawing this finding.", False),
        ('You asked me to "withdraw this finding". The crash is real.', False),
        # Control: Greptile's own affirmative withdrawal (docs/bot-formats.md §13).
        ("That context resolves the concern, so I’m withdrawing this finding.", True),
    ],
)
def test_greptile_withdraws_only_affirmatively(reply: str, withdrawn: bool) -> None:
    finding = comment(GREPTILE_P0, "review_comment", "greptile-apps[bot]", id=10,
                      path="a.py", line=3, original_commit_id=HEAD)  # fmt: skip
    answer = comment(reply, "review_comment", "greptile-apps[bot]", id=11, in_reply_to_id=10)
    got = ingest([finding, answer], head_sha=HEAD)
    assert (got.findings == []) is withdrawn


# --- Why 2: a person named like a bot is a person ---------------------------------------------


def _person(login: str, body: str, endpoint: str = "issue_comment", **fields: object) -> RawComment:
    return comment(body, endpoint, login, **fields).model_copy(update={"author_type": "User"})  # type: ignore[arg-type]


def test_a_user_named_claude_never_satisfies_require_bots() -> None:
    clean = "LGTM — small, well-tested change."
    attack = judge([_person("claude", clean, "review", commit_id=HEAD)], repo="o/r", pr=1,
                   head_sha=HEAD, expected=["claude"], required=["claude"])  # fmt: skip
    assert attack.gate == "block" and attack.bots["claude"].state == "not_seen"
    assert attack.impostors == {"claude": "claude"}
    text = sticky_comment(attack)
    assert text.count("`claude` is not Claude") == 1
    # Control: the App itself (`claude[bot]`, type Bot) does.
    control = judge([comment(clean, "review", "claude[bot]", commit_id=HEAD)], repo="o/r",
                    pr=1, head_sha=HEAD, expected=["claude"], required=["claude"])  # fmt: skip
    assert control.gate == "go" and control.impostors == {}


def test_a_user_named_greptile_apps_cannot_withdraw_greptiles_p0() -> None:
    finding = comment(GREPTILE_P0, "review_comment", "greptile-apps[bot]", id=10,
                      path="a.py", line=3, original_commit_id=HEAD)  # fmt: skip
    reply = "That context resolves the concern, so I’m withdrawing this finding."
    attack = _person("greptile-apps", reply, "review_comment", id=11, in_reply_to_id=10)
    got = ingest([finding, attack], head_sha=HEAD)
    assert [f.severity_raw for f in got.findings] == ["P0"]
    assert got.impostors == {"greptile-apps": "greptile"}


def test_a_user_named_like_codex_posting_a_clean_verdict_is_not_codex() -> None:
    clean = "Codex Review: Didn't find any major issues. Swish!"
    attack = ingest([_person("chatgpt-codex-connector", clean)], head_sha=HEAD)
    assert attack.state("codex") == "not_seen" and attack.seen == {}
    control = ingest([comment(clean, "issue_comment", "chatgpt-codex-connector[bot]")],
                     head_sha=HEAD)  # fmt: skip
    assert control.state("codex") == "reviewed"


# --- Why 11: Claude's critical layouts are critical -------------------------------------------


def test_claude_critical_issues_section_with_numbered_subheadings() -> None:
    body = FINISHED + (
        "## Code Review\n\n### 🔴 Critical Issues\n\n"
        "#### 1. SQL injection in `src/db.py:42`\nUser input reaches the query.\n\n"
        "#### 2. Token written to the log\n- **File:** `src/log.py:7`\n- **Fix:** redact it.\n\n"
        "### 🟡 Suggestions\n\n1. **Rename `x`** — `src/a.py:3`\n"
    )
    parsed = run("claude", body, "issue_comment")
    got = [(f.title, f.severity, f.file, f.line) for f in parsed.findings]
    assert got == [
        ("SQL injection in `src/db.py:42`", "critical", "src/db.py", 42),
        ("Token written to the log", "critical", "src/log.py", 7),
        ("Rename `x`", "medium", "src/a.py", 3),
    ]
    assert "Claude finished" not in " ".join(f.title for f in parsed.findings)


def test_claude_bold_critical_leads() -> None:
    body = FINISHED + (
        "## Review\n\n**🔴 Critical: Session fixation after login**\n"
        "The session id is kept (`app/auth.py:88`).\n\n"
        "**🔴 Critical: Passwords compared with ==**\n\n**Critical:** None\n"
    )
    parsed = run("claude", body, "issue_comment")
    assert [(f.title, f.severity) for f in parsed.findings] == [
        ("Session fixation after login", "critical"),
        ("Passwords compared with ==", "critical"),
    ]
    # Control: a review that says there is nothing critical stays clean.
    clean = FINISHED + "## Review\n\n**Critical issues:** None found. Approve.\n"
    assert run("claude", clean, "issue_comment").kind == "clean"


REAL_SUBHEADINGS = Path(__file__).parent / "fixtures/bots/claude/skogai_lore47_issues_found.md"


@pytest.mark.parametrize(
    ("heading", "severity"),
    [("### ⚠️ Issues Found", "medium"), ("### 🔴 Critical Issues", "critical")],
)
def test_claude_real_numbered_subheadings_give_one_finding_each(
    heading: str, severity: str
) -> None:
    text = REAL_SUBHEADINGS.read_text(encoding="utf-8").replace("### ⚠️ Issues Found", heading)
    parsed = run("claude", text, "issue_comment")
    assert parsed.kind == "finding" and not parsed.parse_note
    assert [(f.title, f.severity, f.file, f.line) for f in parsed.findings] == [
        ("Stray closing tag in entry.md:118", severity, "entry.md", 118),
        ("Wrong code fence in book.md:124-130", severity, "book.md", 124),
        ('Duplicate "Using jq" sections in book.md', severity, None, None),
    ]


def test_greptile_summary_only_by_its_framing() -> None:
    footer = "Last reviewed commit: [fix](https://github.com/o/r/commit/" + "a" * 40 + ")"
    attack = run("greptile", f"Some new layout.\n\n> {footer}\n", "issue_comment")
    assert attack.unreadable and attack.parse_note  # not a done signal: loud
    control = run("greptile", f"<!-- greptile_summary -->\n<h3>Greptile Summary</h3>\n\n{footer}",
                  "issue_comment")  # fmt: skip
    assert (control.kind, control.reviewed_commit) == ("reviewed", "a" * 40)


def test_claude_error_header_over_findings_keeps_them() -> None:
    body = (
        "**Claude encountered an error after 7m** —— [View job](u)\n\n### 🔴 **Critical: Leak**\n"
    )
    parsed = run("claude", body, "issue_comment")
    assert parsed.kind == "failed" and parsed.parse_note
    assert [(f.title, f.severity) for f in parsed.findings] == [("Leak", "critical")]
    # Control: the plain error header carries nothing.
    assert run("claude", body.split("\n\n", 1)[0], "issue_comment").findings == ()
