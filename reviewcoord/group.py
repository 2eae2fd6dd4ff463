"""Group: findings that point at the same place become one group (docs/reviewers.md § Labels
and the verdict).

Line distance only — no semantic judgment. In one file, findings whose line ranges come within
`window` lines of each other chain into one group; two findings of the same theme 100 lines
apart stay separate. File-level findings (no line) group by file and normalised title.

A group is a place, not an issue: three bots may flag three different problems on neighbouring
lines. `same_issue` says which members report the lead's issue, by a rule with no judgment in it
(`_issue_keys`); the verdict says "agree" only for those (docs/reviewers.md § Labels and the
verdict).

The result never depends on the order findings arrive in: they are sorted on a total key first.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from reviewcoord.bots import REGISTRY, bot_keys, display_name
from reviewcoord.model import LEVEL_RANK, Finding, Group, Level, normalise_title

DEFAULT_WINDOW = 5


def spread(g: Group) -> str:
    """`Cursor:High Severity · Copilot:medium (no label) · Codex:P3`: every member's own label,
    as its profile shows it (`Gemini:high`, not the badge's image markup)."""
    parts = []
    for f in g.findings:
        raw = f.severity_raw
        label = REGISTRY.shown_label(f.bot, raw) if raw else f"{f.severity} (no label)"
        parts.append(f"{display_name(f.bot)}:{label}")
    return " · ".join(parts)


def _bot_order(bot: str) -> int:
    keys = bot_keys()
    return keys.index(bot) if bot in keys else len(keys)


def _member_order(f: Finding) -> tuple[int, int, str, int, str, int, str]:
    """Within a group: most severe first, then the fixed bot order, then stable data down to
    the last field, so the lead (whose title the group shows) never depends on arrival order."""
    return (
        -LEVEL_RANK[f.severity],
        _bot_order(f.bot),
        f.stable_id,
        f.comment_id,
        f.title,
        f.line or 0,
        f.url,
    )


def _issue_keys(f: Finding) -> list[tuple[str, ...]]:
    """What makes two findings one issue: the same normalised title (a non-empty one), or the
    same bot-native id from the same bot (Bugbot re-posts a bug under one BUGBOT_BUG_ID)."""
    keys: list[tuple[str, ...]] = []
    title = normalise_title(f.title)
    if title:
        keys.append(("title", title))
    if f.native_id and f.native_id.strip():
        keys.append(("native", f.bot, f.native_id.strip().lower()))
    return keys


def same_issue(members: Sequence[Finding]) -> tuple[bool, int]:
    """(whether every member reports the lead's issue, how many distinct bots report it).

    The lead is `members[0]`; "the lead's issue" is every member linked to it through a chain of
    shared `_issue_keys` (so the answer does not depend on the order of the other members)."""
    if not members:
        return True, 0
    by_key: dict[tuple[str, ...], list[int]] = {}
    for index, f in enumerate(members):
        for key in _issue_keys(f):
            by_key.setdefault(key, []).append(index)
    reached = {0}
    todo = [0]
    while todo:
        for key in _issue_keys(members[todo.pop()]):
            for index in by_key[key]:
                if index not in reached:
                    reached.add(index)
                    todo.append(index)
    return len(reached) == len(members), len({members[i].bot for i in reached})


def _end(f: Finding) -> int:
    assert f.line is not None
    return f.line_end if f.line_end is not None and f.line_end >= f.line else f.line


def _make_group(members: list[Finding]) -> Group:
    ordered = sorted(members, key=_member_order)
    lead = ordered[0]
    lines = [f.line for f in ordered if f.line is not None]
    start = min(lines) if lines else None
    end = max(_end(f) for f in ordered if f.line is not None) if lines else None
    level: Level = lead.severity
    agrees, same = same_issue(ordered)
    return Group(
        file=lead.file,
        line=start,
        line_end=end if end is not None and end != start else None,
        title=lead.title,
        gist=lead.gist,
        severity=level,
        agreement=len({f.bot for f in ordered}),
        findings=tuple(ordered),
        agrees=agrees,
        same_issue=same,
    )


def group(findings: Iterable[Finding], window: int = DEFAULT_WINDOW) -> list[Group]:
    """Partition findings into groups (unranked; see rank.rank)."""
    anchored: dict[str, list[Finding]] = {}
    loose: dict[tuple[str, str], list[Finding]] = {}
    for f in findings:
        if f.line is not None and f.file is not None:
            anchored.setdefault(f.file, []).append(f)
        else:
            loose.setdefault((f.file or "", normalise_title(f.title)), []).append(f)

    groups: list[Group] = []
    for file in sorted(anchored):
        ordered = sorted(anchored[file], key=lambda f: (f.line, _end(f), *_member_order(f)))
        current: list[Finding] = []
        reach = 0
        for f in ordered:
            assert f.line is not None
            if current and f.line > reach + window:
                groups.append(_make_group(current))
                current = []
            if not current:
                reach = _end(f)
            current.append(f)
            reach = max(reach, _end(f))
        if current:
            groups.append(_make_group(current))
    for key in sorted(loose):
        groups.append(_make_group(loose[key]))
    return groups
