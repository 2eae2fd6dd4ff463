"""Prose pointers to a section of a Markdown file — `docs/adopt.md § Pinning and releases`,
`bot-formats.md § 19`, `README "Quickstart"` — in any tracked text file (docs, code comments,
the Dockerfile) name a heading that exists, so a section moved to another page cannot leave a
pointer behind. (Markdown links with `#anchor` are test_standalone.py's.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.test_standalone import BINARY_SUFFIXES, ROOT, _without_code, tracked_files

# `FILE.md § Section` or `README § Section`, or `README "Section"`; the section's words end at
# the first closing bracket, comma, semicolon, colon, quote or line end.
POINTER = re.compile(
    r"\b(?P<file>(?:[\w.-]+/)*[\w.-]+\.md|README)"
    r"(?: ?§ ?\"?| \")(?P<section>[^)\n,;:\"\]]+)"
)
NUMBERED = re.compile(r"^(\d+[a-z]?)\.?\s+")  # `## 19. Re-requesting`, `## 4.2b …`
HEADING = re.compile(r"#{1,6}\s+(.*)")


def headings(text: str) -> list[str]:
    """The headings of a Markdown file outside fenced blocks, lower case, code marks dropped
    (a code span's words are part of the heading)."""
    pairs = zip(_without_code(text), text.splitlines(), strict=True)
    heads = [HEADING.match(raw) for blank, raw in pairs if HEADING.match(blank)]
    return [m.group(1).replace("`", "").strip().lower() for m in heads if m is not None]


def names_a_heading(section: str, heads: list[str]) -> bool:
    """A number (`§ 19`, `§ 7 reviewers`) names the heading of that number; words name a
    heading they are part of, or that they begin with (a sentence may run on after it)."""
    section = section.replace("`", "").strip().rstrip(".").lower()
    number = re.match(r"(\d+[a-z]?)\b", section)
    if number:
        return any(re.match(re.escape(number.group(1)) + r"\b", head) for head in heads)
    words = [NUMBERED.sub("", head) for head in heads]
    return any(section in head or head in section for head in words)


def target_of(name: str, source: Path) -> Path | None:
    if name == "README":
        return ROOT / "README.md"
    places = (ROOT / name, ROOT / "docs" / name, source.parent / name)
    return next((place for place in places if place.is_file()), None)


def broken_pointers(text: str, source: Path) -> list[str]:
    broken = []
    for match in POINTER.finditer(text):
        target = target_of(match.group("file"), source)
        heads = headings(target.read_text(encoding="utf-8")) if target else []
        if not names_a_heading(match.group("section"), heads):
            line = text.count("\n", 0, match.start()) + 1
            broken.append(f"{source.relative_to(ROOT)}:{line}: {match.group(0).strip()}")
    return broken


def pointer_sources() -> list[Path]:
    fixtures = ROOT / "tests" / "fixtures"
    return [
        path
        for path in tracked_files()
        if path.is_file()
        and path.suffix not in BINARY_SUFFIXES
        and fixtures not in path.parents
        and path != Path(__file__)
    ]


def test_every_section_pointer_names_an_existing_heading() -> None:
    broken = []
    for path in pointer_sources():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        broken += broken_pointers(text, path)
    assert not broken, "pointers to a section that is not there:\n" + "\n".join(broken)


@pytest.mark.parametrize(
    ("pointer", "resolves"),
    [
        ("(docs/adopt.md § Pinning and releases)", True),
        ("see bot-formats.md § 19, and", True),
        ("docs/troubleshooting.md § Runners whose user is not uid 1001).", True),
        ("README § Quickstart", True),
        # The sections this test was written for: moved from the README to docs/ (issue 24).
        ("(README § Pinning and releases)", False),
        ('README "Runners whose user is not uid 1001"', False),
        ("docs/adopt.md § 99", False),
        ("docs/gone.md § Anything", False),
    ],
)
def test_a_pointer_resolves_only_to_a_heading_that_exists(pointer: str, resolves: bool) -> None:
    assert (broken_pointers(pointer, ROOT / "SECURITY.md") == []) is resolves
