"""Resolve a run: its settings (config from the base branch < inputs), who we are, and which
bots are expected on this PR."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from reviewcoord.actions_io import Log
from reviewcoord.bots import bot_for_author, reviewer_keys
from reviewcoord.bots.declared import rest_login
from reviewcoord.config import Settings, build_settings, parse_config_file
from reviewcoord.errors import ConfigError
from reviewcoord.github.gateway import Gateway, PullInfo
from reviewcoord.model import BotKey


def load_settings(
    gateway: Gateway,
    pull: PullInfo,
    config_path: str,
    inputs: Mapping[str, object],
    input_source: str,
    parsed: dict[str, Any] | None = None,
    own_login: str | None = None,
) -> Settings:
    """`parsed` receives the file's mapping once it parses as YAML, valid or not (a failure
    report takes the name of the check the repository configured from it). `own_login`: who
    we are; a declared reviewer may not be us (`refuse_own_reviewer`)."""
    # The base branch's copy only: a PR must not be able to change its own gate.
    ref = pull.base_ref or pull.base_sha
    text = gateway.get_file(config_path, ref) if config_path else None
    source = f"{config_path} (base branch {ref})"
    file_values = parse_config_file(text, source, parsed) if text is not None else {}
    settings = build_settings(file_values, inputs, file_source=source, input_source=input_source)
    if own_login:
        refuse_own_reviewer(settings, own_login, source)
    return settings


def resolve_expected(
    settings: Settings,
    gateway: Gateway,
    pull: PullInfo,
    log: Log,
    on_this_pr: Sequence[BotKey],
    recorded: Sequence[BotKey] | None = None,
) -> list[BotKey]:
    """`auto`: the known bots seen in the repository's recent comments or on this PR, plus any
    named; every known bot when none was ever seen (an empty set must never mean an instant
    `go`). Reviewers only: a source (code scanning) is read, never expected or waited for.
    (The repository-wide lists hold inline and conversation comments, not review bodies, so a
    bot that only ever left clean reviews is found through this PR's own reviews.)
    `recorded`: the set the last run resolved for this same head (our history record): kept,
    plus the bots seen on this PR since, without reading the repository-wide lists again;
    they are not read either when every known bot is already on this PR."""
    expected: set[BotKey] = {*settings.explicit_expected, *settings.require_bots}
    if settings.auto_expected and recorded is not None:
        expected |= set(recorded) | set(on_this_pr)
        log.info(f"expected-bots auto: as resolved for this head: {', '.join(sorted(expected))}")
    elif settings.auto_expected:
        found = set(on_this_pr)
        if not set(reviewer_keys()) <= found:
            authors = gateway.recent_comment_authors()
            seen = {bot_for_author(login, kind) for login, kind in authors}
            found |= {b for b in seen if b is not None}
        if found:
            log.info(
                f"expected-bots auto: seen on this repository recently: {', '.join(sorted(found))}"
            )
        elif not expected:
            log.notice(
                "expected-bots auto: no known AI reviewer has commented on this repository "
                f"recently; expecting every known bot ({', '.join(reviewer_keys())})"
            )
            found = set(reviewer_keys())
        expected |= found
    return [b for b in reviewer_keys() if b in expected]


def identity(gateway: Gateway, identity_hint: str | None) -> tuple[str, str]:
    """(confirmed login, login to act as) — one login, from GitHub's word about our own token,
    never from a name match on a check run anyone's App could make (issue 23 route 7): the
    command line's personal token answers `GET /user`; any token answers GraphQL `viewer` (the
    workflow's GITHUB_TOKEN as github-actions[bot], an App installation as `<slug>[bot]`). The
    check run this run creates confirms it (evaluation.open_surfaces). A failed read raises
    GatewayError: the run fails closed rather than guess who it is."""
    if identity_hint is None:
        login = gateway.whoami()
        if login:
            return login, login
    login = gateway.token_login()
    return login, login


def refuse_own_reviewer(settings: Settings, own_login: str, source: str) -> None:
    """A declared reviewer whose login is ours would read our own sticky as its review (issue 23
    route 8): refused, naming the key (ConfigError, like every invalid configuration)."""
    mine = own_login.casefold()
    for key, declared in settings.reviewers.items():
        for login in declared.logins:
            if rest_login(login, declared.type).casefold() == mine:
                raise ConfigError(
                    f"{source}: key 'reviewers.{key}.logins': login {login!r} is this action's "
                    "own identity (the token it runs with writes as it): our sticky comment "
                    "would be read as that reviewer's review"
                )
