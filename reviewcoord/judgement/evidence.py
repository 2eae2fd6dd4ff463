"""Evidence that a recorded finding was fixed: what lets it stop gating as `likely_fixed`.

The original design (its reconciliation rule): a finding is resolved when its file was
re-reviewed and the reviewer did not re-flag it; "absence from an incremental diff means *not
touched in new commits*, not *fixed*". A file touched elsewhere is not a re-review of the
finding's lines, so only evidence about its own lines counts, one of:

* `outdated`: GitHub marks the bot's inline comment outdated on the new head (REST `line` is
  null: the lines it was anchored to changed);
* `patch`: the compare patch from the last reviewed head changes lines inside the finding's
  range (a hunk's old-side lines overlap it, or an insertion lands inside it);
* `re-review`: the bot reviewed this head and its profile declares that each of its reviews
  covers the whole PR and repeats every finding still present (`BotProfile.repeats_findings`;
  the sources are in docs/bot-formats.md);
* `source`: a source read completely (code scanning) no longer lists it.

Pure: the compare patch comes in as parsed hunks (`parse_hunks`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Literal

from reviewcoord.model import RawComment

Evidence = Literal["outdated", "patch", "re-review", "source"]
# Old-side (start, count) of each hunk of one file's patch.
Hunks = tuple[tuple[int, int], ...]

_HUNK = re.compile(r"^@@ -(\d{1,9})(?:,(\d{1,9}))? \+\d{1,9}(?:,\d{1,9})? @@", re.MULTILINE)
MAX_HUNKS = 10_000


def parse_hunks(patch: str) -> Hunks:
    """The old-side ranges of a unified diff's hunks (GitHub's `files[].patch`)."""
    out: list[tuple[int, int]] = []
    for m in _HUNK.finditer(patch):
        out.append((int(m[1]), 1 if m[2] is None else int(m[2])))
        if len(out) >= MAX_HUNKS:
            break
    return tuple(out)


def changes_lines(hunks: Hunks, first: int, last: int) -> bool:
    """Does a hunk change a line in [first, last] (old-side numbering)? A pure insertion
    (count 0, after line `start`) counts when it lands strictly inside the range."""
    for start, count in hunks:
        if count == 0:
            if first <= start < last:
                return True
        elif start <= last and start + count - 1 >= first:
            return True
    return False


def note(evidence: Evidence, lines: str = "") -> str:
    """The sentence the sticky shows for a likely fixed finding: what it rests on."""
    return {
        "outdated": "GitHub marks its bot's comment outdated on this head (its lines changed)",
        "patch": f"the latest push changed the lines it points at{lines}, and its bot, "
        "reviewing this head, no longer reports it",
        "re-review": "its bot re-reviewed the whole PR on this head and repeats every finding "
        "still present; this one is gone",
        "source": "",  # the source's own words (carry.fixed_note)
    }[evidence]


def line_range(line: int | None, line_end: int | None) -> tuple[int, int] | None:
    if line is None:
        return None
    last = line_end if line_end is not None and line_end >= line else line
    return line, last


def outdated(comment: RawComment | None) -> bool:
    """GitHub's own mark: an inline comment whose `line` is null on the current head, while it
    was written against a line (`original_line`)."""
    return (
        comment is not None
        and comment.endpoint == "review_comment"
        and comment.line is None
        and (comment.original_line is not None or comment.start_line is not None)
    )


def patch_evidence(
    hunks: Mapping[str, Hunks] | None, file: str | None, span: tuple[int, int] | None
) -> bool:
    if hunks is None or file is None or span is None or file not in hunks:
        return False
    return changes_lines(hunks[file], *span)


def shown_lines(span: tuple[int, int] | None) -> str:
    if span is None:
        return ""
    first, last = span
    return f" ({first})" if first == last else f" ({first}–{last})"


def any_hunks(patches: Sequence[tuple[str, str | None]]) -> dict[str, Hunks]:
    """path → hunks, for the files whose patch GitHub gave (a binary or huge file has none:
    no patch, no evidence)."""
    return {path: parse_hunks(p) for path, p in patches if p is not None}
