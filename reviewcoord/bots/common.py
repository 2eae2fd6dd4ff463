"""Helpers shared by the bot parsers: text cleanup, locations, building a Finding."""

from __future__ import annotations

import re

from reviewcoord.model import BotKey, Finding, ParsedComment, RawComment, stable_finding_id
from reviewcoord.normalize import level_for

_HTML_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_TAG = re.compile(r"<[^>]{0,500}>")
_MD_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_MD_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_WS = re.compile(r"\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s")
_FENCE = re.compile(r"^\s*(```|~~~)")

TITLE_MAX = 200
GIST_MAX = 240

# A GitHub blob permalink with a line anchor: …/blob/<sha>/<path>#L45-L46 (or #L45).
PERMALINK = re.compile(
    r"https?://[^\s/]+/[^\s/]+/[^\s/]+/blob/(?P<sha>[0-9a-f]{7,40})/(?P<path>[^\s#?)]+)"
    r"#L(?P<start>\d+)(?:-L(?P<end>\d+))?"
)


def plain_text(markdown: str) -> str:
    """Markdown/HTML reduced to its words: comments, tags, images dropped, links to their text."""
    text = _HTML_COMMENT.sub(" ", markdown)
    text = _MD_IMAGE.sub(" ", text)
    text = _MD_LINK.sub(r"\1", text)
    text = _TAG.sub(" ", text)
    text = text.replace("**", "").replace("__", "")
    return _WS.sub(" ", text).strip()


def clip(text: str, limit: int) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def first_line(body: str) -> str:
    """The first non-blank line with words in it, as plain text."""
    for line in body.splitlines():
        text = plain_text(line)
        if text:
            return text
    return ""


def first_sentence(text: str) -> str:
    """The first sentence of prose (code fences skipped), as plain text."""
    prose_lines = []
    in_fence = False
    for line in text.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
            if prose_lines:
                break
            continue
        if in_fence:
            continue
        if not line.strip():
            if prose_lines:
                break
            continue
        prose_lines.append(line)
    prose = plain_text(" ".join(prose_lines))
    parts = _SENTENCE_END.split(prose, maxsplit=1)
    return parts[0].strip() if parts else ""


def location(
    comment: RawComment,
    stated_path: str | None = None,
    stated_start: int | None = None,
    stated_end: int | None = None,
) -> tuple[str | None, int | None, int | None]:
    """(file, line, line_end): the comment's `line`, else `original_line`, else what the body
    states (permalink, LOCATIONS, `file:line`), else file-level (line None)."""
    path = comment.path or stated_path
    if comment.line is not None and comment.line > 0:
        start = comment.start_line if comment.start_line and comment.start_line < comment.line else None
        return path, start or comment.line, comment.line if start else None
    if comment.original_line is not None and comment.original_line > 0:
        return path, comment.original_line, None
    if stated_start is not None and (comment.path is None or stated_path == comment.path):
        end = stated_end if stated_end is not None and stated_end > stated_start else None
        return path, stated_start, end
    return path, None, None


def make_finding(
    bot: BotKey,
    comment: RawComment,
    *,
    title: str,
    severity_raw: str | None,
    file: str | None,
    line: int | None,
    line_end: int | None = None,
    gist: str = "",
    native_id: str | None = None,
    reviewed_commit: str | None = None,
    url: str | None = None,
) -> Finding:
    title = clip(plain_text(title), TITLE_MAX) or "(untitled finding)"
    return Finding(
        bot=bot,
        stable_id=stable_finding_id(bot, file, title, native_id),
        native_id=native_id,
        title=title,
        gist=clip(plain_text(gist), GIST_MAX),
        severity_raw=severity_raw,
        severity=level_for(bot, severity_raw),
        file=file,
        line=line,
        line_end=line_end,
        url=url or comment.html_url,
        endpoint=comment.endpoint,
        comment_id=comment.id,
        reviewed_commit=reviewed_commit,
    )


def fallback_finding(bot: BotKey, comment: RawComment, why: str) -> ParsedComment:
    """A known bot said something we cannot classify: keep it as a `medium` finding, loudly."""
    file, line, line_end = location(comment)
    title = clip(first_line(comment.body), TITLE_MAX) or "(unparsed comment)"
    finding = make_finding(
        bot, comment, title=title, severity_raw=None, file=file, line=line, line_end=line_end
    )
    return ParsedComment(
        kind="finding",
        findings=(finding,),
        parse_note=f"{why}; kept as a medium finding titled from its first line",
        reason="unclassified",
    )
