"""The review history: a hidden, versioned, bounded record carried in our own sticky comment.

State lives only in GitHub. The sticky's second line is

    <!-- review-coordinator-history v1 z:<base64(zlib(compact JSON))> -->

Standard base64 has no `-` or `>`, so the payload can never close (or nest) the HTML comment.
The JSON is a `History` (below): reviewed head SHAs, cycle, last gate and reason, the number of
`block` cycles, an input fingerprint (noop detection), one `Entry` per finding stable id (status,
level, location, first/last cycle, the F id it was last shown as, an accepted exception), the
comment → finding bindings of replies and commands, the outcome of every command seen, and
(optional keys) the last head's commit time and resolved expected bots, so that a run on the
same head need not read them again, the verdict's pending and unreviewed bots (for
`reviewcoord status`), each finding's lines shifted onto the last head, the heads each reviewer
last reviewed, and the changes-requested cycles (convergence mode).

Trust. A record is read only from OUR sticky (author = our identity, marker first; see
`publish.sticky.ours`), and only if it decodes, validates, names this repository and PR, and
is at most MAX_DECODED bytes once inflated. Anything else is ignored with a notice: never trusted,
never partially used. Anyone with write access can edit our sticky, so the record caches and
explains but never grants: acceptances come from the command comments on every run
(judgement/bind.py), a sticky edited last by anyone but us is discarded (cycles.Cycles.check_edits),
and the noop's fingerprint seals the record's own digest (cycles.seal).

Bounds. The encoded record is at most HISTORY_LIMIT characters whatever the PR's length
(`bound`): oldest `likely_fixed` entries go first, then the oldest bindings, command notes and
sticky revisions, then the oldest open `low` and `medium` entries, then accepted exceptions,
then anything else, oldest first. At most MAX_HEADS head SHAs are kept. What a bound drops can
only void a command (`consumed`), never re-bind it — so no bound ever drops a command in force
(an applied command's outcome and binding: its author had write access) whatever anyone else
posts: only the other bindings (anyone's replies, refused commands) and outcomes count toward
MAX_REFS and MAX_COMMANDS, and they go first.
"""

from __future__ import annotations

import base64
import binascii
import json
import zlib
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from reviewcoord.model import AcceptKind, BotKey, Level, Origin

HISTORY_PREFIX = "<!-- review-coordinator-history "
VERSION = "v1"
HISTORY_LIMIT = 20_000
MAX_DECODED = 1_000_000
MAX_HEADS = 20
MAX_REFS = 400
MAX_COMMANDS = 100
MAX_REVISIONS = 20
MAX_ASKED = 40
MAX_REVIEWED = 2  # heads per reviewer in `reviewed`
MAX_REVIEWERS = 40  # reviewers in `reviewed` (the registered and declared ones are fewer)
TITLE_CHARS = 120
REASON_CHARS = 300

EntryStatus = Literal["open", "awaiting", "likely_fixed", "accepted"]


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Acceptance(_Model):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    kind: AcceptKind
    issue: int | None = None
    reason: str = Field(max_length=REASON_CHARS)
    by: str
    url: str = ""
    cycle: int
    # When the sticky revision the command answered was published (GitHub's time, ISO 8601):
    # the audit row names it. None: unknown (older records, replays).
    revision: str | None = Field(None, alias="rv", max_length=40)


