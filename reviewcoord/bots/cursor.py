"""cursor parser (placeholder until the real parser lands)."""

from __future__ import annotations

from reviewcoord.bots.common import fallback_finding
from reviewcoord.model import BotKey, ParsedComment, RawComment

KEY: BotKey = "cursor"
LOGINS: frozenset[str] = frozenset({"cursor[bot]", "cursor"})


def parse(comment: RawComment) -> ParsedComment:
    return fallback_finding(KEY, comment, "no parser yet")
