"""`reviewcoord status`, the pure part: each open PR's last published verdict, read from our
sticky's history record (never re-judged), as rows sorted blockers first, a table or JSON.

A row comes from the PR list item (number, title, head SHA, link) and the PR's issue comments:
our newest sticky only (marker first AND authored by our identity, `publish.sticky.ours`), its
record decoded by `history.decode`. The record holds the gate, reason, cycle, the reviewed heads
(the last one is the head the verdict is for), the findings (open or awaiting ones count; level
critical → critical, the rest advisory; accepted and likely-fixed ones do not) and, since this
command exists, the pending and unreviewed bots (None in older records: shown as `?`). The
verdict is *current* when its reviewed head is the PR's head and the sticky is not marked stale.

Sort order: block on the current head, block on an older head, no readable verdict, go on an
older head, go on the current head; then more critical, more advisory, lower PR number first.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from reviewcoord.github.gateway import PullInfo
from reviewcoord.history import History, decode
from reviewcoord.model import Frozen, RawComment
from reviewcoord.publish.sticky import is_sticky, ours
from reviewcoord.render.safe import plain
from reviewcoord.render.surfaces import STALE_PREFIX
from reviewcoord.render.templating import template

TITLE_CHARS = 60
NO_VERDICT = "no verdict yet"
UNREADABLE = "no readable verdict"


class StatusRow(Frozen):
    """One open PR and its last published verdict (the verdict fields are None without one).
    `model_dump(mode="json")` is one item of `--format json`'s `pulls`."""

    number: int
    title: str
    pr_url: str
    head_sha: str
    verdict: Literal["block", "go", "none", "unreadable"]
    gate: Literal["block", "go"] | None = None
    reason: str | None = None
    critical: int | None = None
    advisory: int | None = None
    pending: list[str] | None = None
    unreviewed: list[str] | None = None
    cycle: int | None = None
    reviewed_head: str | None = None
    current: bool | None = None
    verdict_url: str | None = None
    note: str | None = None


def counts(record: History) -> tuple[int, int]:
    """(critical, advisory): the findings still open (or awaiting an answer)."""
    live = [e for e in record.findings if e.status in ("open", "awaiting")]
    critical = sum(1 for e in live if e.level == "critical")
    return critical, len(live) - critical


def _without_verdict(pull: PullInfo, comments: Sequence[RawComment], login: str) -> StatusRow:
    others = sorted(
        {c.author_login for c in comments if c.endpoint == "issue_comment" and is_sticky(c.body)}
    )
    note = f"{NO_VERDICT} (no sticky comment by {login})"
    if others:
        names = ", ".join(plain(o, 40) for o in others[:3]) + (", …" if len(others) > 3 else "")
        note += f"; a sticky by {names} is ignored (not ours; see --as)"
    return _base(pull, "none", note=note)


def _base(pull: PullInfo, verdict: Literal["none", "unreadable"], note: str) -> StatusRow:
    return StatusRow(
        number=pull.number,
        title=plain(pull.title, 300),
        pr_url=pull.html_url,
        head_sha=pull.head_sha,
        verdict=verdict,
        note=note,
    )


def row_for(pull: PullInfo, comments: Sequence[RawComment], login: str, *, repo: str) -> StatusRow:
    """The row of one open PR from its issue comments (our newest sticky's record only)."""
    mine = ours(comments, login)
    if not mine:
        return _without_verdict(pull, comments, login)
    sticky = mine[0]
    record, notice = decode(sticky.body, repo=repo, pr=pull.number)
    if record is None:
        why = notice or "our sticky comment carries no history record"
        return _base(pull, "unreadable", note=f"{UNREADABLE}: {why}")
    critical, advisory = counts(record)
    marked_stale = STALE_PREFIX in sticky.body
    current = record.last_head == pull.head_sha and not marked_stale
    note = "our sticky comment is marked stale" if marked_stale else None
    return StatusRow(
        number=pull.number,
        title=plain(pull.title, 300),
        pr_url=pull.html_url,
        head_sha=pull.head_sha,
        verdict=record.gate,
        gate=record.gate,
        reason=record.reason,
        critical=critical,
        advisory=advisory,
        pending=None if record.pending is None else list(record.pending),
        unreviewed=None if record.unreviewed is None else list(record.unreviewed),
        cycle=record.cycle,
        reviewed_head=record.last_head,
        current=current,
        verdict_url=sticky.html_url or None,
        note=note,
    )


def _rank(row: StatusRow) -> int:
    if row.gate == "block":
        return 0 if row.current else 1
    if row.gate is None:
        return 2
    return 4 if row.current else 3


def sort_rows(rows: Sequence[StatusRow]) -> list[StatusRow]:
    """Blockers first (module docstring)."""
    return sorted(rows, key=lambda r: (_rank(r), -(r.critical or 0), -(r.advisory or 0), r.number))


def _bots(names: list[str] | None) -> str:
    if names is None:
        return "?"
    return ",".join(plain(n, 20) for n in names) or "-"


def _cells(row: StatusRow) -> list[str]:
    def num(value: int | None) -> str:
        return "-" if value is None else str(value)

    head = "-" if row.current is None else ("current" if row.current else "stale")
    has = row.gate is not None
    return [
        f"#{row.number}",
        row.verdict,
        num(row.critical),
        num(row.advisory),
        _bots(row.pending) if has else "-",
        _bots(row.unreviewed) if has else "-",
        num(row.cycle),
        head,
        plain(row.verdict_url or row.pr_url, 200) or "-",
    ]


HEADERS = ["PR", "GATE", "CRIT", "ADV", "PENDING", "UNREVIEWED", "CYCLE", "HEAD", "LINK"]
RIGHT = {2, 3, 6}  # numeric columns, right-aligned


def summary(rows: Sequence[StatusRow]) -> str:
    n = {v: sum(1 for r in rows if r.verdict == v) for v in ("block", "go")}
    without = len(rows) - n["block"] - n["go"]
    stale = sum(1 for r in rows if r.current is False)
    return (
        f"{n['block']} block, {n['go']} go, {without} without a readable verdict; "
        f"{stale} verdict{'s are' if stale != 1 else ' is'} not for the current head"
    )


def render_table(rows: Sequence[StatusRow], *, repo: str, login: str) -> str:
    """The plain-text table (templates/status.txt.j2); `rows` in the order given."""
    cells = [_cells(r) for r in rows]
    widths = [max([len(h), *(len(c[i]) for c in cells)]) for i, h in enumerate(HEADERS)]

    def line(values: list[str]) -> str:
        out = [
            v.rjust(w) if i in RIGHT else v.ljust(w)
            for i, (v, w) in enumerate(zip(values, widths, strict=True))
        ]
        return "  ".join(out)

    return template("status.txt.j2").render(
        repo=plain(repo, 200),
        login=plain(login, 100),
        header=line(HEADERS) + "  TITLE",
        rows=[{"line": line(c), "title": r.title} for c, r in zip(cells, rows, strict=True)],
        notes=[(r.number, r.note) for r in rows if r.note],
        unknown_bots=any(r.gate is not None and r.pending is None for r in rows),
        summary=summary(rows),
        title_chars=TITLE_CHARS,
    )


def to_json(rows: Sequence[StatusRow], *, repo: str, login: str) -> dict[str, object]:
    """`--format json`: {"repo", "identity", "open", "pulls": [row, …]} (rows as given)."""
    return {
        "repo": repo,
        "identity": login,
        "open": len(rows),
        "pulls": [r.model_dump(mode="json") for r in rows],
    }
