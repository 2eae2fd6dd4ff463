"""The merge queue's rule (interface §6): what a merge group's check concludes from the PR's
recorded verdict. Pure: `Evidence` (as `reviewcoord.merge_queue` read it) in, `Decision` out.

The rule (`decide`, first match wins): `success` only if all of these hold, else `failure`:

1. every read succeeded: config file (base branch), our identity, `GET pulls/{n}`, the PR's
   issue comments (a read error is gate `error`, never success);
2. the PR is open and its base branch is the merge group's base;
3. where `head_ref` carries the PR head's SHA, it is the PR's current head (read fresh);
4. our sticky exists (marker first line AND authored by our identity, as the runner finds it)
   and its history record decodes and names this repository and PR (else gate `error`);
5. the record's last reviewed head is the PR's current head, the sticky is not marked stale and
   the record's gate is `go`;
6. the newest check run named `check-name` on the PR head (of our App, when the App is known)
   is `completed` with conclusion `success`; when there is none or check runs cannot be read,
   our newest commit status (`status-context`, created by our identity) on the PR head is
   `success` (statuses unreadable: gate `error`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from reviewcoord.event import MergeGroup
from reviewcoord.github.gateway import CheckRunRef, CommitStatusRef, PullInfo
from reviewcoord.history import History
from reviewcoord.model import RawComment
from reviewcoord.render import STALE_PREFIX

Gate = Literal["go", "block", "error"]


@dataclass(frozen=True)
class Evidence:
    """Everything `decide` looks at, as read for one merge group."""

    group: MergeGroup
    pull: PullInfo | None = None
    sticky: RawComment | None = None  # our newest sticky on the PR
    record: History | None = None  # its history record, if it decoded
    notice: str | None = None  # why the record was not trusted
    check: CheckRunRef | None = None  # newest of ours named check-name on the PR head
    status: CommitStatusRef | None = None  # newest of ours (status-context); used without check
    problem: str = ""  # a read before the verdict failed: no decision can be trusted
    signal_problem: str = ""  # neither check runs nor statuses of the PR head could be read


@dataclass(frozen=True)
class Decision:
    """The merge group's check conclusion, the gate it stands for, and why."""

    state: Literal["success", "failure"]
    gate: Gate
    reason: str


def _no(reason: str, gate: Gate = "block") -> Decision:
    return Decision("failure", gate, reason)


def decide(ev: Evidence) -> Decision:
    """The merge group's check conclusion (see the module docstring for the rule)."""
    n = ev.group.pr
    if ev.problem or ev.pull is None:
        return _no(ev.problem or f"PR #{n} was not read", "error")
    pull = ev.pull
    head = pull.head_sha
    if pull.state != "open":
        return _no(f"PR #{n} is {pull.state}, not open")
    if ev.group.pr_head is not None and ev.group.pr_head != head.lower():
        return _no(
            f"the merge group was built from {ev.group.pr_head[:7]}, but PR #{n}'s head is now "
            f"{head[:7]}: its verdict does not cover this merge group"
        )
    if pull.base_ref and pull.base_ref != ev.group.base:
        return _no(f"PR #{n} targets {pull.base_ref!r}, the merge group {ev.group.base!r}")
    return (
        _verdict(ev, pull)
        or _signal(ev, pull)
        or Decision("success", "go", f"PR #{n} has a complete go verdict for its head {head[:7]}")
    )


def _verdict(ev: Evidence, pull: PullInfo) -> Decision | None:
    """Our sticky and its record: present, readable, for this head, not stale, `go`."""
    n, head = ev.group.pr, pull.head_sha
    if ev.sticky is None:
        return _no(f"no verdict: PR #{n} has no review-coordinator comment of ours")
    if ev.notice:
        return _no(f"the verdict of PR #{n} is unreadable: {ev.notice}", "error")
    rec = ev.record
    if rec is None:
        return _no(f"the verdict comment of PR #{n} carries no review record", "error")
    if rec.last_head != head:
        last = (rec.last_head or "?")[:7]
        return _no(f"stale verdict: PR #{n} was judged on {last}; its head {head[:7]} is not yet")
    if STALE_PREFIX in ev.sticky.body:
        return _no(f"the verdict of PR #{n} is marked stale: its last run did not finish")
    if rec.gate != "go":
        return _no(f"PR #{n}'s verdict is {rec.gate}: {rec.reason or 'see its comment'}")
    return None


def _signal(ev: Evidence, pull: PullInfo) -> Decision | None:
    """The last run finished publishing `go` on the head: its check run, else its status."""
    n, head = ev.group.pr, pull.head_sha[:7]
    if ev.check is not None:
        if ev.check.status != "completed":
            return _no(f"a review-coordinator run is still judging PR #{n} (head {head})")
        if ev.check.conclusion != "success":
            concluded = ev.check.conclusion or "nothing"
            return _no(f"the check run of PR #{n} on {head} concluded {concluded}, not success")
        return None
    if ev.signal_problem:
        return _no(ev.signal_problem, "error")
    if ev.status is None:
        return _no(f"no completed check run or commit status of ours on PR #{n}'s head {head}")
    if ev.status.state != "success":
        return _no(f"our commit status on PR #{n}'s head {head} is {ev.status.state}")
    return None
