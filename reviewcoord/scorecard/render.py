"""The scorecard as JSON (the contract), a plain-text table, CSV and an SVG chart.

Bot keys come from our own records, still treated as untrusted text: plain (no terminal escapes)
and clipped in the table and the chart, XML-escaped in the chart (autoescape), and a CSV cell
that a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab, CR) is prefixed with `'`
(after the same cleaning as the table's).
"""

from __future__ import annotations

import csv
import io
import json

from jinja2 import Environment, PackageLoader, StrictUndefined

from reviewcoord.bots import display_name
from reviewcoord.render.safe import plain
from reviewcoord.render.templating import template
from reviewcoord.scorecard.figures import ACCEPT_KINDS, ReviewerFigures, Scorecard

NAME_CHARS = 40

# autoescape on: the chart is XML, every value in it is escaped by Jinja2.
_SVG = Environment(
    loader=PackageLoader("reviewcoord", "render/templates"),
    undefined=StrictUndefined,
    autoescape=True,
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
)


def to_json(card: Scorecard) -> str:
    return json.dumps(card.to_json_dict(), indent=2, ensure_ascii=False) + "\n"


def _name(bot: str) -> str:
    """The display name (`Codex`) of a known key, else the key as plain text."""
    return plain(display_name(bot), NAME_CHARS) or "?"


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{round(value * 100)}%"


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"


HEADERS = [
    "REVIEWER", "EXP", "REV", "FAIL", "SKIP", "UNR", "FIND", "CRIT", "MED", "LOW",
    "FIXED", "ACC", "AWAIT", "OPEN", "CORR", "UNIQ", "ACTED", "MIN",
]  # fmt: skip


def _cells(r: ReviewerFigures) -> list[str]:
    f = r.findings
    numbers = [
        r.prs_expected, r.prs_reviewed, r.failed, r.skipped, r.unreadable, f.total, f.critical,
        f.medium, f.low, r.likely_fixed, r.accepted, r.awaiting, r.open_at_merge,
        r.corroborated, r.unique,
    ]  # fmt: skip
    return [
        _name(r.bot),
        *(str(n) for n in numbers),
        _rate(r.acted_on),
        _num(r.median_minutes_to_review),
    ]


def _efforts(r: ReviewerFigures) -> str:
    """`Balanced 3, Lite 1`: PRs by the review effort it said it used."""
    return ", ".join(f"{plain(e, 20)} {n}" for e, n in r.review_effort.items())


def _numbers(values: list[int]) -> str:
    return ", ".join(f"#{n}" for n in values) if values else "none"


def to_table(card: Scorecard) -> str:
    """templates/scorecard.txt.j2: one line per reviewer, then the per-repository lists."""
    cells = [_cells(r) for r in card.reviewers]
    widths = [max([len(h), *(len(c[i]) for c in cells)]) for i, h in enumerate(HEADERS)]

    def line(values: list[str]) -> str:
        return "  ".join(
            v.ljust(w) if i == 0 else v.rjust(w)
            for i, (v, w) in enumerate(zip(values, widths, strict=True))
        )

    return template("scorecard.txt.j2").render(
        repo=plain(card.repo, 200),
        since=card.since,
        until=card.until,
        prs=card.prs,
        closed_unmerged=card.closed_unmerged,
        header=line(HEADERS),
        lines=[line(c) for c in cells],
        lists=[
            ("Merged while the gate said block", _numbers(card.merged_over_block)),
            ("Merged without a readable verdict (unjudged)", _numbers(card.unjudged)),
            ("Recorded before run figures existed (untallied)", _numbers(card.untallied)),
            *(
                (f"Review effort of {_name(r.bot)} (PRs)", _efforts(r))
                for r in card.reviewers
                if r.review_effort
            ),
        ],
    )


