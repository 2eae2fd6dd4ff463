"""Which head a signal speaks for: one rule, from GitHub's own facts (docs/security.md § Binding).

Every signal a bot gives — a review, an inline comment, a conversation comment, a reaction — is
bound to the PR's head by `binds_to_head`, and by nothing else. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Literal

from reviewcoord.model import BotKey

# The head time of an offline judgement (a replay, a unit test): it has no GitHub clock, so
# every signal that names no commit counts as on the head. A live run passes GitHub's time or
# None (unknown: no such signal counts).
ANY_TIME = datetime.min.replace(tzinfo=UTC)

SignalKind = Literal["review", "review_comment", "issue_comment", "reaction"]
_FULL_SHA = re.compile(r"[0-9a-f]{40}")
_PREFIX = re.compile(r"[0-9a-f]{7,39}")


@dataclass(frozen=True)
class Signal:
    """One thing a bot said, as far as binding cares."""

    bot: BotKey
    kind: SignalKind
    # The commit GitHub files it under: a review's `commit_id`, an inline comment's
    # `original_commit_id` (its `commit_id` moves to newer heads). None: GitHub gives none.
    commit_id: str | None = None
    # The commit its body states (hex, 7 to 40 characters: Codex's tracker, Bugbot's "for commit").
    stated: str | None = None
    # GitHub's time of what it says now: its creation, or its bot's own last edit (an edit by
    # anyone else never makes it newer: reviewcoord/edits.py `own_time`).
    when: datetime | None = None
    # A comment its bot created when its run began and edits in place as the run goes (Claude's
    # tracking comment): the run began at `created`.
    in_place: bool = False
    created: datetime | None = None


@dataclass(frozen=True)
class HeadFacts:
    """What GitHub says about the head and this PR's other heads (`head_facts` builds it)."""

    head: str
    # When the head became this PR's head (reviewcoord/arrival.py); None: unknown; ANY_TIME:
    # an offline judgement.
    arrival: datetime | None = ANY_TIME
    # Every commit GitHub gave a bot's review or inline comment on this PR, per bot.
    commit_ids: Mapping[BotKey, frozenset[str]] = field(default_factory=dict)
    # Every other commit this PR is known to have had as a head or a commit (GitHub's commit
    # ids, our record's judged heads, the timeline): a stated prefix matching one of them is
    # ambiguous.
    others: frozenset[str] = frozenset()
    # Whether this PR is known to have had an older head (a push after it was opened).
    older_head: bool = False
    # Per bot, the earliest time it is proven to be working on this head: its own signal bound
    # to the head by a commit, its own in-place tracker begun after the head arrived, or a
    # request we made for this head.
    anchors: Mapping[BotKey, datetime] = field(default_factory=dict)

    def anchor(self, bot: BotKey) -> datetime | None:
        """From when `bot`'s signals that name no commit can speak for the head."""
        if not self.older_head:
            return self.arrival  # the PR never had another head: from its arrival on
        return self.anchors.get(bot)


def binds_to_head(signal: Signal, facts: HeadFacts) -> bool:
    """Whether `signal` speaks for `facts.head`, by GitHub's own facts only:

    * a review: its `commit_id` is the head (null: GitHub did not find the commit — not this
      head); an inline comment: its `original_commit_id` is the head;
    * a stated commit: the full 40-hex SHA of the head; or a prefix of the head that no other
      commit of this PR shares and that agrees with a `commit_id` GitHub gave the same bot
      for the head, or that the bot wrote after the head arrived (GitHub's clock); a prefix a
      known older commit shares names that commit, never this head;
    * a signal that names no commit (a reaction, a clean comment): only after the head arrived
      here, and only from when the bot is proven to work on it (`HeadFacts.anchor`): it never
      had another head, or its own commit-bound signal or in-place tracker, or our request, says
      so. Before that it counts for the previous head: the bot is pending on this one. An
      in-place tracker begun after the head arrived is its own proof.

    The pusher's commit dates, an edit by anyone but the bot, and a bare prefix never bind."""
    if signal.kind in ("review", "review_comment"):
        return signal.commit_id is not None and signal.commit_id == facts.head
    if signal.stated:
        return _stated_names_head(signal, facts)
    return _later_than_older_heads(signal, facts)


