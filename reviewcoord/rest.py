"""GitHub REST JSON (as the API and replay snapshots hold it) → our models, and back.

Pure functions over untrusted dicts: a missing or mistyped field raises `ValueError` with the
field's name, which callers turn into a clear error (snapshot) or a failed read (gateway). The
`*_to_rest` functions write a model back in GitHub's shape (the fields we read), for snapshots.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from reviewcoord.github.gateway import (
    CHECK_SUMMARY_CHARS,
    CHECK_TEXT_CHARS,
    CheckRunRef,
    CheckSuiteRef,
    ClosedPull,
    CommitStatusRef,
    IssueComment,
    PullInfo,
    Reaction,
    TimelineEvent,
)
from reviewcoord.model import Endpoint, RawComment

_SURROGATE = re.compile("[\ud800-\udfff]")


def _get(d: Any, *keys: str) -> Any:
    cur = d
    for key in keys:
        if not isinstance(cur, dict):
            return None
        cur = cur.get(key)
    return cur


def _int(d: Any, key: str, *, required: bool = False) -> int | None:
    value = _get(d, key)
    if value is None and not required:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"field '{key}' must be an integer, got {type(value).__name__}")
    return value


def _str(d: Any, *keys: str, default: str | None = None) -> str | None:
    value = _get(d, *keys)
    if value is None:
        return default
    if not isinstance(value, str):
        raise ValueError(f"field '{'.'.join(keys)}' must be a string, got {type(value).__name__}")
    if not value.isascii():
        # JSON may carry a lone surrogate (`"\\ud800"`); Python decodes it into a str that no
        # UTF-8 encoder accepts, so the verdict file, stdout or a request body would fail later.
        value = _SURROGATE.sub("\ufffd", value)
    return value


def _time(d: Any, key: str) -> datetime | None:
    value = _str(d, key)
    if not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError as exc:
        raise ValueError(f"field '{key}' is not an ISO 8601 time: {value[:40]!r}") from exc


def time_of(d: Any, key: str) -> datetime | None:
    """An ISO 8601 time field of a REST object (None when absent), or ValueError."""
    return _time(d, key)


def time_or_none(d: Any, key: str) -> datetime | None:
    """An ISO 8601 time field of an untrusted object, None when absent or not a time."""
    return timestamp(d.get(key) if isinstance(d, dict) else None)


def timestamp(value: Any) -> datetime | None:
    """An ISO 8601 time GitHub wrote, or None when it is missing or malformed."""
    try:
        return _time({"t": value}, "t")
    except ValueError:
        return None


def raw_comment(endpoint: Endpoint, d: Any) -> RawComment:
    """One item of `pulls/N/reviews`, `pulls/N/comments` or `issues/N/comments`."""
    if not isinstance(d, dict):
        raise ValueError(f"a {endpoint} item must be a JSON object, got {type(d).__name__}")
    created = _time(d, "submitted_at") if endpoint == "review" else _time(d, "created_at")
    return RawComment(
        endpoint=endpoint,
        id=_int(d, "id", required=True) or 0,
        author_login=_str(d, "user", "login", default="ghost") or "ghost",
        author_type=_str(d, "user", "type", default="User") or "User",
        body=_str(d, "body", default="") or "",
        path=_str(d, "path"),
        line=_int(d, "line"),
        original_line=_int(d, "original_line"),
        start_line=_int(d, "start_line"),
        commit_id=_str(d, "commit_id"),
        original_commit_id=_str(d, "original_commit_id"),
        review_state=_str(d, "state"),
        in_reply_to_id=_int(d, "in_reply_to_id"),
        pull_request_review_id=_int(d, "pull_request_review_id"),
        created_at=created,
        updated_at=_time(d, "updated_at") or created,
        html_url=_str(d, "html_url", default="") or "",
        node_id=_str(d, "node_id", default="") or "",
    )


def pull_info(d: Any) -> PullInfo:
    """`GET /repos/{o}/{r}/pulls/{n}`."""
    if not isinstance(d, dict):
        raise ValueError("the pull request must be a JSON object")
    number = _int(d, "number", required=True)
    head_sha = _str(d, "head", "sha")
    if not head_sha:
        raise ValueError("field 'head.sha' is missing")
    return PullInfo(
        number=number or 0,
        head_sha=head_sha,
        head_ref=_str(d, "head", "ref", default="") or "",
        base_ref=_str(d, "base", "ref", default="") or "",
        base_sha=_str(d, "base", "sha", default="") or "",
        state=_str(d, "state", default="open") or "open",
        title=_str(d, "title", default="") or "",
        html_url=_str(d, "html_url", default="") or "",
        author_login=_str(d, "user", "login", default="") or "",
        author_type=_str(d, "user", "type", default="User") or "User",
        head_repo=_str(d, "head", "repo", "full_name"),
        base_repo=_str(d, "base", "repo", "full_name", default="") or "",
        merge_commit_sha=_str(d, "merge_commit_sha"),
        created_at=_time(d, "created_at"),
        updated_at=_time(d, "updated_at"),
    )


def check_suite(d: Any) -> CheckSuiteRef:
    """One item of `GET commits/{sha}/check-suites`."""
    if not isinstance(d, dict):
        raise ValueError("a check suite must be a JSON object")
    return CheckSuiteRef(
        id=_int(d, "id", required=True) or 0,
        head_sha=_str(d, "head_sha", default="") or "",
        created_at=_time(d, "created_at"),
        head_branch=_str(d, "head_branch"),
        app_slug=_str(d, "app", "slug"),
    )


def timeline_event(d: Any) -> TimelineEvent:
    """One item of `GET issues/{n}/timeline`. The timeline holds many shapes; only `event`,
    `created_at` and the commit are read, and a field of another type is taken as absent
    (except a malformed time on a force-push, which is what arrival reads)."""
    if not isinstance(d, dict):
        raise ValueError("a timeline event must be a JSON object")
    event = d.get("event") if isinstance(d.get("event"), str) else ""
    raw = d.get("sha") if event == "committed" else d.get("commit_id")
    commit = raw.lower() if isinstance(raw, str) else None
    when = _time(d, "created_at") if event == FORCE_PUSHED else _lenient_time(d, "created_at")
    return TimelineEvent(event=event, created_at=when, commit=commit)


FORCE_PUSHED = "head_ref_force_pushed"


def _lenient_time(d: Any, key: str) -> datetime | None:
    try:
        return _time(d, key)
    except ValueError:
        return None


def issue_comment(d: Any) -> IssueComment:
    if not isinstance(d, dict):
        raise ValueError("an issue comment must be a JSON object")
    return IssueComment(
        id=_int(d, "id", required=True) or 0,
        body=_str(d, "body", default="") or "",
        author_login=_str(d, "user", "login", default="ghost") or "ghost",
        html_url=_str(d, "html_url", default="") or "",
        created_at=_time(d, "created_at"),
        updated_at=_time(d, "updated_at"),
    )


def closed_pull(d: Any) -> ClosedPull:
    """One item of `GET /repos/{o}/{r}/pulls?state=closed`."""
    if not isinstance(d, dict):
        raise ValueError("a pull request must be a JSON object")
    updated = _time(d, "updated_at")
    if updated is None:
        raise ValueError("field 'updated_at' is missing")
    return ClosedPull(
        number=_int(d, "number", required=True) or 0,
        title=_str(d, "title", default="") or "",
        html_url=_str(d, "html_url", default="") or "",
        created_at=_time(d, "created_at"),
        updated_at=updated,
        closed_at=_time(d, "closed_at"),
        merged_at=_time(d, "merged_at"),
    )


def check_run_ref(d: Any) -> CheckRunRef:
    """A check run from GitHub's JSON (an item of `GET commits/{sha}/check-runs`, ours or any
    App's, or a create response), or ValueError."""
    if not isinstance(d, dict):
        raise ValueError("a check run must be a JSON object")
    run_id = d.get("id")
    if isinstance(run_id, bool) or not isinstance(run_id, int):
        raise ValueError("field 'id' must be an integer")
    for key in ("name", "status", "head_sha"):
        if not isinstance(d.get(key), str):
            raise ValueError(f"field '{key}' must be a string")
    app, html_url, conclusion = d.get("app"), d.get("html_url"), d.get("conclusion")
    slug = app.get("slug") if isinstance(app, dict) else None
    summary = _str(d, "output", "summary")
    text = _str(d, "output", "text")
    return CheckRunRef(
        id=run_id,
        name=_str(d, "name") or "",
        status=str(d["status"]),
        head_sha=str(d["head_sha"]),
        html_url=html_url if isinstance(html_url, str) else "",
        app_slug=slug if isinstance(slug, str) else None,
        conclusion=conclusion if isinstance(conclusion, str) else None,
        completed_at=_time(d, "completed_at"),
        title=_str(d, "output", "title"),
        summary=summary[:CHECK_SUMMARY_CHARS] if summary is not None else None,
        started_at=_time(d, "started_at"),
        external_id=_str(d, "external_id"),
        text=text[:CHECK_TEXT_CHARS] if text is not None else None,
    )


