"""Adoption in five minutes (issues 17 and 24), where a test can tell: the README is short and
opens with a numbered quickstart that holds the user's two workflow files exactly as shipped,
trying it needs no development tools, the docs have an index that names every page, and the
four files (LICENSE, CHANGELOG.md, CONTRIBUTING.md, the example config) say what they must."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
MAX_README_LINES = 300


def sections() -> list[str]:
    return re.findall(r"^## (.+)$", README, flags=re.M)


def quickstart() -> str:
    return README.split("## Quickstart\n", 1)[1].split("\n## ", 1)[0]


def test_the_readme_onboards_and_links_the_rest() -> None:
    assert len(README.splitlines()) <= MAX_README_LINES
    assert sections() == ["Quickstart", "Try it locally", "What each reviewer needs", "Learn more"]
    assert "(docs/README.md)" in README


def test_the_quickstart_is_numbered_and_says_what_matters() -> None:
    text = quickstart()
    words_of = " ".join(text.split())
    steps = re.findall(r"^(\d)\. \*\*(.+?)\*\*", text, flags=re.M)
    assert [n for n, _ in steps] == ["1", "2", "3", "4", "5"]
    for words in (
        "default branch",  # step 1: where the workflows must be
        "pull_request_target",  # …and why they do without it
        "relay",
        "commit SHA",  # pinning: a commit until a release exists
        "past seven days",  # the check appears in the picker only after it ran
        "Rulesets",
        "branch protection",
        "expected-bots",
        "require-bots",
        "merge queue",
        "Private repositories",
    ):
        assert words in words_of, words


def test_the_quickstarts_workflows_are_the_shipped_examples() -> None:
    """The two files a user copies are byte for byte examples/workflows (which the tests
    evaluate and this repository runs), indented in the list."""
    blocks = re.findall(r"^   ```yaml\n(.*?)^   ```$", quickstart(), flags=re.M | re.S)
    dedented = ["\n".join(line[3:] for line in b.splitlines()) + "\n" for b in blocks]
    for name in ("review-coordinator.yml", "review-coordinator-relay.yml"):
        shipped = (ROOT / "examples/workflows" / name).read_text(encoding="utf-8")
        assert shipped in dedented, name


def test_the_docs_index_names_every_page() -> None:
    index = (ROOT / "docs/README.md").read_text(encoding="utf-8")
    for page in sorted((ROOT / "docs").glob("*.md")):
        if page.name != "README.md":
            assert f"]({page.name})" in index, page.name


def test_trying_it_installs_the_package_alone() -> None:
    try_it = README.split("## Try it locally\n", 1)[1].split("\n## ", 1)[0]
    assert "pip install -q . &&" in try_it and "[dev]" not in try_it
    assert "reviewcoord 12 --replay examples/pr-block.json" in try_it
    assert "bash scripts/test.sh" in try_it  # developing it: a separate command
    runtime = " ".join(PYPROJECT["project"]["dependencies"]).casefold()
    for tool in ("pytest", "ruff", "mypy", "hypothesis", "vcrpy"):
        assert tool not in runtime, tool


def test_the_license_is_the_mit_text_the_metadata_names() -> None:
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert (
        text.startswith("MIT License\n") and "Permission is hereby granted, free of charge" in text
    )
    assert PYPROJECT["project"]["license"] == "MIT"  # an SPDX expression: no deprecation warning
    assert PYPROJECT["project"]["license-files"] == ["LICENSE"]
    requires = PYPROJECT["build-system"]["requires"]
    assert requires == ["setuptools>=77"]  # the first setuptools that reads SPDX expressions


def test_the_changelog_keeps_a_changelog() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "[Keep a Changelog](https://keepachangelog.com/" in text
    headings = re.findall(r"^## \[(.+?)\]", text, flags=re.M)
    assert headings[0] == "Unreleased"
    assert f"{PYPROJECT['project']['version']}" in headings
    # No link to a tag or release that the release workflow has not made (none is pushed yet).
    assert "releases/tag/" not in text and "/compare/v" not in text
    for kind in re.findall(r"^### (.+)$", text, flags=re.M):
        assert kind in {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}, kind


def test_contributing_says_how_to_add_a_reviewer_profile() -> None:
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    for words in (
        "reviewcoord/bots/<key>.py",
        "BotProfile",
        "tests/fixtures/bots/corpus.jsonl",
        "PROVENANCE.md",
        "REVIEWCOORD_REGEN=1",
        "scripts/generated.py --write",
        "scripts/sticky_picture.py",
    ):
        assert words in text, words
