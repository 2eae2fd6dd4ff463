"""The sticky comment: one issue comment, first line the marker, authored by us.

Found by marker *and* author (our identity from `GET /user`, else the Actions bot, confirmed by
the author GitHub reports for what we write). PATCHed in place; our older copies deleted, the
newest (highest id) kept; a comment by anyone else is never edited or deleted, whatever it says.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Sequence

from reviewcoord.actions_io import Log
from reviewcoord.errors import GatewayError, WriteForbidden
from reviewcoord.github.gateway import Gateway, IssueComment
from reviewcoord.ingest import MARKER
from reviewcoord.model import RawComment

_PR_URL = re.compile(r"/(?:pull|issues)/(\d+)#issuecomment-")


def is_sticky(body: str) -> bool:
    return body.lstrip().startswith(MARKER)


def ours(comments: Sequence[RawComment], login: str) -> list[RawComment]:
    """Our stickies among a PR's issue comments, newest (highest id) first."""
    mine = [
        c
        for c in comments
        if c.endpoint == "issue_comment" and c.author_login == login and is_sticky(c.body)
    ]
    return sorted(mine, key=lambda c: c.id, reverse=True)


def _delete_older(gateway: Gateway, keep_id: int, older: Sequence[RawComment], log: Log) -> None:
    """Delete our other stickies. Already gone (404: a concurrent run deleted it) is done; one
    that cannot be deleted is marked stale instead, so it never claims a verdict; only when that
    fails too does the error propagate (the run then fails closed)."""
    from reviewcoord.render import stale_sticky

    for c in older:
        if c.id == keep_id:
            continue
        log.info(f"deleting our older duplicate sticky comment {c.id}")
        try:
            gateway.delete_issue_comment(c.id)
        except WriteForbidden:
            raise
        except GatewayError as exc:
            if exc.status == 404:
                continue
            log.warning(
                f"could not delete our duplicate sticky comment {c.id} ({exc}); "
                "marking it stale instead"
            )
            reason = f"superseded by comment {keep_id}"
            gateway.update_issue_comment(c.id, stale_sticky(c.body, reason=reason))


def publish_sticky(
    gateway: Gateway,
    pr: int,
    body: str,
    issue_comments: Sequence[RawComment],
    login: str,
    log: Log,
) -> IssueComment:
    if not is_sticky(body):
        raise ValueError("refusing to publish a sticky comment without its marker")
    mine = ours(issue_comments, login)
    if mine:
        newest, older = mine[0], mine[1:]
        try:
            written = gateway.update_issue_comment(newest.id, body)
        except WriteForbidden:
            raise
        except GatewayError as exc:
            # Deleted meanwhile (404), or the edit endpoint keeps failing: post a fresh sticky
            # and retire the old one(s), rather than leave an old verdict standing.
            log.warning(f"could not update sticky comment {newest.id} ({exc}); posting a new one")
            written = gateway.create_issue_comment(pr, body)
            _delete_older(gateway, written.id, mine, log)
            return written
        _delete_older(gateway, newest.id, older, log)
        return written
    written = gateway.create_issue_comment(pr, body)
    # The author GitHub reports is who we really are (an App token writes as `<slug>[bot]`).
    # Re-read once: a POST retried after a lost response, or a concurrent run, may have left a
    # second sticky; keep the newest, delete the rest of ours.
    again = ours(gateway.list_issue_comments(pr), written.author_login)
    if again and again[0].id != written.id and again[0].id > written.id:
        log.info(f"a newer sticky comment {again[0].id} exists; keeping it")
        _delete_older(gateway, again[0].id, again, log)
        return IssueComment(
            id=again[0].id,
            body=again[0].body,
            author_login=again[0].author_login,
            html_url=again[0].html_url,
        )
    _delete_older(gateway, written.id, again, log)
    return written


def _pr_of(comments: Sequence[RawComment]) -> int | None:
    """The PR number, from an issue comment's html_url (`…/pull/N#issuecomment-…`)."""
    for c in comments:
        m = _PR_URL.search(c.html_url)
        if m:
            return int(m.group(1))
    return None


def mark_stale(
    gateway: Gateway,
    issue_comments: Sequence[RawComment],
    login: str,
    reason: str,
    log: Log,
    *,
    pr: int | None = None,
) -> None:
    """Keep the previous verdict visible but say it is stale (never replace it by a partial one).

    The comments are read again first: a sticky this very run wrote before failing is not in
    `issue_comments` and must not be left claiming a verdict whose status was never written."""
    from reviewcoord.render import stale_sticky

    number = pr if pr is not None else _pr_of(issue_comments)
    if number is not None:
        with contextlib.suppress(GatewayError):  # else the list we were given will do
            issue_comments = gateway.list_issue_comments(number)
    mine = ours(issue_comments, login)
    if not mine:
        return
    log.info(f"marking the previous sticky comment {mine[0].id} stale: {reason}")
    gateway.update_issue_comment(mine[0].id, stale_sticky(mine[0].body, reason=reason))
