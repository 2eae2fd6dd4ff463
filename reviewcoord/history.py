"""The review history: a hidden, versioned, bounded record carried in our own sticky comment.

State lives only in GitHub. The sticky's second line is

    <!-- review-coordinator-history v1 z:<base64(zlib(compact JSON))> -->

Standard base64 has no `-` or `>`, so the payload can never close (or nest) the HTML comment.
The JSON is a `History` (below): reviewed head SHAs, cycle, last gate and reason, the number of
`block` cycles, an input fingerprint (noop detection), one `Entry` per finding stable id (status,
level, location, first/last cycle, the F id it was last shown as, an accepted exception), the
comment → finding bindings of replies and commands, the outcome of every command seen, and
(optional keys) the last head's commit time and resolved expected bots, so that a run on the
same head need not read them again, and the verdict's pending and unreviewed bots (for
`reviewcoord status`).

Trust. A record is read only from OUR sticky (author = our identity, marker first; see
`publish.sticky.ours`), and only if it decodes, validates, names this repository and PR, and
is at most MAX_DECODED bytes once inflated. Anything else is ignored with a notice: never trusted,
never partially used.

Bounds. The encoded record is at most HISTORY_LIMIT characters whatever the PR's length
(`bound`): oldest `likely_fixed` entries go first, then the oldest bindings and command notes,
then the oldest open `low` and `medium` entries, then accepted exceptions, then anything else,
oldest first. At most MAX_HEADS head SHAs are kept.
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
TITLE_CHARS = 120
REASON_CHARS = 300

EntryStatus = Literal["open", "awaiting", "likely_fixed", "accepted"]


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Acceptance(_Model):
    kind: AcceptKind
    issue: int | None = None
    reason: str = Field(max_length=REASON_CHARS)
    by: str
    url: str = ""
    cycle: int


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


class CommandOutcome(_Model):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    comment_id: int = Field(alias="cid")
    ok: bool
    note: str = ""


class History(_Model):
    """The record (serialised with the v1 short keys `fp`, `cmds`, `ht`, `exp`, `pnd`, `unr`)."""

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
    # Optional (records written before they existed still decode): facts about the last head
    # that a later run on the same head need not read again: when the head arrived on GitHub
    # (its earliest check suite, GitHub's clock; immutable for a SHA), and the expected bots
    # resolved for it (`expected-bots: auto`). `ht` held the commit's own date in older records:
    # the pusher sets that one, so it is decoded but never used.
    head_time: str | None = Field(None, alias="ht")
    head_arrival: str | None = Field(None, alias="ha")
    expected: list[BotKey] | None = Field(None, alias="exp")
    # Optional too: the verdict's pending and unreviewed bots (`reviewcoord status` lists them
    # without re-judging); None in records written before they existed.
    pending: list[str] | None = Field(None, alias="pnd")
    unreviewed: list[str] | None = Field(None, alias="unr")

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


def bound(history: History, limit: int = HISTORY_LIMIT) -> tuple[History, int]:
    """The record cut to fit `limit` encoded characters; and how many entries were dropped."""
    refs = sorted(history.refs.items(), key=lambda kv: int(kv[0]) if kv[0].isdigit() else 0)
    state = {
        "heads": history.heads[-MAX_HEADS:],
        "commands": history.commands[-MAX_COMMANDS:],
        "refs": dict(refs[-MAX_REFS:]),
    }
    keep = set(range(len(history.findings)))

    def build() -> History:
        findings = [e for i, e in enumerate(history.findings) if i in keep]
        return history.model_copy(update={**state, "findings": findings})

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
    # 2. the oldest half of bindings and command notes, repeatedly.
    while state["refs"] or state["commands"]:
        r, c = state["refs"], state["commands"]
        assert isinstance(r, dict) and isinstance(c, list)
        state["refs"] = dict(list(r.items())[len(r) // 2 :]) if len(r) > 1 else {}
        state["commands"] = c[len(c) // 2 :] if len(c) > 1 else []
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
