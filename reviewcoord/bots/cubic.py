"""cubic (`cubic-dev-ai[bot]`): shapes are docs/bot-formats.md § cubic.

A finding is one inline comment: cubic's markers (`<!-- cubic:v=… -->`, `<!-- cubic:review-run=…
-->`, `<!-- metadata:{"confidence":N} -->`), then one paragraph opening with a bare `P0:`–`P3:`
label, then a fenced "Prompt for AI agents" fold and a "Fix with cubic" button. The review body
— `**N issues found** across M files` between `<!-- cubic:review-summary:start -->` and
`…:end -->`, sometimes after "**Ultrareview** completed in …" — is the done signal for its
commit, never a finding: it repeats every inline finding inside a fenced agent prompt
(`<violation … location="path:line">P1: …</violation>`), counted once, inline. Its clean review
opens with the line `**No issues found** across M file(s)` (N5_cubic_universal13_clean): clean.
A summary in another layout is unread, loudly. Its check run "cubic · AI code reviewer" (app
`cubic-dev-ai`) says when it works.
"""

from __future__ import annotations

import re

from reviewcoord.bots.checks import (
    Check,
    CheckView,
    Said,
    finishing_or_failed,
    from_checks,
    kinds_of,
)
from reviewcoord.bots.common import (
    clean_body,
    found,
    lead,
    noise,
    opening_markers,
    paragraph_finding,
)
from reviewcoord.bots.notices import unread
from reviewcoord.bots.profile import BotProfile
from reviewcoord.model import Level, ParsedComment, RawComment

KEY = "cubic"
LOGINS: frozenset[str] = frozenset({"cubic-dev-ai[bot]"})

_LABEL = re.compile(r"^(?P<label>P[0-3]):[ \t]+(?P<text>\S)")
_SUMMARY_START = "cubic:review-summary:start"
_COUNT = re.compile(r"\*\*(?P<n>[1-9]\d{0,5}) issues? found\*\*", re.I)
# Its clean review's first line, exactly as written (N5_cubic_universal13_clean).
_CLEAN = re.compile(r"^\*\*No issues found\*\* across \d{1,6} files?$")
_SCAN = 6000

# Its top tier is P0; P1 is a second "high" tier below it (docs/severity.md: round down).
SEVERITY: dict[str, Level] = {"p0": "critical", "p1": "medium", "p2": "medium", "p3": "low"}


def _finding(comment: RawComment, opening: str, body: str) -> ParsedComment:
    label = _LABEL.match(opening)
    assert label is not None
    paragraph = body[body.find(opening) + label.start("text") :].split("\n\n", 1)[0]
    finding = paragraph_finding(KEY, comment, paragraph, label.group("label"))
    return found([finding], "cubic inline finding")


def _review(comment: RawComment, body: str) -> ParsedComment:
    """The review summary: a done signal for the review's commit (ingest ties it to the head)."""
    if _COUNT.search(body[:_SCAN]) is None:
        return unread(KEY, comment, "cubic review summary in an unknown layout")
    return ParsedComment(kind="reviewed", reason="cubic review summary (findings inline)")


def parse(comment: RawComment) -> ParsedComment:
    body = clean_body(comment.body)
    if not body.strip():
        return noise("empty cubic comment")
    opening = lead(body)
    if _LABEL.match(opening) and comment.endpoint != "issue_comment":
        return _finding(comment, opening, body)
    if comment.endpoint == "review" and _CLEAN.match(opening):
        return ParsedComment(kind="clean", reason="cubic review: no issues found")
    if comment.endpoint == "review" and _SUMMARY_START in body[:_SCAN]:
        # Framed by cubic's own marker (only cubic writes its reviews), read by its count.
        return _review(comment, body)
    if comment.in_reply_to_id is not None:
        return noise("cubic thread reply")
    if any(m.startswith("cubic:") for m in opening_markers(body)):
        return unread(KEY, comment, "cubic comment in an unknown layout")
    return unread(KEY, comment, "unrecognised cubic comment")


# Its check run "cubic · AI code reviewer" (app `cubic-dev-ai`): in progress while it reviews;
# completed `success` ("AI review completed", with or without findings) or `neutral` (seen with
# no findings): its review follows — finishing. No skipped or failed run of it was found: any
# other conclusion reads as `failed`, in its own words (never as a quiet skip).
def _cubic_check(view: CheckView) -> Said | None:
    return finishing_or_failed(view, "check run")


CHECKS = (Check("cubic · AI code reviewer", "cubic-dev-ai", meaning=_cubic_check),)

PROFILE = BotProfile(
    key=KEY,
    display="cubic",
    logins=LOGINS,
    parse=parse,
    severity=SEVERITY,
    # Its check runs take minutes (7m16s seen on one PR; an "Ultrareview" 24m58s): waited for
    # like Codex, up to the full timeout.
    pack="slow",
    reads=kinds_of(*CHECKS),
    evidence=from_checks(*CHECKS),
)
