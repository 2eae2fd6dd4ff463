"""Event → PR number (docs/interface.md §2). The payload is untrusted; its head SHA is never
judged (it may be stale, and `issue_comment` / `workflow_dispatch` have none): the pipeline reads
`GET pulls/{n}` for that. It is kept (`Target.head_sha`) only as the place to write a failure
when that read itself fails: the required check must not keep an earlier `success`.
`merge_group` is the exception: its `head_sha` is the merge group's own commit, the one the
queue wants the check on (reviewcoord/merge_queue.py).

Two events may name no PR, only a head: the relay's `workflow_run` of a fork's run (GitHub lists
no `pull_requests` for a fork) and a reviewer's `check_run` on a fork's head. Their `Target`
carries a `HeadLookup`, and the caller finds the open PR by GitHub's own list (`find_pr`): a
fork's branch is a fact GitHub recorded, never a number the fork's run wrote.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reviewcoord.errors import EventError
from reviewcoord.github.gateway import PullInfo

# The events whose runs get a read-only token on a fork's PR: what the relay judges again.
RELAYED_EVENTS = frozenset({"pull_request", "pull_request_review", "pull_request_review_comment"})
PULL_EVENTS = frozenset(
    {
        "pull_request",
        "pull_request_target",
        "pull_request_review",
        "pull_request_review_comment",
        "pull_request_review_thread",
    }
)
MAX_EVENT_BYTES = 25 * 1024 * 1024
# GitHub's issue and PR numbers are 32-bit; a larger "number" is not a PR, and must not become a
# request path.
MAX_NUMBER = 2**31 - 1


# `merge_group.head_ref` (interface §2): the base may hold slashes, the PR head's SHA is optional.
_QUEUE_REF = re.compile(
    r"refs/heads/gh-readonly-queue/(?P<base>.+)/pr-(?P<pr>[0-9]{1,10})"
    r"(?:-(?P<sha>[0-9a-f]{40}|[0-9a-f]{64}))?",
    re.IGNORECASE,
)
_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
# A fork's `owner/name` and branch, as GitHub allows them (a branch name is a git ref: no
# spaces, controls or `:`; GitHub caps refs at 255 bytes).
_FULL_NAME = re.compile(r"(?P<owner>[A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))/[A-Za-z0-9._-]{1,100}")
_BRANCH = re.compile(r"[^\x00-\x20\x7f~^:?*\[\\]{1,255}")


@dataclass(frozen=True)
class HeadLookup:
    """An event that names a head and no PR: the open PR is found by GitHub's list of pull
    requests (`find_pr`), by the head's branch (`owner:branch`) when known, else among the
    most recently updated open PRs by the head's SHA."""

    sha: str | None
    label: str | None = None  # `owner:branch` of the head


@dataclass(frozen=True)
class MergeGroup:
    """A merge queue's request for checks: report on `head_sha`, from PR `pr`'s own verdict."""

    pr: int
    head_sha: str  # the merge group's commit: where the check run and status go
    head_ref: str
    base: str  # base branch name
    pr_head: str | None  # the PR head the group was built from, when head_ref names it


@dataclass(frozen=True)
class Target:
    """What to judge. `pr` None means: nothing to do (e.g. a comment on a plain issue)."""

    pr: int | None
    skip_reason: str = ""
    merge_group: MergeGroup | None = None
    head_sha: str | None = None  # the payload's `pull_request.head.sha`, if a valid SHA
    lookup: HeadLookup | None = None  # no PR number: find the open PR of this head


def _sha(value: Any) -> str | None:
    if isinstance(value, str) and value.isascii() and _SHA.fullmatch(value.lower()):
        return value.lower()
    return None


def _payload_head(pull: Any) -> str | None:
    head = pull.get("head") if isinstance(pull, dict) else None
    return _sha(head.get("sha")) if isinstance(head, dict) else None


def _positive_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 0 < value <= MAX_NUMBER else None
    text = value.strip().lstrip("#") if isinstance(value, str) else ""
    # `isdigit` also accepts "²" and other digits `int` rejects; 10 ASCII digits cover MAX_NUMBER.
    if text.isascii() and text.isdigit() and len(text) <= 10:
        number = int(text)
        return number if 0 < number <= MAX_NUMBER else None
    return None


_CANONICAL = re.compile(r"[1-9][0-9]{0,9}")


