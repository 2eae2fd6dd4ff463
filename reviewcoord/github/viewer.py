"""Who the token is, for every kind of token: GraphQL `viewer { login }`. `GET /user` answers
only personal tokens (403 for GITHUB_TOKEN and App installation tokens); the viewer query
answers all of them, an App's as `<slug>[bot]` (docs/github-platform.md §5). One query, one
GraphQL point. Errors fail the read: an identity is never guessed from a name."""

from __future__ import annotations

from reviewcoord.github.review_threads import graphql_url
from reviewcoord.github.transport import Transport

VIEWER_QUERY = "query { viewer { login } }"
_WHAT = "read the token's identity"


def viewer_login(http: Transport) -> str:
    """The token's login (`alice`, `my-app[bot]`), or GatewayError."""
    resp = http.send(
        "POST",
        graphql_url(http.base_url),
        endpoint="graphql",
        what=_WHAT,
        body={"query": VIEWER_QUERY},
    )
    data = http.decode(resp, "graphql", _WHAT)
    if not isinstance(data, dict) or data.get("errors"):
        errors = data.get("errors") if isinstance(data, dict) else None
        http.malformed("graphql", _WHAT, f"errors: {str(errors)[:200]}")
    viewer = (data.get("data") or {}).get("viewer")
    login = viewer.get("login") if isinstance(viewer, dict) else None
    if not isinstance(login, str) or not login:
        http.malformed("graphql", _WHAT, "no viewer login")
    return login
