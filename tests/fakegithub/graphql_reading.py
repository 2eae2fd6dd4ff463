"""The fake's answer to the reading queries of reviewcoord/github/graphql_reading.py
(`PullReading` and its follow-up pages), in the shapes of GitHub's GraphQL schema, made from
the same stored REST objects the fake's REST routes serve: one source of truth, so a test can
build both readings and compare them (tests/test_graphql_reading.py).

What the schema says and this follows (docs/github-platform.md §5.6): ids are `fullDatabaseId`
(a BigInt, sent as a string) and the node `id`; an `Actor` is `{__typename, login}`, a Bot's
login without `[bot]`; `state` is OPEN / CLOSED / MERGED; `potentialMergeCommit` is null once
merged (then `mergeCommit`); review comments sit in their threads (`reviewThreads`), replies in
their root comment's thread; a PR that does not exist is `pullRequest: null` plus a NOT_FOUND
error with its `path`. Lists are cut at `page_max` nodes a page (GitHub: the query's `first`,
at most 100), with opaque cursors. `rateLimit.cost` follows GitHub's formula (the requests a
query's connections need at their `first`, divided by 100, rounded, at least 1).
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.fakegithub.server import FakeGitHub

# The operations reviewcoord/github/graphql_reading.py sends.
OPERATIONS = (
    "PullReading",
    "PullReviewsPage",
    "PullThreadsPage",
    "PullCommentsPage",
    "ThreadCommentsPage",
)
# GitHub's formula for each: the requests its connections need (reviews, threads, comments: 1
# each; each thread's comments: 100, one per thread), / 100, rounded, at least 1.
_REQUESTS = {"PullReading": 103, "PullThreadsPage": 101}


def operation(query: str) -> str | None:
    """The reading operation a query is, if any (`query PullReading(`…)."""
    for name in OPERATIONS:
        if f"query {name}(" in query:
            return name
    return None


def resolve(fake: FakeGitHub, query: str, variables: dict[str, Any]) -> dict[str, Any]:
    """The answer (`data`, and `errors` when there are any) to one reading query."""
    op = operation(query) or ""
    cost = max(1, round(_REQUESTS.get(op, 1) / 100))
    fake.graphql_points += cost
    data: dict[str, Any] = {"rateLimit": {"cost": cost, "remaining": 5000 - fake.graphql_points}}
    if op == "ThreadCommentsPage":
        root = _thread_root(str(variables.get("thread", "")))
        items = _thread(fake, root) if root is not None else None
        if items is None:
            return _not_found(data, ["node"], f"the global id of '{variables.get('thread')}'")
        comments = _page(fake, items, variables.get("after"), lambda c: _comment(fake, c))
        data["node"] = {"comments": comments}
        return {"data": data}
    owner, name, number = variables.get("owner"), variables.get("name"), variables.get("number")
    if f"{owner}/{name}".lower() != fake.repo.lower():
        return _not_found(data, ["repository"], f"the name '{owner}/{name}'", repo=True)
    pull = fake._pulls.get(number) if isinstance(number, int) else None
    if pull is None:
        data["repository"] = {"pullRequest": None}
        return _not_found(data, ["repository", "pullRequest"], f"the number of {number}")
    node = _pull(pull) if op == "PullReading" else {}
    after = variables.get("after")
    lists: dict[str, Callable[[], dict[str, Any]]] = {
        "reviews": lambda: _page(fake, _reviews(fake, number), after, _review),
        "reviewThreads": lambda: _page(
            fake, _roots(fake, number), after, lambda root: _thread_node(fake, root)
        ),
        "comments": lambda: _page(fake, _issue_comments(fake, number), after, _issue_comment),
    }
    wanted = {
        "PullReading": list(lists),
        "PullReviewsPage": ["reviews"],
        "PullThreadsPage": ["reviewThreads"],
        "PullCommentsPage": ["comments"],
    }[op]
    node.update({key: lists[key]() for key in wanted})
    data["repository"] = {"pullRequest": node}
    return {"data": data}


def _not_found(
    data: dict[str, Any], path: list[str], what: str, *, repo: bool = False
) -> dict[str, Any]:
    kind = "Repository" if repo else "PullRequest" if path[-1] == "pullRequest" else "node"
    if repo:
        data["repository"] = None
    error = {
        "type": "NOT_FOUND",
        "path": path,
        "locations": [{"line": 1, "column": 1}],
        "message": f"Could not resolve to a {kind} with {what}.",
    }
    return {"data": data, "errors": [error]}


def _page(
    fake: FakeGitHub, items: list[Any], after: Any, shape: Callable[[Any], dict[str, Any]]
) -> dict[str, Any]:
    start = _offset(after)
    size = fake.graphql_page_max
    chunk = items[start : start + size]
    more = start + size < len(items)
    end = _cursor(start + len(chunk)) if chunk else None
    return {
        "totalCount": len(items),
        "pageInfo": {"hasNextPage": more, "endCursor": end},
        "nodes": [shape(item) for item in chunk],
    }


def _cursor(offset: int) -> str:
    return base64.b64encode(f"cursor:v2:{offset}".encode()).decode()


def _offset(after: Any) -> int:
    if not isinstance(after, str) or not after:
        return 0
    try:
        return int(base64.b64decode(after).decode().rsplit(":", 1)[1])
    except (ValueError, IndexError):
        return 0


def actor(user: Any) -> dict[str, Any] | None:
    """REST's `user` as GraphQL's `Actor` (null for a deleted account)."""
    if not isinstance(user, dict) or not isinstance(user.get("login"), str):
        return None
    kind = user.get("type")
    typename = kind if kind in ("Bot", "Organization") else "User"
    login = user["login"].removesuffix("[bot]")  # a Bot's; `Copilot` has no suffix to lose
    return {"__typename": typename, "login": login}


def _oid(sha: Any) -> dict[str, Any] | None:
    return {"oid": sha} if isinstance(sha, str) and sha else None


def _ref(item_id: Any) -> dict[str, Any] | None:
    return {"fullDatabaseId": str(item_id)} if isinstance(item_id, int) else None


def _pull(p: dict[str, Any]) -> dict[str, Any]:
    merged = bool(p.get("merged") or p.get("merged_at"))
    state = "OPEN" if p.get("state") == "open" else "MERGED" if merged else "CLOSED"
    head, base = p.get("head") or {}, p.get("base") or {}
    head_repo = (head.get("repo") or {}).get("full_name")
    return {
        "number": p["number"],
        "state": state,
        "title": p.get("title"),
        "url": p.get("html_url"),
        "createdAt": p.get("created_at"),
        "updatedAt": p.get("updated_at"),
        "author": actor(p.get("user")),
        "headRefName": head.get("ref"),
        "headRefOid": head.get("sha"),
        "baseRefName": base.get("ref"),
        "baseRefOid": base.get("sha"),
        "headRepository": {"nameWithOwner": head_repo} if head_repo else None,
        "baseRepository": {"nameWithOwner": (base.get("repo") or {}).get("full_name")},
        "potentialMergeCommit": None if merged else _oid(p.get("merge_commit_sha")),
        "mergeCommit": _oid(p.get("merge_commit_sha")) if merged else None,
    }


def _common(item: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": item.get("node_id"),
        "fullDatabaseId": str(item["id"]),
        "body": item.get("body") or "",
        "url": item.get("html_url"),
        "author": actor(item.get("user")),
    }


def _reviews(fake: FakeGitHub, pr: int) -> list[dict[str, Any]]:
    return [r for r in fake._reviews if r.get("_pr") == pr]


def _review(r: dict[str, Any]) -> dict[str, Any]:
    return _common(r) | {
        "state": r.get("state"),
        "submittedAt": r.get("submitted_at"),
        "commit": _oid(r.get("commit_id")),
    }


def _issue_comments(fake: FakeGitHub, pr: int) -> list[dict[str, Any]]:
    return [c for c in fake._issue_comments if c.get("_issue") == pr]


def _issue_comment(c: dict[str, Any]) -> dict[str, Any]:
    return _common(c) | {"createdAt": c.get("created_at"), "updatedAt": c.get("updated_at")}


def _root_of(by_id: dict[int, dict[str, Any]], c: dict[str, Any]) -> int:
    """The thread a review comment is in: its reply chain's first comment."""
    seen: set[int] = set()
    while isinstance(c.get("in_reply_to_id"), int) and c["in_reply_to_id"] in by_id:
        if c["id"] in seen:
            break
        seen.add(c["id"])
        c = by_id[c["in_reply_to_id"]]
    return int(c["id"])


