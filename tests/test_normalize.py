"""docs/severity.md as a function: every label → exactly one level; unknown → medium."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reviewcoord.normalize import canonical_label, default_table, level_for, merged_table

TABLE = [
    ("codex", "P0", "critical"),
    ("codex", "P1", "critical"),
    ("codex", "P2", "medium"),
    ("codex", "P3", "low"),
    ("cursor", "**Critical Severity**", "critical"),
    ("cursor", "High Severity", "critical"),
    ("cursor", "blocking", "critical"),
    ("cursor", "**Medium Severity**", "medium"),
    ("cursor", "non-blocking", "medium"),
    ("cursor", "Low Severity", "low"),
    ("claude", "🔴", "critical"),
    ("claude", "Important", "critical"),
    ("claude", "🔴 **Critical: x**", "critical"),
    ("claude", "🟡", "medium"),
    ("claude", "🟡 Warnings (Should Fix)", "medium"),
    ("claude", "Nit", "medium"),
    ("claude", "🟣", "low"),
    ("claude", "Pre-existing", "low"),
    ("claude", "🟢", "low"),
    ("claude", "🔵 Suggestions (Consider)", "low"),
    ("copilot", "High", "critical"),
    ("copilot", "Medium", "medium"),
    ("copilot", "Low", "low"),
    ("copilot", "[nitpick]", "low"),
    ("copilot", "suppressed (low confidence)", "low"),
    ("codex", None, "medium"),
    ("copilot", None, "medium"),
    ("cursor", "Whatever", "medium"),
    ("codex", "P4", "medium"),
    ("greptile", "P1", "medium"),
    # The reviewers of issue 25 (docs/severity.md, "Reviewers added in autumn 2026").
    ("cubic", "P0", "critical"),
    ("cubic", "P1", "medium"),
    ("cubic", "P2", "medium"),
    ("cubic", "P3", "low"),
    ("macroscope", "🟠 High", "critical"),
    ("macroscope", "🟡 Medium", "medium"),
    ("codeant", "Major", "medium"),
    ("codeant", "Critical", "medium"),  # not seen: an unrecognised label, rounded down
    ("devin", "🔴", "critical"),
    ("devin", "🟡", "medium"),
    ("devin", "🚩", "low"),
    ("graphite", None, "medium"),
]


@pytest.mark.parametrize(("bot", "raw", "level"), TABLE)
def test_table(bot: str, raw: str | None, level: str) -> None:
    assert level_for(bot, raw) == level


def test_every_table_key_maps_to_exactly_one_level() -> None:
    for bot, labels in default_table().items():
        for label, level in labels.items():
            assert canonical_label(bot, label) == label, (bot, label)
            assert level in ("critical", "medium", "low")


def test_overrides_extend_and_replace() -> None:
    table = merged_table(
        {"cursor": {"**High Severity**": "medium"}, "copilot": {"[MUST]": "critical"}}
    )
    assert level_for("cursor", "High Severity", table) == "medium"
    assert level_for("copilot", "[MUST]", table) == "critical"
    assert level_for("codex", "P1", table) == "critical"


@given(st.sampled_from(["codex", "copilot", "cursor", "claude"]), st.text(max_size=40))
def test_normalisation_is_total_and_deterministic(bot: str, raw: str) -> None:
    first = level_for(bot, raw)
    assert first in ("critical", "medium", "low")
    assert level_for(bot, raw) == first
