"""Review threads over GraphQL: REST has no resolved/outdated state (docs/github-platform.md §5).

One connection, 100 threads a page (GraphQL's maximum for `first`, §5.3), and of each thread
only its first comment's REST id (`fullDatabaseId`; `databaseId` is deprecated, §5.2).
GraphQL reports errors with HTTP 200, so `errors` in the body fails the read.
"""

from __future__ import annotations

from typing import Any

from reviewcoord.errors import GatewayError
from reviewcoord.github.gateway import ReviewThread
from reviewcoord.github.transport import Transport

REVIEW_THREADS_QUERY = (
    "query($owner: String!, $name: String!, $number: Int!, $after: String) { "
    "repository(owner: $owner, name: $name) { pullRequest(number: $number) { "
    "reviewThreads(first: 100, after: $after) { pageInfo { hasNextPage endCursor } "
    "nodes { isResolved isOutdated path comments(first: 1) { nodes { fullDatabaseId } } } "
    "} } } }"
)
# 5,000 threads: more means a cursor that never ends.
MAX_THREAD_PAGES = 50
_WHAT = "read review threads"


def graphql_url(base_url: str) -> str:
    """GitHub's GraphQL endpoint for a REST base URL: GHES `…/api/v3` ⇒ `…/api/graphql`, as
    PyGithub derives it (docs/github-platform.md §1.2)."""
    base = base_url
    if base.endswith("/v3"):
        base = base[: -len("/v3")]
    return base + "/graphql"


def list_review_threads(http: Transport, repo: str, number: int) -> list[ReviewThread]:
    """Every review thread of pull request `number` in `repo` ("owner/name"), or GatewayError."""
    owner, _, name = repo.partition("/")
    threads: list[ReviewThread] = []
    after: str | None = None
    for _page in range(MAX_THREAD_PAGES):
        payload = {
            "query": REVIEW_THREADS_QUERY,
            "variables": {"owner": owner, "name": name, "number": number, "after": after},
        }
        resp = http.send(
            "POST", graphql_url(http.base_url), endpoint="graphql", what=_WHAT, body=payload
        )
        conn = _threads_connection(http, http.decode(resp, "graphql", _WHAT))
        for node in conn.get("nodes") or []:
            if isinstance(node, dict):
                threads.append(_review_thread(node))
        info = conn.get("pageInfo") or {}
        if not info.get("hasNextPage"):
            return threads
        after = info.get("endCursor")
    raise GatewayError("could not read review threads: too many pages", endpoint="graphql")


def _threads_connection(http: Transport, data: Any) -> dict[str, Any]:
    """`data.repository.pullRequest.reviewThreads`, or GatewayError."""
    if not isinstance(data, dict) or data.get("errors"):
        errors = data.get("errors") if isinstance(data, dict) else None
        http.malformed("graphql", _WHAT, f"errors: {str(errors)[:200]}")
    conn = (((data.get("data") or {}).get("repository") or {}).get("pullRequest") or {}).get(
        "reviewThreads"
    )
    if not isinstance(conn, dict):
        http.malformed("graphql", _WHAT, "no reviewThreads")
    return conn


def _review_thread(node: dict[str, Any]) -> ReviewThread:
    first = ((node.get("comments") or {}).get("nodes") or [{}])[0] or {}
    raw_id = first.get("fullDatabaseId") or first.get("databaseId")
    try:
        root = int(raw_id) if raw_id is not None else None
    except (TypeError, ValueError):
        root = None
    return ReviewThread(
        root_comment_id=root,
        is_resolved=bool(node.get("isResolved")),
        is_outdated=bool(node.get("isOutdated")),
        path=node.get("path") if isinstance(node.get("path"), str) else None,
    )
