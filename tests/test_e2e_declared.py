"""End to end: a reviewer declared in the base branch's config file (interface §7 `reviewers:`)
is judged like a built-in bot, through entrypoint.py against the fake GitHub."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.declared_support import KILO_CONFIG as DECLARED
from tests.declared_support import KILO_LOGIN as KILO
from tests.e2e_support import HEAD, Run, run_action, stickies
from tests.e2e_support import verdict_of as checked_verdict
from tests.fakegithub import FakeGitHub

pytestmark = pytest.mark.e2e

CONFIG = ".github/review-coordinator.yml"


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as gh:
        gh.add_pull(2, head_sha=HEAD)
        yield gh


def verdict_of(run: Run) -> dict[str, Any]:
    return checked_verdict(run, declared={"kilo"})


def test_a_declared_reviewer_blocks_on_its_critical_inline_finding(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    fake.set_file(CONFIG, "main", DECLARED)
    fake.add_review_comment(
        2, login=KILO, body="**Critical** SQL built from user input", path="src/db.py", line=42
    )
    fake.add_review(2, login=KILO, body="## Review complete\n\n1 issue.", commit_id=HEAD)
    run = run_action(fake, tmp_path)  # expected-bots auto: Kilo is seen on this PR
    assert run.returncode == 0, run.log
    assert run.outputs["gate"] == "block"
    assert run.outputs["gate-reason"] == "1 critical finding"
    verdict = verdict_of(run)
    assert verdict["bots"]["kilo"]["state"] == "reviewed"
    assert verdict["settled_on"] == ["kilo"] and "kilo" not in verdict["unknown_bots"]
    (finding,) = verdict["critical"]
    assert (finding["file"], finding["line"], finding["title"]) == (
        "src/db.py",
        42,
        "SQL built from user input",
    )
    assert finding["sources"][0]["bot"] == "kilo"
    assert finding["sources"][0]["severity_raw"] == "Critical"
    (sticky,) = stickies(fake)
    assert f"Kilo Code reviewed `{HEAD[:7]}`" in sticky["body"]
    assert "Kilo Code:Critical" in sticky["body"]
    assert "Kilo Code" in run.summary


def test_require_bots_names_a_declared_reviewer_that_could_not_review(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    fake.set_file(CONFIG, "main", DECLARED)
    fake.add_issue_comment(2, login=KILO, body="Sorry, I hit my rate limit for today.")
    run = run_action(fake, tmp_path, inputs={"require-bots": "kilo"})
    assert run.returncode == 0, run.log
    assert run.outputs["gate"] == "block"
    assert run.outputs["gate-reason"] == (
        f"required bot kilo has not reviewed {HEAD[:7]}: failed — "
        "Sorry, I hit my rate limit for today."
    )
    assert run.outputs["unreviewed"] == "kilo"
    verdict = verdict_of(run)
    assert verdict["bots"]["kilo"]["state"] == "failed"
    assert verdict["critical"] == [] and verdict["advisory"] == []
    (sticky,) = stickies(fake)
    assert f"Kilo Code did not review `{HEAD[:7]}`" in sticky["body"]
    assert fake.statuses(HEAD)[-1]["state"] == "failure"


def test_a_bad_regex_in_a_declaration_is_an_invalid_configuration(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    """Named with its key and line on every surface; with no valid earlier version of the file
    the PR is judged under the defaults, where Kilo is an unknown bot (docs/troubleshooting.md)."""
    fake.set_file(CONFIG, "main", DECLARED.replace("(Critical|Warning|Info)", "(Critical|Warning"))
    fake.add_review(2, login=KILO, body="## Review complete", commit_id=HEAD)
    run = run_action(fake, tmp_path)
    assert run.returncode == 0, run.log
    message = "key 'reviewers.kilo.severity.pattern': does not compile: missing ),"
    assert message in run.stdout and CONFIG in run.stdout
    (sticky,) = stickies(fake)
    assert message in " ".join(sticky["body"].split())
    assert "config file invalid" in fake.statuses(HEAD)[-1]["description"]


def test_expected_bots_auto_learns_a_declared_reviewer_from_the_repository(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    """Kilo reviewed another PR of the repository, not yet this one: it is expected here."""
    fake.set_file(CONFIG, "main", DECLARED)
    fake.add_pull(3, head_sha="d" * 40)
    fake.add_review_comment(3, login=KILO, body="**Info** Typo", path="README.md", line=1)
    run = run_action(fake, tmp_path)
    assert run.returncode == 0, run.log
    verdict = verdict_of(run)
    assert verdict["expected_bots"] == ["kilo"] and verdict["pending"] == ["kilo"]
    assert verdict["bots"]["kilo"]["state"] == "not_seen"


def test_the_cli_names_a_declared_reviewer_in_its_text(fake: FakeGitHub) -> None:
    from reviewcoord.cli import main

    fake.set_file(CONFIG, "main", DECLARED)
    fake.add_token("ghp_declared", "octo-dev", user_endpoint=True)
    fake.add_review(2, login=KILO, body="No issues found.", commit_id=HEAD)
    env = {"GITHUB_API_URL": fake.base_url, "GITHUB_TOKEN": "ghp_declared"}
    out = io.StringIO()
    argv = ["2", "--repo", fake.repo, "--settle", "none", "--format", "text", "--dry-run"]
    assert main(argv, env, out) == 0
    assert "✓ Kilo Code reviewed" in out.getvalue()  # (outside the scope: "kilo")


def test_a_declared_reviewer_that_reports_only_through_its_check_run(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    """`check:` in the declaration (interface §7): the check run of its app is its review."""
    config = (
        "expected-bots: shield\nreviewers:\n  shield:\n    logins: ['shieldbot[bot]']\n"
        "    check:\n      name: Shield Review\n      app: shieldbot\n"
    )
    fake.set_file(CONFIG, "main", config)
    fake.add_bot_check_run(HEAD, "Shield Review", app_slug="shieldbot", app_id=4242)
    run = run_action(fake, tmp_path)
    assert run.returncode == 0, run.log
    verdict = checked_verdict(run, declared={"shield"})
    assert verdict["settled_on"] == ["shield"] and verdict["gate"] == "go"
    detail = verdict["bots"]["shield"]["detail"]
    assert detail.startswith("its check run `Shield Review` ended success")