def _threads(fake: FakeGitHub, pr: int) -> dict[int, list[dict[str, Any]]]:
    mine = sorted((c for c in fake._review_comments if c.get("_pr") == pr), key=lambda c: c["id"])
    by_id = {c["id"]: c for c in mine}
    threads: dict[int, list[dict[str, Any]]] = {}
    for c in mine:
        threads.setdefault(_root_of(by_id, c), []).append(c)
    return dict(sorted(threads.items()))


def _roots(fake: FakeGitHub, pr: int) -> list[int]:
    return list(_threads(fake, pr))


def _thread(fake: FakeGitHub, root: int) -> list[dict[str, Any]] | None:
    for c in fake._review_comments:
        if c["id"] == root:
            return _threads(fake, c.get("_pr", 0)).get(root)
    return None


def _thread_id(root: int) -> str:
    return base64.b64encode(f"PRRT:{root}".encode()).decode()


def _thread_root(thread_id: str) -> int | None:
    try:
        kind, _, root = base64.b64decode(thread_id).decode().partition(":")
        return int(root) if kind == "PRRT" else None
    except ValueError:
        return None


def _thread_node(fake: FakeGitHub, root: int) -> dict[str, Any]:
    items = _thread(fake, root) or []
    return {
        "id": _thread_id(root),
        "comments": _page(fake, items, None, lambda c: _comment(fake, c)),
    }


