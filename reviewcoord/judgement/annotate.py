"""Stage 4 — annotate: the ranked groups as published findings with their cycle status (new,
still open, awaiting decision), first cycle, reply, thread state and severity adjustment; the
accepted exceptions; and the "since last cycle" rows."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from reviewcoord.history import Acceptance, Entry
from reviewcoord.judgement.bind import Bound
from reviewcoord.judgement.carry import Carried
from reviewcoord.judgement.context import CycleContext
from reviewcoord.judgement.converge import Converged, group_sids
from reviewcoord.model import (
    AcceptedFinding,
    CycleChange,
    Group,
    SeverityAdjustment,
    VerdictFinding,
)
from reviewcoord.rank import to_verdict_findings

FindingChange = Literal[
    "new", "reopened", "awaiting_decision", "thread_resolved", "thread_outdated"
]


def _thread_state(g: Group, threads: Mapping[int, str]) -> str | None:
    for f in g.findings:
        state = threads.get(f.comment_id) if f.endpoint == "review_comment" else None
        if state in ("resolved", "outdated"):
            return state
    return None


def _annotated(
    vf: VerdictFinding,
    g: Group,
    adjustment: SeverityAdjustment | None,
    rec: Mapping[str, Entry],
    carried: Carried,
    bound: Bound,
    threads: Mapping[int, str],
    ctx: CycleContext,
) -> VerdictFinding:
    sids = group_sids(g)
    first = min([rec[s].first for s in sids if s in rec] or [ctx.cycle])
    reply = next((bound.replies[s] for s in sids if s in bound.replies), None)
    reopened = any(s in carried.reopened for s in sids)
    status: Literal["new", "still_open", "awaiting_decision"] = (
        "new" if first >= ctx.cycle and not reopened else "still_open"
    )
    if reply is not None and reply.kind != "fixed":
        status = "awaiting_decision"
    update: dict[str, object] = {
        "stable_id": sids[0] if sids else None,
        "status": status,
        "first_seen_cycle": first,
        "carried_forward": ctx.record is not None and all(s in carried.carried for s in sids),
        "thread_state": _thread_state(g, threads),
        "reply": reply,
        "severity_adjustment": adjustment,
    }
    if ctx.record is None and ctx.notice is None:
        # The first cycle is the stateless verdict (as a replay computes it), plus any
        # severity adjustment (never silent) and any reply (it is visible, never silent).
        update = {
            k: v
            for k, v in update.items()
            if k in ("severity_adjustment", "reply") and v is not None
        }
    return vf.model_copy(update=update)


def annotate(
    converged: Converged, carried: Carried, bound: Bound, ctx: CycleContext
) -> tuple[list[VerdictFinding], list[VerdictFinding]]:
    """The open findings, critical and advisory, numbered F1… in rank order."""
    rec = {e.stable_id: e for e in ctx.record.findings} if ctx.record else {}
    ranked = [g for g, _adj in converged.open_groups]
    critical, advisory = to_verdict_findings(ranked)
    needs_threads = ctx.record is not None and any(
        f.endpoint == "review_comment" for g in ranked for f in g.findings
    )
    threads = ctx.lookups.threads() if needs_threads else {}
    enriched = [
        _annotated(vf, g, adjustment, rec, carried, bound, threads, ctx)
        for vf, (g, adjustment) in zip([*critical, *advisory], converged.open_groups, strict=True)
    ]
    return enriched[: len(critical)], enriched[len(critical) :]


def accepted_findings(
    groups: Sequence[Group], acceptances: Mapping[str, Acceptance], first_id: int
) -> list[AcceptedFinding]:
    out: list[AcceptedFinding] = []
    for number, g in enumerate(groups, start=first_id):
        sids = group_sids(g)
        acc = acceptances[sids[0]]
        out.append(
            AcceptedFinding(
                id=f"F{number}",
                stable_id=sids[0],
                title=g.title,
                file=g.file,
                line=g.line,
                severity=g.severity,
                kind=acc.kind,
                issue=acc.issue,
                reason=acc.reason,
                accepted_by=acc.by,
                url=acc.url,
                cycle=acc.cycle,
                revision=acc.revision,
            )
        )
    return out


def _row(vf: VerdictFinding, kind: FindingChange, note: str) -> CycleChange:
    return CycleChange(
        id=vf.id,
        stable_id=vf.stable_id or "",
        title=vf.title,
        file=vf.file,
        line=vf.line,
        severity=vf.severity,
        change=kind,
        note=note,
    )


def _finding_rows(
    vf: VerdictFinding, e: Entry | None, carried: Carried, cycle: int
) -> list[CycleChange]:
    rows: list[CycleChange] = []
    if vf.first_seen_cycle == cycle and e is None:
        rows.append(_row(vf, "new", ""))
    elif (vf.stable_id or "") in carried.reopened:
        rows.append(_row(vf, "reopened", "reported again on this head"))
    if vf.status == "awaiting_decision" and (e is None or e.status != "awaiting"):
        assert vf.reply is not None
        rows.append(_row(vf, "awaiting_decision", f"{vf.reply.kind} by @{vf.reply.by}"))
    if vf.thread_state and (e is None or e.thread != vf.thread_state):
        kind: FindingChange = (
            "thread_resolved" if vf.thread_state == "resolved" else "thread_outdated"
        )
        rows.append(_row(vf, kind, "on GitHub; still counted until re-reviewed"))
    return rows


def cycle_changes(
    enriched: Sequence[VerdictFinding],
    accepted: Sequence[AcceptedFinding],
    carried: Carried,
    ctx: CycleContext,
) -> list[CycleChange]:
    """What changed since the last cycle (likely fixed first, as carry found them)."""
    if ctx.record is None:
        return list(carried.changes)
    rec = {e.stable_id: e for e in ctx.record.findings}
    rows = list(carried.changes)
    for vf in enriched:
        rows.extend(_finding_rows(vf, rec.get(vf.stable_id or ""), carried, ctx.cycle))
    for a in accepted:
        e = rec.get(a.stable_id)
        if e is None or e.status != "accepted":
            rows.append(
                CycleChange(
                    id=a.id,
                    stable_id=a.stable_id,
                    title=a.title,
                    file=a.file,
                    line=a.line,
                    severity=a.severity,
                    change="accepted",
                    note=f"{a.kind} by @{a.accepted_by}",
                )
            )
    return rows
