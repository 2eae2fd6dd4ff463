"""The models of the scorecard's reads (`Gateway.list_closed_pulls`, `sticky_candidates`,
`sweep_stickies`); reviewcoord/github/gateway.py re-exports them."""

from __future__ import annotations

from datetime import datetime

from reviewcoord.model import Frozen, RawComment

__all__ = ["ClosedPull", "StickyCandidates", "SweepPage"]


class ClosedPull(Frozen):
    """What the scorecard needs of one item of `GET pulls?state=closed`."""

    number: int
    title: str = ""
    html_url: str = ""
    created_at: datetime | None = None
    updated_at: datetime
    closed_at: datetime | None = None
    merged_at: datetime | None = None  # None: closed without merging


class StickyCandidates(Frozen):
    """The sticky-like comments (marker first, any author) of a PR's first and last page of
    issue comments; `skipped_pages`: pages between those two were not read."""

    comments: tuple[RawComment, ...] = ()
    skipped_pages: bool = False


class SweepPage(Frozen):
    """One page of `Gateway.sweep_stickies`: its sticky-like comments with the number of the
    issue or PR each is on, and, on the first page, how many pages the sweep has (None when
    GitHub does not say)."""

    comments: tuple[tuple[int, RawComment], ...] = ()
    pages: int | None = None
