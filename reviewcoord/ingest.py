"""Ingest: every comment of the three endpoints → findings, per-bot state on the head, notes.

Pure: the caller has already read every page (the gateway guarantees completeness). Here we
route each comment to its bot's parser, drop our own sticky, record unknown bots, and work out
for each bot whether it has *finished* on the current head (docs/reviewers.md § settle).
Whether a comment speaks for the head is decided by one rule, from GitHub's own facts:
reviewcoord/binding.py `binds_to_head` (a review's `commit_id`, an inline comment's
`original_commit_id`, a stated full SHA or a prefix GitHub confirms, and for a comment that names
no commit, GitHub's clock after the head arrived here and after the bot is proven to work on
it). An edit by anyone but the bot never makes a comment newer, never makes it a review, and
never withdraws or marks a finding (`OwnText`, from the edit histories the reading read).

Each on-head comment signals a run state (interface §5): a working tracker → `working`; a
finding, a clean verdict or a done signal → `reviewed`; a failure notice (error, usage limit)
→ `failed`; a refusal by design → `skipped`; a comment no rule reads → `unreadable` (its first
line quoted, never a finding). The newest signal wins (see `bot_state`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from reviewcoord.binding import ANY_TIME as ANY_TIME  # re-exported for its older importers
from reviewcoord.binding import (
    HeadFacts,
    Known,
    Signal,
    binds_to_head,
    head_facts,
    needs_clock,
)
from reviewcoord.bots import (
    REGISTRY,
    bot_for_author,
    bot_keys,
    bot_pr_skip,
    display_name,
    is_source,
    parse_comment,
    reviewer_keys,
    shows_reviewing,
)
from reviewcoord.bots.checks import EvidenceContext, Said
from reviewcoord.edits import OwnText, acts_on_threads
from reviewcoord.limits import MARKER as MARKER  # re-exported for its older importers
from reviewcoord.marks import Marked, apply_marks, distrust
from reviewcoord.model import (
    BotKey,
    BotState,
    BotStatus,
    Finding,
    Level,
    ParsedComment,
    ParseNote,
    RawComment,
)
from reviewcoord.reading import Evidence
from reviewcoord.rerequest import our_requests

PENDING_STATES: frozenset[str] = frozenset({"not_seen", "working"})
# The own-text facts of the bots' edited comments, by (endpoint, id); None: an offline
# judgement without edit histories (every comment is its author's).
OwnTexts = Mapping[tuple[str, int], OwnText]


@dataclass(frozen=True)
class Ingested:
    findings: list[Finding]
    bots: dict[BotKey, BotStatus]
    unknown_bots: list[str]
    parse_notes: list[ParseNote]
    # How many comments each bot wrote (any commit): which bots the verdict shows, and logs.
    seen: dict[BotKey, int] = field(default_factory=dict)
    # The bots this PR shows reviewing (any commit): a comment its profile reads as a review
    # signal, or an unreadable one (fail closed: it may be a review), or its own check: what
    # `expected-bots: auto` counts here — never a noise comment (bots.shows_reviewing).
    reviewing: frozenset[BotKey] = frozenset()
    # Authors who are not the reviewer their login spells (a user account `claude`): login →
    # the bot key it imitates. Their comments are a person's; the sticky names them once.
    impostors: dict[str, BotKey] = field(default_factory=dict)
    # For the record's per-reviewer tally (reviewcoord/runs.py): when each bot first signalled a
    # finished review of the head (GitHub's created/submitted time), and the bots with a comment
    # their parser could not read in full (a parse note of theirs).
    reviewed_at: dict[BotKey, datetime] = field(default_factory=dict)
    unreadable: frozenset[BotKey] = frozenset()
    # Bots whose newest signal on the head is a tracker's "done" with no review yet: shown
    # `working` (FINISHING) until the review lands or the run's `finishing-grace` has passed.
    finishing: frozenset[BotKey] = frozenset()
    # Findings a bot withdrew by editing its comment, with its words: out of the gate only if
    # the edit is its own (the judge asks reviewcoord/edits.py `settle_withdrawals`).
    withdrawn: tuple[tuple[Finding, str], ...] = ()
    # Findings a bot withdrew by its own reply in the thread (Greptile's), stable id → why: gone
    # from this reading, and a recorded one is likely fixed, never carried forward as unreported.
    withdrawn_in_thread: dict[str, str] = field(default_factory=dict)
    # The review effort each bot said it used on the head (Copilot's "Lite"), newest first.
    efforts: dict[BotKey, str] = field(default_factory=dict)
    # What the reading's parts beyond comments said (their states, a source's findings), for
    # the noop's fingerprint; "" when nothing but comments was read.
    evidence_digest: str = ""
    # What bound the comments to the head (reviewcoord/binding.py), and the comments it bound:
    # (endpoint, id).
    facts: HeadFacts | None = None
    on_head: frozenset[tuple[str, int]] = frozenset()
    # Some signal names no full commit (or is a reaction): binding it needs GitHub's clock.
    clocked: bool = False
    # The edited comments' own-text facts came from our record, not their histories: good for
    # the noop check only (reviewcoord/evaluation.py reads the histories before judging more).
    edits_recorded: bool = False

    def state(self, bot: BotKey) -> BotState:
        status = self.bots.get(bot)
        return status.state if status is not None else "not_seen"


def is_ours(comment: RawComment, own_login: str | None) -> bool:
    """Our own sticky: it carries the marker first. (Publishing checks the author too.)
    A known AI reviewer's comment is never ours, whatever it starts with: dropping it would let
    a bot's text silence its own finding."""
    if bot_for_author(comment.author_login, comment.author_type) is not None:
        return False
    return comment.body.lstrip().startswith(MARKER) or (
        own_login is not None and comment.author_login == own_login and MARKER in comment.body
    )


