"""The judge as a list of stages: ingest → normalise → group → rank → gate → Verdict.

`judge` is pure: comments in, verdict out. Reading GitHub (and deciding *when* to read: settle)
happens before it, publishing after it; both live at the edges.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from reviewcoord.bots import bot_keys
from reviewcoord.group import DEFAULT_WINDOW, group
from reviewcoord.ingest import Ingested, ingest, settled_and_pending
from reviewcoord.model import (
    BotKey,
    BotStatus,
    Level,
    RawComment,
    SettleMode,
    Verdict,
    VerdictFinding,
)
from reviewcoord.normalize import merged_table
from reviewcoord.rank import gate, rank, to_verdict_findings


def verdict_from(
    ingested: Ingested,
    *,
    repo: str,
    pr: int,
    head_sha: str,
    cycle: int,
    settle: SettleMode,
    expected: Sequence[BotKey],
    group_window: int = DEFAULT_WINDOW,
    severity_overrides: Mapping[str, Mapping[str, Level]] | None = None,
    required: Sequence[BotKey] = (),
) -> Verdict:
    ranked = rank(group(ingested.findings, group_window))
    critical, advisory = to_verdict_findings(ranked)
    return assemble(
        ingested,
        critical,
        advisory,
        repo=repo,
        pr=pr,
        head_sha=head_sha,
        cycle=cycle,
        settle=settle,
        expected=expected,
        required=required,
    )


def bot_statuses(ingested: Ingested, expected: Sequence[BotKey]) -> dict[str, BotStatus]:
    """interface §5 `bots`: every expected bot and every known bot seen on this PR."""
    shown = set(expected) | set(ingested.seen)
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
    ingested: Ingested,
    critical: list[VerdictFinding],
    advisory: list[VerdictFinding],
    *,
    repo: str,
    pr: int,
    head_sha: str,
    cycle: int,
    settle: SettleMode,
    expected: Sequence[BotKey],
    required: Sequence[BotKey] = (),
    **extra: Any,
) -> Verdict:
    """The one place a verdict is put together: bot states, who settled, the gate and its
    reason (`block` iff `critical` is non-empty or a `require-bots` bot has not reviewed the
    head). `extra` carries the review-cycle fields (reconcile)."""
    settled_on, pending, unreviewed = settled_and_pending(ingested.bots, expected)
    missing = required_missing(ingested, required)
    gate_value, reason = gate(critical, advisory, pending, missing, head_sha)
    return Verdict(
        repo=repo,
        pr=pr,
        head_sha=head_sha,
        cycle=cycle,
        settle=settle,
        settled_on=settled_on,
        pending=pending,
        unknown_bots=ingested.unknown_bots,
        critical=critical,
        advisory=advisory,
        gate=gate_value,
        gate_reason=reason,
        expected_bots=list(expected),
        parse_notes=ingested.parse_notes,
        bots=bot_statuses(ingested, expected),
        unreviewed=unreviewed,
        required_bots=list(required),
        **extra,
    )


def judge(
    comments: Iterable[RawComment],
    *,
    repo: str,
    pr: int,
    head_sha: str,
    cycle: int = 1,
    settle: SettleMode = "none",
    expected: Sequence[BotKey],
    head_time: datetime | None = None,
    own_login: str | None = None,
    group_window: int = DEFAULT_WINDOW,
    severity_overrides: Mapping[str, Mapping[str, Level]] | None = None,
    required: Sequence[BotKey] = (),
) -> Verdict:
    """All comments of a PR → its verdict."""
    ingested = ingest(
        comments,
        head_sha=head_sha,
        head_time=head_time,
        own_login=own_login,
        table=merged_table(severity_overrides or {}),
    )
    return verdict_from(
        ingested,
        repo=repo,
        pr=pr,
        head_sha=head_sha,
        cycle=cycle,
        settle=settle,
        expected=expected,
        group_window=group_window,
        severity_overrides=severity_overrides,
        required=required,
    )
