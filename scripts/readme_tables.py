"""The README's reviewer list and severity table, generated from the registered profiles.

    .venv/bin/python scripts/readme_tables.py          # exit 1 if README.md is out of date
    .venv/bin/python scripts/readme_tables.py --write  # rewrite the generated blocks

Each block sits between `<!-- generated: NAME ... -->` and `<!-- end generated: NAME -->`;
tests/test_readme_tables.py fails when a profile changes and the README was not regenerated.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

from reviewcoord.bots import REGISTRY, bot_keys
from reviewcoord.bots.profile import BotProfile

README = Path(__file__).resolve().parents[1] / "README.md"
LEVELS = ("critical", "medium", "low")
# How settle treats each pack (docs/interface.md §3 `settle`).
PACK_WORDS = {
    "fast": "fast",
    "slow": "slow (waited for by `settle: full`)",
    "none": "not waited for; read once after settle",
}


def _code(items: list[str]) -> str:
    return ", ".join(f"`{item}`" for item in items)


def _rest_logins(profile: BotProfile) -> list[str]:
    """The logins REST shows (`name[bot]`, `Copilot`); GraphQL spellings add nothing here."""
    logins = sorted(profile.logins, key=str.casefold)
    with_bot = {login.removesuffix("[bot]").casefold() for login in logins if "[bot]" in login}
    return [login for login in logins if "[bot]" in login or login.casefold() not in with_bot]


def reviewer_table() -> str:
    rows = [
        "| key | reviewer | logins | settle | ask it again | quirks |",
        "|---|---|---|---|---|---|",
    ]
    for key in bot_keys():
        profile = REGISTRY.profile(key)
        pack = PACK_WORDS.get(profile.pack, profile.pack)
        hint = profile.rerequest or "—"
        quirks = profile.skips_bot_prs or "—"
        logins = _code(_rest_logins(profile))
        rows.append(f"| `{key}` | {profile.display} | {logins} | {pack} | {hint} | {quirks} |")
    return "\n".join(rows)


def severity_table() -> str:
    rows = [
        "| reviewer | critical | medium | low |",
        "|---|---|---|---|",
    ]
    for key in bot_keys():
        profile = REGISTRY.profile(key)
        cells = [
            _code([label for label, level in profile.severity.items() if level == wanted]) or "—"
            for wanted in LEVELS
        ]
        rows.append(f"| {profile.display} | {' | '.join(cells)} |")
    return "\n".join(rows)


BLOCKS: dict[str, Callable[[], str]] = {"reviewers": reviewer_table, "severity": severity_table}


def _block(name: str) -> re.Pattern[str]:
    return re.compile(
        rf"(<!-- generated: {name} [^\n]*-->\n)(.*?)(<!-- end generated: {name} -->)", re.DOTALL
    )


def regenerate(text: str) -> str:
    """`text` with every generated block rendered afresh; a missing block is an error."""
    for name, render in BLOCKS.items():
        pattern = _block(name)
        if pattern.search(text) is None:
            raise ValueError(f"README.md has no generated block {name!r}")
        text = pattern.sub(lambda m, r=render: f"{m.group(1)}{r()}\n{m.group(3)}", text, count=1)
    return text


def main(argv: list[str]) -> int:
    current = README.read_text(encoding="utf-8")
    fresh = regenerate(current)
    if "--write" in argv:
        README.write_text(fresh, encoding="utf-8")
        return 0
    if fresh != current:
        print("README.md: generated tables are out of date; run scripts/readme_tables.py --write")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
