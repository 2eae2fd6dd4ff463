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
from reviewcoord.bots import bot_for_login
from reviewcoord.config import Settings, build_settings, parse_config_file
from reviewcoord.errors import ConfigError, GatewayError, WriteForbidden
from reviewcoord.github.dry_run import DryRunGateway
from reviewcoord.github.gateway import CheckOutput, Gateway, PullInfo, StatusState
from reviewcoord.ingest import ingest
from reviewcoord.model import BOT_KEYS, BotKey, RawComment, Verdict
from reviewcoord.pipeline import verdict_from
from reviewcoord.publish.check_run import finish_check, start_check
from reviewcoord.publish.commit_status import set_status
from reviewcoord.publish.sticky import mark_stale, publish_sticky
from reviewcoord.settle import Clock, Reading, Settled, SettlePolicy, settle, waiting_for

ACTIONS_BOT = "github-actions[bot]"
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

    def __init__(self, gateway: Gateway, settings: Settings, log: Log) -> None:
        self.gateway = gateway
        self.settings = settings
        self.log = log
        self.read_only = False
        self.checks_unavailable = False
        self.check_ids: dict[str, int] = {}

    def _write(self, what: str, action: Callable[[], object], *, check: bool = False) -> bool:
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
        self._write(
            "create the check run",
            lambda: self.check_ids.__setitem__(
                sha, start_check(self.gateway, self.settings.check_name, sha, output)
            ),
            check=True,
        )
        self._write(
            "set the commit status",
            lambda: set_status(self.gateway, sha, "pending", text, self.settings.status_context),
        )

    def status(self, sha: str, state: StatusState, description: str, url: str | None) -> bool:
        return self._write(
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

        return self._write("complete the check run", complete, check=True)

    def supersede(self, old_sha: str, new_sha: str) -> None:
        """The head moved while we waited: close out what we opened on the old head."""
        reason = f"superseded: head moved to {new_sha[:7]}"
        self.status(old_sha, "error", reason, None)
        check_id = self.check_ids.get(old_sha)
        if check_id is not None:
            output = CheckOutput(title="Superseded", summary=f"{reason}; judged there instead.")
            self._write(
                "close the old head's check run",
                lambda: self.gateway.update_check_run(check_id, "completed", output, "cancelled"),
                check=True,
            )


def _read(
    gateway: Gateway, pr: int, own_login: str | None, times: dict[str, datetime | None]
) -> Reading:
    pull = gateway.get_pull(pr)
    comments: list[RawComment] = [
        *gateway.list_reviews(pr),
        *gateway.list_review_comments(pr),
        *gateway.list_issue_comments(pr),
    ]
    if pull.head_sha not in times:
        times[pull.head_sha] = gateway.get_commit_time(pull.head_sha)
    ingested = ingest(
        comments, head_sha=pull.head_sha, head_time=times[pull.head_sha], own_login=own_login
    )
    return Reading(pull=pull, comments=comments, ingested=ingested)


def resolve_expected(
    settings: Settings, gateway: Gateway, pull: PullInfo, log: Log, on_this_pr: Sequence[BotKey]
) -> list[BotKey]:
    """`auto`: the known bots seen in the repository's recent comments or on this PR, plus any
    named; all four when none was ever seen (an empty set must never mean an instant `go`).
    (The repository-wide lists hold inline and conversation comments, not review bodies, so a
    bot that only ever left clean reviews is found through this PR's own reviews.)"""
    expected: set[BotKey] = set(settings.explicit_expected)
    if settings.auto_expected:
        seen = {bot_for_login(login) for login, _type in gateway.recent_comment_authors()}
        found = {b for b in seen if b is not None} | set(on_this_pr)
        if found:
            log.info(
                f"expected-bots auto: seen on this repository recently: {', '.join(sorted(found))}"
            )
        elif not expected:
            log.notice(
                "expected-bots auto: no known AI reviewer has commented on this repository "
                "recently; expecting all four (codex, copilot, cursor, claude)"
            )
            found = set(BOT_KEYS)
        expected |= found
    if pull.author_type.casefold() == "bot" and "cursor" in expected:
        expected.discard("cursor")
        log.info("cursor is not expected: Bugbot does not review PRs opened by a bot account")
    return [b for b in BOT_KEYS if b in expected]


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
    from reviewcoord import render

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
        last_issue_comments: list[RawComment] = []

        def read() -> Reading:
            reading = _read(gateway, req.pr, own_login, times)
            last_issue_comments[:] = [c for c in reading.comments if c.endpoint == "issue_comment"]
            return reading

        own_login: str | None = None
        try:
            own_login = gateway.whoami() or req.identity_hint
            first = read()
            expected = resolve_expected(
                settings, gateway, first.pull, log, list(first.ingested.seen)
            )
        except GatewayError as exc:
            return _fail(
                req,
                gateway,
                settings,
                pull,
                log,
                str(exc),
                last_issue_comments,
                own_login=own_login,
            )
        log.info(f"identity: {own_login or 'unknown'}; expected bots: {', '.join(expected)}")

        surfaces = Surfaces(gateway, settings, log)
        surfaces.start(first.pull.head_sha, expected)

        policy = SettlePolicy(
            mode=settings.settle,
            expected=expected,
            fast_pack=settings.fast_pack,
            slow_pack=settings.slow_pack,
            fast_timeout=settings.fast_timeout,
            full_timeout=settings.full_timeout,
            poll_interval=settings.poll_interval,
            merge_patience=settings.merge_patience,
        )

        def judge(reading: Reading) -> Verdict:
            return verdict_from(
                reading.ingested,
                repo=req.repo,
                pr=req.pr,
                head_sha=reading.pull.head_sha,
                cycle=settings.cycle or 1,
                settle=policy.mode,
                expected=expected,
                group_window=settings.group_window,
                severity_overrides=settings.severity,
            )

        def on_poll(reading: Reading, elapsed: float) -> None:
            states = reading.ingested.states
            done = [b for b in expected if states.get(b) == "settled"]
            log.info(
                f"t+{elapsed:.0f}s head {reading.pull.head_sha[:7]}: settled "
                f"{', '.join(done) or 'none'}; waiting for "
                f"{', '.join(waiting_for(reading, expected)) or 'nobody'}"
            )

        try:
            settled = settle(
                read, policy, clock, lambda r: judge(r).gate == "go", on_poll, first=first
            )
        except GatewayError as exc:
            return _fail(
                req,
                gateway,
                settings,
                pull,
                log,
                str(exc),
                last_issue_comments,
                surfaces=surfaces,
                own_login=own_login,
            )
        for note in settled.log:
            log.info(note)

    reading = settled.reading
    head = reading.pull.head_sha
    started = first.pull.head_sha
    if head != started:
        # The old head's check run and status must not stay pending forever.
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
        try:
            if settings.format in ("both", "comment"):
                body = render.sticky_comment(verdict, extra_notes=notes)
                sticky_login = own_login or ACTIONS_BOT
                written: list[str] = []
                surfaces._write(
                    "write the sticky comment",
                    lambda: written.append(
                        publish_sticky(
                            gateway, req.pr, body, last_issue_comments, sticky_login, log
                        ).html_url
                    ),
                )
                outcome.comment_url = written[0] if written else ""
            state: StatusState = "success" if verdict.gate == "go" else "failure"
            surfaces.status(
                head, state, render.status_description(verdict), outcome.comment_url or None
            )
            surfaces.finish_check(head, verdict, render.check_output(verdict, extra_notes=notes))
        except GatewayError as exc:
            log.error(f"publishing failed: {exc}")
            return _fail(
                req,
                gateway,
                settings,
                reading.pull,
                log,
                f"could not publish: {exc}",
                last_issue_comments,
                surfaces=surfaces,
                own_login=own_login,
                verdict=verdict,
            )
    outcome.read_only = surfaces.read_only
    if surfaces.read_only:
        outcome.notes.append(FORK_HELP)
    return outcome


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
    try:
        surfaces.status(sha, "error", f"error: {problem}", None)
        report = render.error_report(repo=req.repo, pr=req.pr, head_sha=sha, problem=problem)
        surfaces.finish_check(
            sha, None, CheckOutput(title="No trustworthy verdict", summary=report)
        )
        if not issue_comments:
            try:  # best effort: find our previous sticky to mark it stale
                issue_comments = gateway.list_issue_comments(req.pr)
            except GatewayError:
                issue_comments = []
        if issue_comments:
            login = own_login or req.identity_hint or ACTIONS_BOT
            surfaces._write(
                "mark the sticky comment stale",
                lambda: mark_stale(gateway, issue_comments, login, problem, log),
            )
    except GatewayError as exc:
        log.error(f"could not report the error on GitHub either: {exc}")
    return Outcome(
        "error",
        problem,
        verdict=None,
        head_sha=sha,
        settings=settings,
        read_only=surfaces.read_only,
    )
