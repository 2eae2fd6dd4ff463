"""The data as it moves through the pipeline; the class names say how far along it is.

RawComment (as read from one of three endpoints)
  → ParsedComment (one bot's classification of it, with zero or more Finding)
  → Group (findings at the same place, across bots)
  → Verdict (ranked, bucketed, gated; its JSON is docs/interface.md §5)

All models are frozen: stages return new values, never mutate their inputs.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Endpoint = Literal["review", "review_comment", "issue_comment"]
# Where a finding comes from: one of the three comment endpoints, or a source that is not a PR
# comment at all (a code-scanning alert: `comment_id` is then the alert number).
Origin = Literal["review", "review_comment", "issue_comment", "code_scanning_alert"]
Level = Literal["critical", "medium", "low"]
# What one comment is: findings, a clean verdict, an in-progress signal, a notice that the bot
# could not (`failed`) or would not (`skipped`) review, a done signal without findings of its own
# (`reviewed`: Codex's status table "Completed"), or noise (wrappers, chatter).
CommentKind = Literal["finding", "clean", "in_progress", "reviewed", "failed", "skipped", "noise"]
# A bot's run state for the current head (interface §5 `bots`).
BotState = Literal["not_seen", "working", "reviewed", "failed", "skipped", "unreadable"]
# States after which settle does not wait for the bot (unless it later shows working/reviewed).
FINAL_STATES: frozenset[str] = frozenset({"reviewed", "failed", "skipped", "unreadable"})
Gate = Literal["block", "go"]
SettleMode = Literal["fast", "full", "none"]

# A registered reviewer's key (reviewcoord/bots/registry.py): what users write in `expected-bots`.
BotKey = str

LEVEL_RANK: dict[str, int] = {"critical": 3, "medium": 2, "low": 1}


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class RawComment(Frozen):
    """One item from `pulls/N/reviews`, `pulls/N/comments` or `issues/N/comments`."""

    endpoint: Endpoint
    id: int
    author_login: str
    author_type: str = "User"  # "Bot" / "User" / "Organization" as GitHub says
    body: str = ""
    path: str | None = None
    line: int | None = None
    original_line: int | None = None
    start_line: int | None = None
    commit_id: str | None = None
    original_commit_id: str | None = None
    review_state: str | None = None  # reviews only; upper-case in REST
    in_reply_to_id: int | None = None
    pull_request_review_id: int | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None  # issue/review comments; reviews have submitted_at only
    html_url: str = ""
    node_id: str = ""  # GraphQL's id: the edit history of an edited comment is read by it


class Finding(Frozen):
    """One problem one bot reported, with its own label and our normalised level."""

    bot: BotKey
    stable_id: str  # deterministic across runs; see `stable_finding_id`
    native_id: str | None = None  # e.g. Bugbot's BUGBOT_BUG_ID
    title: str
    gist: str = ""  # first line of the explanation, for the one-line summary
    severity_raw: str | None  # exactly as the bot wrote it, or None
    # Our level for it, computed once by `bots.parse_comment` (no label: medium).
    severity: Level = "medium"
    file: str | None
    line: int | None
    line_end: int | None = None
    url: str
    endpoint: Origin  # see `Origin`
    comment_id: int
    reviewed_commit: str | None = None  # the commit the bot says it reviewed (prefix allowed)


class ThreadMark(Frozen):
    """What a bot's review body says about one of its own inline comments (Copilot's overview
    v2 lists them by `#discussion_r<id>`): the level it carries, or that it is resolved."""

    comment_id: int
    severity_raw: str | None = None
    title: str = ""  # the finding's title as the review lists it (the comment has none)
    resolved: bool = False


class ParsedComment(Frozen):
    """A bot parser's reading of one comment: what kind it is and what it reports."""

    kind: CommentKind
    findings: tuple[Finding, ...] = ()
    # The commit this comment says it is about (Codex "Reviewed commit", Bugbot "for commit").
    reviewed_commit: str | None = None
    # Set when a known bot's comment could not be classified and was kept as a medium finding.
    parse_note: str | None = None
    # Free text for logs: why this kind (e.g. "codex usage-limit notice").
    reason: str = ""
    # One line for people, shown with a failed/skipped/working state ("usage limit reached").
    detail: str = ""
    # False for a comment we could not classify: its fallback finding is kept, but it never
    # makes the bot `reviewed` (an unknown wording may be a failure notice).
    review_signal: bool = True
    # A known bot's comment that no rule of its profile reads (a format change?): the bot is
    # `unreadable` on the head it concerns, never `reviewed` (interface §5).
    unreadable: bool = False
    # A tracker's done signal (Codex's status table "Completed", a declared reviewer's done
    # phrase) with no review of its own: the bot is *finishing*, its review may land seconds
    # later (ingest: `working` until it does, or until `finishing-grace` has passed).
    tracker_done: bool = False
    # The id of an earlier comment of the same bot whose findings this one withdraws (Greptile
    # "I'm withdrawing this finding" in its own thread): ingest drops them, with a parse note.
    withdraws: int | None = None
    # What this review body says about the bot's inline comments (levels, resolved): applied
    # to their findings by reviewcoord/marks.py, the newest review's word winning.
    marks: tuple[ThreadMark, ...] = ()
    # The bot edited this comment to withdraw what it reported ("No longer relevant as of
    # <sha>"): its own words, and the findings the comment still shows. They are out of the
    # gate only if the edit is the bot's own (reviewcoord/edits.py `settle_withdrawals`).
    withdrawn: str = ""
    withdrawn_findings: tuple[Finding, ...] = ()
    # The review effort the bot says it used ("Lite", "Balanced", "Max": Copilot), if any.
    effort: str = ""
    # A failed or skipped notice that says the bot has no budget here (quota, usage limit,
    # credits, billing, a paused subscription) or is not set up or disabled: asking it again
    # would spend what is not there, or could not help. Decided by the profile where the notice
    # is parsed; `rerequest: true` reads this flag, never the detail's words.
    no_budget: bool = False


