"""Graphite Agent (`graphite-app[bot]`): shapes are docs/bot-formats.md § Graphite Agent.

A finding is one inline comment: a paragraph, often a ```suggestion block, and its footer
`*Spotted by [Graphite](https://app.graphite.com/diamond/…)*` on a line of its own — no severity
(`medium`, like any finding without a label). The same app keeps the merge queue's "### Merge
activity" comment, edited in place: no review, never a finding. It posts no clean verdict and
no check run we know of: a clean review of Graphite leaves nothing to read, so an expected
Graphite is waited for up to the timeouts.
"""

from __future__ import annotations

import re

from reviewcoord.bots.common import (
    clean_body,
    found,
    lead,
    noise,
    paragraph_finding,
    unfenced_lines,
)
from reviewcoord.bots.notices import unread
from reviewcoord.bots.profile import BotProfile
from reviewcoord.model import ParsedComment, RawComment

KEY = "graphite"
LOGINS: frozenset[str] = frozenset({"graphite-app[bot]"})

_FOOTER = re.compile(
    r"^[ \t]*\*Spotted by \[Graphite(?: Agent)?\]\(https://app\.graphite\.(?:com|dev)/[^)\s]{0,500}\)\*"
)
_MERGE_ACTIVITY = re.compile(r"^#{1,6}[ \t]*Merge activity[ \t]*$")
_TAIL_LINES = 12


def _footed(body: str) -> bool:
    """Its footer stands on one of the comment's last lines, outside any fence."""
    lines = [line for line in unfenced_lines(body) if line.strip()]
    return any(_FOOTER.match(line) for line in lines[-_TAIL_LINES:])


def parse(comment: RawComment) -> ParsedComment:
    body = clean_body(comment.body)
    if not body.strip():
        return noise("empty graphite comment")
    if comment.endpoint == "review_comment" and comment.in_reply_to_id is None and _footed(body):
        paragraph = body.lstrip().split("\n\n", 1)[0]
        return found([paragraph_finding(KEY, comment, paragraph, None)], "graphite inline finding")
    if _MERGE_ACTIVITY.match(lead(body)):
        return noise("graphite merge queue activity")
    if comment.in_reply_to_id is not None:
        return noise("graphite thread reply")
    return unread(KEY, comment, "unrecognised graphite comment")


PROFILE = BotProfile(
    key=KEY,
    display="Graphite",
    logins=LOGINS,
    parse=parse,
    pack="fast",
)
