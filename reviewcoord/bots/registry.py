"""The registry of reviewer profiles: keys, logins, display names, packs and the default
severity table, all derived from the registered `BotProfile`s.

`REGISTRY` holds the built-in profiles (registered by `reviewcoord.bots`). `extended(...)`
adds profiles for a scope — a test's extra reviewer, or the reviewers a repository declares —
and restores the registry afterwards.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager

from reviewcoord.bots.checks import SHARED_APPS, CheckReader
from reviewcoord.bots.profile import ACCOUNT_TYPES, BotProfile, Pack, graphql_spelling
from reviewcoord.model import Finding, Level
from reviewcoord.reading import Kind


def spellings(profile: BotProfile) -> frozenset[str]:
    """Every way a login of `profile` may be written (REST and GraphQL), casefolded: what a
    name in the config may say, what another reviewer may not claim, and what a person's
    account named like the bot is recognised by."""
    return frozenset(
        spelling.casefold()
        for login in profile.logins
        for spelling in (login, graphql_spelling(login))
    )


class Registry:
    def __init__(self) -> None:
        self._profiles: dict[str, BotProfile] = {}
        self._by_login: dict[str, str] = {}  # REST login (casefolded) → key
        self._by_name: dict[str, str] = {}  # any spelling (casefolded) → key

    def register(self, profile: BotProfile) -> None:
        if profile.key in self._profiles:
            raise ValueError(f"bot key {profile.key!r} is registered twice")
        names = spellings(profile)
        for name in names:
            owner = self._by_name.get(name)
            if owner is not None:
                raise ValueError(f"login {name!r} is claimed by {owner} and {profile.key}")
        self._profiles[profile.key] = profile
        for login in profile.logins:
            self._by_login[login.casefold()] = profile.key
        for name in names:
            self._by_name[name] = profile.key

    @contextmanager
    def extended(self, profiles: Iterable[BotProfile]) -> Iterator[Registry]:
        """The registry with `profiles` added until the block ends. A profile equal to one
        already registered is in scope already (a nested scope of the same declarations)."""
        saved = (dict(self._profiles), dict(self._by_login), dict(self._by_name))
        try:
            for profile in profiles:
                if self._profiles.get(profile.key) != profile:
                    self.register(profile)
            yield self
        finally:
            self._profiles, self._by_login, self._by_name = saved

    def profiles(self) -> tuple[BotProfile, ...]:
        return tuple(self._profiles.values())

    def reads(self, keys: Iterable[str]) -> frozenset[Kind]:
        """What the profiles of `keys` read beyond their comments (reviewcoord/reading.py)."""
        kinds: set[Kind] = set()
        for key in keys:
            profile = self._profiles.get(key)
            if profile is not None:
                kinds |= profile.reads
        return frozenset(kinds)

    def keys(self) -> tuple[str, ...]:
        """Every registered bot key, in registration (display) order."""
        return tuple(self._profiles)

    def profile(self, key: str) -> BotProfile:
        return self._profiles[key]

    def get(self, key: str) -> BotProfile | None:
        return self._profiles.get(key)

    def bot_for_author(self, login: str, account_type: str) -> str | None:
        """The reviewer a REST author *is*: its login and its account type (`Bot`, or `User`
        for a reviewer declared `type: user`), both as GitHub returns them. A person whose
        login merely equals a bot's slug is nobody's reviewer (see `impostor_of`)."""
        key = self._by_login.get(login.strip().casefold())
        if key is None:
            return None
        wanted = ACCOUNT_TYPES[self._profiles[key].account]
        return key if account_type.strip().casefold() == wanted.casefold() else None

    def bot_for_graphql_author(self, login: str, typename: str) -> str | None:
        """The same for a GraphQL `author { __typename login }`: an App's login there has no
        `[bot]`, so it is mapped back to its REST spelling — only for a `Bot` author."""
        if typename == "Bot":
            return self.bot_for_author(f"{login.strip()}[bot]", "Bot")
        if typename == "User":
            return self.bot_for_author(login, "User")
        return None

    def impostor_of(self, login: str, account_type: str) -> str | None:
        """The reviewer whose slug this author's login spells while the author is not it (a
        user account named `claude` or `chatgpt-codex-connector`), else None. A `Bot` account
        is never one: it is some App, judged as an unknown bot."""
        if account_type.strip().casefold() == "bot":
            return None
        if self.bot_for_author(login, account_type) is not None:
            return None
        return self._by_name.get(login.strip().casefold())

    def owner_of_name(self, name: str) -> str | None:
        """The reviewer a *name* in the config or a declaration spells (either spelling of a
        login). A name, never an identity: comments are matched by `bot_for_author`."""
        return self._by_name.get(name.strip().casefold())

    def pack(self, pack: Pack) -> tuple[str, ...]:
        return tuple(k for k, p in self._profiles.items() if p.pack == pack)

    def is_source(self, key: str) -> bool:
        """A source read once per run, not a reviewer waited for (pack `none`: code scanning)."""
        profile = self._profiles.get(key)
        return profile is not None and profile.pack == "none"

    def reviewers(self) -> tuple[str, ...]:
        """The keys settle may wait for and `expected-bots` may name: every one but a source."""
        return tuple(k for k in self._profiles if not self.is_source(k))

    def logins(self) -> tuple[str, ...]:
        """Every REST login of a registered bot account, sorted: whose comment edits the
        workflow's trigger logic lets through (scripts/generated.py)."""
        return tuple(
            sorted(
                login for p in self._profiles.values() if p.account == "bot" for login in p.logins
            )
        )

    def check_apps(self) -> tuple[str, ...]:
        """The apps whose completed check run is a reviewer's own (its profile reads it), sorted;
        never an app anyone's workflow runs as (`github-actions`): those never start a run."""
        return tuple(
            sorted(
                {
                    check.app
                    for p in self._profiles.values()
                    if isinstance(p.evidence, CheckReader)
                    for check in p.evidence.checks
                    if not check.status and check.app not in SHARED_APPS
                }
            )
        )

    def display(self, key: str) -> str:
        profile = self._profiles.get(key)
        return profile.display if profile is not None else key

    def default_table(self) -> dict[str, dict[str, Level]]:
        return {k: dict(p.severity) for k, p in self._profiles.items()}

    def canonical_label(self, bot: str, raw: str) -> str:
        profile = self._profiles.get(bot)
        return profile.canonical_label(raw) if profile is not None else raw.strip().casefold()

    def shown_label(self, bot: str, raw: str) -> str:
        profile = self._profiles.get(bot)
        return profile.shown_label(raw) if profile is not None else raw.strip()

    def level(
        self, bot: str, raw: str | None, table: Mapping[str, Mapping[str, Level]] | None = None
    ) -> Level:
        """The one function from a bot's raw label onto our scale. Unknown or none → medium."""
        if raw is None or not raw.strip():
            return "medium"
        key = self.canonical_label(bot, raw)
        if table is not None and key in table.get(bot, {}):
            return table[bot][key]
        profile = self._profiles.get(bot)
        return profile.severity.get(key, "medium") if profile is not None else "medium"

    def levelled(
        self, findings: Iterable[Finding], table: Mapping[str, Mapping[str, Level]] | None
    ) -> tuple[Finding, ...]:
        """Each finding at the level of its raw label under `table` (computed once, here)."""
        return tuple(
            f.model_copy(update={"severity": self.level(f.bot, f.severity_raw, table)})
            for f in findings
        )


REGISTRY = Registry()
