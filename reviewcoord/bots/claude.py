"""claude parser (placeholder until the real parser lands)."""

from __future__ import annotations

from reviewcoord.bots.common import fallback_finding
from reviewcoord.model import BotKey, ParsedComment, RawComment

KEY: BotKey = "claude"
LOGINS: frozenset[str] = frozenset({"claude[bot]", "claude"})


def parse(comment: RawComment) -> ParsedComment:
    return fallback_finding(KEY, comment, "no parser yet")
