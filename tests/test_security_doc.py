"""docs/security.md names, for every actor, the tests that prove what the gate takes from them:
each name must be a test that exists, so the table cannot drift from the suite."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "security.md"
# `test_file.py::test_name` (optionally `[param]`) or `::test_name` after a file named earlier
# in the same cell.
_REF = re.compile(r"`(?:(test_\w+\.py))?::(test_\w+)(?:\[[^\]`]*\])?`")
_FILE = re.compile(r"`(test_\w+\.py)`")

ACTORS = (
    "PR author without write access",
    "Fork contributor",
    "PR author with write access",
    "Any collaborator with write access",
    "Each bot",
    "A user named like a bot",
    "A compromised bot account",
)


def _tests_in(file_name: str) -> set[str]:
    tree = ast.parse((ROOT / "tests" / file_name).read_text(encoding="utf-8"))
    return {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")
    }


def _references(text: str) -> list[tuple[str, str]]:
    refs: list[tuple[str, str]] = []
    for line in text.splitlines():
        if not line.startswith("|"):
            continue
        for cell in line.split(" | "):
            current: str | None = None
            for match in re.finditer(f"{_REF.pattern}|{_FILE.pattern}", cell):
                file_name = match.group(1) or match.group(3)
                if file_name:
                    current = file_name
                if match.group(2):
                    assert current, f"a test reference without its file: {match.group(0)}"
                    refs.append((current, match.group(2)))
    return refs


def _missing(text: str) -> list[str]:
    return [f"{f}::{name}" for f, name in _references(text) if name not in _tests_in(f)]


def test_every_test_the_threat_model_names_exists() -> None:
    refs = _references(DOC.read_text(encoding="utf-8"))
    assert len(refs) >= 25  # control: the table really is read
    missing = _missing(DOC.read_text(encoding="utf-8"))
    assert not missing, "docs/security.md names tests that do not exist:\n" + "\n".join(missing)


def test_the_threat_model_names_every_actor_the_issue_lists() -> None:
    text = DOC.read_text(encoding="utf-8")
    for actor in ACTORS:
        assert f"**{actor}" in text, actor


def test_a_reference_to_a_missing_test_is_caught() -> None:
    # Control for the checker itself: a name missing from its file is reported, a real one not.
    row = (
        "| actor | writes | takes | "
        "`test_e2e_trust.py::test_workflow_dispatch_always_judges_again`, "
        "`::test_no_such_thing[x]` |"
    )
    assert _missing(row) == ["test_e2e_trust.py::test_no_such_thing"]
