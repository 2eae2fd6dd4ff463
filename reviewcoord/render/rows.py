"""The per-bot state rows: one line per bot in the verdict (`_macros.bot_line`)."""

from __future__ import annotations

from typing import Any

from reviewcoord.bots import bot_keys, is_source, rerequest_hint
from reviewcoord.model import Verdict

# Each bot's line in the verdict; more than this many bots is not a real PR.
MAX_BOT_ROWS = 40


def bot_rows(verdict: Verdict) -> list[dict[str, Any]]:
    """One row per bot in `verdict.bots` (expected ones first) for `_macros.bot_line`."""
    expected = set(verdict.expected_bots)
    required = set(verdict.required_bots)
    ordered = sorted(verdict.bots.items(), key=lambda item: item[0] not in expected)
    return [
        {
            "bot": key,
            "state": status.state,
            "detail": status.detail,
            "url": status.url,
            "hint": rerequest_hint(key) if key in bot_keys() else "",
            # A source (code scanning) is never expected by design: no "(not expected)".
            "expected": key in expected or is_source(key),
            "required": key in required,
        }
        for key, status in ordered
    ]
