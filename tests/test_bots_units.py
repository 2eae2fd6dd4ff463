"""Focused parser cases beyond the corpus: logins, shapes the corpus lacks, locations, limits."""

from __future__ import annotations

import pytest

from reviewcoord.bots import REGISTRY, bot_for_author, claude, codex, copilot, cursor, parse_comment
from reviewcoord.model import BotKey, Endpoint, ParsedComment, RawComment
from tests.bots_support import comment

BADGE = (
    "**<sub><sub>![{p} Badge](https://img.shields.io/badge/{p}-{c}?style=flat)</sub></sub>  {t}**"
)
SHA40 = "44d92c983c6d2fb9dc6314c5f819b645b13e77f9"


def run(
    bot: BotKey, body: str, endpoint: Endpoint = "review_comment", **kw: object
) -> ParsedComment:
    return parse_comment(bot, comment(body, endpoint, **kw))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("login", "key"),
    [
        ("chatgpt-codex-connector[bot]", "codex"),
        ("copilot-pull-request-reviewer[bot]", "copilot"),
        ("Copilot", "copilot"),
        ("cursor[bot]", "cursor"),
        ("claude[bot]", "claude"),
        ("CLAUDE[BOT]", "claude"),
        ("greptile-apps[bot]", "greptile"),
        ("coderabbitai[bot]", "coderabbit"),
        ("gemini-code-assist[bot]", "gemini"),
        ("qodo-code-review[bot]", "qodo"),
        ("github-advanced-security[bot]", "code-scanning"),
        # REST always returns an App's `[bot]`: a suffix-less login is no App's REST login.
        ("claude", None),
        ("chatgpt-codex-connector", None),
        ("someone", None),
    ],
)
def test_a_bot_is_its_rest_login_of_a_bot_account(login: str, key: str | None) -> None:
    assert bot_for_author(login, "Bot") == key
    # The same login on a user account is nobody's reviewer (identity = login *and* type).
    assert bot_for_author(login, "User") is None


@pytest.mark.parametrize(
    ("login", "typename", "key"),
    [
        ("chatgpt-codex-connector", "Bot", "codex"),
        ("copilot-pull-request-reviewer", "Bot", "copilot"),
        ("claude", "Bot", "claude"),
        ("greptile-apps", "Bot", "greptile"),
        # GraphQL's suffix-less spelling maps only for a Bot author.
        ("claude", "User", None),
        ("chatgpt-codex-connector", "User", None),
        ("claude", "Organization", None),
    ],
)
def test_graphql_logins_map_only_for_bot_authors(
    login: str, typename: str, key: str | None
) -> None:
    assert REGISTRY.bot_for_graphql_author(login, typename) == key


@pytest.mark.parametrize(
    ("login", "account_type", "imitated"),
    [
        ("claude", "User", "claude"),
        ("chatgpt-codex-connector", "User", "codex"),
        ("greptile-apps", "User", "greptile"),
        ("claude[bot]", "User", "claude"),  # cannot happen on GitHub; still no bot
        # Controls: the bots themselves, other Apps and people with other names are none.
        ("claude[bot]", "Bot", None),
        ("claude", "Bot", None),
        ("Copilot", "Bot", None),
        ("octocat", "User", None),
    ],
)
def test_a_person_named_like_a_bot_is_an_impostor(
    login: str, account_type: str, imitated: str | None
) -> None:
    assert REGISTRY.impostor_of(login, account_type) == imitated


def test_greptile_p1_is_not_codex() -> None:
    body = (
        '<a href="#"><img alt="P1" src="https://greptile-static-assets.s3.amazonaws.com/badges/'
        'p1.svg?v=9" align="top"></a> **Lock is never released**'
    )
    assert bot_for_author("greptile-apps[bot]", "Bot") == "greptile"
    assert run("greptile", body).findings[0].severity == "medium"  # Greptile P1, not Codex P1
    # Even under the Codex parser, a non-shields P1 image is no Codex badge.
    assert run("codex", body).parse_note is not None