def _dedupe(findings: list[Finding]) -> list[Finding]:
    """One finding per bot-native id (Bugbot re-posts a BUGBOT_BUG_ID in a new thread: the
    newest comment wins); other stable-id collisions get a `~n` suffix so ids stay unique
    (which record entry each one is, is decided later: reviewcoord/judgement/identity.py)."""
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
        out.append(f if n == 1 else f.model_copy(update={"stable_id": f"{f.stable_id}~{n}"}))
    return out


def _withdraw(
    findings: list[Finding],
    withdrawals: Sequence[tuple[BotKey, RawComment, int]],
    notes: list[ParseNote],
    withdrawn: dict[str, str],
) -> list[Finding]:
    """Drop the findings a bot withdrew itself (`ParsedComment.withdraws`: a reply of the same
    bot, on the same endpoint, naming the comment it withdraws), each with a visible note and
    its stable id in `withdrawn`."""
    kept = findings
    for bot, comment, target in withdrawals:
        gone = [
            f
            for f in kept
            if f.bot == bot and f.comment_id == target and f.endpoint == comment.endpoint
        ]
        if not gone:
            continue
        kept = [f for f in kept if f not in gone]
        for f in gone:
            why = f"withdrawn by {display_name(bot)} in its thread"
            notes.append(
                ParseNote(bot=bot, url=comment.html_url or f.url, note=f"finding {why}: {f.title}")
            )
            withdrawn[f.stable_id] = why
    return kept


def _signal(parsed: ParsedComment) -> BotState | None:
    """The run state one on-head comment signals, if any."""
    if parsed.unreadable:
        return "unreadable"
    if parsed.kind == "in_progress":
        return "working"
    if parsed.kind in ("failed", "skipped"):
        return parsed.kind
    if not parsed.review_signal:
        return None
    if parsed.kind in ("finding", "clean", "reviewed") or parsed.reviewed_commit:
        return "reviewed"
    return None


# When two signals carry the same time (or none), the more cautious one is taken as the later:
# working over failed/skipped over reviewed.
_CAUTION = {"reviewed": 0, "skipped": 1, "failed": 2, "working": 3, "unreadable": 4}
UNREVIEWED_STATES: frozenset[str] = frozenset({"failed", "skipped", "unreadable"})
_UNDATED = ANY_TIME


