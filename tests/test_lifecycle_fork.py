"""bench/lifecycle_fork.py's delivery, without running the action: the § 9 timeline on a fork's
PR through both workflows' real `if:`s and groups (tests/workflow_support.py)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from bench import lifecycle as lc
from bench import lifecycle_fork as fork
from tests import workflow_support as wf
from tests.e2e_support import HEAD
from tests.fakegithub import FakeGitHub


def delivered() -> list[tuple[str, dict[str, Any]]]:
    """Every event of the timeline, as GitHub sends it for the fork's PR."""
    events = []
    state: dict[str, Any] = {}
    with FakeGitHub() as fake:
        fake.add_pull(lc.PR, head_sha=HEAD, author=lc.AUTHOR, head_repo=fork.FORK_REPO)
        for step in lc.timeline():
            events += [fork.as_fork(fake, e) for e in step.apply(fake, state)]
    return events


def test_a_forks_pull_request_runs_hand_over_and_only_their_relays_judge() -> None:
    events = delivered()
    jobs = [wf.job_for(*e) for e in events]
    assert len(events) == 65
    assert Counter(jobs) == {None: 49, "hand-over": 9, "judge": 7}
    assert {e[0] for e, j in zip(events, jobs, strict=True) if j == "judge"} == {
        "issue_comment",
        "workflow_dispatch",
    }
    # Every completed run triggers the relay; only a hand-over's success starts its judge (a
    # run whose every job was skipped concludes `skipped`; a judging one, success or cancelled).
    conclusions = {"hand-over": ["success"], "judge": ["success", "cancelled"], None: ["skipped"]}
    for (name, payload), job in zip(events, jobs, strict=True):
        for conclusion in conclusions[job]:
            relay = wf.relay_event(name, payload, conclusion=conclusion)
            expected = "judge" if job == "hand-over" else None
            assert wf.job_for("workflow_run", relay) == expected, (name, job, conclusion)
    # Had a skipped run concluded `success` (`--skipped-conclusion success`), the bots' inline
    # comments would start the relay's judge too: the `if:` rests on that conclusion.
    relays = [wf.relay_event(*e) for e, j in zip(events, jobs, strict=True) if j is None]
    assert sum(wf.job_for("workflow_run", r) == "judge" for r in relays) == 26


def test_the_relays_group_is_the_forks_branch_not_the_prs() -> None:
    """So a relay's run and a comment's run of the same PR are not in one group."""
    events = delivered()
    relays = [("workflow_run", wf.relay_event(*e)) for e in events if wf.job_for(*e) == "hand-over"]
    direct = [e for e in events if wf.job_for(*e) == "judge"]
    assert {wf.group(*e) for e in relays} == {
        f"review-coordinator-{fork.FORK_REPO}:feature-{lc.PR}"
    }
    assert {wf.group(*e) for e in direct} == {f"review-coordinator-{lc.PR}"}