def test_codex_badge_from_other_login_is_not_codex() -> None:
    body = BADGE.format(p="P1", c="orange", t="Looks like Codex")
    assert bot_for_author("copilot-pull-request-reviewer[bot]", "Bot") == "copilot"
    parsed = run("copilot", body, "review_comment", login="Copilot")
    assert [f.severity_raw for f in parsed.findings] == [None]
    assert all(f.bot == "copilot" and f.severity == "medium" for f in parsed.findings)


@pytest.mark.parametrize(
    ("label", "colour", "level"),
    [
        ("P0", "red", "critical"),
        ("P1", "orange", "critical"),
        ("P2", "yellow", "medium"),
        ("P3", "lightgrey", "low"),
        ("P3", "blue", "low"),
        ("P3", "green", "low"),
    ],
)
def test_codex_severity_from_label_not_colour(label: str, colour: str, level: str) -> None:
    body = (
        BADGE.format(p=label, c=colour, t="Title here") + "\n\nBody.\n\nUseful? React with 👍 / 👎."
    )
    (finding,) = run("codex", body, path="a.py", line=3).findings
    assert (finding.severity_raw, finding.severity, finding.title) == (label, level, "Title here")
    assert (finding.file, finding.line) == ("a.py", 3)


# The real shape of SkogAI/memory#2 review 4125529841 (from the notification e-mail).
CODEX_REVIEW_FINDING = (
    "\n### 💡 Codex Review\n\n"
    "https://github.com/SkogAI/memory/blob/ed1183e661dc86f7d092e2b77061bcb0dc278261/src/"
    "basic_memory/mcp/tools/move_note.py#L45-L46\n"
    + BADGE.format(p="P1", c="orange", t="Stop blocking moves based on project-like folder names")
    + "\n\nThe cross-project guard rejects any destination path segment.\n    \n\n"
    "<details> <summary>ℹ️ About Codex in GitHub</summary>\n</details>"
)


@pytest.mark.parametrize("endpoint", ["review", "issue_comment"])
def test_codex_permalink_finding(endpoint: Endpoint) -> None:
    parsed = run("codex", CODEX_REVIEW_FINDING, endpoint)
    (finding,) = parsed.findings
    assert finding.title == "Stop blocking moves based on project-like folder names"
    assert (finding.file, finding.line, finding.line_end) == (
        "src/basic_memory/mcp/tools/move_note.py",
        45,
        46,
    )
    assert finding.severity == "critical"


def test_codex_wrapper_keeps_reviewed_commit() -> None:
    body = "\n### 💡 Codex Review\n\nHere are some automated review suggestions.\n\n"
    body += "**Reviewed commit:** `8537aec04d`\n"
    parsed = run("codex", body, "review")
    assert (parsed.kind, parsed.reviewed_commit) == ("noise", "8537aec04d")


SUMMARY = (
    "<!-- codex-pull-request-review-summary -->\n## Codex Review Summary\n"
    "| Review | Status | Commit | Review trigger |\n|---|---|---|---|\n"
    "| 📝 **Code Review** | {status} <relative-time>now</relative-time> | `abc1234def` "
    "| PR opened |"
)


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        ("🔄 **Running**", "in_progress"),
        ("✅ **Completed**", "reviewed"),
        ("❌ **Failed**", "failed"),
    ],
)
def test_codex_summary_tracker(status: str, kind: str) -> None:
    parsed = run("codex", SUMMARY.format(status=status), "issue_comment")
    assert parsed.kind == kind
    assert parsed.reviewed_commit == "abc1234def"


@pytest.mark.parametrize(
    "closer",
    [
        "Swish!",
        "Keep it up!",
        "Delightful!",
        "More of your lovely PRs please.",
        "🚀",
        "Hooray!",
        "",
    ],
)
def test_codex_clean_closers(closer: str) -> None:
    body = (
        f"Codex Review: Didn't find any major issues. {closer}\n\n**Reviewed commit:** `b5f9757c1b`"
    )
    parsed = run("codex", body, "issue_comment")
    assert (parsed.kind, parsed.reviewed_commit) == ("clean", "b5f9757c1b")


