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

from reviewcoord.bots.checks import Check, CheckView, Said, from_checks, kinds_of
from reviewcoord.bots.common import (
    Notice,
    clean_body,
    failed,
    first_line,
    first_sentence,
    found,
    lead,
    location,
    make_finding,
    marked_lines,
    noise,
    notice_lead,
    opening_markers,
    plain_text,
    read_notice,
    skipped,
    unfenced_lines,
    unread,
    working,
)
from reviewcoord.bots.profile import BotProfile
from reviewcoord.model import Finding, ParsedComment, RawComment

KEY = "coderabbit"
LOGINS: frozenset[str] = frozenset({"coderabbitai[bot]"})
# Its documented trigger comment (docs/bot-formats.md § Re-requesting).
TRIGGER = "@coderabbitai review"
REREQUEST = f"re-request with `{TRIGGER}`"

# `_⚠️ Potential issue_ | _🟠 Major_ | _⚡ Quick win_`: two to five `_field_`s on one line.
_HEADER = re.compile(
    r"^[ \t]{0,3}_[^_\n]{1,80}_(?:[ \t]{0,4}\|[ \t]{0,4}_[^_\n]{1,80}_){1,4}[ \t]*$", re.M
)
_FIELD = re.compile(r"_(?P<field>[^_\n]{1,80})_")
# The severity vocabulary, wherever the field stands (effort tags carry none of these words).
_SEVERITY_WORD = re.compile(r"(?<![A-Za-z])(?:Critical|Major|Minor|Trivial)(?![A-Za-z])")
_NITPICK_WORD = re.compile(r"(?<![A-Za-z])Nitpick(?![A-Za-z])")
_TITLE = re.compile(r"^[ \t]{0,3}\*\*(?P<title>[^\n]{1,500}?)\*\*[ \t]*$", re.M)
_LETTERS = re.compile(r"[^a-z]+")

# Review body.
_ACTIONABLE = re.compile(r"\*\*Actionable comments posted:[ \t]*\d{1,6}\*\*")
_SUMMARY_TAG = re.compile(
    r"<summary>(?P<text>[^<>\n]{1,500}?)(?:[ \t]\((?P<count>\d{1,6})\))?</summary>"
)
_ITEM = re.compile(
    r"^[ \t>]{0,20}`(?P<start>\d{1,7})(?:[ \t]{0,2}[-–][ \t]{0,2}(?P<end>\d{1,7}))?`:[ \t]{0,4}"
    r"\*\*(?P<title>[^\n]{1,500}?)\*\*",
    re.M,
)
# The outside-diff layout of late 2026: one fold per item whose summary holds it all —
# `<summary><em>🟡 Minor</em> · title · <code>path:295-299</code></summary>`.
_FOLD_ITEM = re.compile(
    r"<summary>[ \t]{0,4}<em>(?P<level>[^<>\n]{1,60})</em>[ \t]{0,4}·[ \t]{0,4}"
    r"(?P<title>[^\n]{1,600}?)[ \t]{0,4}·[ \t]{0,4}<code>(?P<path>[^<>\s]{1,500}?):"
    r"(?P<start>\d{1,7})(?:[ \t]{0,2}[-–][ \t]{0,2}(?P<end>\d{1,7}))?</code>[ \t]{0,4}</summary>"
)
_PATH_START = re.compile(r"[A-Za-z0-9._/~@+-]")
NITPICK_LABEL = "🧹 Nitpick"

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
_QUOTE_PREFIX = re.compile(r"^[ \t]{0,8}(?:>[ \t]{0,4}){0,8}(?:#{1,6}[ \t]{1,4})?", re.M)
_HEAD_LIMIT = 4000
# "**<org> is on CodeRabbit Free, which includes PR summaries. Ask your admin to upgrade for code
# reviews.**" (no marker; FORMATS-2026 §9): the plan does not include reviews.
NOTICES = (
    Notice(
        re.compile(r"[^\n]{1,200}? is on CodeRabbit Free\b", re.I),
        "skipped",
        "coderabbit free plan: summaries only",
    ),
)


def canonical_label(raw: str) -> str:
    """`_🟠 Major_` → `major`, `🧹 Nitpick` → `nitpick`: the label's words only."""
    return _LETTERS.sub(" ", raw.casefold()).strip()


