"""Stage 3 — converge: accepted groups leave the gate; convergence mode and the config's
severity table adjust levels, always visibly (docs/cycles.md § Convergence mode).

Convergence mode keeps the original design's words: "After two changes-requested cycles, new
adjacent medium or low hardening cannot block. Prior blockers, a regression caused by their fix,
or a genuinely new critical/high PR-owned defect may still block." Deterministic here:

* a changes-requested cycle is one whose gate was `block` while a critical finding was open (a
  block while a reviewer is still pending is not one); after `convergence-after` of them the
  mode is on. Medium and low findings never block anyway;
* a critical finding still blocks if it blocked in an earlier cycle, if it names no file (a
  PR-level critical cannot be placed outside any push), if its file is a fixed prior blocker's
  (a regression), or if the push that could have caused it changed its file: the range since the
  last head *its bot* reviewed before this one (the whole PR when its bot reviewed none: a
  finding a bot reports on its first review is new to convergence however many cycles passed);
* otherwise it is adjacent hardening: shown at `medium`, with the reason;
* decided again every cycle from that cycle's facts, never inherited. For a finding its bot did
  not report again on this head, the fact about its push is the one from when it last did (the
  record's `exempted`); a noop takes the last run's decisions (same head, same facts).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from reviewcoord.history import Acceptance, Entry, History
from reviewcoord.judgement.context import CycleContext
from reviewcoord.judgement.identity import base_sid
from reviewcoord.model import LEVEL_RANK, BotKey, Finding, Group, Level, SeverityAdjustment
from reviewcoord.normalize import level_for
from reviewcoord.rank import rank_key


@dataclass
class Converged:
    open_groups: list[tuple[Group, SeverityAdjustment | None]] = field(default_factory=list)
    accepted_groups: list[Group] = field(default_factory=list)
    exempted: set[str] = field(default_factory=set)  # base sids convergence let through
    converging: bool = False
    prior_blocks: int = 0  # changes-requested cycles before this one


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


def prior_block_count(record: History | None, head_sha: str) -> int:
    """Cycles whose gate was block, before this one (a re-run of the same cycle: its own block
    does not count)."""
    if record is None:
        return 0
    same = record.last_head == head_sha and record.gate == "block"
    return record.blocks - (1 if same else 0)


def prior_requests(record: History | None, head_sha: str) -> int:
    """Changes-requested cycles before this one (module docstring); 0 for a record written
    before they were counted."""
    if record is None or record.requested_before is None:
        return 0
    same = record.last_head == head_sha
    return record.requested_before + (0 if same or not record.requested_last else 1)


def converging(record: History | None, after: int, head_sha: str) -> bool:
    return after > 0 and prior_requests(record, head_sha) >= after


def reviewed_before(record: History | None, bot: BotKey, head_sha: str) -> str | None:
    """The last head `bot` reviewed before `head_sha`, as the record knows it; None: none (or a
    record that did not keep it)."""
    heads = (record.reviewed or {}).get(bot, []) if record is not None else []
    earlier = [h for h in heads if h != head_sha]
    return earlier[-1] if earlier else None


def _outside_its_push(
    f: Finding, e: Entry | None, on_head: Collection[str], ctx: CycleContext
) -> bool:
    """Could the push its bot saw not have caused this finding? Reported on this head: its file
    is not among those changed since the last head its bot reviewed before (unknown: it could
    have). Not reported again: as decided when it last was."""
    if base_sid(f.stable_id) in on_head and not ctx.convergence_from_record:
        files = ctx.since_review.get(f.bot)
        return files is not None and f.file not in files
    return e is not None and e.exempted


def _adjacent(
    g: Group,
    rec: Mapping[str, Entry],
    prior_blocker_files: set[str],
    on_head: Collection[str],
    ctx: CycleContext,
) -> bool:
    """Convergence mode: is this critical group new adjacent hardening (it does not block)?"""
    for f in g.findings:
        e = rec.get(base_sid(f.stable_id))
        if e is not None and e.blocked:
            return False  # a prior blocker
        if f.file is None or f.file in prior_blocker_files:
            return False  # a PR-level critical, or a regression of a fixed blocker
        if not _outside_its_push(f, e, on_head, ctx):
            return False
    return True


def converge(
    groups: Sequence[Group],
    acceptances: Mapping[str, Acceptance],
    likely_fixed: Mapping[str, Entry],
    table: Mapping[str, Mapping[str, Level]],
    ctx: CycleContext,
    head_sha: str,
    on_head: Collection[str] = frozenset(),
) -> Converged:
    """`on_head`: the base sids some comment for this head reports."""
    rec = {e.stable_id: e for e in ctx.record.findings} if ctx.record else {}
    out = Converged(prior_blocks=prior_requests(ctx.record, head_sha))
    out.converging = converging(ctx.record, ctx.convergence_after, head_sha)
    prior_blocker_files = {
        e.file for e in rec.values() if e.blocked and e.status == "likely_fixed" and e.file
    } | {e.file for e in likely_fixed.values() if e.blocked and e.file}
    for g in groups:
        sids = group_sids(g)
        if sids and all(s in acceptances for s in sids):
            out.accepted_groups.append(g)
            continue
        adjustment = config_adjustment(g, table)
        if (
            out.converging
            and g.severity == "critical"
            and _adjacent(g, rec, prior_blocker_files, on_head, ctx)
        ):
            why = (
                f"convergence mode (after {out.prior_blocks} changes-requested cycles): a "
                "critical finding its bot's latest push could not have caused (its file "
                "unchanged since the last head that bot reviewed), not a prior blocker and not "
                "a regression of one, is adjacent hardening and does not block"
            )
            adjustment = SeverityAdjustment(from_level="critical", to_level="medium", reason=why)
            g = g.model_copy(update={"severity": "medium"})
            out.exempted |= set(sids)
        out.open_groups.append((g, adjustment))
    out.open_groups.sort(key=lambda pair: rank_key(pair[0]))
    return out
