"""Late reviews are judged: the workflow's real filter starts a run for a bot's late review, the
run re-judges and turns the required check; a run that changes nothing is cheap and writes
nothing; a cancelled run's check run is adopted (docs/adopt.md § What starts a run)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from reviewcoord.history import History, decode, encode
from tests import workflow_support as wf
from tests.e2e_support import (
    CLAUDE,
    CODEX,
    COPILOT_REVIEWER,
    CURSOR,
    HEAD,
    body,
    cursor_clean,
    run_action,
    stickies,
    writes,
)
from tests.fakegithub import FakeGitHub
from tests.fakegithub.server import EPOCH, iso

pytestmark = pytest.mark.e2e

ALL = "codex,copilot,cursor,claude"
# A full settle kept short so the test is fast (production: full-timeout 480 s, polls 15 s).
FULL = {"settle": "full", "full-timeout": "2", "poll-interval": "1", "expected-bots": ALL}
NOOP_BUDGET = 6  # rate-limited requests of a noop on a PR of ≤ 100 comments (docs/performance.md)
# Plus one GraphQL point (GitHub's GraphQL budget, not REST's): `viewer`, who our token is.
NOOP_GRAPHQL = 1


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as gh:
        gh.add_pull(2, head_sha=HEAD)
        gh.set_commit_files(HEAD, ["crates/host/src/bridge.rs"])
        gh.enable_graphql()
        yield gh


def fast_pack_clean(fake: FakeGitHub) -> None:
    fake.add_review(2, login=CURSOR, body=cursor_clean(HEAD), commit_id=HEAD)
    fake.add_review(2, login=COPILOT_REVIEWER, body=body("Z12"), commit_id=HEAD)
    fake.add_review(2, login=CLAUDE, body=body("L_cca1078_lgtm"), commit_id=HEAD)


def final_check(fake: FakeGitHub) -> tuple[str, str | None]:
    newest = max(fake.check_runs(HEAD), key=lambda r: r["id"])
    return newest["status"], newest["conclusion"]


def test_a_late_codex_p1_review_turns_the_check_to_failure(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    fast_pack_clean(fake)
    first = run_action(fake, tmp_path / "1", event="pull_request_target", inputs=FULL)
    assert first.returncode == 0, first.log
    assert first.outputs["gate"] == "go" and first.outputs["pending"] == "codex"
    assert final_check(fake) == ("completed", "success")

    # Ten minutes (simulated) later Codex posts its review: the wrapper and one inline P1.
    late = EPOCH + timedelta(minutes=10)
    review = fake.add_review(
        2, login=CODEX, body=body("X_agogo65_review"), commit_id=HEAD, submitted_at=iso(late)
    )
    fake.add_review_comment(
        2,
        login=CODEX,
        body=body("X_agogo65_inline"),
        path="crates/host/src/bridge.rs",
        line=987,
        commit_id=HEAD,
        review_id=review["id"],
        created_at=iso(late),
    )
    # GitHub sends one pull_request_review and one pull_request_review_comment: the filter
    # starts a run for the review and skips the bot's inline comment (same burst).
    event = wf.review(CODEX, body("X_agogo65_review"))
    assert wf.starts("pull_request_review", event)
    assert not wf.starts(
        "pull_request_review_comment", wf.review_comment(CODEX, body("X_agogo65_inline"))
    )
    second = run_action(fake, tmp_path / "2", event="pull_request_review", payload=event)
    assert second.returncode == 0, second.log
    assert "nothing new since" not in second.log
    assert second.outputs["gate"] == "block" and second.outputs["critical-count"] == "1"
    assert final_check(fake) == ("completed", "failure")
    assert fake.statuses(HEAD)[-1]["state"] == "failure"
    (sticky,) = stickies(fake)
    assert "Defer draining commands" in sticky["body"]


def test_a_noop_is_cheap_and_writes_nothing(fake: FakeGitHub, tmp_path: Path) -> None:
    fast_pack_clean(fake)
    fake.add_issue_comment(2, login=CODEX, body=body("X_clean_swish"))
    for i in range(90):  # a PR of ~100 comments: one page of each list
        fake.add_review_comment(
            2, login="octocat", user_type="User", body=f"n{i}", path="a", line=i
        )
    inputs = {"expected-bots": "auto"}
    first = run_action(fake, tmp_path / "1", event="pull_request_target", inputs=inputs)
    assert first.returncode == 0 and first.outputs["gate"] == "go", first.log
    n, used, before = len(fake.request_log()), fake.rate_limit_used, writes(fake)
    event = wf.issue_comment(CODEX, body("N3_codex_status_asic381_propened"), "edited")
    assert wf.starts("issue_comment", event)  # e.g. Codex's status table edited to Completed
    again = run_action(fake, tmp_path / "2", event="issue_comment", payload=event, inputs=inputs)
    assert again.returncode == 0 and "nothing new since" in again.log, again.log
    assert again.outputs["gate"] == "go"
    assert writes(fake) == before
    paths = [r.route for r in fake.request_log()[n:]]
    graphql = paths.count("/graphql")
    assert graphql == NOOP_GRAPHQL and fake.rate_limit_used - used - graphql <= NOOP_BUDGET, paths
    # Identity from GitHub's word about our token, head time and expected bots from our record:
    assert "/user" not in paths
    assert not [p for p in paths if p.endswith(f"/commits/{HEAD}")]
    assert not [p for p in paths if p.endswith(("/repos/octo/app/pulls/comments",))]
    assert not [p for p in paths if p.endswith(("/repos/octo/app/issues/comments",))]


def test_the_record_keeps_head_arrival_and_expected_bots_and_old_records_decode(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    fast_pack_clean(fake)
    run = run_action(fake, tmp_path / "1", inputs={"expected-bots": "copilot,cursor,claude"})
    assert run.returncode == 0, run.log
    (sticky,) = stickies(fake)
    record, notice = decode(sticky["body"], repo=fake.repo, pr=2)
    assert notice is None and record is not None
    assert record.expected == ["copilot", "cursor", "claude"] and record.head_arrival is not None
    # A record written before these keys existed still decodes (they are optional).
    old = History(repo="octo/app", pr=2, heads=[HEAD], cycle=1, gate="go")
    line = encode(old)
    assert '"ht"' not in json.dumps(old.model_dump(exclude_defaults=True, by_alias=True))
    decoded, why = decode(f"<!-- review-coordinator-verdict -->\n{line}\n", repo="octo/app", pr=2)
    assert (
        why is None
        and decoded is not None
        and decoded.head_arrival is None
        and decoded.expected is None
    )


def test_a_cancelled_runs_check_run_is_adopted_with_one_read(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    """cancel-in-progress kills a run mid-settle: its check run stays in_progress. The run that
    cancelled it finds it with the same read that gives our identity and adopts it."""
    from reviewcoord.github.gateway import CheckOutput
    from reviewcoord.github.pygithub_gateway import PyGithubGateway

    with PyGithubGateway("octo/app", "app-token", base_url=fake.base_url, write_spacing=0) as gw:
        stuck = gw.create_check_run(
            "review-coordinator", HEAD, "in_progress", CheckOutput(title="t", summary="s")
        )
    fast_pack_clean(fake)
    fake.add_issue_comment(2, login=CODEX, body=body("X_clean_swish"))
    n = len(fake.request_log())
    run = run_action(fake, tmp_path / "next", event="pull_request_review", payload=wf.review(CODEX))
    assert run.returncode == 0 and run.outputs["gate"] == "go", run.log
    (done,) = fake.check_runs(HEAD)
    assert done["id"] == stuck.id and (done["status"], done["conclusion"]) == (
        "completed",
        "success",
    )
    lists = [r for r in fake.request_log()[n:] if r.method == "GET" and "/check-runs" in r.path]
    assert len(lists) == 1


@pytest.mark.parametrize(("hint", "asks"), [("github-actions[bot]", False), (None, True)])
def test_identity_from_our_token_and_get_user_only_on_the_command_line(
    fake: FakeGitHub, hint: str | None, asks: bool
) -> None:
    """The Action (identity hint set) asks GraphQL `viewer` who its token is and skips
    `GET /user` (403 for App tokens); the command line (no hint, a personal token) asks
    `GET /user`. Neither takes it from a check run named like ours."""
    import io

    from reviewcoord.actions_io import Log
    from reviewcoord.github.gateway import CheckOutput
    from reviewcoord.github.pygithub_gateway import PyGithubGateway
    from reviewcoord.runner import RunRequest, evaluate

    fast_pack_clean(fake)
    with PyGithubGateway("octo/app", "app-token", base_url=fake.base_url, write_spacing=0) as gw:
        gw.create_check_run(
            "review-coordinator", HEAD, "completed", CheckOutput(title="t", summary="s"), "success"
        )
    fake.add_token("pat", "alice", user_endpoint=True)
    token = "app-token" if hint else "pat"
    req = RunRequest(
        repo="octo/app",
        pr=2,
        inputs={"settle": "none", "expected-bots": "copilot,cursor,claude", "dry-run": "true"},
        input_source="test",
        config_path=".github/review-coordinator.yml",
        identity_hint=hint,
    )
    n = len(fake.request_log())
    with PyGithubGateway("octo/app", token, base_url=fake.base_url, write_spacing=0) as gw:

        class Clock:
            def now(self) -> float:
                return 0.0

            def sleep(self, seconds: float) -> None:
                pass

        outcome = evaluate(req, gw, Clock(), Log(io.StringIO()))
    assert outcome.gate == "go"
    asked = any(r.route == "/user" for r in fake.request_log()[n:])
    assert asked is asks
