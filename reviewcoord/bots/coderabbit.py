"""CodeRabbit (`coderabbitai[bot]`): shapes are docs/bot-formats.md §11.

A finding is one inline comment whose first line is the `_<type>_ | _<severity>_[ | _<effort>_]`
header (or category first: `_🎯 …_ | _🟠 Major_ | …`), then `**Title.**`. A review body
`**Actionable comments posted: N**` closes a round and carries findings with no thread: items
`` `39-40`: **Title** `` under per-file `<summary>path (n)</summary>` groups of its
`🧹 Nitpick comments` and `⚠️ Outside diff range comments` folds. The one summary/walkthrough
issue comment, edited in place, carries every run state (in progress, reviewed, clean, skipped,
failed, rate limited).
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
from reviewcoord.bots.coderabbit_findings import (
    FOLD_ITEM,
    ITEM,
    QUOTE_PREFIX,
    inline_finding,
    review_items,
)
from reviewcoord.bots.common import (
    clean_body,
    failed,
    first_sentence,
    found,
    lead,
    noise,
    opening_markers,
    own_words,
    plain_text,
    skipped,
    unfenced_lines,
    working,
)
from reviewcoord.bots.notices import Notice, notice_lead, read_notice, unread
from reviewcoord.bots.profile import BotProfile, Tracker
from reviewcoord.model import ParsedComment, RawComment

KEY = "coderabbit"
LOGINS: frozenset[str] = frozenset({"coderabbitai[bot]"})
# Its documented trigger comment (docs/bot-formats.md § Re-requesting).
TRIGGER = "@coderabbitai review"
REREQUEST = f"re-request with `{TRIGGER}`"

_LETTERS = re.compile(r"[^a-z]+")
_ACTIONABLE = re.compile(r"\*\*Actionable comments posted:[ \t]*\d{1,6}\*\*")

# Summary / walkthrough issue comment. Its run states are read from CodeRabbit's own framing
# only — its marker lines `<!-- This is an auto-generated comment: <what> by coderabbit.ai -->`
# and its notice headings (`> ## Review limit reached`), each a whole line outside any fence —
# never from a phrase: a finding quoting "Review limit reached" stays a finding.
_MARKER = re.compile(
    r"This is an auto-generated comment:[ \t]*(?P<what>[a-z][a-z ]{0,40}?)[ \t]+by coderabbit\.ai",
    re.I,
)
_MARKER_LINE = re.compile(r"[ \t]*<!--[ \t]*(?P<inner>[^<>\n]{1,200}?)[ \t]*-->[ \t]*")
_NOTICE_HEADING = re.compile(
    r"[ \t]*(?:>[ \t]?){0,4}#{1,6}[ \t]+(?P<what>Review skipped|Review limit reached|Review failed"
    r"|Reviews paused)[ \t]*",
    re.I,
)
_NO_ACTIONABLE_LINE = re.compile(r"[ \t]*No actionable comments were generated\b", re.I)
_HEADINGS = {
    "review skipped": "skip review",
    "review limit reached": "rate limited",
    "review failed": "failure",
    "reviews paused": "review paused",
}
_SUMMARY_KINDS = frozenset(
    {"summarize", "review in progress", "rate limited", "failure", "skip review", "review paused"}
)
_RANGE = re.compile(
    r"Reviewing files that changed from the base of the PR and between[ \t]{1,4}`?"
    r"(?P<base>[0-9a-fA-F]{7,40})`?[ \t]{1,4}and[ \t]{1,4}`?(?P<head>[0-9a-fA-F]{7,40})"
)
_HEAD_COMMIT_ID = re.compile(
    r"headCommitId[\"'\\]{0,3}[ \t]{0,2}:[ \t]{0,2}[\"'\\]{0,3}(?P<sha>[0-9a-f]{40})"
)
_REPLY = re.compile(r"auto-generated reply by CodeRabbit", re.I)
_ACTIONS_PERFORMED = re.compile(r"(?:[✅☑️ ]{0,4})?Actions? performed\b", re.I)
# "**<org> is on CodeRabbit Free, which includes PR summaries. Ask your admin to upgrade for code
# reviews.**" (no marker; FORMATS-2026 §9): the plan does not include reviews.
NOTICES = (
    Notice(
        re.compile(r"[^\n]{1,200}? is on CodeRabbit Free\b", re.I),
        "skipped",
        "coderabbit free plan: summaries only",
        no_budget=True,
    ),
)


def canonical_label(raw: str) -> str:
    """`_🟠 Major_` → `major`, `🧹 Nitpick` → `nitpick`: the label's words only."""
    return _LETTERS.sub(" ", raw.casefold()).strip()


