"""The judge for callers without review history: comments (or an ingested reading) in, verdict
out — the first cycle of `reviewcoord.judgement.judge`, the one judge (replay, benchmarks).

Reading GitHub (and deciding *when* to read: settle) happens before it, publishing after it;
both live at the edges.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime

from reviewcoord.group import DEFAULT_WINDOW
from reviewcoord.ingest import ANY_TIME, Ingested, ingest
from reviewcoord.judgement import JudgeSettings, Subject, first_cycle
from reviewcoord.judgement import judge as judge_reading
from reviewcoord.model import BotKey, Level, RawComment, SettleMode, Verdict
from reviewcoord.normalize import merged_table


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
    comments: Sequence[RawComment] = (),
) -> Verdict:
    """The verdict of an ingested reading (its findings already levelled at ingest)."""
    subject = Subject(
        repo=repo,
        pr=pr,
        head_sha=head_sha,
        comments=comments,
        ingested=ingested,
        expected=expected,
        settle=settle,
    )
    settings = JudgeSettings(
        group_window=group_window,
        severity_overrides=severity_overrides or {},
        required=required,
    )
    return judge_reading(subject, first_cycle(cycle), settings).verdict


def judge(
    comments: Iterable[RawComment],
    *,
    repo: str,
    pr: int,
    head_sha: str,
    cycle: int = 1,
    settle: SettleMode = "none",
    expected: Sequence[BotKey],
    head_time: datetime | None = ANY_TIME,
    own_login: str | None = None,
    group_window: int = DEFAULT_WINDOW,
    severity_overrides: Mapping[str, Mapping[str, Level]] | None = None,
    required: Sequence[BotKey] = (),
) -> Verdict:
    """All comments of a PR → its verdict."""
    listed = list(comments)
    ingested = ingest(
        listed,
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
        comments=listed,
    )
