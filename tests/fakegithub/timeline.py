"""The PR timeline items the fake serves (`GET issues/{n}/timeline`), in GitHub's shapes: REST
"Timeline events" (docs.github.com/rest/issues/timeline) and "Issue event types"
(docs.github.com/rest/using-the-rest-api/issue-event-types). A `committed` event carries the
git commit (its dates are the pusher's; no `created_at`); `head_ref_force_pushed` carries the
common issue-event properties, with GitHub's `created_at`."""

from __future__ import annotations

from typing import Any


def committed_json(repo: str, sha: str) -> dict[str, Any]:
    person = {"name": "Octo Cat", "email": "octocat@github.com", "date": "2011-04-14T16:00:49Z"}
    return {
        "sha": sha,
        "node_id": f"C_{sha[:20]}",
        "url": f"https://api.github.com/repos/{repo}/git/commits/{sha}",
        "html_url": f"https://github.com/{repo}/commit/{sha}",
        "author": person,
        "committer": person,
        "tree": {
            "sha": "0" * 40,
            "url": f"https://api.github.com/repos/{repo}/git/trees/" + "0" * 40,
        },
        "message": "change",
        "parents": [],
        "verification": {
            "verified": False,
            "reason": "unsigned",
            "signature": None,
            "payload": None,
        },
        "event": "committed",
    }


def force_pushed_json(repo: str, event_id: int, actor: dict[str, Any], at: str) -> dict[str, Any]:
    return {
        "id": event_id,
        "node_id": f"HRFPE_{event_id}",
        "url": f"https://api.github.com/repos/{repo}/issues/events/{event_id}",
        "actor": actor,
        "event": "head_ref_force_pushed",
        "commit_id": None,
        "commit_url": None,
        "created_at": at,
        "performed_via_github_app": None,
    }
