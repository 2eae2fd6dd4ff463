"""Gemini Code Assist (`gemini-code-assist[bot]`): shapes are docs/bot-formats.md §12.

A finding is one inline comment whose first line is a priority badge image
(`![high](https://www.gstatic.com/codereviewagent/high-priority.svg)`): the image name is the
level, and there is no title line, so the title is the first sentence after the image. One
badge over a numbered list of problems is ONE finding. The `## Summary of Changes` post that
says "I'm currently reviewing" is the working signal (it may arrive as an issue comment or as
a review); the `## Code Review` review is the done signal (its prose "critical issue" words
are not labels). "You have reached your daily quota limit." is a failed run.
"""

from __future__ import annotations

import re

from reviewcoord.bots.common import (
    clean_body,
    failed,
    first_sentence,
    found,
    lead,
    location,
    make_finding,
    noise,
    own_words,
    plain_text,
    working,
)
from reviewcoord.bots.notices import Notice, read_notice, unread
from reviewcoord.bots.profile import BotProfile, Tracker, plain_label
from reviewcoord.model import ParsedComment, RawComment, stable_finding_id

KEY = "gemini"
LOGINS: frozenset[str] = frozenset({"gemini-code-assist[bot]"})
# Its documented trigger comment (docs/bot-formats.md § Re-requesting).
TRIGGER = "/gemini review"
REREQUEST = f"re-request with `{TRIGGER}`"

# The badge: a Markdown image (or an <img>) whose URL names the level.
_BADGE_MD = re.compile(
    r"!\[[^\]\n]{0,100}\]\((?P<url>[^)\s]{0,500}codereviewagent/"
    r"(?P<level>critical|high|medium|low)[^)\s]{0,100})\)",
    re.I,
)
_BADGE_HTML = re.compile(
    r"<img\b[^<>]{0,500}codereviewagent/(?P<level>critical|high|medium|low)[^<>]{0,500}>", re.I
)
_LEVEL = re.compile(r"codereviewagent/(critical|high|medium|low)", re.I)
_SUMMARY = re.compile(r"^#{1,3}[ \t]*Summary of Changes", re.M)
_REVIEWING = re.compile(r"I['’]m currently reviewing this pull request", re.I)
_CODE_REVIEW = re.compile(r"^#{1,3}[ \t]*Code Review\b", re.M)
_QUOTA = re.compile(r"You have reached your daily quota limit", re.I)
# Gemini's notices by their framing (its first line, or its `> [!CAUTION]` alert's): the consumer
# service ended on 2026-07-17 and says so for good (FORMATS-2026 §9).
SUNSET_ADVICE = "{own} It will not review again: remove `gemini` from `expected-bots`."
NOTICES = (
    Notice(
        re.compile(r"The consumer version of Gemini Code Assist on GitHub has been sunset", re.I),
        "skipped",
        "gemini consumer sunset",
        SUNSET_ADVICE,
        no_budget=True,
    ),
    Notice(
        re.compile(r"Gemini is unable to generate a review for this pull request\b", re.I),
        "skipped",
        "gemini unsupported file types",
    ),
)
_CODE_SPAN = re.compile(r"`[^`\n]{1,300}`")
_LT, _GT = "\ue000", "\ue001"


def _protected_plain(text: str) -> str:
    """plain_text, except that `<…>` inside a code span is kept (`HashSet<string>`)."""

    def hide(match: re.Match[str]) -> str:
        return match.group(0).replace("<", _LT).replace(">", _GT)

    plain = plain_text(_CODE_SPAN.sub(hide, text))
    return plain.replace(_LT, "<").replace(_GT, ">")


def canonical_label(raw: str) -> str:
    """`![high](…/codereviewagent/high-priority.svg)` → `high`; anything else the usual way."""
    match = _LEVEL.search(raw)
    return match.group(1).casefold() if match else plain_label(raw)


def _title(rest: str) -> str:
    """The first sentence after the badge, kept verbatim (a `HashSet<string>` code span must
    not lose its `<string>` to tag stripping)."""
    lines: list[str] = []
    for line in rest.splitlines():
        if not line.strip():
            if lines:
                break
            continue
        if line.lstrip().startswith(("```", "~~~", "<details")):
            break
        lines.append(line.strip())
    text = _protected_plain(" ".join(lines)[:4000])
    parts = re.split(r"(?<=[.!?])\s", text, maxsplit=1)
    return parts[0].strip() if parts else ""


def _finding(comment: RawComment, body: str, badge: re.Match[str]) -> ParsedComment:
    rest = body[badge.end() :]
    title = _title(rest) or first_sentence(rest)
    file, line, line_end = location(comment)
    finding = make_finding(
        KEY,
        comment,
        title=title,
        severity_raw=badge.group(0),
        file=file,
        line=line,
        line_end=line_end,
        gist=first_sentence(rest),
    )
    if title and title != finding.title and len(title) <= 200:
        # make_finding reduces a title to plain text; Gemini's first sentence is prose whose
        # code spans may hold `<…>`: keep it as written.
        finding = finding.model_copy(
            update={"title": title, "stable_id": stable_finding_id(KEY, file, title, None)}
        )
    return found([finding], "gemini finding")


def parse(comment: RawComment) -> ParsedComment:
    body = clean_body(comment.body)
    if not body.strip():
        return noise("empty gemini comment")
    head = body[:2000]
    badge = _BADGE_MD.search(head) or _BADGE_HTML.search(head)
    if badge is not None and not head[: badge.start()].strip():
        return _finding(comment, body, badge)
    # Notices by Gemini's first line only, never a phrase further down.
    notice = read_notice(head, NOTICES)
    if notice is not None:
        return notice
    if _QUOTA.search(lead(head)):
        return failed("daily quota limit reached", "gemini quota notice", no_budget=True)
    words = own_words(head)  # run states are Gemini's own words, never what it quotes
    if _SUMMARY.search(words) and _REVIEWING.search(words):
        return working("Gemini is reviewing", "gemini summary: currently reviewing")
    if _CODE_REVIEW.search(words) and comment.endpoint == "review":
        return ParsedComment(kind="reviewed", reason="gemini code review")
    if _SUMMARY.search(words):
        return noise("gemini summary of changes")
    if badge is not None:
        return _finding(comment, body, badge)
    if comment.in_reply_to_id is not None:
        return noise("gemini thread reply")
    return unread(KEY, comment, "unrecognised gemini comment")


PROFILE = BotProfile(
    key=KEY,
    display="Gemini",
    logins=LOGINS,
    parse=parse,
    severity={"critical": "critical", "high": "medium", "medium": "medium", "low": "low"},
    canonical_label=canonical_label,
    # The badge's level word is what a reader of the spread needs, not its image markup.
    shown_label=canonical_label,
    pack="fast",
    rerequest=REREQUEST,
    trigger=TRIGGER,
    # "I'm currently reviewing this pull request": its summary before the review lands.
    tracker=Tracker(working=("currently reviewing this pull request",)),
)
