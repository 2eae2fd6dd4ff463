"""What one reading of a PR returns (`Gateway.read_pull_state`)."""

from __future__ import annotations

from reviewcoord.github.gateway import PullInfo
from reviewcoord.model import Frozen, RawComment


class PullState(Frozen):
    """The PR and its reviews, review comments and conversation comments (in that order, each
    as REST lists it), read in one step: `points`, GitHub's GraphQL cost of it (0 over REST);
    `fallback`, why GraphQL failed when REST read it instead (docs/github-platform.md §5.6)."""

    pull: PullInfo
    comments: tuple[RawComment, ...] = ()
    points: int = 0
    fallback: str = ""