FINISHING = "finishing: its tracker says completed; its review has not landed yet"
FINISHING_CHECK = "finishing: its review has not landed yet"


@dataclass(frozen=True)
class _Signal:
    state: BotState
    when: datetime
    comment_id: int
    detail: str
    url: str
    finishing: bool = False

    def order(self) -> tuple[datetime, int, int]:
        return (self.when, _CAUTION[self.state], self.comment_id)


def bot_state(signals: Sequence[_Signal]) -> BotStatus:
    """A bot's state on the head from its signals there, oldest first (interface §5): the newest
    signal wins, except that a failure or skip notice never undoes a finished review of the same
    head (a re-request that failed leaves the earlier review standing), and failed/skipped stay
    final until the bot shows working or reviewed again."""
    return _newest(signals)[0]


def _newest(signals: Sequence[_Signal]) -> tuple[BotStatus, bool]:
    """`bot_state`, and whether the winning signal is a tracker's "done" (finishing). A tracker
    turning Completed after the review landed does not undo that review either."""
    current: _Signal | None = None
    # `unreadable` (a comment no rule reads: a finished review, a failure or a finding in a
    # new layout?) is loud: it undoes even a finished review, and stands until a later
    # readable signal of the bot on this head (a retried review, a notice we know).
    for signal in sorted(signals, key=_Signal.order):
        if (
            current is not None
            and current.state == "reviewed"
            and (signal.state in ("failed", "skipped") or signal.finishing)
        ):
            continue
        current = signal
    if current is None:
        return BotStatus(state="not_seen"), False
    status = BotStatus(state=current.state, detail=current.detail, url=current.url)
    return status, current.finishing


@dataclass
class _Tally:
    """What the comments say, gathered comment by comment (`_read_comment`)."""

    findings: list[Finding] = field(default_factory=list)
    notes: list[ParseNote] = field(default_factory=list)
    unknown: set[str] = field(default_factory=set)
    seen: dict[BotKey, int] = field(default_factory=dict)
    reviewing: set[BotKey] = field(default_factory=set)
    signals: dict[BotKey, list[_Signal]] = field(default_factory=dict)
    withdrawals: list[tuple[BotKey, RawComment, int]] = field(default_factory=list)
    impostors: dict[str, BotKey] = field(default_factory=dict)
    reviewed_at: dict[BotKey, datetime] = field(default_factory=dict)
    unreadable: set[BotKey] = field(default_factory=set)
    marked: list[Marked] = field(default_factory=list)
    distrusted: list[Marked] = field(default_factory=list)  # marks someone else edited
    withdrawn: list[tuple[Finding, str]] = field(default_factory=list)
    efforts: dict[BotKey, str] = field(default_factory=dict)

    def reviewed(self, bot: BotKey, when: datetime | None) -> None:
        earliest = self.reviewed_at.get(bot)
        if when is not None and (earliest is None or when < earliest):
            self.reviewed_at[bot] = when


def _author(tally: _Tally, comment: RawComment, own_login: str | None) -> BotKey | None:
    """The reviewer who wrote `comment` (login and type), or None — noting impostors and
    unknown bots on the way."""
    bot = bot_for_author(comment.author_login, comment.author_type)
    if bot is not None:
        return bot
    imitated = REGISTRY.impostor_of(comment.author_login, comment.author_type)
    if imitated is not None:
        tally.impostors.setdefault(comment.author_login, imitated)
    elif comment.author_type.casefold() == "bot" and comment.author_login != own_login:
        tally.unknown.add(comment.author_login)
    return None


@dataclass(frozen=True)
class _Read:
    """One bot comment, parsed, with the signal binding reads from it."""

    bot: BotKey
    comment: RawComment
    parsed: ParsedComment
    signal: Signal
    foreign: str | None  # why its text is not only its bot's (reviewcoord/edits.py)


