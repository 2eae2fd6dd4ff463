"""The timeout backstop of `wait: events` (reviewcoord/events.py): a scheduled run (`schedule`,
docs/adopt.md) that finds the open PRs whose check is still waiting and whose deadline passed
— a bot expected on them never came, and no later event judged them — and asks GitHub to run
the event workflow for each (`workflow_dispatch` with input `pr`).

It judges nothing and writes no verdict itself: every judgement of a PR runs in that PR's own
concurrency group (`review-coordinator-<pr>`, .github/workflows/judge.yml), so a sweep can
never publish a stale `go` after a newer run's `block` (the dispatched run and the PR's own
event runs are serialized by GitHub; the latest cancels the earlier). `workflow_dispatch` is
one of the two events a `GITHUB_TOKEN` may start a workflow with (docs/github-platform.md
§ 0.3); the dispatch needs `actions: write`.

Its requests, stated (docs/performance.md § 19): one page of open PRs (the 100 most recently
updated), our identity (one read), then our check runs on the head of each PR updated within
`LOOKBACK` (one read each), then one dispatch (a write) per due PR, at most `sweep-budget`,
the oldest deadline first. The deadline our waiting check run holds only *selects* a PR: the
dispatched run decides from scratch by GitHub's clock, as any event's run does, so a forged or
stale deadline can cause one more judgement, never a premature `go`. A PR missed (beyond the
first page, older than `LOOKBACK`, over the budget) keeps its pending check until its next
event or sweep: the safe direction.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from reviewcoord.actions_io import Log
from reviewcoord.errors import EXIT_OK, EXIT_UNREADABLE, GatewayError, WriteForbidden
from reviewcoord.events import deadline_of
from reviewcoord.github.gateway import Gateway, PullInfo
from reviewcoord.resolve import identity
from reviewcoord.trusted import ACTIONS_BOT

LOOKBACK = timedelta(days=1)
DEFAULT_BUDGET = 5
DEFAULT_WORKFLOW = "review-coordinator.yml"  # examples/workflows: the event workflow


def due_pulls(gateway: Gateway, log: Log) -> list[tuple[datetime, PullInfo]]:
    """The open PRs whose waiting check run of ours (our App's) holds a deadline that has passed
    by GitHub's clock, oldest deadline first."""
    pulls = gateway.recent_open_pulls()
    now = gateway.server_time
    if now is None:
        log.warning("GitHub's reply named no time: no PR is judged by this sweep")
        return []
    app = identity(gateway, ACTIONS_BOT)[1].removesuffix("[bot]")
    due: list[tuple[datetime, PullInfo]] = []
    for pull in pulls:
        if pull.updated_at is not None and pull.updated_at < now - LOOKBACK:
            continue
        for run in gateway.list_check_runs(pull.head_sha):
            deadline = deadline_of(run.text)
            waiting = run.status != "completed" and run.app_slug == app
            if waiting and deadline is not None and deadline <= now:
                due.append((deadline, pull))
                break
    return sorted(due, key=lambda item: (item[0], item[1].number))


def sweep(gateway: Gateway, log: Log, budget: int, workflow: str, ref: str) -> int:
    """Dispatch `workflow` on `ref` for at most `budget` due PRs. → the exit code: 0 when every
    due PR within the budget was dispatched (or none was due), 3 when GitHub could not be read
    or a dispatch failed — loudly: a sweep that cannot dispatch leaves PRs pending forever."""
    try:
        due = due_pulls(gateway, log)
    except GatewayError as exc:
        log.error(f"the sweep could not read the open pull requests: {exc}")
        return EXIT_UNREADABLE
    if len(due) > budget:
        log.notice(
            f"{len(due)} PRs are past their deadline; dispatching {budget} (`sweep-budget`), "
            "the rest on the next sweep or event"
        )
    log.info(f"sweep: due {', '.join(f'#{p.number}' for _, p in due) or 'none'}")
    failed = 0
    for _, pull in due[:budget]:
        try:
            gateway.dispatch_workflow(workflow, ref, {"pr": str(pull.number)})
        except WriteForbidden as exc:
            log.error(
                f"the sweep could not start {workflow} for #{pull.number}: the token lacks "
                "`actions: write` (grant it in the relay's `permissions:`, docs/adopt.md § "
                f"Waiting without a runner); the sweep stops: {exc}"
            )
            return EXIT_UNREADABLE
        except GatewayError as exc:
            hint = (
                f" (is `sweep-workflow` the event workflow's file name, with `workflow_dispatch` "
                f"and input `pr` on {ref}?)"
                if exc.status in (404, 422)
                else ""
            )
            log.error(f"the sweep could not start {workflow} for #{pull.number}{hint}: {exc}")
            failed += 1
            continue
        log.info(f"#{pull.number}: dispatched {workflow} on {ref} (it judges the PR in its group)")
    return EXIT_UNREADABLE if failed else EXIT_OK
