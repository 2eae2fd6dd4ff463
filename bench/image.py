"""Image: size, start, pull vs build, and a dry run of the release path this machine can run.

    .venv/bin/python bench/image.py            # everything, a few minutes
    .venv/bin/python bench/image.py --quick    # no cold (--no-cache) build, 3 start samples

The release path of .github/workflows/release.yml, minus what only GitHub can run:
  1. build linux/amd64 with the classic builder (scripts/build-image.sh, DOCKER_BUILDKIT=0), with
     VERSION and REVISION as the release passes them;
  2. tag it as the release does (<registry>/review-coordinator:X.Y.Z, :X.Y, :X) and push it to a
     loopback registry: Debian's `docker-registry` on 127.0.0.1:5000, started here with its own
     config (loopback only, no auth, storage in a temporary folder) unless one already answers;
  3. rewrite a copy of action.yml to the pushed digest with scripts/set_action_image.py, the script
     the release job runs;
  4. pull the image by the reference in that action.yml, timed, into a fresh, empty Docker daemon
     (a second dockerd on a private socket, no bridge or iptables): what a new hosted runner does;
     and remove the local tags and pull it into this daemon, where the run below uses it;
  5. run it the way the runner runs a Docker action (tests/container_support.run_action_container:
     the Actions mounts and env, files owned by uid 1001) against the fake GitHub API on
     127.0.0.1: `docker run` -> first API request, and the outputs it wrote.
Only GitHub runs: the buildx multi-platform build, QEMU arm64, the GHCR login and push,
provenance/SBOM attestations, the release commit and moving the tags.
Build timings: a cold build (`--no-cache`, dependencies downloaded) and a cached one. The local
base image stands in for python:3.11-slim and is not part of either (on GitHub `image: Dockerfile`
also pulls python:3.11-slim first).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.container_support import run_action_container  # noqa: E402
from tests.e2e_support import HEAD, PAYLOADS  # noqa: E402
from tests.fakegithub import FakeGitHub  # noqa: E402

NAME = "review-coordinator"
BENCH_BRIDGE = "rcbench0"  # the fresh daemon's own bridge (see fresh_daemon)
BENCH_BRIDGE_ADDR = "10.213.97.1/24"


def sh(*cmd: str, env: dict[str, str] | None = None, timeout: float = 1800) -> str:
    proc = subprocess.run(
        cmd, capture_output=True, text=True, env=env, timeout=timeout, check=False
    )
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stdout}{proc.stderr}")
    return proc.stdout


def timed(*cmd: str, env: dict[str, str] | None = None) -> float:
    start = time.perf_counter()
    sh(*cmd, env=env)
    return time.perf_counter() - start


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as resp:
            return bool(resp.status == 200)
    except OSError:
        return False


@contextmanager
def registry(addr: str) -> Iterator[str]:
    """A registry on `addr` (host:port on loopback): the one already there, or one started here."""
    if answers(f"http://{addr}/v2/"):
        print(f"registry: using the one answering on {addr}")
        yield addr
        return
    binary = shutil.which("docker-registry")
    if binary is None:
        raise SystemExit(
            "no registry on {addr} and no docker-registry: apt-get install -y docker-registry"
        )
    work = Path(tempfile.mkdtemp(prefix="reviewcoord-registry-", dir="/var/tmp"))
    config = work / "config.yml"
    config.write_text(
        "version: 0.1\n"
        "log:\n  level: warn\n"
        f"storage:\n  filesystem:\n    rootdirectory: {work / 'data'}\n"
        "  delete:\n    enabled: true\n"
        f"http:\n  addr: {addr}\n"
    )
    with open(work / "log", "w") as log:
        proc = subprocess.Popen(
            [binary, "serve", str(config)], stdout=subprocess.DEVNULL, stderr=log
        )
    try:
        for _ in range(50):
            if answers(f"http://{addr}/v2/"):
                break
            time.sleep(0.2)
        else:
            raise SystemExit(
                f"docker-registry did not answer on {addr}: {(work / 'log').read_text()}"
            )
        print(f"registry: docker-registry pid {proc.pid} on {addr} (storage {work / 'data'})")
        yield addr
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
        shutil.rmtree(work, ignore_errors=True)


@contextmanager
def fresh_daemon() -> Iterator[list[str]]:
    """A second, empty dockerd on a private socket: `docker -H …` argv prefix. It only pulls.

    Its own bridge (BENCH_BRIDGE, created here and deleted after), never `--bridge none`: a dockerd
    started with `--bridge none` deletes the host's docker0, which the main daemon's containers use.
    No iptables rules, no ip_forward change.
    """
    work = Path(tempfile.mkdtemp(prefix="reviewcoord-dockerd-", dir="/var/tmp"))
    sock = work / "docker.sock"
    if (
        subprocess.run(
            ["ip", "link", "show", BENCH_BRIDGE], capture_output=True, check=False
        ).returncode
        == 0
    ):
        raise SystemExit(f"{BENCH_BRIDGE} exists: another bench run? (ip link del {BENCH_BRIDGE})")
    sh("ip", "link", "add", "name", BENCH_BRIDGE, "type", "bridge")
    sh("ip", "addr", "add", BENCH_BRIDGE_ADDR, "dev", BENCH_BRIDGE)
    with open(work / "log", "w") as log:
        proc = subprocess.Popen(
            [
                "dockerd", "--data-root", str(work / "root"), "--exec-root", str(work / "exec"),
                "--pidfile", str(work / "dockerd.pid"), "-H", f"unix://{sock}",
                "--bridge", BENCH_BRIDGE, "--iptables=false", "--ip-masq=false",
                "--ip-forward=false",
            ],
            stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
    docker = ["docker", "-H", f"unix://{sock}"]
    try:
        for _ in range(120):
            if subprocess.run([*docker, "info"], capture_output=True, check=False).returncode == 0:
                break
            time.sleep(0.5)
        else:
            raise SystemExit(
                f"the fresh dockerd did not start: {(work / 'log').read_text()[-2000:]}"
            )
        yield docker
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        subprocess.run(["umount", "-R", str(work / "root")], capture_output=True, check=False)
        subprocess.run(["ip", "link", "del", BENCH_BRIDGE], capture_output=True, check=False)
        shutil.rmtree(work, ignore_errors=True)


def version() -> str:
    for line in (ROOT / "pyproject.toml").read_text().splitlines():
        if line.startswith("version = "):
            return line.split('"')[1]
    raise SystemExit("no version in pyproject.toml")


def build(tag: str, *, no_cache: bool, env: dict[str, str]) -> float:
    extra = ["--", "--no-cache"] if no_cache else []
    return timed("bash", str(ROOT / "scripts" / "build-image.sh"), "--tag", tag, *extra, env=env)


def compressed_size(addr: str, repo: str, digest: str) -> int:
    req = urllib.request.Request(
        f"http://{addr}/v2/{repo}/manifests/{digest}",
        headers={"Accept": "application/vnd.docker.distribution.manifest.v2+json"},
    )
    with urllib.request.urlopen(req, timeout=10) as resp:
        manifest = json.load(resp)
    return int(manifest["config"]["size"]) + sum(int(x["size"]) for x in manifest["layers"])


def run_like_the_runner(image: str) -> tuple[float, int, dict[str, str]]:
    """(seconds from `docker run` to the fake's first request, exit code, outputs)."""
    with FakeGitHub() as fake, tempfile.TemporaryDirectory() as tmp:
        fake.add_pull(2, head_sha=HEAD)
        first: list[float] = []
        seen = threading.Event()

        def hook(_fake: FakeGitHub, _request: object) -> None:
            if not seen.is_set():
                first.append(time.perf_counter())
                seen.set()

        fake.on_request(hook)
        workdir = Path(tmp) / "workspace"
        workdir.mkdir()
        env = {
            "GITHUB_API_URL": fake.base_url,
            "GITHUB_REPOSITORY": fake.repo,
            "GITHUB_EVENT_NAME": "pull_request",
            "REVIEWCOORD_WRITE_SPACING": "0",
            "INPUT_GITHUB-TOKEN": "app-token",
            "INPUT_SETTLE": "none",
            "INPUT_EXPECTED-BOTS": "codex",
        }
        start = time.perf_counter()
        run = run_action_container(
            env,
            event_path=PAYLOADS / "pull_request.opened.json",
            workdir=workdir,
            image=image,
            runner_temp=Path(tmp) / "runner-temp",
        )
        if not first:
            raise SystemExit(f"the container made no API request:\n{run.stdout}\n{run.stderr}")
        return first[0] - start, run.returncode, run.outputs()


def compare(image: str, addr: str, runs: int) -> list[tuple[str, str]]:
    """The same measures for an image that is already built (nothing removed locally)."""
    tag = f"{addr}/{NAME}-compare:bench"
    sh("docker", "tag", image, tag)
    sh("docker", "push", tag)
    digests = sh(
        "docker", "image", "inspect", "-f", "{{range .RepoDigests}}{{println .}}{{end}}", tag
    )
    ref = next(d for d in digests.split() if d.startswith(f"{addr}/{NAME}-compare@"))
    size = int(sh("docker", "image", "inspect", "-f", "{{.Size}}", image).strip())
    packed = compressed_size(addr, f"{NAME}-compare", ref.split("@", 1)[1])
    with fresh_daemon() as docker2:
        pull = timed(*docker2, "pull", ref)
    samples = sorted(run_like_the_runner(image)[0] for _ in range(runs))
    subprocess.run(["docker", "rmi", tag], capture_output=True, check=False)
    return [
        (f"{image}: size", f"{size / 1e6:.1f} MB"),
        (f"{image}: compressed", f"{packed / 1e6:.1f} MB"),
        (f"{image}: `docker pull` into an empty daemon", f"{pull:.1f} s"),
        (
            f"{image}: `docker run` → first API request (median of {runs})",
            f"{statistics.median(samples):.2f} s",
        ),
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("--registry", default="127.0.0.1:5000", help="loopback host:port")
    ap.add_argument("--quick", action="store_true", help="no cold build; 3 start samples")
    ap.add_argument("--runs", type=int, default=5, help="start-time samples")
    ap.add_argument(
        "--compare",
        metavar="IMAGE",
        help="an image built earlier (e.g. from main's Dockerfile): size, compressed size, pull "
        "into an empty daemon and start time, measured the same way",
    )
    args = ap.parse_args()
    if not args.registry.startswith(("127.", "localhost:")):
        raise SystemExit("--registry must be on loopback")
    sh("bash", str(ROOT / "scripts" / "ensure-docker.sh"))
    ver = version()
    major, minor = ver.split(".")[0], ".".join(ver.split(".")[:2])
    revision = sh("git", "-C", str(ROOT), "rev-parse", "HEAD").strip()
    env = dict(os.environ, DOCKER_BUILDKIT="0", VERSION=ver, REVISION=revision)
    local = "reviewcoord:bench-release"
    rows: list[tuple[str, str]] = []

    # 1. build (classic builder), cold then cached
    if not args.quick:
        rows.append(
            (
                "`docker build --no-cache` (cold; base present)",
                f"{build(local, no_cache=True, env=env):.1f} s",
            )
        )
    rows.append(
        ("`docker build` (cached, no change)", f"{build(local, no_cache=False, env=env):.1f} s")
    )
    size = int(sh("docker", "image", "inspect", "-f", "{{.Size}}", local).strip())
    labels = json.loads(sh("docker", "image", "inspect", "-f", "{{json .Config.Labels}}", local))
    user = sh("docker", "image", "inspect", "-f", "{{.Config.User}}", local).strip()
    rows.append(("image size (`docker image inspect`)", f"{size / 1e6:.1f} MB ({size:,} bytes)"))

    with registry(args.registry) as addr:
        # 2. tag as the release does, push
        repo = f"{addr}/{NAME}"
        tags = [f"{repo}:{t}" for t in (ver, minor, major)]
        for t in tags:
            sh("docker", "tag", local, t)
            sh("docker", "push", t)
        digests = sh(
            "docker", "image", "inspect", "-f", "{{range .RepoDigests}}{{println .}}{{end}}", local
        )
        ref = next(d for d in digests.split() if d.startswith(f"{repo}@sha256:"))
        digest = ref.split("@", 1)[1]
        rows.append(
            (
                "compressed (what a pull transfers)",
                f"{compressed_size(addr, NAME, digest) / 1e6:.1f} MB",
            )
        )

        # 3. a copy of action.yml, rewritten as the release job does
        with tempfile.TemporaryDirectory() as tmp:
            action = Path(tmp) / "action.yml"
            shutil.copyfile(ROOT / "action.yml", action)
            sh(
                sys.executable,
                str(ROOT / "scripts" / "set_action_image.py"),
                str(action),
                ref,
                "--version",
                f"v{ver}",
            )
            line = next(
                ln.strip()
                for ln in action.read_text().splitlines()
                if ln.strip().startswith("image:")
            )
        print(f"action.yml (copy): {line}")
        pulled = line.split()[1].removeprefix("docker://")
        assert pulled == ref, (pulled, ref)

        # 4. pull: a fresh daemon (a new runner), then this one after removing the local tags
        with fresh_daemon() as docker2:
            cold_pull = timed(*docker2, "pull", pulled)
        rows.append(("`docker pull` into an empty daemon (a new runner)", f"{cold_pull:.1f} s"))
        for t in [*tags, local]:
            subprocess.run(["docker", "rmi", t], capture_output=True, check=False)
        warm_pull = timed("docker", "pull", pulled)
        rows.append(("`docker pull` into this daemon (layers already here)", f"{warm_pull:.1f} s"))

        # 5. run it as the runner does
        samples = []
        outputs: dict[str, str] = {}
        for _ in range(3 if args.quick else args.runs):
            seconds, code, outputs = run_like_the_runner(pulled)
            if code not in (0, 1) or "gate" not in outputs:
                raise SystemExit(f"the action run failed: exit {code}, outputs {outputs}")
            samples.append(seconds)
        rows.append(
            (
                f"`docker run` → first API request (median of {len(samples)})",
                f"{statistics.median(samples):.2f} s "
                f"(min {min(samples):.2f}, max {max(samples):.2f})",
            )
        )
        subprocess.run(["docker", "rmi", pulled], capture_output=True, check=False)
        if args.compare:
            rows += compare(args.compare, addr, 3 if args.quick else args.runs)

    print(f"\n## Image {ref}")
    print(
        f"user {user}; labels: "
        + ", ".join(
            f"{k.split('.')[-1]}={v}"
            for k, v in sorted(labels.items())
            if k.startswith("org.opencontainers")
        )
    )
    print(f"the runner-style run: gate {outputs.get('gate')} ({outputs.get('gate-reason')})\n")
    print("| measure | value |\n|---|---|")
    for name, value in rows:
        print(f"| {name} | {value} |")


if __name__ == "__main__":
    main()