def _review(comment: RawComment, body: str) -> ParsedComment:
    findings = review_items(comment, body)
    if findings:
        return found(findings, "coderabbit review body items")
    # The round's closing review: a done signal for its commit_id (ingest ties it to the head).
    return ParsedComment(kind="reviewed", reason="coderabbit review posted")


def _reason_after(body: str, at: int) -> str:
    """The first sentence after a heading such as `## Review skipped` (quote marks dropped)."""
    text = QUOTE_PREFIX.sub("", body[at : at + 1000])
    return first_sentence(text)


def _framing(body: str) -> tuple[set[str], int | None]:
    """What CodeRabbit's own framing says in `body`: the kinds of its marker lines and notice
    headings ("rate limited", "skip review", …, "no actionable"), and where the skip notice
    heading ends (its reason follows)."""
    kinds: set[str] = set()
    skip_at: int | None = None
    for line in unfenced_lines(body):
        marker = _MARKER_LINE.fullmatch(line)
        inner = _MARKER.search(marker.group("inner")) if marker else None
        heading = _NOTICE_HEADING.fullmatch(line)
        if inner is not None:
            kinds.add(inner.group("what").casefold().strip())
        elif heading is not None:
            kind = _HEADINGS[heading.group("what").casefold()]
            kinds.add(kind)
            found_at = body.find(line)
            if kind == "skip review" and skip_at is None and found_at >= 0:
                skip_at = found_at + len(line)
        elif _NO_ACTIONABLE_LINE.match(line):
            kinds.add("no actionable")
    return kinds, skip_at


def _summary(body: str) -> ParsedComment:
    reviewed = _RANGE.search(body)
    head = reviewed.group("head").lower() if reviewed else None
    kinds, skip_at = _framing(body)
    if "review in progress" in kinds:
        # Still holds the previous round's walkthrough: presence of one is not "done".
        return working("CodeRabbit is reviewing", "coderabbit review in progress", head)
    if "rate limited" in kinds or "failure" in kinds:
        commit = _HEAD_COMMIT_ID.search(body)
        sha = commit.group("sha") if commit else None
        if "rate limited" in kinds:
            return failed("review limit reached", "coderabbit rate limited", sha, no_budget=True)
        return failed("review failed", "coderabbit review failed", sha)
    if head is not None:
        # A real review range wins over a "Review skipped" notice in the same comment.
        if "no actionable" in kinds:
            return ParsedComment(
                kind="clean", reason="coderabbit no actionable comments", reviewed_commit=head
            )
        return ParsedComment(
            kind="reviewed", reason="coderabbit review range", reviewed_commit=head
        )
    if "skip review" in kinds:
        # A skip that carries only its marker: the wording after it is CodeRabbit's reason.
        own = first_sentence(plain_text(notice_lead(body)))
        why = (_reason_after(body, skip_at) if skip_at is not None else own) or (
            "CodeRabbit skipped the review"
        )
        return skipped(why, "coderabbit review skipped")
    if "no actionable" in kinds:
        return ParsedComment(kind="clean", reason="coderabbit no actionable comments")
    if "review paused" in kinds:
        return skipped("reviews paused", "coderabbit reviews paused")
    return noise("coderabbit walkthrough")


def _is_summary(body: str) -> bool:
    """The summary comment opens with CodeRabbit's marker (the bot's framing, not a phrase)."""
    for inner in opening_markers(body):
        marker = _MARKER.search(inner)
        if marker is not None and marker.group("what").casefold().strip() in _SUMMARY_KINDS:
            return True
    return False


