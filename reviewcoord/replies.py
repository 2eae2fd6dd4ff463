"""Human replies to findings and `/review-coordinator` commands, read from PR comments. Pure.

Replies (docs/cycles.md § The lifecycle of a finding) come from people only (author type
`User`, not a bot, not us), through two channels: a reply in the finding's review thread
(`in_reply_to_id` = the bot's comment), or any PR comment naming the finding's `F` id as the
last sticky showed it. Quoted lines (`> …`) are ignored. The text is classified by keywords,
first match in this order:

    wontfix    "won't fix", "wont fix", "wontfix", "will not fix", "not going to fix"
    deferred   "follow-up", "followup", "later", "separate PR", "next PR", "TODO", "defer"
    rebutted   "false positive", "not a bug", "not an issue", "intended", "intentional",
               "by design", "incorrect", "this is wrong", "invalid"
    fixed      "fixed", "fixed in", "done", "addressed", "resolved"

A reply with none of them is "unclear" and changes nothing. A reply never removes a finding:
wontfix / deferred / rebutted move it to "Awaiting decision" (still counted, still blocking);
fixed is shown as the author's claim until a bot re-reviews the file.

Commands: a line `/review-coordinator accept F<n> <kind> [#<issue>]: <reason>` in an issue
comment or a review comment written by a person; kinds `follow-up` (needs `#<issue>`),
`wontfix`, `by-design`. Review bodies and bot text are never read for commands. Whether the
commenter may accept (write permission or above, not the PR author) is decided by the caller.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from reviewcoord.bots import bot_for_author
from reviewcoord.model import AcceptKind, RawComment, ReplyKind

_RULES: tuple[tuple[ReplyKind, re.Pattern[str]], ...] = (
    (
        "wontfix",
        re.compile(r"\b(won['’]?t\s+fix|wontfix|will\s+not\s+fix|not\s+going\s+to\s+fix)\b", re.I),
    ),
    (
        "deferred",
        re.compile(
            r"\b(follow[- ]?up|later|separate\s+pr|next\s+pr|todo|defer(?:red|ring)?)\b", re.I
        ),
    ),
    (
        "rebutted",
        re.compile(
            r"\b(false\s+positive|not\s+a\s+bug|not\s+an\s+issue|intended|intentional|"
            r"by\s+design|incorrect|this\s+is\s+wrong|invalid)\b",
            re.I,
        ),
    ),
    ("fixed", re.compile(r"\b(fixed|done|addressed|resolved)\b", re.I)),
)

F_REF = re.compile(r"(?<![\w/#-])F(\d{1,5})\b")
COMMAND_LINE = re.compile(r"^[ \t]*/review-coordinator\b(.*)$", re.I | re.M)
_ACCEPT = re.compile(
    r"^\s+accept\s+F(\d{1,5})\s+(follow-up|wontfix|by-design)(?:\s+#(\d{1,9}))?\s*:\s*(\S.*)$",
    re.I,
)
REASON_CHARS = 300


def _unquoted(body: str) -> str:
    return "\n".join(line for line in body.splitlines() if not line.lstrip().startswith(">"))


def classify(text: str) -> ReplyKind | None:
    """The reply class of `text` (quoted lines ignored), None when it states no disposition."""
    plain = _unquoted(text)
    for kind, pattern in _RULES:
        if pattern.search(plain):
            return kind
    return None


def is_human(comment: RawComment, own_login: str | None) -> bool:
    """A person's comment: a user account that is neither us nor a reviewer declared as a
    user account (`type: user`), whose comments are its reviews, not a person's commands."""
    return (
        comment.author_type == "User"
        and not comment.author_login.endswith("[bot]")
        and comment.author_login != own_login
        and bot_for_author(comment.author_login, comment.author_type) is None
    )


@dataclass(frozen=True)
class Reply:
    comment: RawComment
    kind: ReplyKind
    reason: str
    thread_root: int | None  # the review comment this replies to (thread channel)
    fids: tuple[str, ...]  # F ids named in the text (standalone channel)


@dataclass(frozen=True)
class Command:
    comment: RawComment
    fid: str | None  # "F3"; None when the command could not be parsed
    kind: AcceptKind | None
    issue: int | None
    reason: str
    error: str | None  # why it is ignored, for the visible note


def parse_commands(comments: Iterable[RawComment], own_login: str | None) -> list[Command]:
    """Every command line in people's issue and review comments (oldest comment first)."""
    out: list[Command] = []
    for c in sorted(comments, key=lambda c: (c.created_at is None, c.created_at, c.id)):
        if c.endpoint not in ("issue_comment", "review_comment") or not is_human(c, own_login):
            continue
        for match in COMMAND_LINE.finditer(c.body):
            rest = match.group(1).rstrip()
            m = _ACCEPT.match(rest)
            if m is None:
                out.append(
                    Command(
                        c,
                        None,
                        None,
                        None,
                        "",
                        "not understood; the form is `/review-coordinator accept F<n> "
                        "follow-up #<issue>|wontfix|by-design: <reason>`",
                    )
                )
                continue
            kind_text = m.group(2).lower()
            kind: AcceptKind = (
                "follow-up"
                if kind_text == "follow-up"
                else "wontfix"
                if kind_text == "wontfix"
                else "by-design"
            )
            issue = int(m.group(3)) if m.group(3) else None
            error = None
            if kind == "follow-up" and issue is None:
                error = "a follow-up needs the issue number (`follow-up #123: …`)"
            out.append(
                Command(c, f"F{int(m.group(1))}", kind, issue, m.group(4)[:REASON_CHARS], error)
            )
    return out


def harvest_replies(comments: Iterable[RawComment], own_login: str | None) -> list[Reply]:
    """People's replies that state a disposition, oldest first. Command comments are not
    replies."""
    out: list[Reply] = []
    for c in sorted(comments, key=lambda c: (c.created_at is None, c.created_at, c.id)):
        if not is_human(c, own_login) or COMMAND_LINE.search(c.body):
            continue
        kind = classify(c.body)
        if kind is None:
            continue
        root = c.in_reply_to_id if c.endpoint == "review_comment" else None
        fids = tuple(dict.fromkeys(f"F{int(n)}" for n in F_REF.findall(_unquoted(c.body))))
        if root is None and not fids:
            continue  # names no finding: not ledger material
        reason = " ".join(_unquoted(c.body).split())[:REASON_CHARS]
        out.append(Reply(c, kind, reason, root, fids))
    return out
