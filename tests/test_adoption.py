"""Adoption in five minutes (issue 17), where a test can tell: the README opens with a numbered
quickstart and a table of contents, trying it needs no development tools, and the four files
(LICENSE, CHANGELOG.md, CONTRIBUTING.md, the example config) are there and say what they must."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def sections() -> list[str]:
    return re.findall(r"^## (.+)$", README, flags=re.M)


def test_the_readme_opens_with_a_numbered_quickstart_then_contents() -> None:
    assert sections()[:2] == ["Quickstart", "Contents"]
    quickstart = README.split("## Quickstart\n", 1)[1].split("\n## ", 1)[0]
    words_of = " ".join(quickstart.split())
    steps = re.findall(r"^(\d)\. \*\*(.+?)\*\*", quickstart, flags=re.M)
    assert [n for n, _ in steps] == ["1", "2", "3", "4", "5"]
    for words in (
        "default branch",  # step 1: where the workflow must be
        "pull_request_target",
        "full SHA",  # no release yet: pin a commit
        "past seven days",  # the check appears in the picker only after it ran
        "Rulesets",
        "branch protection",
        "require-bots",
        "merge queue",
    ):
        assert words in words_of, words


def test_the_contents_name_every_section() -> None:
    contents = README.split("## Contents\n", 1)[1].split("\n## ", 1)[0]
    for title in sections()[2:]:
        slug = re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")
        assert f"(#{slug})" in contents, title


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
