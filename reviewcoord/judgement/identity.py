"""Stage 0 — identity: the record entry each finding is (one finding, one entry).

A finding's stable id (`model.stable_finding_id`) is its bot, file and normalised title, so a
finding keeps its id when a push moves its lines or its bot posts it again. Two findings of one
bot with one title in one file (lines 10 and 300) share that id — a *family* — and must still
be two entries: accepting one must never accept the other.

Within a family, the findings of one round (one review's inline comments, or one comment) are
distinct findings; rounds are the same findings reported again. The newest round is matched to
the family's recorded entries by nearest line, then older rounds to those; a finding left over
gets a fresh entry id (`<family>` if free, else `<family>.<k>`). A family with one finding per
round and at most one recorded entry is simply `<family>`, as before.

Ids: `<bot>-<12 hex>` is a family; `.<k>` names a member; `~<n>` (ingest) only makes a run's
ids unique when one entry is reported by several comments. Bot keys are `[a-z0-9-]`, so
neither separator is ever part of a key: `code-scanning-…~2` keeps its family.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime

from reviewcoord.history import History
from reviewcoord.model import LEVEL_RANK, Finding, Origin, ParseNote, RawComment

FAR = 10**6  # a finding without a line matches another only when nothing nearer is left
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


def _assign(
    members: Sequence[tuple[Finding, Round]], fam: str, recorded: Sequence[tuple[str, int | None]]
) -> list[str]:
    """The entry id of each member of one family; `members` ordered newest round first."""
    rounds: dict[Round, list[int]] = {}
    for i, (_f, r) in enumerate(members):
        rounds.setdefault(r, []).append(i)
    anchors = list(recorded)
    used = {eid for eid, _ in anchors}
    out: dict[int, str] = {}
    for indexes in rounds.values():
        pairs = sorted(
            (_distance(members[i][0].line, line), n, i)
            for i in indexes
            for n, (_eid, line) in enumerate(anchors)
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
                anchors.append((eid, members[i][0].line))
                out[i] = eid
    return [out[i] for i in range(len(members))]


def identify(
    findings: Sequence[Finding], comments: Sequence[RawComment], record: History | None
) -> list[Finding]:
    """`findings` with each stable id set to its entry id (`~n` where an entry repeats)."""
    by_key: dict[tuple[Origin, int], RawComment] = {(c.endpoint, c.id): c for c in comments}
    recorded: dict[str, list[tuple[str, int | None]]] = {}
    for e in record.findings if record else ():
        recorded.setdefault(family(e.stable_id), []).append((e.stable_id, e.line))
    families: dict[str, list[int]] = {}
    for i, f in enumerate(findings):
        families.setdefault(family(f.stable_id), []).append(i)
    eids: list[str] = [""] * len(findings)

    def age(i: int) -> tuple[datetime, int]:
        c = by_key.get((findings[i].endpoint, findings[i].comment_id))
        return (c.created_at if c and c.created_at else _EPOCH), findings[i].comment_id

    for fam, indexes in families.items():
        rounds = {i: _round(findings[i], by_key) for i in indexes}
        widest = max(list(rounds.values()).count(r) for r in rounds.values())
        if widest <= 1 and all(eid == fam for eid, _ in recorded.get(fam, ())):
            for i in indexes:
                eids[i] = fam
            continue
        order = sorted(indexes, key=age, reverse=True)
        assigned = _assign([(findings[i], rounds[i]) for i in order], fam, recorded.get(fam, []))
        for i, eid in zip(order, assigned, strict=True):
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
