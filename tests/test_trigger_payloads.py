"""Every real event payload of tests/fixtures/payloads, as the shipped trigger logic classifies
it (.github/workflows/judge.yml through the user's event workflow or its `pull_request_target`
variant, and the relay): which job starts, with the reason stated per file. A fixture added
without its expected answer fails here."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import workflow_support as wf

# file → (job under examples/workflows/review-coordinator.yml, job under the
# pull_request_target variant), and why. `None`: no job starts.
EXPECTED: dict[str, tuple[str | None, str | None, str]] = {
    "check_run.completed.json": (None, None, "octocoders-linter is no reviewer's app"),
    "check_suite.completed.json": (None, None, "check_suite is not an event we listen to"),
    "check_suite.requested.json": (None, None, "check_suite is not an event we listen to"),
    "issue_comment.created.on-issue.json": (None, None, "a plain issue, not a PR"),
    "issue_comment.created.on-pr.json": ("judge", "judge", "a person's comment on a PR"),
    "merge_group.checks_requested.json": ("judge", "judge", "the merge queue asks"),
    "pull_request.opened.json": ("judge", "judge", "a same-repository PR opened"),
    "pull_request.ready_for_review.json": ("judge", "judge", "a draft marked ready"),
    "pull_request.reopened.json": ("judge", "judge", "a PR reopened"),
    "pull_request.synchronize.json": ("judge", "judge", "a push to a same-repository PR"),
    "pull_request_review.submitted.json": ("judge", "judge", "a review submitted"),
    "pull_request_review_comment.created.json": ("judge", "judge", "a person's inline comment"),
    "pull_request_review_thread.resolved.json": (
        None,
        None,
        "pull_request_review_thread is not an event we listen to",
    ),
    "workflow_dispatch.json": ("judge", "judge", "dispatched by hand"),
    "workflow_run.completed.json": (
        None,
        None,
        "a run of another workflow (repository_dispatch), not of the event workflow",
    ),
}
PAYLOADS = sorted(path.name for path in wf.PAYLOADS.glob("*.json"))


def test_every_payload_fixture_has_its_expected_answer() -> None:
    assert sorted(EXPECTED) == PAYLOADS


@pytest.mark.parametrize("name", PAYLOADS)
@pytest.mark.parametrize("event_file", [wf.CALLER, wf.TARGET_CALLER], ids=lambda path: path.name)
def test_each_payload_fixture_is_classified(name: str, event_file: Path) -> None:
    event = name.split(".", 1)[0]
    if event_file == wf.TARGET_CALLER and event == "pull_request":
        event = "pull_request_target"  # the variant receives the PR events under this name
    caller_job, target_job, why = EXPECTED[name]
    expected = caller_job if event_file == wf.CALLER else target_job
    assert wf.job_for(event, wf.fixture(name), event_file) == expected, why
