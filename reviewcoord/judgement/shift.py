"""Line ranges travel with the code: the hunk arithmetic of a compare's patch (pure).

A finding's lines are the ones its bot stated on the head it reviewed. The record keeps them
numbered on the last judged head: each compare between judged heads shifts them (lines added or
removed above move them; a change inside them marks them changed), so that the next compare's
hunks, numbered from that head, meet lines numbered on that same head. Without it, insert 100
lines above a finding at 50–52 and then edit 48–53: the edit is not at the finding, yet its
stale numbers say it is.

A patch (GitHub's `files[].patch`, a unified diff) is read into *change blocks*: each hunk's runs
of removed and added lines without its context lines, as `(old_start, old_count, new_start,
new_count)` in unified-diff numbering (a count of 0: "after line start"). A hunk whose body does
not add up to its header is taken whole, as its header says: never narrower than GitHub's own
numbers.

Where a compare gives no patch for the finding's file (binary, too large), lists only part of the
files (GitHub's 300), or there is no compare at all (a force-push), the finding's lines are
unknown on the new head: no patch evidence for it until its bot states it again (`travel`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

# (old_start, old_count, new_start, new_count); a count of 0 means "after line start".
Block = tuple[int, int, int, int]
Blocks = tuple[Block, ...]
# A finding's lines, first and last (1-based, first <= last).
Span = tuple[int, int]

MAX_BLOCKS = 10_000  # per file: a patch GitHub serves is far smaller; a bound all the same
_HUNK = re.compile(r"@@ -(\d{1,9})(?:,(\d{1,9}))? \+(\d{1,9})(?:,(\d{1,9}))? @@")


@dataclass(frozen=True)
class Push:
    """What one compare between two judged heads says changed, as plain data for the judge.

    `files`: the paths it changed (None: unknown, e.g. after a force-push); `blocks`: the change
    blocks of each path GitHub gave a patch for; `complete`: GitHub listed every changed file."""

    files: frozenset[str] | None = frozenset()
    blocks: Mapping[str, Blocks] = field(default_factory=dict)
    complete: bool = True

    @classmethod
    def unknown(cls) -> Push:
        return cls(files=None, complete=False)


NOTHING = Push()  # the same head: nothing changed


def _header(m: re.Match[str]) -> Block:
    return (
        int(m[1]),
        1 if m[2] is None else int(m[2]),
        int(m[3]),
        1 if m[4] is None else int(m[4]),
    )


def _hunk_blocks(header: Block, body: Sequence[str]) -> list[Block]:
    """The change blocks of one hunk, or the whole hunk if its body does not match its header."""
    a, b, c, d = header
    if b == 0 and d == 0:
        return []
    old, new = (a if b else a + 1), (c if d else c + 1)  # the next line on each side
    used_old = used_new = 0
    out: list[Block] = []
    run: list[int] | None = None  # [old at start, removed, new at start, added]
    for line in body:
        if used_old == b and used_new == d:
            break  # the hunk is complete ("\ No newline at end of file" and the like follow)
        tag = line[:1]
        if tag == " ":
            if run is not None:
                out.append(_block(run))
                run = None
            old, new, used_old, used_new = old + 1, new + 1, used_old + 1, used_new + 1
        elif tag in ("-", "+"):
            run = run or [old, 0, new, 0]
            if tag == "-":
                run[1], old, used_old = run[1] + 1, old + 1, used_old + 1
            else:
                run[3], new, used_new = run[3] + 1, new + 1, used_new + 1
        elif tag != "\\":
            return [header]
    if run is not None:
        out.append(_block(run))
    return out if (used_old, used_new) == (b, d) else [header]


def _block(run: list[int]) -> Block:
    old, removed, new, added = run
    return (old if removed else old - 1, removed, new if added else new - 1, added)


def parse_patch(patch: str) -> Blocks:
    """The change blocks of one file's unified diff, in order (module docstring)."""
    lines = patch.split("\n")
    starts = [i for i, line in enumerate(lines) if line.startswith("@@ -")]
    out: list[Block] = []
    for n, i in enumerate(starts):
        m = _HUNK.match(lines[i])
        if m is None:
            continue
        end = starts[n + 1] if n + 1 < len(starts) else len(lines)
        out.extend(_hunk_blocks(_header(m), lines[i + 1 : end]))
        if len(out) >= MAX_BLOCKS:
            break
    return tuple(sorted(out[:MAX_BLOCKS]))


def patch_blocks(patches: Sequence[tuple[str, str | None]]) -> dict[str, Blocks]:
    """path → change blocks, for the files GitHub gave a patch for (a binary or huge file has
    none: no patch, no evidence)."""
    return {path: parse_patch(p) for path, p in patches if p is not None}


def changes_lines(blocks: Blocks, first: int, last: int) -> bool:
    """Does a block change a line in [first, last] (old-side numbering)? A pure insertion
    (count 0, after line `start`) counts when it lands strictly inside the range."""
    for start, count, _new, _added in blocks:
        if count == 0:
            if first <= start < last:
                return True
        elif start <= last and start + count - 1 >= first:
            return True
    return False


def _before(block: Block, line: int) -> bool:
    """Does this block lie wholly above old line `line` (so that it moves it)?"""
    start, count, _new, _added = block
    return start < line if count == 0 else start + count - 1 < line


def _removed_in(blocks: Blocks, line: int) -> Block | None:
    for block in blocks:
        start, count, _new, _added = block
        if count and start <= line <= start + count - 1:
            return block
    return None


def _moved(blocks: Blocks, line: int) -> int:
    """Old line `line`, outside every removal, on the new side."""
    return line + sum(b[3] - b[1] for b in blocks if _before(b, line))


def shift(blocks: Blocks, span: Span) -> tuple[Span, bool]:
    """`span` (old-side) on the new side of `blocks`, and whether the blocks changed a line in
    it. A line of it that was replaced maps to the lines that replaced it; a span removed
    whole collapses to the line before the removal (at least 1)."""
    first, last = span
    at_first, at_last = _removed_in(blocks, first), _removed_in(blocks, last)
    if at_first is None:
        lo = _moved(blocks, first)
    else:
        lo = at_first[2] if at_first[3] else at_first[2] + 1
    if at_last is None:
        hi = _moved(blocks, last)
    else:
        hi = at_last[2] + at_last[3] - 1 if at_last[3] else at_last[2]
    hi = max(1, hi)
    lo = max(1, min(lo, hi))
    return (lo, hi), changes_lines(blocks, first, last)


def travel(
    span: Span | None, changed: bool, file: str | None, push: Push
) -> tuple[Span | None, bool]:
    """A recorded finding's lines (numbered on the last judged head, `changed` since its bot
    stated them) carried through the compare to this head: (its lines here, changed since).
    Unknown (None, False) where the compare cannot say (module docstring)."""
    if span is None or file is None or push.files is None:
        return None, False
    blocks = push.blocks.get(file)
    if blocks is not None:
        moved, touched = shift(blocks, span)
        return moved, changed or touched
    if file in push.files or not push.complete:
        return None, False  # changed without a patch, or maybe changed: unknown
    return span, changed
