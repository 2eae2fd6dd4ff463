"""Qodo (`qodo-code-review[bot]`): shapes are docs/bot-formats.md §14.

One "Code Review by Qodo" issue comment (`<h3>Code Review by Qodo</h3>`) holds every finding,
grouped: a shields badge `<img src="https://img.shields.io/badge/High-…" alt="Action required">`
heads a group and every numbered `<details><summary>  1.  Title <code>🐞 Bug</code> …</summary>`
below it inherits it until the next badge. Closed items (`<s>Title</s>` with `✓ Resolved` /
`✗ Dismissed`) are not findings. A finding's file (and line range) is its first
`<code>[path[R37-40]](…)</code>` reference; the reviewed commit is only in the trailing
`<!-- https://github.com/<o>/<r>/commit/<sha> -->`. The comment is a done signal: `finding`
with open items, else `reviewed`. The separate "PR Summary by Qodo" comment is noise.

Levels come from the group badge's ALT text whatever its word (docs/severity.md):
`severity_raw` is the badge word as written (`High`), unless the word is unknown or its level
disagrees with the alt's — then it is the alt text, so the alt always decides.
"""

from __future__ import annotations

import re

from reviewcoord.bots.common import (
    clean_body,
    first_sentence,
    found,
    lead,
    location,
    make_finding,
    noise,
    plain_text,
)
from reviewcoord.bots.notices import Notice, read_notice, unread
from reviewcoord.bots.profile import BotProfile, plain_label
from reviewcoord.model import Finding, Level, ParsedComment, RawComment

KEY = "qodo"
LOGINS: frozenset[str] = frozenset({"qodo-code-review[bot]"})
# Its documented trigger comment (docs/bot-formats.md § Re-requesting).
TRIGGER = "/review"
REREQUEST = f"re-request with `{TRIGGER}`"

# Qodo's notices by their first line (FORMATS-2026 §9): paused reviews (subscription, trial,
# credits, seat) are a billing failure; the monthly-quota note is a warning that reports nothing.
NOTICES = (
    # Autumn 2026 (N5_qodo_billing_blocked): `<!-- qodo:billing-blocked -->`, then the line
    # in bold, opening with "ⓘ ". Billing, like a credit limit: `failed` (docs/bot-formats.md
    # § Qodo) — never `skipped`, which is a refusal by design that no payment changes.
    Notice(
        re.compile(r"(?:ⓘ[ \t]*)?Qodo reviews are paused\b", re.I),
        "failed",
        "qodo reviews paused",
        no_budget=True,
    ),
    Notice(
        re.compile(r"(?:ⓘ[ \t]*)?You are approaching your monthly quota for Qodo", re.I),
        "noise",
        "qodo quota warning",
    ),
    Notice(
        re.compile(r"Qodo Merge has reached your monthly usage limit", re.I),
        "failed",
        "qodo monthly usage limit",
        no_budget=True,
    ),
)
_REVIEW_HEADING = re.compile(r"<h3>[ \t]{0,10}Code Review by Qodo[ \t]{0,10}</h3>", re.I)
_SUMMARY_HEADING = re.compile(r"<h3>[ \t]{0,10}PR Summary by Qodo[ \t]{0,10}</h3>", re.I)
# Where the findings end: the "Context" fold, the tip of the day, or the trailing commit.
_TAIL = re.compile(
    r"<details>[ \t\n]{0,20}<summary>[ \t]{0,10}<strong>[ \t]{0,10}Context[ \t]{0,10}</strong>"
    r"|<!--[ \t]{0,10}qodo-daily-tip:start",
    re.I,
)
# One token of the findings region: an <img> tag (a badge, or a divider) or a <summary>.
# A summary's end is found with str.find (one pending `</summary>` position, so a body of many
# unclosed `<summary>` tags stays linear).
_TOKEN = re.compile(r"<img\b(?P<img>[^<>]{0,2000})>|(?P<summary><summary>)", re.I)
_SUMMARY_MAX = 3000
_CLOSE = "</summary>"
_BADGE_WORD = re.compile(r"""src=["']https?://img\.shields\.io/badge/(?P<word>[^"'<>/?-]{1,60})-""")
_ALT = re.compile(r"""\balt=["'](?P<alt>[^"'<>]{0,200})["']""", re.I)
_NUMBERED = re.compile(r"^\s{0,20}(?P<num>\d{1,4})\.\s")
_CLOSED = re.compile(r"<s>|✓[ \t]{0,5}Resolved|✗[ \t]{0,5}Dismissed", re.I)
# `<code>[internal/api/runs.go[R74-79]](https://…)</code>`: path, then an optional R/L side.
_FILE_REF = re.compile(
    r"<code>\[(?P<path>[^\[\]\s<>]{1,1000})\[[RL]?(?P<start>\d{1,7})(?:-[RL]?(?P<end>\d{1,7}))?\]\]\("
)
_DESCRIPTION = re.compile(r"<summary>[ \t]{0,10}Description[ \t]{0,10}</summary>", re.I)
_COMMIT = re.compile(
    r"<!--[ \t\n]{0,20}https?://github\.com/[^\s/<>]{1,200}/[^\s/<>]{1,200}/commit/"
    r"(?P<sha>[0-9a-fA-F]{7,40})[ \t\n]{0,20}-->"
)
# Header counts of OPEN findings: `<code>🐞 Bugs (2)</code>`.
_COUNT = re.compile(r"<code>[^<>()]{1,80}\((?P<n>\d{1,6})\)</code>")

