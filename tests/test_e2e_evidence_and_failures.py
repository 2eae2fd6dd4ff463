"""Issue 15's routes to a false `go`, end to end (`python entrypoint.py` against the fake
GitHub), each beside its control: the same input without the attack behaves as it should.

* Server time only: "posted on this head" for a comment without a commit id is measured
  against the time GitHub saw the head arrive (its check suite), never the commit's own date.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e_support import (
    CLAUDE,
    CODEX,
    CURSOR,
    HEAD,
    NEW_HEAD,
    body,
    claude_tracker,
    cursor_clean,
    run_action,
    verdict_of,
)
from tests.fakegithub import FakeGitHub

pytestmark = pytest.mark.e2e

CLAUDE_ONLY = {"expected-bots": "claude", "require-bots": "claude"}
LONG_AGO = "2020-01-01T00:00:00Z"


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as gh:
        gh.add_pull(2, head_sha=HEAD)
        gh.set_commit_files(HEAD, ["src/app.py"])
        yield gh


def claude_clean(fake: FakeGitHub) -> None:
    """Claude's real clean tracker comment: an issue comment that names no commit."""
    fake.add_issue_comment(2, login=CLAUDE, body=body("L_email_verificay3"))


def test_a_commit_dated_in_the_past_does_not_inherit_claudes_clean_review(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    claude_clean(fake)  # Claude reviewed HEAD
    fake.push(2, NEW_HEAD, ["src/app.py"])
    fake.set_commit_date(NEW_HEAD, LONG_AGO)  # the pusher dates the new commit before it
    run = run_action(fake, tmp_path, inputs=CLAUDE_ONLY)
    v = verdict_of(run)
    assert v["head_sha"] == NEW_HEAD and v["bots"]["claude"]["state"] == "not_seen", run.log
    assert run.outputs["gate"] == "block" and "claude" not in v["settled_on"]


def test_control_a_claude_review_after_the_push_counts(fake: FakeGitHub, tmp_path: Path) -> None:
    fake.push(2, NEW_HEAD, ["src/app.py"])
    fake.set_commit_date(NEW_HEAD, LONG_AGO)
    claude_tracker(fake)  # Claude's run began after NEW_HEAD arrived
    run = run_action(fake, tmp_path, inputs=CLAUDE_ONLY)
    v = verdict_of(run)
    assert v["bots"]["claude"]["state"] == "reviewed", run.log
    assert run.outputs["gate"] == "go" and v["settled_on"] == ["claude"]


def test_an_unknown_arrival_time_is_not_on_this_head(fake: FakeGitHub, tmp_path: Path) -> None:
    """No check suite on the head (GitHub's clock unknown): an undated comment does not count;
    the run's own check run then dates the head, and a Claude run begun after it counts."""
    fake.push(2, NEW_HEAD, ["src/app.py"])
    fake.forget_arrival(NEW_HEAD)
    claude_clean(fake)
    run = run_action(fake, tmp_path / "1", inputs=CLAUDE_ONLY)
    assert verdict_of(run)["bots"]["claude"]["state"] == "not_seen", run.log
    claude_tracker(fake)  # after our check run on NEW_HEAD: GitHub's clock knows the head now
    again = run_action(fake, tmp_path / "2", inputs=CLAUDE_ONLY)
    assert verdict_of(again)["bots"]["claude"]["state"] == "reviewed", again.log


# --- every failure reaches the check the branch rule requires ----------------------------

AI_REVIEW = {"check-name": "ai-review", "status-context": "ai-review", "expected-bots": "claude"}


def newest_check(fake: FakeGitHub, name: str, sha: str = HEAD) -> dict[str, Any]:
    runs = [r for r in fake.check_runs(sha) if r["name"] == name]
    assert runs, f"no {name} check run on {sha[:7]}"
    return max(runs, key=lambda r: r["id"])


def newest_status(fake: FakeGitHub, context: str, sha: str = HEAD) -> str:
    states = [s["state"] for s in fake.statuses(sha) if s["context"] == context]
    assert states, f"no {context} status on {sha[:7]}"
    return str(states[-1])  # the fake lists them oldest first


def green_on_head(fake: FakeGitHub, tmp: Path, inputs: dict[str, str]) -> None:
    claude_clean(fake)
    first = run_action(fake, tmp, inputs=inputs)
    assert first.outputs["gate"] == "go", first.log
    assert newest_check(fake, inputs.get("check-name", "review-coordinator"))["conclusion"] == (
        "success"
    )


@pytest.mark.parametrize(
    ("inputs", "config"),
    [
        (AI_REVIEW, "settle: whenever\n"),  # the input names the check
        (
            {"expected-bots": "claude"},
            "check-name: ai-review\nstatus-context: ai-review\nsettle: whenever\n",
        ),
    ],
    ids=["check-name-input", "check-name-in-the-invalid-file"],
)
def test_an_invalid_config_file_reports_on_the_configured_check(
    fake: FakeGitHub, tmp_path: Path, inputs: dict[str, str], config: str
) -> None:
    """An invalid file (no valid earlier version here) judges under the defaults, on the check
    the repository configured — by the input, else by the broken file's own valid `check-name`
    — and says so there; nothing appears under the default name."""
    green_on_head(fake, tmp_path / "1", AI_REVIEW)
    fake.set_file(".github/review-coordinator.yml", "main", config)
    run = run_action(fake, tmp_path / "2", inputs=inputs)
    assert run.returncode == 0 and run.outputs["gate"] == "go", run.log
    check = newest_check(fake, "ai-review")
    assert check["conclusion"] == "success" and "config file invalid" in check["output"]["title"]
    assert newest_status(fake, "ai-review") == "success"
    assert not [r for r in fake.check_runs(HEAD) if r["name"] == "review-coordinator"]


def test_an_invalid_input_fails_the_configured_check(fake: FakeGitHub, tmp_path: Path) -> None:
    green_on_head(fake, tmp_path / "1", AI_REVIEW)
    run = run_action(fake, tmp_path / "2", inputs={**AI_REVIEW, "settle": "whenever"})
    assert run.returncode == 2 and run.outputs["gate"] == "error", run.log
    assert run.outputs["next-step"] == "fix_config"
    assert newest_check(fake, "ai-review")["conclusion"] == "failure"
    assert newest_status(fake, "ai-review") == "error"


def test_control_a_valid_config_keeps_the_configured_check_green(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    green_on_head(fake, tmp_path / "1", AI_REVIEW)
    fake.set_file(".github/review-coordinator.yml", "main", "settle: none\n")
    run = run_action(fake, tmp_path / "2", inputs=AI_REVIEW)
    assert run.outputs["gate"] == "go", run.log
    assert newest_check(fake, "ai-review")["conclusion"] == "success"
    assert newest_status(fake, "ai-review") == "success"


def test_an_unreadable_pr_fails_the_check_on_the_payloads_head(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    """`GET pulls/{n}` fails on a later event: the earlier `success` must not stand."""
    green_on_head(fake, tmp_path / "1", AI_REVIEW)
    fake.inject("GET", r"/pulls/2(\?|$)", status=502, times=1000)
    run = run_action(fake, tmp_path / "2", inputs=AI_REVIEW)
    assert run.outputs["gate"] == "error", run.log
    assert newest_check(fake, "ai-review")["conclusion"] == "failure"
    assert newest_status(fake, "ai-review") == "error"


def test_control_a_readable_pr_keeps_its_success(fake: FakeGitHub, tmp_path: Path) -> None:
    green_on_head(fake, tmp_path / "1", AI_REVIEW)
    fake.inject("GET", r"/pulls/2(\?|$)", status=502, times=1)  # one retry absorbs it
    run = run_action(fake, tmp_path / "2", inputs=AI_REVIEW)
    assert run.outputs["gate"] == "go", run.log
    assert newest_check(fake, "ai-review")["conclusion"] == "success"


def judge_in_process(fake: FakeGitHub, crash: bool, monkeypatch: pytest.MonkeyPatch) -> str:
    """One `runner.evaluate` against the fake (a new comment since the green run, so no noop);
    with `crash`, settling raises an unexpected error, as a bug would."""
    import io

    from reviewcoord import evaluation, runner
    from reviewcoord.actions_io import Log
    from reviewcoord.github.pygithub_gateway import PyGithubGateway

    def broken(self: object, *args: object, **kwargs: object) -> object:
        raise RuntimeError("a bug, quoting untrusted text <script>")

    if crash:
        monkeypatch.setattr(evaluation.Evaluation, "settle", broken)
    fake.add_issue_comment(2, login="mona", body="Any news?")

    class Clock:
        def now(self) -> float:
            return 0.0

        def sleep(self, seconds: float) -> None:
            pass

    req = runner.RunRequest(
        repo="octo/app",
        pr=2,
        inputs={**AI_REVIEW, "settle": "none", "confirm-delay": "0"},
        input_source="test",
        config_path=".github/review-coordinator.yml",
    )
    with PyGithubGateway("octo/app", "app-token", base_url=fake.base_url, write_spacing=0) as gw:
        outcome = runner.evaluate(req, gw, Clock(), Log(io.StringIO()))
    return f"{outcome.gate}: {outcome.reason}"


def test_a_crash_mid_run_leaves_no_earlier_success_standing(
    fake: FakeGitHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    green_on_head(fake, tmp_path, AI_REVIEW)
    said = judge_in_process(fake, crash=True, monkeypatch=monkeypatch)
    assert said.startswith("error: internal error (RuntimeError)") and "<script>" not in said
    assert newest_check(fake, "ai-review")["conclusion"] == "failure"
    assert newest_status(fake, "ai-review") == "error"


def test_control_the_same_run_without_the_crash_stays_green(
    fake: FakeGitHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    green_on_head(fake, tmp_path, AI_REVIEW)
    assert judge_in_process(fake, crash=False, monkeypatch=monkeypatch).startswith("go")
    assert newest_check(fake, "ai-review")["conclusion"] == "success"
    assert newest_status(fake, "ai-review") == "success"


# --- honest go ---------------------------------------------------------------------------


def sticky(fake: FakeGitHub) -> str:
    (comment,) = [c for c in fake.issue_comments(2) if c["user"]["login"] == "github-actions[bot]"]
    return str(comment["body"])


def test_a_timeout_go_names_the_bots_that_did_not_review(fake: FakeGitHub, tmp_path: Path) -> None:
    inputs = {"expected-bots": "claude", "settle": "fast", "fast-timeout": "0"}
    run = run_action(fake, tmp_path, inputs=inputs)
    v = verdict_of(run)
    assert run.outputs["gate"] == "go" and v["pending"] == ["claude"], run.log
    assert (
        "claude has not reviewed ec26c3e: the gate is judged again when it posts"
        in (run.outputs["gate-reason"])
    )
    text = sticky(fake)
    assert "Claude has not reviewed this head; the gate is judged again when it posts" in text
    assert "reported nothing to fix" not in text and "clean" not in run.outputs["gate-reason"]


def test_control_a_go_after_the_review_says_what_it_read(fake: FakeGitHub, tmp_path: Path) -> None:
    claude_clean(fake)
    inputs = {"expected-bots": "claude", "settle": "fast", "fast-timeout": "0"}
    run = run_action(fake, tmp_path, inputs=inputs)
    assert run.outputs["gate-reason"] == "clean: no findings", run.log
    assert "the bots that reviewed this head reported nothing to fix" in sticky(fake)


# --- evidence for "likely fixed" -------------------------------------------------------

BUG_COMMIT = "16bb91031364200d101c932819f3101bf4285770"


def bugbot_critical(fake: FakeGitHub) -> dict[str, Any]:
    """Bugbot's real High-severity lockfile finding at mise.lock:156, for HEAD."""
    text = body("C_jdx12718_lock156").replace(BUG_COMMIT, HEAD)
    return fake.add_review_comment(
        2, login=CURSOR, body=text, path="mise.lock", line=156, commit_id=HEAD
    )


def push_touching_the_lockfile(fake: FakeGitHub, patch: str) -> None:
    fake.push(2, NEW_HEAD, ["mise.lock"])
    fake.set_patch(NEW_HEAD, "mise.lock", patch)
    fake.add_review(2, login=CURSOR, body=cursor_clean(NEW_HEAD), commit_id=NEW_HEAD)


CURSOR_ONLY = {"expected-bots": "cursor"}


def test_a_push_touching_the_file_elsewhere_does_not_fix_a_critical(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    bugbot_critical(fake)
    assert run_action(fake, tmp_path / "1", inputs=CURSOR_ONLY).outputs["gate"] == "block"
    push_touching_the_lockfile(fake, "@@ -3,2 +3,2 @@\n-a\n-b\n+a2\n+b2")  # lines 3-4 only
    run = run_action(fake, tmp_path / "2", inputs=CURSOR_ONLY)
    v = verdict_of(run)
    assert run.outputs["gate"] == "block" and v["critical"][0]["carried_forward"], run.log
    assert not [c for c in v["changes"] if c["change"] == "likely_fixed"]


def test_control_a_push_changing_the_findings_lines_is_likely_fixed(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    bugbot_critical(fake)
    run_action(fake, tmp_path / "1", inputs=CURSOR_ONLY)
    push_touching_the_lockfile(fake, "@@ -150,10 +150,8 @@\n-a\n+b")  # lines 150-159
    run = run_action(fake, tmp_path / "2", inputs=CURSOR_ONLY)
    v = verdict_of(run)
    assert run.outputs["gate"] == "go", run.log
    (change,) = v["changes"]
    assert change["change"] == "likely_fixed"
    assert "a push since its bot reported it changed the lines it points at (156)" in sticky(fake)


def test_an_outdated_comment_is_likely_fixed(fake: FakeGitHub, tmp_path: Path) -> None:
    bug = bugbot_critical(fake)
    run_action(fake, tmp_path / "1", inputs=CURSOR_ONLY)
    push_touching_the_lockfile(fake, "")  # no patch GitHub could show (a binary, a huge file)
    fake.outdate_review_comment(bug["id"])
    run = run_action(fake, tmp_path / "2", inputs=CURSOR_ONLY)
    assert run.outputs["gate"] == "go", run.log
    assert "GitHub marks its bot's comment outdated on this head" in sticky(fake)


# --- done means delivered: two reads agree before a go -----------------------------------


def issue_lists(gh: FakeGitHub) -> int:
    return sum(1 for r in gh.request_log() if r.method == "GET" and "/issues/2/comments" in r.path)


def test_a_finding_landing_between_the_two_reads_is_judged(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    claude_clean(fake)
    landed: list[int] = []

    def late_codex(gh: FakeGitHub, request: object) -> None:
        if issue_lists(gh) == 1 and not landed:  # the first read is complete
            landed.append(1)
            gh.add_review_comment(
                2, login=CODEX, body=body("Z25"), path="src/typed_dict.rs", line=178, commit_id=HEAD
            )

    fake.on_request(late_codex)
    run = run_action(fake, tmp_path, inputs={"expected-bots": "claude"})
    assert landed and run.outputs["gate"] == "block", run.log
    assert "judging again" in run.log
    assert newest_check(fake, "review-coordinator")["conclusion"] == "failure"


def test_control_two_agreeing_reads_publish_go_with_one_extra_read(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    claude_clean(fake)
    run = run_action(fake, tmp_path, inputs={"expected-bots": "claude"})
    assert run.outputs["gate"] == "go" and "judging again" not in run.log, run.log
    confirming = [
        r
        for r in fake.request_log()
        if r.method == "GET" and r.path.startswith("/repos/octo/app/pulls/2/reviews")
    ]
    assert len(confirming) == 2  # the judged read and the confirming one (a free 304)


# --- done means delivered: code scanning counts only for the current merge commit ----------


def code_scanning_on(fake: FakeGitHub) -> None:
    fake.set_file(".github/review-coordinator.yml", "main", "code-scanning: true\n")
    claude_clean(fake)


def test_an_empty_alert_list_without_an_analysis_of_the_merge_commit_is_not_go(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    code_scanning_on(fake)
    fake.add_code_scanning_analysis(2)  # analysed HEAD's merge commit
    fake.push(2, NEW_HEAD, ["src/app.py"])  # a new merge commit, not analysed yet
    claude_clean(fake)
    run = run_action(fake, tmp_path, inputs={"expected-bots": "claude"})
    v = verdict_of(run)
    assert run.outputs["gate"] == "block", run.log
    # Pending (no analysis yet) while the run reads; unreviewed at judgement: never go.
    assert v["bots"]["code-scanning"]["state"] == "working"
    assert v["bots"]["code-scanning"]["detail"].startswith("code scanning pending")
    assert "no analysis of the PR's merge commit" in run.outputs["gate-reason"]
    assert "code-scanning" in v["unreviewed"]


def test_control_an_analysis_of_the_current_merge_commit_counts(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    code_scanning_on(fake)
    fake.push(2, NEW_HEAD, ["src/app.py"])
    fake.add_code_scanning_analysis(2)  # analysed NEW_HEAD's merge commit
    claude_clean(fake)
    run = run_action(fake, tmp_path, inputs={"expected-bots": "claude"})
    v = verdict_of(run)
    assert run.outputs["gate"] == "go", run.log
    assert v["bots"]["code-scanning"]["state"] == "reviewed"


# --- done means delivered: a tracker's "Completed" waits for the review -------------------


def reviews_read(gh: FakeGitHub) -> int:
    return sum(1 for r in gh.request_log() if r.method == "GET" and "/pulls/2/reviews" in r.path)


def test_a_completed_tracker_waits_for_the_findings_that_follow(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    """Codex's table turns Completed seconds before its findings review lands: not a go."""
    tracker = body("N3_codex_status_asic381_propened").replace("`8777ef4`", f"`{HEAD[:7]}`")
    fake.add_issue_comment(2, login=CODEX, body=tracker)
    landed: list[int] = []

    def findings_land(gh: FakeGitHub, request: object) -> None:
        if reviews_read(gh) == 3 and not landed:  # two polls saw only the Completed table
            landed.append(1)
            gh.add_review_comment(
                2, login=CODEX, body=body("Z25"), path="src/typed_dict.rs", line=178, commit_id=HEAD
            )

    fake.on_request(findings_land)
    inputs = {"expected-bots": "codex", "settle": "full", "full-timeout": "60"}
    run = run_action(fake, tmp_path, inputs=inputs)
    assert landed and run.outputs["gate"] == "block", run.log
    assert verdict_of(run)["bots"]["codex"]["state"] == "reviewed"
