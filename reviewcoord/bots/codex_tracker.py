"""Codex's status table (`<!-- codex-pull-request-review-summary -->`, "## Codex Review Summary"),
edited in place: one row per review Codex runs on the PR — its code review (`📝 **Code Review**`)
and, since autumn 2026, its security review (`🔒 **Security Review**`) — each `Running` →
`Completed` / `Failed`, with the short SHA it is about (docs/bot-formats.md §1, §16, § Codex
security reviews).

The code review row decides Codex's run state; the security row tells only the security review's
state, never the code review's: a table whose only Completed row is the security review says
nothing about the code review (beside it, a credit notice may say the code review never ran).
While a security review of the same commit is still running, its findings may still come, so
Codex is shown `working`. The table's `### Security findings` list repeats the inline security
findings (counted once: there) and the `<!-- codex-security-review:v1 {…} -->` marker's fields
(`blockingSeverityThreshold`, `mergeGateEnabled`, …) are Codex's own gate, not ours: neither is
read here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from reviewcoord.bots.common import clip, failed, noise, plain_text, working
from reviewcoord.model import ParsedComment

_TICKED_SHA = re.compile(r"`(?P<sha>[0-9a-fA-F]{7,40})`")
# The status word of a tracker row, as the row writes it (`✅ **Completed** <relative-time …>`).
_ROW_STATUS = re.compile(
    r"^[^A-Za-z]{0,20}(?P<word>running|in progress|queued|pending|completed|failed|errored|error"
    r"|timed out|cancell?ed)\b",
    re.I,
)
RowState = Literal["in_progress", "reviewed", "failed"]
_ROW_STATES: dict[str, RowState] = {
    "running": "in_progress",
    "in progress": "in_progress",
    "queued": "in_progress",
    "pending": "in_progress",
    "completed": "reviewed",
    "failed": "failed",
    "error": "failed",
    "errored": "failed",
    "timed out": "failed",
    "cancelled": "failed",
    "canceled": "failed",
}
_ROWS_MAX = 200


@dataclass(frozen=True)
class Row:
    """One data row: which review it is, its status word and state, its commit and trigger."""

    review: Literal["code", "security", "other"]
    status: str  # the row's status text, as plain text
    word: str  # its status word, casefolded ("" when none is recognised)
    state: RowState | None
    commit: str | None
    trigger: str

    @property
    def why(self) -> str:
        return f" ({clip(self.trigger, 40)})" if self.trigger else ""


def _row(cells: list[str]) -> Row:
    name = plain_text(cells[0]).casefold()
    review: Literal["code", "security", "other"] = (
        "security" if "security" in name else "code" if "code review" in name else "other"
    )
    status = plain_text(cells[1])
    found = _ROW_STATUS.search(status)
    word = found.group("word").casefold() if found else ""
    sha = _TICKED_SHA.search(cells[2]) if len(cells) > 2 else None
    trigger = plain_text(cells[3]) if len(cells) > 3 else ""
    commit = sha.group("sha").lower() if sha else None
    return Row(review, status, word, _ROW_STATES.get(word), commit, trigger)


def rows(body: str) -> list[Row]:
    """The table's data rows. Only table rows are read: the About box below says "while any
    review is running" in every state."""
    out: list[Row] = []
    for line in body.splitlines()[:_ROWS_MAX]:
        text = line.strip()
        if not text.startswith("|"):
            continue
        cells = [cell.strip() for cell in text.strip("|").split("|")]
        if len(cells) < 3 or set("".join(cells)) <= set("-: "):
            continue
        if plain_text(cells[1]).casefold() == "status":
            continue  # the header row
        out.append(_row(cells))
    return out


def tracker(body: str) -> ParsedComment:
    """What the table says about Codex's run: its code review row (else, in an older layout
    with neither name, its first row), with a running security review of the same commit
    keeping it `working`; a security row alone only ever says `working` or nothing."""
    table = rows(body)
    code = next((r for r in table if r.review == "code"), None)
    security = next((r for r in table if r.review == "security"), None)
    if code is None and security is None and table:
        code = table[0]
    if code is None:
        return _security_only(security)
    if (
        code.state == "reviewed"
        and security is not None
        and security.state == "in_progress"
        and security.commit == code.commit
    ):
        return working(f"security review running{security.why}", "codex status", code.commit)
    return _code_row(code)


def _security_only(security: Row | None) -> ParsedComment:
    if security is None:
        return noise("codex status tracker without a status row")
    if security.state == "in_progress":
        why = "codex status: security review running"
        return working(f"security review running{security.why}", why, security.commit)
    return noise(f"codex status: security review {security.word or 'row'} (not the code review)")


def _code_row(row: Row) -> ParsedComment:
    """A row for another SHA says nothing about the head (ingest checks `reviewed_commit`);
    "Completed" is a done signal, not a clean verdict: the findings are the inline comments
    and review bodies (N3_codex_status_asic381_propened)."""
    if row.state == "in_progress":
        return working(f"review running{row.why}", "codex status: running", row.commit)
    if row.state == "failed":
        return failed(f"review {row.word}{row.why}", "codex status: failed", row.commit)
    if row.state == "reviewed":
        if row.commit is None:  # a done row must name the commit it reviewed to count
            return noise("codex status: completed, no commit stated")
        return ParsedComment(
            kind="reviewed",
            reason="codex status: completed",
            reviewed_commit=row.commit,
            tracker_done=True,
        )
    return ParsedComment(
        kind="noise",
        reason="codex status tracker",
        parse_note=f"codex status tracker with an unknown status {clip(row.status, 60)!r}",
        reviewed_commit=None,
    )
