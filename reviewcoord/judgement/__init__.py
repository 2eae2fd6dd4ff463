"""The judge: one pure entry point from a reading of a PR (and the record of earlier cycles) to
its verdict and the record to store with it. Replay, the CLI, the noop check and the Action all
call `judge`; "stateless" is the first cycle (`cycle=None`: no record).

The stages, in order, each a pure function with its own module:

    carry     which findings stand on this head, which are likely fixed, which carry forward
    group     findings at the same place become one group; rank orders them (group.py, rank.py)
    bind      replies and `/review-coordinator accept` commands, bound to findings
    converge  accepted groups leave the gate; convergence mode and config levels, visibly
    annotate  the published findings with their cycle status; accepted exceptions; changes
    record    the history to store

What changed since the last judged head (the compare, and per reviewer in convergence mode)
comes in as plain data in `CycleContext`; thread state and permissions still come in through
`CycleContext.lookups`, backed by cached, once-per-run gateway reads at the edge.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from reviewcoord.edits import settle_withdrawals, stamp
from reviewcoord.group import group
from reviewcoord.history import History
from reviewcoord.judgement.annotate import accepted_findings, annotate, cycle_changes
from reviewcoord.judgement.bind import bind
from reviewcoord.judgement.carry import carry, deleted_notes
from reviewcoord.judgement.context import (
    CycleContext,
    CycleLookups,
    ForeignEdits,
    JudgeSettings,
    Mode,
    Subject,
    cycle_for,
    first_cycle,
)
from reviewcoord.judgement.converge import converge, converging
from reviewcoord.judgement.identity import base_sid, hold_levels, identify
from reviewcoord.judgement.record import next_record
from reviewcoord.judgement.verdict import assemble
from reviewcoord.model import ConvergenceInfo, Finding, Verdict
from reviewcoord.normalize import merged_table
from reviewcoord.rank import rank

__all__ = [
    "CycleContext",
    "CycleLookups",
    "ForeignEdits",
    "JudgeSettings",
    "Judgement",
    "Mode",
    "Subject",
    "base_sid",
    "cycle_for",
    "first_cycle",
    "judge",
    "would_go",
]


@dataclass(frozen=True)
class Judgement:
    verdict: Verdict
    record: History


def judge(
    subject: Subject,
    cycle: CycleContext | None = None,
    settings: JudgeSettings | None = None,
    edits: ForeignEdits | None = None,
) -> Judgement:
    """This reading's verdict, reconciled with the record in `cycle` (none: the first cycle),
    and the record to store with it. `edits`: the comments whose text is not only their
    author's (edited by someone else; reviewcoord/edits.py), and why."""
    ctx = cycle or first_cycle()
    settings = settings or JudgeSettings()
    edits = edits or ForeignEdits()
    table = merged_table(settings.severity_overrides)
    withdrawals = settle_withdrawals(subject.ingested.withdrawn, edits.bots)
    findings, held_notes = hold_levels(
        identify([*subject.ingested.findings, *withdrawals.kept], subject.comments, ctx.record),
        edits.bots,
        ctx.record,
    )
    held_notes = [*withdrawals.notes, *held_notes]
    carried = carry(
        findings,
        subject.comments,
        subject.ingested,
        ctx,
        held=frozenset(edits.bots),
        withdrawn={**subject.ingested.withdrawn_in_thread, **withdrawals.ids},
    )
    groups = rank(group(carried.kept, settings.group_window))
    bound = bind(carried.kept, subject.comments, ctx, edits.commands)
    converged = converge(
        groups,
        bound.acceptances,
        carried.likely_fixed,
        table,
        ctx,
        subject.head_sha,
        carried.on_head,
    )
    critical, advisory = annotate(converged, carried, bound, ctx)
    enriched = [*critical, *advisory]
    accepted = accepted_findings(converged.accepted_groups, bound.acceptances, len(enriched) + 1)
    convergence = None
    if ctx.record is not None and ctx.convergence_after > 0:
        convergence = ConvergenceInfo(
            active=converged.converging,
            block_cycles=converged.prior_blocks,
            after=ctx.convergence_after,
            exempted=[vf.id for vf in enriched if (vf.stable_id or "") in converged.exempted],
        )
    verdict = assemble(
        subject,
        ctx,
        critical,
        advisory,
        required=settings.required,
        changes=cycle_changes(enriched, accepted, carried, ctx),
        accepted=accepted,
        convergence=convergence,
        command_notes=bound.command_notes,
    )
    held_notes = [*held_notes, *deleted_notes(ctx.record, carried, subject.comments)]
    if held_notes:
        verdict = verdict.model_copy(update={"parse_notes": [*verdict.parse_notes, *held_notes]})
    record = next_record(verdict, enriched, accepted, carried, bound, converged, ctx)
    held = {f"{ep}:{cid}": why[:200] for (ep, cid), why in edits.bots.items()}
    stamps: dict[tuple[str, int], str] = {(c.endpoint, c.id): stamp(c) for c in subject.comments}
    ignored = {
        f"{ep}:{cid}:{stamps.get((ep, cid), '')}": why[:200]
        for (ep, cid), why in edits.commands.items()
    }
    return Judgement(
        verdict=verdict, record=record.model_copy(update={"held": held, "ignored": ignored})
    )


def would_go(
    findings: Sequence[Finding], record: History | None, convergence_after: int, head_sha: str
) -> bool:
    """Settle's cheap question, asked on every poll: could this reading end in `go` once the
    bots still pending come in clean? Conservative towards waiting (merge patience waits on a
    `True`): only a critical finding that no acceptance covers says no, and in convergence mode
    (where a new critical finding may not block) it never says no. No reconciliation, no reads."""
    accepted: set[str] = set()
    if record is not None:
        if converging(record, convergence_after, head_sha):
            return True
        accepted = {e.stable_id for e in record.findings if e.status == "accepted"}
    return not any(
        f.severity == "critical" and base_sid(f.stable_id) not in accepted
        for f in identify(findings, (), record)
    )
