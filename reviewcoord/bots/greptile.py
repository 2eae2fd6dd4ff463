"""Greptile (`greptile-apps[bot]`): shapes are docs/bot-formats.md §13.

A finding is one inline comment opening with a severity badge
`<a href="#"><img alt="P1" src="…greptile…/badges/p1.svg…"></a>` and a title (bold or not).
Further badges (`<img alt="security" …>`) are tags: they stay out of the title and are named at
the start of the gist ("[security] …"). The line range, when the anchor lacks it, comes from the
"Fix in Codex" deeplink, which URL-encodes `Path: …` and `Line: 255-256`. Review objects carry
an empty body (noise); the summary issue comment is no finding: its footer's
"Last reviewed commit: […](…/commit/<40hex>)" is the done signal for that commit (`reviewed`).
A reply of Greptile's in its own thread that withdraws its finding ("I'm withdrawing this
finding") is `noise` that `withdraws` the comment it replies to: ingest drops that comment's
findings and says so in a parse note.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

from reviewcoord.bots.checks import Check, CheckView, Said, from_checks, kinds_of
from reviewcoord.bots.common import (
    clean_body,
    first_sentence,
    found,
    lead,
    location,
    make_finding,
    noise,
    opening_markers,
    own_words,
    plain_text,
)
from reviewcoord.bots.notices import Notice, read_notice, unread
from reviewcoord.bots.profile import BotProfile
from reviewcoord.model import ParsedComment, RawComment

KEY = "greptile"
LOGINS: frozenset[str] = frozenset({"greptile-apps[bot]"})
# Its documented trigger comment (docs/bot-formats.md § Re-requesting).
TRIGGER = "@greptileai"
REREQUEST = f"re-request with `{TRIGGER}`"

# Notices by Greptile's first line (after its `<!-- greptile-status -->` marker), FORMATS-2026 §9.
NOTICES = (
    Notice(
        re.compile(
            r"`?@?[\w.-]{1,60}`?[ \t]+has reached the \d{1,7}-(?:credit|review) limit for trial",
            re.I,
        ),
        "failed",
        "greptile trial credit limit",
        no_budget=True,
    ),
    Notice(
        re.compile(r"Your (?:free )?trial has (?:ended|expired)", re.I),
        "failed",
        "greptile trial",
        no_budget=True,
    ),
    Notice(
        re.compile(r"Too many files changed for review", re.I), "skipped", "greptile file limit"
    ),
    Notice(re.compile(r"No reviewable files\b", re.I), "skipped", "greptile: no reviewable files"),
    Notice(
        re.compile(r"Want your agent to iterate on Greptile['’]s feedback\?", re.I),
        "noise",
        "greptile advertisement (greploops)",
    ),
)
_IMG = re.compile(r"<img\b(?P<attrs>[^<>]{0,1000})>", re.I)
_ALT = re.compile(r"""\balt=["'](?P<alt>[^"'<>]{1,60})["']""", re.I)
_SEVERITY = re.compile(r"^P[0-3]$", re.I)
# The badges' wrapper: `<a href="#">…</a>` around each image.
_BADGE_RUN = re.compile(
    r"^(?:[ \t]*(?:<a\b[^<>]{0,500}>)?[ \t]*<img\b[^<>]{0,1000}>[ \t]*(?:</a>)?)+", re.I
)
_DEEPLINK = re.compile(r"chatgpt\.com/codex/deeplink\?prompt=(?P<prompt>[^\s\"'<>)]{1,20000})")
_PROMPT_PATH = re.compile(r"^Path:[ \t]*(?P<path>[^\n]{1,1000})$", re.M)
_PROMPT_LINE = re.compile(
    r"^Line:[ \t]*(?P<start>\d{1,7})(?:[ \t]*[-–][ \t]*(?P<end>\d{1,7}))?", re.M
)
_LAST_REVIEWED = re.compile(
    r"Last reviewed commit:[ \t]*\[[^\]\n]{0,500}\]\(https?://[^)\s]{0,500}/commit/"
    r"(?P<sha>[0-9a-fA-F]{40})\)",
    re.I,
)
_SUMMARY = re.compile(
    r"<!--[ \t]*greptile_summary[ \t]*-->|Greptile Summary|Confidence Score:[ \t]*\d", re.I
)
# A withdrawal counts only as Greptile affirms it, in its own words: "I" right before the verb
# ("I'm withdrawing this finding", "I withdraw my comment") or a clause that opens with it
# ("Withdrawing this finding."), with no negation earlier in the clause, outside code and
# quotes. "I will not withdraw this finding" withdraws nothing.
_WITHDRAW = re.compile(
    r"(?:\bI(?:['’]m| am| will| ['’]ll|['’]ll)?(?:[ \t]+(?:hereby|now|be))?[ \t]+"
    r"withdraw(?:ing)?|(?:^|(?<=[.!?;:—–-])[ \t]*)Withdrawing)"
    r"[ \t]+(?:this|my|the)[ \t]+(?:finding|comment|concern)\b",
    re.I | re.M,
)
_WITHDRAW_WORD = re.compile(r"\bwithdraw", re.I)
_NEGATION = re.compile(r"\b(?:not|no|never|nor|cannot)\b|n['’]t\b", re.I)
_CLAUSE_END = re.compile(r"[.!?;\n]")
_QUOTED = re.compile(r"\"[^\"\n]{0,500}\"|“[^”\n]{0,500}”")


def _prose(body: str) -> str:
    """The reply's own words: no fenced code, block quotes, code spans or quoted strings."""
    return _QUOTED.sub(" ", own_words(body[:5000]))


