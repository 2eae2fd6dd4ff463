"""CodeRabbit's findings (docs/bot-formats.md §11, § CodeRabbit, late 2026 and 2026-Q4): an inline
comment opening with its header line, and the items a review body carries without a thread.

The header has two to five `_field_`s: `_⚠️ Potential issue_ | _🟠 Major_`, and since autumn 2026
category | severity | effort — `_🔒 Security & Privacy_ | _🔴 Critical_ | _🏗️ Heavy lift_`, with
an optional `_🛡️ Detected with Advanced Tier_`. The level is the field that names a severity
(🔴 Critical, 🟠 Major, 🟡 Minor, 🔵 Trivial; a `_🧹 Nitpick_` type alone); the other fields
(category, effort, tier) are kept as the gist's tags, never as a severity. The title is the bold
line after the header outside every `<details>` fold.

A review body's items sit under per-file `<summary>path (n)</summary>` groups of its
`🧹 Nitpick comments` and `⚠️ Outside diff range comments` folds: `` `39-40`: **Title** ``, or
`` `7-7`: _🎯 Functional Correctness_ | _🔵 Trivial_ | _⚡ Quick win_ `` with the title on a
later line; the late-2026 outside-diff fold summarises an item in one line,
`<summary><em>🟡 Minor</em> · title · <code>path:295-299</code></summary>`.
"""

from __future__ import annotations

import re

from reviewcoord.bots.common import (
    first_line,
    first_sentence,
    location,
    make_finding,
    marked_lines,
    plain_text,
)
from reviewcoord.model import Finding, RawComment

KEY = "coderabbit"
HEADER = re.compile(
    r"^[ \t]{0,3}_[^_\n]{1,80}_(?:[ \t]{0,4}\|[ \t]{0,4}_[^_\n]{1,80}_){1,4}[ \t]*$", re.M
)
_FIELD = re.compile(r"_(?P<field>[^_\n]{1,80})_")
# The severity vocabulary, wherever the field stands (effort tags carry none of these words).
_SEVERITY_WORD = re.compile(r"(?<![A-Za-z])(?:Critical|Major|Minor|Trivial)(?![A-Za-z])")
_NITPICK_WORD = re.compile(r"(?<![A-Za-z])Nitpick(?![A-Za-z])")
_TAG_WORDS = re.compile(r"[^\w&.,:/+()' -]+")
HEAD_LIMIT = 4000
NITPICK_LABEL = "🧹 Nitpick"

_SUMMARY_TAG = re.compile(
    r"<summary>(?P<text>[^<>\n]{1,500}?)(?:[ \t]\((?P<count>\d{1,6})\))?</summary>"
)
_RANGE_TICKS = r"`(?P<start>\d{1,7})(?:[ \t]{0,2}[-–][ \t]{0,2}(?P<end>\d{1,7}))?`:[ \t]{0,4}"
# `` `39-40`: **Title** ``, or `` `7-7`: _…_ | _🔵 Trivial_ | _…_ `` (title on a later line).
ITEM = re.compile(
    r"^[ \t>]{0,20}" + _RANGE_TICKS + r"(?:\*\*(?P<title>[^\n]{1,500}?)\*\*"
    r"|(?P<header>_[^_\n]{1,80}_(?:[ \t]{0,4}\|[ \t]{0,4}_[^_\n]{1,80}_){1,4})[ \t]*$)",
    re.M,
)
FOLD_ITEM = re.compile(
    r"<summary>[ \t]{0,4}<em>(?P<level>[^<>\n]{1,60})</em>[ \t]{0,4}·[ \t]{0,4}"
    r"(?P<title>[^\n]{1,600}?)[ \t]{0,4}·[ \t]{0,4}<code>(?P<path>[^<>\s]{1,500}?):"
    r"(?P<start>\d{1,7})(?:[ \t]{0,2}[-–][ \t]{0,2}(?P<end>\d{1,7}))?</code>[ \t]{0,4}</summary>"
)
_PATH_START = re.compile(r"[A-Za-z0-9._/~@+-]")
QUOTE_PREFIX = re.compile(r"^[ \t]{0,8}(?:>[ \t]{0,4}){0,8}(?:#{1,6}[ \t]{1,4})?", re.M)


def _fields(header: str) -> list[str]:
    return [m.group(0) for m in _FIELD.finditer(header)]


def severity_field(text: str) -> str | None:
    """The raw severity of a header line in `text`'s opening (`_🟠 Major_`), else None."""
    header = HEADER.search(text[:HEAD_LIMIT])
    return _severity_of(header.group(0)) if header else None


def _severity_of(header: str) -> str | None:
    fields = _fields(header)
    for raw in fields:
        if _SEVERITY_WORD.search(raw):
            return raw
    for raw in fields:  # no severity word: a `_🧹 Nitpick_` type alone is the label
        if _NITPICK_WORD.search(raw):
            return raw
    return None


def tagged(gist: str, header: str) -> str:
    """The gist led by the header's other fields, as words (`[Security & Privacy · Quick win]`):
    category, effort and tier are detail a reader weighs, never a severity."""
    label = _severity_of(header)
    tags = [_TAG_WORDS.sub("", raw.strip("_")).strip() for raw in _fields(header) if raw != label]
    words = [t for t in tags if t]
    return f"[{' · '.join(words)}] {gist}" if words else gist


