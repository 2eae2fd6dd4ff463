"""The reviewers' own check runs, commit statuses and reactions as run-state evidence, declared
in their profiles (reviewcoord/bots/checks.py): each shape in GitHub's JSON
(tests/fixtures/checks/bot-checks.json, sources there), what it means, how it combines with
the comments, and the attacks — a workflow job or a person naming their check or status like a
bot's, a person reacting as Codex — each beside its control."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from reviewcoord.bots import parse_comment
from reviewcoord.ingest import Ingested, ingest
from reviewcoord.model import RawComment
from reviewcoord.reading import Evidence
from reviewcoord.rest import check_run_ref, commit_status_ref
from reviewcoord.rest import reaction as reaction_ref
from tests.bots_support import corpus_comment, load_corpus

HEAD = "c" * 40
ARRIVED = datetime(2026, 11, 20, 10, 0, tzinfo=UTC)
CASES = json.loads((Path(__file__).parent / "fixtures/checks/bot-checks.json").read_text())


def case(name: str) -> dict[str, Any]:
    (found,) = [c for c in CASES["cases"] if c["name"] == name]
    return found


def run_json(name: str, **changes: Any) -> dict[str, Any]:
    data = {**case(name)["check_run"], "head_sha": HEAD}
    for key, value in changes.items():
        if key == "app_slug":
            data["app"] = {**data["app"], "slug": value}
        elif key in ("title", "summary"):
            data["output"] = {**data["output"], key: value}
        else:
            data[key] = value
    return data


def read(
    comments: list[RawComment] | None = None,
    *,
    runs: list[dict[str, Any]] | None = None,
    statuses: list[dict[str, Any]] | None = None,
    reactions: list[dict[str, Any]] | None = None,
) -> Ingested:
    comments = comments or []
    evidence = Evidence(
        comments=tuple(comments),
        check_runs=None if runs is None else tuple(check_run_ref(r) for r in runs),
        statuses=None if statuses is None else tuple(commit_status_ref(s) for s in statuses),
        reactions=None if reactions is None else tuple(reaction_ref(r) for r in reactions),
    )
    return ingest(comments, head_sha=HEAD, head_time=ARRIVED, evidence=evidence)


def status_json(description: str, state: str, login: str = "coderabbitai[bot]", kind: str = "Bot"):  # type: ignore[no-untyped-def]
    return {
        "id": 7,
        "state": state,
        "context": "CodeRabbit",
        "description": description,
        "target_url": None,
        "created_at": "2026-11-20T10:01:00Z",
        "updated_at": "2026-11-20T10:01:00Z",
        "creator": {"login": login, "type": kind},
    }


def reaction_json(
    content: str, at: datetime, login: str = "chatgpt-codex-connector[bot]", kind: str = "Bot"
):  # type: ignore[no-untyped-def]
    return {
        "id": 11,
        "node_id": "REA_x",
        "content": content,
        "created_at": at.isoformat().replace("+00:00", "Z"),
        "user": {"login": login, "id": 1, "type": kind},
    }


def corpus(predicate: Any, **changes: Any) -> RawComment:
    for number, entry in enumerate(load_corpus(), start=1):
        if predicate(entry):
            return corpus_comment(entry, number).model_copy(update=changes)
    raise AssertionError("no corpus entry matches")


# --------------------------------------------------------------------------- each shape


@pytest.mark.parametrize(
    ("name", "bot", "state"),
    [(c["name"], c["bot"], c["state"]) for c in CASES["cases"]],
)
def test_each_real_check_shape_gives_its_state(name: str, bot: str, state: str) -> None:
    got = read(runs=[run_json(name)])
    assert got.state(bot) == state
    assert got.bots[bot].detail  # the sticky always says why


def test_a_check_that_announces_comments_waits_for_them_as_finishing() -> None:
    got = read(runs=[run_json("greptile-comments-added")])
    assert got.state("greptile") == "working" and "greptile" in got.finishing


def test_a_bugbot_review_that_lands_after_its_neutral_check_is_the_review() -> None:
    real = corpus(lambda e: e["bot_login"] == "cursor[bot]" and e["endpoint"] == "review")
    reviewed = parse_comment("cursor", real).reviewed_commit or "-"
    review = real.model_copy(update={"body": real.body.replace(reviewed, HEAD), "commit_id": HEAD})
    assert read([], runs=[run_json("bugbot-findings")]).finishing == {"cursor"}  # control
    got = read([review], runs=[run_json("bugbot-findings")])
    assert got.state("cursor") == "reviewed" and "cursor" not in got.finishing


def test_the_comments_notice_wins_over_a_successful_check() -> None:
    limit = corpus(
        lambda e: e["bot_login"] == "coderabbitai[bot]" and "rate limited" in e["body"][:200],
        created_at=ARRIVED + timedelta(minutes=1),
    )
    got = read([limit], runs=[run_json("coderabbit-review-completed")])
    assert got.state("coderabbit") == "failed"
    control = read([], runs=[run_json("coderabbit-review-completed")])
    assert control.state("coderabbit") == "working"


# --------------------------------------------------------------------------- statuses


@pytest.mark.parametrize(
    ("description", "state", "expected"),
    [
        ("Review in progress", "pending", "working"),
        ("Review skipped: Bot user detected.", "success", "skipped"),
        ("Review rate limited", "success", "failed"),
        ("Review completed", "success", "working"),  # finishing: its comments are due
    ],
)
def test_coderabbits_legacy_commit_status(description: str, state: str, expected: str) -> None:
    got = read(runs=[], statuses=[status_json(description, state)])
    assert got.state("coderabbit") == expected


def test_attack_a_person_setting_coderabbits_status_context_is_not_coderabbit() -> None:
    forged = read(
        runs=[], statuses=[status_json("Review skipped: x", "success", "mallory", "User")]
    )
    assert forged.state("coderabbit") == "not_seen"
    named = status_json("Review skipped: x", "success", "coderabbitai[bot]", "User")
    assert read(runs=[], statuses=[named]).state("coderabbit") == "not_seen"
    control = read(runs=[], statuses=[status_json("Review skipped: x", "success")])
    assert control.state("coderabbit") == "skipped"


# --------------------------------------------------------------------------- identity


def test_attack_a_workflow_job_named_like_bugbots_check_is_not_bugbot() -> None:
    forged = read(runs=[run_json("bugbot-clean", app_slug="github-actions")])
    assert forged.state("cursor") == "not_seen"
    control = read(runs=[run_json("bugbot-clean")])
    assert control.state("cursor") == "reviewed"


def test_a_check_of_a_shared_app_can_only_make_us_wait() -> None:
    done = read(runs=[run_json("copilot-in-progress", status="completed", conclusion="success")])
    assert done.state("copilot") == "not_seen"  # its review decides, never its check
    failed = read(runs=[run_json("copilot-in-progress", status="completed", conclusion="failure")])
    assert failed.state("copilot") == "not_seen"
    working = read(runs=[run_json("copilot-in-progress")])
    assert working.state("copilot") == "working"


def test_attack_a_completed_look_alike_does_not_hide_copilots_running_check() -> None:
    real = run_json("copilot-in-progress", id=100)
    forged = run_json("copilot-in-progress", id=200, status="completed", conclusion="success")
    got = read(runs=[real, forged])
    assert got.state("copilot") == "working"


def test_the_newest_run_of_a_check_decides_a_rerun() -> None:
    first = run_json("bugbot-usage-limit", id=1)
    rerun = run_json("bugbot-clean", id=2)
    assert read(runs=[first, rerun]).state("cursor") == "reviewed"
    assert read(runs=[rerun | {"id": 1}, first | {"id": 2}]).state("cursor") == "failed"


# --------------------------------------------------------------------------- Codex's reactions


def test_codex_thumbs_up_after_the_head_arrived_is_its_clean_review() -> None:
    got = read(reactions=[reaction_json("+1", ARRIVED + timedelta(minutes=3))])
    assert got.state("codex") == "reviewed"
    assert got.reviewed_at["codex"] == ARRIVED + timedelta(minutes=3)


def test_codex_eyes_is_working_and_an_old_thumbs_up_is_no_review_of_this_head() -> None:
    assert (
        read(reactions=[reaction_json("eyes", ARRIVED + timedelta(seconds=5))]).state("codex")
        == "working"
    )
    old = read(reactions=[reaction_json("+1", ARRIVED - timedelta(minutes=1))])
    assert old.state("codex") == "not_seen"


def test_attack_a_person_named_like_codex_reacting_is_not_codex() -> None:
    late = ARRIVED + timedelta(minutes=3)
    forged = read(reactions=[reaction_json("+1", late, "chatgpt-codex-connector", "User")])
    assert forged.state("codex") == "not_seen"
    control = read(reactions=[reaction_json("+1", late)])
    assert control.state("codex") == "reviewed"


def test_an_unknown_arrival_time_lets_no_reaction_count() -> None:
    comments: list[RawComment] = []
    evidence = Evidence(
        reactions=(reaction_ref(reaction_json("+1", ARRIVED + timedelta(minutes=3))),)
    )
    got = ingest(comments, head_sha=HEAD, head_time=None, evidence=evidence)
    assert got.state("codex") == "not_seen"


def test_codex_tracker_completed_and_thumbs_up_is_reviewed_at_once() -> None:
    from tests.test_evidence_and_failures import ARRIVED as TRACKED
    from tests.test_evidence_and_failures import HEAD as TRACKED_HEAD
    from tests.test_evidence_and_failures import completed_tracker

    tracker = completed_tracker(TRACKED)
    thumbs = reaction_ref(reaction_json("+1", TRACKED + timedelta(minutes=2)))

    def judged(reactions: tuple[Any, ...]) -> Ingested:
        evidence = Evidence(comments=(tracker,), reactions=reactions)
        return ingest([tracker], head_sha=TRACKED_HEAD, head_time=TRACKED, evidence=evidence)

    assert judged(()).finishing == {"codex"}  # control: the tracker alone is finishing
    got = judged((thumbs,))
    assert got.state("codex") == "reviewed" and got.finishing == frozenset()


def test_nothing_beyond_comments_read_means_the_comments_alone() -> None:
    got = read(runs=None)
    assert got.state("cursor") == "not_seen" and got.evidence_digest == ""
    changed = read(runs=[run_json("bugbot-clean")])
    assert (
        changed.evidence_digest != ""
        and changed.evidence_digest != read(runs=[run_json("bugbot-in-progress")]).evidence_digest
    )


# --------------------------------------------------------------------------- in replay


@pytest.mark.parametrize(
    ("name", "bot", "state"),
    [(c["name"], c["bot"], c["state"]) for c in CASES["cases"]],
)
def test_each_check_shape_reads_the_same_in_a_replay(
    name: str, bot: str, state: str, tmp_path: Path
) -> None:
    """A snapshot (format 2) holding only that check run: `--replay` gives the same state."""
    import io

    from reviewcoord.cli import main

    pull = {
        "number": 7,
        "state": "open",
        "title": "t",
        "html_url": "https://github.com/o/r/pull/7",
        "user": {"login": "octocat", "type": "User"},
        "head": {"sha": HEAD, "ref": "f", "repo": {"full_name": "o/r"}},
        "base": {"sha": "b" * 40, "ref": "main", "repo": {"full_name": "o/r"}},
    }
    snap = {"format": 2, "repo": "o/r", "pull": pull, "check_runs": [run_json(name)]}
    path = tmp_path / "pr.json"
    path.write_text(json.dumps(snap))
    out = io.StringIO()
    argv = ["7", "--replay", str(path), "--format", "json", "--expected-bots", bot]
    assert main(argv, environ={}, stdout=out) == 0
    assert json.loads(out.getvalue())["bots"][bot]["state"] == state
