"""Merge queues (interface §2, §6): the `merge_group` event.

A merge queue asks for the required checks on the merge group's own commit
(`merge_group.head_sha`), which no `pull_request` run ever sees. This module answers from the
PR's recorded verdict; it never settles, never judges bot comments and never writes the sticky.

The rule is `reviewcoord.merge_decision.decide`'s (pure: the evidence read here in, the
check's conclusion out).

Writes, on `merge_group.head_sha` only, each through the publishers' `WriteGuard`: a check run
(opened `in_progress` first, which also tells an App token who it is, as in the runner), then
the commit status, then the check run completed. The status links the PR's sticky (else the PR).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Literal

from reviewcoord.actions_io import (
    Log,
    append_summary,
    verdict_location,
    write_outputs,
    write_verdict_file,
)
from reviewcoord.config import Settings, build_settings, declared_scope
from reviewcoord.errors import (
    EXIT_BLOCK,
    EXIT_OK,
    EXIT_UNREADABLE,
    EXIT_USAGE,
    ConfigError,
    GatewayError,
)
from reviewcoord.event import MergeGroup
from reviewcoord.github.dry_run import DryRunGateway
from reviewcoord.github.gateway import CheckRunRef, CommitStatusRef, Gateway, PullInfo
from reviewcoord.merge_decision import Decision, Evidence, decide
from reviewcoord.publish.commit_status import set_status
from reviewcoord.publish.surfaces import WriteGuard
from reviewcoord.render import merge_group as text
from reviewcoord.resolve import read_config
from reviewcoord.runner import Outcome, RunRequest
from reviewcoord.trusted import find_record
from reviewcoord.verdict_output import scrub, verdict_output

INVALID_CONFIG = "invalid configuration: "


@dataclass
class MergeRun:
    """The run: reads, the decision, then the writes on the merge group's commit."""

    group: MergeGroup
    settings: Settings
    evidence: Evidence
    decision: Decision
    summary: str = ""
    notes: list[str] = field(default_factory=list)
    bad_config: bool = False  # the error is an invalid configuration (exit 2, not 3)


def _settings(
    req: RunRequest, gateway: Gateway, base: str, log: Log
) -> tuple[Settings, str, str | None]:
    """Inputs over the base branch's config file (never the PR's; an invalid one: its last
    valid version, with a warning, resolve.read_config); a problem makes gate error."""
    source = f"{req.config_path} (base branch {base})"

    def build(values: dict[str, object]) -> Settings:
        return build_settings(values, req.inputs, file_source=source, input_source=req.input_source)

    try:
        values, used = read_config(gateway, req.config_path, base)
        if used.warning:
            log.error(used.warning, file=req.config_path, line=used.line)
        return build(values), "", used.warning
    except ConfigError as exc:
        problem = f"{INVALID_CONFIG}{exc}"
    except GatewayError as exc:
        problem = f"could not read the config file: {exc}"
    try:  # still report under the configured names where the inputs give them
        return build({}), problem, None
    except ConfigError:
        return Settings(), problem, None


def _head_signal(
    gateway: Gateway, pull: PullInfo, settings: Settings, login: str, app: str | None, log: Log
) -> tuple[CheckRunRef | None, CommitStatusRef | None, str]:
    """Our newest check run on the PR head; without one (or unreadable), our newest status."""
    head = pull.head_sha
    try:
        runs = gateway.list_check_runs(head, settings.check_name)
        # Our App's runs only, when we know which App we are (our own check run told us).
        mine = [
            r for r in runs if r.name == settings.check_name and (app is None or r.app_slug == app)
        ]
        if mine:
            return max(mine, key=lambda r: r.id), None, ""
        log.info(f"no {settings.check_name!r} check run of ours on {head[:7]}: its status decides")
    except GatewayError as exc:
        log.warning(f"check runs of {head[:7]} not read ({exc}): its commit status decides")
    try:
        statuses = gateway.list_commit_statuses(head)
    except GatewayError as exc:
        return None, None, f"could not read the commit statuses of {head[:7]}: {exc}"
    context = settings.status_context.casefold()
    ours = [s for s in statuses if s.context.casefold() == context and s.creator_login == login]
    return None, max(ours, key=lambda s: s.id, default=None), ""


