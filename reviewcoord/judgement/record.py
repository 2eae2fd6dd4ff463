"""Stage 5 — record: the history to store in the sticky with this verdict (reviewcoord/history.py):
one entry per finding shown (open, awaiting, accepted) or likely fixed, with its lines on this
head (stated on it, or travelled from the last one: judgement/shift.py), the reviewed heads (and
per reviewer, the last ones it reviewed), the gate, the block and changes-requested cycle
counts, the bindings and the command outcomes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from reviewcoord.history import (
    MAX_REVIEWED,
    MAX_REVIEWERS,
    MAX_REVISIONS,
    REASON_CHARS,
    TITLE_CHARS,
    Entry,
    EntryStatus,
    History,
    Revision,
)
from reviewcoord.judgement.bind import Bound
from reviewcoord.judgement.carry import Carried
from reviewcoord.judgement.context import CycleContext
from reviewcoord.judgement.converge import Converged, group_sids, prior_block_count
from reviewcoord.judgement.identity import base_sid
from reviewcoord.judgement.shift import Span
from reviewcoord.model import AcceptedFinding, BotKey, Finding, Level, Verdict, VerdictFinding


@dataclass(frozen=True)
class _Shown:
    fid: str
    level: Level
    status: str  # the published status (new, still_open, awaiting_decision, accepted)


def _shown(
    enriched: Sequence[VerdictFinding], accepted: Sequence[AcceptedFinding], converged: Converged
) -> dict[str, _Shown]:
    """Base sid → how the verdict showed it."""
    shown: dict[str, _Shown] = {}
    for vf in enriched:
        for s in vf.sources:
            shown.setdefault(base_sid(s.stable_id), _Shown(vf.id, vf.severity, vf.status or "new"))
    for a in accepted:
        group = next(g for g in converged.accepted_groups if group_sids(g)[0] == a.stable_id)
        for sid in group_sids(group):
            shown.setdefault(sid, _Shown(a.id, a.severity, "accepted"))
    return shown


def _entry_status(shown: str) -> EntryStatus:
    if shown == "accepted":
        return "accepted"
    return "awaiting" if shown == "awaiting_decision" else "open"


def _threads(enriched: Sequence[VerdictFinding]) -> dict[str, str]:
    out: dict[str, str] = {}
    for vf in enriched:
        if vf.thread_state:
            for s in vf.sources:
                out[base_sid(s.stable_id)] = vf.thread_state
    return out


def stated_lines(f: Finding) -> Span | None:
    """The lines a finding's bot stated on this head."""
    if f.line is None or f.line < 1:
        return None
    return f.line, f.line_end if f.line_end is not None and f.line_end >= f.line else f.line


def _lines(f: Finding, carried: Carried) -> tuple[Span | None, bool]:
    """A finding's lines on this head: as its bot stated them here, else as they travelled."""
    sid = base_sid(f.stable_id)
    if sid in carried.on_head:
        return stated_lines(f), False
    return carried.lines.get(sid, (None, False))


def _entry(
    f: Finding,
    shown: _Shown,
    old: Entry | None,
    gate: str,
    thread: str | None,
    ctx: CycleContext,
    converged: Converged,
    bound: Bound,
    lines: tuple[Span | None, bool],
) -> Entry:
    sid = base_sid(f.stable_id)
    status = _entry_status(shown.status)
    blocked = gate == "block" and shown.level == "critical"
    th: Literal["resolved", "outdated"] | None = (
        "resolved" if thread == "resolved" else "outdated" if thread == "outdated" else None
    )
    return Entry(
        stable_id=sid,
        status=status,
        level=shown.level,
        blocked=blocked or (old.blocked if old else False),
        exempted=sid in converged.exempted,
        bot=f.bot,
        raw=f.severity_raw,
        endpoint=f.endpoint,
        comment_id=f.comment_id,
        file=f.file,
        line=f.line,
        line_end=f.line_end if f.line_end != f.line else None,
        title=f.title[:TITLE_CHARS],
        url=f.url,
        first=old.first if old else ctx.cycle,
        seen=ctx.cycle,
        fid=shown.fid,
        thread=th,
        acceptance=bound.acceptances.get(sid) if status == "accepted" else None,
        first_level=(old.first_level or old.level) if old else f.severity,
        span=lines[0],
        changed=lines[1],
    )


def next_reviewed(record: History | None, verdict: Verdict) -> dict[BotKey, list[str]]:
    """Per reviewer, the last heads it reviewed, oldest first (`History.reviewed`)."""
    out = {bot: list(heads) for bot, heads in ((record.reviewed or {}) if record else {}).items()}
    head = verdict.head_sha
    for bot, status in verdict.bots.items():
        if status.state == "reviewed":
            out[bot] = [*(h for h in out.get(bot, []) if h != head), head][-MAX_REVIEWED:]
    return dict(sorted(out.items())[:MAX_REVIEWERS])


def next_record(
    verdict: Verdict,
    enriched: Sequence[VerdictFinding],
    accepted: Sequence[AcceptedFinding],
    carried: Carried,
    bound: Bound,
    converged: Converged,
    ctx: CycleContext,
) -> History:
    record = ctx.record
    rec: Mapping[str, Entry] = {e.stable_id: e for e in record.findings} if record else {}
    members: dict[str, Finding] = {}
    for g in [*(g for g, _ in converged.open_groups), *converged.accepted_groups]:
        for f in g.findings:
            members.setdefault(base_sid(f.stable_id), f)
    shown = _shown(enriched, accepted, converged)
    threads = _threads(enriched)
    entries = {
        sid: _entry(
            f,
            shown[sid],
            rec.get(sid),
            verdict.gate,
            threads.get(sid),
            ctx,
            converged,
            bound,
            _lines(f, carried),
        )
        for sid, f in members.items()
    }
    for sid, e in carried.likely_fixed.items():
        if sid not in entries:
            changed = e.status != "likely_fixed"
            span, moved = carried.lines.get(sid, (None, False))
            entries[sid] = e.model_copy(
                update={
                    "status": "likely_fixed",
                    "fid": None,
                    "seen": ctx.cycle if changed else e.seen,
                    "span": span,
                    "changed": moved,
                }
            )
    revisions = list(record.revisions) if record else []
    if record is not None and ctx.revision_time is not None:
        showed = record.fid_map()
        if showed and (not revisions or revisions[-1].m != showed):
            revisions.append(Revision(t=ctx.revision_time.isoformat(), m=showed))
    heads = list(record.heads) if record else []
    if not heads or heads[-1] != verdict.head_sha:
        heads.append(verdict.head_sha)
    return History(
        repo=verdict.repo,
        pr=verdict.pr,
        heads=heads,
        cycle=ctx.cycle,
        gate=verdict.gate,
        reason=verdict.gate_reason[:200],
        blocks=prior_block_count(record, verdict.head_sha) + (verdict.gate == "block"),
        requested_before=converged.prior_blocks,
        requested_last=verdict.gate == "block" and bool(verdict.critical),
        reviewed=next_reviewed(record, verdict),
        fingerprint=ctx.fingerprint,
        findings=sorted(entries.values(), key=lambda e: (e.first, e.stable_id)),
        refs=bound.refs,
        commands=bound.outcomes,
        consumed=bound.consumed,
        revisions=revisions[-MAX_REVISIONS:],
        hold=ctx.hold[:REASON_CHARS] if ctx.hold else None,
    )
