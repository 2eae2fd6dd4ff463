"""Which review record a run may trust, and the trusted copy of it. Pure.

The record's home is our sticky comment (reviewcoord/history.py), found by marker and author
(`find_record`). Facts cached in it are used before its edit history is read only when GitHub's
clock vouches for it (`vouched`, `edited_after`), and the noop's fingerprint seals the record's
own digest (`seal`).

Anyone with write access can edit or delete our sticky (its edit history tells who edited it,
nothing brings a deleted one back). Nobody but the GitHub App that created a check run can change
it, and a check run cannot be deleted. So every verdict we publish also writes its record — the
same hidden line as the sticky's — into the `text` of the check run it completes (`record_text`):
at most HISTORY_LIMIT (20,000) characters, well under GitHub's 65,535 for `output.text`
(reviewcoord/limits.py), read back with the check-run listing the run already makes (no new
request on an ordinary run). When the sticky's record cannot be trusted — edited last by someone
else, or gone while a copy exists — the run takes the newest copy (the highest check run id:
GitHub's ids only grow) among our completed check runs (our name AND our App's:
reviewcoord/publish/check_run.py); the caller decides where to look
(evaluation.Evaluation.trusted_copy), and the gate does not go on that run (cycles.Cycles: the
hold). Under GITHUB_TOKEN every workflow of the repository writes as the same App:
docs/security.md says what that leaves open.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime

from reviewcoord import __version__
from reviewcoord.github.gateway import CheckRunRef, PullInfo
from reviewcoord.history import HISTORY_PREFIX, History, decode, decode_line, encode
from reviewcoord.model import RawComment
from reviewcoord.publish.sticky import ours

ACTIONS_BOT = "github-actions[bot]"

TEXT_NOTE = (
    "The review record this verdict was judged with, kept where only this check run's App can "
    "change it (review-coordinator's docs/security.md)."
)


def record_text(history_block: str) -> str | None:
    """The check run's `text` carrying `history_block` (the hidden line), or None without one."""
    line = history_block.strip()
    return f"{line}\n\n{TEXT_NOTE}" if line.startswith(HISTORY_PREFIX) else None


def copy_in(run: CheckRunRef, repo: str, pr: int) -> History | None:
    """The record a completed check run of ours carries for `repo`#`pr`, if any."""
    if run.status != "completed" or not run.text:
        return None
    line = run.text.lstrip().split("\n", 1)[0].strip()
    if not line.startswith(HISTORY_PREFIX):
        return None
    record, _notice = decode_line(line, repo=repo, pr=pr)
    return record


def newest_copy(
    runs: Iterable[CheckRunRef], repo: str, pr: int
) -> tuple[History, CheckRunRef] | None:
    """The newest record among `runs` (all ours), with the check run that carries it."""
    for run in sorted(runs, key=lambda r: r.id, reverse=True):
        record = copy_in(run, repo, pr)
        if record is not None:
            return record, run
    return None


MAX_LOOKUPS = 20  # check-run listings of earlier heads, after a discard only


def find_copy(
    ours_on: Callable[[str], Sequence[CheckRunRef]],
    pull: PullInfo,
    repo: str,
    commits: Callable[[], Sequence[str]] | None,
    hints: Sequence[str],
) -> tuple[History, CheckRunRef] | None:
    """The newest copy among our check runs on the head (a listing the run reads anyway), else
    — with `commits` (the PR's, read only after a discard: an attack's path, never an ordinary
    run's) — on the earlier heads (`earlier_heads`; `hints`: the discarded record's heads)."""
    found = newest_copy(ours_on(pull.head_sha), repo, pull.number)
    if found is None and commits is not None:
        shas = earlier_heads(commits(), hints, pull.head_sha)
        found = newest_copy([r for sha in shas for r in ours_on(sha)], repo, pull.number)
    return found


def earlier_heads(pr_commits: Sequence[str], hints: Sequence[str], head: str) -> list[str]:
    """Where an earlier copy may be, newest first: the PR's commits (GitHub's list, oldest
    first), then the heads a discarded record named (a force-push drops them from the PR's
    list; an untrusted hint can only add places to look — the newest copy wins)."""
    shas = dict.fromkeys([*reversed(pr_commits), *hints])
    return [sha for sha in shas if sha != head][:MAX_LOOKUPS]


def find_record(
    comments: Sequence[RawComment], own_login: str, *, repo: str, pr: int
) -> tuple[History | None, str | None, RawComment | None]:
    """(record, notice, our sticky) from a PR's issue comments: our newest sticky only (the
    record is read from nothing else: docs on trust in reviewcoord/history.py)."""
    mine = ours(comments, own_login)
    if not mine:
        return None, None, None
    history, notice = decode(mine[0].body, repo=repo, pr=pr)
    return history, notice, mine[0]


def seal(history: History, inputs: str) -> str:
    """The noop fingerprint stored in the record: what the run read (`inputs`), the action's
    version, and the digest of the record itself (its fingerprint left out). A later run is a
    noop only if all three are unchanged: a record re-encoded by hand or an upgraded action
    judges again."""
    digest = hashlib.sha256(encode(history.model_copy(update={"fingerprint": ""})).encode())
    text = f"{inputs}\n{__version__}\n{digest.hexdigest()}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:24]


def edited_after(sticky: RawComment, run: CheckRunRef | None) -> bool:
    """Was our sticky changed after our last run completed? Our runs write the sticky before
    they complete the check run, so a later `updated_at` (GitHub's clock, both) is someone
    else's edit, or a run that did not finish."""
    if sticky.updated_at is None or sticky.updated_at == sticky.created_at:
        return False
    done = run.completed_at if run is not None else None
    return done is None or sticky.updated_at > done


def vouched(sticky: RawComment | None, runs: Sequence[CheckRunRef]) -> bool:
    """May facts cached in our sticky's record be used before its edit history is read? Only
    if GitHub's clock shows nobody changed it after our last run on this head completed."""
    if sticky is None:
        return False
    done = [r for r in runs if r.status == "completed"]
    return not edited_after(sticky, max(done, key=lambda r: r.id, default=None))


def recorded_time(
    repo: str,
    pr: int,
    own_login: str | None,
    sha: str,
    comments: Sequence[RawComment],
    check_runs: Callable[[str], Sequence[CheckRunRef]],
) -> datetime | None:
    """When `sha` arrived on GitHub, as our record keeps it, if `sha` is the head it reviewed (and
    the sticky is `vouched` for on it: a time written in by hand could date old reviews new)."""
    issue = [c for c in comments if c.endpoint == "issue_comment"]
    record, _notice, sticky = find_record(issue, own_login or ACTIONS_BOT, repo=repo, pr=pr)
    if record is None or record.last_head != sha or not record.head_arrival:
        return None
    if not vouched(sticky, check_runs(sha)):
        return None
    try:
        return datetime.fromisoformat(record.head_arrival)
    except ValueError:
        return None
