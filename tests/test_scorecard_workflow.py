"""The weekly scorecard workflow (docs/cli.md § Reviewer scorecard): it lints with actionlint, runs
on a schedule, asks for the least it needs, installs the tool (never runs the repository's code),
keeps one issue found by marker and author, and puts no `${{ … }}` expression into a shell
script (values go through `env:`)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.workflow_support import ROOT, actionlint, load

DOC = ROOT / "docs/cli.md"
HEADING = "### Weekly scorecard workflow\n"


def snippet() -> str:
    text = DOC.read_text(encoding="utf-8")
    section = text.split(HEADING, 1)[1]
    # A four-backtick fence: the script writes a three-backtick block into the issue.
    block = re.search(r"````yaml\n(.*?)````", section, flags=re.S)
    assert block is not None, "docs/cli.md has no workflow under 'Weekly scorecard workflow'"
    return block.group(1)


def job() -> dict[str, Any]:
    return dict(load(snippet())["jobs"]["scorecard"])


def test_actionlint_passes_the_scorecard_workflow(tmp_path: Path) -> None:
    tool = actionlint()
    if tool is None:
        pytest.skip("actionlint is not installed (pip install -e '.[dev]')")
    (tmp_path / ".github/workflows").mkdir(parents=True)
    (tmp_path / ".github/workflows/scorecard.yml").write_text(snippet())
    proc = subprocess.run(
        [tool, "-no-color", ".github/workflows/scorecard.yml"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_weekly_with_the_least_permissions() -> None:
    wf = load(snippet())
    assert wf["permissions"] == {}
    assert [s["cron"] for s in wf["on"]["schedule"]] == ["17 6 * * 1"]
    assert "workflow_dispatch" in wf["on"]
    assert job()["permissions"] == {"pull-requests": "read", "issues": "write"}


def test_it_scores_with_the_cache_and_keeps_one_issue_by_marker_and_author() -> None:
    steps = job()["steps"]
    runs = [s for s in steps if "reviewcoord scorecard" in s.get("run", "")]
    assert len(runs) == 2 and all("--cache .scorecard-cache" in s["run"] for s in runs)
    assert all(s["env"] == {"GITHUB_TOKEN": "${{ github.token }}"} for s in runs)
    (cache,) = [s for s in steps if s.get("uses", "").startswith("actions/cache@")]
    assert cache["with"]["path"] == ".scorecard-cache"
    (issue,) = [s for s in steps if "MARKER" in s.get("env", {})]
    assert issue["env"]["MARKER"] == "<!-- review-coordinator-scorecard -->"
    script = issue["run"]
    assert "creator=github-actions%5Bbot%5D" in script and "startswith(env.MARKER)" in script
    assert "gh issue edit" in script and "gh issue create" in script
    for step in steps:
        assert "${{" not in step.get("run", "")  # every value comes in through env:
    # The only checkout is the tool's own repository: the repository's code is never run.
    (checkout,) = [s for s in steps if "checkout" in str(s.get("uses", ""))]
    assert checkout["with"]["repository"] == "octo/review-coordinator"
    assert checkout["with"]["persist-credentials"] is False


def test_the_docs_chart_is_the_golden_one() -> None:
    golden = ROOT / "tests/golden/scorecard/repo.svg"
    assert (ROOT / "docs/scorecard.svg").read_text() == golden.read_text()


def test_the_docs_table_is_the_golden_one() -> None:
    golden = (ROOT / "tests/golden/scorecard/repo.txt").read_text(encoding="utf-8")
    assert f"```text\n{golden}```" in DOC.read_text(encoding="utf-8")