def _own(comment: RawComment, parsed: ParsedComment, edits: OwnTexts | None) -> OwnText:
    """The comment's own-text facts: from the edit histories read (an edited comment whose
    history was not read is not only its author's), or, offline, its own timestamps. A review
    body has no edit time in REST: its history is read when the gate acts on its marks."""
    stamp = comment.updated_at or comment.created_at
    unread = OwnText("its edit history was not read", comment.created_at)
    if edits is not None and comment.endpoint == "review":
        read = edits.get((comment.endpoint, comment.id))
        return read or (unread if acts_on_threads(parsed) else OwnText(None, stamp))
    if edits is None or comment.updated_at in (None, comment.created_at):
        return OwnText(None, stamp)
    return edits.get((comment.endpoint, comment.id)) or unread


def _signal_of(bot: BotKey, comment: RawComment, parsed: ParsedComment, own: OwnText) -> Signal:
    """What binding reads from a comment: the commit GitHub files it under, the commit its
    body states (a conversation comment only: a review's own `commit_id` decides), its time."""
    commit = comment.commit_id
    if comment.endpoint == "review_comment":
        commit = comment.original_commit_id or comment.commit_id
    stated = parsed.reviewed_commit if comment.endpoint == "issue_comment" else None
    return Signal(
        bot,
        comment.endpoint,
        commit_id=commit if comment.endpoint != "issue_comment" else None,
        stated=stated,
        when=own.at,
        in_place=own.in_place,
        created=comment.created_at,
    )


def _parse(
    tally: _Tally,
    bot: BotKey,
    comment: RawComment,
    table: Mapping[str, Mapping[str, Level]] | None,
    edits: OwnTexts | None,
) -> _Read:
    """Parse one bot comment: its findings and notes go to `tally`; a withdrawal or thread
    marks only from a comment nobody but the bot edited."""
    tally.seen[bot] = tally.seen.get(bot, 0) + 1
    parsed = parse_comment(bot, comment, table)
    if shows_reviewing(parsed) or parsed.unreadable:
        tally.reviewing.add(bot)
    own = _own(comment, parsed, edits)
    tally.findings.extend(parsed.findings)
    tally.withdrawn.extend((f, parsed.withdrawn) for f in parsed.withdrawn_findings)
    if (parsed.withdraws is not None or parsed.marks) and own.foreign is not None:
        note = f"not taken from this comment: {own.foreign}"
        tally.notes.append(ParseNote(bot=bot, url=comment.html_url, note=note))
        if parsed.marks:
            tally.distrusted.append((bot, comment, parsed.marks))
    elif parsed.withdraws is not None:
        tally.withdrawals.append((bot, comment, parsed.withdraws))
    elif parsed.marks:
        tally.marked.append((bot, comment, parsed.marks))
    if parsed.parse_note:
        tally.notes.append(ParseNote(bot=bot, url=comment.html_url, note=parsed.parse_note))
        tally.unreadable.add(bot)
    return _Read(bot, comment, parsed, _signal_of(bot, comment, parsed, own), own.foreign)


def _state_of(tally: _Tally, read: _Read, facts: HeadFacts) -> bool:
    """Record the run state `read` signals, if it speaks for the head; → whether it does."""
    if not binds_to_head(read.signal, facts):
        return False
    parsed, comment = read.parsed, read.comment
    state = _signal(parsed)
    if state == "reviewed" and read.foreign is not None:
        # Someone else edited it: its text is not the bot's word that it reviewed this head.
        note = f"not counted as a review: this comment {read.foreign}"
        tally.notes.append(ParseNote(bot=read.bot, url=comment.html_url, note=note))
        return True
    if state is None:
        return True
    when = read.signal.when
    if state == "reviewed":
        tally.reviewed(read.bot, when)
        if parsed.effort:
            tally.efforts[read.bot] = parsed.effort
    done = parsed.tracker_done and state == "reviewed"
    detail = FINISHING if done else parsed.detail
    signal = _Signal(
        "working" if done else state,
        when or _UNDATED,
        comment.id,
        detail,
        comment.html_url,
        finishing=done,
    )
    tally.signals.setdefault(read.bot, []).append(signal)
    return True


