"""Stage 3 — converge: accepted groups leave the gate; convergence mode and the config's
severity table adjust levels, always visibly (README § Convergence mode, § Severity adjustments).

After `convergence-after` block cycles a *new* critical finding blocks only in a file the latest
push changed or as a regression of a prior blocker's file; prior blockers still block; the
others are shown at `medium` with the reason.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from reviewcoord.history import Acceptance, Entry
from reviewcoord.judgement.context import CycleContext
from reviewcoord.judgement.identity import base_sid
from reviewcoord.model import LEVEL_RANK, Group, Level, SeverityAdjustment
from reviewcoord.normalize import level_for
from reviewcoord.rank import rank_key


@dataclass
class Converged:
    open_groups: list[tuple[Group, SeverityAdjustment | None]] = field(default_factory=list)
    accepted_groups: list[Group] = field(default_factory=list)
    exempted: set[str] = field(default_factory=set)  # base sids convergence let through
    converging: bool = False
    prior_blocks: int = 0


def group_sids(g: Group) -> list[str]:
    return list(dict.fromkeys(base_sid(f.stable_id) for f in g.findings))


def config_adjustment(
    g: Group, table: Mapping[str, Mapping[str, Level]]
) -> SeverityAdjustment | None:
    """The config's `severity:` table moved this group's level away from the default one."""
    default = max(
        (level_for(f.bot, f.severity_raw) for f in g.findings), key=lambda lv: LEVEL_RANK[lv]
    )
    if default == g.severity:
        return None
    moved = [
        f
        for f in g.findings
        if level_for(f.bot, f.severity_raw) != level_for(f.bot, f.severity_raw, table)
    ]
    names = ", ".join(f"{f.bot} '{f.severity_raw or '(no label)'}'" for f in moved[:3])
    return SeverityAdjustment(
        from_level=default,
        to_level=g.severity,
        reason=f"config `severity:` maps {names} to {g.severity}",
    )


def prior_block_count(ctx: CycleContext, head_sha: str) -> int:
    record = ctx.record
    if record is None:
        return 0
    # A re-run of the same cycle: its own block does not count.
    same = record.last_head == head_sha and record.gate == "block"
    return record.blocks - (1 if same else 0)


def _lets_through(
    g: Group,
    sids: Sequence[str],
    rec: Mapping[str, Entry],
    prior_blocker_files: set[str],
    touched: frozenset[str] | None,
) -> bool:
    """Convergence mode: does this new critical group NOT block?"""
    prior_blocker = any(rec[s].blocked for s in sids if s in rec)
    was_exempt = any(rec[s].exempted for s in sids if s in rec)
    in_push = touched is None or (g.file is not None and g.file in touched)
    regression = g.file is not None and g.file in prior_blocker_files
    return not prior_blocker and (was_exempt or not (in_push or regression))


def converge(
    groups: Sequence[Group],
    acceptances: Mapping[str, Acceptance],
    likely_fixed: Mapping[str, Entry],
    table: Mapping[str, Mapping[str, Level]],
    ctx: CycleContext,
    head_sha: str,
) -> Converged:
    rec = {e.stable_id: e for e in ctx.record.findings} if ctx.record else {}
    out = Converged(prior_blocks=prior_block_count(ctx, head_sha))
    out.converging = ctx.convergence_after > 0 and out.prior_blocks >= ctx.convergence_after
    prior_blocker_files = {
        e.file for e in rec.values() if e.blocked and e.status == "likely_fixed" and e.file
    } | {e.file for e in likely_fixed.values() if e.blocked and e.file}
    touched: list[frozenset[str] | None] = []
    for g in groups:
        sids = group_sids(g)
        if sids and all(s in acceptances for s in sids):
            out.accepted_groups.append(g)
            continue
        adjustment = config_adjustment(g, table)
        if out.converging and g.severity == "critical":
            if not touched:
                touched.append(ctx.lookups.touched())
            if _lets_through(g, sids, rec, prior_blocker_files, touched[0]):
                why = (
                    f"convergence mode (after {out.prior_blocks} block cycles): a new critical "
                    "finding in a file the latest push did not change, and not a regression "
                    "of a prior blocker, does not block"
                )
                adjustment = SeverityAdjustment(
                    from_level="critical", to_level="medium", reason=why
                )
                g = g.model_copy(update={"severity": "medium"})
                out.exempted |= set(sids)
        out.open_groups.append((g, adjustment))
    out.open_groups.sort(key=lambda pair: rank_key(pair[0]))
    return out
