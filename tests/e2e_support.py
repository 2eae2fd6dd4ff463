"""End-to-end harness: `python entrypoint.py` as a subprocess with the Actions environment,
against the fake GitHub server on 127.0.0.1. State lives only in the fake; each run is a fresh
process, as on a runner."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from tests.bots_support import load_corpus
from tests.fakegithub import FakeGitHub
from tests.verdict_contract import check_verdict

ROOT = Path(__file__).resolve().parents[1]
PAYLOADS = Path(__file__).parent / "fixtures/payloads"
HEAD = "ec26c3e57ca3a959ca5aad62de7213c562f8c821"  # pull_request.opened.json's head, PR 2
NEW_HEAD = "b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4"
MARKER = "<!-- review-coordinator-verdict -->"

CODEX = "chatgpt-codex-connector[bot]"
COPILOT_REVIEWER = "copilot-pull-request-reviewer[bot]"
COPILOT = "Copilot"
CURSOR = "cursor[bot]"
CLAUDE = "claude[bot]"


@cache
def corpus() -> dict[str, str]:
    return {e["corpus_id"]: e["body"] for e in load_corpus()}


def body(corpus_id: str) -> str:
    return corpus()[corpus_id]


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str
    outputs: dict[str, str]
    summary: str

    @property
    def log(self) -> str:
        return self.stdout + self.stderr


def parse_outputs(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        name, _, delimiter = lines[i].partition("<<")
        j = lines.index(delimiter, i + 1)
        out[name] = "\n".join(lines[i + 1 : j])
        i = j + 1
    return out


def action_env(
    fake: FakeGitHub,
    tmp: Path,
    *,
    event: str = "pull_request",
    payload: str | dict[str, Any] = "pull_request.opened.json",
    inputs: dict[str, str] | None = None,
    token: str = "app-token",
    extra_env: dict[str, str] | None = None,
) -> dict[str, str]:
    """The environment the runner gives `entrypoint.py` (files under `tmp`)."""
    tmp.mkdir(parents=True, exist_ok=True)
    if isinstance(payload, dict):
        event_path = tmp / "event.json"
        event_path.write_text(json.dumps(payload))
    else:
        event_path = PAYLOADS / payload
    output = tmp / "github_output"
    summary = tmp / "step_summary"
    output.write_text("")
    summary.write_text("")
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp),
        "GITHUB_ACTIONS": "true",
        "GITHUB_API_URL": fake.base_url,
        "GITHUB_REPOSITORY": fake.repo,
        "GITHUB_EVENT_NAME": event,
        "GITHUB_EVENT_PATH": str(event_path),
        "GITHUB_OUTPUT": str(output),
        "GITHUB_STEP_SUMMARY": str(summary),
        "RUNNER_TEMP": str(tmp),
        "REVIEWCOORD_WRITE_SPACING": "0",
        "INPUT_GITHUB-TOKEN": token,
        "INPUT_POLL-INTERVAL": "1",
        "INPUT_SETTLE": "none",
        "INPUT_CONFIRM-DELAY": "0",  # the two reads before a go, without the wait
    }
    for name, value in (inputs or {}).items():
        env[f"INPUT_{name.upper()}"] = value
    env.update(extra_env or {})
    return env


def finished_run(proc_returncode: int, stdout: str, stderr: str, tmp: Path) -> Run:
    return Run(
        proc_returncode,
        stdout,
        stderr,
        parse_outputs((tmp / "github_output").read_text()),
        (tmp / "step_summary").read_text(),
    )


def run_action(
    fake: FakeGitHub,
    tmp: Path,
    *,
    event: str = "pull_request",
    payload: str | dict[str, Any] = "pull_request.opened.json",
    inputs: dict[str, str] | None = None,
    token: str = "app-token",
    timeout: float = 120,
    extra_env: dict[str, str] | None = None,
) -> Run:
    env = action_env(
        fake, tmp, event=event, payload=payload, inputs=inputs, token=token, extra_env=extra_env
    )
    proc = subprocess.run(
        [sys.executable, str(ROOT / "entrypoint.py")],
        env=env,
        cwd=tmp,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    return finished_run(proc.returncode, proc.stdout, proc.stderr, tmp)


def writes(fake: FakeGitHub) -> list[str]:
    """Every request that changes something: not a GET, nor a GraphQL query (we send no
    mutation: `POST /graphql` reads edit histories, threads and who we are)."""
    return [
        f"{r.method} {r.path}"
        for r in fake.request_log()
        if r.method != "GET" and r.route != "/graphql"
    ]


OTHER_PR = 5


def pulls_two_and_five() -> Iterator[FakeGitHub]:
    """A fake GitHub with PR 2 at HEAD and an older PR 5 (where `expected-bots: auto` learns)."""
    with FakeGitHub() as gh:
        gh.add_pull(2, head_sha=HEAD)
        gh.add_pull(OTHER_PR, head_sha="d" * 40)
        yield gh


def stickies(fake: FakeGitHub, pr: int = 2) -> list[dict[str, Any]]:
    return [c for c in fake.issue_comments(pr) if c["body"].startswith(MARKER)]


GROK_COMMIT = "a294dcb8c3bc65cb87ec637840114aac8f85a199"


def cursor_clean(head: str = HEAD) -> str:
    """Bugbot's real clean review, naming `head` as the commit it reviewed (as it would)."""
    return body("C_grok_clean").replace(GROK_COMMIT, head).replace(GROK_COMMIT[:7], head[:7])


