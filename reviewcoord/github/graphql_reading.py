"""The PR and its three comment lists in one GraphQL query (issue 26, "one read per event").

`read_pull_state` asks for the pull request, its reviews, its review threads with their
comments and its conversation comments in one query (`PullReading`), then pages only a list
that overflowed its 100 (GraphQL's maximum `first`), with one follow-up query per page. Every
node is written back in the REST shape and read by the same functions as the REST reading
(`rest.pull_info`, `rest.raw_comment`), so both readings give the same models
(tests/test_graphql_reading.py builds both from the fake and compares them). Where the two APIs
spell a fact differently (docs/github-platform.md §5.6):

* ids are `fullDatabaseId` (a BigInt, as a JSON string; `databaseId` is deprecated);
* a Bot's login comes without `[bot]`: `__typename: Bot` restores it, as REST spells it
  (except for the Bot accounts named without it, `UNSUFFIXED_BOTS`);
* `state` OPEN / CLOSED / MERGED is REST's open / closed; the test merge commit is
  `potentialMergeCommit` (null once merged: then `mergeCommit`, as REST's `merge_commit_sha`);
* a review's `updated_at` is its `submitted_at` (REST has no other); review comments come from
  their threads and are put in REST's order (ascending id), like reviews and conversation ones.

Fail closed: an `errors` entry (GraphQL answers them with HTTP 200 and partial data), a missing
or mistyped field, a cursor that never ends raise GatewayError; the caller then reads over REST
(reviewcoord/github/pygithub_gateway.py). GitHub's own cost of each query (`rateLimit { cost }`)
is added to `PullState.points`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from reviewcoord import rest
from reviewcoord.errors import GatewayError
from reviewcoord.github.pull_state import PullState
from reviewcoord.github.review_threads import graphql_url
from reviewcoord.github.transport import Transport
from reviewcoord.model import Endpoint, RawComment

_WHAT = "read the pull request over GraphQL"
# Bot accounts whose REST login has no `[bot]` either: Copilot's inline comments come from a
# Bot named `Copilot` (reviewcoord/bots/copilot.py); nothing to put back.
UNSUFFIXED_BOTS = frozenset({"Copilot"})
# 100 pages of 100: more means a cursor that never ends.
MAX_PAGES = 100

_ACTOR = "author { __typename login }"
_PAGE = "totalCount pageInfo { hasNextPage endCursor }"
REVIEW = f"id fullDatabaseId state body url submittedAt commit {{ oid }} {_ACTOR}"
THREAD_COMMENT = (
    "id fullDatabaseId body path line originalLine startLine url createdAt updatedAt "
    "commit { oid } originalCommit { oid } replyTo { fullDatabaseId } "
    f"pullRequestReview {{ fullDatabaseId }} {_ACTOR}"
)
ISSUE_COMMENT = f"id fullDatabaseId body url createdAt updatedAt {_ACTOR}"
THREAD = f"id comments(first: 100) {{ {_PAGE} nodes {{ {THREAD_COMMENT} }} }}"
PULL = (
    f"number state title url createdAt updatedAt {_ACTOR} "
    "headRefName headRefOid baseRefName baseRefOid "
    "headRepository { nameWithOwner } baseRepository { nameWithOwner } "
    "potentialMergeCommit { oid } mergeCommit { oid }"
)
_RATE = "rateLimit { cost remaining }"
_PR = "repository(owner: $owner, name: $name) { pullRequest(number: $number) {"
_VARS = "$owner: String!, $name: String!, $number: Int!"

READING_QUERY = (
    f"query PullReading({_VARS}) {{ {_RATE} {_PR} {PULL} "
    f"reviews(first: 100) {{ {_PAGE} nodes {{ {REVIEW} }} }} "
    f"reviewThreads(first: 100) {{ {_PAGE} nodes {{ {THREAD} }} }} "
    f"comments(first: 100) {{ {_PAGE} nodes {{ {ISSUE_COMMENT} }} }} }} }} }}"
)


def _list_query(name: str, field: str, nodes: str) -> str:
    return (
        f"query {name}({_VARS}, $after: String!) {{ {_RATE} {_PR} "
        f"{field}(first: 100, after: $after) {{ {_PAGE} nodes {{ {nodes} }} }} }} }} }}"
    )


# The follow-up pages, one query per list (the connection's name is the key in the answer).
PAGE_QUERIES = {
    "reviews": _list_query("PullReviewsPage", "reviews", REVIEW),
    "reviewThreads": _list_query("PullThreadsPage", "reviewThreads", THREAD),
    "comments": _list_query("PullCommentsPage", "comments", ISSUE_COMMENT),
}
THREAD_COMMENTS_QUERY = (
    f"query ThreadCommentsPage($thread: ID!, $after: String!) {{ {_RATE} "
    "node(id: $thread) { ... on PullRequestReviewThread { "
    f"comments(first: 100, after: $after) {{ {_PAGE} nodes {{ {THREAD_COMMENT} }} }} }} }} }}"
)


class _Session:
    """One reading's queries and their cost."""

    def __init__(self, http: Transport, repo: str, number: int) -> None:
        owner, _, name = repo.partition("/")
        self.http, self.points = http, 0
        self.pr_vars: dict[str, Any] = {"owner": owner, "name": name, "number": number}

    def fail(self, detail: str) -> GatewayError:
        return GatewayError(f"could not {_WHAT}: {detail}", endpoint="graphql")

    def ask(self, query: str, variables: dict[str, Any]) -> dict[str, Any]:
        """`data` of one query, or GatewayError: any `errors` entry fails it (partial data is
        never a reading)."""
        payload = {"query": query, "variables": variables}
        url = graphql_url(self.http.base_url)
        resp = self.http.send("POST", url, endpoint="graphql", what=_WHAT, body=payload)
        answer = self.http.decode(resp, "graphql", _WHAT)
        if not isinstance(answer, dict):
            raise self.fail("the answer is not a JSON object")
        if answer.get("errors"):
            raise self.fail(f"errors: {_errors(answer['errors'])}")
        data = answer.get("data")
        if not isinstance(data, dict):
            raise self.fail("no data")
        cost = _dig(data, "rateLimit", "cost")
        self.points += cost if isinstance(cost, int) and not isinstance(cost, bool) else 1
        return data

    def pull_node(self, data: dict[str, Any]) -> dict[str, Any]:
        node = _dig(data, "repository", "pullRequest")
        if not isinstance(node, dict):
            raise self.fail("no pullRequest")
        return node

    def every(self, first: Any, more: Callable[[str], Any], what: str) -> list[Any]:
        """Every node of a connection: its first page, then `more(cursor)` page after page."""
        conn, nodes = first, []
        for _page in range(MAX_PAGES):
            if not isinstance(conn, dict) or not isinstance(conn.get("nodes"), list):
                raise self.fail(f"no {what}")
            nodes.extend(conn["nodes"])
            info = conn.get("pageInfo")
            if not isinstance(info, dict) or not isinstance(info.get("hasNextPage"), bool):
                raise self.fail(f"no pageInfo for {what}")
            if not info["hasNextPage"]:
                total = conn.get("totalCount")
                if isinstance(total, int) and total != len(nodes):
                    raise self.fail(f"{what}: {len(nodes)} of {total} read")
                return nodes
            cursor = info.get("endCursor")
            if not isinstance(cursor, str) or not cursor:
                raise self.fail(f"no cursor for {what}")
            conn = more(cursor)
        raise self.fail(f"too many pages of {what}")

    def page(self, key: str, after: str) -> Any:
        data = self.ask(PAGE_QUERIES[key], {**self.pr_vars, "after": after})
        return self.pull_node(data).get(key)

    def thread_page(self, thread: Any, after: str) -> Any:
        if not isinstance(thread, str) or not thread:
            raise self.fail("a review thread has no id")
        data = self.ask(THREAD_COMMENTS_QUERY, {"thread": thread, "after": after})
        return _dig(data, "node", "comments")