def ingest(
    comments: Iterable[RawComment],
    *,
    head_sha: str,
    head_time: datetime | None = ANY_TIME,
    own_login: str | None = None,
    pr_by_bot: bool = False,
    table: Mapping[str, Mapping[str, Level]] | None = None,
    evidence: Evidence | None = None,
    known: Known | None = None,
    edits: OwnTexts | None = None,
) -> Ingested:
    """Every comment → findings (levelled under `table`: the effective severity table, default
    docs/severity.md), each known bot's run state on the head, unknown bots, parse notes; then
    what the rest of the reading says (`evidence`: check runs, statuses, reactions, a source's
    list), asked of each profile that reads it (reviewcoord/bots/checks.py). `head_time`: when
    the head arrived here; `known`: what else the reading knows of this PR's heads; `edits`:
    the own-text facts of the bots' edited comments (None offline)."""
    tally = _Tally()
    listed = sorted(comments, key=lambda c: (c.endpoint, c.id))
    reads: list[_Read] = []
    for comment in listed:
        if is_ours(comment, own_login):
            continue
        bot = _author(tally, comment, own_login)
        if bot is not None:
            reads.append(_parse(tally, bot, comment, table, edits))
    base = known or Known()
    asked = our_requests(listed, own_login)
    facts = head_facts(
        head_sha,
        [r.signal for r in reads],
        replace(base, arrival=head_time, requests={**base.requests, **asked}),
    )
    on_head = frozenset(
        (r.comment.endpoint, r.comment.id) for r in reads if _state_of(tally, r, facts)
    )
    in_thread: dict[str, str] = {}
    findings = _withdraw(tally.findings, tally.withdrawals, tally.notes, in_thread)
    findings = apply_marks(findings, tally.marked, tally.notes, table)
    review_of = {c.id: c.pull_request_review_id for c in listed if c.endpoint == "review_comment"}
    findings = distrust(findings, tally.distrusted, review_of, tally.notes)
    newest = {bot: _newest(tally.signals.get(bot, [])) for bot in bot_keys()}
    states = {bot: status for bot, (status, _f) in newest.items()}
    finishing = {bot for bot, (_s, done) in newest.items() if done}
    said: dict[BotKey, str] = {}
    if evidence is not None:
        findings = _apply_evidence(
            evidence, findings, states, finishing, tally, said, facts=facts, table=table
        )
    if pr_by_bot:
        for bot in bot_keys():
            reason = bot_pr_skip(bot)
            if reason and states[bot].state == "not_seen":
                states[bot] = BotStatus(state="skipped", detail=reason)
    return Ingested(
        findings=_dedupe(findings),
        bots=states,
        unknown_bots=sorted(tally.unknown),
        parse_notes=sorted(tally.notes, key=lambda n: (n.bot, n.url, n.note)),
        seen=tally.seen,
        reviewing=frozenset(tally.reviewing),
        impostors=dict(sorted(tally.impostors.items())),
        reviewed_at=tally.reviewed_at,
        unreadable=frozenset(tally.unreadable),
        finishing=frozenset(finishing),
        withdrawn=tuple(tally.withdrawn),
        withdrawn_in_thread=in_thread,
        efforts=tally.efforts,
        evidence_digest=_digest(said) if said else "",
        facts=facts,
        on_head=on_head,
        clocked=any(needs_clock(r.signal) for r in reads)
        or bool(evidence is not None and evidence.reactions),
    )


def _apply_evidence(
    evidence: Evidence,
    findings: list[Finding],
    states: dict[BotKey, BotStatus],
    finishing: set[BotKey],
    tally: _Tally,
    said: dict[BotKey, str],
    *,
    facts: HeadFacts,
    table: Mapping[str, Mapping[str, Level]] | None,
) -> list[Finding]:
    """Ask each profile that reads a part of `evidence` what it says; combine it with what the
    comments said (`_combined`). Updates `states`, `finishing`, `tally` and `said` in place;
    returns the findings (a source's own list replaces its comments' findings)."""
    for profile in REGISTRY.profiles():
        if profile.evidence is None or not profile.reads or not evidence.has(profile.reads):
            continue
        bot = profile.key
        mine = [f for f in findings if f.bot == bot]
        context = EvidenceContext(profile.logins, mine, bot=bot, facts=facts)
        result = profile.evidence(evidence, context)
        tally.notes.extend(result.notes)
        if result.seen:
            tally.seen[bot] = tally.seen.get(bot, 0) + result.seen
            tally.reviewing.add(bot)
        if result.findings is not None:
            rest = [f for f in findings if f.bot != bot]
            findings = [*rest, *REGISTRY.levelled(result.findings, table)]
        if result.said is None:
            continue
        said[bot] = f"{result.said.state}:{result.said.detail}:{_facts(result.findings)}"
        status, done = _combined(states[bot], bot in finishing, result.said, result.decides)
        states[bot] = status
        finishing.discard(bot)
        if done:
            finishing.add(bot)
        if status.state == "reviewed" and status.detail == result.said.detail:
            tally.reviewed(bot, result.said.when)
    return findings


