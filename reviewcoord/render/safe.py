"""Making untrusted text safe to put into GitHub Markdown.

Everything a bot wrote (titles, gists, file paths, severity labels, URLs, logins, parse notes)
is untrusted: a bot comment is attacker-controlled text on any public repository, because the
bots quote the code under review. Put into our comment raw, it could

* ping people (`@octocat`) or link issues (`#1`, `GH-1`) and URLs (`https://…`, `www.…`),
* forge our sticky marker or any HTML comment (`<!-- … -->`), so a later run finds the wrong
  comment, or hide text from the reader,
* open raw HTML (`<details>`, `<img onerror=…>`) that swallows or fakes the rest of the verdict,
* start a heading, list, table or code fence that breaks the layout,
* smuggle invisible characters (bidi overrides, zero-width spaces, NUL) that make the text read
  differently from what it is.

The templates therefore never print a bot value directly: each one goes through a filter here.

    clean(text, limit)        plain single-line text: controls gone, whitespace collapsed, clipped
    plain(text, limit)        `clean` for a terminal: escape sequences removed whole first
    md_text(text, limit)      `clean` + Markdown/HTML escaped + mentions, references and
                              autolinks (`https://…`, `www.…`) defused; balanced backtick
                              code spans in the input stay code spans
    code(text)                a code span that survives any content (longer fence, or <code>)
    location(file, l, end)    `file:l-end` as a code span
    link(url, label_md)       `[label](url)` for a plain https URL, else just the label
    bot(name)                 a bot key as its display name, anything else as escaped text
    bots(names)               a comma list of `bot`, or "none"
    short_sha(sha)            the first seven hex digits of a commit, or "unknown"

The only HTML the renderers emit is their own (`<details>`, `<summary>`, `<sub>`, `<code>`, the
marker); every `<` that comes from input leaves here as `&lt;`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from reviewcoord.bots import REGISTRY

ELLIPSIS = "…"

# U+2060 WORD JOINER: invisible, not whitespace, and not a login/number character, so
# `@\u2060octocat` and `#\u20601` no longer match GitHub's mention and issue-reference
# autolinkers. (The input's own U+2060 is stripped by `clean` first, so every one in our output
# was put there on purpose.)
JOINER = "\u2060"

# Characters that are removed outright (after whitespace was turned into spaces):
# * C0 and C1 controls (NUL, ESC, DEL, …): never meaningful in a one-line title;
# * every Unicode "format" (Cf) character as of Unicode 15: bidi embeddings and overrides
#   U+202A–U+202E and isolates U+2066–U+2069 (the "Trojan Source" trick), zero-width space /
#   (non-)joiners U+200B–U+200D, marks U+200E/U+200F/U+061C, word joiner and invisible operators
#   U+2060–U+2064, BOM U+FEFF, soft hyphen U+00AD, tag characters U+E0000–U+E007F, …;
#   losing a ZWJ inside an emoji sequence is an acceptable price;
# * lone surrogates, which cannot be encoded as UTF-8 and would fail the API request.
# tests/test_render.py checks this class against `unicodedata` so a new Python cannot drift.
_STRIP = re.compile(
    "["
    "\x00-\x1f\x7f-\x9f"
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e"
    "\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f"
    "\ufeff\ufff9-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0000-\U000e007f"
    "\ud800-\udfff"
    "]"
)
# Python's `\s` also covers U+0085, U+2028/U+2029 and the C0 separators U+001C–U+001F, so a
# "newline" in any of its spellings becomes a space before anything is stripped.
_WS = re.compile(r"\s+")

# How much raw input we look at for a value clipped to `limit`: enough that stripping invisible
# characters rarely shortens the result below `limit`, bounded so that a 10 MB title costs
# nothing (5,000 findings with 10 KB titles must render in well under a second per pass).
_PRECLIP_FACTOR = 2
_PRECLIP_MIN = 256

# Backslash-escaped wherever they appear in plain text: they open emphasis (`*`, `_`, `~`),
# links and footnotes (`[`, `]`), table cells (`|`), math (`$`), code (stray backticks) or escape
# the next character (`\`). CommonMark accepts a backslash before any ASCII punctuation.
_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~$])")
# Block syntax only matters at the start of a line; our values always sit inside a line, but a
# gist is printed on its own continuation line, where `# x`, `> x`, `- x`, `1. x`, `===` (setext
# underline) or `+ x` would start a block. A leading `:` is escaped too: if a body is ever echoed
# to an Actions log, a line starting with `::` (after spaces) is a workflow command
# (`::add-mask::`, `::stop-commands::`); `\::` is not, and renders as `::`.
_LEADING_BLOCK = re.compile(r"^(?:([#>+=:\-])|(\d{1,9})([.)]))")
# GitHub links `@login`, `@org/team`, `#123`, `GH-123` and `owner/repo#123`.
_MENTION = re.compile(r"@(?=[A-Za-z0-9])")
_ISSUE_REF = re.compile(r"#(?=[0-9])")
_GH_REF = re.compile(r"(?i)(\bGH)-(?=[0-9])")
# GitHub's extended autolinks (GFM spec § Autolinks (extension)): `www.`, `http://`, `https://`
# and the `mailto:` / `xmpp:` protocols — a bare URL in a bot's title would become a live link
# next to our verdict. A word joiner inside the trigger keeps the text and kills the link.
_AUTOLINK = re.compile(r"(?i)\b(?:(https?|ftp|mailto|xmpp):|(www)\.)")
_BACKTICKS = re.compile(r"`+")

# A link target we are willing to print: https, a plain host (no userinfo: `https://github.com@evil`
# is a classic phishing shape), an optional port, then only RFC 3986 characters. Parentheses
# and brackets are percent-encoded first so they cannot end the Markdown link early.
_SAFE_URL = re.compile(
    r"https://[A-Za-z0-9](?:[A-Za-z0-9.\-]*[A-Za-z0-9])?(?::[0-9]{1,5})?"
    r"(?:[/?#][A-Za-z0-9\-._~:/?#@!$&'*+,;=%]*)?"
)
_URL_MAX = 2_000
_HEX_SHA = re.compile(r"[0-9a-fA-F]{7,64}")
_NON_BMP = re.compile("[\U00010000-\U0010ffff]")


def clip(text: str, limit: int | None) -> str:
    """`text` cut to at most `limit` characters, ending in "…" when it was cut."""
    if limit is None or len(text) <= limit:
        return text
    if limit <= 1:
        return ELLIPSIS[:limit]
    return text[: limit - 1].rstrip() + ELLIPSIS


def _preclip(text: str | None, limit: int | None) -> str | None:
    if text is None or limit is None:
        return text
    return text[: max(_PRECLIP_MIN, limit * _PRECLIP_FACTOR)]


def clean(text: str | None, limit: int | None = None) -> str:
    """Plain one-line text: whitespace collapsed, controls and format characters removed, clipped.

    For surfaces that are not Markdown (commit status description, annotation title) and as the
    first step of every Markdown filter.
    """
    if not text:
        return ""
    text = _preclip(text, limit) or ""
    text = _WS.sub(" ", text)
    text = _STRIP.sub("", text)
    text = _WS.sub(" ", text).strip()
    return clip(text, limit)


# Terminal escape sequences: CSI (`ESC [` or U+009B, e.g. colours, cursor moves), OSC (`ESC ]`
# or U+009D up to BEL or ST, e.g. window titles, hyperlinks), and the other two-character
# `ESC x` sequences. Removed whole, so no parameter text (`[31m`) is left behind.
_TERMINAL_ESCAPE = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"
    r"|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[ -~]?"
)


def plain(text: str | None, limit: int | None = None) -> str:
    """Plain one-line text for a terminal: terminal escape sequences removed whole, then `clean`."""
    if not text:
        return ""
    return clean(_TERMINAL_ESCAPE.sub("", _preclip(text, limit) or ""), limit)


def clean_multiline(text: str | None, limit: int | None = None) -> str:
    """Like `clean` but keeps line breaks (as `\\n`): for annotation messages, which are plain
    text shown verbatim in the Files view, never rendered as Markdown."""
    if not text:
        return ""
    text = _preclip(text, limit) or ""
    lines = [clean(line) for line in text.replace("\r\n", "\n").split("\n")]
    return clip("\n".join(lines).strip("\n"), limit)


def has_controls(text: str) -> bool:
    """Whether `text` holds a character `clean` would strip (control, format, surrogate)."""
    return _STRIP.search(text) is not None


def _escape_html(text: str) -> str:
    # `&` first, so that an input `&#64;octocat` or `&lt;` is shown as typed instead of being
    # decoded by the Markdown renderer into `@octocat` (which GitHub would then link) or `<`.
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _escape_plain(text: str) -> str:
    """Escape a run of plain (non-code) text."""
    text = _escape_html(text)
    text = _MD_SPECIAL.sub(r"\\\1", text)
    text = _MENTION.sub("@" + JOINER, text)
    text = _ISSUE_REF.sub("#" + JOINER, text)
    text = _AUTOLINK.sub(_defuse_autolink, text)
    return _GH_REF.sub(r"\1-" + JOINER, text)


def _defuse_autolink(m: re.Match[str]) -> str:
    scheme, www = m.group(1), m.group(2)
    return f"{scheme}{JOINER}:" if scheme else f"{www}{JOINER}."


def _defuse_leading_block(text: str) -> str:
    m = _LEADING_BLOCK.match(text)
    if not m:
        return text
    if m.group(1):
        return "\\" + text
    digits = m.group(2)
    return digits + "\\" + text[len(digits) :]


def _code_span(text: str) -> str:
    """A code span showing exactly `text` (already `clean`, non-empty)."""
    if "<" in text or ">" in text or "&" in text or "|" in text:
        # Inside a Markdown code span `&lt;` would be shown literally, so a `<` could only stay
        # a raw `<` — which would let `<!-- review-coordinator-verdict -->` into the body. An
        # HTML <code> element shows entities decoded, and GitHub does not autolink mentions or
        # references inside <code>; backslash escapes keep Markdown from acting inside it. A
        # `|` too: in a table cell a raw one ends the cell even inside a code span, while `\|`
        # (here) is no cell delimiter and shows as `|` in a table and out of one.
        inner = _MD_SPECIAL.sub(r"\\\1", _escape_html(text))
        return f"<code>{inner}</code>"
    runs = [len(m.group()) for m in _BACKTICKS.finditer(text)]
    fence = "`" * (max(runs, default=0) + 1)
    # CommonMark strips one space on each side when both are present, and a content that
    # starts or ends with a backtick needs a space to be told from the fence.
    pad = " " if text[0] in "` " or text[-1] in "` " else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _split_code_spans(text: str) -> list[tuple[bool, str]]:
    """Split into (is_code, part) following CommonMark: a run of N backticks opens a code span
    that the next run of exactly N backticks closes; an unmatched run is literal text."""
    runs = list(_BACKTICKS.finditer(text))
    parts: list[tuple[bool, str]] = []
    pos = 0
    i = 0
    while i < len(runs):
        opener = runs[i]
        width = len(opener.group())
        closer = next((j for j in range(i + 1, len(runs)) if len(runs[j].group()) == width), None)
        if closer is None:
            i += 1
            continue
        inner = text[opener.end() : runs[closer].start()]
        if inner.strip():
            parts.append((False, text[pos : opener.start()]))
            parts.append((True, inner.strip()))
            pos = runs[closer].end()
        i = closer + 1
    parts.append((False, text[pos:]))
    return [(is_code, part) for is_code, part in parts if part]


def md_text(text: str | None, limit: int | None = 200) -> str:
    """Untrusted text as one line of inert Markdown, clipped to `limit` visible characters."""
    # Pre-clipped before the cache so a cache key is never a multi-megabyte string.
    return _md_text(_preclip(text, limit), limit)


@lru_cache(maxsize=65_536)
def _md_text(text: str | None, limit: int | None) -> str:
    # Cached: the size-fitting loop renders the same findings several times.
    plain = clean(text, limit)
    out = []
    for is_code, part in _split_code_spans(plain):
        out.append(_code_span(part) if is_code else _escape_plain(part))
    return _defuse_leading_block("".join(out))


def code(text: str | None, limit: int | None = 300) -> str:
    """Untrusted text as a code span (e.g. a file path); empty input gives an empty string."""
    return _code(_preclip(text, limit), limit)


@lru_cache(maxsize=65_536)
def _code(text: str | None, limit: int | None) -> str:
    plain = clean(text, limit)
    return _code_span(plain) if plain else ""


def location(file: str | None, line: int | None, line_end: int | None = None) -> str:
    """`path:line-end` as a code span; "" for a PR-level finding (no file)."""
    if not file:
        return ""
    where = clean(file, 300)
    if line is not None:
        where += f":{line}"
        if line_end is not None and line_end > line:
            where += f"-{line_end}"
    return code(where, None)


def safe_url(url: str | None) -> str | None:
    """`url` if it is a plain https URL we may print as a link target, else None."""
    if not url or len(url) > _URL_MAX or not url.isascii():
        return None
    url = url.replace("(", "%28").replace(")", "%29").replace("[", "%5B").replace("]", "%5D")
    return url if _SAFE_URL.fullmatch(url) else None


def link(url: str | None, label_md: str) -> str:
    """`[label](url)` when `url` is safe, else only the label (never a broken or hostile link).

    `label_md` must already be Markdown-safe (the output of another filter here).
    """
    target = safe_url(url)
    return f"[{label_md}]({target})" if target else label_md


def bot(name: str | None) -> str:
    """A bot key (`codex`) as its display name (`Codex`); an unknown name as escaped text."""
    if name is not None and REGISTRY.get(name) is not None:
        return REGISTRY.display(name)
    return md_text(name, 60) or "unknown"


def shown_label(raw: str | None, bot_key: str) -> str:
    """A source's raw label as its bot's profile shows it (not yet escaped)."""
    return REGISTRY.shown_label(bot_key, raw) if raw else ""


def label(raw: str | None, bot_key: str, limit: int = 60) -> str:
    """`shown_label` as Markdown-safe text."""
    return md_text(shown_label(raw, bot_key), limit)


def bots(names: Iterable[str], limit: int = 20) -> str:
    """Comma list of `bot` names, at most `limit` of them, or "none"."""
    items = list(names)
    if not items:
        return "none"
    shown = ", ".join(bot(name) for name in items[:limit])
    hidden = len(items) - limit
    return f"{shown} and {hidden:,} more" if hidden > 0 else shown


def logins(names: Iterable[str], limit: int = 20) -> str:
    """Comma list of logins as code spans (`coderabbitai[bot]`): exact, and never a mention."""
    items = [code(name, 60) for name in names]
    items = [item for item in items if item]
    if not items:
        return "none"
    shown = ", ".join(items[:limit])
    hidden = len(items) - limit
    return f"{shown} and {hidden:,} more" if hidden > 0 else shown


def short_sha(sha: str | None) -> str:
    """First seven hex digits of a commit id, or "unknown" for anything that is not one."""
    text = clean(sha, 80)
    return text[:7].lower() if _HEX_SHA.fullmatch(text) else "unknown"


def escape_non_bmp(text: str) -> str:
    """Characters above U+FFFF as `\\U0001f534`: GitHub's annotation API rejects them
    (docs/github-platform.md §2.1, as EnricoMi/publish-unit-test-result-action found)."""
    if text.isascii():
        return text
    return _NON_BMP.sub(lambda m: f"\\U{ord(m.group()):08x}", text)
