"""The PR as GitHub gives it (`PullInfo`), and what one reading of it returns (`PullState`,
`Gateway.read_pull_state`)."""

from __future__ import annotations

from datetime import datetime

from reviewcoord.model import Frozen, RawComment


class PullInfo(Frozen):
    """What we need of `GET /repos/{o}/{r}/pulls/{n}`."""

    number: int
    head_sha: str
    head_ref: str = ""
    base_ref: str
    base_sha: str = ""
    state: str = "open"
    title: str = ""
    html_url: str = ""
    author_login: str = ""
    author_type: str = "User"
    head_repo: str | None = None  # full name; differs from base_repo on fork PRs
    base_repo: str = ""
    # The test merge commit GitHub made for the PR's current head (None while it computes one):
    # a code-scanning analysis counts only for this commit.
    merge_commit_sha: str | None = None
    created_at: datetime | None = None  # when the PR was opened (GitHub's clock)
    updated_at: datetime | None = None  # its last change (a push, a comment): GitHub's clock


class PullState(Frozen):
    """The PR and its reviews, review comments and conversation comments (in that order, each
    as REST lists it), read in one step: `points`, GitHub's GraphQL cost of it (0 over REST);
    `fallback`, why GraphQL failed when REST read it instead (docs/github-platform.md §5.6)."""

    pull: PullInfo
    comments: tuple[RawComment, ...] = ()
    points: int = 0
    fallback: str = ""
