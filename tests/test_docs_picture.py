"""docs/images/sticky-block.png is the blocking sticky golden as GitHub shows it
(scripts/sticky_picture.py). The picture records the golden's SHA-256: when the golden changes,
this fails until the picture is made again. No Chromium needed here."""

from __future__ import annotations

import hashlib
import importlib.util
import struct
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def picture_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "sticky_picture", ROOT / "scripts/sticky_picture.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("sticky_picture", module)
    spec.loader.exec_module(module)
    return module


def test_the_picture_is_of_the_current_golden() -> None:
    script = picture_script()
    assert script.recorded_hash() == script.golden_hash(), (
        "docs/images/sticky-block.png is stale: the blocking sticky golden changed; run "
        "python scripts/sticky_picture.py"
    )
    assert script.main(["sticky_picture.py", "--check"]) == 0


def test_control_a_changed_golden_is_caught() -> None:
    script = picture_script()
    changed = script.GOLDEN.read_bytes() + b"\n"
    assert hashlib.sha256(changed).hexdigest() != script.recorded_hash()


def test_the_picture_is_a_png_of_a_sticky_size() -> None:
    data = (ROOT / "docs/images/sticky-block.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert 600 <= width <= 1400 and 300 <= height <= 4000, (width, height)
    assert "docs/images/sticky-block.png" in (ROOT / "README.md").read_text(encoding="utf-8")
