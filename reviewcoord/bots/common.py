"""Helpers shared by the bot parsers: text cleanup, locations, building a Finding.

Every regex here is bounded (no nested or unbounded quantifiers across lines) because a comment
body can be 1 MB and a parser must stay linear on it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from reviewcoord.model import BotKey, Finding, ParsedComment, RawComment, stable_finding_id

_TAG = re.compile(r"<[^<>]{0,500}>")
_MD_IMAGE = re.compile(r"!\[[^\]\n]{0,500}\]\([^)\s]{0,2000}(?:\s\"[^\"\n]{0,200}\")?\)")
_MD_LINK = re.compile(r"\[([^\]\n]{0,500})\]\([^)\s]{0,2000}\)")
_WS = re.compile(r"\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s")
_FENCE = re.compile(r"[ \t]{0,3}(```|~~~)")
# NUL and zero-width characters: invisible in GitHub's rendering, so they must not defeat a
# marker match (`\u200bCodex Review: …`).
_INVISIBLE = re.compile("[\x00\u200b\u200c\u200d\u2060\ufeff]")
_BACKTICK_SPAN = re.compile(r"`([^`\n]{1,300})`")
_PATH_LINE = re.compile(r"(?P<path>[^\s:`]{1,250}?)(?::(?P<line>\d{1,7})(?:[-,–]\d{1,7}){0,20})?")

TITLE_MAX = 200
GIST_MAX = 240
# A headline is cut at a clause break only if what is left still says something.
_HEADLINE_MIN = 20
_PROSE_MAX = 20_000

# A GitHub blob permalink with a line anchor: …/blob/<sha>/<path>#L45-L46 (or #L45).
PERMALINK = re.compile(
    r"https?://[^\s/]{1,200}/[^\s/]{1,200}/[^\s/]{1,200}/blob/(?P<sha>[0-9a-f]{7,40})/"
    r"(?P<path>[^\s#?)]{1,1000})#L(?P<start>\d{1,7})(?:-L(?P<end>\d{1,7}))?"
)


def clean_body(body: str) -> str:
    """The body as GitHub renders it for matching: CRLF → LF, invisible characters dropped."""
    return _INVISIBLE.sub("", body.replace("\r\n", "\n").replace("\r", "\n"))


def strip_html_comments(text: str) -> str:
    # A hand loop instead of `<!--.*?-->`: that regex is quadratic on many unclosed `<!--`.
    out: list[str] = []
    pos = 0
    while True:
        start = text.find("<!--", pos)
        if start < 0:
            return "".join([*out, text[pos:]])
        out.append(text[pos:start])
        end = text.find("-->", start + 4)
        if end < 0:  # GitHub hides everything after an unclosed comment
            break
        out.append(" ")
        pos = end + 3
    return "".join(out)


def plain_text(markdown: str) -> str:
    """Markdown/HTML reduced to its words: comments, tags, images dropped, links to their text."""
    text = strip_html_comments(markdown)
    text = _MD_IMAGE.sub(" ", text)
    text = _MD_LINK.sub(r"\1", text)
    text = _TAG.sub(" ", text)
    text = text.replace("**", "").replace("__", "")
    return _WS.sub(" ", text).strip()


def clip(text: str, limit: int) -> str:
    """`text` cut to `limit` characters with "…"; a cut inside a `code span` moves to before the
    span, so the clipped text never ends in an unclosed backtick."""
    text = text.strip()
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if cut.count("`") % 2:
        cut = cut[: cut.rfind("`")]
    return cut.rstrip() + "…"


LEAD_SCAN = 4000


def lead(body: str) -> str:
    """The comment's first line as its bot writes it — the framing that alone may make it a
    notice (skipped, limit, quota, error, in progress): the first line with visible text once
    HTML comments are dropped, stripped, Markdown kept. Never looked past: a comment opening
    with a fence, a quote or a finding has that as its lead, so no quoted phrase is framing."""
    for line in strip_html_comments(body[:LEAD_SCAN]).split("\n"):
        if line.strip():
            return line.strip()
    return ""


def opening_markers(body: str) -> list[str]:
    """The HTML comments a body *opens* with (before any visible text), as their inner text:
    the markers a bot frames its own comments by (`<!-- … summarize by coderabbit.ai -->`)."""
    markers: list[str] = []
    pos = 0
    text = body[:LEAD_SCAN]
    while True:
        rest = text[pos:].lstrip()
        if not rest.startswith("<!--"):
            return markers
        start = len(text) - len(rest)
        end = text.find("-->", start + 4)
        if end < 0:
            return markers
        markers.append(text[start + 4 : end].strip())
        pos = end + 3


def unfenced_lines(body: str) -> list[str]:
    """The body's lines outside fenced code blocks (a fence line itself dropped)."""
    out: list[str] = []
    in_fence = False
    for line in body.split("\n"):
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        if not in_fence:
            out.append(line)
    return out