class BotStatus(Frozen):
    """What one bot did on the current head, and the comment that says so (interface §5)."""

    state: BotState
    detail: str = ""
    url: str = ""


class Source(Frozen):
    """One bot comment behind a verdict entry (docs/interface.md §5 `sources[]`)."""

    bot: BotKey
    severity_raw: str | None
    severity: Level
    url: str
    endpoint: Origin  # see `Origin`
    stable_id: str
    title: str


class Group(Frozen):
    """Findings from one or more bots that point at the same place."""

    file: str | None
    line: int | None
    line_end: int | None
    title: str
    gist: str
    severity: Level
    agreement: int  # number of distinct bots
    findings: tuple[Finding, ...]
    # Whether the members report one issue, not only one place (group.same_issue): every member
    # is the lead's issue; `same_issue` counts the distinct bots that report the lead's issue.
    agrees: bool
    same_issue: int


FindingStatus = Literal["new", "still_open", "awaiting_decision", "likely_fixed", "accepted"]
ReplyKind = Literal["rebutted", "wontfix", "deferred", "fixed"]
AcceptKind = Literal["follow-up", "wontfix", "by-design"]


class AuthorReply(Frozen):
    """A human's reply to a finding (docs/cycles.md § The lifecycle of a finding): moves it
    sideways only."""

    kind: ReplyKind
    by: str
    reason: str
    url: str = ""


class SeverityAdjustment(Frozen):
    """A level change we applied (config `severity:` or convergence mode): never silent."""

    from_level: Level
    to_level: Level
    reason: str


class VerdictFinding(Frozen):
    """A ranked group as published (docs/interface.md §5 `critical[]` / `advisory[]`)."""

    id: str  # display id F1, F2, … (never `#1`: GitHub would link an issue)
    file: str | None
    line: int | None
    line_end: int | None
    title: str
    severity: Level
    agreement: int
    sources: list[Source]
    spread: str
    # Added (interface §5): whether `sources` report one issue or only sit at one place; see
    # `Group.agrees` / `Group.same_issue` (reviewcoord.group.same_issue).
    agrees: bool
    same_issue: int
    gist: str = ""
    # Added for review cycles (None/absent when there is no cycle context):
    stable_id: str | None = None  # the first source's stable id (cross-cycle identity)
    status: FindingStatus | None = None
    first_seen_cycle: int | None = None
    carried_forward: bool = False  # not re-reported on this head; kept from an earlier cycle
    thread_state: Literal["resolved", "outdated"] | None = None  # GitHub's review thread
    reply: AuthorReply | None = None
    severity_adjustment: SeverityAdjustment | None = None


class AcceptedFinding(Frozen):
    """A finding a maintainer accepted (`/review-coordinator accept …`): out of the gate."""

    id: str
    stable_id: str
    title: str
    file: str | None
    line: int | None
    severity: Level
    kind: AcceptKind
    issue: int | None = None
    reason: str
    accepted_by: str
    url: str = ""  # the command comment
    cycle: int
    # When the sticky revision the command answered was published (its F ids are the ones the
    # command meant): the latest one published strictly before the command.
    revision: str | None = None


