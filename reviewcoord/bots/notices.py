"""What a comment says about a bot's run when it reports no finding: a notice the bot frames its
comment with (an error, a quota, a skip, a warning — `Notice`, read by `read_notice` at the start
of `notice_lead`), or nothing any rule of its profile reads (`unread`: the bot is `unreadable`,
loudly, never a finding). docs/bot-formats.md § Notices of late 2026, § Unreadable bodies.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from reviewcoord.bots.common import (
    LEAD_SCAN,
    clean_body,
    clip,
    failed,
    first_line,
    first_sentence,
    lead,
    noise,
    plain_text,
    skipped,
    strip_html_comments,
)
from reviewcoord.model import BotKey, ParsedComment, RawComment

# A GitHub alert block's opening line (`> [!CAUTION]`): the notice is its first quoted line.
_ALERT = re.compile(r">[ \t]?\[!(?:NOTE|TIP|IMPORTANT|WARNING|CAUTION)\][ \t]*", re.I)
_HEADING_MARK = re.compile(r"^(?:>[ \t]?)?#{1,6}[ \t]+")
_EMPHASIS_WRAP = re.compile(r"^(\*\*|__)(?P<inner>.+?)\1(?=\s|$)")


def notice_lead(body: str) -> str:
    """The line a notice is framed by: the lead, or for a comment that opens with a GitHub
    alert block the alert's first line of text; a heading mark or bold wrapping around it
    dropped. HTML is kept: a finding opening with a badge `<img>` never reads as a notice."""
    opening = lead(body)
    if _ALERT.fullmatch(opening):
        after = strip_html_comments(body[:LEAD_SCAN]).split("\n")
        start = next((i for i, line in enumerate(after) if line.strip() == opening), -1)
        quoted = [line.strip().lstrip(">").strip() for line in after[start + 1 :]]
        opening = next((line for line in quoted if line), "")
    text = _HEADING_MARK.sub("", opening)
    wrapped = _EMPHASIS_WRAP.match(text)
    return (wrapped.group("inner") + text[wrapped.end() :]) if wrapped else text


@dataclass(frozen=True)
class Notice:
    """One notice a bot frames its comment with, and the run state it means: `failed` (error,
    quota, credits, billing), `skipped` (sunset, plan, too many files, skip rules) or `noise` (a
    warning or an advertisement that reports nothing). `detail` empty: the bot's own first
    sentence is the detail shown. `no_budget`: a quota, credit, billing or plan stop — asking
    the bot again would not help (reviewcoord/rerequest.py reads the flag)."""

    pattern: re.Pattern[str]
    state: Literal["failed", "skipped", "noise"]
    reason: str
    detail: str = ""
    no_budget: bool = False


NOTICE_MAX = 160  # the sticky shows a bot's detail up to this many characters


def read_notice(body: str, notices: Sequence[Notice]) -> ParsedComment | None:
    """The state the first matching notice gives (matched at the start of `notice_lead`)."""
    text = notice_lead(body)
    for notice in notices:
        if notice.pattern.match(text):
            said = plain_text(text)
            own = said if len(said) <= NOTICE_MAX else first_sentence(said)
            detail = notice.detail.replace("{own}", first_sentence(said)) if notice.detail else own
            if notice.state == "failed":
                return failed(detail, notice.reason, no_budget=notice.no_budget)
            if notice.state == "skipped":
                return skipped(detail, notice.reason, no_budget=notice.no_budget)
            return noise(notice.reason)
    return None


UNREAD_LINE_MAX = 100
_UNREAD_WHAT = {"review": "a review", "review_comment": "an inline comment"}


def unread(bot: BotKey, comment: RawComment, why: str) -> ParsedComment:
    """A known bot's comment that no rule of its profile reads (a format change, a new notice):
    one state entry, never a finding. The bot is `unreadable` on the head it concerns — never
    `reviewed` — until a later readable signal of it there; the sticky quotes its first line,
    and the parse note links it. An unknown wording may be a failure notice or a finding in a
    new layout: loud, not guessed (docs/bot-formats.md § Unreadable bodies)."""
    own = plain_text(notice_lead(clean_body(comment.body))) or first_line(comment.body)
    said = clip(own, UNREAD_LINE_MAX).replace('"', "'")
    what = _UNREAD_WHAT.get(comment.endpoint, "a comment")
    quoted = f' "{said}"' if said else ""
    return ParsedComment(
        kind="noise",
        parse_note=f"no rule of this bot's profile reads it ({why})",
        reason="unread",
        detail=f"posted {what} this version cannot read:{quoted} (format changed?)",
        review_signal=False,
        unreadable=True,
    )
