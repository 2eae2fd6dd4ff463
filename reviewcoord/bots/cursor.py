"""Cursor Bugbot (`cursor[bot]`): shapes are docs/bot-formats.md §3.

A finding is one inline comment: `### Title`, `**High Severity**`, a `DESCRIPTION` block, a
`BUGBOT_BUG_ID` (the native id Bugbot re-posts on later pushes), a `LOCATIONS` block of
`path#L83-L89` ranges and "Reviewed by … for commit <sha>". Review bodies are wrappers, stale
markers or the clean verdict; issue comments are refusals and notices.
"""

from __future__ import annotations

import re

from reviewcoord.bots.checks import Check, CheckView, Said, from_checks, kinds_of
from reviewcoord.bots.common import (
    clean_body,
    failed,
    first_line,
    first_sentence,
    found,
    headline,
    lead,
    location,
    make_finding,
    noise,
    opening_markers,
    own_words,
    plain_text,
    skipped,
)
from reviewcoord.bots.notices import unread
from reviewcoord.bots.profile import BotProfile
from reviewcoord.model import ParsedComment, RawComment

KEY = "cursor"
LOGINS: frozenset[str] = frozenset({"cursor[bot]"})

_TITLE = re.compile(r"^###[ \t]+(?P<title>[^\n]{1,500})$", re.M)
_SEVERITY = re.compile(
    r"\*\*(?P<raw>(?:Critical|High|Medium|Low) Severity|(?:non-)?blocking)\*\*", re.I
)
_BUG_ID = re.compile(r"BUGBOT_BUG_ID:[ \t]*(?P<id>[0-9A-Za-z-]{1,100})")
_RANGE = re.compile(r"^[ \t]*(?P<path>[^\s#]{1,1000})#L(?P<start>\d{1,7})(?:-L(?P<end>\d{1,7}))?")
# "for commit 16bb9103…", or rendered (C_grok_clean) "for commit [`a294dcb`](…/commit/<40-hex>)".
_COMMIT = re.compile(
    r"for commit[ \t]+\[?`?(?P<sha>[0-9a-fA-F]{7,40})`?\]?"
    r"(?:\(https?://[^)\s]{0,500}/commit/(?P<full>[0-9a-fA-F]{40})\))?"
)
_STALE = re.compile(r"BUGBOT_REVIEW_STALE|Stale Bugbot comment", re.I)
_CLEAN = re.compile(
    r"Bugbot reviewed your changes and found no (?:new issues|bugs)"
    r"|Bugbot found no (?:new )?(?:issues|bugs)",
    re.I,
)
_WRAPPER = re.compile(
    r"BUGBOT_REVIEW|Bugbot has reviewed your changes and found \d+ potential issue", re.I
)
# "Skipping Bugbot: Bugbot is disabled for this repository. …" (C_skip_fixture): the reason is
# the sentence after the colon.
_SKIP = re.compile(r"Skipping Bugbot\b[ \t]*:?[ \t]*(?P<why>[^\n.]{0,200})", re.I)
# "Bugbot couldn't run - usage limit reached" (reported: FORMATS §3 Notices).
_COULD_NOT_RUN = re.compile(
    r"Bugbot (?:couldn['’]t|could not|can['’]t|cannot) run\b[ \t:–—-]*(?P<why>[^\n.]{0,200})", re.I
)
_USAGE = re.compile(r"\busage limit", re.I)
_DISABLED = re.compile(r"\bdisabled\b", re.I)
# Bugbot does not review PRs opened by a bot account: on such a PR it is `skipped` by design.
SKIPS_BOT_PRS = "Bugbot does not review pull requests opened by a bot"
# How a person asks Bugbot again (shown when it did not review the head).
# Its documented trigger comment (docs/bot-formats.md § Re-requesting).
TRIGGER = "cursor review"
REREQUEST = f"re-request with `{TRIGGER}`"
_NOTICE = re.compile(
    r"Skipping Bugbot|Bugbot couldn['’]t run|Bugbot could not run|usage limit"
    r"|free trial|Bugbot is disabled",
    re.I,
)
_SUMMARY = re.compile(r"CURSOR_SUMMARY")
_LAST_FREE = re.compile(
    r"[*_ \t]{0,4}This is the final PR Bugbot will review for you during this billing cycle", re.I
)


def _between(body: str, start: str, end: str) -> str | None:
    """Text between two markers (str.find keeps it linear on a 1 MB body)."""
    at = body.find(start)
    if at < 0:
        return None
    stop = body.find(end, at + len(start))
    return body[at + len(start) : stop] if stop >= 0 else None


def _commit(body: str) -> str | None:
    match = _COMMIT.search(body)
    if not match:
        return None
    return (match.group("full") or match.group("sha")).lower()


