"""OpenAI Codex (`chatgpt-codex-connector[bot]`): shapes are docs/bot-formats.md §1.

Findings carry a shields badge `**<sub><sub>![P1 Badge](https://img.shields.io/badge/P1-…)</sub>
</sub>  Title**`, usually one per inline comment, rarely inside the `### 💡 Codex Review` body
(or an issue comment) after a blob permalink. Everything else Codex writes is a wrapper, a
clean verdict, a status tracker or a notice.
"""

from __future__ import annotations

import re

from reviewcoord.bots.checks import EvidenceContext, FromEvidence, Said, reactions_by
from reviewcoord.bots.codex_tracker import tracker
from reviewcoord.bots.common import (
    PERMALINK,
    clean_body,
    failed,
    first_sentence,
    found,
    headline,
    lead,
    location,
    make_finding,
    noise,
    opening_markers,
    own_words,
)
from reviewcoord.bots.notices import unread
from reviewcoord.bots.profile import BotProfile, Tracker
from reviewcoord.model import Finding, ParsedComment, RawComment
from reviewcoord.reading import Evidence

KEY = "codex"
LOGINS: frozenset[str] = frozenset({"chatgpt-codex-connector[bot]"})

# The badge image. The label is read from the alt text or the shields path (`P1-orange`), never
# from the colour: fixtures draw `P3-blue`/`P3-green`, real comments `P3-lightgrey`.
_BADGE = re.compile(
    r"!\[(?P<alt>[^\]\n]{0,80})\]\(https?://img\.shields\.io/badge/(?P<label>[^)\s?/]{0,80})"
    r"[^)\s]{0,300}\)"
)
_SHIELDS = "img.shields.io/badge/"  # cheap pre-check before the badge regex
_P_LABEL = re.compile(r"\bP\d\b")
_SUB_TAGS = re.compile(r"^(?:[ \t]*</?sub>)*[ \t]*")
_REVIEWED_COMMIT = re.compile(r"\*\*Reviewed commit:\*\*[ \t]*`?(?P<sha>[0-9a-fA-F]{7,40})\b")
_CLEAN = re.compile(r"Codex Review:[ \t]*Did(?:n['’]t| not) find any major issues", re.I)
_SUMMARY = re.compile(r"<!--[ \t]*codex-pull-request-review-summary|##[ \t]*Codex Review Summary")
# Notices that Codex could not review (issue comments; FORMATS §1 "Notices"; the org-credit
# variant N3_codex_dotfiles281_quota_credits). Each: (pattern, one-line detail, no budget: a
# usage, credit or set-up stop that asking again cannot lift — reviewcoord/rerequest.py).
_FAILURE_NOTICES: tuple[tuple[re.Pattern[str], str, bool], ...] = (
    (
        re.compile(
            r"Codex usage limits have been reached|You have reached your Codex usage limits", re.I
        ),
        "usage limit reached",
        True,
    ),
    (re.compile(r"Credits must be used to enable", re.I), "credits are required for reviews", True),
    # "Codex Review: Something went wrong. Try again later by commenting "@codex review"." (both
    # quote styles; N5_codex_wentwrong_*): a transient error — retriable.
    (
        re.compile(r"Codex Review:[ \t]*Something went wrong\b", re.I),
        "something went wrong; retry with `@codex review`",
        False,
    ),
    (
        re.compile(r"To use Codex here", re.I),
        "Codex is not set up for this repository (no environment or account connected)",
        True,
    ),
    # Reported only (no real body collected): "couldn't complete this request" and similar.
    (
        re.compile(
            r"[^\n]{0,80}?\b(?:could ?n[o']?t|couldn’t|was ?n[o']?t able to|wasn’t able to"
            r"|unable to)"
            r"[ \t]+complete[ \t]+(?:this|the|your)?[ \t]*(?:request|review)",
            re.I,
        ),
        "could not complete the review request",
        False,
    ),
)
# A review body that wraps inline findings: the code review's (`### 💡 Codex Review`) and the
# security review's (`### 🛡️ Codex Security Review · _Automatically triggered_`, N5_codex_*).
_WRAPPER = re.compile(
    r"💡 Codex Review|🛡️ Codex Security Review|Here are some automated (?:security )?review "
    r"suggestions|About Codex (?:security reviews )?in GitHub"
)
_FOOTER = "Useful? React with"
# How a person asks Codex again (shown when it did not review the head).
# Its documented trigger comment (docs/bot-formats.md § Re-requesting).
TRIGGER = "@codex review"
REREQUEST = f"re-request with `{TRIGGER}`"


def _reviewed_commit(body: str) -> str | None:
    match = _REVIEWED_COMMIT.search(body)
    return match.group("sha").lower() if match else None


