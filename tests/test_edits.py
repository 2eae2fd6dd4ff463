"""Whose text is this (reviewcoord/edits.py, github/comment_edits.py): identity is login and
type; an edit by anyone but the author is foreign; an unreadable history fails closed."""

from __future__ import annotations

from datetime import UTC, datetime

from reviewcoord.edits import (
    edited_bot_comments,
    edited_commands,
    foreign,
    last_editor_not_author,
    not_the_authors,
    same_actor,
)
from reviewcoord.github.gateway import Actor, CommentEdits
from reviewcoord.model import RawComment

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
T1 = datetime(2026, 1, 5, 9, 5, tzinfo=UTC)


def comment(login: str, kind: str = "User", body: str = "x", edited: bool = True) -> RawComment:
    return RawComment(
        endpoint="issue_comment",
        id=7,
        author_login=login,
        author_type=kind,
        body=body,
        created_at=T0,
        updated_at=T1 if edited else T0,
        node_id="IC_7",
    )


def test_identity_is_login_and_type() -> None:
    bot = comment("claude[bot]", "Bot")
    assert same_actor(bot, Actor(login="claude", type="Bot"))
    # Attack: a user account named like the bot is a person, not the bot.
    assert not same_actor(bot, Actor(login="claude", type="User"))
    assert not same_actor(comment("claude"), Actor(login="claude", type="Bot"))
    assert same_actor(comment("Mona"), Actor(login="mona", type="User"))
    assert same_actor(comment("Copilot", "Bot"), Actor(login="Copilot", type="Bot"))
    assert not same_actor(comment("mona"), None)  # a deleted account is nobody


def test_an_edit_by_anyone_but_the_author_is_foreign() -> None:
    c = comment("mona", body="/review-coordinator accept F1 wontfix: x")
    own = CommentEdits(
        node_id="IC_7",
        editor=Actor(login="mona", type="User"),
        editors=(Actor(login="mona", type="User"), Actor(login="mona", type="User")),
    )
    assert not_the_authors(c, own) is None  # control
    other = own.model_copy(update={"editors": (Actor(login="octocat", type="User"), *own.editors)})
    assert "edited by @octocat" in (not_the_authors(c, other) or "")
    assert "could not be read" in (not_the_authors(c, None) or "")
    assert "too long" in (not_the_authors(c, own.model_copy(update={"complete": False})) or "")
    assert foreign([c], {"IC_7": other}) == {("issue_comment", 7): not_the_authors(c, other)}
    assert foreign([c], {"IC_7": own}) == {}


def test_our_sticky_is_judged_by_its_last_editor() -> None:
    ours = comment("github-actions[bot]", "Bot")
    us = CommentEdits(node_id="IC_7", editor=Actor(login="github-actions", type="Bot"))
    assert last_editor_not_author(ours, us) is None
    them = us.model_copy(update={"editor": Actor(login="octocat", type="User")})
    assert "edited by @octocat" in (last_editor_not_author(ours, them) or "")


def test_only_edited_comments_are_asked_about() -> None:
    cmd = "/review-coordinator accept F1 wontfix: x"
    comments = [
        comment("mona", body=cmd),
        comment("mona", body=cmd, edited=False),  # never edited: no read
        comment("mona", body="just a remark"),  # edited, but no command
        comment("claude[bot]", "Bot"),
        comment("github-actions[bot]", "Bot"),  # ours: checked as the sticky, not here
    ]
    assert [c.body for c in edited_commands(comments, "github-actions[bot]")] == [cmd]
    bots = edited_bot_comments(comments, "github-actions[bot]")
    assert [c.author_login for c in bots] == ["claude[bot]"]