def _finding(comment: RawComment, body: str, commit: str | None) -> ParsedComment:
    title_match = _TITLE.search(body)
    severity = _SEVERITY.search(body)
    bug_id = _BUG_ID.search(body)
    description = _between(body, "DESCRIPTION START", "DESCRIPTION END")
    explanation = body
    if description is not None:
        explanation = description.strip().removeprefix("-->").removesuffix("<!--").strip()
    title = title_match.group("title").strip() if title_match else headline(explanation)
    stated: tuple[str | None, int | None, int | None] = (None, None, None)
    locations = _between(body, "LOCATIONS START", "LOCATIONS END")
    if locations:
        # The first range is the primary one; further ranges repeat in "Additional Locations"
        # (C_jdx12718_aur85). Ranges refer to the reviewed commit, so the anchor wins.
        first = _RANGE.search(locations.strip())
        if first:
            end = first.group("end")
            stated = (first.group("path"), int(first.group("start")), int(end) if end else None)
    file, line, line_end = location(comment, *stated)
    finding = make_finding(
        KEY,
        comment,
        title=title or first_line(body),
        severity_raw=severity.group("raw") if severity else None,
        file=file,
        line=line,
        line_end=line_end,
        gist=first_sentence(explanation),
        native_id=bug_id.group("id") if bug_id else None,
        reviewed_commit=commit,
    )
    return found([finding], "bugbot finding", commit)


def _notice(head: str) -> ParsedComment | None:
    skip = _SKIP.search(head)
    if skip:
        why = plain_text(skip.group("why")) or "Bugbot skipped this PR"
        # "Bugbot is disabled for this repository": a set-up stop, never asked again.
        return skipped(why, "bugbot skip notice", no_budget=bool(_DISABLED.search(why)))
    could_not = _COULD_NOT_RUN.search(head)
    if could_not:
        why = plain_text(could_not.group("why")) or "Bugbot could not run"
        return failed(why, "bugbot could not run")
    if _USAGE.search(head):
        return failed("usage limit reached", "bugbot usage-limit notice", no_budget=True)
    return None


def parse(comment: RawComment) -> ParsedComment:
    body = clean_body(comment.body)
    if not body.strip():
        return noise("empty bugbot comment")
    commit = _commit(body)
    if _BUG_ID.search(body) or (_TITLE.search(body) and _SEVERITY.search(body)):
        return _finding(comment, body, commit)
    if _STALE.search(own_words(body)):
        return noise("bugbot stale review", commit)
    # Verdicts and notices by Bugbot's framing: its opening line (or marker), never a phrase.
    opening = lead(body)
    if _CLEAN.search(opening):
        return ParsedComment(kind="clean", reason="bugbot clean verdict", reviewed_commit=commit)
    if _LAST_FREE.match(opening):
        # "This is the final PR Bugbot will review for you during this billing cycle": a
        # warning over a real review; the review's own first line follows it.
        opening = lead(body[body.find(opening) + len(opening) :])
    if _WRAPPER.search(opening) or "BUGBOT_REVIEW" in opening_markers(body):
        # The review that carries the inline findings: a review of its commit (with or
        # without its `<!-- BUGBOT_REVIEW -->` marker).
        return ParsedComment(
            kind="reviewed", reason="bugbot review wrapper", reviewed_commit=commit
        )
    notice = _notice(opening)
    if notice is not None:
        return notice
    if _NOTICE.search(opening):
        return noise("bugbot trial notice")
    if _SUMMARY.search(own_words(body)):
        return noise("bugbot PR summary block", commit)
    if comment.in_reply_to_id is not None:
        return noise("bugbot thread reply")
    return unread(KEY, comment, "unrecognised bugbot comment")


# Its check run `Cursor Bugbot` (app `cursor`): in progress while it works; `success` when it
# found nothing (often with no comment at all); `neutral` with findings, or titled "Bugbot
# couldn't run - usage limit reached" (docs/bot-formats.md § Reviewers' own checks).
_BUGBOT_LIMIT = re.compile(r"^\s{0,4}Bugbot couldn.t run\b|usage limit", re.I)
_FAILED_CONCLUSIONS = frozenset({"failure", "cancelled", "timed_out", "action_required", "stale"})


def _bugbot_check(view: CheckView) -> Said | None:
    title = view.title[:200]
    if view.conclusion == "success":
        return Said("reviewed", "its check run `Cursor Bugbot` found no bugs", view.url, view.when)
    if view.conclusion == "neutral" and _BUGBOT_LIMIT.search(title):
        return Said("failed", title, view.url, view.when)
    if view.conclusion == "neutral":
        return Said("finishing", "its check run `Cursor Bugbot` reports findings", view.url)
    if view.conclusion in _FAILED_CONCLUSIONS:
        why = f": {title}" if title else ""
        return Said("failed", f"its check run ended {view.conclusion}{why}", view.url, view.when)
    return None


CHECKS = (Check("Cursor Bugbot", "cursor", meaning=_bugbot_check),)


PROFILE = BotProfile(
    key=KEY,
    display="Cursor",
    logins=LOGINS,
    parse=parse,
    severity={
        "critical": "critical",
        "high": "critical",
        "blocking": "critical",
        "medium": "medium",
        "non-blocking": "medium",
        "low": "low",
    },
    rerequest=REREQUEST,
    trigger=TRIGGER,
    skips_bot_prs=SKIPS_BOT_PRS,
    # Not declared: it re-posts some findings on later pushes, but no source shows that it
    # repeats every one still present (docs/bot-formats.md § Repeats findings).
    repeats_findings=False,
    reads=kinds_of(*CHECKS),
    evidence=from_checks(*CHECKS),
)