_SPAN = re.compile(r"`[^`\n]{1,500}`")


def marked_lines(body: str) -> Iterator[tuple[str, bool]]:
    """Each line of `body` with whether it is quoted: a fence line, inside a fenced block, or a
    block-quote line."""
    in_fence = False
    for line in body.split("\n"):
        fence = _FENCE.match(line) is not None
        if fence:
            in_fence = not in_fence
        yield line, fence or in_fence or line.lstrip().startswith(">")


def own_words(body: str) -> str:
    """The body with everything it *quotes* blanked — fenced code blocks, block-quote lines and
    code spans — keeping every line and column where it was: where a phrase may be read as the
    bot's own statement (quoted text is the PR's content, which its author controls)."""
    out: list[str] = []
    for line, quoted in marked_lines(body):
        if quoted:
            out.append(" " * len(line))
        else:
            out.append(_SPAN.sub(lambda m: " " * len(m.group(0)), line))
    return "\n".join(out)


_DETAILS_OPEN = re.compile(r"<details\b", re.I)
_DETAILS_CLOSE = re.compile(r"</details>", re.I)
_PROMPT_SUMMARY = re.compile(r"<summary>[^<\n]{0,200}?\bprompt", re.I)


def own_prose(body: str) -> str:
    """`own_words`, with every `<details>` fold whose summary names a prompt ("Prompt for AI
    agents", "🤖 Prompt for AI Agent") blanked too: such a fold restates the bot's findings for
    an agent, often quoting the PR's code outside any fence. Lines and columns stay put."""
    lines = own_words(body).split("\n")
    depth = 0  # > 0: inside a prompt fold, this many `<details>` deep
    opened = -1  # the line that opened a fold whose summary is not known yet
    for i, line in enumerate(lines):
        opens, closes = len(_DETAILS_OPEN.findall(line)), len(_DETAILS_CLOSE.findall(line))
        if depth > 0:
            lines[i] = " " * len(line)
            depth = max(0, depth + opens - closes)
            continue
        if opens:
            opened = i
        if opened >= 0 and _PROMPT_SUMMARY.search(line):
            span = lines[opened : i + 1]
            depth = sum(
                len(_DETAILS_OPEN.findall(x)) - len(_DETAILS_CLOSE.findall(x)) for x in span
            )
            for j in range(opened, i + 1):
                lines[j] = " " * len(lines[j])
            opened = -1
        elif not opens and line.strip():
            opened = -1
    return "\n".join(lines)


def first_line(body: str) -> str:
    """The first non-blank line with words in it, as plain text."""
    for line in body.splitlines():
        text = plain_text(line[:4000])
        if text:
            return text
    return ""


def first_sentence(text: str) -> str:
    """The first sentence of prose (code fences skipped), as plain text."""
    prose_lines: list[str] = []
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
    prose = plain_text(" ".join(prose_lines)[:_PROSE_MAX])
    parts = _SENTENCE_END.split(prose, maxsplit=1)
    return parts[0].strip() if parts else ""


# Where a long first sentence turns from "what" to "why"; the corpus titles of untitled findings
# stop there (Z29 and L_bun_nit at ": ", P_markus_inline at ", but", Rnoline at ", which", Rsugg
# at a quoted " (“…”)"). A parenthesis that opens a code span (Rsugg's "(`frame_after …`)") is
# part of the phrase, not an aside.
_CLAUSE_BREAKS = (
    ": ",
    "; ",
    " — ",
    " – ",
    ", but ",
    ", which ",
    ", so ",
    ", because ",
    ", since ",
    ", whereas ",
    ", while ",
)


_CLAUSE_BREAK = re.compile("|".join(re.escape(brk) for brk in _CLAUSE_BREAKS) + r"| \((?!`)")


