"""Declared reviewers (docs/interface.md §7 `reviewers:`): a bot no built-in profile knows,
judged by the logins and regexes a repository declares for it in its config file.

The one place for the concept: the declaration as the config may write it (`DeclaredReviewer`,
strict), the checks that need the other reviewers (`parse_reviewers`: key and login claims),
and the `BotProfile` built from a declaration (`profile`), whose parser reads comments thus:

* a top-level inline comment is one finding: its label is group 1 of `severity.pattern`'s
  first match, else none (`medium`); its title is the first line after that label when the
  body opens with it, else the body's first line; no phrase is looked for in it;
* any other comment (review body, PR comment, thread reply) is read for its phrases and its
  pattern: `failed` > `working` > `reviewed` > `finishing` when several match; each
  `severity.pattern` match is one finding, kept whatever the phrase says (so a `failed` or
  `in_progress` comment may carry findings: never drop a blocker); nothing matched → noise;
  a `finishing` match without findings is a tracker's done line (`tracker_done`);
* findings make the bot `reviewed` only when it declares no `reviewed` phrase; with one, only
  a comment matching it is the finished review of its commit;
* every pattern runs with `re.MULTILINE` on at most `MAX_TEXT` characters, under one time
  bound per comment (`MATCH_SECONDS`); out of time, the comment is a visible `medium` finding
  with a parse note and never a review.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
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

from reviewcoord.bots.bounded_regex import MAX_TEXT, OutOfTime, problem, within
from reviewcoord.bots.checks import Check, CheckView, Said, from_checks, kinds_of
from reviewcoord.bots.common import (
    clean_body,
    clip,
    first_line,
    location,
    make_finding,
    noise,
    own_words,
    plain_text,
    stated_path_line,
)
from reviewcoord.bots.notices import unread
from reviewcoord.bots.profile import Account, BotProfile, ReviewerPack, graphql_spelling
from reviewcoord.bots.registry import Registry
from reviewcoord.errors import validation_message
from reviewcoord.model import BotKey, CommentKind, Finding, Frozen, Level, ParsedComment, RawComment

FLAGS = re.MULTILINE  # `^` and `$` are line anchors in a comment body
MATCH_SECONDS = 0.1  # all of one reviewer's patterns on one comment
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
LABEL_MAX = 100
DETAIL_MAX = 160


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
    return ", ".join(model.model_fields)


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


@lru_cache(maxsize=512)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, FLAGS)


def _first(patterns: Iterable[str], text: str) -> re.Match[str] | None:
    for pattern in patterns:
        match = _compiled(pattern).search(text)
        if match:
            return match
    return None


@dataclass(frozen=True)
class _Matches:
    """Everything one comment's text matched, found under one time bound."""

    failed: re.Match[str] | None
    working: re.Match[str] | None
    reviewed: re.Match[str] | None
    finishing: re.Match[str] | None
    labels: tuple[re.Match[str], ...]


def _line_of(text: str, match: re.Match[str]) -> str:
    """The whole line a phrase matched on, as plain text for a state's detail."""
    start = text.rfind("\n", 0, match.start()) + 1
    end = text.find("\n", match.end())
    return clip(plain_text(text[start : end if end >= 0 else len(text)]), DETAIL_MAX)


def _label(match: re.Match[str] | None) -> str | None:
    raw = match.group(1) if match is not None else None
    return clip(raw, LABEL_MAX) if raw and raw.strip() else None


def _parsed(
    kind: CommentKind,
    findings: Sequence[Finding],
    reason: str,
    *,
    finished: bool = True,
    detail: str = "",
) -> ParsedComment:
    return ParsedComment(
        kind=kind,
        findings=tuple(findings),
        reason=f"declared reviewer: {reason}",
        detail=detail,
        review_signal=finished,
    )