class Entry(_Model):
    """One finding (by base stable id) as of the last run. The record is serialised with the
    short keys on the right (`sid`, `st`, …: the v1 format, kept so old stickies still decode);
    the code uses the readable names."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    stable_id: str = Field(alias="sid")
    status: EntryStatus = Field(alias="st")
    level: Level = Field(alias="sev")  # the level it was published at
    blocked: bool = Field(False, alias="blk")  # it blocked the gate in some cycle
    exempted: bool = Field(False, alias="ex")  # convergence mode let it through
    bot: str
    raw: str | None = None
    endpoint: Origin = Field(alias="ep")
    comment_id: int = Field(alias="cid")
    file: str | None = None
    line: int | None = None
    line_end: int | None = Field(None, alias="le")  # the range's last line (evidence of a fix)
    title: str = Field(max_length=TITLE_CHARS * 2)
    url: str = ""
    first: int  # cycle first seen
    seen: int  # last cycle it changed or was reported
    fid: str | None = None  # F id in the last sticky
    thread: Literal["resolved", "outdated"] | None = Field(None, alias="th")
    acceptance: Acceptance | None = Field(None, alias="acc")
    # The bot's own level when the finding was first read (None in older records): a bot
    # comment someone else edits later never gates below it.
    first_level: Level | None = Field(None, alias="l0")
    # Optional (None / False in older records, whose stated lines are never shifted): the
    # finding's lines numbered on the record's last head, shifted through each compare between
    # judged heads since its bot stated them (judgement/shift.py), None where no patch could
    # say; and whether one of those compares changed a line inside them (patch evidence).
    span: tuple[int, int] | None = Field(None, alias="sp")
    changed: bool = Field(False, alias="ch")


class BotRun(_Model):
    """What one reviewer did on this PR, accumulated over every run that judged it (the
    scorecard's figures; reviewcoord/runs.py builds it). Each flag is "on some head"."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    expected: bool = Field(False, alias="e")  # expected (or required) on a head we judged
    reviewed: bool = Field(False, alias="r")  # its state was `reviewed` at a run's end
    failed: bool = Field(False, alias="f")  # `failed`: an error, a quota, no credits
    skipped: bool = Field(False, alias="s")  # `skipped`: it declined the PR
    unreadable: bool = Field(False, alias="u")  # a comment of it we could not read in full
    # Minutes from the head's arrival (its commit time) to its first review of that head, on
    # the first head where both times were known; None when never measured.
    minutes: float | None = Field(None, alias="m", ge=0)
    # The review effort it said it used on its newest review of this PR (Copilot: "Lite",
    # "Balanced", "Max"); None when it names none.
    effort: str | None = Field(None, alias="ef", max_length=20)


class CommandOutcome(_Model):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    comment_id: int = Field(alias="cid")
    ok: bool
    note: str = ""


class Revision(_Model):
    """An earlier revision of our sticky: when GitHub says it was written (`t`), and the F ids it
    showed (`m`: F id → entry ids). A command binds to the revision current when it was created."""

    t: str
    m: dict[str, list[str]] = Field(default_factory=dict)


class Asked(_Model):
    """One re-request (reviewcoord/rerequest.py): which bot was asked to review which head, when
    (GitHub's time of the write), how (`requested_reviewers` or the trigger comment) and why."""

    bot: BotKey
    head: str
    at: str | None = None
    how: str = Field("", max_length=120)
    why: str = Field("", max_length=REASON_CHARS)


class History(_Model):
    """The record (serialised with the v1 short keys `fp`, `cmds`, `ht`, `exp`, `pnd`, `unr`,
    `bt`, `co`)."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    v: Literal[1] = 1
    repo: str
    pr: int
    heads: list[str] = Field(default_factory=list)  # reviewed heads, oldest first
    cycle: int = Field(ge=1)
    gate: Literal["block", "go"]
    reason: str = ""
    blocks: int = Field(0, ge=0)  # cycles whose gate was block (this one included)
    fingerprint: str = Field("", alias="fp")
    findings: list[Entry] = Field(default_factory=list)
    refs: dict[str, list[str]] = Field(default_factory=dict)  # comment id → base sids
    commands: list[CommandOutcome] = Field(default_factory=list, alias="cmds")
    # Optional: per endpoint, the highest command comment id ever seen. Comment ids only grow,
    # so this is the whole set of consumed commands in two numbers, and survives every bound: a
    # command at or below it whose binding was dropped is void, never re-bound.
    consumed: dict[str, int] = Field(default_factory=dict, alias="cw")
    # Optional: the sticky's earlier revisions, oldest first (at most MAX_REVISIONS); this
    # record's own revision is its entries' F ids, written at our sticky's `updated_at`.
    revisions: list[Revision] = Field(default_factory=list, alias="rv")
    # Optional: bot comments ("endpoint:id") edited by someone else, and why: a noop (which
    # reads no edit history) keeps holding their findings. It can only hold, never release.
    held: dict[str, str] = Field(default_factory=dict, alias="hb")
    # Optional: command comments ("endpoint:id:updated_at") ignored as edited by someone else,
    # and why, so that a noop (which reads no edit history) ignores them too.
    ignored: dict[str, str] = Field(default_factory=dict, alias="ic")
    # Optional (records written before they existed still decode): facts about the last head
    # that a later run on the same head need not read again: when the head arrived on GitHub
    # (reviewcoord/arrival.py: when it became this PR's head), and the expected bots
    # resolved for it (`expected-bots: auto`). `ht` held the commit's own date in older records:
    # the pusher sets that one, so it is decoded but never used.
    head_time: str | None = Field(None, alias="ht")
    head_arrival: str | None = Field(None, alias="ha")
    expected: list[BotKey] | None = Field(None, alias="exp")
    # Optional too: the verdict's pending and unreviewed bots (`reviewcoord status` lists them
    # without re-judging); None in records written before they existed.
    pending: list[str] | None = Field(None, alias="pnd")
    unreviewed: list[str] | None = Field(None, alias="unr")
    # Optional too (module docstring): per reviewer key, what it did over the runs; and the base
    # stable ids of findings that another reviewer reported as the same issue in some cycle.
    bots: dict[BotKey, BotRun] | None = Field(None, alias="bt")
    corroborated: list[str] | None = Field(None, alias="co")
    # Optional: the re-requests made on this PR, newest last (at most MAX_ASKED): never a
    # second ask for the same bot and head, whichever run asks.
    asked: list[Asked] | None = Field(None, alias="ask")
    # Optional: per reviewer key, the last two heads it reviewed (its state `reviewed` when a
    # run judged that head), oldest first: "the latest push" for its findings is the range since
    # the one before this head (judgement/converge.py). None in older records: unknown, so a
    # finding is judged against the whole PR.
    reviewed: dict[BotKey, list[str]] | None = Field(None, alias="rb")
    # Optional: changes-requested cycles — cycles whose gate was block while a critical finding
    # was open (convergence mode counts these, not a block while a reviewer is still pending):
    # how many before the last recorded cycle, and whether that one was. None in older records
    # (counted from 0 again: convergence mode comes later, never sooner).
    requested_before: int | None = Field(None, alias="cr", ge=0)
    requested_last: bool | None = Field(None, alias="crl")
    # Optional: why the gate is held (never go) after a record had to be discarded (our sticky
    # edited by someone else, or deleted): until a maintainer's `workflow_dispatch`, or a
    # reviewer's next review, judges again (cycles.Cycles.hold). None: not held.
    hold: str | None = Field(None, alias="hd", max_length=REASON_CHARS)

    @property
    def last_head(self) -> str | None:
        return self.heads[-1] if self.heads else None

    def entry(self, sid: str) -> Entry | None:
        for e in self.findings:
            if e.stable_id == sid:
                return e
        return None

    def fid_map(self) -> dict[str, list[str]]:
        """F id (as shown in the last sticky) → the base stable ids behind it."""
        out: dict[str, list[str]] = {}
        for e in self.findings:
            if e.fid:
                out.setdefault(e.fid.upper(), []).append(e.stable_id)
        return out


def encode(history: History) -> str:
    """The hidden line for the sticky (no newline)."""
    data = json.dumps(
        history.model_dump(mode="json", exclude_defaults=True, by_alias=True),
        separators=(",", ":"),
        ensure_ascii=False,
        sort_keys=True,
    ).encode("utf-8")
    payload = base64.b64encode(zlib.compress(data, 9)).decode("ascii")
    return f"{HISTORY_PREFIX}{VERSION} z:{payload} -->"


def _history_line(body: str) -> str | None:
    text = body.replace("\r\n", "\n").lstrip()
    lines = text.split("\n", 2)
    if len(lines) < 2:
        return None
    second = lines[1].strip()
    return second if second.startswith(HISTORY_PREFIX) else None


def decode(body: str, *, repo: str, pr: int) -> tuple[History | None, str | None]:
    """(record, notice) from our sticky's body. No history line → (None, None); a corrupt,
    unknown-version or foreign record → (None, notice)."""
    line = _history_line(body)
    if line is None:
        return None, None
    return decode_line(line, repo=repo, pr=pr)


def decode_line(line: str, *, repo: str, pr: int) -> tuple[History | None, str | None]:
    """(record, notice) from one history line (`encode`'s output)."""
    rest = line[len(HISTORY_PREFIX) :]
    version, _, rest = rest.partition(" ")
    if version != VERSION:
        return None, f"history record version {version[:10]!r} is not {VERSION}; ignored"
    if not rest.startswith("z:") or not rest.endswith("-->"):
        return None, "history record is malformed; ignored"
    payload = rest[2:-3].strip()
    try:
        raw = base64.b64decode(payload, validate=True)
        inflater = zlib.decompressobj()
        data = inflater.decompress(raw, MAX_DECODED)
        if inflater.unconsumed_tail:
            return None, "history record is too large once inflated; ignored"
        history = History.model_validate(json.loads(data.decode("utf-8")))
    except (binascii.Error, zlib.error, UnicodeDecodeError, ValueError, ValidationError):
        return None, "history record is corrupt (it does not decode or validate); ignored"
    if history.repo.casefold() != repo.casefold() or history.pr != pr:
        return None, "history record belongs to another pull request; ignored"
    if not history.heads:
        return None, "history record names no reviewed head; ignored"
    return history, None


def _drop_order(history: History) -> list[tuple[int, int, int]]:
    """Entry indexes in the order they may be dropped: (class, last cycle, index)."""
    rank = {"likely_fixed": 0, "open": 3, "awaiting": 3, "accepted": 4}
    order = []
    for i, e in enumerate(history.findings):
        cls = rank[e.status]
        if e.status in ("open", "awaiting"):
            cls = {"low": 1, "medium": 2}.get(e.level, 5)
        order.append((cls, e.seen, i))
    return sorted(order)


def _in_force(history: History) -> set[str]:
    """The comment ids (as the refs key them) of the commands applied on the last run."""
    return {str(o.comment_id) for o in history.commands if o.ok}


def _newest(items: dict[str, list[str]], keep: int) -> dict[str, list[str]]:
    ordered = sorted(items.items(), key=lambda kv: int(kv[0]) if kv[0].isdigit() else 0)
    return dict(ordered[len(ordered) - keep :]) if keep > 0 else {}


def bound(history: History, limit: int = HISTORY_LIMIT) -> tuple[History, int]:
    """The record cut to fit `limit` encoded characters; and how many entries were dropped.
    Commands in force (and their bindings) are never dropped (module docstring)."""
    force = _in_force(history)
    kept_refs = {k: v for k, v in history.refs.items() if k in force}
    applied = [o for o in history.commands if o.ok]
    refused = [o for o in history.commands if not o.ok]
    room = max(0, MAX_COMMANDS - len(applied))
    others = {k: v for k, v in history.refs.items() if k not in force}
    state = {
        "heads": history.heads[-MAX_HEADS:],
        "commands": refused[len(refused) - room :] if room else [],
        "revisions": history.revisions[-MAX_REVISIONS:],
        "refs": _newest(others, MAX_REFS - len(kept_refs)),
    }
    keep = set(range(len(history.findings)))

    def build() -> History:
        findings = [e for i, e in enumerate(history.findings) if i in keep]
        refs = state["refs"]
        commands = state["commands"]
        assert isinstance(refs, dict) and isinstance(commands, list)
        update: dict[str, object] = {
            **state,
            "refs": {**refs, **kept_refs},
            "commands": [o for o in history.commands if o.ok or o in commands],
            "findings": findings,
        }
        if history.corroborated is not None:  # only for the entries kept
            held = {e.stable_id for e in findings}
            update["corroborated"] = [sid for sid in history.corroborated if sid in held]
        return history.model_copy(update=update)

    if len(encode(build())) <= limit:
        return build(), 0
    order = _drop_order(history)
    step = max(1, len(history.findings) // 40)
    dropped = 0

    def drop(indexes: list[int]) -> bool:
        nonlocal dropped
        for n, i in enumerate(indexes, start=1):
            keep.discard(i)
            dropped += 1
            if (n % step == 0 or n == len(indexes)) and len(encode(build())) <= limit:
                return True
        return False

    # 1. resolved (likely fixed) entries, oldest first.
    if drop([i for cls, _seen, i in order if cls == 0]):
        return build(), dropped
    # 2. the oldest half of the other bindings, refused commands' notes and revisions, repeatedly.
    while state["refs"] or state["commands"] or state["revisions"]:
        r, c, v = state["refs"], state["commands"], state["revisions"]
        assert isinstance(r, dict) and isinstance(c, list) and isinstance(v, list)
        state["refs"] = dict(list(r.items())[len(r) // 2 :]) if len(r) > 1 else {}
        state["commands"] = c[len(c) // 2 :] if len(c) > 1 else []
        state["revisions"] = v[len(v) // 2 :] if len(v) > 1 else []
        if len(encode(build())) <= limit:
            return build(), dropped
    # 3. everything else, least important and oldest first.
    if drop([i for cls, _seen, i in order if cls != 0 and i in keep]):
        return build(), dropped
    heads = state["heads"]
    assert isinstance(heads, list)
    while len(encode(build())) > limit and len(heads) > 1:
        heads = heads[1:]
        state["heads"] = heads
    return build(), dropped
