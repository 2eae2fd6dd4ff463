"""The reviewers: one profile module per bot, registered here; adding a bot = a module + a line
here + its corpus cases (reviewcoord/bots/profile.py says what a profile holds).

`parse_comment` is the only entry point the pipeline uses: it never raises, and it is where a
finding's level is computed — once, from its raw label, under the effective severity table. A
known bot's comment that its parser cannot classify (or that makes the parser fail) becomes a
`medium` finding titled from its first line, with a parse note — so a format change can never
silently drop a blocker.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from reviewcoord.bots import (
    claude,
    code_scanning,
    codeant,
    coderabbit,
    codex,
    copilot,
    cubic,
    cursor,
    devin,
    gemini,
    graphite,
    greptile,
    macroscope,
    qodo,
)
from reviewcoord.bots.notices import unread
from reviewcoord.bots.profile import BotProfile
from reviewcoord.bots.registry import REGISTRY, Registry
from reviewcoord.model import BotKey, Level, ParsedComment, RawComment

BUILT_IN: tuple[BotProfile, ...] = (
    codex.PROFILE,
    copilot.PROFILE,
    cursor.PROFILE,
    claude.PROFILE,
    coderabbit.PROFILE,
    gemini.PROFILE,
    greptile.PROFILE,
    qodo.PROFILE,
    # Added by teams in autumn 2026 (issue 25; docs/bot-formats.md Part 3).
    cubic.PROFILE,
    macroscope.PROFILE,
    codeant.PROFILE,
    graphite.PROFILE,
    devin.PROFILE,
    code_scanning.PROFILE,  # a source, not a reviewer (pack `none`): last
)
for _profile in BUILT_IN:
    REGISTRY.register(_profile)

__all__ = [
    "REGISTRY",
    "BotProfile",
    "Registry",
    "bot_for_author",
    "bot_keys",
    "bot_pr_skip",
    "display_name",
    "is_source",
    "parse_comment",
    "repeats_findings",
    "rerequest_hint",
    "resolve_bot_name",
    "reviewer_keys",
    "reviewing_in",
    "shows_reviewing",
]


def bot_keys() -> tuple[BotKey, ...]:
    """Every known bot key, in display order."""
    return REGISTRY.keys()


def reviewer_keys() -> tuple[BotKey, ...]:
    """The known bots settle waits for and `expected-bots` names: every key but a source's
    (code scanning, pack `none`), in display order."""
    return REGISTRY.reviewers()


def is_source(bot: BotKey) -> bool:
    """A source read once per run, not a reviewer waited for (code scanning: pack `none`)."""
    return REGISTRY.is_source(bot)


def display_name(bot: str) -> str:
    return REGISTRY.display(bot)


def bot_for_author(login: str, account_type: str) -> BotKey | None:
    """The reviewer a REST comment author is: its login and account type, else None."""
    return REGISTRY.bot_for_author(login, account_type)


def resolve_bot_name(name: str) -> BotKey | None:
    """`expected-bots` entries may be keys (`codex`) or logins (`cursor[bot]`)."""
    lowered = name.strip().casefold()
    if REGISTRY.get(lowered) is not None:
        return lowered
    return REGISTRY.owner_of_name(lowered)


def rerequest_hint(bot: BotKey) -> str:
    """How a person asks this bot to review again ("re-request with `@codex review`")."""
    profile = REGISTRY.get(bot)
    return profile.rerequest if profile is not None else ""


def repeats_findings(bot: BotKey) -> bool:
    """Does every review of `bot` repeat each finding still present (`BotProfile`)?"""
    profile = REGISTRY.get(bot)
    return profile.repeats_findings if profile is not None else False


def bot_pr_skip(bot: BotKey) -> str | None:
    """Why this bot never reviews a PR opened by a bot account, if it does not."""
    profile = REGISTRY.get(bot)
    return profile.skips_bot_prs if profile is not None else None


def shows_reviewing(parsed: ParsedComment) -> bool:
    """Whether a bot's comment, as its profile reads it, is a review signal: a finding, a
    verdict or a run state (working, failed, skipped) — never noise (a merge-queue log, a
    coding agent's greeting) nor an unreadable body. `expected-bots: auto` counts a bot seen on
    the repository only from such a comment (reviewcoord/resolve.py)."""
    return bool(parsed.findings) or (parsed.kind != "noise" and not parsed.unreadable)


def reviewing_in(comments: Iterable[RawComment]) -> set[BotKey]:
    """The known reviewers whose own comments among `comments` show them reviewing (identity:
    login and account type; then `shows_reviewing`). Sources are never among them."""
    out: set[BotKey] = set()
    for c in comments:
        bot = bot_for_author(c.author_login, c.author_type)
        if bot is None or bot in out or is_source(bot):
            continue
        if shows_reviewing(parse_comment(bot, c)):
            out.add(bot)
    return out


def parse_comment(
    bot: BotKey, comment: RawComment, table: Mapping[str, Mapping[str, Level]] | None = None
) -> ParsedComment:
    """Classify one comment of a known bot and level its findings under `table` (default:
    docs/severity.md). Never raises."""
    try:
        parsed: ParsedComment = REGISTRY.profile(bot).parse(comment)
    except Exception as exc:  # a parser bug must become data, not a crash
        parsed = unread(bot, comment, f"parser error: {type(exc).__name__}")
    if not parsed.findings and not parsed.withdrawn_findings:
        return parsed
    return parsed.model_copy(
        update={
            "findings": REGISTRY.levelled(parsed.findings, table),
            "withdrawn_findings": REGISTRY.levelled(parsed.withdrawn_findings, table),
        }
    )
