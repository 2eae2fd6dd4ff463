"""Event → PR number (docs/interface.md §2). The payload is untrusted; its head SHA is never used
(it may be stale, and `issue_comment` / `workflow_dispatch` have none): the pipeline reads
`GET pulls/{n}` for that.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reviewcoord.errors import EventError

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


@dataclass(frozen=True)
class Target:
    """What to judge. `pr` None means: nothing to do (e.g. a comment on a plain issue)."""

    pr: int | None
    skip_reason: str = ""


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


def resolve(event_name: str, payload: dict[str, Any], pr_input: str) -> Target:
    """The PR to judge for this event, or a reason to do nothing."""
    if pr_input.strip():
        number = _positive_int(pr_input)
        if number is None:
            raise EventError(
                f"input 'pr' must be a positive PR number, got {pr_input.strip()[:40]!r}"
            )
        return Target(number)
    if event_name in PULL_EVENTS:
        pull = payload.get("pull_request")
        number = _positive_int(pull.get("number")) if isinstance(pull, dict) else None
        if number is None:
            number = _positive_int(payload.get("number"))
        if number is None:
            raise EventError(f"{event_name} payload has no pull_request.number")
        return Target(number)
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
        "pull_request_review_comment, issue_comment)"
    )
