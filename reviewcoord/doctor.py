"""`reviewcoord doctor`: a canary for the bots' formats (issue 16).

For the comments of a few PRs, per known bot: how many comments each rule of its profile read
(the parser's `reason`), and which bodies no rule read (`unreadable`: the next format change),
with links. Pure: the caller reads the comments (reviewcoord/doctor_live.py).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from reviewcoord.bots import bot_for_author, display_name, parse_comment
from reviewcoord.bots.common import TITLE_MAX, clip, first_line
from reviewcoord.model import BotKey, RawComment


@dataclass(frozen=True)
class Unread:
    pr: int
    url: str
    first_line: str


@dataclass
class BotTally:
    rules: Counter[str] = field(default_factory=Counter)
    unread: list[Unread] = field(default_factory=list)

    @property
    def comments(self) -> int:
        return sum(self.rules.values()) + len(self.unread)


@dataclass
class Report:
    repo: str
    prs: list[int] = field(default_factory=list)
    bots: dict[BotKey, BotTally] = field(default_factory=dict)

    @property
    def unread(self) -> int:
        return sum(len(t.unread) for t in self.bots.values())


def tally(report: Report, pr: int, comments: Iterable[RawComment]) -> None:
    """Add one PR's comments to `report`: each known bot's comment (by login and account
    type) through its profile, counted under the rule that read it."""
    report.prs.append(pr)
    for comment in comments:
        bot = bot_for_author(comment.author_login, comment.author_type)
        if bot is None:
            continue
        parsed = parse_comment(bot, comment)
        counts = report.bots.setdefault(bot, BotTally())
        if parsed.unreadable:
            line = clip(first_line(comment.body), TITLE_MAX)
            counts.unread.append(Unread(pr, comment.html_url, line))
        else:
            counts.rules[parsed.reason or parsed.kind] += 1


def render_text(report: Report) -> str:
    lines = [f"reviewcoord doctor: {report.repo}, {len(report.prs)} PRs"]
    for bot in sorted(report.bots, key=display_name):
        counts = report.bots[bot]
        lines.append(f"\n{display_name(bot)}: {counts.comments} comments")
        for rule, n in sorted(counts.rules.items(), key=lambda item: (-item[1], item[0])):
            lines.append(f"  {n:5d}  {rule}")
        for item in counts.unread:
            lines.append(f"  UNREAD #{item.pr} {item.url} — {item.first_line}")
    if not report.bots:
        lines.append("\nno comments of a known bot")
    verdict = f"{report.unread} bodies no rule read" if report.unread else "every body was read"
    lines.append(f"\n{verdict}")
    return "\n".join(lines) + "\n"


def to_json(report: Report) -> dict[str, object]:
    return {
        "repo": report.repo,
        "prs": report.prs,
        "unread": report.unread,
        "bots": {
            bot: {
                "comments": counts.comments,
                "rules": dict(sorted(counts.rules.items())),
                "unread": [
                    {"pr": u.pr, "url": u.url, "first_line": u.first_line} for u in counts.unread
                ],
            }
            for bot, counts in sorted(report.bots.items())
        },
    }