def _severity_field(text: str) -> str | None:
    """The raw severity of a header line in `text`'s opening (`_🟠 Major_`), else None."""
    header = _HEADER.search(text[:_HEAD_LIMIT])
    if header is None:
        return None
    fields = [m.group(0) for m in _FIELD.finditer(header.group(0))]
    for raw in fields:
        if _SEVERITY_WORD.search(raw):
            return raw
    for raw in fields:  # no severity word: a `_🧹 Nitpick_` type alone is the label
        if _NITPICK_WORD.search(raw):
            return raw
    return None


_DETAILS_OPEN = re.compile(r"<details\b", re.I)
_DETAILS_CLOSE = re.compile(r"</details>", re.I)
_TITLE_SCAN = 60_000
# `**Title.**` alone on its line, or leading it (`**Title.** More of the explanation.`).
_LEAD_TITLE = re.compile(r"[ \t]{0,3}\*\*(?P<title>[^*\n]{1,500}?)\*\*(?=[ \t]|$)")


def _title(rest: str) -> tuple[str, str]:
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


def _inline(comment: RawComment, body: str) -> ParsedComment | None:
    header = _HEADER.search(body[:_HEAD_LIMIT])
    if header is None:
        return None
    rest = body[header.end() :]
    title, explanation = _title(rest)
    file, line, line_end = location(comment)
    finding = make_finding(
        KEY,
        comment,
        title=title or first_line(body),
        severity_raw=_severity_field(body),
        file=file,
        line=line,
        line_end=line_end,
        gist=first_sentence(explanation),
    )
    return found([finding], "coderabbit inline finding")


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


def _review_items(comment: RawComment, body: str) -> list[Finding]:
    """The nitpick and outside-diff items of a review body, in order."""
    tokens: list[tuple[int, int, re.Match[str], str]] = []
    for tag in _SUMMARY_TAG.finditer(body):
        tokens.append((tag.start(), tag.end(), tag, "summary"))
    for item in _ITEM.finditer(body):
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
        text = body[end:stop]
        start_line = int(match.group("start"))
        end_raw = match.group("end")
        line_end = int(end_raw) if end_raw and int(end_raw) > start_line else None
        severity = NITPICK_LABEL if section == "nitpick" else _severity_field(text)
        findings.append(
            make_finding(
                KEY,
                comment,
                title=match.group("title").strip(),
                severity_raw=severity,
                file=path,
                line=start_line,
                line_end=line_end,
                gist=first_sentence(text),
            )
        )
    return findings


def _fold_items(comment: RawComment, body: str) -> list[Finding]:
    """The items of the late-2026 outside-diff layout (`_FOLD_ITEM`), each a finding with its
    level, title, file and lines; the gist is the prose of its fold."""
    matches = list(_FOLD_ITEM.finditer(body))
    findings: list[Finding] = []
    for index, match in enumerate(matches):
        stop = matches[index + 1].start() if index + 1 < len(matches) else len(body)
        text = _QUOTE_PREFIX.sub("", body[match.end() : stop])
        _, explanation = _title(text.split("\n", 1)[-1] if _HEADER.search(text) else text)
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


def _review(comment: RawComment, body: str) -> ParsedComment:
    findings = _review_items(comment, body) + _fold_items(comment, body)
    if findings:
        return found(findings, "coderabbit review body items")
    # The round's closing review: a done signal for its commit_id (ingest ties it to the head).
    return ParsedComment(kind="reviewed", reason="coderabbit review posted")


def _reason_after(body: str, at: int) -> str:
    """The first sentence after a heading such as `## Review skipped` (quote marks dropped)."""
    text = _QUOTE_PREFIX.sub("", body[at : at + 1000])
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
            return failed("review limit reached", "coderabbit rate limited", sha)
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
    inline = _inline(comment, body)
    if inline is not None:
        return inline
    if _is_summary(body):
        return _summary(body)
    if comment.endpoint == "review" and (_ITEM.search(body) or _FOLD_ITEM.search(body)):
        return _review(comment, body)
    notice = read_notice(body, NOTICES)
    if notice is not None:
        return notice
    replied = any(_REPLY.search(inner) for inner in opening_markers(body))
    if comment.in_reply_to_id is not None or replied or _ACTIONS_PERFORMED.match(opening):
        return noise("coderabbit reply or notice")
    return unread(KEY, comment, "unrecognised coderabbit comment")


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
    if view.conclusion in ("success", "neutral"):
        return Said("finishing", f"its check says {said or view.conclusion}", view.url)
    why = f": {said}" if said else ""
    return Said("failed", f"its check ended {view.conclusion}{why}", view.url, view.when)


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
)
