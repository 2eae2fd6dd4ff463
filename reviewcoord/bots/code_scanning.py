"""GitHub code scanning (`github-advanced-security[bot]`): shapes are docs/bot-formats.md §15.

Not a reviewer but a source: its findings are the PR's open code-scanning alerts (CodeQL or any
SARIF upload), a part of the reading (`reads={"alerts"}`: `GET code-scanning/alerts?ref=
refs/pull/<n>/merge`, once an analysis of the PR's merge commit exists, reviewcoord/reading.py),
levelled by docs/severity.md § "Code scanning (SAST) alerts". It is in neither pack
(`pack="none"`): settle never waits for it and `expected-bots` never holds it.

Its inline comments are the same alerts, seen on the PR: `## <Tool> / <Rule name>`, one
message sentence, `[Show more details](…/security/code-scanning/<alert number>)` and no
severity (a `medium` finding until the alert is read). The alert number is the finding's
native id, so the inline comment and its alert share one stable id: when the alerts were read,
`judge_alerts` (the profile's `evidence`) replaces the inline findings by the alerts' own. The
COMMENTED review that carries the inline comments has an empty body (noise).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from reviewcoord.bots.checks import EvidenceContext, FromEvidence, Said
from reviewcoord.bots.common import (
    clean_body,
    first_sentence,
    found,
    location,
    make_finding,
    noise,
)
from reviewcoord.bots.notices import unread
from reviewcoord.bots.profile import BotProfile
from reviewcoord.model import Finding, Frozen, Level, ParsedComment, ParseNote, RawComment
from reviewcoord.reading import Evidence
from reviewcoord.rest import _get, _int, _str

KEY = "code-scanning"
DISPLAY = "Code scanning"
LOGINS: frozenset[str] = frozenset({"github-advanced-security[bot]"})

# One table over both of GitHub's vocabularies (`security_severity_level`, then
# `rule.severity`); their labels never overlap (docs/severity.md).
SEVERITY: dict[str, Level] = {
    "critical": "critical",
    "high": "critical",
    "medium": "medium",
    "low": "low",
    "error": "medium",
    "warning": "medium",
    "note": "low",
    "none": "low",
}
# The states GitHub gives a closed alert; anything but `open` is no finding.
CLOSED_STATES = frozenset({"dismissed", "fixed", "closed", "auto_dismissed"})

_HEADING = re.compile(r"^#{1,6}[ \t]*(?P<tool>[^\n/]{1,100}?)[ \t]+/[ \t]+(?P<rule>[^\n]{1,300})$")
_ALERT_LINK = re.compile(r"/security/code-scanning/(?P<number>\d{1,9})\b")
_DETAILS_LINK = re.compile(r"^\[Show more details\]\([^)\n]{0,1000}\)[ \t]*$", re.M)


# --------------------------------------------------------------------------- inline comments


def parse(comment: RawComment) -> ParsedComment:
    body = clean_body(comment.body).strip()
    if not body:
        return noise("empty code scanning review body")
    heading, _, rest_of_body = body.partition("\n")
    match = _HEADING.match(heading.strip())
    if match is None:
        return unread(KEY, comment, "unrecognised code scanning comment")
    number = _ALERT_LINK.search(body[-2000:])
    file, line, line_end = location(comment)
    finding = make_finding(
        KEY,
        comment,
        title=match.group("rule"),
        severity_raw=None,  # the alert holds the level; `with_alerts` takes it from there
        file=file,
        line=line,
        line_end=line_end,
        gist=first_sentence(_DETAILS_LINK.sub("", rest_of_body)),
        native_id=number.group("number") if number else None,
    )
    return found([finding], f"code scanning alert ({match.group('tool').strip()})")


# --------------------------------------------------------------------------- alerts


class CodeScanningAlert(Frozen):
    """What we need of one item of `GET code-scanning/alerts` (reviewcoord.rest)."""

    number: int
    state: str  # open, dismissed, fixed (closed on older GHES)
    html_url: str = ""
    rule_id: str = ""
    rule_name: str = ""
    rule_description: str = ""
    rule_severity: str | None = None  # none, note, warning, error
    security_severity_level: str | None = None  # low, medium, high, critical
    tool: str = ""
    message: str = ""
    path: str | None = None
    start_line: int | None = None
    end_line: int | None = None
    dismissed_by: str | None = None  # the login of whoever dismissed it


def code_scanning_alert(d: Any) -> CodeScanningAlert:
    """One item of `GET /repos/{o}/{r}/code-scanning/alerts` (docs/github-platform.md)."""
    if not isinstance(d, dict):
        raise ValueError(f"an alert must be a JSON object, got {type(d).__name__}")
    number = _int(d, "number", required=True)
    if number is None or number < 1:
        raise ValueError("field 'number' must be a positive integer")
    location = _get(d, "most_recent_instance", "location")
    start, end = _int(location, "start_line"), _int(location, "end_line")
    return CodeScanningAlert(
        number=number,
        state=_str(d, "state", default="") or "",
        html_url=_str(d, "html_url", default="") or "",
        rule_id=_str(d, "rule", "id", default="") or "",
        rule_name=_str(d, "rule", "name", default="") or "",
        rule_description=_str(d, "rule", "description", default="") or "",
        rule_severity=_str(d, "rule", "severity"),
        security_severity_level=_str(d, "rule", "security_severity_level"),
        tool=_str(d, "tool", "name", default="") or "",
        message=_str(d, "most_recent_instance", "message", "text", default="") or "",
        path=_str(d, "most_recent_instance", "location", "path") or None,
        start_line=start if start is not None and start > 0 else None,
        end_line=end if end is not None and start is not None and end > start else None,
        dismissed_by=_str(d, "dismissed_by", "login"),
    )


def severity_label(alert: CodeScanningAlert) -> str | None:
    """The raw label: `security_severity_level` wins over `rule.severity` (GitHub's own
    "Code scanning results" check fails on a security level of high or above)."""
    return alert.security_severity_level or alert.rule_severity or None


AUTHOR_DISMISSED = "dismissed by the PR author"


def alert_finding(alert: CodeScanningAlert, gist_prefix: str = "") -> Finding:
    """One open alert as a finding of source `code-scanning` (not yet levelled)."""
    named = alert.rule_description or alert.rule_name or alert.rule_id
    title = named or f"code scanning alert {alert.number}"
    holder = RawComment(
        endpoint="review_comment",  # make_finding's comment only supplies the url
        id=alert.number,
        author_login=KEY,
        html_url=alert.html_url,
    )
    finding = make_finding(
        KEY,
        holder,
        title=title,
        severity_raw=severity_label(alert),
        file=alert.path,
        line=alert.start_line,
        line_end=alert.end_line,
        gist=f"{gist_prefix}{alert.message}",
        native_id=str(alert.number),
    )
    return finding.model_copy(update={"endpoint": "code_scanning_alert"})


def _unreadable_alert(item: Any, index: int, problem: str) -> tuple[Finding | None, ParseNote]:
    """A malformed item: an open alert whose number we can read stays a medium finding (a
    format change must never silently drop a blocker); anything else is ignored, with a note."""
    number = item.get("number") if isinstance(item, dict) else None
    url = item.get("html_url") if isinstance(item, dict) else None
    url = url if isinstance(url, str) else ""
    if isinstance(number, int) and not isinstance(number, bool) and number > 0:
        if item.get("state") == "open":
            alert = CodeScanningAlert(number=number, state="open", html_url=url)
            note = f"code scanning alert {number} is malformed ({problem}); kept as medium"
            return alert_finding(alert), ParseNote(bot=KEY, url=url, note=note)
        note = f"code scanning alert {number} is malformed ({problem}); ignored"
        return None, ParseNote(bot=KEY, url=url, note=note)
    note = f"code scanning alert [{index}] is malformed ({problem}); ignored"
    return None, ParseNote(bot=KEY, url=url, note=note)


def alert_findings(items: Sequence[Any], author: str = "") -> tuple[list[Finding], list[ParseNote]]:
    """GitHub's alert list (untrusted JSON) → one finding per open alert, and a note per item
    that could not be read. Fixed alerts, and alerts dismissed by anyone but the PR's `author`,
    are no findings: the author may not clear their own PR's alert (with write access they can
    dismiss it), so one they dismissed still counts, shown as such."""
    findings: list[Finding] = []
    notes: list[ParseNote] = []
    for index, item in enumerate(items):
        try:
            alert = code_scanning_alert(item)
        except ValueError as exc:
            kept, note = _unreadable_alert(item, index, str(exc)[:200])
            findings.extend([kept] if kept is not None else [])
            notes.append(note)
            continue
        if alert.state == "open":
            findings.append(alert_finding(alert))
        elif alert.state == "dismissed" and author and alert.dismissed_by == author:
            findings.append(alert_finding(alert, f"{AUTHOR_DISMISSED}: "))
            text = f"alert {alert.number} was {AUTHOR_DISMISSED} (@{author}): it still counts"
            notes.append(ParseNote(bot=KEY, url=alert.html_url, note=text))
        elif alert.state not in CLOSED_STATES:
            state = f"unknown state {alert.state[:40]!r}"
            text = f"code scanning alert {alert.number} has {state}; ignored"
            notes.append(ParseNote(bot=KEY, url=alert.html_url, note=text))
    return _unique(findings), notes


def _unique(findings: list[Finding]) -> list[Finding]:
    """One finding per alert number (a list read twice, open then dismissed, may repeat one
    that changed state in between: the first read wins)."""
    seen: set[str | None] = set()
    out = []
    for f in findings:
        if f.native_id not in seen:
            seen.add(f.native_id)
            out.append(f)
    return out


def judge_alerts(evidence: Evidence, context: EvidenceContext) -> FromEvidence:
    """The profile's `evidence`: the PR's alerts, read completely, are the source's findings —
    each open alert at its own level, replacing the inline comment GitHub posted for it (same
    alert number: one finding, not two); an inline comment whose alert is not open any more
    (fixed, dismissed) is dropped, with a note. Not read (pending, forbidden): the inline
    comments stay (`medium`: their bodies carry no level), the source is `failed` with the
    reason (pending: `working`). Not in the reading at all: its comments say what they say."""
    read = evidence.alerts
    if read is None:
        return FromEvidence()
    inline = [f for f in context.findings if f.native_id is not None]
    if not read.complete:
        stays = "; its inline alert comments stay medium findings" if inline else ""
        note = ParseNote(bot=KEY, url="", note=f"{read.problem}{stays}")
        # Pending (no analysis of the merge commit yet) shows as working while the run reads;
        # either way it is no review: required, it is unreviewed at judgement.
        said = Said("working", read.problem) if read.pending else Said("failed", read.problem)
        return FromEvidence(said=said, notes=(note,), decides=True)
    alerts, notes = alert_findings(read.alerts or (), read.author)
    open_ids = {f.native_id for f in alerts}
    gone = [
        ParseNote(bot=KEY, url=f.url, note=f"alert {f.native_id} is no longer open: {f.title}")
        for f in inline
        if f.native_id not in open_ids
    ]
    kept = [f for f in context.findings if f.native_id is None]
    count = len(alerts)
    detail = f"{count} open alert{'' if count == 1 else 's'} on {read.ref}"
    return FromEvidence(
        said=Said("reviewed", detail),
        findings=[*kept, *alerts],
        notes=(*notes, *gone),
        seen=count,
        decides=True,
    )


PROFILE = BotProfile(
    key=KEY,
    display=DISPLAY,
    logins=LOGINS,
    parse=parse,
    severity=SEVERITY,
    pack="none",
    reads=frozenset({"alerts"}),
    evidence=judge_alerts,
)
