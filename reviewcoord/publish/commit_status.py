"""The commit status on the head SHA: pending → success / failure / error."""

from __future__ import annotations

from reviewcoord.github.gateway import Gateway, StatusState
from reviewcoord.limits import STATUS_DESCRIPTION_LIMIT as DESCRIPTION_LIMIT


def set_status(
    gateway: Gateway,
    sha: str,
    state: StatusState,
    description: str,
    context: str,
    target_url: str | None = None,
) -> None:
    if len(description) > DESCRIPTION_LIMIT:
        description = description[: DESCRIPTION_LIMIT - 1] + "…"
    gateway.create_status(sha, state, description, context, target_url or None)
