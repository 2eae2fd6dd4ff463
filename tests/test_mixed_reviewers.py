"""One PR reviewed by every source the registry knows (examples/pr-mixed.json, built from real
corpus bodies by tests/fixtures/snapshots/make_mixed.py): it judges and renders, and the sticky
and the check run match their golden files (tests/golden/mixed/).

Regenerate with `REVIEWCOORD_REGEN=1 .venv/bin/pytest tests/test_mixed_reviewers.py`.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from reviewcoord import cli
from reviewcoord.bots import bot_keys
from reviewcoord.model import Verdict
from reviewcoord.render import annotations, check_output, sticky_comment
from tests import golden_support as golden

ROOT = Path(__file__).resolve().parents[1]
SNAPSHOT = ROOT / "examples" / "pr-mixed.json"


def assert_golden(name: str, text: str) -> None:
    golden.assert_golden("mixed", name, text)


@pytest.fixture(scope="module")
def verdict() -> Verdict:
    out = io.StringIO()
    assert cli.main(["27", "--replay", str(SNAPSHOT), "--format", "json"], {}, out) == 0
    return Verdict.model_validate_json(out.getvalue())


def test_every_registered_source_contributes_a_finding(verdict: Verdict) -> None:
    bots = {s.bot for f in verdict.critical + verdict.advisory for s in f.sources}
    assert bots == set(bot_keys())


def test_every_reviewer_reviewed_the_head(verdict: Verdict) -> None:
    assert verdict.pending == [] and verdict.unreviewed == []
    assert {b: s.state for b, s in verdict.bots.items()} == dict.fromkeys(bot_keys(), "reviewed")
    assert len(verdict.bots) == 14  # thirteen reviewers and code scanning


def test_the_shared_lines_are_one_group_with_each_sources_own_label(verdict: Verdict) -> None:
    lead = verdict.critical[0]
    assert lead.file == "src/api/session.ts"
    assert {s.bot: s.severity for s in lead.sources} == {
        "codex": "critical",
        "coderabbit": "critical",
        "greptile": "critical",
        "code-scanning": "critical",  # alert 96: its inline comment and its alert, one finding
        "copilot": "medium",
        "gemini": "medium",
    }
    assert "CodeRabbit:🔴 Critical" in lead.spread and "Gemini:high" in lead.spread
    assert verdict.gate == "block"


def test_dismissed_and_fixed_alerts_are_not_findings(verdict: Verdict) -> None:
    alerts = [
        s.url.rsplit("/", 1)[-1]
        for f in verdict.critical + verdict.advisory
        for s in f.sources
        if s.bot == "code-scanning"
    ]
    assert sorted(alerts) == ["96", "97"]


def test_sticky_matches_its_golden_file(verdict: Verdict) -> None:
    assert_golden("sticky.md", sticky_comment(verdict))


def test_check_run_matches_its_golden_file(verdict: Verdict) -> None:
    output = check_output(verdict)
    assert_golden("check.md", f"{output.title}\n\n{output.summary}")
    shown = [a.model_dump() if hasattr(a, "model_dump") else a for a in annotations(verdict)]
    assert_golden("annotations.json", json.dumps(shown, indent=2, ensure_ascii=False) + "\n")
