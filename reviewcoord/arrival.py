"""When the head became *this PR's* head, by GitHub's clock (docs/security.md § Binding). Pure.

A signal that names no commit speaks for the head only if it came after this; so the time must
be when the head arrived *here*, never when the commit was first seen anywhere in the
repository (a commit pushed to a throw-away PR first would inherit every review posted since),
and never a commit date (the pusher writes those). The facts, all GitHub's:

* a check suite of the head on this PR's branch (`head_branch`): GitHub makes one per App when
  the commit is pushed there — its `created_at` is that push;
* the PR's last `head_ref_force_pushed` timeline event: the head arrived at or after it (a
  commit force-pushed here from elsewhere has no suite on this branch, but this event);
* our own first check run on the head made *for this PR* (its `external_id`, which only our
  App can set: reviewcoord/publish/check_run.py `pr_key`), where no suite is on this branch (a
  fork, whose suites name no branch of this repository; a commit first pushed elsewhere and
  fast-forwarded here): the head was this PR's head when we made it. A check run we made
  judging another PR says nothing about this one.

Latest wins among the candidates; none of them: unknown, and no signal that names no commit
counts for the head. Our own check run always comes after the push it answers, so it only
joins where GitHub's exact time of the push here (the suite) is missing: next to it, it would
date the head later than it arrived and lose the reviews that came before our runner started.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from reviewcoord.github.gateway import CheckRunRef, CheckSuiteRef, PullInfo, TimelineEvent
from reviewcoord.rest import FORCE_PUSHED


@dataclass(frozen=True)
class Arrival:
    """When the head arrived here, and what else the same facts say about this PR's heads."""

    time: datetime | None
    # The PR had an older head: the head was pushed or force-pushed after the PR was opened.
    older_head: bool = False
    # The commits this PR's timeline names (its commits, its force-pushes): a stated prefix
    # shared with one of them is ambiguous (reviewcoord/binding.py).
    commits: frozenset[str] = frozenset()


def head_arrival(
    pull: PullInfo,
    suites: Sequence[CheckSuiteRef],
    our_runs: Sequence[CheckRunRef],
    timeline: Sequence[TimelineEvent] | None = None,
) -> Arrival:
    """The head's arrival on `pull` from its check suites, our check runs on it for this PR
    (`our_runs`: the caller keeps only those) and (when read: None otherwise) the PR's
    timeline. Latest wins; unknown is None."""
    head = pull.head_sha
    on_branch = [
        s.created_at
        for s in suites
        if s.head_sha == head and s.created_at is not None and s.head_branch == pull.head_ref
    ]
    pushed = min(on_branch) if on_branch else None
    forced = [e.created_at for e in timeline or () if e.event == FORCE_PUSHED and e.created_at]
    last_force = max(forced) if forced else None
    candidates = [t for t in (pushed, last_force) if t is not None]
    if pushed is None:
        ours = [t for r in our_runs if r.head_sha == head and (t := r.started_at or r.completed_at)]
        candidates += [min(ours)] if ours else []
    opened = pull.created_at
    older = bool(forced) or (pushed is not None and opened is not None and pushed > opened)
    commits = frozenset(e.commit for e in timeline or () if e.commit and e.commit != head)
    return Arrival(max(candidates) if candidates else None, older, commits)
