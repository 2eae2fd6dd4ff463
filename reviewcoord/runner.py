"""One evaluation of one PR against GitHub: resolve → config → settle → judge → publish.

Shared by the Action and the CLI's live mode; everything it touches comes in as arguments (a
Gateway, a Clock, a Log), so end-to-end tests drive it against a fake server.

Fail closed: if any read is incomplete or the config is invalid, the gate is `error` — status
`error`, check run `failure` saying what could not be read — and the previous sticky is kept
(marked stale), never replaced by a partial verdict.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from reviewcoord.actions_io import Log
from reviewcoord.bots import bot_for_login, bot_keys
from reviewcoord.config import Settings, build_settings, parse_config_file
from reviewcoord.errors import ConfigError, GatewayError, WriteForbidden
from reviewcoord.github.dry_run import DryRunGateway
from reviewcoord.github.gateway import CheckOutput, CheckRunRef, Gateway, PullInfo, StatusState
from reviewcoord.history import History, bound, encode, find_record, fingerprint
from reviewcoord.ingest import ingest
from reviewcoord.judgement import (
    CycleContext,
    CycleLookups,
    JudgeSettings,
    Mode,
    Subject,
    cycle_for,
    would_go,
)
from reviewcoord.judgement import (
    judge as judge_reading,
)
from reviewcoord.model import BotKey, Level, RawComment, SettleMode, Verdict
from reviewcoord.normalize import merged_table
from reviewcoord.publish.check_run import (
    CheckRunCache,
    finish_check,
    start_check,
    start_check_ref,
)
from reviewcoord.publish.commit_status import set_status
from reviewcoord.publish.sticky import mark_stale, publish_sticky
from reviewcoord.settle import Clock, Reading, Settled, SettlePolicy, settle, waiting_for

ACTIONS_BOT = "github-actions[bot]"
UNREVIEWED = ("failed", "skipped")
# How often publishing starts over when the head moves under it (then it publishes as read).
MAX_PUBLISH_RESTARTS = 2
FORK_HELP = (
    "the token cannot write to this repository (a fork PR gets a read-only GITHUB_TOKEN): "
    "the verdict is in the job summary and the step outputs; see README § Fork pull requests"
)


@dataclass(frozen=True)
class RunRequest:
    repo: str
    pr: int
    inputs: Mapping[str, object]  # hyphenated keys; '' or None = not set
    input_source: str  # "workflow inputs" / "command line": named in config errors
    config_path: str
    identity_hint: str | None = ACTIONS_BOT  # who we are when GET /user is forbidden


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


class Surfaces:
    """Writes to GitHub; a read-only token turns every write into a logged no-op."""

    def __init__(
        self,
        gateway: Gateway,
        settings: Settings,
        log: Log,
        check_runs: CheckRunCache | None = None,
    ) -> None:
        self.gateway = gateway
        self.settings = settings
        self.log = log
        self.check_runs = check_runs
        self.read_only = False
        self.checks_unavailable = False
        self.check_ids: dict[str, int] = {}
        # `<slug>[bot]` of the App our check runs belong to: who we are when GET /user is
        # forbidden (GITHUB_TOKEN → github-actions[bot], an App installation → its own bot).
        self.app_login: str | None = None

    def write(self, what: str, action: Callable[[], object], *, check: bool = False) -> bool:
        """Every write to GitHub goes through here: a read-only token turns it into a logged
        no-op (fork PRs), a token that may not write check runs skips only those."""
        if self.read_only or (check and self.checks_unavailable):
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

    def start(self, sha: str, waiting: Sequence[str]) -> None:
        from reviewcoord.render import pending_description

        text = pending_description(list(waiting))
        output = CheckOutput(title="Waiting for the AI reviewers", summary=text)

        def open_check() -> None:
            cache = self.check_runs
            known = cache.on(sha) if cache is not None else None
            ref = start_check_ref(self.gateway, self.settings.check_name, sha, output, known)
            if cache is not None:
                cache.forget(sha)
            self.check_ids[sha] = ref.id
            if ref.app_slug:
                self.app_login = f"{ref.app_slug}[bot]"

        self.write("create the check run", open_check, check=True)
        self.write(
            "set the commit status",
            lambda: set_status(self.gateway, sha, "pending", text, self.settings.status_context),
        )

    def status(self, sha: str, state: StatusState, description: str, url: str | None) -> bool:
        return self.write(
            "set the commit status",
            lambda: set_status(
                self.gateway, sha, state, description, self.settings.status_context, url
            ),
        )

    def finish_check(self, sha: str, verdict: Verdict | None, summary: CheckOutput) -> bool:
        from reviewcoord.render import annotations as finding_annotations

        check_id = self.check_ids.get(sha)
        conclusion: Literal["success", "failure"] = (
            "success" if verdict is not None and verdict.gate == "go" else "failure"
        )
        notes = finding_annotations(verdict) if verdict is not None else []

        def complete() -> None:
            nonlocal check_id
            if check_id is None:
                check_id = start_check(self.gateway, self.settings.check_name, sha, summary)
            finish_check(self.gateway, check_id, summary, notes, conclusion)

        return self.write("complete the check run", complete, check=True)

    def supersede(self, old_sha: str, new_sha: str) -> None:
        """The head moved: close the check run we opened on the old head. No status is written
        for it: a newer head's run may already have written its own, and an older head's
        status must never come after a newer head's (its pending status is left as it was)."""
        reason = f"superseded: head moved to {new_sha[:7]}"
        check_id = self.check_ids.get(old_sha)
        if check_id is not None:
            output = CheckOutput(title="Superseded", summary=f"{reason}; judged there instead.")
            self.write(
                "close the old head's check run",
                lambda: self.gateway.update_check_run(check_id, "completed", output, "cancelled"),
                check=True,
            )


