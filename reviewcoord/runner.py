"""One evaluation of one PR against GitHub: resolve → settle → judge → publish.

Shared by the Action and the CLI's live mode. The steps and their state are an `Evaluation`
(reviewcoord/evaluation.py); this module orders them and decides what is published.

Fail closed: if any read is incomplete or the config is invalid, the gate is `error` — status
`error`, check run `failure` saying what could not be read — and the previous sticky is kept
(marked stale), never replaced by a partial verdict.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import ExitStack
from dataclasses import dataclass, replace
from typing import Any

from reviewcoord import events, render, rerequest
from reviewcoord.actions_io import Log
from reviewcoord.config import Settings, declared_scope
from reviewcoord.cycles import ACTIONS_BOT
from reviewcoord.errors import ConfigError, GatewayError
from reviewcoord.evaluation import Evaluation
from reviewcoord.github.gateway import Gateway, PullInfo
from reviewcoord.judgement import Judgement
from reviewcoord.model import Verdict
from reviewcoord.publish.surfaces import FORK_HELP, Publication
from reviewcoord.reading import read_pull
from reviewcoord.request import Outcome, RunRequest
from reviewcoord.resolve import (
    CONFIG_WARNING_LEAD,
    PROPOSED_LEAD,
    ConfigUsed,
    auto_note,
    identity,
    load_settings,
    proposed_config_note,
    resolve_expected,
    valid_alone,
)
from reviewcoord.settle import Clock, Settled

__all__ = ["ACTIONS_BOT", "FORK_HELP", "Outcome", "RunRequest", "evaluate", "resolve_expected"]

# How often publishing starts over when the head moves under it (then it publishes as read).
MAX_PUBLISH_RESTARTS = 2
# How often a `go` is judged again when the confirming read differs (then it is published as
# the last judgement says: each of those judgements read everything).
MAX_CONFIRMS = 3


Prepared = tuple[PullInfo, Settings, tuple[str, str], ConfigUsed]


def _prepare(req: RunRequest, gateway: Gateway, log: Log) -> Prepared | Outcome:
    """The PR, who we are, and the settings (config from its base branch), or the failure —
    written, like every failure, to the check and status the workflow configured
    (`check-name`, `status-context`), on the head from the event payload when the PR itself
    cannot be read."""
    try:
        pull = gateway.get_pull(req.pr)
    except GatewayError as exc:
        problem = f"could not read PR {req.pr}: {exc}"
        if req.event_head is None:
            log.error(f"{problem} (the event names no head commit: nothing could be written)")
            return Outcome("error", problem)
        at = PullInfo(number=req.pr, head_sha=req.event_head, base_ref="")
        return Evaluation(req, gateway, fallback_settings(req), log).fail(problem, at)
    log.info(f"head {pull.head_sha} on {pull.base_ref or '?'}; state {pull.state}")
    try:
        who = identity(gateway, req.identity_hint)
    except GatewayError as exc:
        problem = f"could not read who our token is: {exc}"
        return Evaluation(req, gateway, fallback_settings(req), log).fail(problem, pull)
    parsed: dict[str, Any] = {}
    try:
        settings, used = load_settings(
            gateway, pull, req.config_path, req.inputs, req.input_source, parsed, who[1]
        )
        return pull, settings, who, used
    except ConfigError as exc:
        failed = Evaluation(req, gateway, fallback_settings(req, parsed), log, who)
        outcome = failed.fail(f"invalid configuration: {exc}", pull)
        outcome.bad_input = True
        return outcome
    except GatewayError as exc:
        problem = f"could not read the config file: {exc}"
    return Evaluation(req, gateway, fallback_settings(req), log, who).fail(problem, pull)


def fallback_settings(req: RunRequest, file_values: Mapping[str, Any] | None = None) -> Settings:
    """The defaults, when the settings could not be built — except where the failure is
    written: the input's `check-name` / `status-context` (else the config file's), each used
    when valid on its own, so the check the branch rule requires gets the failure; a
    requested dry run stays dry."""
    return Settings.model_validate(valid_alone(req.inputs, file_values or {}))


def evaluate(req: RunRequest, gateway: Gateway, clock: Clock, log: Log) -> Outcome:
    # `scope`: the declared reviewers' registry scope, entered once the settings are read and
    # kept until the verdict is published.
    with ExitStack() as scope:
        with log.group(f"review-coordinator: {req.repo}#{req.pr}"):
            prepared = _prepare(req, gateway, log)
            if isinstance(prepared, Outcome):
                return prepared
            pull, settings, who, used = prepared
            scope.enter_context(declared_scope(settings))
            run = Evaluation(req, gateway, settings, log, who)
            run.clock = clock
            said = Said([], used)
            if used.warning:
                log.error(used.warning, file=req.config_path, line=used.line)
            try:
                first = run.begin(pull)
                said.notes.extend(n for n in [auto_note(settings, run.expected)] if n)
                assert run.cycles is not None
                if not req.rejudge and not _config_news(run, used) and run.cycles.is_noop(first):
                    return run.noop(first)
                said.notes.extend(_proposed_config(req, run, first.pull, used))
                log.info(
                    f"identity: {run.own_login or 'unknown'}; "
                    f"expected bots: {', '.join(run.expected)}"
                )
                run.open_surfaces(first)
                first = run.with_states(first)  # the bots' own checks, now ours are written
                settled = run.settle(clock, first)
            except GatewayError as exc:
                return run.fail(str(exc), pull)
            except Exception as exc:  # a bug must not leave an earlier success standing
                return run.fail(internal_error(exc), pull)
        try:
            return _publish_until_stable(run, clock, settled, first.pull.head_sha, said)
        except Exception as exc:  # as above: the required check says error, not the old green
            return run.fail(internal_error(exc), settled.reading.pull)


@dataclass
class Said:
    """What a run says besides its verdict: notes for every surface (what `auto` found, what the
    PR's config edit would change), and which config file judged it (its warning, if invalid)."""

    notes: list[str]
    config: ConfigUsed


def _config_news(run: Evaluation, used: ConfigUsed) -> bool:
    """The config file is invalid, or was when our sticky was written: never a noop then, so
    that every surface says so while it lasts, and stops saying so once it is fixed."""
    sticky = run.cycles.sticky if run.cycles is not None else None
    return bool(used.warning) or (sticky is not None and CONFIG_WARNING_LEAD in sticky.body)


def _proposed_config(
    req: RunRequest, run: Evaluation, pull: PullInfo, used: ConfigUsed
) -> list[str]:
    """The note on what the PR's own edit of the config file would change (never used to
    judge it); one read, made once per head (a head judged before whose sticky has no such note
    has nothing to say). Informational: when the read fails, only the log says so."""
    assert run.cycles is not None
    record, sticky = run.cycles.record, run.cycles.sticky
    judged = record is not None and record.last_head == pull.head_sha
    if judged and (sticky is None or PROPOSED_LEAD not in sticky.body):
        return []
    try:
        note = proposed_config_note(
            run.gateway, pull, req.config_path, req.inputs, run.settings, used, run.own_login
        )
    except GatewayError as exc:
        run.log.notice(f"could not read this PR's copy of {req.config_path}: {exc}")
        return []
    return [note] if note else []


def internal_error(exc: Exception) -> str:
    """The problem a crash reports: its type only (a message may quote untrusted text)."""
    return f"internal error ({type(exc).__name__}): please report it with the job log"


def _publish_until_stable(
    run: Evaluation, clock: Clock, settled: Settled, started: str, said: Said
) -> Outcome:
    """Publish; if the head moved meanwhile, judge the new head instead (bounded): the old
    head's status must never be written after a newer head's run may have written its own."""
    for attempt in range(MAX_PUBLISH_RESTARTS + 1):
        try:
            outcome, moved_to = _publish(run, settled, started, clock, said)
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


def _confirmed(run: Evaluation, clock: Clock, settled: Settled) -> tuple[Settled, Judgement] | str:
    """The judgement to publish. A `go` must survive a second read of the PR and its comments
    `confirm-delay` seconds later (conditional requests: unchanged lists cost 304s, no rate
    limit): a new or edited comment in between is read again in full and judged again (at most
    MAX_CONFIRMS times); a moved head is returned for the caller to start over on."""
    assert run.cycles is not None
    reading = settled.reading
    judgement = run.judge(reading, settled.mode)
    for _ in range(MAX_CONFIRMS):
        if judgement.verdict.gate != "go":
            break
        clock.sleep(run.settings.confirm_delay)
        pull, comments = read_pull(run.gateway, run.req.pr, run.log)
        if pull.head_sha != reading.pull.head_sha:
            return pull.head_sha
        if run.cycles.fingerprint(comments) == run.cycles.fingerprint(reading.comments):
            break
        run.log.notice("a comment changed between the two reads before go: judging again")
        again = run.read()
        if again.pull.head_sha != reading.pull.head_sha:
            return again.pull.head_sha
        settled = replace(settled, reading=again)
        reading = again
        judgement = run.judge(reading, settled.mode)
    return replace(settled, reading=reading), judgement


def _publish(
    run: Evaluation, settled: Settled, started: str, clock: Clock, said: Said
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
    if settled.awaiting is not None:  # `wait: events`: pending, and exit
        return publish_wait(run, settled, [*said.notes, *settled.log], said.config)
    confirmed = _confirmed(run, clock, settled)
    if isinstance(confirmed, str):
        return Outcome("error", "the head moved", head_sha=head, settings=run.settings), confirmed
    settled, judgement = confirmed
    verdict = judgement.verdict.model_copy(update={"config_warning": said.config.warning})
    notes = [*said.notes, *settled.log]
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
        pub = _publication(run, judgement, verdict, notes, said.config)
        # A conditional re-read (a 304 costs no rate limit): is this still the PR's head?
        moved_to = run.surfaces.publish(pub, lambda: run.gateway.get_pull(run.req.pr).head_sha)
        outcome.comment_url = pub.comment_url
    return outcome, moved_to


def _publication(
    run: Evaluation, judgement: Judgement, verdict: Verdict, notes: list[str], config: ConfigUsed
) -> Publication:
    """What the surfaces publish of a judgement: the verdict, its notes, the cycles' notes and
    (for the sticky) the history block."""
    assert run.cycles is not None
    sticky = run.settings.format in ("both", "comment")
    return Publication(
        verdict,
        notes=notes,
        sticky_notes=list(run.cycles.notes),
        history_block=run.cycles.history_block(judgement.record) if sticky else "",
        config_where=config.where,
    )


def publish_wait(
    run: Evaluation, settled: Settled, notes: list[str], config: ConfigUsed
) -> tuple[Outcome, str | None]:
    """Publish the interim judgement as pending (`Surfaces.wait`); → the outcome and, if the
    head moved before the status was written, the new head (nothing more was written)."""
    awaiting = settled.awaiting
    assert run.cycles is not None and awaiting is not None
    head = settled.reading.pull.head_sha
    judgement = run.judge(settled.reading, settled.mode)
    verdict = events.interim(judgement.verdict, awaiting).model_copy(
        update={"config_warning": config.warning}
    )
    asked = [a for a in judgement.record.asked or [] if a.head == head]
    notes = [events.awaiting_line(awaiting, settled.mode), *notes, *map(rerequest.note, asked)]
    outcome = Outcome(
        verdict.gate, verdict.gate_reason, verdict, head, settings=run.settings, settled=settled
    )
    outcome.notes, outcome.waiting = notes, True
    pub = _publication(run, judgement, verdict, notes, config)
    output = render.check_output(verdict, extra_notes=notes).model_copy(
        update={
            "title": f"Awaiting {', '.join(awaiting.bots)}",
            "text": events.deadline_text(awaiting),
        }
    )
    with run.log.group("Publish (pending: awaiting a reviewer)"):
        moved = run.surfaces.wait(pub, output, lambda: run.gateway.get_pull(run.req.pr).head_sha)
    outcome.comment_url = pub.comment_url
    return outcome, moved
