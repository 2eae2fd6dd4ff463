"""CodeAnt AI (`codeant-ai[bot]`): shapes are docs/bot-formats.md § CodeAnt.

A finding is one inline comment: `**Suggestion:** <what is wrong>`, then an assessment line of
chips — `**Assessment:** 🟠 `Major` · 🔁 `Occurrence: Rarely` · 🏷️ `Incomplete implementation``
— whose first chip is the level (the others are kept as the gist's tags), then a "Prompt for AI
Agent" fold. Its run state is one issue comment edited in place, "## 🤖 CodeAnt AI — Review
Status": a table, and the machine-readable marker `<!-- codeant-review-status:[{"label": …,
"commit": "<40 hex>", "done": true}] -->` with one record per reviewed commit — the newest
record says whether it finished (`done`) and which commit, and only that binds it to a head.
"**Skipping CodeAnt AI review** - …" is a skip by design. Its review objects have empty bodies.
"""

from __future__ import annotations

import json
import re

from reviewcoord.bots.common import (
    clean_body,
    first_sentence,
    found,
    lead,
    noise,
    paragraph_finding,
    plain_text,
    skipped,
    working,
)
from reviewcoord.bots.notices import unread
from reviewcoord.bots.profile import BotProfile, Tracker, plain_label
from reviewcoord.model import Level, ParsedComment, RawComment

KEY = "codeant"
LOGINS: frozenset[str] = frozenset({"codeant-ai[bot]"})

_SUGGESTION = re.compile(r"^\*\*Suggestion:\*\*[ \t]*(?P<text>\S)")
_ASSESSMENT = re.compile(r"^\*\*Assessment:\*\*[ \t]*(?P<chips>[^\n]{1,400})$", re.M)
_CHIP = re.compile(r"`(?P<chip>[^`\n]{1,80})`")
_STATUS_HEADING = re.compile(r"^#{1,6}[ \t]*(?:🤖[ \t]*)?CodeAnt AI\b[^\n]{0,10}Review Status\b")
_STATUS_MARKER = "codeant-review-status:"
_MARKER_MAX = 20_000
_SKIPPING = re.compile(r"^Skipping CodeAnt AI review\b", re.I)
_SHA = re.compile(r"[0-9a-f]{40}")
_SCAN = 8000

# Its level as its first chip writes it: only `Major` is seen in a real body. Another chip (a
# `Critical` would be read as advisory if guessed), or none, is a layout not seen: the comment
# is unread, loudly — the bot `unreadable` on its head, never a quiet `medium`.
SEVERITY: dict[str, Level] = {"major": "medium"}


def _finding(comment: RawComment, body: str, opening: str) -> ParsedComment:
    match = _SUGGESTION.match(opening)
    assert match is not None
    paragraph = body[body.find(opening) + match.start("text") :].split("\n\n", 1)[0]
    assessment = _ASSESSMENT.search(body[:_SCAN])
    line = assessment.group("chips") if assessment else ""
    chips = [c.group("chip").strip() for c in _CHIP.finditer(line)]
    label = chips[0] if chips else None
    if label is None or plain_label(label) not in SEVERITY:
        seen = f"level chip `{label[:40]}`" if label else "no level chip"
        return unread(KEY, comment, f"codeant finding with {seen} (only `Major` seen)")
    gist = first_sentence(paragraph)
    if len(chips) > 1:
        gist = f"[{' · '.join(chips[1:])}] {gist}"
    finding = paragraph_finding(KEY, comment, paragraph, label, gist=gist)
    return found([finding], "codeant inline finding")


def _status(body: str) -> ParsedComment:
    """The newest record of its status marker: `done` → its review of that commit; not yet →
    working on it. A record that names no full commit binds to no head: noise."""
    at = body.find(_STATUS_MARKER)
    end = body.find("-->", at) if at >= 0 else -1
    text = body[at + len(_STATUS_MARKER) : end] if 0 <= end - at <= _MARKER_MAX else ""
    try:
        records = json.loads(text) if text.strip() else []
    except ValueError:
        records = []
    record = records[-1] if isinstance(records, list) and records else None
    if not isinstance(record, dict):
        return noise("codeant review status without a record")
    commit = record.get("commit")
    if not isinstance(commit, str) or not _SHA.fullmatch(commit):
        return noise("codeant review status naming no commit")
    label = str(record.get("label", ""))[:80]
    if record.get("done") is True:
        return ParsedComment(
            kind="reviewed", reason="codeant review status: done", reviewed_commit=commit
        )
    return working(label or "reviewing", "codeant review status: running", commit)


def parse(comment: RawComment) -> ParsedComment:
    body = clean_body(comment.body)
    if not body.strip():
        return noise("empty codeant comment")
    opening = lead(body)
    if _SUGGESTION.match(opening) and comment.endpoint == "review_comment":
        return _finding(comment, body, opening)
    if _STATUS_HEADING.match(opening):  # its heading opens it: framing, not a phrase
        return _status(body)
    plain = plain_text(opening)
    if _SKIPPING.match(plain):
        return skipped(first_sentence(plain), "codeant skipped the review")
    if comment.in_reply_to_id is not None:
        return noise("codeant thread reply")
    return unread(KEY, comment, "unrecognised codeant comment")


PROFILE = BotProfile(
    key=KEY,
    display="CodeAnt",
    logins=LOGINS,
    parse=parse,
    severity=SEVERITY,
    canonical_label=plain_label,
    pack="fast",
    # Its status comment, edited in place: at work while no record of its marker says done
    # (the parser's own reading, `_status`); the edit that finishes a record judges again.
    tracker=Tracker(working=(_STATUS_MARKER,), done=('"done":true',)),
)
