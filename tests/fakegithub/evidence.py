"""The fake's evidence from others, in GitHub's own shapes: check runs another GitHub App made,
commit statuses anyone set, and reactions on an issue or pull request.

Each object starts from GitHub's REST reference example (tests/fixtures/api-examples/, see
PROVENANCE.md there) with the fields a test sets replaced:

* a commit status: "List commit statuses for a reference" (`status-items`,
  repos.list-commit-statuses-for-ref.200.json), the same shape as our own POSTed statuses;
* a reaction: "List reactions for an issue" (`reaction-items`, reactions.list-for-issue.200.json);
* a check run's `app`: the `app` of "List check runs for a Git reference" (`check-run-paginated`,
  checks.list-for-ref.200.json).
"""

from __future__ import annotations

import base64
import copy
import json
from functools import cache
from pathlib import Path
from typing import Any

EXAMPLES = Path(__file__).resolve().parents[1] / "fixtures" / "api-examples"
# GitHub's reaction types (the `content` enum of the `reaction` schema).
REACTION_CONTENTS = ("+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes")


@cache
def _example(name: str) -> Any:
    return json.loads((EXAMPLES / name).read_text(encoding="utf-8"))


def _built(example: str, node: str, item_id: int, **fields: Any) -> dict[str, Any]:
    """A fresh copy of the first item of an example list with `id`, its `node_id` (of GraphQL
    type `node`) and `fields` replaced."""
    item: dict[str, Any] = copy.deepcopy(_example(example)[0])
    node_id = base64.b64encode(f"{node}{item_id}".encode()).decode()
    item.update(id=item_id, node_id=node_id, **fields)
    return item


def status_json(
    *,
    url: str,
    status_id: int,
    state: str,
    context: str,
    description: str | None,
    target_url: str | None,
    created: str,
    creator: dict[str, Any],
    avatar_url: str,
) -> dict[str, Any]:
    """One commit status as `POST statuses/{sha}` answers and `GET commits/{sha}/statuses`
    lists it."""
    return _built(
        "repos.list-commit-statuses-for-ref.200.json",
        "013:StatusContext",
        status_id,
        url=url,
        avatar_url=avatar_url,
        state=state,
        description=description,
        target_url=target_url,
        context=context,
        created_at=created,
        updated_at=created,
        creator=creator,
    )


def reaction_json(
    reaction_id: int, *, user: dict[str, Any], content: str, created: str
) -> dict[str, Any]:
    """One item of `GET issues/{n}/reactions`."""
    if content not in REACTION_CONTENTS:
        raise ValueError(f"{content!r} is not a GitHub reaction ({', '.join(REACTION_CONTENTS)})")
    return _built(
        "reactions.list-for-issue.200.json",
        "08:Reaction",
        reaction_id,
        user=user,
        content=content,
        created_at=created,
    )


def app_json(app_id: int, slug: str, name: str, owner: dict[str, Any]) -> dict[str, Any]:
    """A GitHub App as a check run names it (its `app`)."""
    html_url = f"https://github.com/apps/{slug}"
    runs = _example("checks.list-for-ref.200.json")["check_runs"]
    app: dict[str, Any] = copy.deepcopy(runs[0]["app"])
    app.update(
        id=app_id,
        slug=slug,
        node_id=base64.b64encode(f"03:Integration{app_id}".encode()).decode(),
        owner=owner,
        name=name,
        external_url=html_url,
        html_url=html_url,
        permissions={"checks": "write", "metadata": "read", "pull_requests": "write"},
        events=["check_run", "check_suite", "pull_request"],
    )
    return app
