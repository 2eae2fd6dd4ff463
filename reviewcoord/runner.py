"""One evaluation of one PR against GitHub: resolve → settle → judge → publish.

Shared by the Action and the CLI's live mode; everything it touches comes in as arguments (a
Gateway, a Clock, a Log), so end-to-end tests drive it against a fake server.

Fail closed: if any read is incomplete or the config is invalid, the gate is `error` — status
`error`, check run `failure` saying what could not be read — and the previous sticky is kept
(marked stale), never replaced by a partial verdict.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Literal

from pydantic import ValidationError

from reviewcoord import rerequest
from reviewcoord.actions_io import Log
from reviewcoord.bots.code_scanning import AlertRead, merge_ref, not_analysed, unreadable
from reviewcoord.config import CODE_SCANNING, Settings, declared_scope
from reviewcoord.cycles import ACTIONS_BOT, Cycles, recorded_time
from reviewcoord.errors import ConfigError, GatewayError
from reviewcoord.github.dry_run import DryRunGateway
from reviewcoord.github.gateway import Gateway, PullInfo
from reviewcoord.history import REASON_CHARS, Asked
from reviewcoord.ingest import Ingested, finished_by_grace, ingest, with_alerts
from reviewcoord.judgement import Judgement, JudgeSettings, Subject, judge, would_go
from reviewcoord.model import BotKey, RawComment, SettleMode, Verdict
from reviewcoord.normalize import merged_table
from reviewcoord.publish.check_run import CheckRunCache
from reviewcoord.publish.surfaces import FORK_HELP, Publication, Run, Surfaces, WriteGuard
from reviewcoord.resolve import identity, load_settings, resolve_expected
from reviewcoord.runs import next_corroborated, next_runs
from reviewcoord.settle import Clock, Reading, Settled, SettlePolicy, settle, waiting_for

__all__ = ["ACTIONS_BOT", "FORK_HELP", "Outcome", "RunRequest", "evaluate", "resolve_expected"]

UNREVIEWED = ("failed", "skipped", "unreadable")
# How often publishing starts over when the head moves under it (then it publishes as read).
MAX_PUBLISH_RESTARTS = 2
# How often a `go` is judged again when the confirming read differs (then it is published as
# the last judgement says: each of those judgements read everything).
MAX_CONFIRMS = 3


@dataclass(frozen=True)
class RunRequest:
    repo: str
    pr: int
    inputs: Mapping[str, object]  # hyphenated keys; '' or None = not set
    input_source: str  # "workflow inputs" / "command line": named in config errors
    config_path: str
    identity_hint: str | None = ACTIONS_BOT  # who we are when GET /user is forbidden
    rejudge: bool = False  # never a noop (`workflow_dispatch`: someone asked to judge again)
    # The PR head the event payload names (untrusted, maybe stale): only where a failure is
    # written when `GET pulls/{n}` itself fails; never judged.
    event_head: str | None = None


@dataclass
class Outcome:
    gate: Literal["block", "go", "error"]
    reason: str
    verdict: Verdict | None = None
    head_sha: str | None = None
    comment_url: str = ""
    settings: Settings | None = None
    settled: Settled | None = None
    read_only: bool = False
    notes: list[str] = field(default_factory=list)
    error_details: list[str] = field(default_factory=list)
    bad_input: bool = False  # the error is the user's to fix (invalid configuration): exit 2


class _Evaluation:
    """The state of one evaluation: what was read, who we are, the record, the surfaces."""

    def __init__(self, req: RunRequest, gateway: Gateway, settings: Settings, log: Log) -> None:
        if settings.dry_run and not isinstance(gateway, DryRunGateway):
            # The one place a dry run is set up: every write below is printed, none is sent.
            gateway = DryRunGateway(gateway, log, req.identity_hint or "(you)")
        self.req, self.gateway, self.settings, self.log = req, gateway, settings, log
        self.table = merged_table(settings.severity)
        self.times: dict[str, datetime | None] = {}
        self.issue_comments: list[RawComment] = []
        self.own_login: str | None = req.identity_hint
        self.confirmed_login: str | None = None
        self.check_runs = CheckRunCache(gateway, settings.check_name)
        run = Run(
            gateway=gateway,
            settings=settings,
            repo=req.repo,
            pr=req.pr,
            log=log,
            guard=WriteGuard(log),
            login=lambda: self.own_login or ACTIONS_BOT,
            issue_comments=lambda: self.issue_comments,
        )
        self.surfaces = Surfaces.build(run, self.check_runs)
        self.cycles: Cycles | None = None
        self.expected: list[BotKey] = []
        self.alert_reads: dict[str, AlertRead] = {}  # head → its code-scanning read
        self.asked: list[Asked] = []  # this run's re-requests (reviewcoord/rerequest.py)
        # The run's clock (set by `evaluate`), and when each (head, bot) was first read as
        # finishing: its tracker says completed, its review may still land (`finishing-grace`).
        self.clock: Clock | None = None
        self.finishing_since: dict[tuple[str, BotKey], float] = {}

    # --- reads -----------------------------------------------------------------------------

    def read(self) -> Reading:
        gateway, pr = self.gateway, self.req.pr
        pull = gateway.get_pull(pr)
        comments: list[RawComment] = [
            *gateway.list_reviews(pr),
            *gateway.list_review_comments(pr),
            *gateway.list_issue_comments(pr),
        ]
        if self.times.get(pull.head_sha) is None:
            # When the head arrived is GitHub's fact, immutable: our record keeps it for the head
            # it reviewed (when our sticky is vouched for). Unknown (no check suite yet): no
            # undated comment counts for the head.
            known = recorded_time(
                self.req.repo, pr, self.own_login, pull.head_sha, comments, self.check_runs.on
            )
            self.times[pull.head_sha] = known or gateway.get_head_arrival(
                pull.head_sha, pull.head_ref
            )
        self.issue_comments = [c for c in comments if c.endpoint == "issue_comment"]
        ingested = ingest(
            comments,
            head_sha=pull.head_sha,
            head_time=self.times[pull.head_sha],
            own_login=self.own_login,
            pr_by_bot=pull.author_type.casefold() == "bot",
            table=self.table,
        )
        return Reading(pull=pull, comments=comments, ingested=self.grace(pull.head_sha, ingested))

    def grace(self, head: str, ingested: Ingested) -> Ingested:
        """Finishing bots count as reviewed once `finishing-grace` seconds have passed (the
        run's clock) since this run first read them finishing on this head."""
        if self.clock is None or not ingested.finishing:
            return ingested
        now, grace = self.clock.now(), self.settings.finishing_grace
        since = self.finishing_since
        expired = [b for b in ingested.finishing if now - since.setdefault((head, b), now) >= grace]
        return finished_by_grace(ingested, expired, grace)

    def with_alerts(self, reading: Reading) -> Reading:
        """The reading with the PR's code-scanning alerts judged, when `code-scanning` is on or
        GitHub's code scanning commented on the PR (its inline comments carry no level: the
        alert does). Read once per head, right before the judgement that is published: never
        on a settle poll, since code scanning is not waited for."""
        if not self.code_scanning_in_play(reading):
            return reading
        head = reading.pull.head_sha
        if head not in self.alert_reads:
            self.alert_reads[head] = self.read_alerts(reading.pull)
        judged = with_alerts(reading.ingested, self.alert_reads[head], self.table)
        return replace(reading, ingested=judged)

    def code_scanning_in_play(self, reading: Reading) -> bool:
        return self.settings.code_scanning or bool(reading.ingested.seen.get(CODE_SCANNING))

    def alerts_digest(self, first: Reading) -> Callable[[], str]:
        """For the noop check: the digest of this head's alerts, read when asked (the head is
        the recorded one), so that a dismissed alert is judged again, not skipped."""

        def digest() -> str:
            if not self.code_scanning_in_play(first):
                return ""
            self.alert_reads[first.pull.head_sha] = self.read_alerts(first.pull)
            return self.alert_reads[first.pull.head_sha].digest()

        return digest

    def read_alerts(self, pull: PullInfo) -> AlertRead:
        """The alerts, once an analysis of the PR's current merge commit exists (else pending:
        an empty list before the analysis ran is not "nothing found")."""
        ref = merge_ref(self.req.pr)
        try:
            pending = not_analysed(
                self.gateway.list_code_scanning_analyses(self.req.pr), pull.merge_commit_sha
            )
            alerts = [] if pending else self.gateway.list_code_scanning_alerts(self.req.pr)
        except GatewayError as exc:
            pending = unreadable(exc)
        if pending:
            problem = pending
            # Required, it blocks the gate (the reason says so); otherwise it is only a note.
            (self.log.warning if self.settings.code_scanning else self.log.notice)(problem)
            return AlertRead(ref, problem=problem)
        self.log.info(f"code scanning: {len(alerts)} open alerts on {ref}")
        return AlertRead(ref, alerts=alerts)

    def load_cycles(self, pr_author: str) -> Cycles:
        self.cycles = Cycles(
            self.gateway,
            self.req.repo,
            self.req.pr,
            self.settings,
            self.issue_comments,
            self.own_login,
            pr_author,
            self.log,
            self.check_runs.on,
        )
        return self.cycles

    def begin(self, pull: PullInfo) -> Reading:
        """Who we are, the first reading, the record and the expected bots."""
        self.confirmed_login, self.own_login = identity(
            self.gateway, self.req.identity_hint, self.check_runs, pull.head_sha
        )
        first = self.read()
        cycles = self.load_cycles(first.pull.author_login)
        self.expected = resolve_expected(
            self.settings,
            self.gateway,
            first.pull,
            self.log,
            list(first.ingested.seen),
            cycles.recorded_expected(first.pull.head_sha),
        )
        return first

    # --- judging ---------------------------------------------------------------------------

    def judge(
        self, reading: Reading, mode: SettleMode = "none", *, noop: bool = False
    ) -> Judgement:
        """The one judgement of a reading: its verdict and the record to store with it. Edited
        command comments (and, unless `noop`, our edited sticky) are checked first: a noop has
        already proved by GitHub's clock that nobody touched our sticky since our last run."""
        assert self.cycles is not None
        foreign = self.cycles.check_edits(reading.comments, noop=noop)
        head = reading.pull.head_sha
        head_time = self.times.get(head)
        subject = Subject(
            repo=self.req.repo,
            pr=self.req.pr,
            head_sha=head,
            comments=reading.comments,
            ingested=reading.ingested,
            expected=self.expected,
            head_time=head_time,
            settle=mode,
        )
        settings = JudgeSettings(
            group_window=self.settings.group_window,
            severity_overrides=self.settings.severity,
            required=self.settings.required,
        )
        read = self.alert_reads.get(head)
        digest = read.digest() if read else ""
        context = self.cycles.context(head, reading.comments, digest, noop=noop)
        judgement = judge(subject, context, settings, foreign)
        # When the head arrived and the resolved expected bots let a later noop skip those reads;
        # the pending and unreviewed bots let `reviewcoord status` list them without re-judging;
        # the reviewers' tally and corroborations are what `reviewcoord scorecard` reads back.
        before = self.cycles.record
        verdict = judgement.verdict
        owed = [*self.expected, *self.settings.require_bots]
        asked = rerequest.merged(self.cycles.record, self.asked)
        record = judgement.record.model_copy(
            update={
                "head_arrival": head_time.isoformat() if head_time else None,
                "expected": list(self.expected),
                "pending": list(verdict.pending),
                "unreviewed": list(verdict.unreviewed),
                "bots": next_runs(
                    before.bots if before else None, verdict, reading.ingested, owed, head_time
                ),
                "corroborated": next_corroborated(
                    before.corroborated if before else None, verdict, judgement.record
                ),
                "asked": asked,
            }
        )
        on_head = list(dict.fromkeys(a.bot for a in asked or [] if a.head == head))
        verdict = judgement.verdict.model_copy(update={"rerequested": on_head})
        return Judgement(verdict=verdict, record=record)

    def could_go(self, reading: Reading) -> bool:
        """Settle's cheap predicate (no reconciliation, no reads)."""
        record = self.cycles.record if self.cycles is not None else None
        return would_go(
            reading.ingested.findings,
            record,
            self.settings.convergence_after,
            reading.pull.head_sha,
        )

    # --- settle ----------------------------------------------------------------------------

    def policy(self) -> SettlePolicy:
        s = self.settings
        return SettlePolicy(
            mode=s.settle,
            expected=self.expected,
            fast_pack=s.fast_pack,
            slow_pack=s.slow_pack,
            fast_timeout=s.fast_timeout,
            full_timeout=s.full_timeout,
            poll_interval=s.poll_interval,
            merge_patience=s.merge_patience,
            required=s.require_bots,
        )

    def on_poll(self, reading: Reading, elapsed: float) -> dict[BotKey, str]:
        self.log_poll(reading, elapsed)
        return self.ask_again(reading, elapsed) if self.settings.rerequest else {}

    def ask_again(self, reading: Reading, elapsed: float) -> dict[BotKey, str]:
        """Ask each due bot once (reviewcoord/rerequest.py); → the bots asked, each with the url
        of the state it was asked in (settle waits for its next final state)."""
        pull = reading.pull
        if pull.state != "open" or not self.surfaces.may_write():
            return {}
        head = pull.head_sha
        record = self.cycles.record if self.cycles is not None else None
        asked = [*(record.asked or [] if record else []), *self.asked]
        done = {b for b in self.expected if rerequest.asked_before(asked, b, head)}
        states = {b: (s.state, s.detail) for b, s in reading.ingested.bots.items()}
        timing = rerequest.Timing(
            self.settings.fast_pack, self.settings.fast_timeout, self.settings.full_timeout
        )
        out: dict[BotKey, str] = {}
        for item in rerequest.due(states, self.expected, timing, elapsed, head, done):
            if rerequest.quota_noticed(item.bot, reading.comments):
                continue
            if self.settings.dry_run:  # nothing is asked, so nothing may claim it was
                self.log.info(f"[dry-run] would ask {item.bot} to review again: {item.why}")
                continue
            sent, at, problem = self.surfaces.ask(item.bot)
            if not sent:
                continue  # read-only: nothing was asked, nothing to remember
            why = (f"{item.why} ({problem})" if problem else item.why)[:REASON_CHARS]
            entry = Asked(
                bot=item.bot, head=head, at=at or None, how=rerequest.how(item.bot), why=why
            )
            self.asked.append(entry)
            self.log.notice(rerequest.note(entry))
            status = reading.ingested.bots.get(item.bot)
            out[item.bot] = status.url if status is not None else ""
        return out

    def log_poll(self, reading: Reading, elapsed: float) -> None:
        states = {b: reading.ingested.state(b) for b in self.expected}
        done = [b for b, state in states.items() if state == "reviewed"]
        gone = [f"{b} ({state})" for b, state in states.items() if state in UNREVIEWED]
        self.log.info(
            f"t+{elapsed:.0f}s head {reading.pull.head_sha[:7]}: reviewed "
            f"{', '.join(done) or 'none'}; did not review {', '.join(gone) or 'none'}; "
            f"waiting for {', '.join(waiting_for(reading, self.expected)) or 'nobody'}"
        )

    def settle(self, clock: Clock, first: Reading | None = None) -> Settled:
        settled = settle(self.read, self.policy(), clock, self.could_go, self.on_poll, first)
        for note in settled.log:
            self.log.info(note)
        return settled

    # --- outcomes --------------------------------------------------------------------------

    def fail(self, problem: str, pull: PullInfo) -> Outcome:
        """No trustworthy verdict for `pull`'s head: report it on every surface we can write."""
        self.log.error(f"no trustworthy verdict (gate error): {problem}")
        self.surfaces.fail(pull.head_sha, problem)
        return Outcome(
            "error",
            problem,
            head_sha=pull.head_sha,
            settings=self.settings,
            read_only=self.surfaces.read_only,
        )

    def noop(self, first: Reading) -> Outcome:
        """Nothing new since the last run: reads only, nothing is written. Thread state is only
        shown, never gating: not read for a noop."""
        assert self.cycles is not None
        self.cycles.skip_threads()
        verdict = self.judge(self.with_alerts(first), noop=True).verdict
        sha = first.pull.head_sha
        self.log.notice(
            f"nothing new since {sha[:7]}: the head is the last reviewed one and no comment "
            "changed; the sticky comment, commit status and check run are kept as they are"
        )
        sticky = self.cycles.sticky
        return Outcome(
            verdict.gate,
            verdict.gate_reason,
            verdict,
            sha,
            comment_url=sticky.html_url if sticky else "",
            settings=self.settings,
            notes=[f"nothing new since {sha[:7]}: nothing was published"],
        )

    def open_surfaces(self, first: Reading) -> None:
        """The pending state on the head; the check run we open says which App we are."""
        self.surfaces.open(first.pull.head_sha, self.expected)
        app_login = self.surfaces.check_run.app_login
        if self.confirmed_login is None and app_login and app_login != self.own_login:
            # GET /user is forbidden to App tokens: look for our sticky under that identity.
            self.log.info(f"identity from our check run's app: {app_login}")
            self.own_login = app_login
            self.load_cycles(first.pull.author_login)


def _prepare(req: RunRequest, gateway: Gateway, log: Log) -> tuple[PullInfo, Settings] | Outcome:
    """The PR and the settings (config from its base branch), or the failure — written, like
    every failure, to the check and status the workflow configured (`check-name`,
    `status-context`), on the head from the event payload when the PR itself cannot be read."""
    try:
        pull = gateway.get_pull(req.pr)
    except GatewayError as exc:
        problem = f"could not read PR {req.pr}: {exc}"
        if req.event_head is None:
            log.error(f"{problem} (the event names no head commit: nothing could be written)")
            return Outcome("error", problem)
        at = PullInfo(number=req.pr, head_sha=req.event_head, base_ref="")
        return _Evaluation(req, gateway, fallback_settings(req), log).fail(problem, at)
    log.info(f"head {pull.head_sha} on {pull.base_ref or '?'}; state {pull.state}")
    parsed: dict[str, Any] = {}
    try:
        return pull, load_settings(
            gateway, pull, req.config_path, req.inputs, req.input_source, parsed
        )
    except ConfigError as exc:
        failed = _Evaluation(req, gateway, fallback_settings(req, parsed), log)
        outcome = failed.fail(f"invalid configuration: {exc}", pull)
        outcome.bad_input = True
        return outcome
    except GatewayError as exc:
        problem = f"could not read the config file: {exc}"
    return _Evaluation(req, gateway, fallback_settings(req), log).fail(problem, pull)


# What a failure report needs of the settings, each taken on its own when the whole is invalid.
_REPORT_KEYS = ("check-name", "status-context", "dry-run")


def fallback_settings(req: RunRequest, file_values: Mapping[str, Any] | None = None) -> Settings:
    """The defaults, when the settings could not be built — except where the failure is
    written: the input's `check-name` / `status-context` (else the config file's), each used
    when valid on its own, so the check the branch rule requires gets the failure; a
    requested dry run stays dry."""
    chosen: dict[str, Any] = {}
    for key in _REPORT_KEYS:
        for source in (req.inputs, file_values or {}):
            value = source.get(key)
            if value is None or value == "":
                continue
            try:
                Settings.model_validate({key: value})
            except ValidationError:
                continue
            chosen[key] = value
            break
    return Settings.model_validate(chosen)


def evaluate(req: RunRequest, gateway: Gateway, clock: Clock, log: Log) -> Outcome:
    # `scope`: the declared reviewers' registry scope, entered once the settings are read and
    # kept until the verdict is published.
    with ExitStack() as scope:
        with log.group(f"review-coordinator: {req.repo}#{req.pr}"):
            prepared = _prepare(req, gateway, log)
            if isinstance(prepared, Outcome):
                return prepared
            pull, settings = prepared
            scope.enter_context(declared_scope(settings))
            run = _Evaluation(req, gateway, settings, log)
            run.clock = clock
            try:
                first = run.begin(pull)
                assert run.cycles is not None
                if not req.rejudge and run.cycles.is_noop(first, run.alerts_digest(first)):
                    return run.noop(first)
                # Not a noop: the alerts are read again after settle, for the head then judged.
                run.alert_reads.clear()
                log.info(
                    f"identity: {run.own_login or 'unknown'}; "
                    f"expected bots: {', '.join(run.expected)}"
                )
                run.open_surfaces(first)
                settled = run.settle(clock, first)
            except GatewayError as exc:
                return run.fail(str(exc), pull)
            except Exception as exc:  # a bug must not leave an earlier success standing
                return run.fail(internal_error(exc), pull)
        try:
            return _publish_until_stable(run, clock, settled, first.pull.head_sha)
        except Exception as exc:  # as above: the required check says error, not the old green
            return run.fail(internal_error(exc), settled.reading.pull)


def internal_error(exc: Exception) -> str:
    """The problem a crash reports: its type only (a message may quote untrusted text)."""
    return f"internal error ({type(exc).__name__}): please report it with the job log"


def _publish_until_stable(
    run: _Evaluation, clock: Clock, settled: Settled, started: str
) -> Outcome:
    """Publish; if the head moved meanwhile, judge the new head instead (bounded): the old
    head's status must never be written after a newer head's run may have written its own."""
    for attempt in range(MAX_PUBLISH_RESTARTS + 1):
        try:
            outcome, moved_to = _publish(run, settled, started, clock)
        except GatewayError as exc:
            run.log.error(f"publishing failed: {exc}")
            return run.fail(f"could not publish: {exc}", settled.reading.pull)
        if moved_to is None:
            break
        if attempt == MAX_PUBLISH_RESTARTS:
            run.surfaces.close(outcome.head_sha or started, moved_to)
            problem = f"the head kept moving while publishing (now {moved_to[:7]})"
            run.log.error(f"no trustworthy verdict (gate error): {problem}")
            return Outcome("error", problem, head_sha=moved_to, settings=run.settings)
        run.log.notice(
            f"the head moved to {moved_to[:7]} while publishing {outcome.head_sha or '?'}; "
            "judging the new head"
        )
        started = outcome.head_sha or started
        try:
            settled = run.settle(clock)
        except GatewayError as exc:
            return run.fail(str(exc), settled.reading.pull)
    outcome.read_only = run.surfaces.read_only
    if run.surfaces.read_only:
        outcome.notes.append(FORK_HELP)
    return outcome


def _confirmed(run: _Evaluation, clock: Clock, settled: Settled) -> tuple[Settled, Judgement] | str:
    """The judgement to publish. A `go` must survive a second read `confirm-delay` seconds
    later (conditional requests: unchanged lists cost 304s, no rate limit): a new or edited
    comment in between is judged again (at most MAX_CONFIRMS times); a moved head is returned
    for the caller to start over on."""
    assert run.cycles is not None
    reading = run.with_alerts(settled.reading)
    judgement = run.judge(reading, settled.mode)
    for _ in range(MAX_CONFIRMS):
        if judgement.verdict.gate != "go":
            break
        clock.sleep(run.settings.confirm_delay)
        again = run.read()
        if again.pull.head_sha != reading.pull.head_sha:
            return again.pull.head_sha
        if run.cycles.fingerprint(again.comments) == run.cycles.fingerprint(reading.comments):
            break
        run.log.notice("a comment changed between the two reads before go: judging again")
        settled = replace(settled, reading=again)
        reading = run.with_alerts(again)
        judgement = run.judge(reading, settled.mode)
    return replace(settled, reading=reading), judgement


def _publish(
    run: _Evaluation, settled: Settled, started: str, clock: Clock
) -> tuple[Outcome, str | None]:
    """Sticky, then status, then check run for the settled reading's head. Returns the outcome
    and, if the PR's head moved before the status was written, the new head (nothing more was
    written for the old one)."""
    assert run.cycles is not None
    head = settled.reading.pull.head_sha
    if head != started:
        # The old head's check run must not stay in_progress forever.
        run.surfaces.close(started, head)
        run.surfaces.open(head, run.expected)
    confirmed = _confirmed(run, clock, settled)
    if isinstance(confirmed, str):
        return Outcome("error", "the head moved", head_sha=head, settings=run.settings), confirmed
    settled, judgement = confirmed
    verdict = judgement.verdict
    notes = list(settled.log)
    asked = [a for a in judgement.record.asked or [] if a.head == head]
    notes.extend(rerequest.note(a) for a in asked)
    if settled.timed_out and verdict.pending:
        notes.append(
            f"settle `{settled.mode}` timed out with {', '.join(verdict.pending)} still pending"
        )
    outcome = Outcome(
        verdict.gate, verdict.gate_reason, verdict, head, settings=run.settings, settled=settled
    )
    outcome.notes = notes
    with run.log.group("Publish"):
        sticky = run.settings.format in ("both", "comment")
        block = run.cycles.history_block(judgement.record) if sticky else ""
        pub = Publication(
            verdict, notes=notes, sticky_notes=list(run.cycles.notes), history_block=block
        )
        # A conditional re-read (a 304 costs no rate limit): is this still the PR's head?
        moved_to = run.surfaces.publish(pub, lambda: run.gateway.get_pull(run.req.pr).head_sha)
        outcome.comment_url = pub.comment_url
    return outcome, moved_to
