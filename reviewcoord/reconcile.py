"""Review cycles: reconcile this run's findings with the recorded history. Pure (no I/O).

The original design's reconcile, convergence and reply rules (README § Review cycles), made
deterministic. A finding's identity across cycles is its *base* stable id (`model.Finding.
stable_id` without the `-2` suffix ingest adds to same-id collisions). With a trustworthy record:

* a finding reported in a comment made for the current head is `new` (first seen this cycle)
  or `still_open`; reported again after being likely fixed, it is `reopened`;
* a previously open finding that is only in older comments, or in none, is `likely_fixed` iff
  its bot finished on the head AND its file is among the files the latest push changed (the
  PR's files after a force-push); otherwise it carries forward, still open, still gating;
* a reply moves it to `awaiting_decision` (still counted, still blocking); an accepted
  exception by a maintainer moves it to `accepted` (out of the gate, listed for audit);
* convergence mode: after `convergence_after` block cycles a new critical finding blocks only
  in a file the latest push changed or as a regression of a prior blocker's file; prior
  blockers still block; the others are shown at `medium` with a visible severity adjustment.

Without a record everything is `new` and the verdict is exactly the stateless one.
The I/O this needs (changed files, thread state, permissions) comes in through `CycleLookups`,
whose functions the runner backs with cached, once-per-run gateway reads.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from reviewcoord.group import DEFAULT_WINDOW, group
from reviewcoord.history import (
    REASON_CHARS,
    TITLE_CHARS,
    Acceptance,
    CommandOutcome,
    Entry,
    History,
)
from reviewcoord.ingest import Ingested, is_on_head
from reviewcoord.model import (
    LEVEL_RANK,
    AcceptedFinding,
    AuthorReply,
    BotKey,
    ConvergenceInfo,
    CycleChange,
    Endpoint,
    Finding,
    Group,
    Level,
    ParsedComment,
    RawComment,
    SettleMode,
    SeverityAdjustment,
    Verdict,
    VerdictFinding,
)
from reviewcoord.normalize import level_for, merged_table
from reviewcoord.pipeline import assemble
from reviewcoord.rank import rank, rank_key, to_verdict_findings
from reviewcoord.replies import harvest_replies, parse_commands

Mode = Literal["initial", "incremental", "full", "same_head"]
WRITE_PERMISSIONS = frozenset({"admin", "maintain", "write"})


def base_sid(sid: str) -> str:
    """`codex-0123abcd4567-2` → `codex-0123abcd4567` (ingest's collision suffix removed)."""
    parts = sid.split("-")
    return "-".join(parts[:2]) if len(parts) > 2 and parts[-1].isdigit() else sid


@dataclass(frozen=True)
class CycleLookups:
    """Reads the reconciliation may need, each called at most when needed (runner caches)."""

    # Files the latest push changed (PR files after a force-push); None when unknown.
    touched: Callable[[], frozenset[str] | None] = lambda: None
    # Review-comment id → "resolved" / "outdated" for threads GitHub marks so.
    threads: Callable[[], Mapping[int, str]] = lambda: {}
    # A login's permission on the repository ("admin" … "none").
    permission: Callable[[str], str] = lambda login: "none"


@dataclass(frozen=True)
class CycleContext:
    record: History | None
    notice: str | None  # corrupt / foreign record
    cycle: int
    mode: Mode
    previous_head: str | None
    force_push: bool
    pr_author: str
    own_login: str | None
    convergence_after: int
    fingerprint: str
    lookups: CycleLookups = field(default_factory=CycleLookups)


def cycle_for(record: History | None, head_sha: str, explicit: int | None) -> int:
    if explicit:
        return explicit
    if record is None:
        return 1
    return record.cycle if record.last_head == head_sha else record.cycle + 1


def _on_head(
    f: Finding, comments: Mapping[tuple[Endpoint, int], RawComment], head: str, t: datetime | None
) -> bool:
    c = comments.get((f.endpoint, f.comment_id))
    if c is None:
        return True
    return is_on_head(c, ParsedComment(kind="finding", reviewed_commit=f.reviewed_commit), head, t)


def _from_entry(e: Entry) -> Finding:
    bot: BotKey = e.bot
    return Finding(
        bot=bot,
        stable_id=e.sid,
        title=e.title or "(untitled)",
        severity_raw=e.raw,
        severity=e.sev,
        file=e.file,
        line=e.line,
        url=e.url,
        endpoint=e.ep,
        comment_id=e.cid,
    )


@dataclass
class _State:
    """Working state of one reconciliation."""

    changes: list[CycleChange] = field(default_factory=list)
    likely_fixed: dict[str, Entry] = field(default_factory=dict)
    carried: set[str] = field(default_factory=set)
    reopened: set[str] = field(default_factory=set)
    notes: list[str] = field(default_factory=list)


def judge_cycle(
    ingested: Ingested,
    comments: Sequence[RawComment],
    ctx: CycleContext,
    *,
    repo: str,
    pr: int,
    head_sha: str,
    head_time: datetime | None,
    settle: SettleMode,
    expected: Sequence[BotKey],
    group_window: int = DEFAULT_WINDOW,
    severity_overrides: Mapping[str, Mapping[str, Level]] | None = None,
    required: Sequence[BotKey] = (),
) -> tuple[Verdict, History]:
    """This run's verdict and the record to store with it."""
    record = ctx.record
    table = merged_table(severity_overrides or {})
    findings = ingested.findings  # levelled once, at ingest, under the same table
    by_key = {(c.endpoint, c.id): c for c in comments}
    st = _State()
    rec = {e.sid: e for e in record.findings} if record else {}

    # --- 1. which findings stand, which are likely fixed, which carry forward -------------
    kept: list[Finding] = []
    if record is None:
        kept = findings
    else:
        by_base: dict[str, list[Finding]] = {}
        for f in findings:
            by_base.setdefault(base_sid(f.stable_id), []).append(f)
        touched_cache: list[frozenset[str] | None] = []

        def reviewed(bot: str, file: str | None) -> bool:
            if ingested.state(bot) != "reviewed":
                return False
            if file is None:
                return True
            if not touched_cache:
                touched_cache.append(ctx.lookups.touched())
            touched = touched_cache[0]
            return touched is not None and file in touched

        for sid, items in by_base.items():
            e = rec.get(sid)
            on_head = [f for f in items if _on_head(f, by_key, head_sha, head_time)]
            if on_head:
                kept.extend(on_head)
                if e is not None and e.st == "likely_fixed":
                    st.reopened.add(sid)
            elif e is None or e.st == "accepted":
                kept.extend(items)
            elif e.st == "likely_fixed":
                st.likely_fixed[sid] = e
            elif reviewed(items[0].bot, items[0].file):
                st.likely_fixed[sid] = e
                st.changes.append(_change(e, "likely_fixed", _fixed_note(ctx)))
            else:
                kept.extend(items)
                st.carried.add(sid)
        for e in record.findings:
            if e.sid in by_base:
                continue
            if e.st == "likely_fixed":
                st.likely_fixed[e.sid] = e
            elif e.st == "accepted":
                kept.append(_from_entry(e))
                st.carried.add(e.sid)
            elif reviewed(e.bot, e.file):
                st.likely_fixed[e.sid] = e
                st.changes.append(_change(e, "likely_fixed", _fixed_note(ctx)))
            else:
                kept.append(_from_entry(e))
                st.carried.add(e.sid)

    groups = rank(group(kept, group_window))

    # --- 2. replies and commands, bound to findings -----------------------------------------
    refs: dict[str, list[str]] = dict(record.refs) if record else {}
    fid_map = record.fid_map() if record else {}
    sid_by_comment: dict[int, str] = {}
    for f in kept:
        if f.endpoint == "review_comment":
            sid_by_comment.setdefault(f.comment_id, base_sid(f.stable_id))
    for e in rec.values():
        if e.ep == "review_comment":
            sid_by_comment.setdefault(e.cid, e.sid)

    replies: dict[str, AuthorReply] = {}
    reply_ids: dict[str, int] = {}
    for r in harvest_replies(comments, ctx.own_login):
        key = str(r.comment.id)
        targets = refs.get(key)
        if targets is None:
            if r.thread_root is not None and r.thread_root in sid_by_comment:
                targets = [sid_by_comment[r.thread_root]]
            else:
                targets = [s for fid in r.fids for s in fid_map.get(fid, [])]
            if not targets:
                continue
            refs[key] = targets
        for sid in targets:
            if reply_ids.get(sid, -1) < r.comment.id:
                reply_ids[sid] = r.comment.id
                replies[sid] = AuthorReply(
                    kind=r.kind, by=r.comment.author_login, reason=r.reason, url=r.comment.html_url
                )

    acceptances: dict[str, Acceptance] = {
        e.sid: e.acc for e in rec.values() if e.st == "accepted" and e.acc is not None
    }
    done = {c.cid: c for c in record.cmds} if record else {}
    outcomes: list[CommandOutcome] = list(record.cmds) if record else []
    command_notes: list[str] = []
    for cmd in parse_commands(comments, ctx.own_login):
        cid = cmd.comment.id
        who = cmd.comment.author_login
        if cid in done:
            if not done[cid].ok and done[cid].note:
                command_notes.append(done[cid].note)
            continue
        label = cmd.fid or "a finding"
        problem = cmd.error
        targets = refs.get(str(cid)) or (fid_map.get(cmd.fid, []) if cmd.fid else [])
        if problem is None and not targets:
            problem = (
                f"{cmd.fid} is not a finding of the last verdict"
                if record is not None
                else "there is no trustworthy review history to resolve it against"
            )
        if problem is None and who.casefold() == ctx.pr_author.casefold():
            problem = "the PR author cannot accept their own finding"
        if problem is None:
            perm = ctx.lookups.permission(who)
            if perm not in WRITE_PERMISSIONS:
                problem = f"needs write permission (has {perm})"
        if problem is not None:
            note = f"@{who} cannot accept {label}: {problem}"
            command_notes.append(note)
            outcomes.append(CommandOutcome(cid=cid, ok=False, note=note))
            continue
        assert cmd.kind is not None
        refs[str(cid)] = list(targets)
        outcomes.append(CommandOutcome(cid=cid, ok=True))
        for sid in targets:
            if sid not in acceptances:
                acceptances[sid] = Acceptance(
                    kind=cmd.kind,
                    issue=cmd.issue,
                    reason=cmd.reason[:REASON_CHARS],
                    by=who,
                    url=cmd.comment.html_url,
                    cycle=ctx.cycle,
                )

    # --- 3. classify groups; convergence; severity adjustments ------------------------------
    prior_blocks = 0
    if record is not None:
        prior_blocks = record.blocks
        if record.last_head == head_sha and record.gate == "block":
            prior_blocks -= 1  # a re-run of the same cycle: its own block does not count
    converging = ctx.convergence_after > 0 and prior_blocks >= ctx.convergence_after
    prior_blocker_files = {
        e.file for e in rec.values() if e.blk and e.st == "likely_fixed" and e.file
    } | {e.file for e in st.likely_fixed.values() if e.blk and e.file}

    open_groups: list[tuple[Group, SeverityAdjustment | None]] = []
    accepted_groups: list[Group] = []
    exempted_sids: set[str] = set()
    touched_latest: list[frozenset[str] | None] = []
    for g in groups:
        sids = _sids(g)
        if sids and all(s in acceptances for s in sids):
            accepted_groups.append(g)
            continue
        adjustment = _config_adjustment(g, table)
        if converging and g.severity == "critical":
            prior_blocker = any(rec[s].blk for s in sids if s in rec)
            was_exempt = any(rec[s].ex for s in sids if s in rec)
            if not touched_latest:
                touched_latest.append(ctx.lookups.touched())
            files = touched_latest[0]
            in_push = files is None or (g.file is not None and g.file in files)
            regression = g.file is not None and g.file in prior_blocker_files
            if not prior_blocker and (was_exempt or not (in_push or regression)):
                why = (
                    f"convergence mode (after {prior_blocks} block cycles): a new critical "
                    "finding in a file the latest push did not change, and not a regression "
                    "of a prior blocker, does not block"
                )
                adjustment = SeverityAdjustment(
                    from_level="critical", to_level="medium", reason=why
                )
                g = g.model_copy(update={"severity": "medium"})
                exempted_sids |= set(sids)
        open_groups.append((g, adjustment))
    open_groups.sort(key=lambda pair: rank_key(pair[0]))

    # --- 4. the verdict ---------------------------------------------------------------------
    stateful = record is not None or ctx.notice is not None
    ranked = [g for g, _adj in open_groups]
    critical, advisory = to_verdict_findings(ranked)
    threads = ctx.lookups.threads() if record is not None and _has_thread(ranked) else {}
    enriched: list[VerdictFinding] = []
    for vf, (g, adjustment) in zip([*critical, *advisory], open_groups, strict=True):
        sids = _sids(g)
        first = min([rec[s].first for s in sids if s in rec] or [ctx.cycle])
        reply = next((replies[s] for s in sids if s in replies), None)
        status: Literal["new", "still_open", "awaiting_decision"] = (
            "new"
            if first >= ctx.cycle and not any(s in st.reopened for s in sids)
            else "still_open"
        )
        if reply is not None and reply.kind != "fixed":
            status = "awaiting_decision"
        thread = None
        for f in g.findings:
            state = threads.get(f.comment_id) if f.endpoint == "review_comment" else None
            if state in ("resolved", "outdated"):
                thread = state
                break
        update: dict[str, object] = {
            "stable_id": sids[0] if sids else None,
            "status": status,
            "first_seen_cycle": first,
            "carried_forward": record is not None and all(s in st.carried for s in sids),
            "thread_state": thread,
            "reply": reply,
            "severity_adjustment": adjustment,
        }
        if not stateful:
            # The first cycle is the stateless verdict (as a replay computes it), plus any
            # severity adjustment (never silent) and any reply (it is visible, never silent).
            update = {k: v for k, v in update.items() if k in ("severity_adjustment", "reply")}
            update = {k: v for k, v in update.items() if v is not None}
        enriched.append(vf.model_copy(update=update))
    critical = enriched[: len(critical)]
    advisory = enriched[len(critical) :]
    accepted: list[AcceptedFinding] = []
    next_id = len(enriched) + 1
    for g in accepted_groups:
        sids = _sids(g)
        acc = acceptances[sids[0]]
        accepted.append(
            AcceptedFinding(
                id=f"F{next_id}",
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
            )
        )
        next_id += 1

    if record is not None:
        for vf in enriched:
            sid = vf.stable_id or ""
            e = rec.get(sid)
            if vf.first_seen_cycle == ctx.cycle and e is None:
                st.changes.append(_vf_change(vf, "new", ""))
            elif sid in st.reopened:
                st.changes.append(_vf_change(vf, "reopened", "reported again on this head"))
            if vf.status == "awaiting_decision" and (e is None or e.st != "awaiting"):
                assert vf.reply is not None
                st.changes.append(
                    _vf_change(vf, "awaiting_decision", f"{vf.reply.kind} by @{vf.reply.by}")
                )
            if vf.thread_state and (e is None or e.th != vf.thread_state):
                kind: Literal["thread_resolved", "thread_outdated"] = (
                    "thread_resolved" if vf.thread_state == "resolved" else "thread_outdated"
                )
                st.changes.append(
                    _vf_change(vf, kind, "on GitHub; still counted until re-reviewed")
                )
        for a in accepted:
            e = rec.get(a.stable_id)
            if e is None or e.st != "accepted":
                st.changes.append(
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
    convergence = None
    if record is not None and ctx.convergence_after > 0:
        convergence = ConvergenceInfo(
            active=converging,
            block_cycles=prior_blocks,
            after=ctx.convergence_after,
            exempted=[vf.id for vf in enriched if (vf.stable_id or "") in exempted_sids],
        )
    verdict = assemble(
        ingested,
        critical,
        advisory,
        repo=repo,
        pr=pr,
        head_sha=head_sha,
        cycle=ctx.cycle,
        settle=settle,
        expected=expected,
        required=required,
        review_mode=ctx.mode,
        previous_head=ctx.previous_head,
        force_push=ctx.force_push,
        changes=st.changes,
        accepted=accepted,
        convergence=convergence,
        history_notice=ctx.notice,
        command_notes=command_notes,
    )
    gate_value, reason = verdict.gate, verdict.gate_reason

    # --- 5. the record to store -------------------------------------------------------------
    entries: dict[str, Entry] = {}
    members: dict[str, Finding] = {}
    for g in [*ranked, *accepted_groups]:
        for f in g.findings:
            members.setdefault(base_sid(f.stable_id), f)
    shown: dict[str, tuple[str, Level, str]] = {}  # sid → (F id, level, status)
    for vf in enriched:
        for s in vf.sources:
            shown.setdefault(base_sid(s.stable_id), (vf.id, vf.severity, vf.status or "new"))
    for a in accepted:
        ag = next(g for g in accepted_groups if _sids(g)[0] == a.stable_id)
        for sid in _sids(ag):
            shown.setdefault(sid, (a.id, a.severity, "accepted"))
    thread_by_sid: dict[str, str] = {}
    for vf in enriched:
        if vf.thread_state:
            for s in vf.sources:
                thread_by_sid[base_sid(s.stable_id)] = vf.thread_state
    for sid, f in members.items():
        fid, level, shown_status = shown[sid]
        old = rec.get(sid)
        blocker = gate_value == "block" and level == "critical"
        entry_status: Literal["open", "awaiting", "accepted"] = (
            "accepted"
            if shown_status == "accepted"
            else "awaiting"
            if shown_status == "awaiting_decision"
            else "open"
        )
        th = thread_by_sid.get(sid)
        entries[sid] = Entry(
            sid=sid,
            st=entry_status,
            sev=level,
            blk=blocker or (old.blk if old else False),
            ex=sid in exempted_sids,
            bot=f.bot,
            raw=f.severity_raw,
            ep=f.endpoint,
            cid=f.comment_id,
            file=f.file,
            line=f.line,
            title=f.title[:TITLE_CHARS],
            url=f.url,
            first=old.first if old else ctx.cycle,
            seen=ctx.cycle,
            fid=fid,
            th="resolved" if th == "resolved" else "outdated" if th == "outdated" else None,
            acc=acceptances.get(sid) if entry_status == "accepted" else None,
        )
    for sid, e in st.likely_fixed.items():
        if sid not in entries:
            changed = e.st != "likely_fixed"
            entries[sid] = e.model_copy(
                update={"st": "likely_fixed", "fid": None, "seen": ctx.cycle if changed else e.seen}
            )
    heads = list(record.heads) if record else []
    if not heads or heads[-1] != head_sha:
        heads.append(head_sha)
    history = History(
        repo=repo,
        pr=pr,
        heads=heads,
        cycle=ctx.cycle,
        gate=gate_value,
        reason=reason[:200],
        blocks=prior_blocks + (1 if gate_value == "block" else 0),
        fp=ctx.fingerprint,
        findings=sorted(entries.values(), key=lambda e: (e.first, e.sid)),
        refs=refs,
        cmds=outcomes,
    )
    return verdict, history


def _sids(g: Group) -> list[str]:
    return list(dict.fromkeys(base_sid(f.stable_id) for f in g.findings))


def _has_thread(groups: Sequence[Group]) -> bool:
    return any(f.endpoint == "review_comment" for g in groups for f in g.findings)


def _config_adjustment(
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


def _fixed_note(ctx: CycleContext) -> str:
    if ctx.force_push:
        return "its bot re-reviewed the PR after the force-push and no longer reports it"
    return "its bot finished on this head, the file changed, and the finding is gone"


def _change(e: Entry, kind: Literal["likely_fixed"], note: str) -> CycleChange:
    return CycleChange(
        id=e.fid,
        stable_id=e.sid,
        title=e.title,
        file=e.file,
        line=e.line,
        severity=e.sev,
        change=kind,
        note=note,
    )


def _vf_change(
    vf: VerdictFinding,
    kind: Literal["new", "reopened", "awaiting_decision", "thread_resolved", "thread_outdated"],
    note: str,
) -> CycleChange:
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