def _gather(
    gateway: Gateway,
    req: RunRequest,
    group: MergeGroup,
    settings: Settings,
    who: tuple[str, str | None],
    log: Log,
) -> Evidence:
    """The PR (fresh), our sticky and its record, and the PR head's check run or status."""
    login, app = who
    try:
        pull = gateway.get_pull(group.pr)
    except GatewayError as exc:
        return Evidence(group, problem=f"could not read PR #{group.pr}: {exc}")
    log.info(f"PR #{group.pr}: head {pull.head_sha} on {pull.base_ref or '?'}; {pull.state}")
    try:
        comments = gateway.list_issue_comments(group.pr)
    except GatewayError as exc:
        return Evidence(
            group, pull, problem=f"could not read the comments of PR #{group.pr}: {exc}"
        )
    record, notice, sticky = find_record(comments, login, repo=req.repo, pr=group.pr)
    check, status, signal_problem = _head_signal(gateway, pull, settings, login, app, log)
    return Evidence(group, pull, sticky, record, notice, check, status, "", signal_problem)


def _identify(
    gateway: Gateway, guard: WriteGuard, settings: Settings, req: RunRequest, group: MergeGroup
) -> tuple[str, str | None, int | None, str]:
    """(our login, our App's slug, the check run opened on the merge group, a read problem).

    The check run we open says which App we are (`<slug>[bot]`; GITHUB_TOKEN:
    github-actions[bot]), as in the runner; only when it cannot (a personal token, which may
    not write check runs; dry run) is `GET /user` asked."""
    opened: list[CheckRunRef] = []
    output = text.pending_output(group.pr)
    name = settings.check_name

    def open_check() -> None:
        opened.append(gateway.create_check_run(name, group.head_sha, "in_progress", output))

    try:
        guard.write("create the check run on the merge group", open_check, check=True)
    except GatewayError as exc:  # completing it later creates it instead
        guard.log.warning(f"could not open the check run on the merge group: {exc}")
    app = opened[0].app_slug if opened else None
    check_id = opened[0].id if opened else None
    if app:
        return f"{app}[bot]", app, check_id, ""
    try:
        confirmed = gateway.whoami()
    except GatewayError as exc:
        return "(unknown)", None, check_id, f"could not read the token's identity: {exc}"
    return confirmed or req.identity_hint or "(unknown)", None, check_id, ""


def _report(
    gateway: Gateway, guard: WriteGuard, run: MergeRun, check_id: int | None, url: str
) -> list[str]:
    """The commit status, then the completed check run, on the merge group's commit."""
    d, sha, settings = run.decision, run.group.head_sha, run.settings
    output = text.check_output(run.summary, d.gate, d.reason)
    conclusion: Literal["success", "failure"] = d.state
    errors: list[str] = []

    def attempt(what: str, action: Callable[[], object], *, check: bool) -> None:
        try:
            guard.write(what, action, check=check)
        except GatewayError as exc:
            guard.log.error(f"could not {what}: {exc}")
            errors.append(f"could not {what}: {exc}")

    def complete() -> None:
        if check_id is None:
            gateway.create_check_run(settings.check_name, sha, "completed", output, conclusion)
        else:
            gateway.update_check_run(check_id, "completed", output, conclusion)

    description = text.description(d.gate, d.reason)
    attempt(
        "set the commit status on the merge group",
        lambda: set_status(gateway, sha, d.state, description, settings.status_context, url),
        check=False,
    )
    attempt("complete the check run on the merge group", complete, check=True)
    return errors