def commit_status_ref(d: Any) -> CommitStatusRef:
    """One item of `GET commits/{sha}/statuses`, or ValueError."""
    if not isinstance(d, dict):
        raise ValueError("a commit status must be a JSON object")
    status_id, state, context = (d.get(k) for k in ("id", "state", "context"))
    if isinstance(status_id, bool) or not isinstance(status_id, int):
        raise ValueError("field 'id' must be an integer")
    if not isinstance(state, str) or not isinstance(context, str):
        raise ValueError("fields 'state' and 'context' must be strings")
    creator = d.get("creator")
    if creator is not None and not isinstance(creator, dict):
        raise ValueError("field 'creator' must be an object or null")
    return CommitStatusRef(
        id=status_id,
        state=state,
        context=_str(d, "context") or "",
        creator_login=_str(d, "creator", "login"),
        target_url=_str(d, "target_url"),
        description=_str(d, "description"),
        creator_type=_str(d, "creator", "type"),
        updated_at=_time(d, "updated_at"),
    )


def reaction(d: Any) -> Reaction:
    """One item of `GET issues/{n}/reactions`, or ValueError. `user` null (a deleted account)
    is `ghost`, a `User`, as for comments."""
    if not isinstance(d, dict):
        raise ValueError(f"a reaction must be a JSON object, got {type(d).__name__}")
    content = _str(d, "content")
    if not content:
        raise ValueError("field 'content' is missing")
    user = d.get("user")
    if user is not None and not isinstance(user, dict):
        raise ValueError("field 'user' must be an object or null")
    return Reaction(
        id=_int(d, "id", required=True) or 0,
        content=content,
        user_login=_str(d, "user", "login", default="ghost") or "ghost",
        user_type=_str(d, "user", "type", default="User") or "User",
        created_at=_time(d, "created_at"),
    )