def parse(comment: RawComment) -> ParsedComment:
    body = clean_body(comment.body)
    if not body.strip():
        return noise("empty coderabbit comment")
    opening = lead(body)
    if comment.endpoint == "review" and _ACTIONABLE.match(opening):
        return _review(comment, body)
    # A finding's shape first: whatever its text quotes, an inline header makes it a finding.
    inline = inline_finding(comment, body)
    if inline is not None:
        return found([inline], "coderabbit inline finding")
    if _is_summary(body):
        return _summary(body)
    if comment.endpoint == "review" and (ITEM.search(body) or FOLD_ITEM.search(body)):
        return _review(comment, body)
    notice = read_notice(body, NOTICES)
    if notice is not None:
        return notice
    replied = any(_REPLY.search(inner) for inner in opening_markers(body))
    reply = replied or _ACTIONS_PERFORMED.match(opening) or _FULL_REVIEW.match(opening)
    if reply or comment.in_reply_to_id is not None:
        limit = _limit_reply(body) if reply else None
        return limit or noise("coderabbit reply or notice")
    return unread(KEY, comment, "unrecognised coderabbit comment")


# Its reply to a review command, e.g. "✅ Action performed — Full review finished." and, below a
# rule, the Fair-Usage paragraph "Your included review limit is currently reached … Your next
# included review will be available in 54 minutes." (N5_cr_stillwater2806_fullreview_limit), or
# "You're currently rate limited under our Fair Usage Limits Policy. …": a line of its own in
# CodeRabbit's reply (never a phrase in a quote or code) — the review it answers may not have
# happened: `failed`. A review of the head that did land keeps the bot `reviewed` (a failure
# notice never undoes a finished review of the same head: reviewcoord/ingest.py).
_FULL_REVIEW = re.compile(r"(?:✅[ \t]*)?(?:Full )?review (?:finished|triggered)\.", re.I)
_LIMIT_LINE = re.compile(
    r"^[ \t]{0,3}(?:Your (?:included )?review limit is currently reached|You(?:['’]re| are) "
    r"currently rate limited|You are rate limited by coderabbit\.ai)\b",
    re.I | re.M,
)
_NEXT_IN = re.compile(
    r"available in[ \t]{1,3}(?P<when>\d{1,4}[ \t]{1,3}(?:minutes?|hours?|seconds?))"
)


def _limit_reply(body: str) -> ParsedComment | None:
    words = own_words(body[:4000])
    line = _LIMIT_LINE.search(words)
    if line is None:
        return None
    after = _NEXT_IN.search(words, line.start())
    when = f"; next review in {after.group('when')}" if after else ""
    detail = f"review limit reached (Fair Usage){when}"
    return failed(detail, "coderabbit limit reply", no_budget=True)


# Its own signal (`reviews.review_progress`): a check run, or on older setups a commit status,
# named `CodeRabbit` by `coderabbitai`: pending "Review queued" / "Review in progress", then
# success "Review completed", "Review skipped: …" or "Review rate limited" (failure when
# `fail_commit_status` is on) (docs/bot-formats.md § Reviewers' own checks).
_SKIPPED = re.compile(r"^\s{0,4}Review skipped\b", re.I)
_RATE_LIMITED = re.compile(r"^\s{0,4}Review rate limited\b", re.I)


def _coderabbit_check(view: CheckView) -> Said | None:
    said = (view.title or view.summary).strip()[:200]
    if _SKIPPED.match(said):
        return Said("skipped", said, view.url, view.when)
    if _RATE_LIMITED.match(said):
        return Said("failed", said, view.url, view.when)
    return finishing_or_failed(view)


CHECKS = (
    Check("CodeRabbit", "coderabbitai", meaning=_coderabbit_check),
    Check("CodeRabbit", "coderabbitai", meaning=_coderabbit_check, status=True),
)


PROFILE = BotProfile(
    key=KEY,
    display="CodeRabbit",
    logins=LOGINS,
    parse=parse,
    severity={
        "critical": "critical",
        "major": "medium",
        "minor": "low",
        "trivial": "low",
        "nitpick": "low",
    },
    canonical_label=canonical_label,
    pack="fast",
    rerequest=REREQUEST,
    trigger=TRIGGER,
    reads=kinds_of(*CHECKS),
    evidence=from_checks(*CHECKS),
    # Its summary under review keeps the marker line `<!-- This is an auto-generated comment:
    # review in progress by coderabbit.ai -->` until the new walkthrough replaces it.
    tracker=Tracker(working=("review in progress by coderabbit.ai",)),
)