SEVERITY: dict[str, Level] = {
    # The alt texts (what decides).
    "action required": "critical",
    "remediation recommended": "medium",
    "review recommended": "medium",
    "informational": "low",
    # The badge words seen with them (docs/bot-formats.md §14, §18).
    "critical": "critical",
    "high": "critical",
    "medium": "medium",
    "warning": "medium",
    "low": "low",
}


def _raw_label(word: str | None, alt: str | None) -> str | None:
    """The badge word, unless the alt says otherwise (the alt's level always wins)."""
    alt_level = SEVERITY.get(plain_label(alt)) if alt else None
    if word and (alt_level is None or SEVERITY.get(plain_label(word)) == alt_level):
        return word
    return alt.strip() if alt and alt.strip() else (word or None)


def _commit(body: str) -> str | None:
    sha = None
    for match in _COMMIT.finditer(body):
        sha = match.group("sha").lower()
    return sha


def _gist(segment: str) -> str:
    at = _DESCRIPTION.search(segment)
    if at is None:
        return ""
    text = segment[at.end() : at.end() + 20_000]
    stop = text.find("</details>")
    text = text[:stop] if stop >= 0 else text
    lines = [line.lstrip().removeprefix(">") for line in text.splitlines()]
    return first_sentence("\n".join(line for line in lines if line.strip()))


def _title(summary: str) -> str:
    head = summary
    cut = head.find("<code>")
    if cut >= 0:
        head = head[:cut]
    return _NUMBERED.sub("", plain_text(head) + " ", count=1).strip()


def _findings(comment: RawComment, region: str, commit: str | None) -> list[Finding]:
    # Numbered items with the label of the badge above them; a segment runs to the next token
    # that is a numbered item or a badge.
    items: list[tuple[str, str | None, int, int]] = []  # (summary, raw label, start, end)
    word: str | None = None
    alt: str | None = None
    close = -1
    for match in _TOKEN.finditer(region):
        img = match.group("img")
        if img is not None:
            badge = _BADGE_WORD.search(img)
            if badge is None:
                continue  # a divider or a logo
            alt_match = _ALT.search(img)
            word, alt = badge.group("word"), alt_match.group("alt") if alt_match else None
            if items and items[-1][3] < 0:
                items[-1] = (*items[-1][:3], match.start())
            continue
        if close < match.end():
            close = region.find(_CLOSE, match.end())
            if close < 0:
                break  # no summary closes after here
        if close - match.end() > _SUMMARY_MAX:
            continue
        summary = region[match.end() : close]
        if not _NUMBERED.match(plain_text(summary) + " "):
            continue
        if items and items[-1][3] < 0:
            items[-1] = (*items[-1][:3], match.start())
        items.append((summary, _raw_label(word, alt), close + len(_CLOSE), -1))
    findings: list[Finding] = []
    for summary, raw, start, end in items:
        if _CLOSED.search(summary):
            continue
        segment = region[start : end if end >= 0 else len(region)]
        ref = _FILE_REF.search(segment)
        stated: tuple[str | None, int | None, int | None] = (None, None, None)
        if ref:
            stop = ref.group("end")
            stated = (ref.group("path"), int(ref.group("start")), int(stop) if stop else None)
        file, line, line_end = location(comment, *stated)
        findings.append(
            make_finding(
                KEY,
                comment,
                title=_title(summary),
                severity_raw=raw,
                file=file,
                line=line,
                line_end=line_end,
                gist=_gist(segment),
                reviewed_commit=commit,
            )
        )
    return findings


def _open_count(region: str) -> int:
    """The header's count of open findings (before the first badge or item)."""
    head = region[:4000]
    first = _TOKEN.search(head)
    return sum(int(m.group("n")) for m in _COUNT.finditer(head[: first.start()] if first else head))


def parse(comment: RawComment) -> ParsedComment:
    body = clean_body(comment.body)
    if not body.strip():
        return noise("empty qodo comment")
    # The review by its heading as Qodo opens it (framing), never a heading quoted further down.
    heading = _REVIEW_HEADING.search(body) if _REVIEW_HEADING.match(lead(body)) else None
    if heading is None:
        notice = read_notice(body, NOTICES)
        if notice is not None:
            return notice
        if _SUMMARY_HEADING.search(lead(body)):  # its heading opens it: framing, not a phrase
            return noise("qodo PR summary")
        return unread(KEY, comment, "unrecognised qodo comment")
    commit = _commit(body)
    region = body[heading.end() :]
    tail = _TAIL.search(region)
    if tail is not None:
        region = region[: tail.start()]
    findings = _findings(comment, region, commit)
    if findings:
        return found(findings, "qodo code review", commit)
    if _open_count(region) > 0:
        # The header counts open findings we could not read: keep the comment, loudly.
        return unread(KEY, comment, "qodo header counts open findings none parsed")
    return ParsedComment(
        kind="reviewed", reason="qodo code review, no open findings", reviewed_commit=commit
    )


PROFILE = BotProfile(
    key=KEY,
    display="Qodo",
    logins=LOGINS,
    parse=parse,
    severity=SEVERITY,
    pack="fast",
    rerequest=REREQUEST,
    trigger=TRIGGER,
)
