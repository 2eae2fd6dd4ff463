"""Text generated from the registered bot profiles, so that a new reviewer reaches every place
that lists reviewers from its profile alone (reviewcoord/bots/registry.py):

* the reviewer list and severity table (docs/reviewers.md);
* who each pack holds, wherever the docs say it (a `slow-pack` span in docs/reviewers.md,
  configure.md and interface.md; the commented default packs of examples/review-coordinator.yml);
* the trigger logic of the shipped reusable workflow (.github/workflows/judge.yml): every bot
  login (whose comment edits judge again), the apps of the reviewers' own check runs
  (`Registry.check_apps`), each bot's in-place tracker (`BotProfile.tracker`: its edits start no
  run while it says it is working). A repository's declared reviewers reach it through the
  workflow's inputs `reviewer-logins` and `reviewer-apps`. Its third job, the sweep of
  `wait: events`, starts on `schedule` alone, which the other two never start on.

    .venv/bin/python scripts/generated.py          # exit 1 if a generated block is out of date
    .venv/bin/python scripts/generated.py --write  # rewrite them

Each block sits between a `generated: NAME` line and an `end generated: NAME` line (an HTML
comment in Markdown, a `#` comment in YAML); tests/test_generated.py fails when a profile changes
and a file was not regenerated, and tests/test_triggers.py evaluates the trigger logic over every
event fixture.
"""

from __future__ import annotations

import json
import re
import sys
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from reviewcoord.bots import REGISTRY, bot_keys
from reviewcoord.bots.profile import BotProfile

ROOT = Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------- the reviewer tables
LEVELS = ("critical", "medium", "low")
# How settle treats each pack (docs/interface.md §3 `settle`).
PACK_WORDS = {
    "fast": "fast",
    "slow": "slow (waited for by `settle: full`)",
    "none": "not waited for; read once after settle",
}


def _code(items: list[str]) -> str:
    return ", ".join(f"`{item}`" for item in items)


def _rest_logins(profile: BotProfile) -> list[str]:
    """The logins REST shows (`name[bot]`, `Copilot`); GraphQL spellings add nothing here."""
    logins = sorted(profile.logins, key=str.casefold)
    with_bot = {login.removesuffix("[bot]").casefold() for login in logins if "[bot]" in login}
    return [login for login in logins if "[bot]" in login or login.casefold() not in with_bot]


def reviewer_table() -> str:
    rows = [
        "| key | reviewer | logins | settle | ask it again | quirks |",
        "|---|---|---|---|---|---|",
    ]
    for key in bot_keys():
        profile = REGISTRY.profile(key)
        pack = PACK_WORDS.get(profile.pack, profile.pack)
        hint = profile.rerequest or "—"
        quirks = profile.skips_bot_prs or "—"
        logins = _code(_rest_logins(profile))
        rows.append(f"| `{key}` | {profile.display} | {logins} | {pack} | {hint} | {quirks} |")
    return "\n".join(rows)


def _and(items: Sequence[str]) -> str:
    return " and ".join(items) if len(items) < 3 else f"{', '.join(items[:-1])} and {items[-1]}"


def slow_pack() -> str:
    """The slow pack's reviewers by name, for the prose that says who each pack holds."""
    return _and([REGISTRY.profile(key).display for key in REGISTRY.pack("slow")])


def pack_defaults() -> str:
    """The example config's commented default packs (`fast-pack`, `slow-pack`)."""
    lines = []
    for pack in ("fast", "slow"):
        keys = ", ".join(sorted(REGISTRY.pack(pack)))
        lines += textwrap.wrap(f"{pack}-pack: [{keys}]", 94, subsequent_indent="  ")
    return "\n".join(f"# {line}" for line in lines)


def severity_table() -> str:
    rows = [
        "| reviewer | critical | medium | low |",
        "|---|---|---|---|",
    ]
    for key in bot_keys():
        profile = REGISTRY.profile(key)
        cells = [
            _code([label for label, level in profile.severity.items() if level == wanted]) or "—"
            for wanted in LEVELS
        ]
        rows.append(f"| {profile.display} | {' | '.join(cells)} |")
    return "\n".join(rows)


