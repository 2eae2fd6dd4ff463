"""Settings: defaults < config file (base branch) < inputs set in the workflow or on the CLI.

Keys are the input names of docs/interface.md §3 with hyphens (`fast-timeout`), plus `group-window`,
`severity`, `fast-pack`, `slow-pack`, `code-scanning`, `reviewers` (§7). Every error names where
the value came from (the file or the input), the key, and what is allowed — never a silent default.

Declared reviewers (`reviewers:`, reviewcoord/bots/declared.py) are validated first; the other
keys are then read with them registered, so `require-bots: kilo` or `severity: {kilo: …}` work,
and every run with the settings judges inside `declared_scope(settings)`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from reviewcoord import config_text
from reviewcoord.bots import (
    REGISTRY,
    Registry,
    bot_keys,
    code_scanning,
    resolve_bot_name,
    reviewer_keys,
)
from reviewcoord.bots.declared import DeclarationError, DeclaredReviewer, parse_reviewers, profiles
from reviewcoord.errors import ConfigError, closest, validation_message
from reviewcoord.model import BotKey, Level, SettleMode

DEFAULT_CONFIG_PATH = ".github/review-coordinator.yml"
CODE_SCANNING: BotKey = code_scanning.KEY
# Keys that describe one run, not a repository's policy: never read from the file.
RUN_ONLY_KEYS = frozenset(
    {"github-token", "pr", "repo", "config", "cycle", "wait", "sweep-budget", "sweep-workflow"}
)
MAX_CONFIG_BYTES = 64 * 1024
# The deepest real config is `reviewers: {key: {severity: {levels: {…}}}}`: 4 levels.
MAX_CONFIG_DEPTH = 16
_OPENERS = (
    yaml.BlockMappingStartToken,
    yaml.BlockSequenceStartToken,
    yaml.FlowMappingStartToken,
    yaml.FlowSequenceStartToken,
)
_CLOSERS = (yaml.BlockEndToken, yaml.FlowMappingEndToken, yaml.FlowSequenceEndToken)


class _UniqueKeyLoader(yaml.SafeLoader):
    """SafeLoader that refuses a key given twice in one mapping (PyYAML keeps the last one
    silently, so `settle: full` could be overridden further down without anyone noticing)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[str] = set()
        for key_node, _value in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                if key_node.value in seen:
                    raise yaml.constructor.ConstructorError(
                        None,
                        None,
                        f"key {key_node.value[:60]!r} appears twice "
                        f"(line {key_node.start_mark.line + 1})",
                        key_node.start_mark,
                    )
                seen.add(key_node.value)
        return super().construct_mapping(node, deep=deep)


OutputFormat = Literal["both", "json", "comment"]


def _split(value: Any) -> Any:
    if isinstance(value, str):
        return [part.strip() for part in value.replace("\n", ",").split(",") if part.strip()]
    return value


def _reviewer(bot: BotKey, item: str) -> BotKey:
    """A bot settle may wait for; a source (code scanning) is switched on by its own key."""
    if bot in reviewer_keys():
        return bot
    raise ValueError(
        f"{item!r} is not a reviewer to wait for; set `{bot}: true` to judge its findings"
    )


def unknown_bot(name: str, keys: Sequence[str]) -> str:
    """`unknown bot 'codx' (did you mean 'codex'?)`: the key a misspelt name is closest to."""
    # Keys are short: a looser match than 0.8 takes `gremlin` for `gemini`.
    close = closest(name, keys, cutoff=0.8)
    return f"unknown bot {name!r}" + (f" (did you mean '{close}'?)" if close else "")


def _bot_list(value: Any, *, allow_auto: bool) -> list[str]:
    items = _split(value)
    if not isinstance(items, list):
        raise ValueError("must be a list of bot names or a comma-separated string")
    out: list[str] = []
    for item in items:
        if not isinstance(item, str):
            raise ValueError(f"bot names must be strings, got {item!r}")
        if allow_auto and item.strip().casefold() == "auto":
            out.append("auto")
            continue
        bot = resolve_bot_name(item)
        if bot is None:
            allowed = reviewer_keys()
            raise ValueError(
                f"{unknown_bot(item, allowed)}; allowed: {', '.join(allowed)} (or their logins)"
            )
        bot = _reviewer(bot, item)
        if bot not in out:
            out.append(bot)
    return out


