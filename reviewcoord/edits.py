"""Whose text is this? REST names a comment's author, never who edited it, and anyone with write
access can edit any comment. So a comment whose `updated_at` differs from its `created_at` is read
with its edit history (reviewcoord/github/comment_edits.py), and its text counts as its author's
only when every editor is its author. Pure.

Identity is login and type: GraphQL spells a Bot's login without `[bot]`, so the suffix is added
back only for a Bot actor, and only matches a Bot author (a user `claude` is not `claude[bot]`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from reviewcoord.bots import display_name
from reviewcoord.github.gateway import Actor, CommentEdits
from reviewcoord.model import Finding, ParsedComment, ParseNote, RawComment
from reviewcoord.replies import COMMAND_LINE, is_human


def acts_on_threads(parsed: ParsedComment) -> bool:
    """Does the gate take thread marks or a withdrawal from this parsed comment? Then it counts
    only if nobody but its bot edited it (a review body's history is read for it)."""
    return bool(parsed.marks) or parsed.withdraws is not None


def is_edited(c: RawComment) -> bool:
    return c.updated_at is not None and c.created_at is not None and c.updated_at != c.created_at


def stamp(c: RawComment) -> str:
    return c.updated_at.isoformat() if c.updated_at else ""


def same_actor(c: RawComment, actor: Actor | None) -> bool:
    """Is `actor` (GraphQL) the author of `c` (REST)?"""
    if actor is None:
        return False
    if actor.type == "Bot":
        # `Copilot` is a Bot whose REST login has no suffix either: both are Bot accounts.
        names = {f"{actor.login}[bot]".casefold(), actor.login.casefold()}
        return c.author_type == "Bot" and c.author_login.casefold() in names
    return c.author_type != "Bot" and c.author_login.casefold() == actor.login.casefold()


def _names(actors: Iterable[Actor | None]) -> str:
    shown = dict.fromkeys(f"@{a.login}" if a else "a deleted account" for a in actors)
    return ", ".join(list(shown)[:3])


def not_the_authors(c: RawComment, history: CommentEdits | None) -> str | None:
    """Why this edited comment's text is not only its author's; None when it is."""
    if history is None:
        return "its edit history could not be read"
    others = [a for a in (history.editor, *history.editors) if not same_actor(c, a)]
    if others:
        return f"it was edited by {_names(others)}, not only by its author"
    if not history.complete:
        return "its edit history is too long to read in full"
    return None


def last_editor_not_author(c: RawComment, history: CommentEdits | None) -> str | None:
    """For our own sticky, which we edit every run: who edited it last, if not us."""
    if history is None:
        return "its edit history could not be read"
    if history.editor is not None and not same_actor(c, history.editor):
        return f"it was edited by {_names([history.editor])}"
    return None


def edited_commands(comments: Iterable[RawComment], own_login: str | None) -> list[RawComment]:
    """People's command comments that were edited: the ones whose history must be read."""
    return [
        c
        for c in comments
        if c.endpoint in ("issue_comment", "review_comment")
        and is_edited(c)
        and is_human(c, own_login)
        and COMMAND_LINE.search(c.body)
    ]


def edited_bot_comments(comments: Iterable[RawComment], own_login: str | None) -> list[RawComment]:
    """Bots' edited PR and inline comments (never ours): edited by anyone but the bot, their
    findings are held (reviewcoord/judgement/identity.hold_levels)."""
    return [
        c
        for c in comments
        if c.endpoint in ("issue_comment", "review_comment")
        and c.author_type == "Bot"
        and c.author_login != own_login
        and is_edited(c)
    ]


def foreign(
    comments: Iterable[RawComment], histories: Mapping[str, CommentEdits] | None
) -> dict[tuple[str, int], str]:
    """(endpoint, id) → why the comment's text is not only its author's."""
    out: dict[tuple[str, int], str] = {}
    for c in comments:
        why = not_the_authors(c, histories.get(c.node_id) if histories is not None else None)
        if why is not None:
            out[(c.endpoint, c.id)] = why
    return out


@dataclass(frozen=True)
class OwnText:
    """What a bot comment's own author last said, as far as a signal's time goes: an edit by
    anyone else never makes a signal newer (docs/security.md § Binding)."""

    # Why its text is not only its author's (someone else edited it, or its history could not
    # be read in full); None: nobody but its author ever touched it.
    foreign: str | None
    # When its author last wrote it (its own last edit, else its creation), GitHub's clock.
    at: datetime | None
    # Its author edited it since creating it, and nobody else did: a comment kept in place.
    in_place: bool = False


def own_text(c: RawComment, history: CommentEdits | None) -> OwnText:
    """`c`'s own-text facts, from its edit history (needed only when it was edited; for a
    review body, whose edits REST never shows, whenever it is read)."""
    if c.endpoint == "review":
        return _review_own_text(c, history)
    if not is_edited(c):
        return OwnText(None, c.updated_at or c.created_at)
    why = not_the_authors(c, history)
    if why is None:
        return OwnText(None, c.updated_at, in_place=True)
    return OwnText(why, _last_own_edit(c, history))


def _review_own_text(c: RawComment, history: CommentEdits | None) -> OwnText:
    """A review body's facts: REST gives it no edit time, so only its history says whether
    anyone edited it. Its time stays its submission (it binds by its `commit_id` anyway)."""
    if history is not None and history.last_edited_at is None and not history.editors:
        return OwnText(None, c.created_at)  # never edited
    return OwnText(not_the_authors(c, history), c.created_at)


def _last_own_edit(c: RawComment, history: CommentEdits | None) -> datetime | None:
    """When `c`'s author last edited it (newest first in the history), else its creation."""
    if history is not None:
        for actor, at in zip(history.editors, history.edited_at, strict=False):
            if at and same_actor(c, actor):
                try:
                    return datetime.fromisoformat(at)
                except ValueError:
                    break
    return c.created_at


def own_texts(
    comments: Iterable[RawComment], histories: Mapping[str, CommentEdits]
) -> dict[tuple[str, int], OwnText]:
    """(endpoint, id) → `own_text` of each edited bot comment whose history was read or asked
    for (`histories` by node id; a missing one is unreadable)."""
    return {(c.endpoint, c.id): own_text(c, histories.get(c.node_id)) for c in comments}


def recorded_own_texts(
    comments: Iterable[RawComment], held: Mapping[str, str]
) -> dict[tuple[str, int], OwnText]:
    """`own_texts` as our record remembers them, for a run that may be a noop (its fingerprint
    then proves no comment changed since the run that read their histories): the comments the
    record holds (`endpoint:id` → why) were edited by someone else; the others only by their
    authors. The time of a held comment's own last edit is not kept: its creation stands in."""
    out: dict[tuple[str, int], OwnText] = {}
    for c in comments:
        why = held.get(f"{c.endpoint}:{c.id}")
        own = OwnText(why, c.created_at) if why else OwnText(None, c.updated_at, in_place=True)
        out[(c.endpoint, c.id)] = own
    return out


WITHDRAWN_WORDS_MAX = 80


@dataclass(frozen=True)
class Withdrawals:
    """What the bots' withdrawals by edit come to: the findings that stay (their comment was
    edited by someone else), a note per withdrawal honoured, and the withdrawn findings' stable
    ids with why (a recorded one is likely fixed, never carried forward)."""

    kept: list[Finding] = field(default_factory=list)
    notes: list[ParseNote] = field(default_factory=list)
    ids: dict[str, str] = field(default_factory=dict)


def settle_withdrawals(
    withdrawn: Sequence[tuple[Finding, str]], foreign_bots: Mapping[tuple[str, int], str]
) -> Withdrawals:
    """A bot's withdrawal by editing its own comment ("No longer relevant as of <sha>") holds
    only if every edit of that comment is the bot's: a comment someone else edited (or whose
    history could not be read — `foreign`) keeps its findings, which the judge then holds at
    their first level."""
    out = Withdrawals()
    for finding, words in withdrawn:
        if (finding.endpoint, finding.comment_id) in foreign_bots:
            out.kept.append(finding)
            continue
        said = words[:WITHDRAWN_WORDS_MAX]
        why = f"withdrawn by {display_name(finding.bot)} in its own edit ({said})"
        out.notes.append(
            ParseNote(bot=finding.bot, url=finding.url, note=f"finding {why}: {finding.title}")
        )
        out.ids[finding.stable_id] = why
    return out
