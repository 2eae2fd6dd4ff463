"""Text generated from the bot registry (scripts/generated.py): the reviewer and severity tables
of the docs and the trigger logic of the shipped workflow. A profile change without regenerating
them fails here (tests/test_triggers.py evaluates the trigger logic itself)."""

from __future__ import annotations

import runpy
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from reviewcoord.bots import REGISTRY
from reviewcoord.config import Settings

ROOT = Path(__file__).resolve().parents[1]
GENERATED: dict[str, Any] = runpy.run_path(str(ROOT / "scripts" / "generated.py"))
FILES = GENERATED["FILES"]
(TABLES,) = [g for g in FILES if g.path.name == "reviewers.md"]


@pytest.mark.parametrize("generated", FILES, ids=lambda g: g.path.name)
def test_every_generated_block_is_what_the_registry_generates(generated: Any) -> None:
    text = generated.path.read_text(encoding="utf-8")
    assert GENERATED["regenerate"](text, generated) == text, (
        f"{generated.path.name} is out of date: run .venv/bin/python scripts/generated.py --write"
    )


@pytest.mark.parametrize("key", REGISTRY.keys())
def test_every_registered_reviewer_is_listed_with_its_labels(key: str) -> None:
    profile = REGISTRY.profile(key)
    text = TABLES.path.read_text(encoding="utf-8")
    assert f"| `{key}` | {profile.display} |" in text
    for label in profile.severity:
        assert f"`{label}`" in GENERATED["severity_table"](), label


def test_a_missing_generated_block_is_an_error_not_a_silent_pass() -> None:
    with pytest.raises(ValueError, match="no generated block 'severity'"):
        GENERATED["regenerate"](
            "<!-- generated: reviewers x -->\n<!-- end generated: reviewers -->\n", TABLES
        )


def test_the_check_mode_fails_on_a_stale_block(tmp_path: Path) -> None:
    stale = TABLES.path.read_text(encoding="utf-8").replace(
        "| `codex` | Codex |", "| `codex` | X |"
    )
    target = tmp_path / TABLES.path.name
    target.write_text(stale, encoding="utf-8")
    copy = replace(TABLES, path=target)
    main = GENERATED["main"]
    monkeyed = [copy]
    assert main([], monkeyed) == 1
    assert main(["--write"], monkeyed) == 0
    assert main([], monkeyed) == 0


def test_a_stale_pack_sentence_is_regenerated_from_the_registry() -> None:
    """Prose naming the slow pack is a span generated from the profiles' `pack`: a
    hand-written "Codex" alone (the slow pack before cubic) is rewritten, never kept."""
    (configure,) = [g for g in FILES if g.path.name == "configure.md"]
    span = "<!-- generated: slow-pack -->{}<!-- end generated: slow-pack -->"
    fresh = GENERATED["regenerate"](span.format("Codex") + "\n" + span.format("x"), configure)
    names = GENERATED["slow_pack"]()
    assert fresh == span.format(names) + "\n" + span.format(names)
    assert all(REGISTRY.profile(key).display in names for key in REGISTRY.pack("slow"))
    assert not any(REGISTRY.profile(key).display in names for key in REGISTRY.pack("fast"))
    with pytest.raises(ValueError, match="no generated span 'slow-pack'"):
        GENERATED["regenerate"]("every built-in reviewer but Codex\n", configure)


def test_the_example_configs_commented_packs_are_the_defaults() -> None:
    block = GENERATED["pack_defaults"]()
    uncommented = yaml.safe_load("\n".join(line[2:] for line in block.splitlines()))
    defaults = Settings()
    assert uncommented == {"fast-pack": defaults.fast_pack, "slow-pack": defaults.slow_pack}
