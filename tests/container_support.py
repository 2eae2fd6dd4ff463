"""Build and run the action's container image the way the GitHub Actions runner does.

    from tests.container_support import container_image, run_action_container  # fixture + helper

`container_image` is a session-scoped pytest fixture: it builds the image once per session with
scripts/build-image.sh (which starts Docker and builds the local base image when needed). It skips
only when REVIEWCOORD_SKIP_DOCKER=1; a missing Docker daemon or a failed build is a test failure.

`run_action_container` mirrors actions/runner `ContainerActionHandler`: the runner's temp directory
holds `_github_home` -> /github/home (HOME), `_github_workflow` -> /github/workflow (event.json) and
`_runner_file_commands` -> /github/file_commands (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, ...); the
workspace is mounted at /github/workspace, which is also the working directory. Two layouts
(`layout=`): "legacy" (runners before 2.331.0): RUNNER_TEMP keeps the *host* path, as the runner
translates only paths under the mounted directories, so RUNNER_TEMP itself does not exist inside
the container; "runner-temp" (2.331.0 and later): the whole temp directory is also mounted at
/github/runner_temp and RUNNER_TEMP=/github/runner_temp. Like the runner, the temp directory is
`<work>/_temp` and RUNNER_WORKSPACE is the host path `<work>/<repo name>` (untranslated: it is
under no mounted directory). Env vars go in as `-e NAME` with the value
in the docker client's environment (no token on the command line); names keep their hyphens
(`INPUT_GITHUB-TOKEN`). `--network host` lets the container reach a fake API on 127.0.0.1.

Ownership, as on a GitHub-hosted runner: the runner process (user `runner`, uid 1001) creates those
folders (0755) and the per-step file-command files (0644), so only uid 1001 (or root) can write
them. `run_action_container(runner_uid=...)` chowns them to that uid (default 1001); the tests run
as root on the host, like the Docker daemon, so they can still read everything back.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
IMAGE = os.environ.get("REVIEWCOORD_IMAGE", "reviewcoord:local")
RUNNER_UID = 1001  # the `runner` user of GitHub-hosted runners (and of actions-runner-controller)
# The Docker container action layouts of actions/runner ContainerActionHandler (module docstring).
Layout = Literal["legacy", "runner-temp"]
LAYOUTS: tuple[Layout, ...] = ("legacy", "runner-temp")
REPO_DIR_NAME = "app"  # <work>/<repo name>: RUNNER_WORKSPACE
SKIP_ENV = "REVIEWCOORD_SKIP_DOCKER"
BUILD_TIMEOUT = int(os.environ.get("REVIEWCOORD_BUILD_TIMEOUT", "1800"))


@dataclass(frozen=True)
class BuiltImage:
    tag: str
    size: int  # bytes, `docker image inspect -f '{{.Size}}'`
    build_seconds: float  # wall time of scripts/build-image.sh in this session
    log: str  # its combined output


@functools.cache
def _build(tag: str) -> BuiltImage | str:
    """Build once per process; returns the image, or the failure message."""
    env = dict(os.environ, REVIEWCOORD_IMAGE=tag)
    start = time.perf_counter()
    try:
        proc = subprocess.run(
            ["bash", str(REPO_ROOT / "scripts" / "build-image.sh"), "--tag", tag],
            cwd=REPO_ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=BUILD_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        return f"scripts/build-image.sh timed out after {exc.timeout}s"
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        tail = "\n".join(proc.stdout.splitlines()[-40:])
        return f"scripts/build-image.sh failed (exit {proc.returncode}):\n{tail}"
    size = int(
        subprocess.run(
            ["docker", "image", "inspect", "-f", "{{.Size}}", tag],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    return BuiltImage(tag=tag, size=size, build_seconds=seconds, log=proc.stdout)


def ensure_image(tag: str = IMAGE) -> BuiltImage:
    """The built image; pytest.skip only with REVIEWCOORD_SKIP_DOCKER=1, else pytest.fail."""
    if os.environ.get(SKIP_ENV) == "1":
        pytest.skip(f"{SKIP_ENV}=1: container tests disabled")
    result = _build(tag)
    if isinstance(result, str):
        pytest.fail(result, pytrace=False)
    return result


@pytest.fixture(scope="session")
def container_image() -> Iterator[BuiltImage]:
    yield ensure_image()


class ActionRun(subprocess.CompletedProcess[str]):
    """A finished `docker run` of the action, plus the runner-side files it wrote."""

    runner_temp: Path  # host path of the runner's temp dir (RUNNER_TEMP in the legacy layout)
    runner_workspace: Path  # host path, RUNNER_WORKSPACE (a sibling of runner_temp)
    layout: Layout
    github_output: Path  # host path of the GITHUB_OUTPUT file
    step_summary: Path  # host path of the GITHUB_STEP_SUMMARY file
    home: Path  # host path mounted at /github/home

    def outputs(self) -> dict[str, str]:
        """GITHUB_OUTPUT parsed like the runner: `name=value` and `name<<DELIM` ... `DELIM`."""
        return parse_output_file(self.github_output.read_text(encoding="utf-8"))

    def summary(self) -> str:
        return self.step_summary.read_text(encoding="utf-8")


def parse_output_file(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line:
            continue
        eq = line.find("=")
        heredoc = line.find("<<")
        if heredoc != -1 and (eq == -1 or heredoc < eq):
            name, delim = line[:heredoc], line[heredoc + 2 :]
            body: list[str] = []
            while i < len(lines) and lines[i] != delim:
                body.append(lines[i])
                i += 1
            if i >= len(lines):
                raise ValueError(f"GITHUB_OUTPUT: no closing {delim!r} for {name!r}")
            i += 1
            out[name] = "\n".join(body)
        elif eq != -1:
            out[line[:eq]] = line[eq + 1 :]
        else:
            raise ValueError(f"GITHUB_OUTPUT: malformed line {line!r}")
    return out


def run_action_container(
    env: Mapping[str, str],
    *,
    event_path: Path,
    workdir: Path,
    image: str = IMAGE,
    runner_temp: Path | None = None,
    args: Sequence[str] = (),
    network: str = "host",
    entrypoint: str | None = None,
    timeout: float = 600,
    layout: Layout = "legacy",
    runner_uid: int | None = RUNNER_UID,
) -> ActionRun:
    """Run the action image like the Actions runner: see the module docstring.

    `env`: INPUT_* (hyphens kept), GITHUB_API_URL, GITHUB_REPOSITORY, GITHUB_EVENT_NAME, ... Values
    here override the defaults this function sets (GITHUB_ACTIONS=true, the /github/... paths).
    `event_path`: the webhook payload, copied to /github/workflow/event.json.
    `workdir`: mounted read-write at /github/workspace (the working directory).
    `runner_temp`: host directory standing for the runner's temp dir (default: `_temp` in a new
    temp dir standing for the runner's work dir; RUNNER_WORKSPACE is its sibling `app`).
    `args`: extra container arguments (action.yml has no `args`, so normally none).
    `entrypoint`: overrides the image's ENTRYPOINT (for plumbing checks only).
    `layout`: "legacy" or "runner-temp" (runner 2.331.0+), see the module docstring.
    `runner_uid`: the uid that owns the mounted folders and files, as the runner's user would
    (folders 0755, files 0644); None leaves them as created (root, when the tests run as root).
    """
    if runner_temp is None:
        runner_temp = Path(tempfile.mkdtemp(prefix="reviewcoord-runner-work-")) / "_temp"
    runner_temp = runner_temp.resolve()
    runner_workspace = runner_temp.parent / REPO_DIR_NAME
    runner_workspace.mkdir(parents=True, exist_ok=True)
    home = runner_temp / "_github_home"
    workflow = runner_temp / "_github_workflow"
    file_commands = runner_temp / "_runner_file_commands"
    for d in (home, workflow, file_commands):
        d.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(event_path, workflow / "event.json")

    # The runner names these per step: set_output_<guid>, step_summary_<guid>, ...
    step = uuid.uuid4().hex
    files = {
        "GITHUB_OUTPUT": f"set_output_{step}",
        "GITHUB_STEP_SUMMARY": f"step_summary_{step}",
        "GITHUB_ENV": f"set_env_{step}",
        "GITHUB_PATH": f"add_path_{step}",
        "GITHUB_STATE": f"save_state_{step}",
    }
    for name in files.values():
        (file_commands / name).touch(mode=0o644)
    if runner_uid is not None:
        _own(runner_uid, [runner_temp, runner_workspace, workdir.resolve()])

    full_env: dict[str, str] = {
        "CI": "true",
        "GITHUB_ACTIONS": "true",
        "HOME": "/github/home",
        "GITHUB_WORKSPACE": "/github/workspace",
        "GITHUB_EVENT_PATH": "/github/workflow/event.json",
        "RUNNER_TEMP": "/github/runner_temp" if layout == "runner-temp" else str(runner_temp),
        "RUNNER_WORKSPACE": str(runner_workspace),
        "RUNNER_OS": "Linux",
        **{k: f"/github/file_commands/{v}" for k, v in files.items()},
    }
    full_env.update(env)

    name = f"reviewcoord-test-{step[:12]}"
    cmd = [
        "docker", "run", "--rm", "--name", name,
        "--network", network,
        "--workdir", "/github/workspace",
        *(["-v", f"{runner_temp}:/github/runner_temp"] if layout == "runner-temp" else []),
        "-v", f"{home}:/github/home",
        "-v", f"{workflow}:/github/workflow",
        "-v", f"{file_commands}:/github/file_commands",
        "-v", f"{workdir.resolve()}:/github/workspace",
    ]  # fmt: skip
    if entrypoint is not None:
        cmd += ["--entrypoint", entrypoint]
    # Like the runner: `-e NAME` with the value in the docker client's environment, so tokens stay
    # off the command line. Plain runner settings go as NAME=VALUE (HOME must not change the
    # docker client's own HOME).
    client_env = dict(os.environ)
    for key, value in full_env.items():
        if _is_secretish(key):
            cmd += ["-e", key]
            client_env[key] = value
        else:
            cmd += ["-e", f"{key}={value}"]
    cmd.append(image)
    cmd += list(args)
    try:
        proc = subprocess.run(
            cmd, env=client_env, capture_output=True, text=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        subprocess.run(["docker", "rm", "-f", name], capture_output=True, check=False)
        raise
    run = ActionRun(proc.args, proc.returncode, proc.stdout, proc.stderr)
    run.runner_temp = runner_temp
    run.runner_workspace = runner_workspace
    run.layout = layout
    run.github_output = file_commands / files["GITHUB_OUTPUT"]
    run.step_summary = file_commands / files["GITHUB_STEP_SUMMARY"]
    run.home = home
    return run


def _own(uid: int, roots: Sequence[Path]) -> None:
    """chown -R uid:uid, folders 0755 and files 0644: what the runner's user leaves behind."""
    if os.geteuid() not in (0, uid):
        pytest.skip(f"emulating the runner's uid {uid} needs root (or uid {uid}) on the host")
    for root in roots:
        for path in [root, *root.rglob("*")]:
            if os.geteuid() == 0:  # else the files are this user's already (a runner running us)
                os.chown(path, uid, uid, follow_symlinks=False)
            if not path.is_symlink():
                path.chmod(0o755 if path.is_dir() else 0o644)


def _is_secretish(name: str) -> bool:
    upper = name.upper()
    return upper.startswith("INPUT_") or any(w in upper for w in ("TOKEN", "SECRET", "PASSWORD"))


def docker_sh(
    image: str, script: str, *, timeout: float = 120, user: str | None = None
) -> subprocess.CompletedProcess[str]:
    """`docker run --rm --entrypoint sh IMAGE -c SCRIPT` (no network); `user`: `--user`, e.g. "0"
    to look into places the image's own user cannot read (/root)."""
    as_user = ["--user", user] if user is not None else []
    return subprocess.run(
        [
            "docker",
            "run",
            "--rm",
            "--network",
            "none",
            *as_user,
            "--entrypoint",
            "sh",
            image,
            "-c",
            script,
        ],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
