"""The workflows as GitHub would apply them: the user's two small files (examples/workflows: the
events, and the relay on `workflow_run`) calling the shipped reusable workflow
(.github/workflows/judge.yml), whose job `if:`s and concurrency group are evaluated by
tests/ghexpr.py; and event payloads built from the real ones in tests/fixtures/payloads
(bot-authored variants change only `user.login` / `user.type`, the body and `action`; see
PROVENANCE.md)."""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from tests import ghexpr

ROOT = Path(__file__).resolve().parents[1]
REUSABLE = ROOT / ".github/workflows/judge.yml"
CALLER = ROOT / "examples/workflows/review-coordinator.yml"
RELAY = ROOT / "examples/workflows/review-coordinator-relay.yml"
# The variant of the event workflow on `pull_request_target` (docs/adopt.md): it replaces CALLER.
TARGET_CALLER = ROOT / "examples/workflows/review-coordinator-pull-request-target.yml"
PAYLOADS = Path(__file__).parent / "fixtures/payloads"
JOB = "judge"  # the reusable workflow's job that runs the action
SWEEP = "sweep"  # the one that runs it on `schedule` (the sweep of `wait: events`)
JOBS = ("judge", "hand-over", SWEEP)  # at most one of them runs for an event


def load(text: str) -> dict[str, Any]:
    data = yaml.safe_load(text)
    if True in data:  # YAML 1.1 reads the key `on` as a boolean
        data["on"] = data.pop(True)
    return dict(data)


@cache
def _read(path: Path) -> dict[str, Any]:
    return load(path.read_text(encoding="utf-8"))


def reusable() -> dict[str, Any]:
    return _read(REUSABLE)


def caller(event: str, event_file: Path = CALLER, relay: Path = RELAY) -> dict[str, Any]:
    """The user's workflow that receives `event`: the relay for `workflow_run`, and for
    `schedule` when the relay has that trigger (docs/adopt.md § Waiting without a runner), else
    the event workflow (`event_file`: CALLER or its `pull_request_target` variant)."""
    if event == "workflow_run" or (event == "schedule" and event in _read(relay)["on"]):
        return _read(relay)
    return _read(event_file)


def job(name: str = JOB) -> dict[str, Any]:
    return dict(reusable()["jobs"][name])


def triggered(
    event: str, payload: dict[str, Any], event_file: Path = CALLER, relay: Path = RELAY
) -> bool:
    """The event and its activity type are among the caller's triggers (and, for the relay,
    the run that completed is the event workflow's)."""
    triggers = caller(event, event_file, relay)["on"]
    if event not in triggers:
        return False
    if event == "schedule":  # a list of crons, no activity types
        return bool(triggers[event])
    spec = triggers[event] or {}
    types = spec.get("types")
    if types is not None and payload.get("action") not in types:
        return False
    if event == "workflow_run":
        name = (payload.get("workflow_run") or {}).get("name")
        return name in spec.get("workflows", [])
    return True


def call_inputs(
    event: str, payload: dict[str, Any], event_file: Path = CALLER, relay: Path = RELAY
) -> dict[str, Any]:
    """The reusable workflow's inputs: its defaults, then what the caller's `with:` passes."""
    declared = reusable()["on"]["workflow_call"]["inputs"]
    values = {name: spec.get("default", "") for name, spec in declared.items()}
    (call,) = caller(event, event_file, relay)["jobs"].values()
    outer = ghexpr.event_context(event, payload)
    for name, template in (call.get("with") or {}).items():
        values[name] = ghexpr.interpolate(str(template), outer)
    return values


def context(
    event: str,
    payload: dict[str, Any],
    run_id: int = 1,
    event_file: Path = CALLER,
    relay: Path = RELAY,
) -> dict[str, Any]:
    inputs = call_inputs(event, payload, event_file, relay)
    return ghexpr.event_context(event, payload, run_id=run_id, inputs=inputs)


def truthy_if(name: str, ctx: dict[str, Any]) -> bool:
    """The job `name`'s `if:` in the contexts `ctx`."""
    return ghexpr.truthy(ghexpr.evaluate(str(job(name)["if"]), ctx))