class Settings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    settle: SettleMode = "fast"
    fast_timeout: int = Field(180, alias="fast-timeout", ge=0, le=6 * 3600)
    full_timeout: int = Field(480, alias="full-timeout", ge=0, le=6 * 3600)
    poll_interval: int = Field(15, alias="poll-interval", ge=1, le=600)
    # A tracker that says Completed: its review may land seconds later (interface §3).
    finishing_grace: int = Field(60, alias="finishing-grace", ge=0, le=3600)
    # The two reads before a `go` (interface §3): publish only if they agree.
    confirm_delay: int = Field(5, alias="confirm-delay", ge=0, le=600)
    expected_bots: list[str] = Field(default_factory=lambda: ["auto"], alias="expected-bots")
    # Bots that must have *reviewed* the head before the gate may be `go` (interface §3).
    require_bots: list[BotKey] = Field(default_factory=list, alias="require-bots")
    merge_patience: bool = Field(True, alias="merge-patience")
    format: OutputFormat = "both"
    check_name: str = Field("review-coordinator", alias="check-name", min_length=1, max_length=100)
    status_context: str = Field(
        "review-coordinator", alias="status-context", min_length=1, max_length=100
    )
    dry_run: bool = Field(False, alias="dry-run")
    fail_on_block: bool = Field(False, alias="fail-on-block")
    # Ask an expected bot once per head for a review it has not given (reviewcoord/rerequest.py).
    rerequest: bool = False
    group_window: int = Field(5, alias="group-window", ge=0, le=1000)
    severity: dict[str, dict[str, Level]] = Field(default_factory=dict)
    # Defaults from the profiles (`BotProfile.pack`): every fast bot, every slow bot.
    fast_pack: list[BotKey] = Field(
        default_factory=lambda: sorted(REGISTRY.pack("fast")), alias="fast-pack"
    )
    slow_pack: list[BotKey] = Field(
        default_factory=lambda: sorted(REGISTRY.pack("slow")), alias="slow-pack"
    )
    # Judge the PR's open code-scanning alerts; they must then be read for a `go` (§7).
    code_scanning: bool = Field(False, alias="code-scanning")
    cycle: int | None = Field(None, ge=1, le=10_000)
    # Review cycles: changes-requested cycles (block with a critical finding open) after which
    # convergence mode starts (0: never).
    convergence_after: int = Field(2, alias="convergence-after", ge=0, le=1000)
    # Reviewers the repository declares (§7), already validated by `_validate`.
    reviewers: dict[BotKey, DeclaredReviewer] = Field(default_factory=dict)

    @field_validator("expected_bots", mode="before")
    @classmethod
    def _expected(cls, value: Any) -> list[str]:
        bots = _bot_list(value, allow_auto=True)
        return bots or ["auto"]

    @field_validator("fast_pack", "slow_pack", "require_bots", mode="before")
    @classmethod
    def _packs(cls, value: Any) -> list[str]:
        return _bot_list(value, allow_auto=False)

    @field_validator(
        "fast_timeout", "full_timeout", "poll_interval", "group_window", "cycle", mode="before"
    )
    @classmethod
    def _whole_number(cls, value: Any) -> Any:
        # pydantic would read YAML `true` as 1: a number of seconds is never a yes/no.
        if isinstance(value, bool):
            raise ValueError("must be a whole number, not true/false")
        return value

    @field_validator(
        "merge_patience", "dry_run", "fail_on_block", "code_scanning", "rerequest", mode="before"
    )
    @classmethod
    def _bool(cls, value: Any) -> Any:
        # Action inputs are strings; accept GitHub's spellings, nothing vague.
        if isinstance(value, str):
            lowered = value.strip().casefold()
            if lowered in ("true", "yes", "1", "on"):
                return True
            if lowered in ("false", "no", "0", "off"):
                return False
            raise ValueError("must be true or false")
        return value

    @field_validator("severity", mode="before")
    @classmethod
    def _severity(cls, value: Any) -> Any:
        if not isinstance(value, dict):
            raise ValueError("must be a mapping {bot: {raw label: critical|medium|low}}")
        out: dict[str, Any] = {}
        for bot_name, labels in value.items():
            bot = resolve_bot_name(str(bot_name))
            if bot is None:
                allowed = ", ".join(bot_keys())
                raise ValueError(f"{unknown_bot(str(bot_name), bot_keys())}; allowed: {allowed}")
            if not isinstance(labels, dict):
                raise ValueError(f"{bot_name}: must map raw labels to critical|medium|low")
            out[bot] = {str(k): v for k, v in labels.items()}
        return out

    @property
    def auto_expected(self) -> bool:
        return "auto" in self.expected_bots

    @property
    def explicit_expected(self) -> list[BotKey]:
        return [b for b in bot_keys() if b in self.expected_bots]

    @property
    def required(self) -> list[BotKey]:
        """What must have reviewed the head for a `go`: the `require-bots`, and the
        code-scanning source when `code-scanning` is on (its alerts read completely)."""
        return [*self.require_bots, *([CODE_SCANNING] if self.code_scanning else [])]


