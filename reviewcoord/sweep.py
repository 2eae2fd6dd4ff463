"""The timeout backstop of `wait: events` (reviewcoord/events.py): a scheduled run (`schedule`,
docs/adopt.md) that judges the open PRs whose check is still waiting and whose deadline passed
— a bot expected on them never came, and no later event judged them.

Its reads, stated (docs/performance.md § 19): one page of open PRs (the 100 most recently
updated), our identity (one read), then our check runs on the head of each PR updated within
`LOOKBACK` (one read each), then one evaluation per due PR, at most `sweep-budget` of them,
the oldest deadline first. The deadline our waiting check run holds only *selects* a PR: the
evaluation decides from scratch by GitHub's clock, as any event's run does, so a forged or
stale deadline can cause one more judgement, never a premature `go`. A PR missed (beyond the
first page, older than `LOOKBACK`, over the budget) keeps its pending check until its next
event or sweep: the safe direction.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from reviewcoord.actions_io import Log
from reviewcoord.errors import GatewayError
from reviewcoord.events import deadline_of
from reviewcoord.github.gateway import Gateway, PullInfo
from reviewcoord.request import Outcome
from reviewcoord.resolve import identity
from reviewcoord.trusted import ACTIONS_BOT

LOOKBACK = timedelta(days=1)
DEFAULT_BUDGET = 5


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


def sweep(
    gateway: Gateway, log: Log, budget: int, judge: Callable[[int], Outcome]
) -> list[Outcome]:
    """Judge at most `budget` due PRs (`judge(pr)`: one evaluation, as an event's run)."""
    try:
        due = due_pulls(gateway, log)
    except GatewayError as exc:
        log.error(f"the sweep could not read the open pull requests: {exc}")
        return [Outcome("error", f"sweep: {exc}")]
    if len(due) > budget:
        log.notice(
            f"{len(due)} PRs are past their deadline; judging {budget} (`sweep-budget`), the "
            "rest on the next sweep or event"
        )
    log.info(f"sweep: due {', '.join(f'#{p.number}' for _, p in due) or 'none'}")
    return [judge(pull.number) for _, pull in due[:budget]]
