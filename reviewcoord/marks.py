"""Thread marks: what a bot's review body says about its own inline comments.

Copilot's overview v2 lists each open finding with a severity badge and a link to the inline
thread that holds it (the inline comment carries no level), and lists the threads it considers
resolved since its last review. Marks apply only to the same bot's inline comments (identity
decides, never a body), and the newest review's word on a thread wins: a thread resolved in one
review and listed open again in a later one is open. A review body someone else edited says
nothing about its threads, either way (`distrust`): a badge lowered, a thread moved to the
resolved list or a bullet deleted could each have turned a critical green.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime

from reviewcoord.bots import REGISTRY, display_name
from reviewcoord.bots.common import TITLE_MAX, clip
from reviewcoord.model import BotKey, Finding, Level, ParseNote, RawComment, ThreadMark

_UNDATED = datetime.min.replace(tzinfo=UTC)

Marked = tuple[BotKey, RawComment, Sequence[ThreadMark]]


def _latest(marked: Sequence[Marked]) -> dict[tuple[BotKey, int], ThreadMark]:
    def order(item: Marked) -> tuple[datetime, int]:
        comment = item[1]
        return (comment.updated_at or comment.created_at or _UNDATED, comment.id)

    latest: dict[tuple[BotKey, int], ThreadMark] = {}
    for bot, _comment, marks in sorted(marked, key=order):
        for mark in marks:
            latest[(bot, mark.comment_id)] = mark
    return latest


def _marked(finding: Finding, mark: ThreadMark) -> Finding:
    """The finding with the level and title its review lists it with (its stable id stays the
    comment's own: identity across cycles never depends on which review listed it)."""
    update: dict[str, str] = {}
    if mark.severity_raw is not None:
        update["severity_raw"] = mark.severity_raw
    if mark.title:
        update["title"] = clip(mark.title, TITLE_MAX)
    return finding.model_copy(update=update)


def apply_marks(
    findings: list[Finding],
    marked: Sequence[Marked],
    notes: list[ParseNote],
    table: Mapping[str, Mapping[str, Level]] | None = None,
) -> list[Finding]:
    """The findings with each marked inline finding at its badge's level, and the ones the bot
    lists as resolved dropped (each with a visible note)."""
    latest = _latest(marked)
    if not latest:
        return findings
    kept: list[Finding] = []
    for f in findings:
        mark = latest.get((f.bot, f.comment_id)) if f.endpoint == "review_comment" else None
        if mark is None:
            kept.append(f)
        elif mark.resolved:
            note = f"{display_name(f.bot)} lists it as resolved since its last review: {f.title}"
            notes.append(ParseNote(bot=f.bot, url=f.url, note=note))
        else:
            kept.extend(REGISTRY.levelled([_marked(f, mark)], table))
    return kept


def distrust(
    findings: list[Finding],
    edited: Sequence[Marked],
    review_of: Mapping[int, int | None],
    notes: list[ParseNote],
) -> list[Finding]:
    """The findings with each inline finding of a review whose marked body someone else edited
    (`edited`; `review_of`: inline comment id → its review's id) kept at critical: its own
    badge is unknown, so it gates at the highest level its bot's marks could give it."""
    named = {(bot, mark.comment_id) for bot, _review, marks in edited for mark in marks}
    reviews = {(bot, review.id) for bot, review, _marks in edited}
    out: list[Finding] = []
    for f in findings:
        inline = f.endpoint == "review_comment"
        ours = (f.bot, f.comment_id) in named or (f.bot, review_of.get(f.comment_id)) in reviews
        if inline and ours and f.severity != "critical":
            note = f"kept at critical: the body of its review was edited by someone else: {f.title}"
            notes.append(ParseNote(bot=f.bot, url=f.url, note=note))
            f = f.model_copy(update={"severity": "critical"})
        out.append(f)
    return out
