"""Declared reviewers (docs/interface.md §7 `reviewers:`): a bot no built-in profile knows,
judged by the logins and regexes a repository declares for it in its config file.

The one place for the concept: the declaration as the config may write it (`DeclaredReviewer`,
strict), the checks that need the other reviewers (`parse_reviewers`: key and login claims),
and the `BotProfile` built from a declaration (`profile`), whose parser reads its comments
(reviewcoord/bots/declared_parser.py says how).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    Field,
    StrictStr,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_validator,
)

from reviewcoord.bots.bounded_regex import problem
from reviewcoord.bots.checks import Check, CheckView, Said, from_checks, kinds_of
from reviewcoord.bots.common import clip
from reviewcoord.bots.declared_parser import DETAIL_MAX, FLAGS, DeclaredParser
from reviewcoord.bots.profile import Account, BotProfile, ReviewerPack, graphql_spelling
from reviewcoord.bots.registry import Registry
from reviewcoord.errors import validation_message
from reviewcoord.model import BotKey, Frozen, Level

KEY_SYNTAX = re.compile(r"[a-z0-9][a-z0-9-]{0,39}")
# `auto` means "the bots seen" in `expected-bots` (a built-in key is refused as already taken).
RESERVED_KEYS = frozenset({"auto"})
LOGIN_SYNTAX = r"^[A-Za-z0-9][A-Za-z0-9-]{0,38}(\[bot\])?$"
# Display names go into Markdown unescaped, like the built-in ones: plain words only.
NAME_SYNTAX = r"^[A-Za-z0-9][A-Za-z0-9 .-]{0,39}$"
# A declared trigger comment (`@kilo review`): one short line, no HTML, never our own command.
TRIGGER_SYNTAX = r"^[^\r\n<>]{1,100}$"
MAX_REVIEWERS = 20
MAX_PHRASES = 20
MAX_PATTERN_CHARS = 500


def _usable(pattern: str) -> str:
    why = problem(pattern, FLAGS)
    if why:
        raise ValueError(why)
    return pattern


def _key(key: str) -> str:
    if not KEY_SYNTAX.fullmatch(key):
        raise ValueError(
            "a reviewer key is lowercase letters, digits and '-' (at most 40, not starting "
            "with '-')"
        )
    if key in RESERVED_KEYS:
        raise ValueError(f"{key!r} is reserved; choose another key")
    return key


Regex = Annotated[
    StrictStr, Field(min_length=1, max_length=MAX_PATTERN_CHARS), AfterValidator(_usable)
]
Phrases = Annotated[tuple[Regex, ...], Field(max_length=MAX_PHRASES)]
ReviewerKey = Annotated[StrictStr, AfterValidator(_key)]


def canonical_label(raw: str) -> str:
    """A declared label, and the raw label a comment carries, compared: case and outer spaces
    ignored (`Critical`, ` critical ` and `CRITICAL` are one label)."""
    return raw.strip().casefold()


class DeclaredSeverity(Frozen):
    pattern: Regex  # group 1 is the raw label
    levels: dict[StrictStr, Level] = Field(default_factory=dict, max_length=50)

    @field_validator("pattern")
    @classmethod
    def _has_label_group(cls, pattern: str) -> str:
        if re.compile(pattern, FLAGS).groups < 1:
            raise ValueError("needs a group 1 that captures the raw label, like '^(Critical):'")
        return pattern

    @field_validator("levels")
    @classmethod
    def _distinct_labels(cls, levels: dict[str, Level]) -> dict[str, Level]:
        seen: dict[str, str] = {}
        for label in levels:
            same = seen.setdefault(canonical_label(label), label)
            if same != label:
                raise ValueError(f"{same!r} and {label!r} are one label (case is ignored)")
        return levels


def _not_ours(trigger: str) -> str:
    if trigger.strip().casefold().startswith("/review-coordinator"):
        raise ValueError("must not be a review-coordinator command")
    return trigger


# A check run's name or a status's context, and an app slug (a status: its creator's login).
CHECK_NAME_SYNTAX = r"^[^\r\n<>`]{1,100}$"
APP_SYNTAX = r"^[a-z0-9][a-z0-9-]{0,38}$"
CheckState = Literal["reviewed", "finishing", "failed", "skipped"]
DEFAULT_CONCLUSIONS: dict[str, CheckState] = {
    "success": "reviewed",
    "neutral": "reviewed",
    "failure": "failed",
    "error": "failed",  # a commit status's
    "cancelled": "failed",
    "timed_out": "failed",
    "action_required": "failed",
    "skipped": "skipped",
}


class DeclaredCheck(Frozen):
    """Its own check run (or, `status: true`, commit status) on the head: queued or in
    progress is `working`; a conclusion maps to a state (`conclusions`, default
    DEFAULT_CONCLUSIONS); one not listed says nothing (its comments decide)."""

    name: Annotated[StrictStr, Field(pattern=CHECK_NAME_SYNTAX)]
    app: Annotated[StrictStr, Field(pattern=APP_SYNTAX)]
    status: bool = False
    conclusions: dict[StrictStr, CheckState] = Field(
        default_factory=lambda: dict(DEFAULT_CONCLUSIONS), max_length=20
    )


def _check_meaning(declared: DeclaredCheck) -> Callable[[CheckView], Said | None]:
    what = "commit status" if declared.status else "check run"

    def meaning(view: CheckView) -> Said | None:
        state = declared.conclusions.get(view.conclusion)
        if state is None:
            return None
        title = f": {clip(view.title, DETAIL_MAX)}" if view.title else ""
        detail = f"its {what} `{declared.name}` ended {view.conclusion}{title}"
        return Said(state, detail, view.url, view.when)

    return meaning


def _check(declared: DeclaredCheck) -> Check:
    return Check(declared.name, declared.app, _check_meaning(declared), status=declared.status)


class DeclaredReviewer(Frozen):
    """One entry of the config's `reviewers:` (interface §7)."""

    name: Annotated[StrictStr, Field(pattern=NAME_SYNTAX)] | None = None  # default: the key
    logins: tuple[Annotated[StrictStr, Field(pattern=LOGIN_SYNTAX)], ...] = Field(
        min_length=1, max_length=10
    )
    severity: DeclaredSeverity | None = None
    reviewed: Phrases = ()
    working: Phrases = ()
    failed: Phrases = ()
    # A tracker's done line ("Review completed") whose review follows in another comment: the
    # reviewer is *finishing* (waited for up to `finishing-grace`), not yet reviewed.
    finishing: Phrases = ()
    # Its words when it withdraws a finding by editing its comment ("No longer relevant as of"):
    # the comment's findings are out of the gate if every edit of it is its own.
    withdrawn: Phrases = ()
    # Its review bodies restate its inline findings (a summary with a prompt fold): read them for
    # their phrases only, so each finding counts once, inline.
    repeats_inline: bool = Field(False, alias="repeats-inline", strict=True)
    pack: ReviewerPack = "fast"  # a declared reviewer is waited for
    # The account it posts from: an App (`type: Bot`, login `name[bot]`), or a user account
    # (`type: User`) that must be declared as such — it is then shown as a user account.
    type: Literal["bot", "user"] = "bot"

    @model_validator(mode="after")
    def _user_logins_are_no_apps(self) -> DeclaredReviewer:
        app = next((login for login in self.logins if login.endswith("[bot]")), None)
        if self.type == "user" and app is not None:
            raise ValueError(
                f"login {app!r} is an App's ('[bot]'); a `type: user` reviewer's logins are "
                "user accounts"
            )
        return self

    # Its own check run or commit status on the head, read as its run state (checks.py).
    check: DeclaredCheck | None = None
    # The comment that asks it for a review (`rerequest: true`); none: it is never asked.
    trigger: (
        Annotated[StrictStr, Field(pattern=TRIGGER_SYNTAX), AfterValidator(_not_ours)] | None
    ) = None


