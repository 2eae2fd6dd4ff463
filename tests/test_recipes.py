"""Every workflow and every workflow recipe in the repository passes the current actionlint: the
repository's own workflows, the users' examples, and each `yaml` block of the README and the docs
that is a workflow (indented list blocks included)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.workflow_support import ROOT, actionlint, load

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(
    r"^(?P<indent> *)(?P<fence>`{3,4})yaml\n(?P<body>.*?)^(?P=indent)(?P=fence)$", re.M | re.S
)


def recipes() -> list[tuple[str, str]]:
    """(where, text) for every workflow recipe in the Markdown files."""
    found: list[tuple[str, str]] = []
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        for n, m in enumerate(FENCE.finditer(text)):
            indent = len(m["indent"])
            body = "\n".join(line[indent:] for line in m["body"].splitlines()) + "\n"
            data = load(body) if "jobs:" in body else {}
            if isinstance(data, dict) and "jobs" in data and "on" in data:
                found.append((f"{path.relative_to(ROOT)}#{n}", body))
    return found


def test_the_docs_hold_the_recipes_they_promise() -> None:
    where = {w.split("#")[0] for w, _ in recipes()}
    assert {"README.md", "docs/cli.md", "docs/doctor.md"} <= where


def test_actionlint_passes_every_workflow_and_recipe(tmp_path: Path) -> None:
    tool = actionlint()
    if tool is None:
        pytest.fail("actionlint is missing: bash scripts/setup.sh installs it (the dev extra)")
    own = sorted(str(p) for p in (ROOT / ".github/workflows").glob("*.yml"))
    workflows = tmp_path / ".github/workflows"
    workflows.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    names = []
    for path in sorted((ROOT / "examples/workflows").glob("*.yml")):
        (workflows / f"example-{path.name}").write_text(path.read_text(encoding="utf-8"))
        names.append(f".github/workflows/example-{path.name}")
    for n, (_where, body) in enumerate(recipes()):
        (workflows / f"recipe-{n}.yml").write_text(body)
        names.append(f".github/workflows/recipe-{n}.yml")
    for files, cwd in ((own, ROOT), (names, tmp_path)):
        proc = subprocess.run(
            [tool, "-no-color", *files], cwd=cwd, capture_output=True, text=True, check=False
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr


def test_control_actionlint_catches_a_deprecated_action(tmp_path: Path) -> None:
    """The check can fail: a node20 action (what the doctor recipe used to hold) is refused."""
    tool = actionlint()
    assert tool is not None
    (tmp_path / ".github/workflows").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".github/workflows/old.yml").write_text(
        "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - uses: actions/checkout@v4\n"
    )
    proc = subprocess.run(
        [tool, "-no-color"], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert proc.returncode != 0 and "node20" in proc.stdout


USES = re.compile(r"^\s*-?\s*uses:\s*(?P<action>[^\s#]+)(?P<comment>.*)$", re.M)
SHA_PIN = re.compile(r"@[0-9a-f]{40}$")


def workflow_files() -> list[Path]:
    return sorted(
        [*(ROOT / ".github/workflows").glob("*.yml"), *(ROOT / "examples/workflows").glob("*.yml")]
    )


def test_every_third_party_action_is_pinned_by_a_full_sha_with_its_version() -> None:
    """Another owner's action is pinned by its commit (a tag can be moved), the version as a
    comment; our own (`./…`, `octo/review-coordinator`: the user's pin, docs/adopt.md) aside."""
    texts = [(str(p.relative_to(ROOT)), p.read_text("utf-8")) for p in workflow_files()]
    unpinned = [
        f"{where}: {m['action']}"
        for where, text in texts + recipes()
        for m in USES.finditer(text)
        if not m["action"].startswith(("./", "octo/review-coordinator", "docker://"))
        and not (SHA_PIN.search(m["action"]) and re.match(r"\s*# v\d", m["comment"]))
    ]
    assert not unpinned, "\n".join(unpinned)