# ----------------------------------------------------------------- back in GitHub's shapes


def iso(value: object) -> str | None:
    """A time as GitHub writes it (`2026-11-20T10:00:00Z`); anything else, None."""
    return value.isoformat().replace("+00:00", "Z") if isinstance(value, datetime) else None


def check_run_to_rest(r: CheckRunRef) -> dict[str, Any]:
    """A check run as `GET commits/{sha}/check-runs` lists it (the fields we read)."""
    return {
        "id": r.id,
        "name": r.name,
        "head_sha": r.head_sha,
        "status": r.status,
        "conclusion": r.conclusion,
        "html_url": r.html_url,
        "started_at": iso(r.started_at),
        "completed_at": iso(r.completed_at),
        "external_id": r.external_id,
        "app": {"slug": r.app_slug} if r.app_slug else None,
        "output": {"title": r.title, "summary": r.summary}
        | ({"text": r.text} if r.text is not None else {}),
    }


def commit_status_to_rest(s: CommitStatusRef) -> dict[str, Any]:
    """A commit status as `GET commits/{sha}/statuses` lists it (the fields we read)."""
    creator = {"login": s.creator_login, "type": s.creator_type} if s.creator_login else None
    return {
        "id": s.id,
        "state": s.state,
        "context": s.context,
        "description": s.description,
        "target_url": s.target_url,
        "updated_at": iso(s.updated_at),
        "creator": creator,
    }


def reaction_to_rest(r: Reaction) -> dict[str, Any]:
    """A reaction as `GET issues/{n}/reactions` lists it (the fields we read)."""
    return {
        "id": r.id,
        "content": r.content,
        "user": {"login": r.user_login, "type": r.user_type},
        "created_at": iso(r.created_at),
    }
