"""Replay snapshots: one PR's comments saved in GitHub's own REST shapes (the snapshot format,
docs/interface.md § Snapshots).

    {"format": 2, "repo": "owner/name", "pull": <GET pulls/N>, "reviews": [...],
     "issue_comments": [...], "review_comments": [...]}
     (+ optional, the other parts of the reading, each as GitHub lists it and judged by
     --replay as if read live: reviewcoord/reading.py `SNAPSHOT_KEYS`)

Format 1 (the same keys, written before the reading held more than comments) reads the same.
Strict at the top level: `format` must be 1 or 2, every key must be one of those, and each must
have its type; otherwise SnapshotError names the key (exit 2). The items inside are GitHub's
own objects, read for the fields we use (reviewcoord/rest.py), so GitHub adding a field to one
never breaks a snapshot. `load` turns untrusted JSON into our models or raises SnapshotError
with one clear line; `dump` writes what `reviewcoord snapshot` saves from a live PR, so it
round-trips through `--replay` to the same verdict.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reviewcoord.errors import SnapshotError
from reviewcoord.github.gateway import PullInfo
from reviewcoord.model import Endpoint, RawComment
from reviewcoord.reading import SNAPSHOT_KEYS, Evidence, parts_from_json, parts_to_json
from reviewcoord.rest import iso, pull_info, raw_comment

LISTS: dict[str, Endpoint] = {
    "reviews": "review",
    "review_comments": "review_comment",
    "issue_comments": "issue_comment",
}

FORMAT = 2
READS = (1, 2)  # the formats `load` reads
# Every top-level key a snapshot may hold, and what it must be.
_REQUIRED = ("format", "repo", "pull")
_LIST_KEYS = (*LISTS, *SNAPSHOT_KEYS)
KEYS = (*_REQUIRED, *_LIST_KEYS)


@dataclass(frozen=True)
class Snapshot:
    repo: str
    pull: PullInfo
    evidence: Evidence  # the reading as saved (its parts beyond comments: None if not saved)

    @property
    def comments(self) -> list[RawComment]:
        return list(self.evidence.comments)


def _check_layout(data: dict[str, Any], source: str) -> None:
    """The top level: the version, no unknown key, each key of its type."""
    unknown = [str(k) for k in data if k not in KEYS]
    if unknown:
        raise SnapshotError(
            f"{source}: unknown key '{unknown[0][:60]}' (a snapshot holds {', '.join(KEYS)})"
        )
    version = data.get("format")
    if "format" not in data:
        raise SnapshotError(
            f"{source}: missing key 'format' (the snapshot format version, {FORMAT}); "
            f'save it again with `reviewcoord snapshot`, or add "format": {FORMAT}'
        )
    if type(version) is not int or version not in READS:
        raise SnapshotError(
            f"{source}: key 'format': version {str(version)[:20]!r} is not supported "
            f"(this reviewcoord reads formats {' and '.join(map(str, READS))})"
        )
    for key in _LIST_KEYS:
        if key in data and not isinstance(data[key], list):
            raise SnapshotError(f"{source}: '{key}' must be a list")
    if "pull" in data and not isinstance(data["pull"], dict):
        raise SnapshotError(f"{source}: 'pull' must be an object (the GET pulls/N object)")


def parse(data: Any, *, source: str = "snapshot") -> Snapshot:
    if not isinstance(data, dict):
        raise SnapshotError(
            f"{source}: the snapshot must be a JSON object, got {type(data).__name__}"
        )
    _check_layout(data, source)
    repo = data.get("repo")
    if not isinstance(repo, str) or repo.count("/") != 1:
        raise SnapshotError(f"{source}: 'repo' must be a string 'owner/name'")
    if "pull" not in data:
        raise SnapshotError(f"{source}: missing key 'pull' (the GET pulls/N object)")
    try:
        pull = pull_info(data["pull"])
    except ValueError as exc:
        raise SnapshotError(f"{source}: 'pull': {exc}") from None
    comments: list[RawComment] = []
    for key, endpoint in LISTS.items():
        for index, item in enumerate(data.get(key, [])):
            try:
                comments.append(raw_comment(endpoint, item))
            except ValueError as exc:
                raise SnapshotError(f"{source}: '{key}[{index}]': {exc}") from None
    evidence, problem = parts_from_json(data, pull.number, comments, pull.author_login)
    if problem:
        raise SnapshotError(f"{source}: {problem}")
    return Snapshot(repo=repo, pull=pull, evidence=evidence)


def load(path: str | Path) -> Snapshot:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SnapshotError(f"{p}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SnapshotError(f"{p}: cannot read: {exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SnapshotError(f"{p}: not valid JSON: {exc.msg} at line {exc.lineno}") from None
    except RecursionError:
        raise SnapshotError(f"{p}: not valid JSON: nested too deeply") from None
    except ValueError as exc:  # e.g. an integer of more than 4,300 digits
        raise SnapshotError(f"{p}: not valid JSON: {str(exc)[:120]}") from None
    return parse(data, source=str(p))


def comment_to_rest(c: RawComment) -> dict[str, Any]:
    """Our RawComment back in the REST shape its endpoint returns (the fields we read)."""
    out: dict[str, Any] = {
        "id": c.id,
        "user": {"login": c.author_login, "type": c.author_type},
        "body": c.body,
        "html_url": c.html_url,
    }
    if c.endpoint == "review":
        out.update(state=c.review_state, commit_id=c.commit_id, submitted_at=iso(c.created_at))
        return out
    out.update(created_at=iso(c.created_at), updated_at=iso(c.updated_at))
    if c.endpoint == "review_comment":
        out.update(
            path=c.path,
            line=c.line,
            original_line=c.original_line,
            start_line=c.start_line,
            commit_id=c.commit_id,
            original_commit_id=c.original_commit_id,
            pull_request_review_id=c.pull_request_review_id,
        )
        if c.in_reply_to_id is not None:
            out["in_reply_to_id"] = c.in_reply_to_id
    return out


def pull_to_rest(p: PullInfo) -> dict[str, Any]:
    extra = {"merge_commit_sha": p.merge_commit_sha} if p.merge_commit_sha else {}
    return extra | {
        "number": p.number,
        "state": p.state,
        "title": p.title,
        "html_url": p.html_url,
        "user": {"login": p.author_login, "type": p.author_type},
        "head": {"sha": p.head_sha, "ref": p.head_ref, "repo": {"full_name": p.head_repo}},
        "base": {"sha": p.base_sha, "ref": p.base_ref, "repo": {"full_name": p.base_repo}},
    }


def dump(repo: str, pull: PullInfo, evidence: Evidence) -> dict[str, Any]:
    data: dict[str, Any] = {"format": FORMAT, "repo": repo, "pull": pull_to_rest(pull)}
    for key, endpoint in LISTS.items():
        data[key] = [comment_to_rest(c) for c in evidence.comments if c.endpoint == endpoint]
    return data | parts_to_json(evidence)