def _read(
    gateway: Gateway,
    req: RunRequest,
    own_login: str | None,
    times: dict[str, datetime | None],
    table: Mapping[str, Mapping[str, Level]],
) -> Reading:
    pr = req.pr
    pull = gateway.get_pull(pr)
    comments: list[RawComment] = [
        *gateway.list_reviews(pr),
        *gateway.list_review_comments(pr),
        *gateway.list_issue_comments(pr),
    ]
    if pull.head_sha not in times:
        # The head commit's time is immutable: our record keeps it for the head it reviewed.
        known = _recorded_time(req, own_login, pull.head_sha, comments)
        times[pull.head_sha] = known or gateway.get_commit_time(pull.head_sha)
    ingested = ingest(
        comments,
        head_sha=pull.head_sha,
        head_time=times[pull.head_sha],
        own_login=own_login,
        pr_by_bot=pull.author_type.casefold() == "bot",
        table=table,
    )
    return Reading(pull=pull, comments=comments, ingested=ingested)


def resolve_expected(
    settings: Settings,
    gateway: Gateway,
    pull: PullInfo,
    log: Log,
    on_this_pr: Sequence[BotKey],
    recorded: Sequence[BotKey] | None = None,
) -> list[BotKey]:
    """`auto`: the known bots seen in the repository's recent comments or on this PR, plus any
    named; every known bot when none was ever seen (an empty set must never mean an instant
    `go`).
    (The repository-wide lists hold inline and conversation comments, not review bodies, so a
    bot that only ever left clean reviews is found through this PR's own reviews.)
    `recorded`: the set the last run resolved for this same head (our history record): kept,
    plus the bots seen on this PR since, without reading the repository-wide lists again;
    they are not read either when every known bot is already on this PR."""
    expected: set[BotKey] = {*settings.explicit_expected, *settings.require_bots}
    if settings.auto_expected and recorded is not None:
        expected |= set(recorded) | set(on_this_pr)
        log.info(f"expected-bots auto: as resolved for this head: {', '.join(sorted(expected))}")
    elif settings.auto_expected:
        found = set(on_this_pr)
        if not set(bot_keys()) <= found:
            seen = {bot_for_login(login) for login, _type in gateway.recent_comment_authors()}
            found |= {b for b in seen if b is not None}
        if found:
            log.info(
                f"expected-bots auto: seen on this repository recently: {', '.join(sorted(found))}"
            )
        elif not expected:
            log.notice(
                "expected-bots auto: no known AI reviewer has commented on this repository "
                f"recently; expecting every known bot ({', '.join(bot_keys())})"
            )
            found = set(bot_keys())
        expected |= found
    return [b for b in bot_keys() if b in expected]


