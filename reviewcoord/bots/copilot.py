"""GitHub Copilot code review: shapes are docs/bot-formats.md §2.

Three logins, one reviewer: review bodies come from `copilot-pull-request-reviewer[bot]`, inline
comments from `Copilot` (REST) or `copilot-pull-request-reviewer` (GraphQL). `Copilot` is also the
coding agent, whose thread replies and issue comments are chatter, never findings.

Inline findings are untitled prose (title = first sentence, `[nitpick] ` stripped into the
label). Review bodies are overviews (noise: the findings are inline), clean verdicts, notices,
or carry low-confidence findings as `**path:line**` items under "Comments suppressed due to low
confidence (N)" (generations 1–2) or "### Suppressed comments (N)" (generation 3).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import reviewcoord.bots.copilot_v2 as copilot_v2
from reviewcoord.bots.checks import Check, from_checks, kinds_of
from reviewcoord.bots.common import (
    clean_body,
    failed,
    first_sentence,
    found,
    headline,
    lead,
    location,
    make_finding,
    noise,
    own_words,
    skipped,
)
from reviewcoord.bots.notices import unread
from reviewcoord.bots.profile import BotProfile, plain_label
from reviewcoord.model import Finding, ParsedComment, RawComment

KEY = "copilot"
# REST: reviews by `copilot-pull-request-reviewer[bot]`, inline comments by `Copilot` — both
# `type: Bot` (GraphQL's `copilot-pull-request-reviewer` is derived from the first).
LOGINS: frozenset[str] = frozenset({"copilot-pull-request-reviewer[bot]", "Copilot"})

NITPICK = "[nitpick]"
SUPPRESSED = "suppressed (low confidence)"

_NITPICK = re.compile(r"[ \t]*\[nitpick\][ \t]*", re.I)
_NOT_ABLE = re.compile(r"Copilot wasn['’]t able to review|Copilot was not able to review", re.I)
# "Copilot was unable to review this pull request because the user who requested the review has
# reached their quota limit." (FORMATS-2026 §9): a quota failure, not a review.
_QUOTA = re.compile(r"Copilot was unable to review\b.{0,200}?\bquota limit", re.I)
# "… because it exceeds the maximum number of files (300)" (FORMATS §2 Notices).
_TOO_MANY = re.compile(r"exceeds the maximum number of files[ \t]*(?:\((?P<n>\d{1,7})\))?", re.I)
# A backend failure posted as a COMMENTED review (N3_cop_vllm31104_error).
_ERROR = re.compile(r"Copilot encountered an error and was unable to review", re.I)
# How a person asks Copilot again (shown when it did not review the head).
REREQUEST = "re-request a review from Copilot"
# The login `POST pulls/{n}/requested_reviewers` takes for it; `Copilot` answers 200 and requests
# nothing, the login without `[bot]` 422 (docs/bot-formats.md § Re-requesting).
REVIEW_LOGIN = "copilot-pull-request-reviewer[bot]"
_APPROVE = re.compile(r"^#{1,4}[ \t]*🟢[ \t]*Approval recommended", re.M)
_VERDICT = re.compile(
    r"^#{1,4}[ \t]*(?:🟡|🔵)[ \t]*(?:Changes recommended|Needs a closer look)", re.M
)
_NO_COMMENTS = re.compile(r"generated (?:no|0) comments|Comments generated:\**[ \t]*0\b", re.I)
_OVERVIEW = re.compile(
    r"Pull request overview|Copilot reviewed \d+ out of \d+ changed files|Reviewed changes", re.I
)
# Coding-agent replies that sit on pulls/comments like findings (Z41: "Done. Removed the preview
# test case … Changes in commit 0c66f2d."): told by how the reply *opens*, never by a phrase
# inside — a finding that mentions "fixed in 0c66f2d" stays a finding.
_AGENT_REPLY = re.compile(
    r"(?:Done|Fixed|Addressed|Updated|Reverted|Good catch|Thanks|Thank you)\b[.!,:]"
    r"|I(?:['’]ve| have| will|['’]ll) ",
    re.I,
)

# Section headers that open a list of suppressed items, and the "Previously missed" group of
# generation 3 (P_qoax_r2_closer, where it sits *inside* "### Suppressed comments (11)").
_SUPPRESSED_HEAD = re.compile(
    r"Comments suppressed due to low confidence \(\d+\)|^#{1,4}[ \t]*Suppressed comments \(\d+\)",
    re.I,
)
_MISSED_HEAD = re.compile(r"^\**Previously missed \(\d+\)", re.I)
_SECTION_END = re.compile(
    r"^[ \t]*(?:</details>|- \*\*(?:Files reviewed|Comments generated|Review effort))", re.I
)
_ITEM = re.compile(r"^[ \t]{0,3}\*\*(?P<path>[^*\s][^*\n]{0,500}?):(?P<line>\d{1,7})\*\*[ \t]*$")
_FENCE = re.compile(r"^[ \t]{0,3}(?:```|~~~)")
_BULLET = re.compile(r"^[ \t]*[*-][ \t]+")


@dataclass
class _Item:
    path: str
    line: int
    label: str | None
    lines: list[str] = field(default_factory=list)


def _items(body: str) -> list[_Item]:
    items: list[_Item] = []
    section: str | None = None  # "suppressed" / "missed" / None
    in_fence = False
    for line in body.split("\n"):
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        if _SUPPRESSED_HEAD.search(line):
            section = "suppressed"
        elif _MISSED_HEAD.match(line.strip()):
            # Inside a suppressed section it is only a sub-group: its items stay suppressed.
            section = section or "missed"
        elif _SECTION_END.match(line):
            section = None
        elif section and (item := _ITEM.match(line)):
            label = SUPPRESSED if section == "suppressed" else None
            items.append(_Item(item.group("path").strip(), int(item.group("line")), label))
        elif items and section:
            items[-1].lines.append(line)
    return items


def _suppressed_findings(comment: RawComment, body: str) -> list[Finding]:
    findings = []
    for item in _items(body):
        text = "\n".join(item.lines).strip()
        text = _BULLET.sub("", text, count=1)
        label = item.label
        nit = _NITPICK.match(text)
        if nit:
            label, text = NITPICK, text[nit.end() :]
        file, line, line_end = location(comment, item.path, item.line)
        findings.append(
            make_finding(
                KEY,
                comment,
                title=headline(text) or f"{item.path}:{item.line}",
                severity_raw=label,
                file=file,
                line=line,
                line_end=line_end,
                gist=first_sentence(text),
            )
        )
    return findings


def _review(comment: RawComment, body: str) -> ParsedComment:
    opening = lead(body)  # notices are Copilot's first line, never a phrase further down
    if _ERROR.match(opening):
        return failed("encountered an error and was unable to review", "copilot error review")
    if _NOT_ABLE.match(opening):
        too_many = _TOO_MANY.search(opening)
        if too_many:
            limit = f" ({too_many.group('n')})" if too_many.group("n") else ""
            return skipped(
                f"the PR exceeds Copilot's maximum number of files{limit}",
                "copilot: too many files",
            )
        return skipped("no files it could review", "copilot could not review any files")
    if _QUOTA.match(opening):
        detail = "the requesting user reached their Copilot quota limit"
        return failed(detail, "copilot quota", no_budget=True)
    if copilot_v2.is_v2(body):
        return _overview_v2(comment, body)
    suppressed = _suppressed_findings(comment, body)
    if suppressed:
        return found(suppressed, "copilot review body with suppressed findings")
    body = own_words(body)  # verdicts are Copilot's own lines, never what it quotes
    if _APPROVE.search(body):
        return ParsedComment(kind="clean", reason="copilot verdict: approval recommended")
    if _VERDICT.search(body):
        # A verdict on the head is a review of it, whichever colour (the findings are inline).
        return ParsedComment(kind="reviewed", reason="copilot verdict overview")
    if _NO_COMMENTS.search(body):
        return ParsedComment(kind="clean", reason="copilot generated no comments")
    if _OVERVIEW.search(body):
        return noise("copilot pull request overview (findings are inline)")
    return unread(KEY, comment, "unrecognised copilot review body")


def _overview_v2(comment: RawComment, body: str) -> ParsedComment:
    """Any v2 overview is a review of its commit: its heading and summary are no finding; its
    `Previously missed` items are; its Open/Resolved lists mark the inline threads."""
    overview = copilot_v2.read_overview(body)
    marks = tuple(overview.marks)
    missed = copilot_v2.missed_findings(KEY, comment, overview)
    if missed:
        return ParsedComment(
            kind="finding", findings=tuple(missed), marks=marks, reason="copilot overview v2"
        )
    is_open = any(not mark.resolved for mark in marks)
    return ParsedComment(
        kind="reviewed" if is_open else "clean", marks=marks, reason="copilot overview v2"
    )


def _inline(comment: RawComment, body: str) -> ParsedComment:
    if comment.in_reply_to_id is not None:
        return noise("copilot thread reply (coding agent or follow-up)")
    text = body.strip()
    if _AGENT_REPLY.match(lead(text)):
        return noise("copilot coding-agent reply")
    label = None
    nit = _NITPICK.match(text)
    if nit:
        label, text = NITPICK, text[nit.end() :]
    title = headline(text)
    if not title:
        return unread(KEY, comment, "copilot inline comment without prose")
    file, line, line_end = location(comment)
    finding = make_finding(
        KEY,
        comment,
        title=title,
        severity_raw=label,
        file=file,
        line=line,
        line_end=line_end,
        gist=first_sentence(text),
    )
    return found([finding], "copilot inline finding")


def parse(comment: RawComment) -> ParsedComment:
    body = clean_body(comment.body)
    if not body.strip():
        return noise("empty copilot comment")
    if comment.endpoint == "issue_comment":
        # The reviewer posts no issue comments; these are the coding agent's (Z34).
        return noise("copilot coding-agent issue comment")
    if comment.endpoint == "review":
        return _with_effort(_review(comment, body), body)
    return _inline(comment, body)


# The effort the review used: `**Review effort:** Balanced` (overview v2) or, in its "Review
# details" fold, `- **Review effort level:** Lite` (N5_cop_dagcore753_review_details). Kept as
# the review's detail (the verdict's `bots.copilot.detail`) and for the scorecard.
_EFFORT = re.compile(
    r"^[ \t]{0,3}(?:[-*][ \t]+)?\*\*Review effort(?: level)?:\*\*[ \t]*"
    r"(?P<effort>[A-Za-z][A-Za-z -]{0,19}?)[ \t]*$",
    re.M,
)


def _with_effort(parsed: ParsedComment, body: str) -> ParsedComment:
    if parsed.kind not in ("finding", "clean", "reviewed"):
        return parsed
    said = _EFFORT.search(own_words(body[:20_000]))
    if said is None:
        return parsed
    effort = said.group("effort").strip()
    return parsed.model_copy(
        update={"effort": effort, "detail": parsed.detail or f"review effort: {effort}"}
    )


def canonical_label(raw: str) -> str:
    """`suppressed (low confidence)` → `suppressed`; otherwise the plain form."""
    text = plain_label(raw)
    return "suppressed" if text.startswith("suppressed") else text


# Its own run: a GitHub-managed Actions run (workflow "Copilot code review"), whose check run
# `copilot-pull-request-reviewer` is in progress while it reviews (docs/bot-formats.md
# § Reviewers' own checks). Made by `github-actions`, an app any workflow runs as: it can only
# make us wait; the review it posts decides (a quota run may end `success`).
CHECKS = (Check("copilot-pull-request-reviewer", "github-actions", meaning=lambda view: None),)


PROFILE = BotProfile(
    key=KEY,
    display="Copilot",
    logins=LOGINS,
    parse=parse,
    severity={
        "high": "critical",
        "medium": "medium",
        "low": "low",
        "[nitpick]": "low",
        "nitpick": "low",
        "suppressed": "low",
    },
    canonical_label=canonical_label,
    rerequest=REREQUEST,
    review_login=REVIEW_LOGIN,
    reads=kinds_of(*CHECKS),
    evidence=from_checks(*CHECKS),
)