def _severity(badge: re.Match[str]) -> str | None:
    alt = _P_LABEL.search(badge.group("alt"))
    if alt:
        return alt.group(0)
    path = re.match(r"(P\d)(?:-|$)", badge.group("label"))
    return path.group(1) if path else None


def _findings(comment: RawComment, body: str, commit: str | None) -> list[Finding]:
    findings = []
    badges = list(_BADGE.finditer(body)) if _SHIELDS in body else []
    for index, badge in enumerate(badges):
        line_end = body.find("\n", badge.end())
        line_end = len(body) if line_end < 0 else line_end
        after = _SUB_TAGS.sub("", body[badge.end() : line_end])
        title = after.split("**", 1)[0].strip()
        stop = badges[index + 1].start() if index + 1 < len(badges) else len(body)
        explanation = body[line_end:stop].split(_FOOTER, 1)[0].split("<details", 1)[0]
        # The permalink (if any) sits between the previous badge and this one, on its own line
        # just before the badge (SkogAI/memory#2 review 4125529841).
        previous = badges[index - 1].end() if index else 0
        links = list(PERMALINK.finditer(body, previous, badge.start()))
        link = links[-1] if links else None
        start = int(link.group("start")) if link else None
        end = int(link.group("end")) if link and link.group("end") else None
        file, line, last = location(comment, link.group("path") if link else None, start, end)
        findings.append(
            make_finding(
                KEY,
                comment,
                title=title or headline(explanation),
                severity_raw=_severity(badge),
                file=file,
                line=line,
                line_end=last,
                gist=first_sentence(explanation),
                reviewed_commit=commit,
            )
        )
    return findings


def _failure_notice(body: str) -> ParsedComment | None:
    """A notice by its first line only (Codex opens every notice with it), never a phrase."""
    head = lead(body)
    for pattern, detail, no_budget in _FAILURE_NOTICES:
        if pattern.match(head):
            return failed(detail, f"codex notice: {detail}", no_budget=no_budget)
    return None


def parse(comment: RawComment) -> ParsedComment:
    body = clean_body(comment.body)
    if not body.strip():
        return noise("empty codex comment")
    commit = _reviewed_commit(body)
    if _SHIELDS in body and _BADGE.search(body):
        findings = _findings(comment, body, commit)
        return found(findings, f"codex {comment.endpoint} finding", commit)
    framed = any("codex-pull-request-review-summary" in m for m in opening_markers(body))
    if framed or _SUMMARY.match(lead(body)):  # the tracker by its framing, not a phrase
        return tracker(body)
    if _CLEAN.match(lead(body)):
        return ParsedComment(kind="clean", reason="codex clean verdict", reviewed_commit=commit)
    notice = _failure_notice(body)
    if notice is not None:
        return notice
    if _WRAPPER.search(own_words(body)):
        if PERMALINK.search(body):
            # A review body that carries a permalink is a finding whose badge we cannot read.
            return unread(KEY, comment, "codex review body with an unreadable finding")
        security = "security " if "Codex Security Review" in body else ""
        return noise(f"codex {security}review wrapper", commit)
    if comment.in_reply_to_id is not None:
        return noise("codex thread reply")
    return unread(KEY, comment, "unrecognised codex comment")


# No check run or status: 👀 on the PR while it works, 👍 when it found nothing — sometimes the
# only sign of a clean review (docs/bot-formats.md § Reviewers' own checks). A reaction names no
# commit: those that bind to the head count (reviewcoord/binding.py); the newest wins.
def _reactions(evidence: Evidence, context: EvidenceContext) -> FromEvidence:
    mine = reactions_by(evidence, context)
    newest = mine[-1] if mine else None
    if newest is not None and newest.content == "+1":
        said = Said("reviewed", "👍 on the PR: nothing to fix", when=newest.created_at)
        return FromEvidence(said=said)
    if newest is not None and newest.content == "eyes":
        return FromEvidence(said=Said("working", "👀 on the PR: reviewing"))
    return FromEvidence()


PROFILE = BotProfile(
    key=KEY,
    display="Codex",
    logins=LOGINS,
    parse=parse,
    severity={"p0": "critical", "p1": "critical", "p2": "medium", "p3": "low"},
    pack="slow",
    rerequest=REREQUEST,
    trigger=TRIGGER,
    reads=frozenset({"reactions"}),
    evidence=_reactions,
    # Its status table (`_summary`), edited in place: working until a row says done.
    tracker=Tracker(
        working=("<!-- codex-pull-request-review-summary -->",),
        done=("**Completed", "**Failed", "**Error", "**Timed out", "**Cancel"),
    ),
)