@pytest.mark.parametrize(
    "body",
    [
        "To use Codex here, create an environment for this repo.",
        "Codex usage limits have been reached for code reviews.\n"
        "Credits must be used to enable repository wide code reviews.",
    ],
)
def test_codex_notices(body: str) -> None:
    # Notices that Codex could not review: a failed run state, never a finding.
    parsed = run("codex", body, "issue_comment")
    assert (parsed.kind, parsed.findings) == ("failed", ())


def test_copilot_reply_is_noise_even_with_finding_shape() -> None:
    parsed = run("copilot", "This will crash on empty input.", login="Copilot", in_reply_to_id=7)
    assert parsed.kind == "noise"


def test_copilot_agent_issue_comment_is_noise() -> None:
    parsed = run(
        "copilot",
        "I've opened a new pull request, #5, to work on those changes.",
        "issue_comment",
        login="Copilot",
    )
    assert parsed.kind == "noise"


@pytest.mark.parametrize(
    ("body", "title", "label"),
    [
        (
            "```suggestion\nx = 1\n```\nPrefer a constant here. It reads better.",
            "Prefer a constant here.",
            None,
        ),
        (
            "[nitpick] Prefer a constant here. It reads better.\n```suggestion\nx = 1\n```",
            "Prefer a constant here.",
            "[nitpick]",
        ),
    ],
)
def test_copilot_inline_title_and_nitpick(body: str, title: str, label: str | None) -> None:
    (finding,) = run("copilot", body, login="Copilot", line=4, path="a.py").findings
    assert (finding.title, finding.severity_raw) == (title, label)
    assert finding.severity == ("low" if label else "medium")


def test_copilot_previously_missed_outside_suppressed_is_unlabelled() -> None:
    body = (
        "### 🔵 Needs a closer look\n\nSummary.\n\n**Previously missed (1)** — unchanged code.\n\n"
        "**src/a.py:12**\n* The loop never terminates when the list is empty.\n"
    )
    (finding,) = run("copilot", body, "review").findings
    assert (finding.severity_raw, finding.severity, finding.file, finding.line) == (
        None,
        "medium",
        "src/a.py",
        12,
    )


@pytest.mark.parametrize(
    ("body", "kind"),
    [
        ("### 🟢 Approval recommended\n\nLooks good.", "clean"),
        ("### 🟡 Changes recommended\n\nTwo problems.", "reviewed"),  # a review of its commit
        (
            "Copilot wasn't able to review this pull request because it exceeds the maximum.",
            "skipped",
        ),
        (
            "\n\nCopilot reviewed 3 out of 3 changed files in this pull request and generated no "
            "comments.",
            "clean",
        ),
    ],
)
def test_copilot_review_bodies(body: str, kind: str) -> None:
    assert run("copilot", body, "review").kind == kind


BUGBOT = (
    "### Lock is dropped early\n\n**High Severity**\n\n<!-- DESCRIPTION START -->\n"
    "The guard is dropped before the write.\n<!-- DESCRIPTION END -->\n\n"
    "<!-- BUGBOT_BUG_ID: 7ef61c49-9603-4eee-9294-e27b0a0a1814 -->\n\n"
    "<!-- LOCATIONS START\nsrc/a.rs#L45-L86\nsrc/a.rs#L120-L140\nsrc/b.rs#L1\nLOCATIONS END -->\n"
    f"<sup>Reviewed by [Cursor Bugbot](https://cursor.com/bugbot) for commit {SHA40}.</sup>"
)


def test_bugbot_multi_location_without_anchor_line() -> None:
    parsed = run("cursor", BUGBOT)
    (finding,) = parsed.findings
    assert (finding.file, finding.line, finding.line_end) == ("src/a.rs", 45, 86)
    assert finding.native_id == "7ef61c49-9603-4eee-9294-e27b0a0a1814"
    assert (finding.severity_raw, finding.severity) == ("High Severity", "critical")
    assert parsed.reviewed_commit == SHA40 == finding.reviewed_commit
    assert finding.gist == "The guard is dropped before the write."


