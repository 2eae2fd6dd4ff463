"""The reads that bind a reading's signals to its head (reviewcoord/binding.py), at the edge:
when the head became this PR's head (its check suites, the PR's timeline, our check runs:
reviewcoord/arrival.py), the heads our record judged, and the edit histories of the reviewers'
edited comments (reviewcoord/edits.py `own_text`). Each is read at most once per head (or per
comment and edit); the timeline only when a signal names no commit; the edit histories, for a
run that may be a noop, as our vouched record remembers them. The judge never reads: it gets
what these return as plain data (`Known`, `OwnTexts`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from reviewcoord.arrival import Arrival, head_arrival
from reviewcoord.binding import Known
from reviewcoord.bots import bot_for_author, parse_comment
from reviewcoord.edits import acts_on_threads, is_edited, own_texts, recorded_own_texts, stamp
from reviewcoord.github.gateway import (
    CheckRunRef,
    CheckSuiteRef,
    CommentEdits,
    Gateway,
    PullInfo,
)
from reviewcoord.history import History
from reviewcoord.ingest import OwnTexts
from reviewcoord.model import RawComment
from reviewcoord.publish.check_run import CheckRunCache, pr_key
from reviewcoord.trusted import ACTIONS_BOT, find_record, recorded_time, vouched


class HeadReads:
    """One run's binding reads and their caches (`times`: each head's arrival, as recorded)."""

    def __init__(
        self,
        gateway: Gateway,
        repo: str,
        check_runs: CheckRunCache,
        login: Callable[[], str | None],
    ) -> None:
        self.gateway, self.repo, self.check_runs, self.login = gateway, repo, check_runs, login
        self.times: dict[str, datetime | None] = {}
        # Per head: what the reading knows beyond its comments, and whether the PR's timeline
        # was read for it; the edit histories read, by (node id, edit time), shared with the
        # record's checks (`Cycles`); the head's check suites.
        self.knowns: dict[str, tuple[Known, bool]] = {}
        self.edits: dict[tuple[str, str], CommentEdits | None] = {}
        self.suites: dict[str, list[CheckSuiteRef]] = {}

    def known(self, pull: PullInfo, comments: Sequence[RawComment], *, clock: bool) -> Known:
        """What the reading knows of the head beyond its comments: when it arrived here
        (reviewcoord/arrival.py; our record keeps it for the head it reviewed, when our sticky
        is vouched for, and then its older heads too) and this PR's other heads. The PR's
        timeline is read only when a signal names no commit (`clock`): a run whose comments
        name their commits never reads it."""
        head = pull.head_sha
        cached = self.knowns.get(head)
        if cached is not None and (cached[1] or not clock):
            return cached[0]
        recorded = recorded_time(
            self.repo, pull.number, self.login(), head, comments, self.check_runs.on
        )
        if recorded is not None:
            # Read on an earlier run of ours on this head (the timeline too, if it was needed
            # then); its older heads are in the record.
            found = Arrival(recorded)
        else:
            timeline = self.gateway.list_timeline(pull.number) if clock else None
            if head not in self.suites:
                self.suites[head] = self.gateway.list_check_suites(head)
            found = head_arrival(pull, self.suites[head], self.our_runs(pull), timeline)
        heads = self.recorded_heads(pull, comments) - {head}
        known = Known(
            arrival=found.time,
            older_head=found.older_head or bool(heads),
            commits=found.commits | heads,
        )
        self.times[head] = found.time
        self.knowns[head] = (known, clock)
        return known

    def recorded_heads(self, pull: PullInfo, comments: Sequence[RawComment]) -> frozenset[str]:
        """The heads our record says we judged on this PR. Not vouched for: they only ever
        add caution (an older head, a commit a stated prefix may name)."""
        issue = [c for c in comments if c.endpoint == "issue_comment"]
        login = self.login() or ACTIONS_BOT
        record, _notice, _sticky = find_record(issue, login, repo=self.repo, pr=pull.number)
        return frozenset(record.heads) if record is not None else frozenset()

    def our_runs(self, pull: PullInfo) -> list[CheckRunRef]:
        """Our own check runs on the head made for this PR: named ours, by the App of our
        identity, with this PR's `external_id` (one made judging another PR is not this PR's)."""
        slug = (self.login() or ACTIONS_BOT).removesuffix("[bot]")
        key = pr_key(self.repo, pull.number)
        runs = self.check_runs.on(pull.head_sha)
        return [r for r in runs if r.app_slug == slug and r.external_id == key]

    def own_texts(
        self, pull: PullInfo, comments: Sequence[RawComment], *, maybe_noop: bool = False
    ) -> tuple[OwnTexts, bool]:
        """The own-text facts of the bots' edited comments, from their edit histories (read
        once per comment and edit, shared with the record's checks: `Cycles`); with
        `maybe_noop`, from our record when it vouches for this head (no read: a noop proves
        nothing changed since). → the facts, and whether they came from the record."""
        edited = [
            c
            for c in comments
            if c.endpoint != "review"  # REST gives a review body no edit time
            and is_edited(c)
            and c.author_login != self.login()
            and bot_for_author(c.author_login, c.author_type) is not None  # any reviewer
        ]
        # Review bodies the gate takes thread marks or a withdrawal from: always read (REST
        # cannot say whether one was edited); no such review, no read.
        marking = [c for c in comments if self.marks_threads(c)]
        # The record holds the bots' foreign-edited comments (a user-account reviewer's: read).
        if maybe_noop and edited and not marking and all(c.author_type == "Bot" for c in edited):
            record = self.vouched_record(pull, comments)
            if record is not None:
                return recorded_own_texts(edited, record.held), True
        edited += marking
        wanted = [c for c in edited if c.node_id and (c.node_id, stamp(c)) not in self.edits]
        if wanted:
            got = {
                h.node_id: h for h in self.gateway.list_comment_edits([c.node_id for c in wanted])
            }
            for c in wanted:
                self.edits[(c.node_id, stamp(c))] = got.get(c.node_id)
        histories = {
            c.node_id: h for c in edited if (h := self.edits.get((c.node_id, stamp(c)))) is not None
        }
        return own_texts(edited, histories), False

    def marks_threads(self, c: RawComment) -> bool:
        """Is `c` a reviewer's review whose body the gate takes thread marks or a withdrawal
        from (Copilot's overview v2)?"""
        if c.endpoint != "review" or not c.node_id or c.author_login == self.login():
            return False
        bot = bot_for_author(c.author_login, c.author_type)
        return bot is not None and acts_on_threads(parse_comment(bot, c))

    def vouched_record(self, pull: PullInfo, comments: Sequence[RawComment]) -> History | None:
        """Our record, if it is about this head and GitHub's clock vouches that nobody touched
        our sticky since our last run on it finished (reviewcoord/cycles.py `vouched`)."""
        issue = [c for c in comments if c.endpoint == "issue_comment"]
        login = self.login() or ACTIONS_BOT
        record, _notice, sticky = find_record(issue, login, repo=self.repo, pr=pull.number)
        if record is None or record.last_head != pull.head_sha:
            return None
        return record if vouched(sticky, self.check_runs.on(pull.head_sha)) else None
