"""Golden files: compare rendered text with the file under tests/golden/, or rewrite it when
REVIEWCOORD_REGEN=1 (then review the diff)."""

from __future__ import annotations

import os
from pathlib import Path

GOLDEN_ROOT = Path(__file__).parent / "golden"
REGEN = os.environ.get("REVIEWCOORD_REGEN") == "1"


def assert_golden(folder: str, name: str, text: str) -> None:
    path = GOLDEN_ROOT / folder / name
    if REGEN:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="")
        return
    assert path.exists(), f"missing golden {path}; run with REVIEWCOORD_REGEN=1"
    assert text == path.read_text(encoding="utf-8"), (
        f"{folder}/{name} differs from its golden file; if intended, run with REVIEWCOORD_REGEN=1"
    )