def test_bugbot_anchor_line_wins_then_original_line() -> None:
    assert run("cursor", BUGBOT, path="src/a.rs", line=228).findings[0].line == 228
    assert run("cursor", BUGBOT, path="src/a.rs", original_line=99).findings[0].line == 99


@pytest.mark.parametrize(
    ("body", "kind"),
    [
        (
            "<!-- BUGBOT_REVIEW -->\n<!-- BUGBOT_REVIEW_STALE -->\nStale Bugbot comment from a "
            "previous run.",
            "noise",
        ),
        ("✅ BugBot reviewed your changes and found no bugs!", "clean"),
        (
            f"<!-- BUGBOT_REVIEW -->\n✅ Bugbot reviewed your changes and found no new issues!\n"
            f"Reviewed by Cursor Bugbot for commit {SHA40}.",
            "clean",
        ),
        ("Bugbot couldn't run - usage limit reached", "failed"),
        ("Your Bugbot free trial expires on May 1.", "noise"),
    ],
)
def test_bugbot_review_bodies(body: str, kind: str) -> None:
    assert run("cursor", body, "review").kind == kind


@pytest.mark.parametrize(
    ("body", "endpoint", "kind"),
    [
        (
            "Claude Code is working… <img src='x'/>\n\nI'll analyze this and get back to you.",
            "issue_comment",
            "in_progress",
        ),
        (
            "### Review in progress <img src='x'/>\n\n- [x] Read diff\n- [ ] Review",
            "issue_comment",
            "in_progress",
        ),
        (
            "**Claude finished @bob's task in 2m** —— [View job](u)\n\n---\n### Code Review\n\n"
            "No issues found; approve.",
            "issue_comment",
            "clean",
        ),
        ("**Claude encountered an error after 45s** —— [View job](u)", "issue_comment", "failed"),
        ("I'll analyze this and get back to you.", "review_comment", "noise"),
        (
            "⚠️ **Code review skipped** — your organization's overage spend limit has been reached.",
            "review",
            "failed",
        ),
        ("LGTM — small, well-tested change.", "review", "clean"),
    ],
)
def test_claude_tracking_states(body: str, endpoint: Endpoint, kind: str) -> None:
    assert run("claude", body, endpoint).kind == kind


def test_claude_finished_with_skogai_findings() -> None:
    body = (
        "**Claude finished @me's task** —— [View job](u)\n\n---\n## Review\n\n"
        "### 🔴 **Critical: SQL built by string concatenation**\n"
        "**Location:** `src/db.py:42`\nUser input reaches the query.\n\n"
        "### 🟢 **Low: Typo in docstring**\n**Location:** `README.md`\n"
    )
    parsed = run("claude", body, "issue_comment")
    got = [(f.severity_raw, f.severity, f.title, f.file, f.line) for f in parsed.findings]
    assert got == [
        ("🔴 Critical", "critical", "SQL built by string concatenation", "src/db.py", 42),
        ("🟢 Low", "low", "Typo in docstring", "README.md", None),
    ]


def test_claude_managed_red_finding() -> None:
    body = "🔴 **Important** The token is logged in plain text. It leaks.\n<details>…</details>"
    (finding,) = run("claude", body, path="a.ts", line=9).findings
    assert (finding.severity_raw, finding.severity, finding.title) == (
        "🔴",
        "critical",
        "The token is logged in plain text.",
    )


@pytest.mark.parametrize("bot", ["codex", "copilot", "cursor", "claude"])
@pytest.mark.parametrize("body", ["", "   \n\t ", "\u200b\u200b", "\x00"])
def test_empty_and_invisible_bodies_are_noise(bot: BotKey, body: str) -> None:
    assert run(bot, body, "issue_comment").kind == "noise"


def test_zero_width_and_nul_do_not_hide_markers() -> None:
    body = "\u200bCodex Review: Didn\u200b't find any major issues.\x00 Breezy!"
    assert run("codex", body, "issue_comment").kind == "clean"


