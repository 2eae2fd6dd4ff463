"""The repository stands on its own: a fresh clone has everything its tests, docs and code
comments refer to.

(a) No tracked file points at material outside the repository (the reference folders the
    project was started from). (b) Every relative Markdown link in README.md and docs/*.md
    resolves to a file in the repository. (c) The bot corpus fixture is there, complete.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "fixtures" / "bots" / "corpus.jsonl"
CORPUS_ENTRIES = 164

# Built from pieces so that this file does not match its own patterns.
_DOTS, _SHARED = "..", "shared"
OUTSIDE = re.compile(
    "|".join(
        [
            re.escape(f"{_DOTS}/{_SHARED}"),
            "REVIEWCOORD_" + "SHARED",
            _SHARED + "/(bots|spec|github|seeds)/",
            r"\b" + "PLATFORM" + r"\.md\b",
            r"\b" + "FORMATS" + r"(-2026)?\.md\b",
            r"\b" + "seeds" + "/",
        ]
    )
)
# Not text: nothing in them can point anywhere.
BINARY_SUFFIXES = {".png", ".jpg", ".jpeg", ".gif", ".ico", ".gz", ".zip", ".tar", ".whl"}
SKIP_DIRS = {".git", ".venv", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache"}


def tracked_files() -> list[Path]:
    """`git ls-files`; without git (or outside a work tree), every file under the root."""
    git = shutil.which("git")
    if git is not None:
        done = subprocess.run(
            [git, "ls-files", "-z"], cwd=ROOT, capture_output=True, check=False, timeout=60
        )
        if done.returncode == 0 and done.stdout:
            names = done.stdout.decode("utf-8").split("\0")
            return [ROOT / name for name in names if name]
    return [
        path
        for path in ROOT.rglob("*")
        if path.is_file()
        and not SKIP_DIRS.intersection(path.relative_to(ROOT).parts)
        and not path.relative_to(ROOT).parts[0].endswith(".egg-info")
    ]


def test_the_file_list_is_not_empty() -> None:
    files = {path.relative_to(ROOT).as_posix() for path in tracked_files()}
    assert {"README.md", "pyproject.toml", "tests/bots_support.py"} <= files


def test_no_tracked_file_points_outside_the_repository() -> None:
    hits = []
    for path in tracked_files():
        if path.suffix in BINARY_SUFFIXES or not path.is_file():
            continue
        text = path.read_bytes().decode("utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            match = OUTSIDE.search(line)
            if match:
                rel = path.relative_to(ROOT).as_posix()
                hits.append(f"{rel}:{number}: {match.group(0)!r}")
    assert not hits, "references to files outside the repository:\n" + "\n".join(hits)


def test_the_patterns_catch_what_they_should() -> None:
    for text in [
        f"see {_DOTS}/{_SHARED}/bots/corpus.jsonl",
        f"{_SHARED}/spec/severity.md",
        "PLATFORM" + ".md §3.4",
        "FORMATS" + ".md §1",
        "FORMATS" + "-2026.md",
        "REVIEWCOORD_" + "SHARED",
        "seeds" + "/002_x.txt",
    ]:
        assert OUTSIDE.search(text), text
    for text in ["docs/github-platform.md §3.4", "docs/bot-formats.md §1", "a shared helper"]:
        assert not OUTSIDE.search(text), text


FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
# A code span may run over several lines, never over a blank one.
CODE_SPAN = re.compile(r"(`+)(?:(?!\1)(?:[^`\n]|\n(?!\s*\n)|`))+?\1")
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_LINK = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s.*)?$")


def _without_code(text: str) -> list[str]:
    """The lines of `text` with fenced blocks and code spans blanked (line numbers kept)."""
    lines = []
    fence: str | None = None
    for line in text.splitlines():
        opening = FENCE.match(line)
        # A backtick fence's info string has no backtick: "``` `x` ```" is a code span.
        if opening and opening.group(1)[0] == "`" and "`" in opening.group(2):
            opening = None
        if fence is not None:
            if (
                opening is not None
                and opening.group(1)[0] == fence[0]
                and len(opening.group(1)) >= len(fence)
                and not opening.group(2).strip()
            ):
                fence = None
            lines.append("")
            continue
        if opening:
            fence = opening.group(1)
            lines.append("")
            continue
        lines.append(line)
    prose = CODE_SPAN.sub(lambda m: "\n" * m.group(0).count("\n"), "\n".join(lines))
    return prose.split("\n")


def markdown_links(text: str) -> list[tuple[int, str]]:
    """(line, target) of every inline and reference-style link outside code."""
    links = []
    for number, line in enumerate(_without_code(text), 1):
        links += [(number, m.group(1)) for m in INLINE_LINK.finditer(line)]
        reference = REFERENCE_LINK.match(line)
        if reference:
            links.append((number, reference.group(1)))
    return links


def is_relative(target: str) -> bool:
    return not re.match(r"^([a-z][a-z0-9+.-]*:|//|#)", target, re.IGNORECASE)


def markdown_files() -> list[Path]:
    """README.md and docs/*.md, plus every other Markdown file in the repository."""
    others = sorted(path for path in tracked_files() if path.suffix == ".md")
    first = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    return first + [path for path in others if path not in first]


def test_markdown_link_parser() -> None:
    text = (
        'See [a](docs/a.md), [b](<docs/b.md>) and ![i](img.png "t").\n'
        "`[not](a-link.md)` and [web](https://example.com) and [top](#x)\n"
        "```\n[in](code.md)\n```\n"
        "  ``` `x`: [span](span.md) ```, and `a\n[spans](lines.md)` too\n"
        "[ref]: tests/ref.md\n"
    )
    targets = [target for _, target in markdown_links(text)]
    relative = ["docs/a.md", "docs/b.md", "img.png", "tests/ref.md"]
    assert targets == [*relative[:3], "https://example.com", "#x", relative[3]]
    assert [target for target in targets if is_relative(target)] == relative


@pytest.mark.parametrize("doc", markdown_files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_relative_markdown_links_resolve(doc: Path) -> None:
    broken = []
    for number, target in markdown_links(doc.read_text(encoding="utf-8")):
        if not is_relative(target):
            continue
        path = unquote(target.split("#", 1)[0].split("?", 1)[0])
        resolved = (doc.parent / path).resolve()
        inside = resolved == ROOT or ROOT in resolved.parents
        if not inside or not resolved.exists():
            broken.append(f"{doc.relative_to(ROOT)}:{number}: {target}")
    assert not broken, "relative links that do not resolve inside the repository:\n" + "\n".join(
        broken
    )


def test_docs_are_linked_from_the_readme() -> None:
    readme = {target for _, target in markdown_links((ROOT / "README.md").read_text("utf-8"))}
    assert {"docs/interface.md", "docs/severity.md"} <= readme


def test_corpus_fixture_is_complete() -> None:
    assert CORPUS.is_file(), f"bot corpus fixture missing: {CORPUS}"
    lines = [line for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]
    entries = [json.loads(line) for line in lines]
    ids = [entry["corpus_id"] for entry in entries]
    assert len(entries) == CORPUS_ENTRIES
    assert len(set(ids)) == len(ids), "corpus_id values must be unique"
    assert (CORPUS.parent / "PROVENANCE.md").is_file()


def heading_anchors(text: str) -> set[str]:
    """GitHub's anchors for the headings of a Markdown file (outside fenced blocks): lower
    case, punctuation dropped (hyphens and underscores kept, a code span's words too), spaces
    to hyphens; a repeated heading gets -1, -2, …"""
    anchors: set[str] = set()
    for prose, line in zip(_without_code(text), text.splitlines(), strict=True):
        match = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not match or not re.match(r"^#{1,6}\s", prose):
            continue
        slug = re.sub(r"[^\w\- ]", "", match.group(1).strip().lower()).replace(" ", "-")
        candidate, n = slug, 0
        while candidate in anchors:
            n += 1
            candidate = f"{slug}-{n}"
        anchors.add(candidate)
    return anchors


def test_heading_anchor_rules() -> None:
    text = (
        "# A\n## Use it as a GitHub Action\n### When it reads: settle\n## 19. Re-requesting\n## A\n"
        "## Waiting: `wait: events`\n```\n## not a heading\n```\n"
    )
    assert heading_anchors(text) == {
        "a",
        "use-it-as-a-github-action",
        "when-it-reads-settle",
        "19-re-requesting",
        "a-1",
        "waiting-wait-events",
    }


@pytest.mark.parametrize("doc", markdown_files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_anchor_links_resolve(doc: Path) -> None:
    """`#anchor` links, in the same file or another Markdown file of the repository (the
    README's table of contents, its quickstart), name a heading that exists."""
    broken = []
    for number, target in markdown_links(doc.read_text(encoding="utf-8")):
        path, _, anchor = target.partition("#")
        if not anchor or (path and not is_relative(path)) or not (path or target.startswith("#")):
            continue
        file = (doc.parent / unquote(path)).resolve() if path else doc
        if file.suffix != ".md" or not file.is_file():
            continue
        if anchor not in heading_anchors(file.read_text(encoding="utf-8")):
            broken.append(f"{doc.relative_to(ROOT)}:{number}: {target}")
    assert not broken, "anchor links without their heading:\n" + "\n".join(broken)