def read_pull_state(http: Transport, repo: str, number: int) -> PullState:
    """The pull request `number` of `repo` ("owner/name") and its reviews, review comments and
    conversation comments, complete, or GatewayError."""
    s = _Session(http, repo, number)
    pr = s.pull_node(s.ask(READING_QUERY, s.pr_vars))
    reviews = s.every(pr.get("reviews"), lambda c: s.page("reviews", c), "reviews")
    threads = s.every(pr.get("reviewThreads"), lambda c: s.page("reviewThreads", c), "threads")
    inline: list[Any] = []
    for thread in threads:
        if not isinstance(thread, dict):
            raise s.fail("a review thread is not an object")
        more = partial(s.thread_page, thread.get("id"))
        inline.extend(s.every(thread.get("comments"), more, "comments"))
    issue = s.every(pr.get("comments"), lambda c: s.page("comments", c), "conversation comments")
    try:
        pull = rest.pull_info(pull_rest(pr))
        comments = (
            *_in_order("review", [review_rest(n) for n in reviews]),
            *_in_order("review_comment", [review_comment_rest(n) for n in inline]),
            *_in_order("issue_comment", [issue_comment_rest(n) for n in issue]),
        )
    except (ValueError, TypeError, AttributeError) as exc:
        raise s.fail(f"malformed answer ({exc})") from None
    return PullState(pull=pull, comments=comments, points=s.points)