_DETAILS_OPEN = re.compile(r"<details\b", re.I)
_DETAILS_CLOSE = re.compile(r"</details>", re.I)
_TITLE_SCAN = 60_000
# `**Title.**` alone on its line, or leading it (`**Title.** More of the explanation.`).
_LEAD_TITLE = re.compile(r"[ \t]{0,3}\*\*(?P<title>[^*\n]{1,500}?)\*\*(?=[ \t]|$)")


def title_of(rest: str) -> tuple[str, str]:
    """(title, explanation) after the header: the finding's own bold title line — the first
    one outside every `<details>` fold and fence (a fold's summary such as `🧩 Analysis chain`,
    or a bold line inside it, is never the title) — else its first line of prose there."""
    depth = 0
    offset = 0
    prose: tuple[str, int] | None = None
    for line, quoted in marked_lines(rest[:_TITLE_SCAN]):
        offset += len(line) + 1
        opened = len(_DETAILS_OPEN.findall(line))
        if depth == 0 and not opened and not quoted:
            bold = _LEAD_TITLE.match(line)
            if bold is not None:
                return bold.group("title").strip(), line[bold.end() :] + "\n" + rest[offset:]
            if prose is None and plain_text(line):
                prose = (line, offset)
        depth = max(0, depth + opened - len(_DETAILS_CLOSE.findall(line)))
    if prose is not None:
        return first_line(prose[0]), rest[prose[1] :]
    return first_line(rest), rest


def inline_finding(comment: RawComment, body: str) -> Finding | None:
    """An inline comment opening with its header line, else None."""
    header = HEADER.search(body[:HEAD_LIMIT])
    if header is None:
        return None
    title, explanation = title_of(body[header.end() :])
    file, line, line_end = location(comment)
    return make_finding(
        KEY,
        comment,
        title=title or first_line(body),
        severity_raw=_severity_of(header.group(0)),
        file=file,
        line=line,
        line_end=line_end,
        gist=tagged(first_sentence(explanation), header.group(0)),
    )


def _section(text: str) -> str | None:
    """The kind of fold a `<summary>` opens: "nitpick", "outside", another section ("other"),
    or None for a per-file group (its text is the path)."""
    if _PATH_START.match(text) and not text.casefold().endswith("comments"):
        return None
    folded = text.casefold()
    if "nitpick comments" in folded:
        return "nitpick"
    if "outside diff range" in folded:
        return "outside"
    return "other"


def _item(comment: RawComment, match: re.Match[str], text: str, path: str, section: str) -> Finding:
    """One item of a review body's fold: `text` is what follows its range up to the next."""
    start = int(match.group("start"))
    end_raw = match.group("end")
    header = match.group("header")
    if header is not None:
        title, explanation = title_of(text)
        severity = _severity_of(header) or (NITPICK_LABEL if section == "nitpick" else None)
        gist = tagged(first_sentence(explanation), header)
    else:
        title = match.group("title").strip()
        severity = NITPICK_LABEL if section == "nitpick" else severity_field(text)
        gist = first_sentence(text)
    return make_finding(
        KEY,
        comment,
        title=title,
        severity_raw=severity,
        file=path,
        line=start,
        line_end=int(end_raw) if end_raw and int(end_raw) > start else None,
        gist=gist,
    )


def review_items(comment: RawComment, body: str) -> list[Finding]:
    """The nitpick and outside-diff items of a review body, in order."""
    tokens: list[tuple[int, int, re.Match[str], str]] = []
    for tag in _SUMMARY_TAG.finditer(body):
        tokens.append((tag.start(), tag.end(), tag, "summary"))
    for item in ITEM.finditer(body):
        tokens.append((item.start(), item.end(), item, "item"))
    tokens.sort(key=lambda token: token[0])
    findings: list[Finding] = []
    section: str | None = None
    path: str | None = None
    for index, (_start, end, match, what) in enumerate(tokens):
        if what == "summary":
            text = plain_text(match.group("text"))
            kind = _section(text)
            if kind is None:
                path = text if section in ("nitpick", "outside") else None
            else:
                section, path = kind, None
            continue
        if section not in ("nitpick", "outside") or path is None:
            continue
        stop = tokens[index + 1][0] if index + 1 < len(tokens) else len(body)
        findings.append(_item(comment, match, body[end:stop], path, section))
    return findings + _fold_items(comment, body)


def _fold_items(comment: RawComment, body: str) -> list[Finding]:
    """The items of the late-2026 outside-diff layout (`FOLD_ITEM`), each a finding with its
    level, title, file and lines; the gist is the prose of its fold."""
    matches = list(FOLD_ITEM.finditer(body))
    findings: list[Finding] = []
    for index, match in enumerate(matches):
        stop = matches[index + 1].start() if index + 1 < len(matches) else len(body)
        text = QUOTE_PREFIX.sub("", body[match.end() : stop])
        _, explanation = title_of(text.split("\n", 1)[-1] if HEADER.search(text) else text)
        start = int(match.group("start"))
        end = int(match.group("end")) if match.group("end") else None
        findings.append(
            make_finding(
                KEY,
                comment,
                title=match.group("title"),
                severity_raw=plain_text(match.group("level")),
                file=match.group("path"),
                line=start,
                line_end=end if end is not None and end > start else None,
                gist=first_sentence(explanation),
            )
        )
    return findings