def _combined(
    status: BotStatus, finishing: bool, said: Said, authoritative: bool
) -> tuple[BotStatus, bool]:
    """A bot's state from its comments (`status`, `finishing`) and from other evidence
    (`said`): the comments win — a notice, a review, a working tracker — except where they
    said nothing (not seen), or a tracker's "done" that the evidence confirms as reviewed.
    A source read completely (`authoritative`) is what its read says."""
    waiting = said.state == "finishing"
    from_evidence = BotStatus(
        state="working" if waiting else said.state,
        detail=f"{FINISHING_CHECK} ({said.detail})" if waiting else said.detail,
        url=said.url,
    )
    if authoritative or status.state == "not_seen":
        return from_evidence, said.state == "finishing"
    if finishing and said.state == "reviewed":
        return from_evidence, False
    return status, finishing


def _facts(findings: Sequence[Finding] | None) -> str:
    """A source's findings from the evidence, in short (one dismissed: judge again)."""
    if findings is None:
        return ""
    facts = sorted(
        (f.stable_id, f.severity_raw or "", f.file or "", f.line or 0, f.line_end or 0, f.title)
        for f in findings
    )
    return hashlib.sha256(json.dumps(facts, ensure_ascii=True).encode()).hexdigest()[:16]


def _digest(said: Mapping[BotKey, str]) -> str:
    """What the evidence beyond comments said, for a noop's fingerprint."""
    text = json.dumps(sorted(said.items()), ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def finished_by_grace(ingested: Ingested, bots: Iterable[BotKey], grace: int) -> Ingested:
    """`bots` (finishing for at least `finishing-grace` seconds, by the run's clock) count as
    reviewed: their tracker said completed and no separate review came within the grace."""
    done = [b for b in bots if b in ingested.finishing]
    if not done:
        return ingested
    detail = f"its tracker says completed; no separate review landed within {grace} s"
    updated = {
        b: ingested.bots[b].model_copy(update={"state": "reviewed", "detail": detail}) for b in done
    }
    return replace(
        ingested, bots={**ingested.bots, **updated}, finishing=ingested.finishing - set(done)
    )


def settled_and_pending(
    bots: Mapping[BotKey, BotStatus], expected: Sequence[BotKey], required: Sequence[BotKey] = ()
) -> tuple[list[str], list[str], list[str]]:
    """settled_on = reviewers that reviewed the head (expected or not); pending = expected
    reviewers not_seen or working; unreviewed = expected or required and failed or skipped
    (interface §5). A source (code scanning) is read, never expected: never settled or
    pending, but unreviewed when it is required and could not be read."""
    states = {bot: status.state for bot, status in bots.items()}
    settled: list[str] = [b for b in reviewer_keys() if states.get(b) == "reviewed"]
    pending: list[str] = [
        b for b in reviewer_keys() if b in expected and states.get(b, "not_seen") in PENDING_STATES
    ]
    owed = {*expected, *required}
    unreviewed: list[str] = [
        b
        for b in bot_keys()
        if b in owed
        and (
            states.get(b) in UNREVIEWED_STATES
            # A source is never expected: required and anything but reviewed (pending, not
            # read), it did not review.
            or (is_source(b) and b in required and states.get(b, "not_seen") != "reviewed")
        )
    ]
    return settled, pending, unreviewed
