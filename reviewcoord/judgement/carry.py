"""Stage 1 — carry: which findings stand on this head, which are likely fixed, which carry
forward from the record (docs/cycles.md § The lifecycle of a finding).

* reported in a comment made for the current head → stands (`reopened` if it was likely fixed);
* only in older comments, or in none → `likely_fixed` iff its bot reviewed this head AND there
  is evidence about the finding's own lines (judgement/evidence.py: its comment is outdated,
  a push since its bot stated it changed its lines, or its bot repeats every finding still
  present); otherwise it carries forward, still gating. A file touched elsewhere is no
  evidence: absence from an incremental review means "not touched", not "fixed".

Each recorded finding's lines travel through the compare to this head (judgement/shift.py):
numbered on the last judged head, they meet that compare's hunks in the same numbering.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from reviewcoord.bots import display_name, is_source, repeats_findings
from reviewcoord.history import Entry, History
from reviewcoord.ingest import Ingested
from reviewcoord.judgement.context import CycleContext, Subject
from reviewcoord.judgement.evidence import Evidence, line_range, note, outdated, shown_lines
from reviewcoord.judgement.identity import base_sid
from reviewcoord.judgement.shift import Span, travel
from reviewcoord.model import CycleChange, Finding, Origin, ParseNote, RawComment


@dataclass
class Carried:
    kept: list[Finding]
    likely_fixed: dict[str, Entry] = field(default_factory=dict)
    carried: set[str] = field(default_factory=set)  # base sids kept only from the record
    reopened: set[str] = field(default_factory=set)
    changes: list[CycleChange] = field(default_factory=list)
    # Base sids some comment for this head reports (their bot stated them on this head).
    on_head: set[str] = field(default_factory=set)
    # Per recorded finding: its lines on this head and whether a push since its bot stated them
    # changed them (`shift.travel` through the compare from the record's last head).
    lines: dict[str, tuple[Span | None, bool]] = field(default_factory=dict)


def _on_head(
    f: Finding, comments: Mapping[tuple[Origin, int], RawComment], ingested: Ingested
) -> bool:
    """Is the comment behind `f` the bot's output for this head (ingest bound it there:
    reviewcoord/binding.py)? A finding with no comment behind it, e.g. an open code-scanning
    result, is current by definition."""
    if (f.endpoint, f.comment_id) not in comments:
        return True
    return (f.endpoint, f.comment_id) in ingested.on_head


def reporting_on_head(subject: Subject) -> set[str]:
    """The bots with a finding that some comment for this head reports: in convergence mode the
    cycle-context step reads, for these only, what changed since their last review."""
    by_key: dict[tuple[Origin, int], RawComment] = {(c.endpoint, c.id): c for c in subject.comments}
    return {f.bot for f in subject.ingested.findings if _on_head(f, by_key, subject.ingested)}


def from_entry(e: Entry) -> Finding:
    """A recorded finding that no comment on this head reports, as a finding to keep."""
    return Finding(
        bot=e.bot,
        stable_id=e.stable_id,
        title=e.title or "(untitled)",
        severity_raw=e.raw,
        severity=e.level,
        file=e.file,
        line=e.line,
        line_end=e.line_end,
        url=e.url,
        endpoint=e.endpoint,
        comment_id=e.comment_id,
    )


def fixed_note(
    ctx: CycleContext, bot: str = "", evidence: Evidence = "re-review", lines: str = ""
) -> str:
    """Why a finding is likely fixed, in the words of its evidence (shown in the sticky)."""
    if is_source(bot):
        return f"{display_name(bot).lower()} no longer lists it as open (fixed or dismissed)"
    if ctx.force_push and evidence == "re-review":
        return f"after the force-push, {note(evidence)}"
    return note(evidence, lines)


def likely_fixed_change(e: Entry, note: str) -> CycleChange:
    return CycleChange(
        id=e.fid,
        stable_id=e.stable_id,
        title=e.title,
        file=e.file,
        line=e.line,
        severity=e.level,
        change="likely_fixed",
        note=note,
    )


def _fix_evidence(
    ingested: Ingested,
    comments: Mapping[tuple[Origin, int], RawComment],
    ctx: CycleContext,
    lines: Mapping[str, tuple[Span | None, bool]],
) -> Callable[[Entry], str | None]:
    """The sticky's note for a recorded finding that is likely fixed, or None: its bot reviewed
    this head AND evidence about its own lines exists (module docstring)."""

    def evidence(e: Entry) -> str | None:
        if ingested.state(e.bot) != "reviewed":
            return None
        if is_source(e.bot):
            # A source read completely (code scanning) is the whole truth: an
            # item it no longer lists was fixed or dismissed, whichever lines changed.
            return fixed_note(ctx, e.bot, "source")
        if repeats_findings(e.bot):
            return fixed_note(ctx, e.bot, "re-review")
        if outdated(comments.get((e.endpoint, e.comment_id))):
            return fixed_note(ctx, e.bot, "outdated")
        _span, changed = lines.get(e.stable_id, (None, False))
        if changed:
            return fixed_note(ctx, e.bot, "patch", shown_lines(line_range(e.line, e.line_end)))
        return None

    return evidence


def travelled(record: History, ctx: CycleContext) -> dict[str, tuple[Span | None, bool]]:
    """Each recorded finding's lines carried through the compare to this head."""
    return {e.stable_id: travel(e.span, e.changed, e.file, ctx.latest) for e in record.findings}