def allowed_keys(*, in_file: bool) -> list[str]:
    """The keys a config may set: every setting by its documented (hyphenated) name; in the
    file, not the per-run ones (`cycle`)."""
    keys = sorted(f.alias or n for n, f in Settings.model_fields.items())
    return [k for k in keys if not (in_file and k in RUN_ONLY_KEYS)]


def _describe(error: dict[str, Any], *, in_file: bool) -> tuple[str, str]:
    loc = [str(part) for part in error.get("loc", ())]
    key = loc[0] if loc else "(top level)"
    field = Settings.model_fields.get(key)
    if field is not None and field.alias:
        key = field.alias
    if len(loc) > 1:
        key = ".".join([key, *loc[1:]])
    return key, validation_message(error, ", ".join(allowed_keys(in_file=in_file)))


def _refuse_field_names(data: Mapping[str, Any], source: str, *, in_file: bool) -> None:
    """`expected_bots` is not `expected-bots`: pydantic would take a field's Python name too
    (the model is built by name in code), so a key is checked against the documented names."""
    for key in data:
        field = Settings.model_fields.get(str(key))
        if field is not None and field.alias and field.alias != key:
            allowed = ", ".join(allowed_keys(in_file=in_file))
            raise ConfigError(
                f"{source}: key '{key}': unknown key (did you mean '{field.alias}'?); "
                f"allowed keys: {allowed}",
                key=str(key),
            )


def declared_reviewers(raw: Any, source: str) -> dict[BotKey, DeclaredReviewer]:
    """The `reviewers:` of a config, validated against the registered bots."""
    try:
        return parse_reviewers(raw, REGISTRY)
    except DeclarationError as exc:
        raise ConfigError(f"{source}: key '{exc.key}': {exc.problem}", key=exc.key) from None


def declared_scope(settings: Settings | None) -> AbstractContextManager[Registry]:
    """The registry with the reviewers these settings declare: what every run that uses them
    (judging, publishing, rendering) runs inside."""
    return REGISTRY.extended(profiles(settings.reviewers) if settings is not None else ())


def _validate(
    data: Mapping[str, Any],
    source: str,
    reviewers: Mapping[BotKey, DeclaredReviewer] | None = None,
    *,
    in_file: bool = False,
) -> Settings:
    """`data` as Settings; `reviewers` (default: `data`'s own, validated first) are registered
    while the rest is read. `in_file`: `data` is a config file's (its errors list file keys)."""
    _refuse_field_names(data, source, in_file=in_file)
    if reviewers is None:
        reviewers = declared_reviewers(data.get("reviewers", {}), source)
    try:
        with REGISTRY.extended(profiles(reviewers)):
            return Settings.model_validate({**data, "reviewers": dict(reviewers)})
    except ValidationError as exc:
        first = exc.errors()[0]
        key, message = _describe(dict(first), in_file=in_file)
        got = first.get("input")
        shown = "" if isinstance(got, dict | list) or got is None else f" (got {str(got)[:60]!r})"
        raise ConfigError(f"{source}: key '{key}': {message}{shown}", key=key) from None


