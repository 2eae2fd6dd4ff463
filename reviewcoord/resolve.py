"""Resolve a run: its settings (config from the base branch < inputs), who we are, and which
bots are expected on this PR."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from reviewcoord import config_text
from reviewcoord.actions_io import Log
from reviewcoord.bots import reviewer_keys, reviewing_in
from reviewcoord.bots.declared import rest_login
from reviewcoord.config import Settings, build_settings, parse_config_file
from reviewcoord.errors import ConfigError
from reviewcoord.github.gateway import Gateway, PullInfo
from reviewcoord.model import BotKey

# How many versions of an invalid config file are read, newest first, for its last valid one.
MAX_CONFIG_VERSIONS = 5
# A config path longer than this is shown by its end in the commit status (140 characters).
MAX_PATH_SHOWN = 60
CONFIG_WARNING_LEAD = "The config file on the base branch is invalid"
PROPOSED_LEAD = "This PR changes"


@dataclass(frozen=True)
class ConfigUsed:
    """Which copy of the config file a run is judged under (docs/troubleshooting.md). A base
    branch's copy that is invalid never locks the repository and never silently weakens it:
    `problem` (naming the key and line) is reported on every surface, and the run is judged
    under `used`: the file's last valid version on the base branch, else the defaults."""

    problem: str = ""
    used: str = ""
    line: int | None = None  # of the key the problem is about, in the base branch's copy
    base: bytes | None = None  # the base branch's copy as read (None: there is none)
    path: str = ""  # the config file's path

    @property
    def where(self) -> str | None:
        """The broken file and line in a few words, for the commit status's 140 characters
        (`.github/review-coordinator.yml line 2`); None when the file is fine."""
        if not self.problem:
            return None
        path = self.path if len(self.path) <= MAX_PATH_SHOWN else "…" + self.path[-MAX_PATH_SHOWN:]
        return f"{path} line {self.line}" if self.line else path

    @property
    def warning(self) -> str | None:
        if not self.problem:
            return None
        return (
            f"{CONFIG_WARNING_LEAD}: {self.problem}. Pull requests are judged under "
            f"{self.used} until it is fixed (docs/troubleshooting.md)."
        )


# What a report on the required check needs of a config that could not be used whole: the
# check's name and the status's context the branch rule requires, and a requested dry run.
REPORT_KEYS = ("check-name", "status-context", "dry-run")


def valid_alone(*sources: Mapping[str, Any]) -> dict[str, Any]:
    """Each REPORT_KEYS value of the first source that sets it validly on its own."""
    chosen: dict[str, Any] = {}
    for key in REPORT_KEYS:
        for source in sources:
            value = source.get(key)
            if value is None or value == "":
                continue
            try:
                Settings.model_validate({key: value})
            except ValidationError:
                continue
            chosen[key] = value
            break
    return chosen


def read_config(
    gateway: Gateway,
    config_path: str,
    ref: str,
    parsed: dict[str, Any] | None = None,
    own_login: str | None = None,
) -> tuple[dict[str, Any], ConfigUsed]:
    """The config file's values on `ref` (the base branch: a PR must not be able to change its
    own gate). Invalid: the values of its newest valid version among the last
    MAX_CONFIG_VERSIONS commits that touched it on `ref` (a version where it did not exist is
    the defaults), else the defaults. `parsed` receives the file's mapping once it parses as
    YAML, valid or not (a failure report takes the check's name from it). A version that
    declares a reviewer with our own login (`own_login`) is invalid too."""
    source = f"{config_path} (base branch {ref})"
    raw = gateway.get_file(config_path, ref) if config_path else None
    if raw is None:
        return {}, ConfigUsed()
    mapping: dict[str, Any] = {} if parsed is None else parsed
    try:
        return valid_config(raw, source, own_login, mapping), ConfigUsed(base=raw)
    except ConfigError as exc:
        problem, line = str(exc), exc.line
    for sha in gateway.file_versions(config_path, ref, MAX_CONFIG_VERSIONS):
        older = gateway.get_file(config_path, sha)
        if older is None:
            used = f"the defaults (no {config_path} at {sha[:7]})"
            return {}, ConfigUsed(problem, used, line, raw, config_path)
        try:
            values = valid_config(older, f"{config_path} ({sha[:7]})", own_login)
        except ConfigError:
            continue
        used = f"its last valid version ({config_path} at {sha[:7]})"
        return values, ConfigUsed(problem, used, line, raw, config_path)
    # The defaults, but under the check's name the broken file gives (valid on its own): the
    # branch rule requires that one.
    names = valid_alone(mapping)
    used = "the defaults (no valid earlier version was found)"
    return names, ConfigUsed(problem, used, line, raw, config_path)