def pr_number_input(pr_input: str) -> int:
    """The `pr` input as the PR number, written exactly as the number. The workflow's
    concurrency group uses `inputs.pr` as typed, so `#12` or ` 12` would run beside the PR's own
    runs instead of cancelling them: refused, with the form to use."""
    number = _positive_int(pr_input)
    if number is None:
        raise EventError(f"input 'pr' must be a positive PR number, got {pr_input.strip()[:40]!r}")
    if not (pr_input.isascii() and _CANONICAL.fullmatch(pr_input)):
        raise EventError(
            f"input 'pr' must be the bare PR number ({number}), got {pr_input[:40]!r}: the "
            "workflow's concurrency group uses it as written, so any other form would let this "
            "run race the PR's own runs"
        )
    return number


def load_payload(path: str | None) -> dict[str, Any]:
    if not path:
        return {}
    p = Path(path)
    try:
        if p.stat().st_size > MAX_EVENT_BYTES:
            raise EventError(f"event payload {p} is larger than {MAX_EVENT_BYTES} bytes")
        data = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise EventError(f"event payload {p} (GITHUB_EVENT_PATH) does not exist") from None
    except (OSError, ValueError, RecursionError) as exc:
        # ValueError covers JSONDecodeError, UnicodeDecodeError and an integer of more than
        # 4,300 digits (Python's int-from-string limit).
        raise EventError(f"event payload {p} is not valid JSON: {type(exc).__name__}") from None
    if not isinstance(data, dict):
        raise EventError(f"event payload {p} is not a JSON object")
    return data


def merge_group(payload: dict[str, Any]) -> MergeGroup:
    """`merge_group` (checks_requested): the PR from `head_ref`, which must be GitHub's
    `refs/heads/gh-readonly-queue/<base>/pr-<number>-<sha>`; anything else is an EventError."""
    group = payload.get("merge_group")
    if not isinstance(group, dict):
        raise EventError("merge_group payload has no 'merge_group' object")
    head_sha, head_ref = group.get("head_sha"), group.get("head_ref")
    if not isinstance(head_sha, str) or not (
        head_sha.isascii() and _SHA.fullmatch(head_sha.lower())
    ):
        raise EventError("merge_group payload has no valid merge_group.head_sha (a commit SHA)")
    if not isinstance(head_ref, str):
        raise EventError("merge_group payload has no merge_group.head_ref string")
    m = _QUEUE_REF.fullmatch(head_ref)
    number = _positive_int(m["pr"]) if m else None
    if m is None or number is None:
        raise EventError(
            f"merge_group.head_ref {head_ref[:120]!r} does not name a pull request: expected "
            "refs/heads/gh-readonly-queue/<base>/pr-<number>-<sha>"
        )
    base, pr_head = m["base"], m["sha"].lower() if m["sha"] else None
    base_ref = group.get("base_ref")
    named = base_ref.removeprefix("refs/heads/") if isinstance(base_ref, str) else None
    if named is not None and named != base_ref and named != base:
        raise EventError(
            f"merge_group.head_ref names base {base[:80]!r} but merge_group.base_ref names "
            f"{named[:80]!r}"
        )
    return MergeGroup(number, head_sha.lower(), head_ref, base, pr_head)


def _single_pr(event: str, pulls: list[Any]) -> Target:
    numbers = {_positive_int(p.get("number")) for p in pulls if isinstance(p, dict)}
    if len(numbers) != 1 or None in numbers:
        raise EventError(f"{event} payload names no single pull request: set the 'pr' input")
    (number,) = numbers
    return Target(number, head_sha=_payload_head(pulls[0]))


def _check_run_target(payload: dict[str, Any]) -> Target:
    """A reviewer's own check run finished (Bugbot, Greptile, CodeRabbit: docs/bot-formats.md
    § 20): judge the PR it is on. GitHub lists the PRs of this repository whose head is the
    check run's commit; a fork's PR is never listed: found by the check run's head SHA."""
    run = payload.get("check_run")
    if not isinstance(run, dict):
        raise EventError("check_run payload has no 'check_run' object")
    pulls = run.get("pull_requests")
    if isinstance(pulls, list) and pulls:
        return _single_pr("check_run", pulls)
    sha = _sha(run.get("head_sha"))
    if sha is None:
        return Target(None, "check_run on no commit of a pull request: nothing to do")
    return Target(None, lookup=HeadLookup(sha), head_sha=sha)


