"""Severity: the one function from every bot's labels onto critical / medium / low.

The table is `docs/severity.md`. Labels are compared in a canonical form (see
`canonical_label`) so `**High Severity**`, `High Severity` and `high` are one label. A label the
table does not know, or no label at all, is `medium` — never `critical` (round down when unsure).
Repositories may override or extend the table per bot (config `severity:`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from reviewcoord.model import Finding, Level

# Claude's colour markers; the first one in a label decides (prompt-defined headings such as
# "🟡 Warnings (Should Fix)" carry the emoji first).
_CLAUDE_EMOJI = ("🔴", "🟡", "🟣", "🟢", "🔵")

DEFAULT_TABLE: dict[str, dict[str, Level]] = {
    "codex": {"p0": "critical", "p1": "critical", "p2": "medium", "p3": "low"},
    "cursor": {
        "critical": "critical",
        "high": "critical",
        "blocking": "critical",
        "medium": "medium",
        "non-blocking": "medium",
        "low": "low",
    },
    "claude": {
        "🔴": "critical",
        "important": "critical",
        "critical": "critical",
        "🟡": "medium",
        "nit": "medium",
        "medium": "medium",
        "warning": "medium",
        "🟣": "low",
        "pre-existing": "low",
        "🟢": "low",
        "🔵": "low",
        "low": "low",
        "suggestion": "low",
    },
    "copilot": {
        "high": "critical",
        "medium": "medium",
        "low": "low",
        "[nitpick]": "low",
        "nitpick": "low",
        "suppressed": "low",
    },
}

_STRIP = re.compile(r"[*_`]+")
_SEVERITY_WORD = re.compile(r"\s+(severity|priority)$")


def canonical_label(bot: str, raw: str) -> str:
    """The table key for a raw label: `**High Severity**` → `high`, `🟡 Warnings …` → `🟡`."""
    text = raw.strip()
    if bot == "claude":
        for emoji in _CLAUDE_EMOJI:
            if text.startswith(emoji):
                return emoji
    text = _STRIP.sub("", text).strip().casefold()
    text = _SEVERITY_WORD.sub("", text)
    if bot == "copilot" and text.startswith("suppressed"):
        return "suppressed"
    if bot == "claude":
        # "Critical: title", "Warnings (Should Fix)" → their first word, singular.
        word = re.split(r"[\s:(]", text, maxsplit=1)[0]
        return word[:-1] if word in {"warnings", "suggestions", "nits"} else word
    return text


def level_for(
    bot: str, raw: str | None, table: Mapping[str, Mapping[str, Level]] | None = None
) -> Level:
    """Normalised level of one raw label. Unknown or missing → `medium`."""
    if raw is None or not raw.strip():
        return "medium"
    key = canonical_label(bot, raw)
    if table is not None and key in table.get(bot, {}):
        return table[bot][key]
    return DEFAULT_TABLE.get(bot, {}).get(key, "medium")


def merged_table(overrides: Mapping[str, Mapping[str, Level]]) -> dict[str, dict[str, Level]]:
    """The default table with a repository's overrides applied (keys canonicalised)."""
    table = {bot: dict(labels) for bot, labels in DEFAULT_TABLE.items()}
    for bot, labels in overrides.items():
        for raw, level in labels.items():
            table.setdefault(bot, {})[canonical_label(bot, raw)] = level
    return table


def normalize(
    findings: Iterable[Finding], table: Mapping[str, Mapping[str, Level]] | None = None
) -> list[Finding]:
    """Re-derive every finding's level from its raw label under `table` (default: docs/severity.md).

    A finding whose raw label is absent keeps `medium`; a finding the parser made from an
    unclassifiable comment (parse note) is `medium` too. Raw labels are carried through unchanged.
    """
    out = []
    for f in findings:
        level = level_for(f.bot, f.severity_raw, table)
        out.append(f if level == f.severity else f.model_copy(update={"severity": level}))
    return out
