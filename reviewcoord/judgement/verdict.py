"""Putting a verdict together: bot states, who settled, the gate and its one-line reason."""

from __future__ import annotations

from collections.abc import Sequence

from reviewcoord.bots import bot_keys
from reviewcoord.ingest import Ingested, settled_and_pending
from reviewcoord.judgement.context import CycleContext, Subject
from reviewcoord.model import (
    AcceptedFinding,
    BotKey,
    BotStatus,
    ConvergenceInfo,
    CycleChange,
    Verdict,
    VerdictFinding,
)
from reviewcoord.rank import gate


def bot_statuses(
    ingested: Ingested, expected: Sequence[BotKey], required: Sequence[BotKey] = ()
) -> dict[str, BotStatus]:
    """docs/interface.md §5 `bots`: every expected or required bot (a required source such as
    code scanning is never expected) and every known bot seen on this PR."""
    shown = set(expected) | set(required) | set(ingested.seen)
    return {
        bot: ingested.bots.get(bot, BotStatus(state="not_seen"))
        for bot in bot_keys()
        if bot in shown
    }


def required_missing(
    ingested: Ingested, required: Sequence[BotKey]
) -> list[tuple[BotKey, BotStatus]]:
    """The `require-bots` bots that have not reviewed the head, with what they did instead."""
    return [
        (bot, ingested.bots.get(bot, BotStatus(state="not_seen")))
        for bot in required
        if ingested.state(bot) != "reviewed"
    ]


def assemble(
    subject: Subject,
    ctx: CycleContext,
    critical: list[VerdictFinding],
    advisory: list[VerdictFinding],
    *,
    required: Sequence[BotKey],
    changes: list[CycleChange],
    accepted: list[AcceptedFinding],
    convergence: ConvergenceInfo | None,
    command_notes: list[str],
) -> Verdict:
    """The one place a verdict is put together (`block` iff `critical` is non-empty, a
    `require-bots` bot has not reviewed the head, or the record is held: `ctx.hold`)."""
    ingested = subject.ingested
    settled_on, pending, unreviewed = settled_and_pending(ingested.bots, subject.expected, required)
    missing = required_missing(ingested, required)
    gate_value, reason = gate(
        critical, advisory, pending, missing, subject.head_sha, unreviewed, settled_on
    )
    if ctx.hold is not None:  # nothing a person edits or deletes turns the gate green
        gate_value, reason = "block", ctx.hold
    return Verdict(
        repo=subject.repo,
        pr=subject.pr,
        head_sha=subject.head_sha,
        cycle=ctx.cycle,
        settle=subject.settle,
        settled_on=settled_on,
        pending=pending,
        unknown_bots=ingested.unknown_bots,
        critical=critical,
        advisory=advisory,
        gate=gate_value,
        gate_reason=reason,
        expected_bots=list(subject.expected),
        parse_notes=ingested.parse_notes,
        bots=bot_statuses(ingested, subject.expected, required),
        unreviewed=unreviewed,
        required_bots=list(required),
        review_mode=ctx.mode,
        previous_head=ctx.previous_head,
        force_push=ctx.force_push,
        changes=changes,
        accepted=accepted,
        convergence=convergence,
        history_notice=ctx.notice,
        held=ctx.hold,
        command_notes=command_notes,
        impostors=ingested.impostors,
    )
