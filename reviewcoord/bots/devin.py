"""Devin Review (`devin-ai-integration[bot]`): shapes are docs/bot-formats.md § Devin Review.

A finding is one inline comment opening with its marker `<!-- devin-review-comment {"id":
"BUG_…", "file_path": …, "start_line": …, "end_line": …} -->`, then `🔴 **Title**` (a bug),
`🟡 **Title**` (a lesser bug) or `🚩 **Title**` (an analysis flag), prose, folds, a suggestion and
the "Open in Devin Review" badge. The marker's id is the finding's own id; its lines are the
place when the comment's anchor lacks them. The review that carries them says "**Devin Review**
found N (new) potential issue(s)." (a review of its commit; its count repeats the inline
findings, counted once, there), or "## ✅ Devin Review: No Issues Found" (clean); a round-1 body
it later prefixes with "**This report is out of date.**" is superseded, nothing more. "Starting
Devin Review." says it is working. Devin's coding agent, on the same login, opens with
"### 🤖 Devin AI Engineer": noise. Its check run "Devin Review" (app `devin-ai-integration`, also
seen as a commit status) says how a run ended.
"""

from __future__ import annotations

import json
import re

from reviewcoord.bots.checks import Check, finishing_or_failed, from_checks, kinds_of
from reviewcoord.bots.common import (
    clean_body,
    first_sentence,
    found,
    lead,
    location,
    make_finding,
    noise,
    opening_markers,
    plain_text,
    working,
)
from reviewcoord.bots.notices import notice_lead, unread
from reviewcoord.bots.profile import BotProfile
from reviewcoord.model import Level, ParsedComment, RawComment

KEY = "devin"
LOGINS: frozenset[str] = frozenset({"devin-ai-integration[bot]"})

_MARKER = "devin-review-comment"
_HEAD = re.compile(r"^(?P<raw>🔴|🟡|🚩)[ \t]*\*\*(?P<title>[^\n]{1,500}?)\*\*[ \t]*$")
_FOUND = re.compile(r"^\*\*Devin Review\*\* found (?P<n>\d{1,5}) (?:new )?potential issues?\.")
_CLEAN = re.compile(r"^(?:✅[ \t]*)?Devin Review: No Issues Found\b", re.I)
_OUTDATED = re.compile(r"^This report is out of date\.", re.I)
_STARTING = re.compile(r"^Starting Devin Review\.?$", re.I)
# Devin's coding agent posts from the same App login, opening with its own heading
# (N5_devin_tindocs1_agent): not a review — noise, and never a sign Devin Review runs here.
_AGENT = re.compile(r"^#{1,6}[ \t]*🤖[ \t]*Devin AI Engineer[ \t]*$")

# Its top tier is the red bug; a yellow bug is its second; a flag (🚩) asks a person to look,
# not to fix (docs/severity.md). Another mark is a layout not seen: unread, loudly.
SEVERITY: dict[str, Level] = {"🔴": "critical", "🟡": "medium", "🚩": "low"}


def canonical_label(raw: str) -> str:
    return raw.strip()


def _meta(body: str) -> dict[str, object]:
    """The JSON of its opening marker, or {} (a malformed one names nothing)."""
    for inner in opening_markers(body):
        if inner.startswith(_MARKER):
            try:
                data = json.loads(inner[len(_MARKER) :].strip()[:4000])
            except ValueError:
                return {}
            return data if isinstance(data, dict) else {}
    return {}


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _finding(comment: RawComment, body: str, head: re.Match[str]) -> ParsedComment:
    meta = _meta(body)
    path = meta.get("file_path")
    start, end = _int(meta.get("start_line")), _int(meta.get("end_line"))
    stated = (path if isinstance(path, str) else None, start, end)
    file, line, line_end = location(comment, *stated)
    rest = body[body.find(head.group(0)) + len(head.group(0)) :].lstrip("\n")
    native = meta.get("id")
    finding = make_finding(
        KEY,
        comment,
        title=head.group("title"),
        severity_raw=head.group("raw"),
        file=file,
        line=line,
        line_end=line_end,
        gist=first_sentence(rest),
        native_id=native if isinstance(native, str) and native else None,
    )
    return found([finding], "devin inline finding")


def parse(comment: RawComment) -> ParsedComment:
    body = clean_body(comment.body)
    if not body.strip():
        return noise("empty devin comment")
    opening = lead(body)
    head = _HEAD.match(opening)
    if head is not None and comment.endpoint == "review_comment":
        return _finding(comment, body, head)
    if comment.endpoint == "issue_comment" and _AGENT.match(opening):
        return noise("devin coding agent (not a review)")
    said = plain_text(notice_lead(body))
    if comment.endpoint == "review" and _FOUND.match(opening):
        return ParsedComment(kind="reviewed", reason="devin review (findings inline)")
    if comment.endpoint == "review" and _CLEAN.match(said):
        return ParsedComment(kind="clean", reason="devin review: no issues found")
    if _OUTDATED.match(said):
        return noise("devin review superseded by a later one")
    if _STARTING.match(said):
        return working("Devin Review started", "devin review started")
    if comment.in_reply_to_id is not None:
        return noise("devin thread reply")
    return unread(KEY, comment, "unrecognised devin comment")


# Its check run (or status) "Devin Review": in progress while it reviews; `success` — its review
# and comments follow (finishing); a failure says it could not review.
CHECKS = (
    Check("Devin Review", "devin-ai-integration", meaning=finishing_or_failed),
    Check("Devin Review", "devin-ai-integration", meaning=finishing_or_failed, status=True),
)

PROFILE = BotProfile(
    key=KEY,
    display="Devin Review",
    logins=LOGINS,
    parse=parse,
    severity=SEVERITY,
    canonical_label=canonical_label,
    pack="fast",
    reads=kinds_of(*CHECKS),
    evidence=from_checks(*CHECKS),
)
