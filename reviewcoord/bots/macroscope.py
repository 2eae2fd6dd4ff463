"""Macroscope (`macroscopeapp[bot]`): shapes are docs/bot-formats.md § Macroscope.

A finding is one inline comment opening with its level and place, `🟠 **High** `path:line``
(or 🟡 **Medium**), then a paragraph, optional "Also found in N other location(s)" and
"AI Prompt" folds. Macroscope never resolves a thread: it edits its own comment, prepending
`<!-- MURMUR_IGNORE -->` and appending a line "No longer relevant as of <sha>" or "✅ Resolved in
<sha>" — a withdrawal, which counts only if the edit is its own (reviewcoord/edits.py
`settle_withdrawals`: the comment's findings are kept aside, not dropped, until the judge knows
who edited it). Its "#### Approvability" comment is a verdict about who may approve, no finding.
Its check runs: "Macroscope - Correctness Check" (app `macroscopeapp`) is the review's state;
"Macroscope - Approvability Check" and custom check-run agents are not reviews of the diff.
"""

from __future__ import annotations

import re

from reviewcoord.bots.checks import Check, CheckView, Said, from_checks, kinds_of
from reviewcoord.bots.common import (
    clean_body,
    found,
    lead,
    noise,
    own_words,
    paragraph_finding,
)
from reviewcoord.bots.notices import unread
from reviewcoord.bots.profile import BotProfile
from reviewcoord.model import Finding, Level, ParsedComment, RawComment

KEY = "macroscope"
LOGINS: frozenset[str] = frozenset({"macroscopeapp[bot]"})

_HEAD = re.compile(
    r"^(?P<raw>(?:🟠|🟡)?[ \t]*\*\*(?P<word>High|Medium)\*\*)[ \t]+"
    r"`(?P<path>[^`\s]{1,500}?):(?P<line>\d{1,7})(?:[-–](?P<end>\d{1,7}))?`[ \t]*$",
)
# Its withdrawal by edit, a line of its own at the end of its comment.
_WITHDRAWN = re.compile(
    r"^[ \t]*(?P<words>(?:No longer relevant as of|✅[ \t]*Resolved in)[ \t]+`?[0-9a-f]{7,40}`?)"
    r"[ \t]*$",
    re.M,
)
_APPROVABILITY = re.compile(r"^#{1,6}[ \t]*Approvability[ \t]*$")
_TAIL = 600

# Its top tier seen is High (🟠): critical (docs/severity.md). A level it has not been seen
# writing in a real body (a "Critical", a "🔵 **Low**") is a layout not seen: the comment is
# unread, loudly.
SEVERITY: dict[str, Level] = {"high": "critical", "medium": "medium"}


def canonical_label(raw: str) -> str:
    """`🟠 **High**` → `high`: the label's word only."""
    word = re.search(r"High|Medium", raw, re.I)
    return word.group(0).casefold() if word else raw.strip().casefold()


def _finding(comment: RawComment, body: str, head: re.Match[str]) -> Finding:
    rest = body[body.find(head.group(0)) + len(head.group(0)) :].lstrip("\n")
    paragraph = rest.split("\n\n", 1)[0]
    end = head.group("end")
    stated = (head.group("path"), int(head.group("line")), int(end) if end else None)
    raw = head.group("raw").replace("**", "").strip()
    return paragraph_finding(KEY, comment, paragraph, raw, stated)


def _withdrawal(body: str) -> str:
    """Its edit's last line, when it withdraws the finding ("No longer relevant as of …")."""
    tail = own_words(body)[-_TAIL:]
    found_at = _WITHDRAWN.search(tail)
    return found_at.group("words") if found_at else ""


def parse(comment: RawComment) -> ParsedComment:
    body = clean_body(comment.body)
    if not body.strip():
        return noise("empty macroscope comment")
    opening = lead(body)
    head = _HEAD.match(opening)
    if head is not None and comment.endpoint != "issue_comment":
        finding = _finding(comment, body, head)
        words = _withdrawal(body)
        if words:
            return ParsedComment(
                kind="noise",
                reason="macroscope withdrew its finding by editing it",
                withdrawn=words,
                withdrawn_findings=(finding,),
            )
        return found([finding], "macroscope inline finding")
    if _APPROVABILITY.match(opening):
        return noise("macroscope approvability verdict")
    if comment.in_reply_to_id is not None:
        return noise("macroscope thread reply")
    return unread(KEY, comment, "unrecognised macroscope comment")


# "Macroscope - Correctness Check" (app `macroscopeapp`, id 900172; real runs of pingdotgg/t3code,
# July 2026): success "No issues identified (3 code objects reviewed)." → reviewed; neutral
# "1 issue identified (5 code objects reviewed)." → its comments are due (finishing); neutral
# "Macroscope encountered an error while reviewing `df9a3f1`." → failed; skipped "Review skipped
# — billing issue" → failed; skipped "No code objects were reviewed." → skipped.
_NO_ISSUES = re.compile(r"^No issues identified\b", re.I)
_ISSUES = re.compile(r"^\d{1,5} issues? identified\b", re.I)
_ERROR = re.compile(r"\bencountered an error\b", re.I)
_BILLING = re.compile(r"\bbilling\b", re.I)
_NOTHING = re.compile(r"^No code objects were reviewed\b", re.I)


def _correctness(view: CheckView) -> Said | None:
    title = view.title.strip()[:200]
    said = f"its check run says {title or view.conclusion}"
    if _NO_ISSUES.match(title) and view.conclusion == "success":
        return Said("reviewed", said, view.url, view.when)
    if _ISSUES.match(title) and view.conclusion in ("success", "neutral"):
        return Said("finishing", said, view.url)
    if _NOTHING.match(title) and not _BILLING.search(view.summary[:500]):
        return Said("skipped", said, view.url, view.when)
    if _ERROR.search(title) or _BILLING.search(title) or view.conclusion != "success":
        return Said("failed", said, view.url, view.when)
    return Said("finishing", said, view.url)


CHECKS = (Check("Macroscope - Correctness Check", "macroscopeapp", meaning=_correctness),)

PROFILE = BotProfile(
    key=KEY,
    display="Macroscope",
    logins=LOGINS,
    parse=parse,
    severity=SEVERITY,
    canonical_label=canonical_label,
    pack="fast",
    reads=kinds_of(*CHECKS),
    evidence=from_checks(*CHECKS),
)
