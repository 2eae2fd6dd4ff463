"""The README's reviewer list and severity table are generated from the registry
(scripts/readme_tables.py): a profile change without regenerating them fails here."""

from __future__ import annotations

import runpy
from pathlib import Path
from typing import Any

import pytest

from reviewcoord.bots import REGISTRY

ROOT = Path(__file__).resolve().parents[1]
TABLES: dict[str, Any] = runpy.run_path(str(ROOT / "scripts" / "readme_tables.py"))


def readme() -> str:
    return (ROOT / "README.md").read_text(encoding="utf-8")


def test_readme_tables_are_what_the_registry_generates() -> None:
    text = readme()
    assert TABLES["regenerate"](text) == text, (
        "README.md is out of date: run .venv/bin/python scripts/readme_tables.py --write"
    )


@pytest.mark.parametrize("key", REGISTRY.keys())
def test_every_registered_reviewer_is_listed_with_its_labels(key: str) -> None:
    profile = REGISTRY.profile(key)
    text = readme()
    assert f"| `{key}` | {profile.display} |" in text
    for label in profile.severity:
        assert f"`{label}`" in TABLES["severity_table"](), label


def test_a_missing_generated_block_is_an_error_not_a_silent_pass() -> None:
    with pytest.raises(ValueError, match="no generated block 'severity'"):
        TABLES["regenerate"]("<!-- generated: reviewers x -->\n<!-- end generated: reviewers -->")


def test_the_check_mode_fails_on_a_stale_table(tmp_path: Path, monkeypatch: Any) -> None:
    stale = readme().replace("| `codex` | Codex |", "| `codex` | Codex (old) |")
    target = tmp_path / "README.md"
    target.write_text(stale, encoding="utf-8")
    monkeypatch.setitem(TABLES["main"].__globals__, "README", target)
    assert TABLES["main"]([]) == 1
    assert TABLES["main"](["--write"]) == 0
    assert TABLES["main"]([]) == 0
