"""Severity: the one function from every bot's labels onto critical / medium / low.

The table is `docs/severity.md`, held per bot in its profile (`BotProfile.severity`). Labels are
compared in a canonical form (the profile's `canonical_label`) so `**High Severity**`,
`High Severity` and `high` are one label. A label the table does not know, or no label at all,
is `medium` — never `critical` (round down when unsure). Repositories may override or extend the
table per bot (config `severity:`). The level of a finding is computed once, when its comment is
parsed (`bots.parse_comment`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from reviewcoord.bots import REGISTRY
from reviewcoord.model import Finding, Level


def default_table() -> dict[str, dict[str, Level]]:
    """docs/severity.md: every registered bot's own table."""
    return REGISTRY.default_table()


def canonical_label(bot: str, raw: str) -> str:
    """The table key for a raw label: `**High Severity**` → `high`, `🟡 Warnings …` → `🟡`."""
    return REGISTRY.canonical_label(bot, raw)


def level_for(
    bot: str, raw: str | None, table: Mapping[str, Mapping[str, Level]] | None = None
) -> Level:
    """Normalised level of one raw label. Unknown or missing → `medium`."""
    return REGISTRY.level(bot, raw, table)


def merged_table(overrides: Mapping[str, Mapping[str, Level]]) -> dict[str, dict[str, Level]]:
    """The default table with a repository's overrides applied (keys canonicalised)."""
    table = default_table()
    for bot, labels in overrides.items():
        for raw, level in labels.items():
            table.setdefault(bot, {})[canonical_label(bot, raw)] = level
    return table


def normalize(
    findings: Iterable[Finding], table: Mapping[str, Mapping[str, Level]] | None = None
) -> list[Finding]:
    """Every finding's level from its raw label under `table` (default: docs/severity.md), for
    findings that did not come through `bots.parse_comment` (tests, replays of old records)."""
    out = []
    for f in findings:
        level = level_for(f.bot, f.severity_raw, table)
        out.append(f if level == f.severity else f.model_copy(update={"severity": level}))
    return out