def _workflow_run_target(payload: dict[str, Any]) -> Target:
    """The relay (docs/adopt.md § Fork pull requests): a run of the event workflow completed
    with a read-only token. A same-repository run names its PR; a fork's names none
    (`pull_requests: []`), so its PR is found by the fork's branch: GitHub's record of where the
    run came from (`head_repository`, `head_branch`), never anything the run itself wrote."""
    run = payload.get("workflow_run")
    if not isinstance(run, dict):
        raise EventError("workflow_run payload has no 'workflow_run' object")
    event = run.get("event")
    if event not in RELAYED_EVENTS:
        shown = str(event)[:40]
        return Target(None, f"workflow_run of a {shown!r} run: nothing to relay")
    pulls = run.get("pull_requests")
    if isinstance(pulls, list) and pulls:
        return _single_pr("workflow_run", pulls)
    repo = run.get("head_repository")
    full_name = repo.get("full_name") if isinstance(repo, dict) else None
    branch = run.get("head_branch")
    named = _FULL_NAME.fullmatch(full_name) if isinstance(full_name, str) else None
    if named is None or not isinstance(branch, str) or not _BRANCH.fullmatch(branch):
        return Target(None, "workflow_run names no pull request and no head branch: nothing to do")
    sha = _sha(run.get("head_sha"))
    return Target(None, lookup=HeadLookup(sha, f"{named['owner']}:{branch}"), head_sha=sha)


def resolve(event_name: str, payload: dict[str, Any], pr_input: str) -> Target:
    """The PR to judge for this event, or a reason to do nothing."""
    if event_name == "merge_group":
        group = merge_group(payload)
        if pr_input.strip() and _positive_int(pr_input) != group.pr:
            raise EventError(
                f"input 'pr' ({pr_input.strip()[:40]!r}) is not the PR of this merge group "
                f"(#{group.pr}, from merge_group.head_ref)"
            )
        return Target(group.pr, merge_group=group)
    if pr_input.strip():
        return Target(pr_number_input(pr_input))
    if event_name in PULL_EVENTS:
        pull = payload.get("pull_request")
        number = _positive_int(pull.get("number")) if isinstance(pull, dict) else None
        if number is None:
            number = _positive_int(payload.get("number"))
        if number is None:
            raise EventError(f"{event_name} payload has no pull_request.number")
        return Target(number, head_sha=_payload_head(pull))
    if event_name == "issue_comment":
        issue = payload.get("issue")
        if not isinstance(issue, dict):
            raise EventError("issue_comment payload has no 'issue' object")
        if not issue.get("pull_request"):
            return Target(None, "issue_comment on a plain issue, not a pull request: nothing to do")
        number = _positive_int(issue.get("number"))
        if number is None:
            raise EventError("issue_comment payload has no valid issue.number")
        return Target(number)
    if event_name == "workflow_dispatch":
        raise EventError("workflow_dispatch needs the 'pr' input: the number of the PR to judge")
    if event_name == "check_run":
        return _check_run_target(payload)
    if event_name == "workflow_run":
        return _workflow_run_target(payload)
    if event_name == "check_suite":
        suite = payload.get("check_suite")
        pulls = suite.get("pull_requests") if isinstance(suite, dict) else None
        if isinstance(pulls, list) and len(pulls) == 1 and isinstance(pulls[0], dict):
            number = _positive_int(pulls[0].get("number"))
            if number is not None:
                return Target(number)
    shown = event_name or "(unknown)"
    raise EventError(
        f"event '{shown}' does not name one pull request: set the 'pr' input "
        "(supported without it: pull_request, pull_request_target, pull_request_review, "
        "pull_request_review_comment, issue_comment, check_run, merge_group, workflow_run)"
    )


def choose_pr(lookup: HeadLookup, pulls: Sequence[PullInfo]) -> tuple[int | None, str]:
    """The open PR a `HeadLookup` means, among `pulls` (GitHub's list: by the head's branch, or
    the most recently updated), and one line saying what was found. By branch: the one whose
    head is still the run's SHA, else the branch's PR (its head moved on: its current head is
    judged). By SHA alone: only a PR whose head is that SHA. Several: the newest PR, said so."""
    same = [p for p in pulls if lookup.sha is not None and p.head_sha == lookup.sha]
    found = same or (list(pulls) if lookup.label is not None else [])
    where = f"head {lookup.label}" if lookup.label else f"head commit {lookup.sha or '?'}"
    if not found:
        return None, f"no open pull request has {where}: nothing to do"
    numbers = sorted({p.number for p in found}, reverse=True)
    note = f"#{numbers[0]} has {where}"
    if len(numbers) > 1:
        others = ", ".join(f"#{n}" for n in numbers[1:])
        note += f" (so do {others}: judge them with workflow_dispatch)"
    return numbers[0], note
