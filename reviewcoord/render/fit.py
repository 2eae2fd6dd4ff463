"""Fitting a rendering under its surface's size limit, and saying what was cut to get there.

GitHub rejects a comment over 65,536 characters and a check summary over 65,535
(docs/github-platform.md §2.1); a verdict can hold thousands of long-titled findings. Each body is
therefore rendered by `fit`: first in full, then in steps that cut the least useful text first
(the folded advisory lines, then advisory in full, then critical gists, then the tail of the
critical list), until it fits. Every step that cuts something adds a visible "✂️ Shortened" note
naming what was cut; the marker and the gate line are never cut.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from reviewcoord.model import Verdict
from reviewcoord.render.rows import MAX_BOT_ROWS, bot_rows
from reviewcoord.render.templating import template


def measure(text: str) -> int:
    """Length as GitHub may count it. Ruby counts code points, JavaScript UTF-16 units; UTF-16 is
    never smaller, so a body that fits by this measure fits by both."""
    return len(text.encode("utf-16-le")) // 2


def finding_noun(n: int) -> str:
    return "finding" if n == 1 else "findings"


@dataclass(frozen=True)
class Surface:
    """Where a body goes: its template, its size limit and how its cut note words things."""

    template: str
    limit: int
    limit_label: str  # "comment" / "check-run summary" / "job summary"
    advisory_full: int  # advisory findings in full at the top of the ladder
    more_critical: str  # where the unlisted critical findings can be seen
    more_advisory: str  # where the folded advisory findings can be read in full


@dataclass(frozen=True)
class Plan:
    """How much of a verdict to show. `None` means all."""

    critical: int | None = None  # critical findings listed
    gist: int = 300  # characters of each gist; 0 leaves gists out
    title: int = 200  # characters of each title
    advisory_full: int = 10  # advisory findings shown like the critical ones
    advisory_folded: int | None = None  # one-line advisory entries inside <details>
    notes: int = 20  # extra notes listed
    parse_notes: int = 50  # parse notes listed
    names: int = 20  # bots / logins listed per line


_DEFAULT_PLAN = Plan()


def ladder(advisory_full: int) -> list[Plan]:
    """Plans from the full rendering to the smallest that still lists every critical finding."""
    full = Plan(advisory_full=advisory_full)
    short = replace(full, advisory_folded=0, advisory_full=0, notes=10, parse_notes=10)
    return [
        full,
        replace(full, advisory_folded=100),
        replace(full, advisory_folded=20),
        replace(full, advisory_folded=0),
        replace(full, advisory_folded=0, advisory_full=3, notes=10, parse_notes=10),
        replace(short, gist=100),
        # Notes are the last thing to give way before the list of critical findings.
        replace(short, gist=0, title=100, notes=5, parse_notes=5),
    ]


# Nothing but counts: what is left when even listing no critical finding does not fit.
MINIMAL = Plan(
    critical=0,
    gist=0,
    title=100,
    advisory_full=0,
    advisory_folded=0,
    notes=0,
    parse_notes=0,
    names=5,
)


def cut_note(
    surface: Surface,
    plan: Plan,
    *,
    critical_hidden: int,
    advisory_unlisted: int,
    parse_notes_hidden: int,
    notes_hidden: int,
    has_gists: bool,
) -> str:
    """The "Shortened to fit" sentence naming everything `plan` cut, or "" if it cut nothing."""
    cuts: list[str] = []
    if critical_hidden:
        cuts.append(
            f"{critical_hidden:,} critical {finding_noun(critical_hidden)} not listed "
            f"({surface.more_critical})"
        )
    if has_gists and plan.gist < _DEFAULT_PLAN.gist:
        cuts.append("gists left out" if plan.gist == 0 else f"gists cut to {plan.gist} characters")
    if plan.title < _DEFAULT_PLAN.title:
        cuts.append(f"titles cut to {plan.title} characters")
    if advisory_unlisted:
        cuts.append(
            f"{advisory_unlisted:,} advisory {finding_noun(advisory_unlisted)} counted, not listed"
        )
    if parse_notes_hidden:
        cuts.append(f"{parse_notes_hidden:,} parse notes not listed")
    if notes_hidden:
        cuts.append(f"{notes_hidden:,} notes not listed")
    if plan.names < _DEFAULT_PLAN.names:
        cuts.append(f"bot lists cut to {plan.names} names")
    if not cuts:
        return ""
    return (
        f"Shortened to fit GitHub's {surface.limit:,}-character {surface.limit_label} "
        f"limit: {'; '.join(cuts)}."
    )


def context(
    verdict: Verdict, plan: Plan, surface: Surface, extra_notes: Sequence[str]
) -> dict[str, Any]:
    """The template variables for `verdict` on `surface`, shown as much as `plan` allows."""
    critical = verdict.critical if plan.critical is None else verdict.critical[: plan.critical]
    advisory_full = verdict.advisory[: plan.advisory_full]
    rest = verdict.advisory[plan.advisory_full :]
    folded = rest if plan.advisory_folded is None else rest[: plan.advisory_folded]
    parse_notes = verdict.parse_notes[: plan.parse_notes]
    notes = list(extra_notes[: plan.notes])
    counts = {
        "critical_hidden": len(verdict.critical) - len(critical),
        # Folded entries are not "cut": the default rendering folds them on purpose.
        "advisory_unlisted": len(rest) - len(folded),
        "parse_notes_hidden": len(verdict.parse_notes) - len(parse_notes),
        "notes_hidden": len(extra_notes) - len(notes),
    }
    has_gists = any(f.gist for f in (*critical, *advisory_full))
    rows = bot_rows(verdict)
    return {
        "verdict": verdict,
        "bot_rows": rows[:MAX_BOT_ROWS],
        "bot_rows_hidden": max(0, len(rows) - MAX_BOT_ROWS),
        "critical": critical,
        "advisory_full": advisory_full,
        "advisory_rest": len(rest),
        "advisory_folded": folded,
        "parse_notes": parse_notes,
        "notes": notes,
        "gist_chars": plan.gist,
        "title_chars": plan.title,
        "names": plan.names,
        "rows": plan.notes,  # review-cycle rows per section shrink with the notes
        "more_critical": surface.more_critical,
        "more_advisory": surface.more_advisory,
        "cut_note": cut_note(surface, plan, has_gists=has_gists, **counts),
        **counts,
    }


def fit(
    surface: Surface,
    verdict: Verdict,
    extra_notes: Sequence[str],
    extra: dict[str, Any] | None = None,
    limit: int | None = None,
) -> str:
    """The fullest rendering of `verdict` on `surface` that fits its size limit."""
    limit = surface.limit if limit is None else limit
    body_template = template(surface.template)

    def render(plan: Plan) -> str:
        variables = context(verdict, plan, surface, extra_notes)
        return body_template.render(**variables, **(extra or {}))

    plans = ladder(surface.advisory_full)
    body = render(plans[0])
    if measure(body) <= limit:
        return body  # the usual case: one render
    # Try the smallest plan that still lists every critical finding before the ones between:
    # for a huge verdict this saves several renders of thousands of findings.
    last = plans[-1]
    if measure(render(last)) <= limit:
        for plan in plans[1:]:
            body = render(plan)
            if measure(body) <= limit:
                return body
    # Still too long with every critical finding listed briefly: list the first K, the largest
    # K that fits (binary search; the body grows with K).
    best: str | None = None
    lo, hi = 0, len(verdict.critical) - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        body = render(replace(last, critical=mid))
        if measure(body) <= limit:
            best, lo = body, mid + 1
        else:
            hi = mid - 1
    if best is not None:
        return best
    body = render(MINIMAL)
    if measure(body) <= limit:
        return body
    raise ValueError(
        f"cannot fit the {surface.limit_label} into {limit:,} characters even with every list "
        "left out (is the history block too long?)"
    )