_REVIEWERS: TypeAdapter[dict[str, DeclaredReviewer]] = TypeAdapter(
    Annotated[dict[ReviewerKey, DeclaredReviewer], Field(max_length=MAX_REVIEWERS)]
)


class DeclarationError(ValueError):
    """A declaration the config may not hold: `key` is its dotted path (`reviewers.kilo…`)."""

    def __init__(self, key: str, problem: str) -> None:
        super().__init__(f"{key}: {problem}")
        self.key = key
        self.problem = problem


def _allowed_keys(loc: Sequence[str]) -> str:
    model = DeclaredSeverity if len(loc) == 3 and loc[1] == "severity" else DeclaredReviewer
    return ", ".join(field.alias or name for name, field in model.model_fields.items())


def _describe(error: Mapping[str, Any]) -> DeclarationError:
    """pydantic's first complaint as the key it is about and what is allowed there."""
    loc = [str(part) for part in error.get("loc", ()) if part != "[key]"]
    key = ".".join(["reviewers", *loc])
    kind = error.get("type")
    message = validation_message(error, _allowed_keys(loc))
    if kind == "tuple_type":
        message = "must be a list"
    elif kind == "too_short":
        message = "must not be empty"
    elif kind == "too_long":
        message = f"at most {error.get('ctx', {}).get('max_length')} entries"
    elif kind == "dict_type" or kind == "model_type":
        message = "must be a mapping"
    elif kind == "string_pattern_mismatch" and loc[-1:] == ["name"]:
        message = "letters, digits, spaces, '.' and '-' only (at most 40)"
    elif kind == "string_pattern_mismatch":
        message = "not a GitHub login (letters, digits, '-', and '[bot]' for an App)"
    elif kind == "string_type":
        message = "must be a string"
    got = error.get("input")
    named = kind == "extra_forbidden" or "[key]" in error.get("loc", ())
    if isinstance(got, str | int | float | bool) and not named:
        message += f" (got {str(got)[:60]!r})"
    return DeclarationError(key, message)