class Cycles:
    """The review-cycle context of a run: the record from our sticky, and the reads the
    reconciliation needs (README § Review cycles). Each read happens at most once per head and
    only when needed: compare (history exists and the head moved, or a previous head is needed),
    PR files (force-push or no comparable base), review threads (GraphQL, one query), and one
    permission read per commenter who issues a new command."""

    def __init__(
        self,
        gateway: Gateway,
        req: RunRequest,
        settings: Settings,
        comments: Sequence[RawComment],
        own_login: str | None,
        pr_author: str,
        log: Log,
        check_runs: Callable[[str], Sequence[CheckRunRef]] | None = None,
    ) -> None:
        self.gateway = gateway
        name = settings.check_name
        self.check_runs = check_runs or (lambda sha: gateway.list_check_runs(sha, name))
        self.req = req
        self.settings = settings
        self.own_login = own_login
        self.pr_author = pr_author
        self.log = log
        self.record, self.notice, self.sticky = find_record(
            comments, own_login or ACTIONS_BOT, repo=req.repo, pr=req.pr
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
        self._pr_files: frozenset[str] | None = None
        self.notes: list[str] = []

    def fingerprint(self, comments: Sequence[RawComment]) -> str:
        return fingerprint(comments, self.own_login, self.settings.model_dump_json())

    def recorded_expected(self, head_sha: str) -> list[BotKey] | None:
        """The expected bots the record resolved for this head, if it is the recorded one."""
        rec = self.record
        if rec is None or rec.last_head != head_sha or rec.expected is None:
            return None
        return list(rec.expected)

    def is_noop(self, reading: Reading) -> bool:
        """The head is the last reviewed one, nothing changed since, and the last run finished
        publishing (its sticky is not marked stale and its check run completed on this head)."""
        from reviewcoord.render import STALE_PREFIX

        rec, sticky = self.record, self.sticky
        head = reading.pull.head_sha
        if rec is None or sticky is None or rec.last_head != head:
            return False
        if rec.fingerprint != self.fingerprint(reading.comments):
            return False
        if STALE_PREFIX in sticky.body:
            self.log.info("the last verdict is marked stale: judging again")
            return False
        newest = max(self.check_runs(head), key=lambda r: r.id, default=None)
        if newest is None or newest.status != "completed":
            self.log.info("the last run left no completed check run on this head: judging again")
            return False
        return True

    def _files_of_pr(self) -> frozenset[str]:
        if self._pr_files is None:
            self._pr_files = frozenset(self.gateway.list_pull_files(self.req.pr))
        return self._pr_files

    def _read_threads(self) -> Mapping[int, str]:
        if self._threads is None:
            try:
                threads = self.gateway.list_review_threads(self.req.pr)
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

    def context(self, head_sha: str, comments: Sequence[RawComment]) -> CycleContext:
        cached = self._contexts.get(head_sha)
        fp = self.fingerprint(comments)
        if cached is not None:
            return CycleContext(**{**cached.__dict__, "fingerprint": fp})
        rec = self.record
        mode: Mode = "initial" if rec is None and self.notice is None else "full"
        previous: str | None = None
        force_push = False
        touched: frozenset[str] | None = None
        lazy_touched = False
        if rec is not None:
            same = rec.last_head == head_sha
            mode = "same_head" if same else "incremental"
            if same:
                base = rec.heads[-2] if len(rec.heads) >= 2 else None
                previous = base
                lazy_touched = True
            else:
                previous = rec.last_head
                assert previous is not None
                result = self.gateway.compare_commits(previous, head_sha)
                if result.status in ("ahead", "identical"):
                    if result.files_complete:
                        touched = frozenset(result.files)
                    else:
                        touched = self._files_of_pr()
                else:
                    force_push = True
                    mode = "full"
                    touched = self._files_of_pr()
                    self.log.warning(
                        f"the last reviewed head {previous[:7]} is not reachable from "
                        f"{head_sha[:7]} (compare: {result.status}; force-push?): "
                        "reconciling in full mode"
                    )
        computed: list[frozenset[str] | None] = [touched] if not lazy_touched else []

        def touched_files() -> frozenset[str] | None:
            if not computed:
                base = previous
                value: frozenset[str] | None
                if base is None:
                    value = self._files_of_pr()
                else:
                    result = self.gateway.compare_commits(base, head_sha)
                    ok = result.status in ("ahead", "identical") and result.files_complete
                    value = frozenset(result.files) if ok else self._files_of_pr()
                computed.append(value)
            return computed[0]

        ctx = CycleContext(
            record=rec,
            notice=self.notice,
            cycle=cycle_for(rec, head_sha, self.settings.cycle),
            mode=mode,
            previous_head=previous,
            force_push=force_push,
            pr_author=self.pr_author,
            own_login=self.own_login,
            convergence_after=self.settings.convergence_after,
            fingerprint=fp,
            lookups=CycleLookups(
                touched=touched_files, threads=self._read_threads, permission=self._permission
            ),
        )
        self._contexts[head_sha] = ctx
        return ctx

    def history_block(self, history: History) -> str:
        bounded, dropped = bound(history)
        if dropped:
            note = f"review history: {dropped} oldest entries dropped to stay within its bound"
            self.log.info(note)
            self.notes.append(note)
        return encode(bounded)


def _identity(
    gateway: Gateway, req: RunRequest, check_runs: CheckRunCache, head_sha: str
) -> tuple[str | None, str | None]:
    """(confirmed login, login to act as). In the Action, the App of our newest check run on
    the head is who we are (`<slug>[bot]`; GITHUB_TOKEN: github-actions[bot]): the read is the
    one the noop proof and check-run adoption need anyway, and it spares `GET /user`, which
    GitHub refuses App tokens (403). Without such a check run (or from the command line, where
    a personal token answers `GET /user`) we ask GitHub, else fall back to the hint."""
    if req.identity_hint is not None:
        apps = [r for r in check_runs.on(head_sha) if r.app_slug]
        if apps:
            login = f"{max(apps, key=lambda r: r.id).app_slug}[bot]"
            return login, login
    confirmed = gateway.whoami()
    return confirmed, confirmed or req.identity_hint


def _recorded_time(
    req: RunRequest, own_login: str | None, sha: str, comments: Sequence[RawComment]
) -> datetime | None:
    """The head commit time our record keeps for `sha`, if `sha` is the head it reviewed."""
    issue = [c for c in comments if c.endpoint == "issue_comment"]
    record, _notice, _sticky = find_record(
        issue, own_login or ACTIONS_BOT, repo=req.repo, pr=req.pr
    )
    if record is None or record.last_head != sha or not record.head_time:
        return None
    try:
        return datetime.fromisoformat(record.head_time)
    except ValueError:
        return None


def _load_settings(req: RunRequest, gateway: Gateway, pull: PullInfo) -> Settings:
    # The base branch's copy only: a PR must not be able to change its own gate.
    ref = pull.base_ref or pull.base_sha
    text = gateway.get_file(req.config_path, ref) if req.config_path else None
    source = f"{req.config_path} (base branch {ref})"
    file_values = parse_config_file(text, source) if text is not None else {}
    return build_settings(
        file_values, req.inputs, file_source=source, input_source=req.input_source
    )


def evaluate(req: RunRequest, gateway: Gateway, clock: Clock, log: Log) -> Outcome:

    with log.group(f"review-coordinator: {req.repo}#{req.pr}"):
        try:
            pull = gateway.get_pull(req.pr)
        except GatewayError as exc:
            log.error(f"could not read PR {req.pr}: {exc}")
            return Outcome("error", f"could not read PR {req.pr}: {exc}")
        log.info(f"head {pull.head_sha} on {pull.base_ref or '?'}; state {pull.state}")

        try:
            settings = _load_settings(req, gateway, pull)
        except ConfigError as exc:
            return _fail(req, gateway, None, pull, log, f"invalid configuration: {exc}", [])
        except GatewayError as exc:
            return _fail(
                req, gateway, None, pull, log, f"could not read the config file: {exc}", []
            )

        if settings.dry_run and not isinstance(gateway, DryRunGateway):
            gateway = DryRunGateway(gateway, log, req.identity_hint or "(you)")
        times: dict[str, datetime | None] = {}
        table = merged_table(settings.severity)
        last_issue_comments: list[RawComment] = []
        surfaces: Surfaces | None = None

        def fail(problem: str, at: PullInfo) -> Outcome:
            """No trustworthy verdict for `at`: report it on every surface we can write."""
            return _fail(
                req,
                gateway,
                settings,
                at,
                log,
                problem,
                last_issue_comments,
                surfaces=surfaces,
                own_login=own_login,
            )

        def read() -> Reading:
            reading = _read(gateway, req, own_login, times, table)
            last_issue_comments[:] = [c for c in reading.comments if c.endpoint == "issue_comment"]
            return reading

        own_login: str | None = None
        confirmed_login: str | None = None
        histories: dict[str, History] = {}
        check_runs = CheckRunCache(gateway, settings.check_name)
        try:
            confirmed_login, own_login = _identity(gateway, req, check_runs, pull.head_sha)
            first = read()
            cycles = Cycles(
                gateway,
                req,
                settings,
                last_issue_comments,
                own_login,
                first.pull.author_login,
                log,
                check_runs.on,
            )
            recorded = cycles.recorded_expected(first.pull.head_sha)
            expected = resolve_expected(
                settings, gateway, first.pull, log, list(first.ingested.seen), recorded
            )
            if cycles.is_noop(first):
                # Reads only so far: nothing is written (no sticky edit, status or check run).
                # Thread state is only shown, never gating: not read for a noop.
                cycles.skip_threads()
                verdict = _judge_cycle(
                    req,
                    settings,
                    cycles,
                    first,
                    expected,
                    histories,
                    times.get(first.pull.head_sha),
                )
                sha = first.pull.head_sha
                log.notice(
                    f"nothing new since {sha[:7]}: the head is the last reviewed one and no "
                    "comment changed; the sticky comment, commit status and check run are kept "
                    "as they are"
                )
                return Outcome(
                    verdict.gate,
                    verdict.gate_reason,
                    verdict,
                    sha,
                    comment_url=cycles.sticky.html_url if cycles.sticky else "",
                    settings=settings,
                    notes=[f"nothing new since {sha[:7]}: nothing was published"],
                )
        except GatewayError as exc:
            return fail(str(exc), pull)
        log.info(f"identity: {own_login or 'unknown'}; expected bots: {', '.join(expected)}")

        surfaces = Surfaces(gateway, settings, log, check_runs)
        try:
            surfaces.start(first.pull.head_sha, expected)
        except GatewayError as exc:
            return fail(str(exc), first.pull)
        if confirmed_login is None and surfaces.app_login and surfaces.app_login != own_login:
            # GET /user is forbidden to App tokens; the check run we just opened says which
            # App we are. Look for our sticky and its history under that identity.
            log.info(f"identity from our check run's app: {surfaces.app_login}")
            own_login = surfaces.app_login
            cycles = Cycles(
                gateway,
                req,
                settings,
                last_issue_comments,
                own_login,
                first.pull.author_login,
                log,
                check_runs.on,
            )

        policy = SettlePolicy(
            mode=settings.settle,
            expected=expected,
            fast_pack=settings.fast_pack,
            slow_pack=settings.slow_pack,
            fast_timeout=settings.fast_timeout,
            full_timeout=settings.full_timeout,
            poll_interval=settings.poll_interval,
            merge_patience=settings.merge_patience,
            required=settings.require_bots,
        )

        def could_go(reading: Reading) -> bool:
            return would_go(
                reading.ingested.findings,
                cycles.record,
                settings.convergence_after,
                reading.pull.head_sha,
            )

        def judge(reading: Reading) -> Verdict:
            return _judge_cycle(
                req,
                settings,
                cycles,
                reading,
                expected,
                histories,
                times.get(reading.pull.head_sha),
                policy.mode,
            )

        def on_poll(reading: Reading, elapsed: float) -> None:
            states = {b: reading.ingested.state(b) for b in expected}
            done = [b for b, state in states.items() if state == "reviewed"]
            gone = [f"{b} ({state})" for b, state in states.items() if state in UNREVIEWED]
            log.info(
                f"t+{elapsed:.0f}s head {reading.pull.head_sha[:7]}: reviewed "
                f"{', '.join(done) or 'none'}; did not review {', '.join(gone) or 'none'}; "
                f"waiting for {', '.join(waiting_for(reading, expected)) or 'nobody'}"
            )

        try:
            settled = settle(read, policy, clock, could_go, on_poll, first=first)
        except GatewayError as exc:
            return fail(str(exc), pull)
        for note in settled.log:
            log.info(note)

    started = first.pull.head_sha
    for attempt in range(MAX_PUBLISH_RESTARTS + 1):
        try:
            outcome, moved_to = _publish(
                req,
                gateway,
                settings,
                log,
                surfaces,
                cycles,
                histories,
                settled,
                started,
                expected,
                judge,
                last_issue_comments,
                own_login,
            )
        except GatewayError as exc:
            log.error(f"publishing failed: {exc}")
            return fail(f"could not publish: {exc}", settled.reading.pull)
        if moved_to is None:
            break
        if attempt == MAX_PUBLISH_RESTARTS:
            surfaces.supersede(outcome.head_sha or started, moved_to)
            problem = f"the head kept moving while publishing (now {moved_to[:7]})"
            log.error(f"no trustworthy verdict (gate error): {problem}")
            return Outcome("error", problem, head_sha=moved_to, settings=settings)
        # The head moved while we published: never write the old head's status after a newer
        # head's run may have written its own. Judge the new head instead (bounded).
        log.notice(
            f"the head moved to {moved_to[:7]} while publishing {outcome.head_sha or '?'}; "
            "judging the new head"
        )
        started = outcome.head_sha or started
        try:
            settled = settle(read, policy, clock, could_go, on_poll)
        except GatewayError as exc:
            return fail(str(exc), settled.reading.pull)
    outcome.read_only = surfaces.read_only
    if surfaces.read_only:
        outcome.notes.append(FORK_HELP)
    return outcome


def _publish(
    req: RunRequest,
    gateway: Gateway,
    settings: Settings,
    log: Log,
    surfaces: Surfaces,
    cycles: Cycles,
    histories: dict[str, History],
    settled: Settled,
    started: str,
    expected: Sequence[BotKey],
    judge: Callable[[Reading], Verdict],
    issue_comments: list[RawComment],
    own_login: str | None,
) -> tuple[Outcome, str | None]:
    """Sticky, then status, then check run for the settled reading's head. Returns the outcome
    and, if the PR's head moved before the status was written, the new head (nothing more was
    written for the old one)."""
    from reviewcoord import render

    reading = settled.reading
    head = reading.pull.head_sha
    if head != started:
        # The old head's check run must not stay in_progress forever.
        surfaces.supersede(started, head)
        surfaces.start(head, expected)
    verdict = judge(reading).model_copy(update={"settle": settled.mode})
    notes = list(settled.log)
    if settled.timed_out and verdict.pending:
        notes.append(
            f"settle `{settled.mode}` timed out with {', '.join(verdict.pending)} still pending"
        )
    outcome = Outcome(
        verdict.gate,
        verdict.gate_reason,
        verdict,
        head,
        settings=settings,
        settled=settled,
        notes=notes,
    )
    with log.group("Publish"):
        if settings.format in ("both", "comment"):
            history = histories.get(head)
            block = cycles.history_block(history) if history is not None else ""
            body = render.sticky_comment(
                verdict, extra_notes=[*notes, *cycles.notes], history_block=block
            )
            sticky_login = own_login or ACTIONS_BOT
            written: list[str] = []
            surfaces.write(
                "write the sticky comment",
                lambda: written.append(
                    publish_sticky(
                        gateway, req.pr, body, issue_comments, sticky_login, log
                    ).html_url
                ),
            )
            outcome.comment_url = written[0] if written else ""
        # A conditional re-read (a 304 costs no rate limit): is this still the PR's head?
        current = gateway.get_pull(req.pr).head_sha
        if current != head:
            return outcome, current
        state: StatusState = "success" if verdict.gate == "go" else "failure"
        surfaces.status(
            head, state, render.status_description(verdict), outcome.comment_url or None
        )
        surfaces.finish_check(head, verdict, render.check_output(verdict, extra_notes=notes))
    return outcome, None


def _judge_cycle(
    req: RunRequest,
    settings: Settings,
    cycles: Cycles,
    reading: Reading,
    expected: Sequence[BotKey],
    histories: dict[str, History],
    head_time: datetime | None,
    mode: SettleMode = "none",
) -> Verdict:
    """The verdict for one reading, reconciled with the history; keeps the record to store."""
    head = reading.pull.head_sha
    judgement = judge_reading(
        _subject(req, reading, expected, head_time, mode),
        cycles.context(head, reading.comments),
        _judge_settings(settings),
    )
    # The head's commit time and the resolved expected bots let a later noop skip those reads.
    histories[head] = judgement.record.model_copy(
        update={
            "head_time": head_time.isoformat() if head_time else None,
            "expected": list(expected),
        }
    )
    return judgement.verdict


def _subject(
    req: RunRequest,
    reading: Reading,
    expected: Sequence[BotKey],
    head_time: datetime | None,
    mode: SettleMode = "none",
) -> Subject:
    return Subject(
        repo=req.repo,
        pr=req.pr,
        head_sha=reading.pull.head_sha,
        comments=reading.comments,
        ingested=reading.ingested,
        expected=expected,
        head_time=head_time,
        settle=mode,
    )


def _judge_settings(settings: Settings) -> JudgeSettings:
    return JudgeSettings(
        group_window=settings.group_window,
        severity_overrides=settings.severity,
        required=settings.require_bots,
    )


def _fail(
    req: RunRequest,
    gateway: Gateway,
    settings: Settings | None,
    pull: PullInfo,
    log: Log,
    problem: str,
    issue_comments: Sequence[RawComment],
    *,
    surfaces: Surfaces | None = None,
    own_login: str | None = None,
    verdict: Verdict | None = None,
) -> Outcome:
    """No trustworthy verdict: status error, check failure, previous sticky marked stale."""
    from reviewcoord import render

    log.error(f"no trustworthy verdict (gate error): {problem}")
    surfaces = surfaces or Surfaces(gateway, settings or Settings(), log)
    sha = pull.head_sha

    def attempt(what: str, action: Callable[[], object]) -> None:
        # Each surface on its own: a dead status endpoint must not leave the check run
        # in_progress, nor a dead check-run endpoint leave a sticky claiming a verdict.
        try:
            action()
        except GatewayError as exc:
            log.error(f"could not {what} either: {exc}")

    attempt(
        "set the error status", lambda: surfaces.status(sha, "error", f"error: {problem}", None)
    )
    report = render.error_report(repo=req.repo, pr=req.pr, head_sha=sha, problem=problem)
    attempt(
        "complete the check run",
        lambda: surfaces.finish_check(
            sha, None, CheckOutput(title="No trustworthy verdict", summary=report)
        ),
    )
    if not issue_comments:
        try:  # best effort: find our previous sticky to mark it stale
            issue_comments = gateway.list_issue_comments(req.pr)
        except GatewayError:
            issue_comments = []
    if issue_comments:
        login = own_login or req.identity_hint or ACTIONS_BOT
        attempt(
            "mark the sticky comment stale",
            lambda: surfaces.write(
                "mark the sticky comment stale",
                lambda: mark_stale(gateway, issue_comments, login, problem, log, pr=req.pr),
            ),
        )
    return Outcome(
        "error",
        problem,
        verdict=None,
        head_sha=sha,
        settings=settings,
        read_only=surfaces.read_only,
    )
