"""Stage 2 — bind: people's replies and `/review-coordinator accept` commands, bound to the
findings they answer (README § Replies, § Commands; the rules in reviewcoord/replies.py).

A reply moves a finding sideways (awaiting decision), never off the list. A command is
processed once: applied if its author may (write permission, not the PR author), else shown as
ignored with the reason. Bindings and outcomes go into the record, so later runs agree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from reviewcoord.history import REASON_CHARS, Acceptance, CommandOutcome, Entry, History
from reviewcoord.judgement.context import CycleContext
from reviewcoord.judgement.identity import base_sid
from reviewcoord.model import AuthorReply, Finding, RawComment
from reviewcoord.replies import Command, harvest_replies, parse_commands

WRITE_PERMISSIONS = frozenset({"admin", "maintain", "write"})


@dataclass
class Bound:
    replies: dict[str, AuthorReply] = field(default_factory=dict)  # base sid → newest reply
    refs: dict[str, list[str]] = field(default_factory=dict)  # comment id → base sids
    acceptances: dict[str, Acceptance] = field(default_factory=dict)
    outcomes: list[CommandOutcome] = field(default_factory=list)
    command_notes: list[str] = field(default_factory=list)


def _thread_roots(kept: Sequence[Finding], rec: Mapping[str, Entry]) -> dict[int, str]:
    """Review-comment id → the finding (base sid) whose thread it roots."""
    roots: dict[int, str] = {}
    for f in kept:
        if f.endpoint == "review_comment":
            roots.setdefault(f.comment_id, base_sid(f.stable_id))
    for e in rec.values():
        if e.endpoint == "review_comment":
            roots.setdefault(e.comment_id, e.stable_id)
    return roots


def bind_replies(
    kept: Sequence[Finding], comments: Sequence[RawComment], ctx: CycleContext, out: Bound
) -> None:
    record = ctx.record
    rec = {e.stable_id: e for e in record.findings} if record else {}
    fid_map = record.fid_map() if record else {}
    roots = _thread_roots(kept, rec)
    newest: dict[str, int] = {}
    for r in harvest_replies(comments, ctx.own_login):
        key = str(r.comment.id)
        targets = out.refs.get(key)
        if targets is None:
            if r.thread_root is not None and r.thread_root in roots:
                targets = [roots[r.thread_root]]
            else:
                targets = [s for fid in r.fids for s in fid_map.get(fid, [])]
            if not targets:
                continue
            out.refs[key] = targets
        for sid in targets:
            if newest.get(sid, -1) < r.comment.id:
                newest[sid] = r.comment.id
                out.replies[sid] = AuthorReply(
                    kind=r.kind, by=r.comment.author_login, reason=r.reason, url=r.comment.html_url
                )


def _refusal(cmd: Command, targets: Sequence[str], ctx: CycleContext) -> str | None:
    """Why this command cannot be applied, or None."""
    if cmd.error is not None:
        return cmd.error
    if not targets:
        if ctx.record is None:
            return "there is no trustworthy review history to resolve it against"
        return f"{cmd.fid} is not a finding of the last verdict"
    who = cmd.comment.author_login
    if who.casefold() == ctx.pr_author.casefold():
        return "the PR author cannot accept their own finding"
    perm = ctx.lookups.permission(who)
    if perm not in WRITE_PERMISSIONS:
        return f"needs write permission (has {perm})"
    return None


def apply_commands(comments: Sequence[RawComment], ctx: CycleContext, out: Bound) -> None:
    record = ctx.record
    fid_map = record.fid_map() if record else {}
    done = {c.comment_id: c for c in record.commands} if record else {}
    for cmd in parse_commands(comments, ctx.own_login):
        cid = cmd.comment.id
        who = cmd.comment.author_login
        if cid in done:
            if not done[cid].ok and done[cid].note:
                out.command_notes.append(done[cid].note)
            continue
        targets = out.refs.get(str(cid)) or (fid_map.get(cmd.fid, []) if cmd.fid else [])
        problem = _refusal(cmd, targets, ctx)
        if problem is not None:
            note = f"@{who} cannot accept {cmd.fid or 'a finding'}: {problem}"
            out.command_notes.append(note)
            out.outcomes.append(CommandOutcome(comment_id=cid, ok=False, note=note))
            continue
        assert cmd.kind is not None
        out.refs[str(cid)] = list(targets)
        out.outcomes.append(CommandOutcome(comment_id=cid, ok=True))
        for sid in targets:
            out.acceptances.setdefault(
                sid,
                Acceptance(
                    kind=cmd.kind,
                    issue=cmd.issue,
                    reason=cmd.reason[:REASON_CHARS],
                    by=who,
                    url=cmd.comment.html_url,
                    cycle=ctx.cycle,
                ),
            )


def bind(kept: Sequence[Finding], comments: Sequence[RawComment], ctx: CycleContext) -> Bound:
    record: History | None = ctx.record
    out = Bound(refs=dict(record.refs) if record else {})
    bind_replies(kept, comments, ctx, out)
    if record is not None:
        out.acceptances = {
            e.stable_id: e.acceptance
            for e in record.findings
            if e.status == "accepted" and e.acceptance is not None
        }
        out.outcomes = list(record.commands)
    apply_commands(comments, ctx, out)
    return out