def rest_login(login: str, account: Account) -> str:
    """The login REST returns for a declared one: an App's always ends in `[bot]` (a declared
    `kilo-code-bot` of `type: bot` is `kilo-code-bot[bot]`); a user's is as declared."""
    if account == "bot" and not login.endswith("[bot]"):
        return f"{login}[bot]"
    return login


def _spellings(login: str) -> tuple[str, ...]:
    """A login as declared and, for an App, its GraphQL spelling (without `[bot]`)."""
    return tuple(dict.fromkeys((login, graphql_spelling(login))))


def _claim_problem(
    reviewers: Mapping[str, DeclaredReviewer], registry: Registry
) -> DeclarationError | None:
    """A key that is already a bot's, or a login another reviewer owns. Profiles already in
    `registry` that equal the declared ones are these same declarations in scope: no clash."""
    owners: dict[str, str] = {}
    for key, declared in reviewers.items():
        registered = registry.get(key)
        if registered is not None and registered != profile(key, declared):
            return DeclarationError(
                f"reviewers.{key}", f"{key!r} is already the key of {registered.display}"
            )
        for login in declared.logins:
            for spelling in _spellings(login):
                owner = registry.owner_of_name(spelling)
                owner = owner if owner not in (None, key) else owners.get(spelling.casefold())
                if owner is not None:
                    name = registry.display(owner)
                    shown = owner if name == owner else f"{name} ({owner})"
                    return DeclarationError(
                        f"reviewers.{key}.logins", f"login {login!r} already belongs to {shown}"
                    )
                owners[spelling.casefold()] = key
    return None


def parse_reviewers(raw: object, registry: Registry) -> dict[BotKey, DeclaredReviewer]:
    """The config's `reviewers:` value, validated; raises `DeclarationError` naming the key."""
    try:
        reviewers = _REVIEWERS.validate_python(raw)
    except ValidationError as exc:
        raise _describe(exc.errors()[0]) from None
    clash = _claim_problem(reviewers, registry)
    if clash is not None:
        raise clash
    return reviewers


def logins(declared: DeclaredReviewer) -> frozenset[str]:
    """The REST logins of a declaration (the registry derives the GraphQL spellings)."""
    return frozenset(rest_login(login, declared.type) for login in declared.logins)


def profile(key: BotKey, declared: DeclaredReviewer) -> BotProfile:
    severity = declared.severity
    levels = severity.levels if severity is not None else {}
    name = declared.name or key
    return BotProfile(
        key=key,
        # A reviewer that posts from a person's account is shown as one wherever it is named.
        display=f"{name} (user account)" if declared.type == "user" else name,
        logins=logins(declared),
        parse=DeclaredParser(key, declared),
        severity={canonical_label(label): level for label, level in levels.items()},
        canonical_label=canonical_label,
        pack=declared.pack,
        account=declared.type,
        rerequest=f"re-request with `{declared.trigger}`" if declared.trigger else "",
        trigger=declared.trigger or "",
        **_check_fields(declared.check),
    )


def _check_fields(declared: DeclaredCheck | None) -> dict[str, Any]:
    """The profile's `reads` and `evidence` for a declared check (none: comments only)."""
    if declared is None:
        return {}
    check = _check(declared)
    return {"reads": kinds_of(check), "evidence": from_checks(check)}


def profiles(reviewers: Mapping[BotKey, DeclaredReviewer]) -> tuple[BotProfile, ...]:
    return tuple(profile(key, declared) for key, declared in reviewers.items())