def _comment(fake: FakeGitHub, c: dict[str, Any]) -> dict[str, Any]:
    return _common(c) | {
        "path": c.get("path"),
        "line": c.get("line"),
        "originalLine": c.get("original_line"),
        "startLine": c.get("start_line"),
        "createdAt": c.get("created_at"),
        "updatedAt": c.get("updated_at"),
        "commit": _oid(c.get("commit_id")),
        "originalCommit": _oid(c.get("original_commit_id")),
        "replyTo": _ref(c.get("in_reply_to_id")),
        "pullRequestReview": _ref(c.get("pull_request_review_id")),
    }


# ------------------------------------------------------------------ snapshots into the fake

_NODES = {"reviews": "017:PullRequestReview", "review_comments": "024:PullRequestReviewComment"}


def load_snapshot(fake: FakeGitHub, snapshot: dict[str, Any]) -> int:
    """A replay snapshot (examples/*.json: GitHub's REST objects) as the fake's state: its PR
    and three comment lists, with the fields GitHub always has filled in where the snapshot
    left them out (node ids, the PR's creation time and test merge commit). → the PR's number."""
    pull = dict(snapshot["pull"])
    number = int(pull["number"])
    sha = pull["head"]["sha"]
    pull.setdefault("created_at", "2026-01-01T00:00:00Z")
    pull.setdefault("merge_commit_sha", hashlib.sha1(f"merge:{sha}".encode()).hexdigest())
    with fake._lock:
        fake._pulls[number] = pull
        for key, target, owner in (
            ("reviews", fake._reviews, "_pr"),
            ("review_comments", fake._review_comments, "_pr"),
            ("issue_comments", fake._issue_comments, "_issue"),
        ):
            node = _NODES.get(key, "012:IssueComment")
            for item in snapshot.get(key) or []:
                stored = dict(item) | {owner: number}
                node_id = base64.b64encode(f"{node}{item['id']}".encode()).decode()
                stored.setdefault("node_id", node_id)
                target.append(stored)
    return number