@dataclass(frozen=True)
class DeclaredParser:
    """A declared reviewer's `BotProfile.parse`. A value, not a closure: two profiles built from
    one declaration are equal, so entering the same declarations twice is harmless."""

    key: BotKey
    declared: DeclaredReviewer

    def __call__(self, comment: RawComment) -> ParsedComment:
        body = clean_body(comment.body[:MAX_TEXT])
        if not body.strip():
            return noise("empty comment of a declared reviewer")
        inline = comment.endpoint == "review_comment" and comment.in_reply_to_id is None
        matches = within(MATCH_SECONDS, lambda: self._match(body, inline=inline))
        if isinstance(matches, OutOfTime):
            ms = f"{matches.seconds * 1000:.0f} ms"
            return unread(
                self.key, comment, f"the declared patterns took longer than {ms} on this comment"
            )
        if inline:
            return self._inline(comment, body, matches)
        return self._other(comment, body, matches)

    def _match(self, text: str, *, inline: bool) -> _Matches:
        """An inline comment needs only its first label; other comments every label and the
        phrases."""
        d = self.declared
        label_re = _compiled(d.severity.pattern) if d.severity is not None else None
        if inline:
            first = label_re.search(text) if label_re is not None else None
            return _Matches(None, None, None, None, (first,) if first else ())
        # Phrases are the bot's own statements: never read inside what it quotes (code, code
        # spans, block quotes). Labels are read everywhere: a finding is kept, never dropped.
        words = own_words(text)
        return _Matches(
            failed=_first(d.failed, words),
            working=_first(d.working, words),
            reviewed=_first(d.reviewed, words),
            finishing=_first(d.finishing, words),
            labels=tuple(label_re.finditer(text)) if label_re is not None else (),
        )

    def _finding(
        self, comment: RawComment, body: str, span: tuple[int, int], label: re.Match[str] | None
    ) -> Finding:
        """The finding `body[span]`: titled from its first line, or from what follows its label
        when it opens with it. Off a diff line, its place may be a `path:line` it names."""
        start, end = span
        text = body[start:end]
        opens = label is not None and not body[start : label.start()].strip()
        title = first_line(body[label.end() : end]) if label is not None and opens else ""
        path, line = stated_path_line(text) if comment.path is None else (None, None)
        file, first, last = location(comment, path, line)
        return make_finding(
            self.key,
            comment,
            title=title or first_line(text),
            severity_raw=_label(label),
            file=file,
            line=first,
            line_end=last,
        )

    @property
    def _findings_finish(self) -> bool:
        """Whether findings alone are a finished review: only for a reviewer without `reviewed`
        phrases (with them, only a comment matching one is)."""
        return not self.declared.reviewed

    def _inline(self, comment: RawComment, body: str, matches: _Matches) -> ParsedComment:
        label = matches.labels[0] if matches.labels else None
        finding = self._finding(comment, body, (0, len(body)), label)
        return _parsed("finding", [finding], "inline finding", finished=self._findings_finish)

    def _other(self, comment: RawComment, body: str, matches: _Matches) -> ParsedComment:
        starts = [m.start() for m in matches.labels]
        ends = [*starts[1:], len(body)] if starts else []  # a finding runs to the next label
        findings = [
            self._finding(comment, body, (start, end), m)
            for m, start, end in zip(matches.labels, starts, ends, strict=True)
        ]
        if matches.failed is not None:
            detail = _line_of(body, matches.failed)
            return _parsed("failed", findings, "failed phrase", detail=detail)
        if matches.working is not None:
            detail = _line_of(body, matches.working)
            return _parsed("in_progress", findings, "working phrase", detail=detail)
        if matches.reviewed is not None:
            kind: CommentKind = "finding" if findings else "reviewed"
            return _parsed(kind, findings, "reviewed phrase")
        if matches.finishing is not None and not findings:
            done = _parsed(
                "reviewed", (), "finishing phrase", detail=_line_of(body, matches.finishing)
            )
            return done.model_copy(update={"tracker_done": True})
        if findings:
            return _parsed("finding", findings, "pattern findings", finished=self._findings_finish)
        return noise("declared reviewer comment without a finding or a phrase")


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
