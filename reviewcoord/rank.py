"""Rank and bucket groups, and decide the gate (docs/reviewers.md § Labels and the verdict,
docs/interface.md §5).

Rank by (level desc, agreement desc, file, line). Two buckets only: `critical` (the one level
that gates) and `advisory` (everything else). `gate = block` iff `critical` is non-empty or a
bot named in `require-bots` has not reviewed the head. The gate reason says "agree" only for
bots that report the same issue (`VerdictFinding.same_issue`), never for a shared place alone.
"""

from __future__ import annotations

from collections.abc import Sequence

from reviewcoord.bots import is_source
from reviewcoord.group import spread
from reviewcoord.model import LEVEL_RANK, BotStatus, Gate, Group, Source, VerdictFinding


def rank_key(g: Group) -> tuple[int, int, bool, str, bool, int, str]:
    return (
        -LEVEL_RANK[g.severity],
        -g.agreement,
        g.file is None,
        g.file or "",
        g.line is None,
        g.line or 0,
        g.title,
    )


def rank(groups: Sequence[Group]) -> list[Group]:
    return sorted(groups, key=rank_key)


def to_verdict_findings(
    ranked: Sequence[Group],
) -> tuple[list[VerdictFinding], list[VerdictFinding]]:
    """Number the ranked groups F1, F2, … (critical first) and split them into the buckets."""
    critical: list[VerdictFinding] = []
    advisory: list[VerdictFinding] = []
    for index, g in enumerate(ranked, start=1):
        entry = VerdictFinding(
            id=f"F{index}",
            file=g.file,
            line=g.line,
            line_end=g.line_end,
            title=g.title,
            severity=g.severity,
            agreement=g.agreement,
            sources=[
                Source(
                    bot=f.bot,
                    severity_raw=f.severity_raw,
                    severity=f.severity,
                    url=f.url,
                    endpoint=f.endpoint,
                    stable_id=f.stable_id,
                    title=f.title,
                )
                for f in g.findings
            ],
            spread=spread(g),
            agrees=g.agrees,
            same_issue=g.same_issue,
            gist=g.gist,
        )
        (critical if g.severity == "critical" else advisory).append(entry)
    return critical, advisory


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def unreviewed_reason(bot: str, status: BotStatus, head_sha: str) -> str:
    """`require-bots`: why a required bot blocks ("codex has not reviewed 9f1c2e4: failed —
    usage limit reached"). A required source that could not be read or is still pending (code
    scanning) says why in its own words, which name the fix."""
    if is_source(bot) and status.state in ("failed", "working") and status.detail:
        return status.detail
    what = {
        "not_seen": "nothing posted yet",
        "working": "still working",
        "failed": "failed",
        "skipped": "skipped",
        "unreadable": "posted a comment this version cannot read",
        "reviewed": "reviewed",
    }[status.state]
    if status.state == "unreadable" and status.detail:
        what, detail = status.detail, ""  # it says it all: "posted a review … cannot read: …"
    else:
        detail = f" — {status.detail}" if status.detail else ""
    return f"required bot {bot} has not reviewed {head_sha[:7]}: {what}{detail}"


def _agreement_note(critical: Sequence[VerdictFinding]) -> str:
    """The gate reason's agreement note: "(3 bots agree)" counts only bots that report one issue
    (`same_issue`); when no critical group has that, "(3 bots flagged F1's lines)" for the
    critical group with the most bots; nothing when every critical finding has one bot."""
    top = max(f.same_issue for f in critical)
    if top > 1:
        return f" ({top} bots agree)"
    widest = max(critical, key=lambda f: f.agreement)  # the first, in rank order, on a tie
    if widest.agreement > 1:
        return f" ({widest.agreement} bots flagged {widest.id}'s lines)"
    return ""


def not_reviewed_note(names: Sequence[str], head_sha: str) -> str:
    """An honest `go` (docs/reviewers.md § Labels and the verdict): the expected bots that have
    not reviewed the head (still pending at the timeout backstop, or failed/skipped), and that
    the gate is judged again when they post. Never a claim that they reviewed."""
    who = ", ".join(names)
    at = f" {head_sha[:7]}" if head_sha else " this head"
    one = len(names) == 1
    return (
        f"{who} {'has' if one else 'have'} not reviewed{at}: the gate is judged again when "
        f"{'it posts' if one else 'they post'}"
    )


def gate(
    critical: Sequence[VerdictFinding],
    advisory: Sequence[VerdictFinding],
    pending: Sequence[str],
    required_missing: Sequence[tuple[str, BotStatus]] = (),
    head_sha: str = "",
    unreviewed: Sequence[str] = (),
    reviewed: Sequence[str] | None = None,
) -> tuple[Gate, str]:
    """The gate and its one-line reason: `block` iff a critical finding, or a `require-bots`
    bot that has not reviewed the head. A `go` while expected bots have not reviewed the head
    (`pending`, `unreviewed`) names them and says "so far": nothing claims their review; a `go`
    no reviewer reviewed (`reviewed` empty: none expected, none posted) says that."""
    waiting = f"; still pending: {', '.join(pending)}" if pending else ""
    missing = "; ".join(unreviewed_reason(b, s, head_sha) for b, s in required_missing)
    if critical:
        agree = _agreement_note(critical)
        also = f"; {missing}" if missing else ""
        return "block", f"{_plural(len(critical), 'critical finding')}{agree}{also}{waiting}"
    if missing:
        return "block", missing
    absent = list(dict.fromkeys([*pending, *unreviewed]))
    if absent:
        note = not_reviewed_note(absent, head_sha)
        if advisory:
            return "go", f"no critical findings so far ({len(advisory)} advisory); {note}"
        return "go", f"no findings so far; {note}"
    if advisory:
        return "go", f"no critical findings ({len(advisory)} advisory)"
    if reviewed is not None and not reviewed:
        at = f" {head_sha[:7]}" if head_sha else " this head"
        return "go", f"no findings: no AI reviewer is expected or has reviewed{at}"
    return "go", "clean: no findings"