@pytest.mark.parametrize("bot", ["codex", "copilot", "cursor", "claude"])
def test_unrecognised_comment_is_unreadable_never_a_finding(bot: BotKey) -> None:
    parsed = run(
        bot,
        "Something entirely new happened here.",
        "issue_comment" if bot != "copilot" else "review",
    )
    # Loud (issue 25): the bot's state, quoting the first line — never also a finding.
    assert parsed.unreadable and parsed.parse_note and not parsed.findings
    assert '"Something entirely new happened here."' in parsed.detail


MB = 1_000_000
BIG_BODIES = [
    "a" * MB,
    "\n" * MB,
    "<!--" * (MB // 4),
    "![" * (MB // 2),
    "`" * MB,
    "**x:1**\n" * (MB // 8),
    ("### 🟡 Warnings\n1. **t** — `a.py:1`\n" * (MB // 40)),
    "LOCATIONS START " * (MB // 16),
    (BADGE.format(p="P1", c="orange", t="t") + "\n") * 200 + "x" * MB,
    "DESCRIPTION START -->" * (MB // 21),
]


@pytest.mark.parametrize("body", BIG_BODIES, ids=range(len(BIG_BODIES)))
@pytest.mark.parametrize("module", [codex, copilot, cursor, claude])
def test_one_megabyte_bodies_parse(module: object, body: str) -> None:
    # No wall-clock assertion: a quadratic regex would make this test visibly hang.
    key: BotKey = module.KEY  # type: ignore[attr-defined]
    endpoints: tuple[Endpoint, ...] = ("review", "review_comment", "issue_comment")
    for endpoint in endpoints:
        parsed = run(key, body, endpoint)
        assert (parsed.kind == "finding") == bool(parsed.findings)


FINISHED = (
    "**Claude finished @octocat's task in 2m 3s** —— [View job](https://github.com/x)\n\n---\n"
)


def _finished_claude(review: str) -> ParsedComment:
    return parse_comment(
        "claude",
        RawComment(
            endpoint="issue_comment",
            id=9,
            author_login="claude[bot]",
            author_type="Bot",
            body=FINISHED + review,
            html_url="https://x/1",
        ),
    )


# These three layouts were once kept as one medium "unparsed" finding; each is now read as the
# critical finding it announces (issue 15 "Claude's critical layouts are critical").
@pytest.mark.parametrize(
    ("review", "title"),
    [
        (
            "## Code Review\n\n### Critical Issues\n\n- The token is logged in plain text.\n",
            "The token is logged in plain text.",
        ),
        (
            "## Review\n\n**Must fix:** the migration drops the users table.\n",
            "the migration drops the users table.",
        ),
        (
            "## Review\n\n#### 🚨 Blockers\n* SQL built from user input\n",
            "SQL built from user input",
        ),
    ],
)
def test_finished_claude_review_with_a_critical_section_is_critical(
    review: str, title: str
) -> None:
    parsed = _finished_claude(review)
    assert parsed.kind == "finding" and not parsed.parse_note
    assert [(f.title, f.severity) for f in parsed.findings] == [(title, "critical")]


def test_finished_claude_review_with_an_unparsed_critical_section_is_not_clean() -> None:
    parsed = _finished_claude("## Review\n\n### 🔴 Critical Issues\n\nThe token is logged.\n")
    assert parsed.kind == "finding" and parsed.parse_note
    assert parsed.findings[0].severity == "medium"


def test_finished_claude_review_saying_no_critical_issues_is_clean() -> None:
    review = "## Code Review\n\n### Summary\n\n- **No critical issues found**: looks good.\n"
    parsed = parse_comment(
        "claude",
        RawComment(
            endpoint="issue_comment",
            id=9,
            author_login="claude[bot]",
            author_type="Bot",
            body=FINISHED + review,
            html_url="https://x/1",
        ),
    )
    assert parsed.kind == "clean"


def test_clip_never_leaves_an_unclosed_code_span() -> None:
    from reviewcoord.bots.common import clip

    text = "calls `a.b()` and then `target_item_field.declared_ty.has_relation` twice"
    clipped = clip(text, 40)
    assert clipped.count("`") % 2 == 0 and clipped.endswith("…") and len(clipped) <= 40
    assert clip("short", 40) == "short"