class CycleChange(Frozen):
    """One row of "since last cycle": what happened to a finding between two runs."""

    id: str | None  # F id now (or the F id it had when it was last shown)
    stable_id: str
    title: str
    file: str | None
    line: int | None
    severity: Level
    change: Literal[
        "new",
        "likely_fixed",
        "reopened",
        "awaiting_decision",
        "accepted",
        "thread_resolved",
        "thread_outdated",
    ]
    note: str = ""


class ConvergenceInfo(Frozen):
    """Convergence mode (docs/cycles.md § Convergence mode): on after `after` changes-requested
    cycles (`block_cycles`: cycles whose gate was block while a critical finding was open)."""

    active: bool
    block_cycles: int
    after: int
    exempted: list[str] = Field(default_factory=list)  # F ids of new critical findings let through


class ParseNote(Frozen):
    bot: str
    url: str
    note: str


class Verdict(Frozen):
    """The product. `model_dump(mode="json")` is exactly docs/interface.md §5 (plus additions)."""

    schema_: int = Field(default=1, alias="schema", serialization_alias="schema")
    repo: str
    pr: int
    head_sha: str
    cycle: int
    settle: SettleMode
    settled_on: list[str]
    pending: list[str]
    unknown_bots: list[str]
    critical: list[VerdictFinding]
    advisory: list[VerdictFinding]
    gate: Gate
    gate_reason: str
    # Added fields (docs/interface.md §5 allows additions):
    expected_bots: list[str] = Field(default_factory=list)
    parse_notes: list[ParseNote] = Field(default_factory=list)
    # Bot run states (interface §5): every expected or seen known bot, and the expected ones
    # that said they could not or would not review the head; `require-bots` as configured.
    bots: dict[str, BotStatus] = Field(default_factory=dict)
    unreviewed: list[str] = Field(default_factory=list)
    required_bots: list[str] = Field(default_factory=list)
    # Bots asked again for this head (`rerequest: true`, reviewcoord/rerequest.py), by this run
    # or an earlier one: their review is awaited, and the verdict says they were asked.
    rerequested: list[str] = Field(default_factory=list)
    # Review cycles (docs/cycles.md); empty/None when there is no history:
    review_mode: Literal["initial", "incremental", "full", "same_head"] | None = None
    previous_head: str | None = None
    force_push: bool = False
    changes: list[CycleChange] = Field(default_factory=list)
    accepted: list[AcceptedFinding] = Field(default_factory=list)
    convergence: ConvergenceInfo | None = None
    history_notice: str | None = None
    # Why the gate is held (block whatever the findings): a record that had to be discarded
    # (interface §5; docs/security.md). None: not held.
    held: str | None = None
    command_notes: list[str] = Field(default_factory=list)
    # Accounts whose login spells a known reviewer's but which are not it (a user account
    # `claude`): login → the key it imitates. A person: never the bot (interface §5).
    impostors: dict[str, str] = Field(default_factory=dict)
    # The base branch's config file is invalid: what is wrong (its key and line) and what the
    # PR was judged under instead (its last valid version, else the defaults). None: it is fine.
    config_warning: str | None = None
    # `wait: events`: the expected bots still awaited within their pack's timeout, and when it
    # ends (ISO 8601, GitHub's clock; None: unknown). Awaiting: block, published as pending.
    awaiting: list[str] = Field(default_factory=list)
    awaiting_until: str | None = None

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    def to_json_dict(self) -> dict[str, object]:
        return self.model_dump(mode="json", by_alias=True)


_WS = re.compile(r"\s+")
_NON_WORD = re.compile(r"[^\w]+")


def normalise_title(title: str) -> str:
    """Case-, punctuation- and width-insensitive form of a title, for ids and grouping."""
    text = unicodedata.normalize("NFKC", title).casefold()
    text = _NON_WORD.sub(" ", text)
    return _WS.sub(" ", text).strip()


def stable_finding_id(bot: str, file: str | None, title: str, native_id: str | None) -> str:
    """A finding's identity across review cycles.

    A bot-native id wins (Bugbot re-posts the same BUGBOT_BUG_ID on later pushes); otherwise
    bot + file + normalised title, so a finding that moves lines keeps its id.
    """
    if native_id:
        key = f"{bot}|native|{native_id.strip().lower()}"
    else:
        key = f"{bot}|{file or ''}|{normalise_title(title)}"
    return f"{bot}-{hashlib.sha256(key.encode('utf-8')).hexdigest()[:12]}"
