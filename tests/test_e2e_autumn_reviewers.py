"""End to end: the reviewers teams added in autumn 2026 — cubic, Macroscope, CodeAnt, Graphite
Agent, Devin Review — work with no config (issue 25): `expected-bots: auto` sees them, their
findings gate at their levels, their check runs settle them, and Macroscope's withdrawal counts
only when the edit is its own (entrypoint.py against the fake GitHub on 127.0.0.1, real corpus
bodies)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e_support import (
    HEAD,
    OTHER_PR,
    body,
    pulls_two_and_five,
    run_action,
    stickies,
    verdict_of,
)
from tests.fakegithub import FakeGitHub

pytestmark = pytest.mark.e2e

# Their logins, as GitHub shows them on the real bodies of the corpus.
CUBIC, MACROSCOPE, CODEANT, GRAPHITE, DEVIN = (
    *("cubic-dev-ai[bot]", "macroscopeapp[bot]", "codeant-ai[bot]"),
    *("graphite-app[bot]", "devin-ai-integration[bot]"),
)
CODEANT_SHA = "d5884e6f93e5446faf984e374ce4e473186e1195"


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    yield from pulls_two_and_five()


def inline(fake: FakeGitHub, pr: int, login: str, cid: str, path: str, line: int) -> int:
    sha = HEAD if pr == 2 else "d" * 40
    made = fake.add_review_comment(
        pr, login=login, body=body(cid), path=path, line=line, commit_id=sha
    )
    return int(made["id"])


def codeant_status(commit: str) -> str:
    return (
        body("N5_codeant_cc1745_status").replace(CODEANT_SHA, commit).replace("d5884e6", commit[:7])
    )


def test_auto_expects_the_autumn_reviewers_seen_on_other_prs(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    inline(fake, OTHER_PR, CUBIC, "N5_cubic_aireview1_inline_p3", "a.ts", 4)
    inline(fake, OTHER_PR, MACROSCOPE, "N5_macro_t3code_inline_medium", "b.tsx", 10)
    inline(fake, OTHER_PR, GRAPHITE, "N5_graphite_cc1589_inline", "c.sh", 3)
    inline(fake, OTHER_PR, DEVIN, "N5_devin_hena79_yellow", "d.ts", 83)
    fake.add_issue_comment(OTHER_PR, login=CODEANT, body=codeant_status("d" * 40))
    fake.add_issue_comment(OTHER_PR, login="some-unknown-bot[bot]", body="hello")
    run = run_action(fake, tmp_path, inputs={"fast-timeout": "2", "full-timeout": "3"})
    assert run.returncode == 0, run.log
    verdict = verdict_of(run)
    autumn = ["cubic", "macroscope", "codeant", "graphite", "devin"]
    assert verdict["expected_bots"] == autumn
    assert verdict["pending"] == autumn and verdict["unknown_bots"] == []


def test_findings_gate_at_their_levels_and_their_checks_settle_them(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    fake.add_review(2, login=CUBIC, body=body("N5_cubic_aireview1_review"), commit_id=HEAD)
    inline(fake, 2, CUBIC, "N5_cubic_aireview1_inline_p0", "server/src/auth/password.ts", 2)
    fake.add_bot_check_run(HEAD, "cubic · AI code reviewer", app_slug="cubic-dev-ai",
                           app_id=1082092, title="AI review completed")  # fmt: skip
    inline(fake, 2, MACROSCOPE, "N5_macro_t3code_inline_high", "apps/server/handlers.ts", 57)
    fake.add_bot_check_run(HEAD, "Macroscope - Correctness Check", app_slug="macroscopeapp",
                           app_id=900172, conclusion="neutral",
                           title="1 issue identified (5 code objects reviewed).")  # fmt: skip
    inline(fake, 2, CODEANT, "N5_codeant_cc1745_inline_major", "scripts/ceiling.test.sh", 3)
    fake.add_issue_comment(2, login=CODEANT, body=codeant_status(HEAD))
    inline(fake, 2, GRAPHITE, "N5_graphite_cc1589_inline", "scripts/marker.sh", 9)
    fake.add_review(2, login=DEVIN, body=body("N5_devin_found_issue"), commit_id=HEAD)
    inline(fake, 2, DEVIN, "N5_devin_hena79_yellow", "apps/web/src/hooks/use-admin.ts", 83)
    fake.add_bot_check_run(HEAD, "Devin Review", app_slug="devin-ai-integration", app_id=811515)
    run = run_action(fake, tmp_path)
    assert run.returncode == 0, run.log
    verdict = verdict_of(run)
    assert verdict["gate"] == "block" and verdict["pending"] == []
    states = {b: s["state"] for b, s in verdict["bots"].items()}
    assert states == dict.fromkeys(
        ["cubic", "macroscope", "codeant", "graphite", "devin"], "reviewed"
    )
    levels = {
        (s["bot"], s["severity_raw"], s["severity"])
        for group in verdict["critical"] + verdict["advisory"]
        for s in group["sources"]
    }
    assert levels == {
        ("cubic", "P0", "critical"),
        ("macroscope", "🟠 High", "critical"),
        ("codeant", "Major", "medium"),
        ("graphite", None, "medium"),
        ("devin", "🟡", "medium"),
    }
    assert len(verdict["critical"]) == 2  # cubic's review and Devin's count line add none
    (sticky,) = stickies(fake)
    assert "cubic:P0" in sticky["body"] and "Macroscope:🟠 High" in sticky["body"]


def test_their_check_runs_alone_settle_a_clean_head(fake: FakeGitHub, tmp_path: Path) -> None:
    fake.add_bot_check_run(HEAD, "Macroscope - Correctness Check", app_slug="macroscopeapp",
                           app_id=900172,
                           title="No issues identified (3 code objects reviewed).")  # fmt: skip
    fake.add_bot_check_run(HEAD, "cubic · AI code reviewer", app_slug="cubic-dev-ai",
                           app_id=1082092, conclusion="neutral")  # fmt: skip
    fake.add_bot_check_run(HEAD, "Devin Review", app_slug="devin-ai-integration", app_id=811515)
    inputs = {"expected-bots": "macroscope,cubic,devin", "finishing-grace": "0"}
    verdict = verdict_of(run_action(fake, tmp_path, inputs=inputs), exit_ok=True)
    assert verdict["gate"] == "go" and verdict["pending"] == []
    assert verdict["settled_on"] == ["cubic", "macroscope", "devin"]
    assert "No issues identified" in verdict["bots"]["macroscope"]["detail"]


def test_attack_checks_named_like_theirs_from_another_app_settle_nothing(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    for name in ("Macroscope - Correctness Check", "cubic · AI code reviewer", "Devin Review"):
        fake.add_bot_check_run(HEAD, name, app_slug="mallory-app", app_id=4242,
                               title="No issues identified (3 code objects reviewed).")  # fmt: skip
    inputs = {"expected-bots": "macroscope,cubic,devin", "fast-timeout": "2", "full-timeout": "3"}
    verdict = verdict_of(run_action(fake, tmp_path, inputs=inputs), exit_ok=True)
    assert verdict["settled_on"] == [] and verdict["pending"] == ["cubic", "macroscope", "devin"]


def test_macroscope_withdraws_by_its_own_edit_and_never_by_someone_elses(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    finding = inline(fake, 2, MACROSCOPE, "N5_macro_t3code_inline_high", "apps/server/h.ts", 57)
    withdrawn = body("N5_macro_t3code_inline_high") + (
        "\n\nNo longer relevant as of 6a06232237270dfc6d1e39af9611ce2ac3349ce5"
    )
    fake.edit_review_comment(finding, withdrawn)  # by Macroscope itself
    inputs = {"expected-bots": "macroscope"}
    own = verdict_of(run_action(fake, tmp_path / "own", inputs=inputs), exit_ok=True)
    assert own["critical"] == [] and own["gate"] == "go"
    assert any("withdrawn by Macroscope in its own edit" in n["note"] for n in own["parse_notes"])
    # Attack: the same words edited in by a person with write access withdraw nothing.
    fake.edit_review_comment(finding, withdrawn + " ", editor="mallory", editor_type="User")
    held = verdict_of(run_action(fake, tmp_path / "held", inputs=inputs), exit_ok=True)
    assert held["gate"] == "block" and len(held["critical"]) == 1
    assert any("@mallory" in n["note"] for n in held["parse_notes"])
