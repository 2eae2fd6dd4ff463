"""GitHub code scanning (`github-advanced-security[bot]`): shapes are docs/bot-formats.md §15.

Not a reviewer but a source: its findings are the PR's open code-scanning alerts (CodeQL or any
SARIF upload), read once per run from `GET code-scanning/alerts?ref=refs/pull/<n>/merge`
(reviewcoord/runner.py), levelled by docs/severity.md § "Code scanning (SAST) alerts". It is
in neither pack (`pack="none"`): settle never waits for it and `expected-bots` never holds it.

Its inline comments are the same alerts, seen on the PR: `## <Tool> / <Rule name>`, one
message sentence, `[Show more details](…/security/code-scanning/<alert number>)` and no
severity (a `medium` finding until the alert is read). The alert number is the finding's
native id, so the inline comment and its alert share one stable id: when the alerts were read,
`reviewcoord.ingest.with_alerts` replaces the inline findings by the alerts' own. The
COMMENTED review that carries the inline comments has an empty body (noise).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from reviewcoord import rest
from reviewcoord.bots.common import (
    clean_body,
    fallback_finding,
    first_sentence,
    found,
    location,
    make_finding,
    noise,
)
from reviewcoord.bots.profile import BotProfile
from reviewcoord.errors import GatewayError
from reviewcoord.model import (
    CodeScanningAlert,
    Finding,
    Level,
    ParsedComment,
    ParseNote,
    RawComment,
)

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
# Where a permission error sends the user (GitHub: "List code scanning alerts for a repository").
PERMISSION_HINT = "the workflow token needs `permissions: security-events: read`"

_HEADING = re.compile(r"^#{1,6}[ \t]*(?P<tool>[^\n/]{1,100}?)[ \t]+/[ \t]+(?P<rule>[^\n]{1,300})$")
_ALERT_LINK = re.compile(r"/security/code-scanning/(?P<number>\d{1,9})\b")
_DETAILS_LINK = re.compile(r"^\[Show more details\]\([^)\n]{0,1000}\)[ \t]*$", re.M)


def merge_ref(pr: int) -> str:
    """The ref whose alerts are the PR's: GitHub analyses the merge commit on `pull_request`,
    and its docs say "To reference a pull request use `refs/pull/<number>/merge`"."""
    return f"refs/pull/{pr}/merge"


# --------------------------------------------------------------------------- inline comments


def parse(comment: RawComment) -> ParsedComment:
    body = clean_body(comment.body).strip()
    if not body:
        return noise("empty code scanning review body")
    heading, _, rest_of_body = body.partition("\n")
    match = _HEADING.match(heading.strip())
    if match is None:
        return fallback_finding(KEY, comment, "unrecognised code scanning comment")
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


def severity_label(alert: CodeScanningAlert) -> str | None:
    """The raw label: `security_severity_level` wins over `rule.severity` (GitHub's own
    "Code scanning results" check fails on a security level of high or above)."""
    return alert.security_severity_level or alert.rule_severity or None


def alert_finding(alert: CodeScanningAlert) -> Finding:
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
        gist=alert.message,
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


def alert_findings(items: Sequence[Any]) -> tuple[list[Finding], list[ParseNote]]:
    """GitHub's alert list (untrusted JSON) → one finding per open alert, and a note per item
    that could not be read. Dismissed and fixed alerts are no findings."""
    findings: list[Finding] = []
    notes: list[ParseNote] = []
    for index, item in enumerate(items):
        try:
            alert = rest.code_scanning_alert(item)
        except ValueError as exc:
            kept, note = _unreadable_alert(item, index, str(exc)[:200])
            findings.extend([kept] if kept is not None else [])
            notes.append(note)
            continue
        if alert.state == "open":
            findings.append(alert_finding(alert))
        elif alert.state not in CLOSED_STATES:
            state = f"unknown state {alert.state[:40]!r}"
            text = f"code scanning alert {alert.number} has {state}; ignored"
            notes.append(ParseNote(bot=KEY, url=alert.html_url, note=text))
    return findings, notes


@dataclass(frozen=True)
class AlertRead:
    """One read of the PR's alerts: every page (`alerts`), or why it failed (`problem`)."""

    ref: str
    alerts: Sequence[Any] | None = None
    problem: str = ""

    @property
    def complete(self) -> bool:
        return self.alerts is not None

    def digest(self) -> str:
        """What this read says, for the run's fingerprint: a later run on the same head and
        comments is a noop only if the alerts say the same (one dismissed: judge again)."""
        if not self.complete:
            return f"code-scanning unread: {self.problem}"
        findings, notes = alert_findings(self.alerts or ())
        facts = sorted(
            (f.stable_id, f.severity_raw or "", f.file or "", f.line or 0, f.line_end or 0, f.title)
            for f in findings
        )
        text = json.dumps([facts, sorted(n.note for n in notes)], ensure_ascii=True)
        return f"code-scanning {hashlib.sha256(text.encode()).hexdigest()[:16]}"


def not_analysed(analyses: Sequence[Any], merge_sha: str | None) -> str | None:
    """Why the alerts do not yet speak for the PR's current head, or None when an analysis of
    its merge commit exists (`GET code-scanning/analyses`: an item whose `commit_sha` is the PR's
    `merge_commit_sha`). An empty alert list means "nothing found" only after such an analysis;
    before it, the source is pending and, at judgement, unreviewed."""
    if not merge_sha:
        return "code scanning pending: GitHub has not made the PR's merge commit yet"
    for item in analyses:
        if isinstance(item, dict) and item.get("commit_sha") == merge_sha:
            return None
    return f"code scanning pending: no analysis of the PR's merge commit {merge_sha[:7]} yet"


def unreadable(exc: GatewayError) -> str:
    """Why the alerts could not be read, in words that say what to do."""
    said = exc.detail or ""
    if exc.status == 403:
        hint = f": {PERMISSION_HINT}" if "not accessible by integration" in said.casefold() else ""
        return f"code scanning alerts could not be read (403 {said or 'Forbidden'}){hint}"
    if exc.status == 404:
        return f"code scanning is not set up for this repository ({said or 'Not Found'})"
    return f"code scanning alerts could not be read ({exc})"


PROFILE = BotProfile(
    key=KEY,
    display=DISPLAY,
    logins=LOGINS,
    parse=parse,
    severity=SEVERITY,
    pack="none",
)
