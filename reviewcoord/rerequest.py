"""Re-request, once (`rerequest: true`, docs/interface.md §3): ask an expected reviewer for the
review it has not given the head — once per head and bot, whichever run asks.

A bot is due when it has not started on the head by its pack's timeout (`fast-timeout` for
the fast pack, `full-timeout` for the slow one, counted from the start of the run's settle),
or when it `failed` on the head. Never for a bot that posted a quota, usage-limit, credit,
billing or set-up notice anywhere on the PR (asking again spends what is not there): its
profile marks such a notice where it parses it (`ParsedComment.no_budget`), and that flag is
all this module reads — never the notice's words. Never for a bot whose profile documents
no way to ask (docs/bot-formats.md § Re-requesting), never on a closed or draft PR; and the
writes go through the run's `WriteGuard`, so a read-only token (a fork PR) asks nothing.
What was asked is kept in the record (`History.asked`), so no later run asks the same bot
for the same head again.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from reviewcoord.bots import REGISTRY, display_name, parse_comment
from reviewcoord.github.gateway import Gateway
from reviewcoord.history import MAX_ASKED, Asked, History
from reviewcoord.model import BotKey, RawComment

# The hidden line our trigger comments carry, so that a person (or a tool) can tell them apart.
ASK_MARKER = "<!-- review-coordinator-rerequest -->"
HOW_REVIEWERS = "requested_reviewers"
WHY_DETAIL = 160  # characters of a bot's failure detail kept in the record's `why`


@dataclass(frozen=True)
class Due:
    bot: BotKey
    why: str


def can_ask(bot: BotKey) -> bool:
    profile = REGISTRY.get(bot)
    return profile is not None and bool(profile.trigger or profile.review_login)


def asked_before(asked: Iterable[Asked], bot: BotKey, head: str) -> bool:
    return any(a.bot == bot and a.head == head for a in asked)


def quota_noticed(bot: BotKey, comments: Iterable[RawComment]) -> bool:
    """Whether `bot` said, on any head of the PR, that it has no quota, credit or budget left
    (or is not set up): a notice its profile marks `no_budget`."""
    profile = REGISTRY.get(bot)
    if profile is None:
        return False
    for c in comments:
        if c.author_login.casefold() in profile.logins:
            parsed = parse_comment(bot, c)
            if parsed.kind in ("failed", "skipped") and parsed.no_budget:
                return True
    return False


@dataclass(frozen=True)
class Timing:
    fast_pack: Collection[BotKey]
    fast_timeout: float
    full_timeout: float

    def timeout(self, bot: BotKey) -> float:
        return self.fast_timeout if bot in self.fast_pack else self.full_timeout


def due(
    states: Mapping[BotKey, tuple[str, str]],
    expected: Sequence[BotKey],
    timing: Timing,
    elapsed: float,
    head: str,
    done: Collection[BotKey],
) -> list[Due]:
    """The expected bots to ask now: `states` is bot → (state, detail) on the head; `done` the
    bots asked for this head already. A bot that noticed a budget stop is dropped by the
    caller (`quota_noticed`, over the PR's comments)."""
    out: list[Due] = []
    for bot in expected:
        if bot in done or not can_ask(bot):
            continue
        state, detail = states.get(bot, ("not_seen", ""))
        if state == "failed":
            said = " ".join((detail or "an error").split())[:WHY_DETAIL]  # the bot's words
            out.append(Due(bot, f"it could not review `{head[:7]}`: {said}"))
        elif state == "not_seen" and elapsed >= timing.timeout(bot):
            out.append(
                Due(bot, f"it had not started on `{head[:7]}` after {timing.timeout(bot):.0f} s")
            )
    return out


def trigger_body(bot: BotKey) -> str:
    profile = REGISTRY.get(bot)
    assert profile is not None and profile.trigger
    return f"{profile.trigger}\n\n{ASK_MARKER}"


def how(bot: BotKey) -> str:
    """How `bot` is asked: the reviewer request, else its trigger comment."""
    profile = REGISTRY.get(bot)
    if profile is not None and profile.review_login:
        return HOW_REVIEWERS
    return f"`{profile.trigger}`" if profile is not None else ""


def send(gateway: Gateway, pr: int, bot: BotKey) -> str:
    """Ask `bot` for a review of PR `pr`: GitHub's time of the write (ISO 8601, "" if unknown)."""
    profile = REGISTRY.get(bot)
    assert profile is not None
    if profile.review_login:
        at = gateway.request_reviewers(pr, [profile.review_login])
    else:
        at = gateway.create_issue_comment(pr, trigger_body(bot)).created_at
    return at.isoformat().replace("+00:00", "Z") if at is not None else ""


def our_requests(
    comments: Iterable[RawComment], own_login: str | None
) -> dict[BotKey, tuple[datetime, ...]]:
    """When we asked each bot by its trigger comment, GitHub's time: a conversation comment of
    ours (our login, on a Bot account) whose first line is the bot's trigger and that carries
    our marker. A request made after a head arrived proves the bot was asked about that head
    (reviewcoord/binding.py)."""
    out: dict[BotKey, list[datetime]] = {}
    if own_login is None:
        return {}
    triggers = {profile.trigger: profile.key for profile in REGISTRY.profiles() if profile.trigger}
    for c in comments:
        if (
            c.endpoint != "issue_comment"
            or c.author_login != own_login
            or c.author_type.casefold() != "bot"
            or ASK_MARKER not in c.body
            or c.created_at is None
        ):
            continue
        bot = triggers.get(c.body.lstrip().split("\n", 1)[0].strip())
        if bot is not None:
            out.setdefault(bot, []).append(c.created_at)
    return {bot: tuple(sorted(times)) for bot, times in out.items()}


def merged(record: History | None, new: Sequence[Asked]) -> list[Asked] | None:
    """The record's re-requests with this run's, newest last, bounded; None when there are none
    (the key is then left out of the record, as in records written before it existed)."""
    asked = [*(record.asked or [] if record else []), *new][-MAX_ASKED:]
    return asked or None


def note(a: Asked) -> str:
    """What the sticky says about one re-request: what was asked, when and why."""
    when = f" at {a.at[11:16]} UTC" if a.at and len(a.at) >= 16 else ""
    via = "a review request" if a.how == HOW_REVIEWERS else a.how
    return f"asked {display_name(a.bot)} to review `{a.head[:7]}`{when} with {via}: {a.why}"
