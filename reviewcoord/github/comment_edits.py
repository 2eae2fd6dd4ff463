"""Comment edit history over GraphQL: REST shows an edited comment with its author, never its
editor, and anyone with write access can edit any comment (docs/github-platform.md §5).

One `nodes(ids:)` query per 100 comments (GraphQL's limit for `ids` and for `first`), asked only
for comments whose `updated_at` differs from `created_at`. Of each: the last `editor`,
`lastEditedAt`, and the editor and `editedAt` of each of its `userContentEdits` (newest first;
the original text is the last entry, by the author). GraphQL logins have no `[bot]` suffix:
`Actor.type` is kept so that a caller maps it only for a Bot (reviewcoord/edits.py). Errors
fail the read.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from reviewcoord.github.gateway import Actor, CommentEdits
from reviewcoord.github.review_threads import graphql_url
from reviewcoord.github.transport import Transport

BATCH = 100
COMMENT_EDITS_QUERY = (
    "query($ids: [ID!]!) { nodes(ids: $ids) { __typename ... on Comment { id lastEditedAt "
    "editor { __typename login } userContentEdits(first: 100) { totalCount "
    "nodes { editedAt editor { __typename login } } } } } }"
)
_WHAT = "read comment edit history"


def list_comment_edits(http: Transport, node_ids: Sequence[str]) -> list[CommentEdits]:
    """The edit history of each comment in `node_ids` (GraphQL ids), or GatewayError."""
    out: list[CommentEdits] = []
    ids = list(dict.fromkeys(node_ids))
    for start in range(0, len(ids), BATCH):
        batch = ids[start : start + BATCH]
        payload = {"query": COMMENT_EDITS_QUERY, "variables": {"ids": batch}}
        resp = http.send(
            "POST", graphql_url(http.base_url), endpoint="graphql", what=_WHAT, body=payload
        )
        data = http.decode(resp, "graphql", _WHAT)
        if not isinstance(data, dict) or data.get("errors"):
            errors = data.get("errors") if isinstance(data, dict) else None
            http.malformed("graphql", _WHAT, f"errors: {str(errors)[:200]}")
        nodes = (data.get("data") or {}).get("nodes")
        if not isinstance(nodes, list) or len(nodes) != len(batch):
            http.malformed("graphql", _WHAT, "no nodes")
        out.extend(_edits(node_id, node) for node_id, node in zip(batch, nodes, strict=True))
    return out


def _actor(data: Any) -> Actor | None:
    if not isinstance(data, dict) or not isinstance(data.get("login"), str):
        return None  # a deleted account ("ghost") has no actor
    kind = data.get("__typename")
    return Actor(login=data["login"], type=kind if isinstance(kind, str) else "")


def _edits(node_id: str, node: Any) -> CommentEdits:
    if not isinstance(node, dict):
        return CommentEdits(node_id=node_id, complete=False)
    raw = node.get("userContentEdits")
    conn: dict[str, Any] = raw if isinstance(raw, dict) else {}
    items = [n for n in conn.get("nodes") or [] if isinstance(n, dict)]
    editors = tuple(_actor(n.get("editor")) for n in items)
    edited_at = tuple(_text(n.get("editedAt")) for n in items)
    total = conn.get("totalCount")
    complete = isinstance(total, int) and total <= len(items)
    return CommentEdits(
        node_id=node_id,
        editor=_actor(node.get("editor")),
        editors=editors,
        complete=complete,
        last_edited_at=_text(node.get("lastEditedAt")),
        edited_at=edited_at,
    )


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None
