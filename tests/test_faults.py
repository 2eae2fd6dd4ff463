"""The fault matrix (tests/fault_matrix.py): every endpoint × every fault, transient and
persistent, in-process against the fake GitHub; and docs/reliability.md generated from it.

    REVIEWCOORD_REGEN=1 .venv/bin/pytest tests/test_faults.py   # rewrite docs/reliability.md
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.fault_matrix import NOTES, cells, outcome, render_doc, runner_gap

DOC = Path(__file__).resolve().parents[1] / "docs" / "reliability.md"
REGEN = os.environ.get("REVIEWCOORD_REGEN") == "1"


def _params() -> list[object]:
    out: list[object] = []
    for cell in cells():
        gap = runner_gap(cell)
        marks = [pytest.mark.xfail(strict=True, reason=gap)] if gap else []
        out.append(pytest.param(cell.id, marks=marks, id=cell.id))
    return out


@pytest.mark.parametrize("cell_id", _params())
def test_cell_keeps_the_invariants(cell_id: str) -> None:
    res = outcome(cell_id)
    assert not res.violations, (
        f"{cell_id}: {res.violations}\ngate {res.gate}: {res.reason}\n"
        f"status {res.status} ({res.status_description}); check {res.check}\n{res.log[-3000:]}"
    )


def test_reliability_doc_is_generated_from_the_matrix() -> None:
    text = render_doc([outcome(c.id) for c in cells()], NOTES)
    if REGEN:
        DOC.parent.mkdir(exist_ok=True)
        DOC.write_text(text, encoding="utf-8")
    assert DOC.exists(), "docs/reliability.md is missing: run with REVIEWCOORD_REGEN=1"
    assert DOC.read_text(encoding="utf-8") == text, (
        "docs/reliability.md differs from what the fault matrix prints: "
        "run REVIEWCOORD_REGEN=1 .venv/bin/pytest tests/test_faults.py and review the diff"
    )
