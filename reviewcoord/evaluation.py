"""One evaluation's state and steps: who we are, the readings of the head, the record, the
judgement, the settle's callbacks and the surfaces (reviewcoord/runner.py orchestrates them).

Everything it touches comes in as arguments (a Gateway, a Clock, a Log), so end-to-end tests
drive it against a fake server.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import partial

from reviewcoord import rerequest
from reviewcoord.actions_io import Log
from reviewcoord.bots import REGISTRY, bot_for_author, bot_keys, is_source
from reviewcoord.config import Settings
from reviewcoord.cycles import ACTIONS_BOT, Cycles
from reviewcoord.events import decide_now
from reviewcoord.github.dry_run import DryRunGateway
from reviewcoord.github.gateway import (
    Gateway,
    PullInfo,
)
from reviewcoord.head_reads import HeadReads
from reviewcoord.history import REASON_CHARS, Asked
from reviewcoord.ingest import Ingested, finished_by_grace, ingest
from reviewcoord.judgement import Judgement, JudgeSettings, Subject, judge, would_go
from reviewcoord.judgement.carry import reporting_on_head
from reviewcoord.model import FINAL_STATES, BotKey, RawComment, SettleMode
from reviewcoord.normalize import merged_table
from reviewcoord.publish.check_run import CheckRunCache
from reviewcoord.publish.surfaces import Run, Surfaces, WriteGuard
from reviewcoord.reading import STATE_ONLY, Evidence, read_parts, read_pull
from reviewcoord.request import Outcome, RunRequest
from reviewcoord.resolve import resolve_expected
from reviewcoord.runs import next_corroborated, next_runs
from reviewcoord.settle import Clock, Reading, Settled, SettlePolicy, settle, waiting_for
from reviewcoord.trusted import find_copy

UNREVIEWED = ("failed", "skipped", "unreadable")


class Evaluation:
    """The state of one evaluation: what was read, who we are, the record, the surfaces."""

    def __init__(
        self,
        req: RunRequest,
        gateway: Gateway,
        settings: Settings,
        log: Log,
        who: tuple[str | None, str | None] | None = None,
    ) -> None:
        confirmed, acting = who or (None, req.identity_hint)  # resolve.identity's, else the hint
        if settings.dry_run and not isinstance(gateway, DryRunGateway):
            # The one place a dry run is set up: every write below is printed, none is sent.
            gateway = DryRunGateway(gateway, log, acting or "(you)")
        self.req, self.gateway, self.settings, self.log = req, gateway, settings, log
        self.table = merged_table(settings.severity)
        self.issue_comments: list[RawComment] = []
        self.own_login: str | None = acting
        self.confirmed_login: str | None = confirmed
        self.check_runs = CheckRunCache(gateway, settings.check_name, lambda: self.own_login)
        self.heads = HeadReads(gateway, req.repo, self.check_runs, lambda: self.own_login)
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
        self.copy_sought = False  # the record's trusted copy was looked for (once a run)
        self.expected: list[BotKey] = []
        self.asked: list[Asked] = []  # this run's re-requests (reviewcoord/rerequest.py)
        # The run's clock (set by `evaluate`), and when each (head, bot) was first read as
        # finishing: its tracker says completed, its review may still land (`finishing-grace`).
        self.clock: Clock | None = None
        self.finishing_since: dict[tuple[str, BotKey], float] = {}

    # --- reads -----------------------------------------------------------------------------

    def read(self, *, states: bool = True, maybe_noop: bool = False) -> Reading:
        """One reading of the PR's head: its comments, then what the profiles of the bots in
        play ask for (reviewcoord/reading.py): a source's own list (code scanning) always, and
        with `states` the parts that only tell a bot's run state (`with_states`). `maybe_noop`:
        the bots' edited comments are taken as our record remembers them, when it vouches for
        this head (`with_states` reads their histories if the run is no noop after all)."""
        gateway, pr = self.gateway, self.req.pr
        pull, comments = read_pull(gateway, pr, self.log)
        self.issue_comments = [c for c in comments if c.endpoint == "issue_comment"]
        kinds = REGISTRY.reads(self.in_play(comments)) - STATE_ONLY
        evidence = read_parts(gateway, pull, kinds, comments, self.check_runs.listing)
        ingested = self.interpret(evidence, pull, maybe_noop=maybe_noop)
        reading = Reading(pull, evidence, ingested)
        return self.with_states(reading) if states else reading

    def with_states(self, reading: Reading, *, maybe_noop: bool = False) -> Reading:
        """`reading` with the check runs, statuses and reactions that its unfinished bots
        declare (a bot finished by its comments needs none: its comments win), and the
        finishing grace applied; unless `maybe_noop`, with the edit histories read."""
        pull, evidence = reading.pull, reading.evidence
        in_play = self.in_play(evidence.comments)
        unfinished = [b for b in in_play if reading.ingested.state(b) not in FINAL_STATES]
        more = {k for k in REGISTRY.reads(unfinished) & STATE_ONLY if getattr(evidence, k) is None}
        ingested = reading.ingested
        if more:
            extra = read_parts(self.gateway, pull, more, evidence.comments, self.check_runs.listing)
            evidence = evidence.joined(extra)
        if more or (ingested.edits_recorded and not maybe_noop):
            ingested = self.interpret(evidence, pull, maybe_noop=maybe_noop)
        return Reading(pull, evidence, self.grace(pull.head_sha, ingested))

    def in_play(self, comments: Sequence[RawComment]) -> list[BotKey]:
        """The bots whose evidence a reading holds: the expected (the configured ones until
        they are resolved), the required, and every bot that commented."""
        named = self.expected or self.settings.explicit_expected
        authors = [bot_for_author(c.author_login, c.author_type) for c in comments]
        bots = {*named, *self.settings.required, *(b for b in authors if b is not None)}
        return [b for b in bot_keys() if b in bots]

    def interpret(
        self, evidence: Evidence, pull: PullInfo, *, maybe_noop: bool = False
    ) -> Ingested:
        """What the reading means (reviewcoord/ingest.py), with GitHub's facts about the head;
        the timeline is read (once per head) only when a signal names no commit."""
        comments = evidence.comments
        edits, recorded = self.heads.own_texts(pull, comments, maybe_noop=maybe_noop)

        def once(clock: bool) -> Ingested:
            return ingest(
                comments,
                head_sha=pull.head_sha,
                head_time=self.heads.known(pull, comments, clock=clock).arrival,
                own_login=self.own_login,
                pr_by_bot=pull.author_type.casefold() == "bot",
                table=self.table,
                evidence=evidence,
                known=self.heads.known(pull, comments, clock=clock),
                edits=edits,
            )

        cached = self.heads.knowns.get(pull.head_sha)
        ingested = once(clock=cached is not None and cached[1])
        if ingested.clocked and not self.heads.knowns[pull.head_sha][1]:
            ingested = once(clock=True)
        return replace(ingested, edits_recorded=recorded)

    def grace(self, head: str, ingested: Ingested) -> Ingested:
        """Finishing bots count as reviewed once `finishing-grace` seconds have passed (the
        run's clock) since this run first read them finishing on this head."""
        if self.clock is None or not ingested.finishing:
            return ingested
        now, grace = self.clock.now(), self.settings.finishing_grace
        since = self.finishing_since
        expired = [b for b in ingested.finishing if now - since.setdefault((head, b), now) >= grace]
        return finished_by_grace(ingested, expired, grace)

    def load_cycles(self, pr_author: str) -> Cycles:
        self.copy_sought = False
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
            edits=self.heads.edits,
            rejudge=self.req.rejudge,
        )
        return self.cycles

    def begin(self, pull: PullInfo) -> Reading:
        """The first reading, the record and the expected bots."""
        # The bots' own checks and statuses are read once our pending status and check run are
        # written (`open_surfaces`), so that our writes do not make the next listing a new
        # one; before, only when this run may be a noop (the head is the recorded one).
        first = self.read(states=False, maybe_noop=not self.req.rejudge)
        cycles = self.load_cycles(first.pull.author_login)
        self.restore_record(first.pull)  # our sticky gone: from the listing the adoption reads
        if cycles.record is not None and cycles.record.last_head == first.pull.head_sha:
            first = self.with_states(first, maybe_noop=not self.req.rejudge)
        self.expected = resolve_expected(
            self.settings,
            self.gateway,
            first.pull,
            self.log,
            sorted(first.ingested.reviewing),
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
        if reading.ingested.edits_recorded and not noop:
            reading = self.with_states(reading)  # only a noop judges what the record recalls
        foreign = self.cycles.check_edits(reading.comments, noop=noop)
        self.restore_record(reading.pull)
        head = reading.pull.head_sha
        head_time = self.heads.times.get(head)
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
        digest = reading.ingested.evidence_digest
        context = self.cycles.context(
            head, reading.comments, digest, noop=noop, reviewers=reporting_on_head(subject)
        )
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

    def restore_record(self, pull: PullInfo) -> None:
        """Our sticky's record discarded on this run (edited by someone else), or our sticky
        gone while our check run on this head holds a record: judge from the newest trusted
        copy (reviewcoord/trusted.py; the PR's commits read only after a discard), looked for
        once a run; the run does not go (the hold)."""
        cycles = self.cycles
        assert cycles is not None
        gone = cycles.sticky is None and self.settings.format in ("both", "comment")
        if cycles.record is not None or self.copy_sought or not (cycles.discarded or gone):
            return
        self.copy_sought = True
        later = partial(self.gateway.list_pull_commits, pull.number) if cycles.discarded else None
        found = find_copy(self.check_runs.on, pull, self.req.repo, later, cycles.hints)
        if found is not None:
            cycles.restore(*found)

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
        """What settle waits for: the expected bots, and a required source (code scanning with
        `code-scanning: true`) while it is pending — it is waited for like a `require-bots`
        bot, so that an analysis finishing during the settle is judged, not missed."""
        s = self.settings
        sources = [b for b in s.required if is_source(b)]
        return SettlePolicy(
            mode=s.settle,
            expected=[*self.expected, *sources],
            fast_pack=s.fast_pack,
            slow_pack=s.slow_pack,
            fast_timeout=s.fast_timeout,
            full_timeout=s.full_timeout,
            poll_interval=s.poll_interval,
            merge_patience=s.merge_patience,
            required=[*s.require_bots, *sources],
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
            f"waiting for {', '.join(waiting_for(reading, self.policy().expected)) or 'nobody'}"
        )

    def settle(self, clock: Clock, first: Reading | None = None) -> Settled:
        if not self.req.waits:  # `wait: events`: decide once, never sleep
            reading = first or self.read()
            head = reading.pull.head_sha
            arrival = self.heads.times.get(head) or self.surfaces.check_run.started.get(head)
            times = (arrival, self.gateway.server_time)
            return decide_now(reading, self.policy(), times, self.could_go, self.on_poll, self.log)
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
        verdict = self.judge(first, noop=True).verdict
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
        """The pending state on the head; the check run we create says which App we are."""
        self.surfaces.open(first.pull.head_sha, self.expected)
        app_login = self.surfaces.check_run.app_login
        if app_login and app_login != self.own_login:
            self.log.warning(f"the check run this run created says we are {app_login}")
            self.own_login = app_login
            self.load_cycles(first.pull.author_login)