def carry(
    findings: Sequence[Finding],
    comments: Sequence[RawComment],
    ingested: Ingested,
    ctx: CycleContext,
    held: frozenset[tuple[str, int]] = frozenset(),
    withdrawn: Mapping[str, str] | None = None,
) -> Carried:
    """`held`: bot comments someone else edited: what they no longer report is not fixed.
    `withdrawn`: stable ids a bot withdrew in its own edit, with why: likely fixed."""
    record = ctx.record
    by_key: dict[tuple[Origin, int], RawComment] = {(c.endpoint, c.id): c for c in comments}
    by_base: dict[str, list[Finding]] = {}
    for f in findings:
        by_base.setdefault(base_sid(f.stable_id), []).append(f)
    current = {
        sid: [f for f in items if _on_head(f, by_key, ingested)] for sid, items in by_base.items()
    }
    on_head = {sid for sid, items in current.items() if items}
    if record is None:
        return Carried(kept=list(findings), on_head=on_head)
    out = Carried(kept=[], on_head=on_head, lines=travelled(record, ctx))
    rec = {e.stable_id: e for e in record.findings}
    evidence = _fix_evidence(ingested, by_key, ctx, out.lines)

    def carries_forward(e: Entry) -> bool:
        """A recorded open finding not reported on this head: likely fixed, or carried."""
        # An edited bot comment (held) is no evidence either way: what it no longer says is
        # not fixed.
        why = (withdrawn or {}).get(e.stable_id)
        if why is None and (e.endpoint, e.comment_id) not in held:
            why = evidence(e)
        if why is not None:
            out.likely_fixed[e.stable_id] = e
            out.changes.append(likely_fixed_change(e, why))
            return False
        out.carried.add(e.stable_id)
        return True

    for sid, items in by_base.items():
        e = rec.get(sid)
        if current[sid]:
            out.kept.extend(current[sid])
            if e is not None and e.status == "likely_fixed":
                out.reopened.add(sid)
        elif e is None or e.status == "accepted":
            out.kept.extend(items)
        elif e.status == "likely_fixed":
            out.likely_fixed[sid] = e
        elif carries_forward(e):
            out.kept.extend(items)
    _carry_unreported(record, by_base, out, carries_forward)
    return out


def _carry_unreported(
    record: History,
    reported: Mapping[str, object],
    out: Carried,
    carries_forward: Callable[[Entry], bool],
) -> None:
    """Recorded findings no comment reports any more (deleted, or a bot that edits in place)."""
    for e in record.findings:
        if e.stable_id in reported:
            continue
        if e.status == "likely_fixed":
            out.likely_fixed[e.stable_id] = e
        elif e.status == "accepted":
            out.kept.append(from_entry(e))
            out.carried.add(e.stable_id)
        elif carries_forward(e):
            out.kept.append(from_entry(e))


def deleted_notes(
    record: History | None, carried: Carried, comments: Sequence[RawComment]
) -> list[ParseNote]:
    """A note for each recorded finding kept although its comment is gone: anyone with write
    access can delete a bot's comment, and a deletion is no fix — it keeps gating until its
    bot re-reviews its lines (evidence) or someone allowed to accept accepts it."""
    if record is None:
        return []
    present = {(c.endpoint, c.id) for c in comments}
    notes: list[ParseNote] = []
    for e in record.findings:
        if e.stable_id not in carried.carried or e.status == "accepted":
            continue
        if is_source(e.bot) or (e.endpoint, e.comment_id) in present:
            continue
        notes.append(
            ParseNote(
                bot=e.bot,
                url=e.url,
                note=f"its comment was deleted by someone, not fixed: {e.title[:80]} keeps "
                "gating until its bot re-reviews its lines or it is accepted",
            )
        )
    return notes
