"""One parser per bot behind a dict registry; adding a bot = a module + a line here + corpus cases.

Each bot module provides `KEY`, `LOGINS` (every spelling: REST `name[bot]`, GraphQL `name`, and
Copilot's `Copilot`) and `parse(comment) -> ParsedComment`. `parse_comment` is the only entry
point the pipeline uses: it never raises. A known bot's comment that its parser cannot classify
(or that makes the parser fail) becomes a `medium` finding titled from its first line, with a
parse note — so a format change can never silently drop a blocker.
"""

from __future__ import annotations

from types import ModuleType

from reviewcoord.bots import claude, codex, copilot, cursor
from reviewcoord.bots.common import fallback_finding
from reviewcoord.model import BotKey, ParsedComment, RawComment

PARSERS: dict[BotKey, ModuleType] = {
    "codex": codex,
    "copilot": copilot,
    "cursor": cursor,
    "claude": claude,
}

_LOGIN_TO_BOT: dict[str, BotKey] = {
    login.casefold(): key for key, module in PARSERS.items() for login in module.LOGINS
}


_KEY_BY_NAME: dict[str, BotKey] = {key: key for key in PARSERS}


def bot_for_login(login: str) -> BotKey | None:
    """The bot key for any spelling of a known reviewer's login, else None."""
    return _LOGIN_TO_BOT.get(login.strip().casefold())


def resolve_bot_name(name: str) -> BotKey | None:
    """`expected-bots` entries may be keys (`codex`) or logins (`cursor[bot]`)."""
    lowered = name.strip().casefold()
    if lowered in PARSERS:
        return bot_for_login(lowered) or _KEY_BY_NAME[lowered]
    return bot_for_login(lowered)


def rerequest_hint(bot: BotKey) -> str:
    """How a person asks this bot to review again ("comment `@codex review`")."""
    hint: str = getattr(PARSERS[bot], "REREQUEST", "")
    return hint


def bot_pr_skip(bot: BotKey) -> str | None:
    """Why this bot never reviews a PR opened by a bot account, if it does not."""
    reason: str | None = getattr(PARSERS[bot], "SKIPS_BOT_PRS", None)
    return reason


def parse_comment(bot: BotKey, comment: RawComment) -> ParsedComment:
    """Classify one comment of a known bot. Never raises."""
    try:
        parsed: ParsedComment = PARSERS[bot].parse(comment)
    except Exception as exc:  # a parser bug must become data, not a crash
        return fallback_finding(bot, comment, f"parser error: {type(exc).__name__}")
    return parsed
