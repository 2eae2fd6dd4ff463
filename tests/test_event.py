"""Event → PR number for every event of docs/interface.md §2, on the real payloads (see
tests/fixtures/payloads/PROVENANCE.md for their origin and licences)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reviewcoord.errors import EventError
from reviewcoord.event import HeadLookup, load_payload, resolve
from tests import workflow_support as wf
from tests.e2e_support import HEAD

PAYLOADS = Path(__file__).parent / "fixtures/payloads"


def payload(name: str) -> dict[str, object]:
    data = json.loads((PAYLOADS / name).read_text())
    assert isinstance(data, dict)
    return data


@pytest.mark.parametrize(
    ("event", "file", "number"),
    [
        ("pull_request", "pull_request.opened.json", 2),
        ("pull_request", "pull_request.synchronize.json", None),
        ("pull_request_target", "pull_request.opened.json", 2),
        ("pull_request_review", "pull_request_review.submitted.json", None),
        ("pull_request_review_comment", "pull_request_review_comment.created.json", None),
        ("issue_comment", "issue_comment.created.on-pr.json", 2),
        ("check_suite", "check_suite.completed.json", 2),
        ("check_run", "check_run.completed.json", 2),
    ],
)
def test_pull_events(event: str, file: str, number: int | None) -> None:
    data = payload(file)
    expected = number or data["pull_request"]["number"]  # type: ignore[index]
    assert resolve(event, data, "").pr == expected


def test_a_reviewers_check_run_names_its_pr_and_head() -> None:
    target = resolve("check_run", payload("check_run.completed.json"), "")
    assert (target.pr, target.head_sha) == (2, "ec26c3e57ca3a959ca5aad62de7213c562f8c821")


def test_a_check_run_of_a_forks_pr_is_found_by_its_head() -> None:
    """GitHub lists no `pull_requests` for a fork's head: the PR is looked up by the check
    run's head SHA (HeadLookup), and without a valid head there is nothing to do."""
    data = payload("check_run.completed.json")
    data["check_run"]["pull_requests"] = []  # type: ignore[index]
    target = resolve("check_run", data, "")
    assert target.pr is None and target.lookup == HeadLookup(HEAD)
    data["check_run"]["head_sha"] = "not a sha"  # type: ignore[index]
    target = resolve("check_run", data, "")
    assert target.pr is None and target.lookup is None and "nothing to do" in target.skip_reason
    two = payload("check_run.completed.json")
    pulls = two["check_run"]["pull_requests"]  # type: ignore[index]
    pulls.append({**pulls[0], "number": 3})
    with pytest.raises(EventError, match="no single pull request"):
        resolve("check_run", two, "")


def test_the_relay_takes_a_same_repository_runs_pr_from_the_payload() -> None:
    target = resolve("workflow_run", wf.workflow_run(fork=False, pr=7), "")
    assert target.pr == 7 and target.lookup is None


def test_the_relay_finds_a_forks_pr_by_the_forks_branch() -> None:
    target = resolve("workflow_run", wf.workflow_run("pull_request_review"), "")
    assert target.pr is None
    assert target.lookup == HeadLookup(HEAD, "contributor:feature-2")


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("head_branch", "x y"),  # not a git ref
        ("head_branch", "a:b"),
        ("head_branch", "x" * 256),
        ("head_branch", None),
        ("head_repository", None),  # the fork was deleted
    ],
)
def test_a_relay_without_a_usable_head_is_nothing_to_do(field: str, value: object) -> None:
    data = wf.workflow_run()
    data["workflow_run"][field] = value
    target = resolve("workflow_run", data, "")
    assert target.pr is None and target.lookup is None and "nothing to do" in target.skip_reason


def test_the_relay_relays_only_pull_request_runs() -> None:
    target = resolve("workflow_run", wf.workflow_run("issue_comment", fork=False, pr=2), "")
    assert target.pr is None and "nothing to relay" in target.skip_reason
    with pytest.raises(EventError, match="no 'workflow_run' object"):
        resolve("workflow_run", {"action": "completed"}, "")


def test_issue_comment_on_plain_issue_is_skipped() -> None:
    target = resolve("issue_comment", payload("issue_comment.created.on-issue.json"), "")
    assert target.pr is None and "plain issue" in target.skip_reason


def test_workflow_dispatch_needs_pr_input() -> None:
    with pytest.raises(EventError, match="needs the 'pr' input"):
        resolve("workflow_dispatch", payload("workflow_dispatch.json"), "")
    assert resolve("workflow_dispatch", payload("workflow_dispatch.json"), "17").pr == 17
    # `#18` / ` 18` would make the concurrency group `review-coordinator-#18`: refused.
    for shape in ("#18", " 18", "18 ", "018", "１８"):
        with pytest.raises(EventError, match=r"bare PR number|positive PR number"):
            resolve("workflow_dispatch", payload("workflow_dispatch.json"), shape)
    with pytest.raises(EventError, match="positive PR number"):
        resolve("workflow_dispatch", payload("workflow_dispatch.json"), "seventeen")
    with pytest.raises(EventError, match="positive PR number"):
        resolve("workflow_dispatch", payload("workflow_dispatch.json"), "0")


def test_other_events_name_the_event() -> None:
    with pytest.raises(EventError, match="event 'push'"):
        resolve("push", {}, "")
    with pytest.raises(EventError, match="check_suite"):
        resolve("check_suite", payload("check_suite.requested.json"), "")
    assert resolve("schedule", {}, "5").pr == 5


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"pull_request": None},
        {"pull_request": {"number": "x"}},
        {"pull_request": []},
        {"pull_request": {"number": True}},
        {"pull_request": {"number": -3}},
    ],
)
def test_malformed_pull_payloads(data: dict[str, object]) -> None:
    with pytest.raises(EventError, match=r"no pull_request\.number"):
        resolve("pull_request", data, "")


def test_malformed_issue_comment_payload() -> None:
    with pytest.raises(EventError):
        resolve("issue_comment", {"issue": "nope"}, "")
    with pytest.raises(EventError, match=r"no valid issue\.number"):
        resolve("issue_comment", {"issue": {"pull_request": {"url": "x"}}}, "")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "not valid JSON"),
        ("[1, 2]", "not a JSON object"),
        ("\xff", "not valid JSON"),
    ],
)
def test_bad_payload_files(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "event.json"
    path.write_bytes(content.encode("latin-1"))
    with pytest.raises(EventError, match=message):
        load_payload(str(path))
    with pytest.raises(EventError, match="does not exist"):
        load_payload(str(tmp_path / "missing.json"))