def _yaml_problem(exc: yaml.YAMLError) -> str:
    """One line: what is wrong and where ("found unhashable key (line 3)")."""
    if isinstance(exc, yaml.MarkedYAMLError) and exc.problem:
        mark = exc.problem_mark or exc.context_mark
        where = f" (line {mark.line + 1})" if mark is not None else ""
        return f"{exc.problem.strip()}{where}" if where not in exc.problem else exc.problem
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def parse_config_file(
    content: str | bytes, source: str = DEFAULT_CONFIG_PATH, raw: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The YAML file → a mapping of settings keys. Rejects run-only keys and YAML bombs; an
    error about a key names its line. `raw` receives the mapping before it is validated (a
    failure report takes the check's name from it)."""
    if len(content) > MAX_CONFIG_BYTES * (4 if isinstance(content, bytes) else 1):
        raise ConfigError(f"{source}: file is larger than {MAX_CONFIG_BYTES} bytes")
    text = config_text.decode(content, source)
    if len(text.encode("utf-8", "replace")) > MAX_CONFIG_BYTES:
        raise ConfigError(f"{source}: file is larger than {MAX_CONFIG_BYTES} bytes")
    try:
        return _parse(text, source, raw)
    except ConfigError as exc:
        raise config_text.located(exc, text) from None


def _parse(text: str, source: str, raw: dict[str, Any] | None) -> dict[str, Any]:
    try:
        # Aliases would let a tiny file expand into a huge one ("billion laughs"); a config
        # file never needs them. Deep nesting is refused while scanning too: PyYAML's scanner
        # is quadratic in the flow depth (60 KB of `[` took 48 s) and its composer recursive.
        depth = 0
        for token in yaml.scan(text, Loader=yaml.SafeLoader):
            if isinstance(token, yaml.AliasToken | yaml.AnchorToken):
                raise ConfigError(f"{source}: YAML anchors and aliases are not allowed")
            if isinstance(token, _OPENERS):
                depth += 1
                if depth > MAX_CONFIG_DEPTH:
                    raise ConfigError(
                        f"{source}: nested deeper than {MAX_CONFIG_DEPTH} levels "
                        f"(line {token.start_mark.line + 1})"
                    )
            elif isinstance(token, _CLOSERS):
                depth -= 1
        data = yaml.load(text, Loader=_UniqueKeyLoader)  # a SafeLoader subclass
    except yaml.YAMLError as exc:
        raise ConfigError(f"{source}: not valid YAML: {_yaml_problem(exc)}") from None
    except (ValueError, RecursionError) as exc:  # e.g. an integer of more than 4,300 digits
        raise ConfigError(f"{source}: not valid YAML: {str(exc)[:120]}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: must be a mapping of settings, got {type(data).__name__}")
    for key in data:
        if str(key) in RUN_ONLY_KEYS:
            raise ConfigError(
                f"{source}: key '{key}': set per run (workflow input or CLI flag), "
                "not in the config file",
                key=str(key),
            )
    if raw is not None:
        raw.update({str(k): v for k, v in data.items()})
    # Validate the file on its own so its errors name the file.
    _validate(data, source, in_file=True)
    return {str(k): v for k, v in data.items()}


def build_settings(
    file_values: Mapping[str, Any],
    inputs: Mapping[str, Any],
    *,
    file_source: str,
    input_source: str,
) -> Settings:
    """Layer the file under the inputs; an input set to '' counts as not set. The inputs may
    name the reviewers the file declares (`require-bots: kilo`)."""
    merged: dict[str, Any] = dict(file_values)
    explicit = {k: v for k, v in inputs.items() if v is not None and v != ""}
    reviewers = declared_reviewers(file_values.get("reviewers", {}), file_source)
    _validate(explicit, input_source, reviewers)
    merged.update(explicit)
    return _validate(merged, f"{file_source} + {input_source}", reviewers)