def withdrawal(body: str) -> bool | None:
    """True: an affirmative withdrawal; False: withdrawal wording that is not one (negated,
    quoted); None: no such wording."""
    text = _prose(body)
    for match in _WITHDRAW.finditer(text):
        starts = [m.end() for m in _CLAUSE_END.finditer(text, 0, match.start())]
        clause = text[starts[-1] if starts else 0 : match.start()]
        if not _NEGATION.search(clause):
            return True
    return False if _WITHDRAW_WORD.search(body[:5000]) else None


def _badges(body: str) -> tuple[str | None, list[str], int]:
    """(severity label, other badge alts, end of the badge run) of a body opening with badges."""
    run = _BADGE_RUN.match(body)
    if run is None:
        return None, [], 0
    severity: str | None = None
    tags: list[str] = []
    for img in _IMG.finditer(run.group(0)):
        attrs = img.group("attrs")
        alt = _ALT.search(attrs)
        if alt is None or "greptile" not in attrs.casefold():
            continue
        label = alt.group("alt").strip()
        if severity is None and _SEVERITY.match(label):
            severity = label.upper()
        else:
            tags.append(label)
    return severity, tags, run.end()


def _deeplink_location(body: str) -> tuple[str | None, int | None, int | None]:
    match = _DEEPLINK.search(body)
    if match is None:
        return None, None, None
    prompt = unquote(match.group("prompt").replace("&amp;", "&").split("&", 1)[0])
    path = _PROMPT_PATH.search(prompt)
    line = _PROMPT_LINE.search(prompt)
    if line is None:
        return (path.group("path").strip() if path else None), None, None
    end = line.group("end")
    return (
        path.group("path").strip() if path else None,
        int(line.group("start")),
        int(end) if end else None,
    )


def _finding(
    comment: RawComment, body: str, severity: str, tags: list[str], at: int
) -> ParsedComment:
    rest = body[at:]
    first, _, after = rest.lstrip(" \t").partition("\n")
    title = plain_text(first) or first_sentence(after)
    explanation = after if plain_text(first) else rest
    gist = first_sentence(explanation)
    if tags:
        gist = " ".join(f"[{tag.casefold()}]" for tag in tags) + " " + gist
    file, line, line_end = location(comment, *_deeplink_location(body))
    finding = make_finding(
        KEY,
        comment,
        title=title,
        severity_raw=severity,
        file=file,
        line=line,
        line_end=line_end,
        gist=gist,
    )
    return found([finding], "greptile finding")


def parse(comment: RawComment) -> ParsedComment:
    body = clean_body(comment.body)
    if not body.strip():
        return noise("empty greptile review body")
    stripped = body.lstrip()
    severity, tags, at = _badges(stripped)
    if severity is not None:
        return _finding(comment, stripped, severity, tags, at)
    notice = read_notice(body, NOTICES)
    if notice is not None:
        return notice
    # The summary by its framing (its opening marker or heading), never by a phrase.
    framed = any("greptile_summary" in m for m in opening_markers(body))
    if framed or _SUMMARY.search(lead(body)):
        last = _LAST_REVIEWED.search(body)
        if last is not None:
            return ParsedComment(
                kind="reviewed",
                reason="greptile summary: last reviewed commit",
                reviewed_commit=last.group("sha").lower(),
            )
        return noise("greptile summary")
    if comment.in_reply_to_id is not None:
        withdrawn = withdrawal(body)
        if withdrawn:
            return ParsedComment(
                kind="noise",
                reason="greptile withdrew its finding",
                withdraws=comment.in_reply_to_id,
            )
        if withdrawn is False:
            return ParsedComment(
                kind="noise",
                reason="greptile thread reply",
                parse_note="a reply that speaks of withdrawing but withdraws nothing; kept",
            )
        return noise("greptile thread reply")
    return unread(KEY, comment, "unrecognised greptile comment")


# Its check run `Greptile Review` (app `greptile-apps`): in progress while it works; completed
# with the summary "Greptile has reviewed the Pull Request. N files reviewed, M comments added."
# (`failure` titled "Confidence 3/5 — below your required 5/5" when a threshold is set). With
# 0 comments added the check is the whole review (docs/bot-formats.md § Reviewers' own checks).
_ADDED = re.compile(r"\b(\d{1,6}) comments? added\b")
_CONFIDENCE = re.compile(r"^\s{0,4}Confidence \d{1,2}/\d{1,2}\b")


def _greptile_check(view: CheckView) -> Said | None:
    reviewed = view.conclusion == "success" or (
        view.conclusion == "failure" and _CONFIDENCE.match(view.title[:200]) is not None
    )
    if not reviewed:
        why = f": {view.title[:200]}" if view.title else ""
        return Said("failed", f"its check run ended {view.conclusion}{why}", view.url, view.when)
    added = _ADDED.search(view.summary[:2000])
    if added is not None and int(added.group(1)) == 0:
        detail = "its check run `Greptile Review`: reviewed, 0 comments added"
        return Said("reviewed", detail, view.url, view.when)
    return Said("finishing", "its check run `Greptile Review` says comments were added", view.url)


CHECKS = (Check("Greptile Review", "greptile-apps", meaning=_greptile_check),)


PROFILE = BotProfile(
    key=KEY,
    display="Greptile",
    logins=LOGINS,
    parse=parse,
    severity={"p0": "critical", "p1": "medium", "p2": "low", "p3": "low"},
    pack="fast",
    rerequest=REREQUEST,
    trigger=TRIGGER,
    reads=kinds_of(*CHECKS),
    evidence=from_checks(*CHECKS),
)
