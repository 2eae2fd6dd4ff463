"""End to end: the reviewers added in 2026 need no special case — `expected-bots: auto` learns
them from the repository's recent comments, and their findings group, rank and gate with the
others' (entrypoint.py against the fake GitHub on 127.0.0.1, real corpus bodies)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e_support import (
    CURSOR,
    HEAD,
    OTHER_PR,
    body,
    cursor_clean,
    pulls_two_and_five,
    run_action,
    stickies,
    verdict_of,
)
from tests.fakegithub import FakeGitHub

pytestmark = pytest.mark.e2e

CODERABBIT = "coderabbitai[bot]"
GREPTILE = "greptile-apps[bot]"
GEMINI = "gemini-code-assist[bot]"


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    yield from pulls_two_and_five()


def test_auto_expects_the_new_reviewers_seen_on_other_prs(fake: FakeGitHub, tmp_path: Path) -> None:
    fake.add_review_comment(
        OTHER_PR,
        login=CODERABBIT,
        body=body("N3_cr_agh85_major_notag"),
        path="a.go",
        line=3,
        commit_id="d" * 40,
    )
    fake.add_issue_comment(OTHER_PR, login=GREPTILE, body=body("N3_grep_nvf5263_summary_h2"))
    fake.add_issue_comment(OTHER_PR, login="some-unknown-bot[bot]", body="hello")
    fake.add_review(2, login=CURSOR, body=cursor_clean(HEAD), commit_id=HEAD)
    run = run_action(fake, tmp_path)
    assert run.returncode == 0, run.log
    verdict = verdict_of(run)
    assert verdict["expected_bots"] == ["cursor", "coderabbit", "greptile"]
    assert verdict["pending"] == ["coderabbit", "greptile"]


def test_new_reviewers_findings_group_and_gate_with_the_others(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    for login, corpus_id, line in (
        (CODERABBIT, "N3_cr_agh106_critical_quickwin", 40),
        (GREPTILE, "N3_grep_uos8_p0_fixincodex", 41),
        (GEMINI, "N3_gem_uos8_high_refs", 42),
    ):
        fake.add_review_comment(
            2, login=login, body=body(corpus_id), path="src/api.ts", line=line, commit_id=HEAD
        )
    run = run_action(fake, tmp_path, inputs={"expected-bots": "coderabbit,greptile,gemini"})
    assert run.returncode == 0, run.log
    verdict = verdict_of(run)
    assert verdict["gate"] == "block" and verdict["pending"] == []
    (lead,) = verdict["critical"]
    assert [s["bot"] for s in lead["sources"]] == ["coderabbit", "greptile", "gemini"]
    assert [s["severity"] for s in lead["sources"]] == ["critical", "critical", "medium"]
    assert lead["spread"] == "CodeRabbit:🔴 Critical · Greptile:P0 · Gemini:high"
    (sticky,) = stickies(fake)
    assert "CodeRabbit:🔴 Critical" in sticky["body"] and "Gemini:high" in sticky["body"]
    assert {b: s["state"] for b, s in verdict["bots"].items()} == {
        "coderabbit": "reviewed",
        "gemini": "reviewed",
        "greptile": "reviewed",
    }
