"""OpenAI Codex (`chatgpt-codex-connector[bot]`): shapes are docs/bot-formats.md §1.

Findings carry a shields badge `**<sub><sub>![P1 Badge](https://img.shields.io/badge/P1-…)</sub>
</sub>  Title**`, usually one per inline comment, rarely inside the `### 💡 Codex Review` body
(or an issue comment) after a blob permalink. Everything else Codex writes is a wrapper, a
clean verdict, a status tracker or a notice.
"""

from __future__ import annotations

import re

from reviewcoord.bots.common import (
    PERMALINK,
    clean_body,
    fallback_finding,
    first_sentence,
    found,
    headline,
    location,
    make_finding,
    noise,
)
from reviewcoord.model import BotKey, Finding, ParsedComment, RawComment

KEY: BotKey = "codex"
LOGINS: frozenset[str] = frozenset({"chatgpt-codex-connector[bot]", "chatgpt-codex-connector"})

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
_RUNNING = re.compile(r"🔄|\bRunning\b|\bIn progress\b", re.I)
_FAILED = re.compile(r"❌|\bFailed\b", re.I)
_TICKED_SHA = re.compile(r"`(?P<sha>[0-9a-f]{7,40})`")
_NOTICE = re.compile(
    r"Codex usage limits|reached your Codex usage limit|usage limits for code reviews"
    r"|Credits must be used|^[ \t]*To use Codex here",
    re.I | re.M,
)
_WRAPPER = re.compile(
    r"💡 Codex Review|Here are some automated review suggestions|About Codex in GitHub"
)
_FOOTER = "Useful? React with"


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


def _summary(body: str) -> ParsedComment:
    # The status tracker is edited in place: Running → Completed / Failed (X_summary_fixture).
    # The Commit column is the reviewed commit; a placeholder that is not hex is ignored.
    sha = _TICKED_SHA.search(body)
    commit = sha.group("sha") if sha else None
    if _RUNNING.search(body):
        return ParsedComment(
            kind="in_progress", reason="codex review running", reviewed_commit=commit
        )
    if _FAILED.search(body):
        return noise("codex review failed (status tracker)", commit)
    return noise("codex review completed (status tracker)", commit)


def parse(comment: RawComment) -> ParsedComment:
    body = clean_body(comment.body)
    if not body.strip():
        return noise("empty codex comment")
    commit = _reviewed_commit(body)
    if _SHIELDS in body and _BADGE.search(body):
        findings = _findings(comment, body, commit)
        return found(findings, f"codex {comment.endpoint} finding", commit)
    if _SUMMARY.search(body):
        return _summary(body)
    if _CLEAN.search(body):
        return ParsedComment(kind="clean", reason="codex clean verdict", reviewed_commit=commit)
    if _NOTICE.search(body):
        return noise("codex usage-limit / environment notice")
    if _WRAPPER.search(body):
        if PERMALINK.search(body):
            # A review body that carries a permalink is a finding whose badge we cannot read.
            return fallback_finding(KEY, comment, "codex review body with an unreadable finding")
        return noise("codex review wrapper", commit)
    if comment.in_reply_to_id is not None:
        return noise("codex thread reply")
    return fallback_finding(KEY, comment, "unrecognised codex comment")
