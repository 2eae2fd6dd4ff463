"""A bot is one profile: registering a small extra profile is all it takes for the judge, the
config, the packs, the display names and the renderings to know it."""

from __future__ import annotations

import pytest

from reviewcoord.bots import REGISTRY, BotProfile, bot_for_author, bot_keys
from reviewcoord.bots.common import found, location, make_finding, noise
from reviewcoord.config import Settings, build_settings
from reviewcoord.model import ParsedComment, RawComment
from reviewcoord.normalize import default_table
from reviewcoord.pipeline import judge
from reviewcoord.render import sticky_comment
from tests.bots_support import comment, graphql_bot

HEAD = "c0ffee" + "0" * 34


def parse_kilo(c: RawComment) -> ParsedComment:
    """A toy reviewer: `**Critical** title` / `**Warning** title` inline comments."""
    for label in ("Critical", "Warning"):
        lead = f"**{label}** "
        if c.body.startswith(lead):
            file, line, end = location(c)
            title = c.body[len(lead) :].split("\n", 1)[0]
            finding = make_finding(
                "kilo", c, title=title, severity_raw=label, file=file, line=line, line_end=end
            )
            return found([finding], "kilo finding")
    return noise("kilo chatter")


KILO = BotProfile(
    key="kilo",
    display="Kilo",
    logins=frozenset({"kilo-code-bot[bot]", "kilo-code-bot"}),
    parse=parse_kilo,
    severity={"critical": "critical", "warning": "medium"},
    rerequest="re-request with `@kilo review`",
)


def kilo_comment(body: str, cid: int) -> RawComment:
    return comment(
        body,
        "review_comment",
        "kilo-code-bot[bot]",
        id=cid,
        path="src/app.py",
        line=10 + 40 * cid,
        original_commit_id=HEAD,
        html_url=f"https://github.com/o/r/pull/1#discussion_r{cid}",
    )


def test_an_extra_profile_is_judged_like_a_built_in_one() -> None:
    with REGISTRY.extended([KILO]):
        assert "kilo" in bot_keys() and graphql_bot("kilo-code-bot") == "kilo"
        assert default_table()["kilo"] == {"critical": "critical", "warning": "medium"}
        settings = build_settings(
            {"expected-bots": ["kilo", "codex"], "require-bots": "kilo"},
            {},
            file_source="config",
            input_source="inputs",
        )
        assert settings.require_bots == ["kilo"] and "kilo" in Settings().fast_pack
        comments = [
            kilo_comment("**Critical** SQL built from user input", 1),
            kilo_comment("**Warning** Unused import", 2),
        ]
        verdict = judge(
            comments, repo="o/r", pr=1, head_sha=HEAD, expected=["kilo"], required=["kilo"]
        )
        assert verdict.gate == "block"
        assert [(f.title, f.severity, f.spread) for f in verdict.critical] == [
            ("SQL built from user input", "critical", "Kilo:Critical")
        ]
        assert verdict.bots["kilo"].state == "reviewed" and verdict.settled_on == ["kilo"]
        text = sticky_comment(verdict)
        assert "✅ Kilo reviewed `c0ffee0`" in text and "Kilo:Warning" in text
    assert "kilo" not in bot_keys() and bot_for_author("kilo-code-bot[bot]", "Bot") is None


def test_a_login_claimed_twice_is_refused() -> None:
    thief = BotProfile(
        key="thief", display="Thief", logins=frozenset({"cursor[bot]"}), parse=parse_kilo
    )
    with pytest.raises(ValueError, match="claimed by cursor and thief"), REGISTRY.extended([thief]):
        pass
    assert bot_for_author("cursor[bot]", "Bot") == "cursor"


def test_a_finding_need_not_come_from_a_pr_comment() -> None:
    """A finding's origin is typed: a code-scanning alert (no comment behind it) is a finding,
    groups with the bots' ones and survives the record."""
    from reviewcoord.history import Entry
    from reviewcoord.model import Finding

    alert = Finding(
        bot="codex",
        stable_id="codex-alert-7",
        title="SQL injection",
        severity_raw="P1",
        severity="critical",
        file="src/app.py",
        line=12,
        url="https://github.com/o/r/security/code-scanning/7",
        endpoint="code_scanning_alert",
        comment_id=7,
    )
    entry = Entry(
        stable_id=alert.stable_id,
        status="open",
        level="critical",
        bot=alert.bot,
        endpoint=alert.endpoint,
        comment_id=7,
        title=alert.title,
        first=1,
        seen=1,
    )
    assert entry.model_dump(by_alias=True)["ep"] == "code_scanning_alert"


@pytest.mark.parametrize(
    ("bot", "raw", "shown"),
    [
        ("gemini", "![high](https://www.gstatic.com/codereviewagent/high-priority.svg)", "high"),
        ("coderabbit", "_🟠 Major_", "🟠 Major"),
        ("cursor", "**High Severity**", "High Severity"),
        ("codex", "P1", "P1"),
        ("unknown-bot", "  odd  ", "odd"),
        ("claude", "*" * 5 + "x" * 100, "x" * 40),
    ],
)
def test_a_raw_label_is_shown_as_its_profile_reads_it(bot: str, raw: str, shown: str) -> None:
    assert REGISTRY.shown_label(bot, raw) == shown
