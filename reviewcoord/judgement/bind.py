"""Stage 2 — bind: people's replies and `/review-coordinator accept` commands, bound to the
findings they answer (docs/cycles.md: Replies, § Commands; the rules in reviewcoord/replies.py).

A reply moves a finding sideways (awaiting decision), never off the list. A command is
processed once: applied if its author may (write permission, not the PR author), else shown as
ignored with the reason. Bindings and outcomes go into the record, so later runs agree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

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
    # Endpoint → the highest command comment id seen (the record's compact consumed set).
    consumed: dict[str, int] = field(default_factory=dict)


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
    """A reply in a finding's thread answers that finding; elsewhere, the F ids it names are
    those of the sticky revision its author saw (`revision_seen`, as for a command)."""
    record = ctx.record
    rec = {e.stable_id: e for e in record.findings} if record else {}
    roots = _thread_roots(kept, rec)
    newest: dict[str, int] = {}
    for r in harvest_replies(comments, ctx.own_login):
        key = str(r.comment.id)
        targets = out.refs.get(key)
        if targets is None:
            if r.thread_root is not None and r.thread_root in roots:
                targets = [roots[r.thread_root]]
            else:
                seen = revision_seen(r.comment, ctx)
                fids = seen[0] if seen is not None else {}
                targets = [s for fid in r.fids for s in fids.get(fid, [])]
            if not targets:
                continue
            out.refs[key] = targets
        for sid in targets:
            if newest.get(sid, -1) < r.comment.id:
                newest[sid] = r.comment.id
                out.replies[sid] = AuthorReply(
                    kind=r.kind, by=r.comment.author_login, reason=r.reason, url=r.comment.html_url
                )


def _refusal(
    cmd: Command, targets: Sequence[str], ctx: CycleContext, *, cached: bool = False
) -> str | None:
    """Why this command cannot be applied, or None. `cached`: an earlier run found its author
    allowed, and the context lets a noop take that from the record (the PR-author rule is
    always checked)."""
    if cmd.error is not None:
        return cmd.error
    if not targets:
        if ctx.record is None:
            return "there is no trustworthy review history to resolve it against"
        return f"{cmd.fid} is not a finding of the last verdict"
    who = cmd.comment.author_login
    if who.casefold() == ctx.pr_author.casefold():
        return "the PR author cannot accept their own finding"
    if cached and ctx.permission_from_record:
        return None
    perm = ctx.lookups.permission(who)
    if perm not in WRITE_PERMISSIONS:
        return f"needs write permission (has {perm})"
    return None


def _void(c: RawComment, record: History | None) -> bool:
    """A command the record saw (an outcome, or an id at or below its endpoint's consumed mark:
    ids only grow) whose binding is gone: never bound again, to whatever its F id names today."""
    if record is None:
        return False
    seen = any(o.comment_id == c.id for o in record.commands)
    return seen or c.id <= record.consumed.get(c.endpoint, 0)


def revision_seen(c: RawComment, ctx: CycleContext) -> tuple[Mapping[str, list[str]], str] | None:
    """The F ids (→ entry ids) of the sticky revision `c` answered, and when that revision was
    published: the latest revision published STRICTLY before `c` was created (GitHub's times
    have one-second resolution, and nobody reads a verdict and answers it within its second:
    a tie goes to the earlier revision). None when that revision is gone from the record, when
    none was published before it, or when the time is unknown while older revisions exist."""
    record = ctx.record
    if record is None:
        return {}, ""
    now = ctx.revision_time
    if now is None:
        return record.fid_map(), ""
    if c.created_at is not None and c.created_at > now:
        return record.fid_map(), now.isoformat()
    if c.created_at is None:
        return None
    for rev in reversed(record.revisions):
        try:
            t = datetime.fromisoformat(rev.t)
        except ValueError:
            continue
        if t < c.created_at:
            return rev.m, rev.t
    return None


def apply_commands(
    comments: Sequence[RawComment],
    ctx: CycleContext,
    out: Bound,
    foreign: Mapping[tuple[str, int], str],
) -> None:
    """Acceptances, derived again on every run from the command comments themselves (the record
    only remembers what each command was bound to, and that it was seen). `foreign`: (endpoint,
    comment id) → why its text is not its author's (edited by someone else): ignored."""
    record = ctx.record
    fid_map = record.fid_map() if record else {}
    done = {c.comment_id: c for c in record.commands} if record else {}
    for cmd in parse_commands(comments, ctx.own_login):
        cid = cmd.comment.id
        who = cmd.comment.author_login
        mark = out.consumed.get(cmd.comment.endpoint, 0)
        out.consumed[cmd.comment.endpoint] = max(mark, cid)
        why = foreign.get((cmd.comment.endpoint, cid))
        if why is not None:
            out.command_notes.append(f"@{who}'s command is ignored: {why}")
            continue
        if cid in done and not done[cid].ok:
            if done[cid].note:
                out.command_notes.append(done[cid].note)
            out.outcomes.append(done[cid])
            continue
        bound_to = out.refs.get(str(cid))
        if bound_to is None and _void(cmd.comment, record):
            note = (
                f"@{who}'s command ({cmd.fid or 'unparsed'}) is void: the findings it was bound "
                "to are no longer in the record, and it is never bound to today's F ids"
            )
            out.command_notes.append(note)
            continue
        seen = (fid_map, "") if bound_to is not None else revision_seen(cmd.comment, ctx)
        if seen is None:
            note = (
                f"@{who}'s command ({cmd.fid or 'unparsed'}) is void: the sticky revision it "
                "answered (the last one published before it) is no longer in the record, and "
                "it is never bound to today's F ids"
            )
            out.command_notes.append(note)
            continue
        targets = bound_to or (seen[0].get(cmd.fid, []) if cmd.fid else [])
        problem = _refusal(cmd, targets, ctx, cached=cid in done)
        if problem is not None:
            note = f"@{who} cannot accept {cmd.fid or 'a finding'}: {problem}"
            out.command_notes.append(note)
            out.outcomes.append(CommandOutcome(comment_id=cid, ok=False, note=note))
            continue
        out.refs[str(cid)] = list(targets)
        out.outcomes.append(CommandOutcome(comment_id=cid, ok=True))
        for sid in targets:
            out.acceptances.setdefault(sid, _acceptance(cmd, record, sid, ctx.cycle, seen[1]))


def _acceptance(cmd: Command, record: History | None, sid: str, cycle: int, rev: str) -> Acceptance:
    """The acceptance `cmd` grants `sid`. When it was granted (cycle) and which sticky revision
    the command answered come from the record once the command is bound (explanation only)."""
    assert cmd.kind is not None
    e = record.entry(sid) if record else None
    before = e.acceptance if e is not None else None
    same = before is not None and before.url == cmd.comment.html_url
    return Acceptance(
        kind=cmd.kind,
        issue=cmd.issue,
        reason=cmd.reason[:REASON_CHARS],
        by=cmd.comment.author_login,
        url=cmd.comment.html_url,
        cycle=before.cycle if before is not None else cycle,
        revision=(before.revision if same and before is not None else None) or rev or None,
    )


def bind(
    kept: Sequence[Finding],
    comments: Sequence[RawComment],
    ctx: CycleContext,
    foreign: Mapping[tuple[str, int], str] | None = None,
) -> Bound:
    record: History | None = ctx.record
    out = Bound(
        refs=dict(record.refs) if record else {},
        consumed=dict(record.consumed) if record else {},
    )
    bind_replies(kept, comments, ctx, out)
    # Never from the record: an acceptance stands only while its command comment does.
    apply_commands(comments, ctx, out, foreign or {})
    return out