def _in_order(kind: Endpoint, items: list[dict[str, Any]]) -> list[RawComment]:
    """REST's order: ascending id."""
    return sorted((rest.raw_comment(kind, item) for item in items), key=lambda c: c.id)


# ------------------------------------------------------------------ GraphQL nodes in REST shapes


def user_rest(actor: Any) -> dict[str, Any]:
    """An `Actor` as REST's `user`: a Bot's login with `[bot]`; a deleted account (null) is
    REST's `ghost` user."""
    if actor is None:
        return {"login": "ghost", "type": "User"}
    if not isinstance(actor, dict):
        raise ValueError("field 'author' must be an object or null")
    kind, login = actor.get("__typename"), actor.get("login")
    if not isinstance(kind, str) or not isinstance(login, str):
        raise ValueError("field 'author' has no __typename or login")
    if kind == "Bot":
        return {"login": login if login in UNSUFFIXED_BOTS else f"{login}[bot]", "type": "Bot"}
    return {"login": login, "type": kind if kind == "Organization" else "User"}


def _id(node: dict[str, Any]) -> int:
    """`fullDatabaseId` (BigInt: a JSON string of digits) as REST's integer id."""
    raw = node.get("fullDatabaseId")
    if not isinstance(raw, str | int) or isinstance(raw, bool) or not str(raw).isdigit():
        raise ValueError("field 'fullDatabaseId' is not a number")
    return int(raw)


def _ref_id(node: Any) -> int | None:
    return None if node is None else _id(node)


def pull_rest(pr: dict[str, Any]) -> dict[str, Any]:
    state = pr.get("state")
    if state not in ("OPEN", "CLOSED", "MERGED"):
        raise ValueError(f"field 'state' is not a pull request state: {str(state)[:20]!r}")
    merge = _dig(pr, "potentialMergeCommit", "oid") or _dig(pr, "mergeCommit", "oid")
    head_repo = _dig(pr, "headRepository", "nameWithOwner")
    return {
        "number": pr.get("number"),
        "state": "open" if state == "OPEN" else "closed",
        "title": pr.get("title"),
        "html_url": pr.get("url"),
        "created_at": pr.get("createdAt"),
        "updated_at": pr.get("updatedAt"),
        "user": user_rest(pr.get("author")),
        "merge_commit_sha": merge,
        "head": {
            "sha": pr.get("headRefOid"),
            "ref": pr.get("headRefName"),
            "repo": None if head_repo is None else {"full_name": head_repo},
        },
        "base": {
            "sha": pr.get("baseRefOid"),
            "ref": pr.get("baseRefName"),
            "repo": {"full_name": _dig(pr, "baseRepository", "nameWithOwner")},
        },
    }


def _common(node: Any) -> dict[str, Any]:
    if not isinstance(node, dict):
        raise ValueError("a comment is not an object")
    return {
        "id": _id(node),
        "node_id": node.get("id"),
        "user": user_rest(node.get("author")),
        "body": node.get("body"),
        "html_url": node.get("url"),
    }


def review_rest(node: Any) -> dict[str, Any]:
    out = _common(node)
    submitted = node.get("submittedAt")
    # REST gives a review no `updated_at`: its readers take `submitted_at`.
    return out | {
        "state": node.get("state"),
        "submitted_at": submitted,
        "commit_id": _dig(node, "commit", "oid"),
    }


def review_comment_rest(node: Any) -> dict[str, Any]:
    out = _common(node)
    return out | {
        "path": node.get("path"),
        "line": node.get("line"),
        "original_line": node.get("originalLine"),
        "start_line": node.get("startLine"),
        "commit_id": _dig(node, "commit", "oid"),
        "original_commit_id": _dig(node, "originalCommit", "oid"),
        "in_reply_to_id": _ref_id(node.get("replyTo")),
        "pull_request_review_id": _ref_id(node.get("pullRequestReview")),
        "created_at": node.get("createdAt"),
        "updated_at": node.get("updatedAt"),
    }


def issue_comment_rest(node: Any) -> dict[str, Any]:
    out = _common(node)
    return out | {"created_at": node.get("createdAt"), "updated_at": node.get("updatedAt")}


def _dig(d: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(d, dict):
            return None
        d = d.get(key)
    return d


def _errors(errors: Any) -> str:
    """GitHub's errors in one short line: each one's type, path and message."""
    items = errors if isinstance(errors, list) else [errors]
    said = []
    for e in items[:3]:
        if isinstance(e, dict):
            path = ".".join(str(p) for p in e.get("path") or [])
            bits = [str(e.get("type") or ""), path, str(e.get("message") or "")[:120]]
            said.append(" ".join(b for b in bits if b))
        else:
            said.append(str(e)[:120])
    return "; ".join(said) + (f" (+{len(items) - 3} more)" if len(items) > 3 else "")
