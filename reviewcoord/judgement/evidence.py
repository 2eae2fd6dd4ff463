"""Evidence that a recorded finding was fixed: what lets it stop gating as `likely_fixed`.

The original design (its reconciliation rule): a finding is resolved when its file was
re-reviewed and the reviewer did not re-flag it; "absence from an incremental diff means *not
touched in new commits*, not *fixed*". A file touched elsewhere is not a re-review of the
finding's lines, so only evidence about its own lines counts, one of:

* `outdated`: GitHub marks the bot's inline comment outdated on the new head (REST `line` is
  null: the lines it was anchored to changed);
* `patch`: a compare between judged heads, since its bot stated the finding, changed lines
  inside the finding's range (its lines shifted through each compare: judgement/shift.py);
* `re-review`: the bot reviewed this head and its profile declares that each of its reviews
  covers the whole PR and repeats every finding still present (`BotProfile.repeats_findings`;
  the sources are in docs/bot-formats.md);
* `source`: a source read completely (code scanning) no longer lists it.

Pure: the patch evidence comes in with the record's travelled ranges (judgement/carry.py).
"""

from __future__ import annotations

from typing import Literal

from reviewcoord.model import RawComment

Evidence = Literal["outdated", "patch", "re-review", "source"]


def note(evidence: Evidence, lines: str = "") -> str:
    """The sentence the sticky shows for a likely fixed finding: what it rests on."""
    return {
        "outdated": "GitHub marks its bot's comment outdated on this head (its lines changed)",
        "patch": f"a push since its bot reported it changed the lines it points at{lines}, "
        "and its bot, reviewing this head, no longer reports it",
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


def shown_lines(span: tuple[int, int] | None) -> str:
    if span is None:
        return ""
    first, last = span
    return f" ({first})" if first == last else f" ({first}–{last})"