def _clause_cut(sentence: str) -> str:
    """Cut at the first clause break (or a ` (` that does not open a code span) that is at least
    _HEADLINE_MIN characters in and outside a `code span`."""
    for match in _CLAUSE_BREAK.finditer(sentence):
        # For " (" the break is the parenthesis; the text keeps what stands before the space.
        at = match.start() + 1 if match.group() == " (" else match.start()
        if at < _HEADLINE_MIN or sentence.count("`", 0, at) % 2:
            continue
        return sentence[: match.start()].rstrip()
    return sentence


def headline(text: str) -> str:
    """A title for an untitled finding: its first sentence, cut at the first clause break."""
    return _clause_cut(first_sentence(text))


def stated_path_line(text: str) -> tuple[str | None, int | None]:
    """The first `` `path:line` `` (or `` `path` ``) code span in `text` that names a file."""
    for span in _BACKTICK_SPAN.finditer(text[:_PROSE_MAX]):
        match = _PATH_LINE.fullmatch(span.group(1).strip())
        if match is None:
            continue
        path = match.group("path")
        if path.endswith("/") or path.startswith("-") or not ("." in path or "/" in path):
            continue
        if path.strip("./") == "" or path.endswith("."):
            continue
        line = match.group("line")
        return path, int(line) if line else None
    return None, None


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
        start_line = comment.start_line
        # A start_line of 0 or below (or at/after the line) is no range: GitHub's are 1-based.
        start = start_line if start_line is not None and 0 < start_line < comment.line else None
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
        file=file,
        line=line,
        line_end=line_end,
        url=url or comment.html_url,
        endpoint=comment.endpoint,
        comment_id=comment.id,
        reviewed_commit=reviewed_commit,
    )


def noise(reason: str, reviewed_commit: str | None = None) -> ParsedComment:
    return ParsedComment(kind="noise", reason=reason, reviewed_commit=reviewed_commit)


def found(
    findings: list[Finding], reason: str, reviewed_commit: str | None = None
) -> ParsedComment:
    return ParsedComment(
        kind="finding", findings=tuple(findings), reason=reason, reviewed_commit=reviewed_commit
    )


def failed(
    detail: str, reason: str, reviewed_commit: str | None = None, *, no_budget: bool = False
) -> ParsedComment:
    """The bot says it could not review (an error; `no_budget`: a quota, credit or billing
    stop, or not set up — never asked again): never a finding."""
    said = ParsedComment(kind="failed", reason=reason, detail=detail, no_budget=no_budget)
    return said.model_copy(update={"reviewed_commit": reviewed_commit})


def skipped(detail: str, reason: str, *, no_budget: bool = False) -> ParsedComment:
    """The bot declined to review by design (disabled, a bot's PR, no reviewable files)."""
    return ParsedComment(kind="skipped", reason=reason, detail=detail, no_budget=no_budget)


def working(detail: str, reason: str, reviewed_commit: str | None = None) -> ParsedComment:
    return ParsedComment(
        kind="in_progress", reason=reason, detail=detail, reviewed_commit=reviewed_commit
    )


def fallback_finding(bot: BotKey, comment: RawComment, why: str) -> ParsedComment:
    """A finished review of a known bot carries something we cannot read as findings (Claude's
    review announcing critical issues in a layout we do not parse): keep it as a `medium`
    finding titled from its first line, loudly (a parse note), and let it count as the review
    it is. Only for a comment known to close a finished review; anything else is `unread`."""
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


def paragraph_finding(
    bot: BotKey,
    comment: RawComment,
    paragraph: str,
    severity_raw: str | None,
    stated: tuple[str | None, int | None, int | None] = (None, None, None),
    *,
    gist: str | None = None,
) -> Finding:
    """A finding written as one paragraph of prose (cubic, Macroscope, CodeAnt, Graphite): its
    headline is the title, its first sentence the gist; the place is the comment's anchor, else
    the one its body states (`stated`: path, line, last line)."""
    file, line, line_end = location(comment, *stated)
    return make_finding(
        bot,
        comment,
        title=headline(paragraph),
        severity_raw=severity_raw,
        file=file,
        line=line,
        line_end=line_end,
        gist=first_sentence(paragraph) if gist is None else gist,
    )