def run_merge_group(req: RunRequest, group: MergeGroup, gateway: Gateway, log: Log) -> MergeRun:
    """Reads, `decide`, then the status and check run on `group.head_sha`. Never the sticky."""
    with (
        ExitStack() as scope,
        log.group(f"review-coordinator: merge group {group.head_sha[:7]} of {req.repo}#{group.pr}"),
    ):
        settings, problem, warning = _settings(req, gateway, group.base, log)
        scope.enter_context(declared_scope(settings))  # as every run with these settings
        if settings.dry_run and not isinstance(gateway, DryRunGateway):
            gateway = DryRunGateway(gateway, log, req.identity_hint or "(you)")
        guard = WriteGuard(log)
        login, app, check_id, who_problem = _identify(gateway, guard, settings, req, group)
        if problem or who_problem:
            evidence = Evidence(group, problem=problem or who_problem)
        else:
            log.info(f"identity: {login}")
            evidence = _gather(gateway, req, group, settings, (login, app), log)
        decision = decide(evidence)
        pull = evidence.pull
        sticky_url = evidence.sticky.html_url if evidence.sticky else ""
        summary = text.report(
            repo=req.repo,
            pr=group.pr,
            gate=decision.gate,
            reason=decision.reason,
            group_sha=group.head_sha,
            pr_head=pull.head_sha if pull else group.pr_head,
            verdict_url=sticky_url,
            pull_url=pull.html_url if pull else "",
        )
        bad_config = problem.startswith(INVALID_CONFIG)
        run = MergeRun(group, settings, evidence, decision, summary, bad_config=bad_config)
        errors = _report(
            gateway, guard, run, check_id, sticky_url or (pull.html_url if pull else "")
        )
        if errors:
            run.decision = Decision("failure", "error", "; ".join(errors))
        if guard.read_only:
            run.notes.append("the token cannot write: nothing was reported on the merge group")
        if warning:
            run.notes.append(warning)
    return run


OutputsFor = Callable[[Outcome, Mapping[str, object], str, str], dict[str, str]]


def deliver(
    run: MergeRun, req: RunRequest, env: Mapping[str, str], log: Log, outputs_for: OutputsFor
) -> int:
    """Job summary, verdict file and outputs of a merge_group run; the step's exit code.
    (`outputs_for` is action.outputs_for, passed in: no import of the Action's entry here.)"""
    d, ev = run.decision, run.evidence
    head = ev.pull.head_sha if ev.pull else None
    comment_url = ev.sticky.html_url if ev.sticky else ""
    data: dict[str, object] = scrub(
        {
            "schema": 1,
            "event": "merge_group",
            "repo": req.repo,
            "pr": run.group.pr,
            "head_sha": head,
            "merge_group": {"head_sha": run.group.head_sha, "head_ref": run.group.head_ref},
            "gate": d.gate,
            "gate_reason": d.reason,
            "comment_url": comment_url,
        }
    )
    append_summary(env.get("GITHUB_STEP_SUMMARY"), run.summary)
    location = verdict_location(env, run.group.pr)
    path = write_verdict_file(location, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    line = verdict_output(data, full_file=path)
    outcome = Outcome(d.gate, d.reason, head_sha=head, comment_url=comment_url)
    # A merge_group run judges no findings: the counts are not known here, not zero.
    outputs = {
        **outputs_for(outcome, data, path, line.text),
        "critical-count": "",
        "advisory-count": "",
    }
    write_outputs(env.get("GITHUB_OUTPUT"), outputs)
    for note in run.notes:
        log.warning(note)
    if d.gate == "error":  # errors.py's table: 2 for a bad config file, else 3
        return EXIT_USAGE if run.bad_config else EXIT_UNREADABLE
    return EXIT_BLOCK if run.settings.fail_on_block and d.gate == "block" else EXIT_OK


def run_action(
    req: RunRequest,
    group: MergeGroup,
    gateway: Gateway,
    env: Mapping[str, str],
    log: Log,
    outputs_for: OutputsFor,
) -> int:
    """The Action on `merge_group`: run, deliver, and the exit code (1 for gate error)."""
    run = run_merge_group(req, group, gateway, log)
    code = deliver(run, req, env, log, outputs_for)
    d = run.decision
    log.info(
        f"merge group {group.head_sha[:7]}: {d.state} (gate {d.gate}) — {d.reason} "
        f"({gateway.request_count} API requests)"
    )
    return code
