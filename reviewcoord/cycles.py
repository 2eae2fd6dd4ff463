"""The review-cycle context of a run, at the edge: our sticky and its record, what this head is
to the last reviewed one (compare, force-push, changed files), the lazy reads the judgement may
need (thread state, permissions), the noop proof, and the bounded record line to publish.

Each read happens at most once per head and only when needed: compare (history exists and the
head moved), in convergence mode the reads of reviewcoord/pushes.py (per reviewer with a
finding, the files changed since the last head it reviewed), review threads (GraphQL, one
query), one permission read per commenter whose command is in force, and the edit history of
edited comments (GraphQL, one query per 100; only when one exists).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime

from reviewcoord.actions_io import Log
from reviewcoord.bots import bot_for_author
from reviewcoord.config import Settings
from reviewcoord.edits import (
    edited_bot_comments,
    edited_commands,
    foreign,
    is_edited,
    last_editor_not_author,
    stamp,
)
from reviewcoord.errors import GatewayError
from reviewcoord.github.gateway import CheckRunRef, CommentEdits, Gateway
from reviewcoord.history import History, bound, encode
from reviewcoord.ingest import is_ours
from reviewcoord.judgement import CycleContext, CycleLookups, ForeignEdits, Mode, cycle_for
from reviewcoord.judgement.converge import converging
from reviewcoord.judgement.shift import NOTHING, Push
from reviewcoord.model import BotKey, RawComment
from reviewcoord.pushes import Pushes
from reviewcoord.settle import Reading
from reviewcoord.trusted import ACTIONS_BOT, edited_after, find_record, seal, vouched

__all__ = ["ACTIONS_BOT", "Cycles", "fingerprint"]


def fingerprint(comments: Iterable[RawComment], own_login: str | None, extra: str = "") -> str:
    """What this run read, minus our own sticky: any new, edited or deleted comment (bot or
    human), or a changed configuration (`extra`), changes it."""
    lines = []
    for c in comments:
        if is_ours(c, own_login):
            continue
        stamp = c.updated_at or c.created_at
        digest = hashlib.sha256(c.body.encode("utf-8", "replace")).hexdigest()[:16]
        lines.append(f"{c.endpoint}:{c.id}:{stamp.isoformat() if stamp else ''}:{digest}")
    lines.sort()
    lines.append(extra)
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()[:24]


class Cycles:
    """The review-cycle context of a run: the record from our sticky, and the reads the
    reconciliation needs (docs/cycles.md), each at most once per head and only when
    needed (the module docstring lists them); and whether the record can be trusted at all
    (`check_edits`, `vouched`, `seal`)."""

    def __init__(
        self,
        gateway: Gateway,
        repo: str,
        pr: int,
        settings: Settings,
        comments: Sequence[RawComment],
        own_login: str | None,
        pr_author: str,
        log: Log,
        check_runs: Callable[[str], Sequence[CheckRunRef]] | None = None,
        *,
        edits: dict[tuple[str, str], CommentEdits | None] | None = None,
        rejudge: bool = False,
    ) -> None:
        """`rejudge`: someone allowed to dispatch the workflow asked to judge again (it
        releases a hold)."""
        self.gateway = gateway
        self.rejudge = rejudge
        # Why our sticky's record was discarded on this run, and the heads it named (where a
        # trusted copy may be: evaluation.Evaluation.trusted_copy). None: it was not.
        self.discarded: str | None = None
        self.hints: list[str] = []
        self.restored_at: datetime | None = None
        name = settings.check_name
        self.check_runs = check_runs or (lambda sha: gateway.list_check_runs(sha, name))
        self.repo = repo
        self.pr = pr
        self.settings = settings
        self.own_login = own_login
        self.pr_author = pr_author
        self.log = log
        self.record, self.notice, self.sticky = find_record(
            comments, own_login or ACTIONS_BOT, repo=repo, pr=pr
        )
        if self.notice:
            log.warning(f"review history: {self.notice}; reconciling from scratch")
        elif self.record is not None:
            log.info(
                f"review history: cycle {self.record.cycle}, last reviewed head "
                f"{(self.record.last_head or '?')[:7]}, {len(self.record.findings)} findings, "
                f"{self.record.blocks} block cycles"
            )
        self._contexts: dict[str, CycleContext] = {}
        self._permissions: dict[str, str] = {}
        self._threads: dict[int, str] | None = None
        self.pushes = Pushes(gateway, pr, log)
        self.notes: list[str] = []
        # (node id, updated_at) → its history: shared with the reading, which reads the bots'
        # edited comments first (reviewcoord/evaluation.py `own_texts`).
        self._edits: dict[tuple[str, str], CommentEdits | None] = edits if edits is not None else {}

    def check_edits(self, comments: Sequence[RawComment], *, noop: bool = False) -> ForeignEdits:
        """The comments whose text is not only their author's, from one edit-history read of
        the edited ones (no edited comment: no read): people's command comments (ignored), bots'
        comments (their findings held), and our sticky (edited last by anyone but us: its record
        is discarded and the PR judged again from its comments). A noop reads none: see
        `_recorded_edits`."""
        commands = edited_commands(comments, self.own_login)
        if noop and self.record is not None:
            return self._recorded_edits(commands, self.record)
        bots = edited_bot_comments(comments, self.own_login)
        # Our sticky, whatever its record says (a hidden line edited into garbage or away is
        # an edit too); once per run.
        mine = self.sticky if self.discarded is None else None
        mine = mine if mine is not None and is_edited(mine) else None
        self._read_edits([*commands, *bots, *([mine] if mine else [])])
        if mine is not None:
            why = last_editor_not_author(mine, self._edits.get((mine.node_id, stamp(mine))))
            if why is not None:
                self.discard(f"our sticky comment {why.removeprefix('it ')}")
        known = {k: v for k, v in self._edits.items() if v is not None}
        histories = {node: h for (node, _stamp), h in known.items()}
        return ForeignEdits(commands=foreign(commands, histories), bots=foreign(bots, histories))

    @staticmethod
    def _recorded_edits(commands: Sequence[RawComment], record: History) -> ForeignEdits:
        """A noop's edits, from the record: its fingerprint proved every comment unchanged since
        the run that read their histories, and GitHub's clock vouched for our sticky."""
        held: dict[tuple[str, int], str] = {}
        for key, why in record.held.items():
            endpoint, _, cid = key.partition(":")
            if cid.isdigit():
                held[(endpoint, int(cid))] = why
        ignored: dict[tuple[str, int], str] = {}
        for c in commands:
            reason = record.ignored.get(f"{c.endpoint}:{c.id}:{stamp(c)}")
            if reason is not None:
                ignored[(c.endpoint, c.id)] = reason
        return ForeignEdits(commands=ignored, bots=held)

    def _read_edits(self, edited: Sequence[RawComment]) -> None:
        """One read (100 comments a query) of the histories not read yet. A failure fails the
        run (GatewayError): an unread history can neither trust nor distrust what we read."""
        wanted = [c for c in edited if c.node_id and (c.node_id, stamp(c)) not in self._edits]
        if not wanted:
            return
        read = self.gateway.list_comment_edits([c.node_id for c in wanted])
        got = {h.node_id: h for h in read}
        for c in wanted:
            self._edits[(c.node_id, stamp(c))] = got.get(c.node_id)

    def discard(self, why: str) -> None:
        """The record cannot be trusted: judge this PR again from its comments (or from the
        trusted copy, `restore`), say why, and do not go on this run (`hold`)."""
        self.log.warning(f"review history: {why}; its record is discarded")
        self.hints = list(reversed(self.record.heads)) if self.record is not None else []
        self.discarded = why
        self.record = None
        self.notice = f"{why}: its record was discarded and the PR judged again from its comments"
        self._contexts.clear()

    def restore(self, record: History, run: CheckRunRef) -> None:
        """Judge from the trusted copy of the record (reviewcoord/trusted.py), carried by our
        check run `run`; its revision was published by the time `run` completed (GitHub's
        clock; our sticky's own time is the editor's now, or gone)."""
        why = self.discarded or "our sticky comment is gone (deleted)"
        source = f"our check run {run.id} on {run.head_sha[:7]}"
        self.discarded = why
        self.log.notice(f"review history: restored from {source}")
        self.record = record
        self.restored_at = run.completed_at
        self.notice = f"{why}: its record was discarded and restored from {source}"
        self._contexts.clear()

    def hold(self, comments: Sequence[RawComment]) -> str | None:
        """Why the gate may not go on this run: a record discarded on this run, or a hold kept
        in the record — released only by a maintainer's `workflow_dispatch` (`rejudge`) or by
        a reviewer's review posted after the held verdict (GitHub's clock)."""
        if self.discarded is not None:
            return (
                f"held: {self.discarded}, so this run does not go; a maintainer's "
                "workflow_dispatch or the reviewers' next review judges again"
            )
        held = self.record.hold if self.record is not None else None
        if held is None:
            return None
        since = self._revision_time()
        later = [
            c
            for c in comments
            if since is not None
            and c.created_at is not None
            and c.created_at > since
            and bot_for_author(c.author_login, c.author_type) is not None
        ]
        if self.rejudge or later:
            why = "a workflow_dispatch" if self.rejudge else f"{later[0].author_login}'s review"
            self.log.notice(f"review history: the hold is released by {why}")
            return None
        return held

    def fingerprint(self, comments: Sequence[RawComment], evidence: str = "") -> str:
        """`evidence`: the digest of what the rest of the reading said (its check runs,
        statuses, reactions, a source's list: `Ingested.evidence_digest`)."""
        return fingerprint(comments, self.own_login, self.settings.model_dump_json() + evidence)

    def recorded_expected(self, head_sha: str) -> list[BotKey] | None:
        """The expected bots the record resolved for this head, if it is the recorded one."""
        rec = self.record
        if rec is None or rec.last_head != head_sha or rec.expected is None:
            return None
        if not vouched(self.sticky, self.check_runs(head_sha)):
            return None
        return list(rec.expected)

    def is_noop(self, reading: Reading) -> bool:
        """The head is the last reviewed one, nothing changed since (its comments and what the
        rest of its reading says), and the last run finished publishing (its sticky is not
        marked stale and its check run completed on this head)."""
        from reviewcoord.render import STALE_PREFIX

        rec, sticky = self.record, self.sticky
        head = reading.pull.head_sha
        if rec is None or sticky is None or rec.last_head != head:
            return False
        evidence = reading.ingested.evidence_digest
        if rec.fingerprint != seal(rec, self.fingerprint(reading.comments, evidence)):
            return False
        if STALE_PREFIX in sticky.body:
            self.log.info("the last verdict is marked stale: judging again")
            return False
        newest = max(self.check_runs(head), key=lambda r: r.id, default=None)
        if newest is None or newest.status != "completed":
            self.log.info("the last run left no completed check run on this head: judging again")
            return False
        if edited_after(sticky, newest):
            self.log.info("our sticky comment changed after our last run: judging again")
            return False
        return True

    def _read_threads(self) -> Mapping[int, str]:
        if self._threads is None:
            try:
                threads = self.gateway.list_review_threads(self.pr)
            except GatewayError as exc:
                self.log.warning(f"review thread state not read ({exc}); not reported this run")
                self._threads = {}
                return self._threads
            self._threads = {
                t.root_comment_id: "resolved" if t.is_resolved else "outdated"
                for t in threads
                if t.root_comment_id is not None and (t.is_resolved or t.is_outdated)
            }
        return self._threads

    def skip_threads(self) -> None:
        self._threads = {}

    def _permission(self, login: str) -> str:
        if login not in self._permissions:
            self._permissions[login] = self.gateway.get_permission(login)
        return self._permissions[login]

    def context(
        self,
        head_sha: str,
        comments: Sequence[RawComment],
        evidence: str = "",
        *,
        noop: bool = False,
        reviewers: Collection[BotKey] = (),
    ) -> CycleContext:
        """The cycle context of this head, with the plain data the judge needs: the compare from
        the record's last head (read once per head), and in convergence mode, per reviewer in
        `reviewers` (the bots with a finding reported on this head), the files changed since
        the last head it reviewed (reviewcoord/pushes.py; a noop takes the last decisions)."""
        cached = self._contexts.get(head_sha)
        if cached is None:
            cached = self._contexts[head_sha] = self._new_context(head_sha)
        since: dict[BotKey, frozenset[str] | None] = {}
        if not noop and converging(self.record, self.settings.convergence_after, head_sha):
            since = {bot: self.pushes.since_review(self.record, bot, head_sha) for bot in reviewers}
        return replace(
            cached,
            fingerprint=self.fingerprint(comments, evidence),
            permission_from_record=noop,
            convergence_from_record=noop,
            since_review=since,
            hold=self.hold(comments),
        )

    def _new_context(self, head_sha: str) -> CycleContext:
        rec = self.record
        mode: Mode = "initial" if rec is None and self.notice is None else "full"
        previous: str | None = None
        force_push = False
        latest = Push.unknown()
        if rec is not None:
            same = rec.last_head == head_sha
            mode = "same_head" if same else "incremental"
            if same:
                previous = rec.heads[-2] if len(rec.heads) >= 2 else None
                latest = NOTHING
            else:
                previous = rec.last_head
                assert previous is not None
                latest = self.pushes.compare(previous, head_sha)
                if latest.files is None:
                    force_push = True
                    mode = "full"
                    self.log.warning(
                        f"the last reviewed head {previous[:7]} is not reachable from "
                        f"{head_sha[:7]} (force-push?): reconciling in full mode"
                    )
        return CycleContext(
            record=rec,
            notice=self.notice,
            cycle=cycle_for(rec, head_sha, self.settings.cycle),
            mode=mode,
            previous_head=previous,
            force_push=force_push,
            pr_author=self.pr_author,
            own_login=self.own_login,
            convergence_after=self.settings.convergence_after,
            fingerprint="",
            lookups=CycleLookups(threads=self._read_threads, permission=self._permission),
            revision_time=self._revision_time(),
            latest=latest,
        )

    def _revision_time(self) -> datetime | None:
        """When the record's revision was published: our sticky's `updated_at`, unless a failed
        run marked it stale since (that edit moved the time; the revision is unchanged): then
        unknown, and a new command binds to the record's own revision."""
        from reviewcoord.render import STALE_PREFIX

        sticky = self.sticky
        if self.discarded is not None:
            return self.restored_at if self.record is not None else None
        if self.record is None or sticky is None or STALE_PREFIX in sticky.body:
            return None
        return sticky.updated_at

    def history_block(self, history: History) -> str:
        bounded, dropped = bound(history)
        if dropped:
            note = f"review history: {dropped} oldest entries dropped to stay within its bound"
            self.log.info(note)
            self.notes.append(note)
        sealed = seal(bounded, bounded.fingerprint)
        return encode(bounded.model_copy(update={"fingerprint": sealed}))
