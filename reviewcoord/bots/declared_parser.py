"""How a declared reviewer's comments are read (docs/interface.md §7 `reviewers:`): the parser a
declaration's profile gets (`DeclaredParser`, built by reviewcoord/bots/declared.py).

Every pattern — the phrases and `severity.pattern` alike — is searched only in the bot's own
words: never inside what it quotes (fenced blocks, code spans, block quotes) or restates for an
agent (`<details>` folds whose summary names a prompt): that text is the PR's content, which its
author controls (cubic repeats each finding in a fenced prompt; code spans name files).

* a top-level inline comment is one finding: its label is group 1 of `severity.pattern`'s first
  match, else none (`medium`); its title is the first line after that label when the body opens
  with it, else the body's first line; of the phrases only `withdrawn` is looked for in it;
* any other comment (review body, PR comment, thread reply) is read for its phrases and its
  pattern: `failed` > `working` > `reviewed` > `finishing` when several match; each
  `severity.pattern` match is one finding, kept whatever the phrase says; nothing matched →
  noise; a `finishing` match without findings is a tracker's done line (`tracker_done`); with
  `repeats-inline: true` a review body restates the inline findings and is read for its phrases
  only (counted once, inline);
* a comment matching a `withdrawn` phrase (the bot edited it: "No longer relevant as of …") is no
  finding and says so — its findings are kept aside, out of the gate only if every edit of it is
  the bot's own (reviewcoord/edits.py `settle_withdrawals`);
* findings make the bot `reviewed` only when it declares no `reviewed` phrase; with one, only a
  comment matching it is the finished review of its commit;
* every pattern runs with `re.MULTILINE` on at most `MAX_TEXT` characters, under one time bound
  per comment (`MATCH_SECONDS`); out of time, the reviewer is `unreadable` on that comment's head
  (a parse note) and the comment is never a review.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

from reviewcoord.bots.bounded_regex import MAX_TEXT, OutOfTime, within
from reviewcoord.bots.common import (
    clean_body,
    clip,
    first_line,
    location,
    make_finding,
    noise,
    own_prose,
    plain_text,
    stated_path_line,
)
from reviewcoord.bots.notices import unread
from reviewcoord.model import BotKey, CommentKind, Finding, ParsedComment, RawComment


class _Severity(Protocol):
    @property
    def pattern(self) -> str: ...


class Declaration(Protocol):
    """What the parser reads of a declaration (`declared.DeclaredReviewer`)."""

    @property
    def severity(self) -> _Severity | None: ...
    @property
    def reviewed(self) -> Sequence[str]: ...
    @property
    def working(self) -> Sequence[str]: ...
    @property
    def failed(self) -> Sequence[str]: ...
    @property
    def finishing(self) -> Sequence[str]: ...
    @property
    def withdrawn(self) -> Sequence[str]: ...
    @property
    def repeats_inline(self) -> bool: ...


FLAGS = re.MULTILINE  # `^` and `$` are line anchors in a comment body
MATCH_SECONDS = 0.1  # all of one reviewer's patterns on one comment
LABEL_MAX = 100
DETAIL_MAX = 160


@lru_cache(maxsize=512)
def compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, FLAGS)


def _first(patterns: Iterable[str], text: str) -> re.Match[str] | None:
    for pattern in patterns:
        match = compiled(pattern).search(text)
        if match:
            return match
    return None


@dataclass(frozen=True)
class _Matches:
    """Everything one comment's own words matched, found under one time bound."""

    failed: re.Match[str] | None = None
    working: re.Match[str] | None = None
    reviewed: re.Match[str] | None = None
    finishing: re.Match[str] | None = None
    withdrawn: re.Match[str] | None = None
    labels: tuple[re.Match[str], ...] = ()


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
    declared: Declaration

    def __call__(self, comment: RawComment) -> ParsedComment:
        body = clean_body(comment.body[:MAX_TEXT])
        if not body.strip():
            return noise("empty comment of a declared reviewer")
        inline = comment.endpoint == "review_comment" and comment.in_reply_to_id is None
        labelled = not (self.declared.repeats_inline and comment.endpoint == "review")
        matches = within(MATCH_SECONDS, lambda: self._match(body, inline=inline, labelled=labelled))
        if isinstance(matches, OutOfTime):
            ms = f"{matches.seconds * 1000:.0f} ms"
            return unread(
                self.key, comment, f"the declared patterns took longer than {ms} on this comment"
            )
        read = self._inline if inline else self._other
        parsed = read(comment, body, matches)
        if matches.withdrawn is None:
            return parsed
        return ParsedComment(
            kind="noise",
            reason="declared reviewer: withdrawn phrase",
            withdrawn=_line_of(body, matches.withdrawn),
            withdrawn_findings=parsed.findings,
        )

    def _match(self, text: str, *, inline: bool, labelled: bool) -> _Matches:
        """An inline comment needs only its first label (and a withdrawal); other comments every
        label and the phrases. All in the bot's own words (module docstring)."""
        d = self.declared
        words = own_prose(text)
        label_re = compiled(d.severity.pattern) if d.severity is not None and labelled else None
        withdrawn = _first(d.withdrawn, words)
        if inline:
            first = label_re.search(words) if label_re is not None else None
            return _Matches(withdrawn=withdrawn, labels=(first,) if first else ())
        return _Matches(
            failed=_first(d.failed, words),
            working=_first(d.working, words),
            reviewed=_first(d.reviewed, words),
            finishing=_first(d.finishing, words),
            withdrawn=withdrawn,
            labels=tuple(label_re.finditer(words)) if label_re is not None else (),
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
