"""Ingest: every comment of the three endpoints → findings, per-bot state on the head, notes.

Pure: the caller has already read every page (the gateway guarantees completeness). Here we
route each comment to its bot's parser, drop our own sticky, record unknown bots, and work out
for each bot whether it has *finished* on the current head (README § When it reads: settle):

* a review counts for the head when its `commit_id` is the head;
* an inline comment when its `original_commit_id` is the head (GitHub re-anchors `commit_id` of
  old comments to the new head, so `commit_id` would lie);
* any comment that names the commit it reviewed (Codex "Reviewed commit", Bugbot "for commit")
  counts when that commit is the head;
* an issue comment that names no commit counts when it was created or edited after the head
  commit was pushed (unknown push time, as in a replay: it counts).

An in-progress signal on the head (Claude's working stub, Codex's Running tracker) makes the bot
pending even when older output exists; a finished clean review makes it settled.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from reviewcoord.bots import bot_for_login, parse_comment
from reviewcoord.model import BOT_KEYS, BotKey, Finding, ParsedComment, ParseNote, RawComment

MARKER = "<!-- review-coordinator-verdict -->"

BotState = Literal["settled", "in_progress", "absent"]


@dataclass(frozen=True)
class Ingested:
    findings: list[Finding]
    states: dict[BotKey, BotState]
    unknown_bots: list[str]
    parse_notes: list[ParseNote]
    # How many comments each bot wrote (any commit): `expected-bots: auto` and logs use it.
    seen: dict[BotKey, int] = field(default_factory=dict)


def is_ours(comment: RawComment, own_login: str | None) -> bool:
    """Our own sticky: it carries the marker first. (Publishing checks the author too.)
    A known AI reviewer's comment is never ours, whatever it starts with: dropping it would let
    a bot's text silence its own finding."""
    if bot_for_login(comment.author_login) is not None:
        return False
    return comment.body.lstrip().startswith(MARKER) or (
        own_login is not None and comment.author_login == own_login and MARKER in comment.body
    )


def _sha_matches(stated: str | None, head_sha: str) -> bool:
    return bool(stated) and len(stated or "") >= 7 and head_sha.startswith(stated or "-")


def is_on_head(
    comment: RawComment, parsed: ParsedComment, head_sha: str, head_time: datetime | None
) -> bool:
    """Whether this comment is the bot's output for the current head (see module docstring)."""
    if parsed.reviewed_commit:
        return _sha_matches(parsed.reviewed_commit, head_sha)
    if comment.endpoint == "review":
        return comment.commit_id is None or comment.commit_id == head_sha
    if comment.endpoint == "review_comment":
        anchor = comment.original_commit_id or comment.commit_id
        return anchor is None or anchor == head_sha
    if head_time is None:
        return True
    stamp = comment.updated_at or comment.created_at
    return stamp is None or stamp >= head_time


def _dedupe(findings: list[Finding]) -> list[Finding]:
    """One finding per bot-native id (Bugbot re-posts a BUGBOT_BUG_ID in a new thread: the
    newest comment wins); other stable-id collisions get a suffix so ids stay unique."""
    by_native: dict[tuple[str, str], Finding] = {}
    rest: list[Finding] = []
    for f in findings:
        if f.native_id:
            key = (f.bot, f.native_id)
            kept = by_native.get(key)
            if kept is None or f.comment_id > kept.comment_id:
                by_native[key] = f
        else:
            rest.append(f)
    unique = sorted(
        [*by_native.values(), *rest],
        key=lambda f: (f.stable_id, f.file or "", f.line or 0, f.comment_id, f.title),
    )
    out: list[Finding] = []
    counts: dict[str, int] = {}
    for f in unique:
        n = counts.get(f.stable_id, 0) + 1
        counts[f.stable_id] = n
        out.append(f if n == 1 else f.model_copy(update={"stable_id": f"{f.stable_id}-{n}"}))
    return out


def ingest(
    comments: Iterable[RawComment],
    *,
    head_sha: str,
    head_time: datetime | None = None,
    own_login: str | None = None,
) -> Ingested:
    findings: list[Finding] = []
    notes: list[ParseNote] = []
    unknown: set[str] = set()
    seen: dict[BotKey, int] = {}
    finished: set[BotKey] = set()
    working: set[BotKey] = set()
    for comment in sorted(comments, key=lambda c: (c.endpoint, c.id)):
        if is_ours(comment, own_login):
            continue
        bot = bot_for_login(comment.author_login)
        if bot is None:
            if comment.author_type.casefold() == "bot" and comment.author_login != own_login:
                unknown.add(comment.author_login)
            continue
        seen[bot] = seen.get(bot, 0) + 1
        parsed = parse_comment(bot, comment)
        findings.extend(parsed.findings)
        if parsed.parse_note:
            notes.append(ParseNote(bot=bot, url=comment.html_url, note=parsed.parse_note))
        if not is_on_head(comment, parsed, head_sha, head_time):
            continue
        if parsed.kind == "in_progress":
            working.add(bot)
        elif parsed.kind in ("finding", "clean") or parsed.reviewed_commit:
            finished.add(bot)
    states: dict[BotKey, BotState] = {}
    for bot in BOT_KEYS:
        if bot in working:
            states[bot] = "in_progress"
        elif bot in finished:
            states[bot] = "settled"
        else:
            states[bot] = "absent"
    return Ingested(
        findings=_dedupe(findings),
        states=states,
        unknown_bots=sorted(unknown),
        parse_notes=sorted(notes, key=lambda n: (n.bot, n.url, n.note)),
        seen=seen,
    )


def settled_and_pending(
    states: dict[BotKey, BotState], expected: Sequence[BotKey]
) -> tuple[list[str], list[str]]:
    """settled_on = bots finished on head (expected or not); pending = expected, not finished."""
    settled: list[str] = [b for b in BOT_KEYS if states.get(b) == "settled"]
    pending: list[str] = [b for b in BOT_KEYS if b in expected and states.get(b) != "settled"]
    return settled, pending
