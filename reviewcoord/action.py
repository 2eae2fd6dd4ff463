"""Running as the GitHub Action: environment → event → evaluation → outputs, summary, exit code.

Exit codes: 0 for a verdict (block or go, unless `fail-on-block`), 1 for gate `error` or
`fail-on-block` with block, 2 for a bad event or input (nothing written).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping

from reviewcoord.actions_io import (
    Log,
    append_summary,
    verdict_location,
    write_outputs,
    write_verdict_file,
)
from reviewcoord.config import declared_scope
from reviewcoord.errors import (
    EXIT_BLOCK,
    EXIT_OK,
    EXIT_UNREADABLE,
    EXIT_USAGE,
    EventError,
    GatewayError,
    UsageError,
)
from reviewcoord.event import HeadLookup, choose_pr, load_payload, resolve
from reviewcoord.github.gateway import Gateway
from reviewcoord.github.transport import api_url
from reviewcoord.next_step import next_step
from reviewcoord.runner import Outcome, RunRequest, evaluate
from reviewcoord.settle import SystemClock
from reviewcoord.verdict_output import scrub, verdict_output

# Inputs that map onto settings (docs/interface.md §3); the rest are read here directly.
SETTING_INPUTS = (
    "cycle",
    "settle",
    "fast-timeout",
    "full-timeout",
    "poll-interval",
    "finishing-grace",
    "confirm-delay",
    "expected-bots",
    "require-bots",
    "merge-patience",
    "format",
    "check-name",
    "status-context",
    "dry-run",
    "fail-on-block",
    "rerequest",
)


def action_input(env: Mapping[str, str], name: str) -> str:
    """`INPUT_<NAME>`: upper-cased, hyphens kept (docs/github-platform.md §3.2)."""
    return env.get(f"INPUT_{name.upper()}", "").strip()


def outputs_for(
    outcome: Outcome, data: Mapping[str, object], verdict_file: str, verdict: str
) -> dict[str, str]:
    """The step outputs (docs/interface.md §4): `data` is the verdict object, `verdict` its line."""
    v = outcome.verdict
    unreviewed = data.get("unreviewed")
    return {
        "gate": outcome.gate,
        "gate-reason": " ".join(outcome.reason.splitlines()),  # every kind of line break
        "critical-count": str(len(v.critical)) if v else "0",
        "advisory-count": str(len(v.advisory)) if v else "0",
        "settled-on": ",".join(v.settled_on) if v else "",
        "pending": ",".join(v.pending) if v else "",
        "unreviewed": ",".join(str(b) for b in unreviewed) if isinstance(unreviewed, list) else "",
        "comment-url": outcome.comment_url,
        "next-step": next_step(v, outcome.gate, bad_input=outcome.bad_input),
        "verdict": verdict,
        "verdict-file": verdict_file,
    }


def verdict_data(outcome: Outcome, *, repo: str, pr: int) -> dict[str, object]:
    """The verdict file's object (docs/interface.md §5). Without a verdict (gate `error`): the gate
    and why, and no finding lists (an empty `critical` would read as "nothing found")."""
    if outcome.verdict is not None:
        data = outcome.verdict.to_json_dict()
    else:
        data = dict(
            schema=1,
            repo=repo,
            pr=pr,
            head_sha=outcome.head_sha,
            gate="error",
            gate_reason=outcome.reason,
        )
    scrubbed: dict[str, object] = scrub(data)
    return scrubbed


def deliver(outcome: Outcome, env: Mapping[str, str], log: Log, *, repo: str, pr: int) -> str:
    """Job summary, verdict file and outputs: what a read-only token still delivers."""
    from reviewcoord import render

    notes = outcome.notes
    if outcome.verdict is not None:
        summary = render.job_summary(outcome.verdict, extra_notes=notes)
    else:
        summary = render.error_report(
            repo=repo, pr=pr, head_sha=outcome.head_sha, problem=outcome.reason
        )
    data = verdict_data(outcome, repo=repo, pr=pr)
    append_summary(env.get("GITHUB_STEP_SUMMARY"), summary)
    location = verdict_location(env, pr)
    path = write_verdict_file(location, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    if location.layout == "workspace":
        log.warning(
            f"verdict file written to the workspace ({path}): the runner's temp directory is "
            "mounted, but its host path is unknown (no RUNNER_WORKSPACE)"
        )
    line = verdict_output(data, full_file=path)
    if line.truncated:
        log.warning(f"the 'verdict' output is cut to fit GitHub's output limit; whole in {path}")
    write_outputs(env.get("GITHUB_OUTPUT"), outputs_for(outcome, data, path, line.text))
    if outcome.verdict is not None and outcome.read_only:
        # Annotations are the one more surface a read-only token has: the criticals first.
        # GitHub shows 10 errors per step; past that, the last slot says how many more.
        critical = outcome.verdict.critical
        room = log.annotations_left("error")
        shown = critical if len(critical) <= room else critical[: max(0, room - 1)]
        for f in shown:
            log.error(f"{f.id} {f.title}", file=f.file, line=f.line, title="critical finding")
        if len(shown) < len(critical) and room > 0:
            log.error(
                f"{len(critical) - len(shown)} more critical findings: see the job summary",
                title="critical findings",
            )
    return path


def write_spacing(env: Mapping[str, str]) -> float:
    """Seconds between mutations: GitHub asks ≥ 1 s; tests against a local server set 0."""
    try:
        return max(0.0, float(env.get("REVIEWCOORD_WRITE_SPACING", "1")))
    except ValueError:
        return 1.0


def run_action(env: Mapping[str, str]) -> int:
    from reviewcoord.github.pygithub_gateway import PyGithubGateway

    log = Log(sys.stdout, actions=True)
    token = action_input(env, "github-token") or env.get("GITHUB_TOKEN", "")
    log.mask(token)
    event_name = env.get("GITHUB_EVENT_NAME", "")
    if event_name == "schedule":
        return run_sweep(env, log, token)
    try:
        wait_mode(env)
        target = resolve(
            event_name, load_payload(env.get("GITHUB_EVENT_PATH")), action_input(env, "pr")
        )
        repo = action_input(env, "repo") or env.get("GITHUB_REPOSITORY", "")
        if repo.count("/") != 1:
            raise UsageError(
                f"input 'repo' / GITHUB_REPOSITORY must be OWNER/NAME, got {repo[:80]!r}"
            )
        base_url = api_url(env)
    except (EventError, UsageError) as exc:
        log.error(str(exc))
        return exc.exit_code
    if target.pr is None and target.lookup is None:
        log.notice(target.skip_reason)
        return EXIT_OK
    if not token:
        log.error("no token: set the 'github-token' input (default ${{ github.token }})")
        return UsageError.exit_code
    gateway = PyGithubGateway(repo, token, base_url=base_url, write_spacing=write_spacing(env))
    pr = target.pr if target.lookup is None else found_pr(target.lookup, gateway, log)
    if pr is None:
        return EXIT_OK if target.lookup is not None else EXIT_UNREADABLE
    request = run_request(env, repo, pr, event_head=target.head_sha)
    if target.merge_group is not None:  # a merge queue: report the PR's verdict, judge nothing
        from reviewcoord import merge_queue

        return merge_queue.run_action(request, target.merge_group, gateway, env, log, outputs_for)
    outcome = evaluate(request, gateway, SystemClock(), log)  # (it sets up a dry run itself)
    with declared_scope(outcome.settings):  # the job summary names declared reviewers too
        deliver(outcome, env, log, repo=repo, pr=pr)
    log.info(f"gate: {outcome.gate} — {outcome.reason} ({gateway.request_count} API requests)")
    return exit_code(outcome)


def wait_mode(env: Mapping[str, str]) -> bool:
    """Input `wait`: `poll` (settle in this run, the default) or `events` (decide once: a bot
    awaited is published as pending, reviewcoord/events.py). → whether the run waits."""
    value = action_input(env, "wait") or "poll"
    if value not in ("poll", "events"):
        raise UsageError(f"input 'wait' must be poll or events, got {value[:40]!r}")
    return value == "poll"


def run_request(
    env: Mapping[str, str], repo: str, pr: int, *, event_head: str | None = None
) -> RunRequest:
    return RunRequest(
        repo=repo,
        pr=pr,
        inputs={name: action_input(env, name) for name in SETTING_INPUTS},
        input_source="workflow inputs",
        config_path=action_input(env, "config") or ".github/review-coordinator.yml",
        # Judging by hand means "judge again": never answered by the noop.
        rejudge=env.get("GITHUB_EVENT_NAME", "") == "workflow_dispatch",
        event_head=event_head,
        waits=wait_mode(env),
    )


def run_sweep(env: Mapping[str, str], log: Log, token: str) -> int:
    """`schedule`: ask GitHub to run the event workflow (`sweep-workflow`, `workflow_dispatch`
    with input `pr`) for each PR whose waiting check's deadline passed (reviewcoord/sweep.py),
    at most `sweep-budget`; each dispatched run judges its PR in the PR's own concurrency group.
    This run judges nothing and writes no verdict. Under `wait: poll` no run leaves a PR waiting
    for a sweep: one line, nothing read, exit 0."""
    from reviewcoord.github.dry_run import DryRunGateway
    from reviewcoord.github.pygithub_gateway import PyGithubGateway
    from reviewcoord.sweep import DEFAULT_BUDGET, DEFAULT_WORKFLOW, sweep

    try:
        polls = wait_mode(env)
    except UsageError as exc:
        log.error(str(exc))
        return exc.exit_code
    if polls:
        log.notice("schedule: nothing to sweep under `wait: poll` (a sweep is `wait: events`)")
        return EXIT_OK
    repo = action_input(env, "repo") or env.get("GITHUB_REPOSITORY", "")
    raw = action_input(env, "sweep-budget") or str(DEFAULT_BUDGET)
    workflow = action_input(env, "sweep-workflow") or DEFAULT_WORKFLOW
    # A schedule runs on the default branch (GITHUB_REF): the branch the dispatch names.
    ref = env.get("GITHUB_REF_NAME") or env.get("GITHUB_REF", "").removeprefix("refs/heads/")
    if repo.count("/") != 1 or not token or not raw.isdigit():
        log.error("the sweep needs OWNER/NAME, a token and a whole number 'sweep-budget'")
        return EXIT_USAGE
    if not ref or ref.startswith("refs/") or "/" in workflow:
        log.error(
            "the sweep needs the default branch (GITHUB_REF_NAME, set on `schedule`) and a "
            f"workflow file name in 'sweep-workflow' (got {workflow[:80]!r})"
        )
        return EXIT_USAGE
    gateway: Gateway = PyGithubGateway(
        repo, token, base_url=api_url(env), write_spacing=write_spacing(env)
    )
    if action_input(env, "dry-run") == "true":  # the input only: the sweep reads no config
        gateway = DryRunGateway(gateway, log, "(you)")
    code = sweep(gateway, log, int(raw), workflow, ref)
    log.info(f"sweep: done ({gateway.request_count} API requests)")
    return code


def found_pr(lookup: HeadLookup, gateway: Gateway, log: Log) -> int | None:
    """The open PR of an event that names only its head (a fork's relay or check run),
    from GitHub's list of pull requests (one page); None when there is none (or the read
    failed: said in the log, nothing written — no PR is known to write on)."""
    try:
        pulls = gateway.recent_open_pulls(lookup.label)
    except GatewayError as exc:
        log.error(f"could not find the pull request of this event: {exc}")
        return None
    number, note = choose_pr(lookup, pulls)
    (log.info if number is not None else log.notice)(note)
    return number


def exit_code(outcome: Outcome) -> int:
    """errors.py's table: 2 for an invalid configuration, 3 for no trustworthy verdict
    otherwise, 1 for block with fail-on-block."""
    if outcome.gate == "error":
        return EXIT_USAGE if outcome.bad_input else EXIT_UNREADABLE
    if outcome.waiting:  # pending, not blocked: the check run says so
        return EXIT_OK
    fail_on_block = outcome.settings.fail_on_block if outcome.settings else False
    return EXIT_BLOCK if fail_on_block and outcome.gate == "block" else EXIT_OK