def job_for(
    event: str, payload: dict[str, Any], event_file: Path = CALLER, relay: Path = RELAY
) -> str | None:
    """Which job of the reusable workflow GitHub would start for the event, if any, when the
    repository's event workflow is `event_file` and its relay `relay`."""
    if not triggered(event, payload, event_file, relay):
        return None
    ctx = context(event, payload, event_file=event_file, relay=relay)
    started = [n for n in JOBS if truthy_if(n, ctx)]
    assert len(started) <= 1, f"{event}: both {started} would run"
    return started[0] if started else None


def starts(event: str, payload: dict[str, Any]) -> bool:
    """The action runs (the `judge` job starts)."""
    return job_for(event, payload) == JOB


def group(event: str, payload: dict[str, Any], run_id: int = 1, name: str = JOB) -> str:
    template = str(job(name)["concurrency"]["group"])
    return ghexpr.interpolate(template, context(event, payload, run_id))


# ---------------------------------------------------------------------------- payloads
@cache
def _fixture(name: str) -> str:
    return (PAYLOADS / name).read_text(encoding="utf-8")


def fixture(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(_fixture(name))
    return data


def _author(obj: dict[str, Any], login: str) -> None:
    obj["login"] = login
    obj["type"] = "Bot" if login.endswith("[bot]") or login == "Copilot" else "User"


PULL_FIXTURES = {
    "synchronize": "pull_request.synchronize.json",
    "ready_for_review": "pull_request.ready_for_review.json",
    "reopened": "pull_request.reopened.json",
}


def pull_request(
    action: str = "opened",
    pr: int = 2,
    *,
    fork: bool = False,
    base_changed: bool = False,
    actor: str | None = None,
) -> dict[str, Any]:
    """`pull_request` (or `pull_request_target`: the same payload). `base_changed`: an `edited`
    whose `changes.base` says the base branch was changed (GitHub's webhook shape); `actor`:
    who caused it (`sender`: Dependabot's runs get a read-only token)."""
    p = fixture(PULL_FIXTURES.get(action, "pull_request.opened.json"))
    p["action"] = action
    p["number"] = pr
    p["pull_request"]["number"] = pr
    if fork:
        _from_fork(p)
    if action == "edited":
        p["changes"] = (
            {"base": {"ref": {"from": "develop"}, "sha": {"from": "0" * 40}}}
            if base_changed
            else {"title": {"from": "(the previous title)"}}
        )
    if actor is not None:
        _author(p["sender"], actor)
    return p


def _from_fork(p: dict[str, Any]) -> dict[str, Any]:
    """The same event on a PR whose head is in a fork (`head.repo` another repository)."""
    p["pull_request"]["head"]["repo"]["full_name"] = "contributor/Hello-World"
    p["pull_request"]["head"]["repo"]["fork"] = True
    return p


def review(
    login: str, body: str | None = None, action: str = "submitted", *, fork: bool = False
) -> dict[str, Any]:
    p = fixture("pull_request_review.submitted.json")
    if fork:
        _from_fork(p)
    p["action"] = action
    _author(p["review"]["user"], login)
    _author(p["sender"], login)
    p["review"]["body"] = body
    return p


def review_comment(
    login: str, body: str, action: str = "created", *, fork: bool = False
) -> dict[str, Any]:
    p = fixture("pull_request_review_comment.created.json")
    if fork:
        _from_fork(p)
    p["action"] = action
    _author(p["comment"]["user"], login)
    _author(p["sender"], login)
    p["comment"]["body"] = body
    return p


def issue_comment(
    login: str, body: str, action: str = "created", *, on_pr: bool = True
) -> dict[str, Any]:
    name = "issue_comment.created.on-pr.json" if on_pr else "issue_comment.created.on-issue.json"
    p = fixture(name)
    p["action"] = action
    _author(p["comment"]["user"], login)
    _author(p["sender"], login)
    p["comment"]["body"] = body
    if action == "edited":
        p["changes"] = {"body": {"from": "(the previous body)"}}
    return p


def dispatch(pr: int = 2) -> dict[str, Any]:
    p = fixture("workflow_dispatch.json")
    p["inputs"] = {"pr": str(pr)}
    return p


def check_run(app_slug: str, pr: int | None = 2) -> dict[str, Any]:
    """A check run completed by the app `app_slug`, on PR `pr`'s head (None: on no PR)."""
    p = fixture("check_run.completed.json")
    p["check_run"]["app"]["slug"] = app_slug
    if pr is None:
        p["check_run"]["pull_requests"] = []
    else:
        p["check_run"]["pull_requests"][0]["number"] = pr
    return p


def schedule(cron: str = "*/10 * * * *") -> dict[str, Any]:
    """`schedule`: GitHub's payload names the cron that fired; no PR, no actor of the PR."""
    return {"schedule": cron}


def merge_group() -> dict[str, Any]:
    return copy.deepcopy(fixture("merge_group.checks_requested.json"))


def workflow_run(
    event: str = "pull_request",
    *,
    fork: bool = True,
    conclusion: str = "success",
    actor: str = "contributor",
    pr: int | None = None,
    head_sha: str = "ec26c3e57ca3a959ca5aad62de7213c562f8c821",
) -> dict[str, Any]:
    """The relay's event: a run of the `review-coordinator` workflow completed. Built from the
    real `workflow_run.completed` payload with the fields GitHub sets for a run of `event` on
    a PR: a fork's run names no PR (`pull_requests: []`) and its `head_repository` is the fork;
    a same-repository run names its PR."""
    p = fixture("workflow_run.completed.json")
    run = p["workflow_run"]
    base = p["repository"]["full_name"]
    run.update(event=event, conclusion=conclusion, name="review-coordinator", head_sha=head_sha)
    run["head_branch"] = "feature-2"
    run["actor"]["login"] = actor
    run["head_repository"]["full_name"] = "contributor/octo-repo" if fork else base
    run["head_repository"]["owner"]["login"] = "contributor" if fork else base.split("/")[0]
    if fork:
        run["pull_requests"] = []
    elif pr is not None:
        run["pull_requests"][0]["number"] = pr
    return p


READ_ONLY_EVENTS = ("pull_request", "pull_request_review", "pull_request_review_comment")


def read_only(event: str, payload: dict[str, Any]) -> bool:
    """GitHub's token rule: a fork's or Dependabot's `pull_request*` run gets a read-only one."""
    if event not in READ_ONLY_EVENTS:
        return False
    pull = payload["pull_request"]
    fork = pull["head"]["repo"]["full_name"] != payload["repository"]["full_name"]
    return fork or payload["sender"]["login"] == "dependabot[bot]"


def relay_event(event: str, payload: dict[str, Any], conclusion: str = "success") -> dict[str, Any]:
    """GitHub's `workflow_run` for the completed run of `event` (the fields it sets: the run's
    event, its head repository and branch, head SHA, actor; no PR for a fork's run). A run of
    an event on no PR's head (`issue_comment`, `workflow_dispatch`: the default branch) names
    the base repository and no PR."""
    pull = payload.get("pull_request")
    if pull is None:
        relay = workflow_run(event, fork=False, conclusion=conclusion, actor=_sender(payload))
        relay["workflow_run"]["pull_requests"] = []
        relay["repository"]["full_name"] = payload["repository"]["full_name"]
        relay["workflow_run"]["head_repository"]["full_name"] = payload["repository"]["full_name"]
        return relay
    head_repo = pull["head"]["repo"]["full_name"]
    fork = head_repo != payload["repository"]["full_name"]
    relay = workflow_run(
        event,
        fork=fork,
        conclusion=conclusion,
        actor=_sender(payload),
        pr=None if fork else int(pull["number"]),
        head_sha=pull["head"]["sha"],
    )
    run = relay["workflow_run"]
    run["head_repository"]["full_name"] = head_repo
    run["head_repository"]["owner"]["login"] = head_repo.split("/")[0]
    run["head_branch"] = pull["head"]["ref"]
    relay["repository"]["full_name"] = payload["repository"]["full_name"]
    return relay


def _sender(payload: dict[str, Any]) -> str:
    return str(payload["sender"]["login"])


def actionlint() -> str | None:
    """The actionlint of the development tools (`.venv`), else one on PATH."""
    import shutil

    venv = ROOT / ".venv/bin/actionlint"
    return str(venv) if venv.exists() else shutil.which("actionlint")