CSV_COLUMNS = [
    "bot", "prs_expected", "prs_reviewed", "failed", "skipped", "unreadable",
    "findings_total", "findings_critical", "findings_medium", "findings_low",
    "likely_fixed", "accepted", *(f"accepted_{k.replace('-', '_')}" for k in ACCEPT_KINDS),
    "awaiting", "open_at_merge", "corroborated", "unique", "acted_on",
    "median_minutes_to_review", "review_effort",
]  # fmt: skip
_FORMULA = ("=", "+", "-", "@", "\t", "\r")


def _csv_text(value: str) -> str:
    value = plain(value, 200)
    return f"'{value}" if value.startswith(_FORMULA) else value


def to_csv(card: Scorecard) -> str:
    """One row per reviewer (CSV_COLUMNS); null figures are empty cells."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for r in card.reviewers:
        f = r.findings
        writer.writerow(
            [
                _csv_text(r.bot), r.prs_expected, r.prs_reviewed, r.failed, r.skipped,
                r.unreadable, f.total, f.critical, f.medium, f.low, r.likely_fixed, r.accepted,
                *(r.by_kind.get(k, 0) for k in ACCEPT_KINDS), r.awaiting, r.open_at_merge,
                r.corroborated, r.unique, "" if r.acted_on is None else r.acted_on,
                "" if r.median_minutes_to_review is None else r.median_minutes_to_review,
                _csv_text(_efforts(r)),
            ]
        )  # fmt: skip
    return buf.getvalue()


# What became of the findings, in stacking order, with GitHub's Primer colours.
SEGMENTS = [
    ("likely_fixed", "likely fixed", "#1a7f37"),
    ("accepted", "accepted", "#0969da"),
    ("open_at_merge", "open at merge", "#cf222e"),
    ("awaiting", "awaiting", "#bf8700"),
]
WIDTH, LABEL_RIGHT, BAR_LEFT, BAR_WIDTH, ROW, TOP = 760, 150, 160, 380, 32, 88


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _note(r: ReviewerFigures) -> str:
    failed = f"{r.failed} failed" if r.failed else "no failures"
    acted = "no findings" if r.acted_on is None else f"acted on {_rate(r.acted_on)}"
    return f"{acted} · {failed}"


def _row(r: ReviewerFigures, y: int, scale: float) -> dict[str, object]:
    x = float(BAR_LEFT)
    segments = []
    for key, label, color in SEGMENTS:
        count = int(getattr(r, key))
        if count:
            width = round(count * scale, 1)
            segments.append(
                {"x": round(x, 1), "width": width, "color": color, "title": f"{count} {label}"}
            )
            x += width
    parts = ", ".join(f"{getattr(r, key)} {label}" for key, label, _c in SEGMENTS)
    return {
        "y": y,
        "name": _name(r.bot),
        "segments": segments,
        "note": _note(r),
        "note_x": round(max(x, BAR_LEFT) + 8, 1),
        "tooltip": f"{_name(r.bot)}: {_count(r.findings.total, 'finding')} ({parts}); {_note(r)}",
    }


def to_svg(card: Scorecard) -> str:
    """templates/scorecard.svg.j2: bars scaled to the reviewer with the most findings."""
    most = max((r.findings.total for r in card.reviewers), default=0)
    scale = BAR_WIDTH / most if most else 0.0
    rows = [_row(r, TOP + i * ROW, scale) for i, r in enumerate(card.reviewers)]
    legend, x = [], 16
    for _key, label, color in SEGMENTS:
        legend.append({"x": x, "label": label, "color": color})
        x += 28 + 7 * len(label)
    return _SVG.get_template("scorecard.svg.j2").render(
        repo=plain(card.repo, 200),
        prs=card.prs,
        since=card.since[:10],
        until=card.until[:10],
        legend=legend,
        rows=rows,
        width=WIDTH,
        height=TOP + max(len(rows), 1) * ROW + 16,
        label_right=LABEL_RIGHT,
        bar_left=BAR_LEFT,
        bar_width=BAR_WIDTH,
        top=TOP,
    )


RENDERERS = {"json": to_json, "table": to_table, "csv": to_csv, "svg": to_svg}
