"""Copilot's overview v2 (every Copilot review since about 2026-09-18; docs/bot-formats.md §2).

A v2 review opens with the marker `<!-- ccr-overview-v2 -->`. Its verdict heading and summary
sentence are Copilot's summary of the review, never a finding. Three top-level `<details>`
sections carry what it found, each titled `<summary><strong>Name (N)</strong></summary>`:

* `Open (N)` — one bullet per open finding: a severity badge (`<img alt="High severity">`) and a
  link to the inline thread that holds it (`#discussion_r<comment id>`). The inline comment
  carries no level of its own: the badge is carried onto it (`ThreadMark`).
* `Resolved since last review (N)` — the same bullets for findings Copilot considers fixed: the
  threads they link are not open any more.
* `Previously missed (N)` — findings that live only in the body: a nested `<details>` per item,
  its summary the badge and title, then a backticked `path:line` (or `path:start-end`) and prose.

Only top-level sections count: a section nested inside another (a "Previously missed" quoted in
a resolved item) is that item's text. Structure is read outside fences and block quotes only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from reviewcoord.bots.common import (
    first_sentence,
    location,
    make_finding,
    marked_lines,
    opening_markers,
    plain_text,
)
from reviewcoord.model import Finding, RawComment, ThreadMark

MARKER = "ccr-overview-v2"
OPEN, RESOLVED, MISSED = "open", "resolved", "missed"

_SECTION = re.compile(
    r"<summary>[ \t]*(?:<strong>|\*\*)?[ \t]*(?P<name>Open|Resolved since last review|"
    r"Previously missed)[ \t]*\(\d{1,5}\)",
    re.I,
)
_SECTION_NAMES = {"open": OPEN, "resolved since last review": RESOLVED, "previously missed": MISSED}
_DETAILS_OPEN = re.compile(r"<details\b", re.I)
_DETAILS_CLOSE = re.compile(r"</details>", re.I)
_BADGE = re.compile(r"<img\b[^<>]{0,2000}?\balt=\"(?P<level>High|Medium|Low) severity\"", re.I)
_THREAD = re.compile(r"\[(?P<title>[^\]\n]{1,500})\]\(#discussion_r(?P<id>\d{1,19})\)")
_PICTURE = re.compile(r"<picture>.{0,4000}?</picture>", re.I)
_SUMMARY = re.compile(r"<summary>(?P<text>.{0,4000}?)</summary>", re.I)
_LOCATION = re.compile(
    r"^[ \t]*`(?P<path>[^`\s:]{1,500}):(?P<start>\d{1,7})(?:[-–](?P<end>\d{1,7}))?`[ \t]*$"
)


def is_v2(body: str) -> bool:
    """A v2 overview: the marker it opens with (its framing, never a phrase further down)."""
    return MARKER in opening_markers(body)


@dataclass
class _Missed:
    label: str | None
    title: str
    path: str | None = None
    start: int | None = None
    end: int | None = None
    prose: list[str] = field(default_factory=list)


@dataclass
class Overview:
    marks: list[ThreadMark] = field(default_factory=list)
    missed: list[_Missed] = field(default_factory=list)


def _label(text: str) -> str | None:
    badge = _BADGE.search(text)
    return f"{badge.group('level').capitalize()} severity" if badge else None


def _bullet(overview: Overview, section: str, line: str) -> None:
    thread = _THREAD.search(line)
    if thread is None or not line.lstrip().startswith("- "):
        return
    overview.marks.append(
        ThreadMark(
            comment_id=int(thread.group("id")),
            severity_raw=_label(line),
            title=plain_text(thread.group("title")),
            resolved=section == RESOLVED,
        )
    )


def _missed_line(overview: Overview, line: str) -> None:
    if not overview.missed:
        return
    item = overview.missed[-1]
    where = _LOCATION.match(line)
    if item.path is None and where:
        item.path = where.group("path")
        item.start = int(where.group("start"))
        item.end = int(where.group("end")) if where.group("end") else None
    elif not _DETAILS_CLOSE.search(line):
        item.prose.append(line)


def _summary(overview: Overview, depth: int, section: str | None, text: str) -> str | None:
    """A `<summary>` that titles the `<details>` just opened at `depth`: a top-level one names
    the section (an unknown name: a section we do not read), a missed item's opens the item."""
    if depth == 1:
        head = _SECTION.search(f"<summary>{text}")
        return _SECTION_NAMES[head.group("name").casefold()] if head else "other"
    if depth == 2 and section == MISSED:
        title = plain_text(_PICTURE.sub(" ", text))
        overview.missed.append(_Missed(_label(text), title))
    return section


def read_overview(body: str) -> Overview:
    """The sections of a v2 body: thread marks (open with level, resolved) and missed items."""
    overview = Overview()
    depth = 0
    titled = True  # whether the innermost <details> has had its <summary>
    section: str | None = None
    for line, quoted in marked_lines(body):
        if quoted:
            continue
        opened = len(_DETAILS_OPEN.findall(line))
        depth += opened
        titled = titled and not opened
        summary = _SUMMARY.search(line)
        if summary and not titled and depth in (1, 2):
            titled = True
            section = _summary(overview, depth, section, summary.group("text"))
        elif depth == 1 and section in (OPEN, RESOLVED):
            _bullet(overview, section, line)
        elif depth >= 2 and section == MISSED and not (summary and depth == 2):
            _missed_line(overview, line)
        depth = max(0, depth - len(_DETAILS_CLOSE.findall(line)))
        if depth == 0:
            section = None
    return overview


def missed_findings(bot: str, comment: RawComment, overview: Overview) -> list[Finding]:
    """The `Previously missed` items: findings of this review, with title, file and lines."""
    findings = []
    for item in overview.missed:
        prose = "\n".join(item.prose).strip()
        file, line, line_end = location(comment, item.path, item.start, item.end)
        findings.append(
            make_finding(
                bot,
                comment,
                title=item.title or (f"{item.path}:{item.start}" if item.path else ""),
                severity_raw=item.label,
                file=file,
                line=line,
                line_end=line_end,
                gist=first_sentence(prose),
            )
        )
    return findings