def valid_config(
    raw: bytes, source: str, own_login: str | None, parsed: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The file's values, or ConfigError naming the key and its line; `refuse_own_reviewer`
    is part of its validity (the same file is valid or not whatever the inputs say)."""
    values = parse_config_file(raw, source, parsed)
    if own_login and values.get("reviewers"):
        alone = build_settings(values, {}, file_source=source, input_source="inputs")
        try:
            refuse_own_reviewer(alone, own_login, source)
        except ConfigError as exc:
            raise config_text.located(exc, config_text.decode(raw, source)) from None
    return values


def proposed_config_note(
    gateway: Gateway,
    pull: PullInfo,
    config_path: str,
    inputs: Mapping[str, object],
    settings: Settings,
    used: ConfigUsed,
    own_login: str | None = None,
) -> str | None:
    """What the PR's own edit of the config file would change once merged. It never judges
    this PR (the base branch's copy does): the sticky only says it. Read at the PR's test merge
    commit (base + PR, GitHub's `merge_commit_sha`), so a PR branched before the base changed
    the file is not taken for one that edits it. None when merging leaves the file as the base
    has it, changes nothing in effect, or GitHub has no merge commit (a conflict)."""
    if not config_path or not pull.merge_commit_sha:
        return None
    head = gateway.get_file(config_path, pull.merge_commit_sha)
    if head == used.base:
        return None
    intro = f"{PROPOSED_LEAD} `{config_path}`; it is judged under the base branch's copy"
    if head is None:
        return f"{intro}. It deletes the file: once merged, PRs are judged under the defaults."
    try:
        values = valid_config(head, f"{config_path} (this PR)", own_login)
        source = f"{config_path} (this PR)"
        proposed = build_settings(values, inputs, file_source=source, input_source="inputs")
    except ConfigError as exc:
        return f"{intro}. Its version is invalid, fix it before merging: {exc}"
    changes = setting_changes(settings, proposed)
    if not changes:
        return None
    return f"{intro}. Once merged, it changes: {'; '.join(changes)}."


def setting_changes(before: Settings, after: Settings) -> list[str]:
    """`key`: old → new, for every setting that differs (per run only `cycle` aside)."""
    old, new = before.model_dump(by_alias=True), after.model_dump(by_alias=True)
    return [
        f"`{key}`: `{shown(old[key])}` → `{shown(new[key])}`"
        for key in old
        if key != "cycle" and old[key] != new[key]
    ]


def shown(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(str(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(sorted(str(k) for k in value)) + "}"
    return str(value).lower() if isinstance(value, bool) else str(value)


def load_settings(
    gateway: Gateway,
    pull: PullInfo,
    config_path: str,
    inputs: Mapping[str, object],
    input_source: str,
    parsed: dict[str, Any] | None = None,
    own_login: str | None = None,
) -> tuple[Settings, ConfigUsed]:
    """The run's settings: the inputs over the base branch's config file (`read_config`).
    `own_login`: who we are; a declared reviewer may not be us (`refuse_own_reviewer`)."""
    ref = pull.base_ref or pull.base_sha
    file_values, used = read_config(gateway, config_path, ref, parsed, own_login)
    source = f"{config_path} (base branch {ref})"
    try:
        settings = build_settings(
            file_values, inputs, file_source=source, input_source=input_source
        )
    except ConfigError as exc:
        if not used.warning:
            raise
        # An input that names what only the broken file declares: say the cause first.
        raise ConfigError(f"{used.warning} Under it, {exc}", key=exc.key) from None
    if own_login:  # an input cannot declare a reviewer, but say it plainly if one ever could
        refuse_own_reviewer(settings, own_login, source)
    return settings, used


def resolve_expected(
    settings: Settings,
    gateway: Gateway,
    pull: PullInfo,
    log: Log,
    on_this_pr: Sequence[BotKey],
    recorded: Sequence[BotKey] | None = None,
) -> list[BotKey]:
    """`auto`: the known bots seen reviewing in the repository's recent comments or on this PR
    (`on_this_pr`: Ingested.reviewing), plus any named. Seen reviewing: a comment by the bot's
    login and account type that its profile reads as a review signal — a finding, a verdict, a
    run state — never a noise comment of the same login (Devin's coding agent, Graphite's merge
    queue log); on this PR an unreadable one counts too (fail closed). None seen: none
    expected — a bot is waited for only once it has reviewed on the repository (or is named),
    so a first run never waits out the timeouts for reviewers that are not installed; the
    sticky says so and how to name them (`auto_note`). Reviewers only:
    a source (code scanning) is read, never expected or waited for.
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
            found |= reviewing_in(gateway.recent_comments())
        if found:
            log.info(
                f"expected-bots auto: seen on this repository recently: {', '.join(sorted(found))}"
            )
        else:
            log.notice(AUTO_FOUND_NONE)
        expected |= found
    return [b for b in reviewer_keys() if b in expected]


AUTO_FOUND_NONE = (
    "No AI reviewer has posted on this repository's recent pull requests, so none was waited "
    "for (`expected-bots: auto`): a reviewer is expected once it has posted here. To wait for "
    "one from the start, name it in `.github/review-coordinator.yml`, e.g. `expected-bots: "
    "codex, copilot` (docs/configure.md)."
)


def auto_found(expected: Sequence[BotKey]) -> str:
    """The sticky's note when `auto` found reviewers: which, and the line that names them."""
    keys = ", ".join(expected)
    return (
        f"`expected-bots: auto` waits for the reviewers seen on this repository: {keys}. To "
        f"wait for them on every PR from its first run, whether or not they have posted yet, "
        f"name them in `.github/review-coordinator.yml`: `expected-bots: {keys}` "
        "(docs/configure.md)."
    )


def auto_note(settings: Settings, expected: Sequence[BotKey]) -> str | None:
    """The sticky's note under `auto`: what it found (or that it found none), and how to name
    them in `expected-bots`."""
    if not settings.auto_expected:
        return None
    named = {*settings.explicit_expected, *settings.require_bots}
    return auto_found(expected) if set(expected) - named else AUTO_FOUND_NONE


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
                    "would be read as that reviewer's review",
                    key=f"reviewers.{key}.logins",
                )
