"""The commit status on the head SHA: pending → success / failure / error."""

from __future__ import annotations

from reviewcoord.github.gateway import Gateway, StatusState


def set_status(
    gateway: Gateway,
    sha: str,
    state: StatusState,
    description: str,
    context: str,
    target_url: str | None = None,
) -> None:
    # `description` comes from render (status_description, pending_description,
    # error_description, merge_group.description): the 140-character rule lives there.
    gateway.create_status(sha, state, description, context, target_url or None)
