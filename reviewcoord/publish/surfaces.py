"""The three surfaces a verdict is written to, behind one small interface, in one order.

Each `Publisher` can open its pending state on a head (`open`), publish a verdict (`publish`),
report that no trustworthy verdict could be made (`fail`), and close what it opened on a head
that is no longer the PR's (`close`). Every write goes through one `WriteGuard`: a read-only
token (a fork PR) turns writes into one logged warning, a token that may not write check runs
skips only those. `Surfaces` runs the publishers: publishing in the specified order (sticky,
then — only if the PR's head is still the judged one — status and check run), failing each
surface on its own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal, Protocol

from reviewcoord import render
from reviewcoord.actions_io import Log
from reviewcoord.config import Settings
from reviewcoord.errors import GatewayError, WriteForbidden
from reviewcoord.github.gateway import CheckOutput, Gateway, StatusState
from reviewcoord.model import BotKey, RawComment, Verdict
from reviewcoord.publish.check_run import (
    CheckRunCache,
    finish_check,
    pr_key,
    start_check_ref,
)
from reviewcoord.publish.commit_status import set_status
from reviewcoord.publish.sticky import mark_stale, publish_sticky
from reviewcoord.trusted import record_text

FORK_HELP = (
    "the token cannot write to this repository (a fork PR gets a read-only GITHUB_TOKEN): "
    "the verdict is in the job summary and the step outputs; see docs/troubleshooting.md § Fork "
    "pull requests"
)


class WriteGuard:
    """Every write to GitHub goes through `write`."""

    def __init__(self, log: Log) -> None:
        self.log = log
        self.read_only = False
        self.checks_unavailable = False

    def may_write(self, *, check: bool = False) -> bool:
        return not (self.read_only or (check and self.checks_unavailable))

    def write(self, what: str, action: Callable[[], object], *, check: bool = False) -> bool:
        if not self.may_write(check=check):
            return False
        try:
            action()
            return True
        except WriteForbidden:
            self.read_only = True
            self.log.warning(f"could not {what}: {FORK_HELP}")
            return False
        except GatewayError as exc:
            # Only GitHub Apps (GITHUB_TOKEN included) may write check runs; a personal token
            # gets 403 "You must authenticate via a GitHub App". The status still gates.
            if check and exc.status == 403:
                self.checks_unavailable = True
                self.log.warning(
                    f"could not {what}: this token cannot write check runs (only GitHub App "
                    "tokens can); the commit status carries the gate"
                )
                return False
            raise


@dataclass
class Publication:
    """One verdict on its way out; the sticky fills in its URL for the status."""

    verdict: Verdict
    notes: list[str]  # shown on every surface (settle's notes)
    sticky_notes: list[str] = field(default_factory=list)  # the sticky's own (history)
    history_block: str = ""
    comment_url: str = ""
    config_where: str | None = None  # the invalid config file and line (ConfigUsed.where)

    @property
    def head(self) -> str:
        return self.verdict.head_sha


@dataclass(frozen=True)
class Run:
    """What the publishers share about this run."""

    gateway: Gateway
    settings: Settings
    repo: str
    pr: int
    log: Log
    guard: WriteGuard
    login: Callable[[], str]  # who we write as (learnt during the run)
    issue_comments: Callable[[], Sequence[RawComment]]  # the latest read of them


class Publisher(Protocol):
    # Writes only for the PR's current head: published after the head is checked again.
    bound_to_head: bool
    failure: str  # what reporting a failure on it is called, for the log

    def open(self, sha: str, waiting: Sequence[str]) -> None: ...

    def publish(self, pub: Publication) -> None: ...

    def fail(self, sha: str, problem: str) -> None: ...

    def close(self, old_sha: str, new_sha: str) -> None: ...


class StickyComment:
    bound_to_head = False
    failure = "mark the sticky comment stale"

    def __init__(self, run: Run) -> None:
        self.run = run

    def open(self, sha: str, waiting: Sequence[str]) -> None:
        return None  # the previous verdict stays until this one is ready

    def publish(self, pub: Publication) -> None:
        run = self.run
        if run.settings.format not in ("both", "comment"):
            return
        body = render.sticky_comment(
            pub.verdict,
            extra_notes=[*pub.notes, *pub.sticky_notes],
            history_block=pub.history_block,
        )
        written: list[str] = []
        run.guard.write(
            "write the sticky comment",
            lambda: written.append(
                publish_sticky(
                    run.gateway, run.pr, body, run.issue_comments(), run.login(), run.log
                ).html_url
            ),
        )
        pub.comment_url = written[0] if written else ""

    def fail(self, sha: str, problem: str) -> None:
        run = self.run
        comments = run.issue_comments()
        if not comments:
            try:  # best effort: find our previous sticky to mark it stale
                comments = run.gateway.list_issue_comments(run.pr)
            except GatewayError:
                comments = []
        if comments:
            run.guard.write(
                "mark the sticky comment stale",
                lambda: mark_stale(run.gateway, comments, run.login(), problem, run.log, pr=run.pr),
            )

    def close(self, old_sha: str, new_sha: str) -> None:
        return None


class CommitStatus:
    bound_to_head = True
    failure = "set the error status"

    def __init__(self, run: Run) -> None:
        self.run = run

    def _set(self, sha: str, state: StatusState, text: str, url: str | None = None) -> None:
        run = self.run
        run.guard.write(
            "set the commit status",
            lambda: set_status(run.gateway, sha, state, text, run.settings.status_context, url),
        )

    def open(self, sha: str, waiting: Sequence[str]) -> None:
        self._set(sha, "pending", render.pending_description(list(waiting)))

    def publish(self, pub: Publication) -> None:
        state: StatusState = "success" if pub.verdict.gate == "go" else "failure"
        self._set(
            pub.head,
            state,
            render.status_description(pub.verdict, pub.config_where),
            pub.comment_url or None,
        )

    def waiting(self, pub: Publication) -> None:
        text = render.status_description(pub.verdict).removeprefix("block: ")
        self._set(pub.head, "pending", text, pub.comment_url or None)

    def fail(self, sha: str, problem: str) -> None:
        self._set(sha, "error", render.error_description(problem))

    def close(self, old_sha: str, new_sha: str) -> None:
        # An older head's status must never come after a newer head's: left as it was.
        return None


class CheckRun:
    bound_to_head = True
    failure = "complete the check run"

    def __init__(self, run: Run, cache: CheckRunCache) -> None:
        self.run = run
        self.cache = cache
        self.ids: dict[str, int] = {}  # the check run THIS run created (or adopted) per head
        # `<slug>[bot]` of the App of the check run this run created: who we are, from what we
        # made (GITHUB_TOKEN → github-actions[bot], an App installation → its own bot).
        self.app_login: str | None = None
        self.started: dict[str, datetime | None] = {}  # GitHub's start time of that check run

    def _start(self, sha: str, output: CheckOutput) -> int:
        run = self.run
        ref = start_check_ref(
            run.gateway,
            run.settings.check_name,
            sha,
            output,
            self.cache.on(sha),
            pr_key(run.repo, run.pr),
        )
        self.cache.forget(sha)
        self.ids[sha] = ref.id
        self.started.setdefault(sha, ref.started_at)
        if ref.app_slug:
            self.app_login = f"{ref.app_slug}[bot]"
        return ref.id

    def open(self, sha: str, waiting: Sequence[str]) -> None:
        run = self.run
        text = render.pending_description(list(waiting))
        output = CheckOutput(title="Waiting for the AI reviewers", summary=text)

        run.guard.write("create the check run", lambda: self._start(sha, output), check=True)

    def _finish(self, sha: str, verdict: Verdict | None, summary: CheckOutput) -> None:
        run = self.run
        conclusion: Literal["success", "failure"] = (
            "success" if verdict is not None and verdict.gate == "go" else "failure"
        )
        notes = render.annotations(verdict) if verdict is not None else []

        def complete() -> None:
            check_id = self.ids.get(sha)
            if check_id is None:
                check_id = self._start(sha, summary)
            finish_check(run.gateway, check_id, summary, notes, conclusion)

        run.guard.write("complete the check run", complete, check=True)

    def publish(self, pub: Publication) -> None:
        output = render.check_output(pub.verdict, pub.config_where, extra_notes=pub.notes)
        # The trusted copy of the record: only our App can change this check run.
        text = record_text(pub.history_block)
        self._finish(pub.head, pub.verdict, output.model_copy(update={"text": text}))

    def wait(self, sha: str, output: CheckOutput) -> None:
        """Awaiting a bot (reviewcoord/events.py): the interim judgement, still in_progress."""

        def update() -> None:
            check_id = self.ids.get(sha)
            if check_id is None:
                self._start(sha, output)
            else:
                self.run.gateway.update_check_run(check_id, "in_progress", output)

        self.run.guard.write("update the check run", update, check=True)

    def fail(self, sha: str, problem: str) -> None:
        run = self.run
        report = render.error_report(repo=run.repo, pr=run.pr, head_sha=sha, problem=problem)
        self._finish(sha, None, CheckOutput(title="No trustworthy verdict", summary=report))

    def close(self, old_sha: str, new_sha: str) -> None:
        """The head moved: close the check run we opened on the old head."""
        check_id = self.ids.get(old_sha)
        if check_id is None:
            return
        reason = f"superseded: head moved to {new_sha[:7]}"
        output = CheckOutput(title="Superseded", summary=f"{reason}; judged there instead.")
        self.run.guard.write(
            "close the old head's check run",
            lambda: self.run.gateway.update_check_run(check_id, "completed", output, "cancelled"),
            check=True,
        )


@dataclass
class Surfaces:
    run: Run
    check_run: CheckRun
    publishers: list[Publisher] = field(default_factory=list)

    @classmethod
    def build(cls, run: Run, cache: CheckRunCache) -> Surfaces:
        check = CheckRun(run, cache)
        return cls(run, check, [StickyComment(run), CommitStatus(run), check])

    @property
    def read_only(self) -> bool:
        return self.run.guard.read_only

    def may_write(self) -> bool:
        return self.run.guard.may_write()

    def ask(self, bot: BotKey) -> tuple[bool, str, str]:
        """Ask `bot` to review the PR again (reviewcoord/rerequest.py), through the write guard:
        (whether anything was sent, GitHub's time of it, why it failed). A refused request is
        a warning, never the run's failure: the verdict does not depend on it."""
        from reviewcoord import rerequest

        run, sent = self.run, [""]
        try:
            wrote = run.guard.write(
                f"ask {bot} to review again",
                lambda: sent.__setitem__(0, rerequest.send(run.gateway, run.pr, bot)),
            )
        except GatewayError as exc:
            run.log.warning(f"could not ask {bot} to review again: {exc}")
            return True, "", f"the request failed: {str(exc)[:120]}"
        return wrote, sent[0], ""

    def open(self, sha: str, waiting: Sequence[str]) -> None:
        """The pending state, check run first (it tells who we are), then the status."""
        for publisher in reversed(self.publishers):
            publisher.open(sha, waiting)

    def publish(self, pub: Publication, current_head: Callable[[], str]) -> str | None:
        """Every surface in order. Returns the PR's new head if it moved before the head-bound
        surfaces were written (then nothing more was written for the old head)."""
        checked = False
        for publisher in self.publishers:
            if publisher.bound_to_head and not checked:
                checked = True
                now = current_head()
                if now != pub.head:
                    return now
            publisher.publish(pub)
        return None

    def wait(
        self, pub: Publication, output: CheckOutput, current_head: Callable[[], str]
    ) -> str | None:
        """A bot is awaited: the interim sticky, then — for the PR's current head only — the
        status `pending` and the check run in_progress (`output`). → the new head if it moved."""
        sticky, status = self.publishers[0], self.publishers[1]
        sticky.publish(pub)
        now = current_head()
        if now != pub.head:
            return now
        if isinstance(status, CommitStatus):
            status.waiting(pub)
        self.check_run.wait(pub.head, output)
        return None

    def fail(self, sha: str, problem: str) -> None:
        """No trustworthy verdict: status error, check failure, previous sticky marked stale —
        each surface on its own (a dead status endpoint must not leave the check run
        in_progress, nor a dead check-run endpoint leave a sticky claiming a verdict)."""
        order = sorted(self.publishers, key=lambda p: not p.bound_to_head)
        for publisher in order:
            try:
                publisher.fail(sha, problem)
            except GatewayError as exc:
                self.run.log.error(f"could not {publisher.failure} either: {exc}")

    def close(self, old_sha: str, new_sha: str) -> None:
        for publisher in self.publishers:
            publisher.close(old_sha, new_sha)