def needs_clock(signal: Signal) -> bool:
    """Whether binding `signal` may need GitHub's clock (the head's arrival, the PR's
    timeline): it is not filed under a commit and states no full SHA."""
    if signal.kind in ("review", "review_comment"):
        return False
    return not _FULL_SHA.fullmatch((signal.stated or "").lower())


def _stated_names_head(signal: Signal, facts: HeadFacts) -> bool:
    stated = signal.stated.lower() if signal.stated else ""
    if _FULL_SHA.fullmatch(stated):
        return stated == facts.head
    if not _PREFIX.fullmatch(stated) or not facts.head.startswith(stated):
        return False
    if any(other.startswith(stated) for other in facts.others if other != facts.head):
        return False  # a known older commit shares it: it names that one
    if facts.head in facts.commit_ids.get(signal.bot, frozenset()):
        return True  # agrees with the commit GitHub filed the bot's review under
    return _after(signal.when, facts.arrival)


def _later_than_older_heads(signal: Signal, facts: HeadFacts) -> bool:
    if facts.arrival == ANY_TIME:
        return True  # offline: every signal it was given counts
    if signal.in_place and _after(signal.created, facts.arrival):
        return True  # a tracker begun on this head
    if not _after(signal.when, facts.arrival):
        return False
    anchor = facts.anchor(signal.bot)
    return anchor is not None and _after(signal.when, anchor)


def _after(when: datetime | None, since: datetime | None) -> bool:
    """`when` is at or after `since` by GitHub's clock (ANY_TIME: offline, always)."""
    if since is None:
        return False
    return since == ANY_TIME or (when is not None and when >= since)


# --------------------------------------------------------------------------- facts


@dataclass(frozen=True)
class Known:
    """What the reading knows besides the signals: the head's arrival and this PR's history."""

    arrival: datetime | None = ANY_TIME
    older_head: bool = False  # a push or force-push after the PR was opened (arrival.py)
    commits: frozenset[str] = frozenset()  # other commits of this PR (record, timeline)
    # When we asked each bot for a review (our trigger comments, GitHub's time): those made
    # after the head arrived are requests for this head.
    requests: Mapping[BotKey, tuple[datetime, ...]] = field(default_factory=dict)


def head_facts(head: str, signals: Iterable[Signal], known: Known = Known()) -> HeadFacts:
    """The facts `binds_to_head` needs, from every signal on the PR and what else is known."""
    listed = list(signals)
    commit_ids: dict[BotKey, set[str]] = {}
    named: set[str] = set()  # the full commits bots reviewed or stated: each was a head here
    for s in listed:
        full = _full(s)
        if full is not None:
            named.add(full)
            if s.kind in ("review", "review_comment"):
                commit_ids.setdefault(s.bot, set()).add(full)
    partial = HeadFacts(
        head=head,
        arrival=known.arrival,
        commit_ids={bot: frozenset(ids) for bot, ids in commit_ids.items()},
        others=frozenset((known.commits | named) - {head}),
        older_head=known.older_head or bool(named - {head}),
    )
    anchors: dict[BotKey, datetime] = {}
    for bot, times in known.requests.items():
        asked = [t for t in times if _after(t, known.arrival) and known.arrival != ANY_TIME]
        if asked:
            anchors[bot] = min(asked)
    for s in listed:
        start = _proof_of_work(s, partial)
        if start is not None and (s.bot not in anchors or start < anchors[s.bot]):
            anchors[s.bot] = start
    return HeadFacts(**{**partial.__dict__, "anchors": anchors})


def _full(signal: Signal) -> str | None:
    """The full commit a signal is filed under or states, if any."""
    if signal.commit_id:
        return signal.commit_id.lower()
    stated = (signal.stated or "").lower()
    return stated if _FULL_SHA.fullmatch(stated) else None


def _proof_of_work(signal: Signal, facts: HeadFacts) -> datetime | None:
    """When `signal` proves its bot works on the head: bound to it by a commit, or an in-place
    tracker begun after the head arrived."""
    if signal.kind in ("review", "review_comment") or signal.stated:
        return signal.when if binds_to_head(signal, facts) else None
    if signal.in_place and _after(signal.created, facts.arrival):
        return signal.created
    return None
