"""Stage 0 — identity: the record entry each finding is (one finding, one entry).

A finding's stable id (`model.stable_finding_id`) is its bot, file and normalised title, so a
finding keeps its id when a push moves its lines or its bot posts it again. Two findings of one
bot with one title in one file (lines 10 and 300) share that id — a *family* — and must still
be two entries: accepting one must never accept the other.

Within a family, the findings of one round (one review's inline comments, or one comment) are
distinct findings; rounds are the same findings reported again — unless GitHub places them
apart: a live inline comment's `line` moves with the code on every push, so two live threads
more than SAME_PLACE lines apart on the current head are two findings whichever review posted
them (issue 23 route 10: Codex's line 10 on head A and its line 300 on head C). The newest
round is matched to the family's recorded entries by nearest line, then older rounds to those,
never across such a distance; a finding left over gets a fresh entry id (`<family>` if free,
else `<family>.<k>`). A family with one finding per round, at one place, and at most one
recorded entry is simply `<family>`, as before.

Ids: `<bot>-<12 hex>` is a family; `.<k>` names a member; `~<n>` (ingest) only makes a run's
ids unique when one entry is reported by several comments. Bot keys are `[a-z0-9-]`, so
neither separator is ever part of a key: `code-scanning-…~2` keeps its family.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime

from reviewcoord.group import DEFAULT_WINDOW
from reviewcoord.history import History
from reviewcoord.model import LEVEL_RANK, Finding, Origin, ParseNote, RawComment

FAR = 10**6  # a finding without a line matches another only when nothing nearer is left
# Two live inline comments more than this many lines apart on the current head are two findings.
SAME_PLACE = DEFAULT_WINDOW
_EPOCH = datetime.min.replace(tzinfo=UTC)


def base_sid(sid: str) -> str:
    """`codex-0123abcd4567~2` → `codex-0123abcd4567` (ingest's uniqueness suffix removed)."""
    head, sep, tail = sid.rpartition("~")
    return head if sep and tail.isdigit() else sid


def family(sid: str) -> str:
    """The family of an entry id: `pr-agent-0123abcd4567.2` → `pr-agent-0123abcd4567`."""
    return base_sid(sid).partition(".")[0]


def _round(f: Finding, comments: Mapping[tuple[Origin, int], RawComment]) -> tuple[str, int]:
    c = comments.get((f.endpoint, f.comment_id))
    if f.endpoint == "review_comment" and c is not None and c.pull_request_review_id:
        return ("review", c.pull_request_review_id)
    return (f.endpoint, f.comment_id)


def _distance(a: int | None, b: int | None) -> int:
    return abs(a - b) if a is not None and b is not None else FAR


def _fresh(fam: str, used: set[str]) -> str:
    if fam not in used:
        return fam
    k = 2
    while f"{fam}.{k}" in used:
        k += 1
    return f"{fam}.{k}"


Round = tuple[str, int]


def _place(c: RawComment | None) -> int | None:
    """Where an inline comment is on the PR's current head, as GitHub says: its `line`, which
    GitHub moves with the code while the comment is live (null once outdated). Unknown for any
    other comment: a line stated in a body is not tracked."""
    if c is None or c.endpoint != "review_comment":
        return None
    return c.line


def _apart(a: int | None, b: int | None) -> bool:
    """Two places GitHub knows, too far apart to be one finding."""
    return a is not None and b is not None and abs(a - b) > SAME_PLACE


def _one_place(places: Sequence[int | None]) -> bool:
    known = [p for p in places if p is not None]
    return not known or max(known) - min(known) <= SAME_PLACE


def _assign(
    members: Sequence[tuple[Finding, Round, int | None]],
    fam: str,
    recorded: Sequence[tuple[str, int | None, int | None]],
) -> list[str]:
    """The entry id of each member of one family; `members` ordered newest round first. A
    member takes the nearest entry still free in its round, never one GitHub places elsewhere
    on the current head (two live threads at lines 10 and 300 are two findings)."""
    rounds: dict[Round, list[int]] = {}
    for i, (_f, r, _p) in enumerate(members):
        rounds.setdefault(r, []).append(i)
    anchors = list(recorded)
    used = {eid for eid, _, _ in anchors}
    out: dict[int, str] = {}
    for indexes in rounds.values():
        pairs = sorted(
            (_distance(members[i][0].line, line), n, i)
            for i in indexes
            for n, (_eid, line, place) in enumerate(anchors)
            if not _apart(members[i][2], place)
        )
        taken: set[int] = set()
        for _d, n, i in pairs:
            if i not in out and n not in taken:
                out[i] = anchors[n][0]
                taken.add(n)
        for i in sorted(indexes, key=lambda i: (members[i][0].line or 0, members[i][0].comment_id)):
            if i not in out:
                eid = _fresh(fam, used)
                used.add(eid)
                anchors.append((eid, members[i][0].line, members[i][2]))
                out[i] = eid
    return [out[i] for i in range(len(members))]


def _anchors(
    record: History | None, by_key: Mapping[tuple[Origin, int], RawComment]
) -> dict[str, list[tuple[str, int | None, int | None]]]:
    """Per family, the recorded entries: (entry id, recorded line, place on the current head:
    its comment's, or the recorded line of an inline comment that is gone)."""
    out: dict[str, list[tuple[str, int | None, int | None]]] = {}
    for e in record.findings if record else ():
        c = by_key.get((e.endpoint, e.comment_id))
        place = _place(c) if c is not None else e.line if e.endpoint == "review_comment" else None
        out.setdefault(family(e.stable_id), []).append((e.stable_id, e.line, place))
    return out


def identify(
    findings: Sequence[Finding], comments: Sequence[RawComment], record: History | None
) -> list[Finding]:
    """`findings` with each stable id set to its entry id (`~n` where an entry repeats)."""
    by_key: dict[tuple[Origin, int], RawComment] = {(c.endpoint, c.id): c for c in comments}
    recorded = _anchors(record, by_key)
    families: dict[str, list[int]] = {}
    for i, f in enumerate(findings):
        families.setdefault(family(f.stable_id), []).append(i)
    eids: list[str] = [""] * len(findings)
    places = [_place(by_key.get((f.endpoint, f.comment_id))) for f in findings]

    def age(i: int) -> tuple[datetime, int]:
        c = by_key.get((findings[i].endpoint, findings[i].comment_id))
        return (c.created_at if c and c.created_at else _EPOCH), findings[i].comment_id

    for fam, indexes in families.items():
        rounds = {i: _round(findings[i], by_key) for i in indexes}
        widest = max(list(rounds.values()).count(r) for r in rounds.values())
        known = recorded.get(fam, [])
        spots = [places[i] for i in indexes] + [place for _e, _l, place in known]
        if widest <= 1 and all(eid == fam for eid, _, _ in known) and _one_place(spots):
            for i in indexes:
                eids[i] = fam
            continue
        order = sorted(indexes, key=age, reverse=True)
        members = [(findings[i], rounds[i], places[i]) for i in order]
        for i, eid in zip(order, _assign(members, fam, known), strict=True):
            eids[i] = eid
    return _unique(list(zip(findings, eids, strict=True)))


def _unique(pairs: Sequence[tuple[Finding, str]]) -> list[Finding]:
    seen: dict[str, int] = {}
    out: list[Finding] = []
    for f, eid in pairs:
        n = seen.get(eid, 0) + 1
        seen[eid] = n
        sid = eid if n == 1 else f"{eid}~{n}"
        out.append(f if sid == f.stable_id else f.model_copy(update={"stable_id": sid}))
    return out


def hold_levels(
    findings: Sequence[Finding],
    foreign: Mapping[tuple[str, int], str],
    record: History | None,
) -> tuple[list[Finding], list[ParseNote]]:
    """A bot comment edited by anyone but the bot: its findings gate at least at the level
    they had when first read (the record's `first_level`), and the sticky says it was edited."""
    if not foreign:
        return list(findings), []
    rec = {e.stable_id: e for e in record.findings} if record else {}
    out: list[Finding] = []
    notes: dict[tuple[str, int], ParseNote] = {}
    for f in findings:
        why = foreign.get((f.endpoint, f.comment_id))
        if why is None:
            out.append(f)
            continue
        e = rec.get(base_sid(f.stable_id))
        first = (e.first_level or e.level) if e is not None else f.severity
        level = max(f.severity, first, key=lambda lv: LEVEL_RANK[lv])
        out.append(f if level == f.severity else f.model_copy(update={"severity": level}))
        notes.setdefault(
            (f.endpoint, f.comment_id),
            ParseNote(
                bot=f.bot,
                url=f.url,
                note=f"this comment {why}: shown as edited; its findings gate at least at the "
                "level they had when first read",
            ),
        )
    return out, list(notes.values())