# claude-code-action's tracking comment as its job starts (edited in place when it finishes).
CLAUDE_WORKING = (
    'Claude Code is working… <img src="https://github.com/user-attachments/assets/x" '
    'width="14px" height="14px" style="vertical-align: middle; margin-left: 4px;" />'
    "\n\nI'll analyze this and get back to you."
)


def claude_tracker(fake: FakeGitHub, pr: int = 2, final: str = "L_email_verificay3") -> int:
    """Claude's run as claude-code-action shows it: its tracking comment created when the job
    starts, then edited in place by Claude into its final text (`final`, a corpus id). The
    run began when the comment was created: what binds it to a head that names no commit
    (reviewcoord/binding.py). → the comment's id."""
    stub = fake.add_issue_comment(pr, login=CLAUDE, body=CLAUDE_WORKING)
    fake.edit_issue_comment(stub["id"], body(final))
    return int(stub["id"])


def all_clean(fake: FakeGitHub, pr: int = 2, head: str = HEAD) -> None:
    """All four bots finished with nothing to report, in their real clean shapes."""
    fake.add_issue_comment(pr, login=CODEX, body=body("X_clean_swish"))
    fake.add_review(pr, login=CURSOR, body=cursor_clean(head), commit_id=head)
    fake.add_review(pr, login=COPILOT_REVIEWER, body=body("Z12"), commit_id=head)
    fake.add_review(pr, login=CLAUDE, body=body("L_cca1078_lgtm"), commit_id=head)


def verdict_of(
    run: Run, *, declared: Collection[str] = (), exit_ok: bool = False
) -> dict[str, Any]:
    """The verdict file a run wrote, checked against the contract (interface §5); `exit_ok`:
    the run must also have exited 0; `declared`: the keys of the reviewers its config declares."""
    if exit_ok:
        assert run.returncode == 0, run.log
    verdict: dict[str, Any] = json.loads(Path(run.outputs["verdict-file"]).read_text())
    check_verdict(verdict, declared)
    return verdict


# --------------------------------------------------------------------------- in process


class SimulatedClock:
    """Simulated time for an in-process `runner.evaluate`: each sleep moves it on (at least
    1 s); `at(t, hook)` runs `hook` once when the clock reaches `t` (a bot finishing)."""

    def __init__(self) -> None:
        self.t = 0.0
        self._due: list[tuple[float, Callable[[], object]]] = []

    def at(self, when: float, hook: Callable[[], object]) -> SimulatedClock:
        self._due.append((when, hook))
        return self

    def now(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.t += max(seconds, 1.0)
        due = [hook for when, hook in self._due if self.t >= when]
        self._due = [(when, hook) for when, hook in self._due if self.t < when]
        for hook in due:
            hook()


def evaluate_in_process(fake: FakeGitHub, inputs: dict[str, str], clock: SimulatedClock) -> Any:
    """One `runner.evaluate` of PR 2 against `fake` with the app token, in this process (so a
    profile registered by the test is in scope); → its `Outcome`."""
    import io

    from reviewcoord.actions_io import Log
    from reviewcoord.github.pygithub_gateway import PyGithubGateway
    from reviewcoord.runner import RunRequest, evaluate
    from tests.fakegithub.server import APP_TOKEN

    req = RunRequest(
        repo=fake.repo,
        pr=2,
        inputs=inputs,
        input_source="test",
        config_path=".github/review-coordinator.yml",
    )
    with PyGithubGateway(fake.repo, APP_TOKEN, base_url=fake.base_url, write_spacing=0) as gw:
        return evaluate(req, gw, clock, Log(io.StringIO()))
