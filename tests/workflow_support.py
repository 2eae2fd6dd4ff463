"""The workflow as GitHub would apply it: its real job `if:` and concurrency group from
.github/workflows/review-coordinator.yml (evaluated by tests/ghexpr.py), and event payloads
built from the real ones in tests/fixtures/payloads (bot-authored variants change only
`user.login` / `user.type`, the body and `action`; see PROVENANCE.md)."""

from __future__ import annotations

import copy
import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from tests import ghexpr

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = ROOT / ".github/workflows/review-coordinator.yml"
PAYLOADS = Path(__file__).parent / "fixtures/payloads"
JOB = "judge"


def load(text: str) -> dict[str, Any]:
    data = yaml.safe_load(text)
    if True in data:  # YAML 1.1 reads the key `on` as a boolean
        data["on"] = data.pop(True)
    return dict(data)


@cache
def workflow() -> dict[str, Any]:
    return load(WORKFLOW.read_text(encoding="utf-8"))


def readme_workflow() -> dict[str, Any]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Use it as a GitHub Action\n", 1)[1]
    block = re.search(r"```yaml\n(.*?)```", section, flags=re.S)
    assert block is not None, "README has no workflow under 'Use it as a GitHub Action'"
    return load(block.group(1))


def job(wf: dict[str, Any] | None = None) -> dict[str, Any]:
    return dict((wf or workflow())["jobs"][JOB])


def starts(event: str, payload: dict[str, Any], wf: dict[str, Any] | None = None) -> bool:
    """Whether GitHub would run the job: the event and its activity type are among the
    workflow's triggers, and the job's `if:` is true."""
    triggers = (wf or workflow())["on"]
    if event not in triggers:
        return False
    types = (triggers[event] or {}).get("types")
    if types is not None and payload.get("action") not in types:
        return False
    condition = job(wf).get("if")
    context = ghexpr.event_context(event, payload)
    return condition is None or ghexpr.truthy(ghexpr.evaluate(str(condition), context))


def group(event: str, payload: dict[str, Any], run_id: int = 1) -> str:
    template = str(job()["concurrency"]["group"])
    return ghexpr.interpolate(template, ghexpr.event_context(event, payload, run_id=run_id))


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


def pull_request(action: str = "opened", pr: int = 2) -> dict[str, Any]:
    name = (
        "pull_request.synchronize.json" if action == "synchronize" else "pull_request.opened.json"
    )
    p = fixture(name)
    p["action"] = action
    p["number"] = pr
    p["pull_request"]["number"] = pr
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


def merge_group() -> dict[str, Any]:
    return copy.deepcopy(fixture("merge_group.checks_requested.json"))
