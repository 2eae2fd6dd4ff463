"""codex parser (placeholder until the real parser lands)."""

from __future__ import annotations

from reviewcoord.bots.common import fallback_finding
from reviewcoord.model import BotKey, ParsedComment, RawComment

KEY: BotKey = "codex"
LOGINS: frozenset[str] = frozenset({"chatgpt-codex-connector[bot]", "chatgpt-codex-connector"})


def parse(comment: RawComment) -> ParsedComment:
    return fallback_finding(KEY, comment, "no parser yet")