# -------------------------------------------------------------- the trigger logic
INDENT = " " * 6  # the expression's lines under `    if: >-`
# Our own comments: the sticky's first line, a re-request's hidden line (posted with an App
# token they would start a run of their own).
OURS = ("<!-- review-coordinator-verdict -->", "<!-- review-coordinator-rerequest -->")
# The events whose runs get a read-only token for a fork's PR (and for Dependabot's): the
# relay (`workflow_run`) publishes for them.
READ_ONLY_EVENTS = ("pull_request", "pull_request_review", "pull_request_review_comment")
BODY = "github.event.comment.body"
LOGIN = "github.event.comment.user.login"


def quoted(text: str) -> str:
    """A string literal of GitHub's expression language ('' escapes a quote)."""
    return "'" + text.replace("'", "''") + "'"


def one_of(items: Sequence[str], value: str) -> str:
    """`value` is one of `items` (compared without case, as `==` and `contains` do)."""
    if len(items) == 1:
        return f"{value} == {quoted(items[0])}"
    return f"contains(fromJSON({quoted(json.dumps(list(items), separators=(',', ':')))}), {value})"


def in_input(name: str, value: str) -> str:
    """`value` is an item of the comma list in the workflow input `name` (no spaces)."""
    return (
        f"(inputs.{name} && contains(format(',{{0}},', inputs.{name}), format(',{{0}},', {value})))"
    )


def event_is(*names: str) -> str:
    return " || ".join(f"github.event_name == {quoted(n)}" for n in names)


def tracker_at_work() -> str:
    """A known bot's in-place tracker that still says it is working (Tracker)."""
    parts = []
    for profile in REGISTRY.profiles():
        tracker = profile.tracker
        if tracker is None:
            continue
        who = one_of(sorted(profile.logins), LOGIN)
        working = " || ".join(f"contains({BODY}, {quoted(m)})" for m in tracker.working)
        done = "".join(f" && !contains({BODY}, {quoted(m)})" for m in tracker.done)
        parts.append(f"({who} && ({working}){done})")
    return "\n        || ".join(parts) or "false"


def known_login() -> str:
    return (
        f"({one_of(REGISTRY.logins(), LOGIN)}\n          || {in_input('reviewer-logins', LOGIN)})"
    )


def passes() -> str:
    """The events that judge a PR (docs/adopt.md § What starts a run)."""
    slug = "github.event.check_run.app.slug"
    run = "github.event.workflow_run"
    ours = " && ".join(f"!contains({BODY}, {quoted(m)})" for m in OURS)
    relayed = " || ".join(f"{run}.event == {quoted(e)}" for e in READ_ONLY_EVENTS)
    return f"""({event_is("pull_request", "pull_request_target")})
  && (github.event.action != 'edited' || github.event.changes.base)
|| github.event_name == 'pull_request_review'
|| github.event_name == 'pull_request_review_comment'
  && (github.event.comment.user.type != 'Bot'
      || github.event.action == 'edited' && {known_login()})
|| github.event_name == 'issue_comment' && github.event.issue.pull_request
  && (github.event.comment.user.type != 'Bot'
      || {ours}
      && !({tracker_at_work()})
      && (github.event.action == 'created' || {known_login()}))
|| github.event_name == 'check_run'
  && ({one_of(REGISTRY.check_apps(), slug)} || {in_input("reviewer-apps", slug)})
|| {event_is("merge_group", "workflow_dispatch")}
|| github.event_name == 'workflow_run' && {run}.conclusion == 'success'
  && ({relayed})
  && ({run}.head_repository.full_name != github.repository
      || {run}.actor.login == 'dependabot[bot]')"""


def read_only() -> str:
    """A run whose token cannot write: a fork's PR, or Dependabot's (GitHub's rules)."""
    return f"""({event_is(*READ_ONLY_EVENTS)})
  && (github.event.pull_request.head.repo.full_name != github.repository
      || github.actor == 'dependabot[bot]')"""


def _if(expression: str) -> str:
    lines = expression.splitlines()
    return "    if: >-\n" + "\n".join(INDENT + line for line in lines)


def judge_if() -> str:
    return _if(f"!(\n{read_only()}\n) && (\n{passes()}\n)")


def hand_over_if() -> str:
    return _if(f"(\n{read_only()}\n) && (\n{passes()}\n)")


# The sweep of `wait: events` (reviewcoord/sweep.py): a `schedule` event, which `passes()`
# never lets through, so no `schedule` starts `judge` or `hand-over`. Only for a caller that
# opted in: under `wait: poll` a schedule starts no job, so it costs no runner and no request.
SWEEP = "github.event_name == 'schedule' && inputs.wait == 'events'"


def sweep_if() -> str:
    return _if(SWEEP)


# ------------------------------------------------------------------------ the files
@dataclass(frozen=True)
class Generated:
    """The generated blocks of one file, and how its comments open and close a line. A block
    is whole lines; a span (`spans`) is words inside a line (a sentence, a table cell), between
    `<!-- generated: NAME -->` and `<!-- end generated: NAME -->`, and may occur many times."""

    path: Path
    blocks: dict[str, Callable[[], str]]
    opener: str  # before `generated: NAME` on its line
    closer: str  # after it
    spans: dict[str, Callable[[], str]] = field(default_factory=dict)

    def pattern(self, name: str) -> re.Pattern[str]:
        o, c = re.escape(self.opener), re.escape(self.closer)
        return re.compile(
            rf"({o}generated: {name} [^\n]*{c}\n)(.*?)({o}end generated: {name}{c}\n)", re.DOTALL
        )

    def span_pattern(self, name: str) -> re.Pattern[str]:
        o, c = re.escape(self.opener), re.escape(self.closer)
        return re.compile(rf"({o}generated: {name}{c})([^\n]*?)({o}end generated: {name}{c})")


SLOW_PACK = {"slow-pack": slow_pack}  # who the slow pack holds, wherever prose says it
FILES = (
    Generated(
        ROOT / "docs/reviewers.md",
        {"reviewers": reviewer_table, "severity": severity_table},
        "<!-- ",
        " -->",
        SLOW_PACK,
    ),
    Generated(ROOT / "docs/configure.md", {}, "<!-- ", " -->", SLOW_PACK),
    Generated(ROOT / "docs/interface.md", {}, "<!-- ", " -->", SLOW_PACK),
    Generated(ROOT / "examples/review-coordinator.yml", {"packs": pack_defaults}, "# ", ""),
    Generated(
        ROOT / ".github/workflows/judge.yml",
        {"judge-if": judge_if, "hand-over-if": hand_over_if, "sweep-if": sweep_if},
        "    # ",
        "",
    ),
)


def regenerate(text: str, generated: Generated) -> str:
    """`text` with every block of `generated` rendered afresh; a missing block is an error."""
    for name, render in generated.blocks.items():
        pattern = generated.pattern(name)
        if pattern.search(text) is None:
            raise ValueError(f"{generated.path.name} has no generated block {name!r}")
        text = pattern.sub(lambda m, r=render: f"{m.group(1)}{r()}\n{m.group(3)}", text, count=1)
    for name, render in generated.spans.items():
        pattern = generated.span_pattern(name)
        if pattern.search(text) is None:
            raise ValueError(f"{generated.path.name} has no generated span {name!r}")
        text = pattern.sub(lambda m, r=render: f"{m.group(1)}{r()}{m.group(3)}", text)
    return text


def main(argv: list[str], files: Sequence[Generated] = FILES) -> int:
    stale = []
    for generated in files:
        current = generated.path.read_text(encoding="utf-8")
        fresh = regenerate(current, generated)
        if "--write" in argv:
            generated.path.write_text(fresh, encoding="utf-8")
        elif fresh != current:
            stale.append(generated.path.name)
    if stale:
        print(f"out of date: {', '.join(stale)}; run .venv/bin/python scripts/generated.py --write")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
