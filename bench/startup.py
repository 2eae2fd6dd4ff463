"""Process start → first API request, and the image size.

Runs `python entrypoint.py` as the Action would (the Actions environment, a real event payload,
`settle: none`) against the fake GitHub server on 127.0.0.1, and measures from just before
`Popen` to the moment the fake receives its first request. Median of R runs (wall clock, so it
depends on the machine: see docs/performance.md). Target: < 1 s.

Also prints the size of the Docker image `reviewcoord:local` when Docker is available
(`docker image inspect -f '{{.Size}}'`), else says it was not measured. The same start measure for
the container (`docker run` -> first request, the Actions mounts and env), pull and build times:
bench/image.py.

    python bench/startup.py              # 10 runs
    python bench/startup.py --quick      # CI: 3 runs, no Docker
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.e2e_support import HEAD, PAYLOADS  # noqa: E402
from tests.fakegithub import FakeGitHub  # noqa: E402


def one_run(python: str) -> tuple[float, float]:
    """(seconds from Popen to the first request, seconds from Popen to exit)."""
    with FakeGitHub() as fake, tempfile.TemporaryDirectory() as tmp:
        fake.add_pull(2, head_sha=HEAD)
        first: list[float] = []
        seen = threading.Event()

        def hook(_fake: FakeGitHub, _request: object) -> None:
            if not seen.is_set():
                first.append(time.perf_counter())
                seen.set()

        fake.on_request(hook)
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": tmp,
            "GITHUB_ACTIONS": "true",
            "GITHUB_API_URL": fake.base_url,
            "GITHUB_REPOSITORY": fake.repo,
            "GITHUB_EVENT_NAME": "pull_request",
            "GITHUB_EVENT_PATH": str(PAYLOADS / "pull_request.opened.json"),
            "GITHUB_OUTPUT": str(Path(tmp) / "out"),
            "GITHUB_STEP_SUMMARY": str(Path(tmp) / "summary"),
            "RUNNER_TEMP": tmp,
            "REVIEWCOORD_WRITE_SPACING": "0",
            "INPUT_GITHUB-TOKEN": "app-token",
            "INPUT_SETTLE": "none",
            "INPUT_EXPECTED-BOTS": "codex",
        }
        start = time.perf_counter()
        proc = subprocess.run(
            [python, str(ROOT / "entrypoint.py")],
            env=env,
            cwd=tmp,
            capture_output=True,
            check=False,
            timeout=120,
        )
        end = time.perf_counter()
        if proc.returncode != 0 or not first:
            raise SystemExit(f"startup bench: the action failed:\n{proc.stdout.decode()}")
        return first[0] - start, end - start


def image_size(image: str) -> str:
    docker = shutil.which("docker")
    if docker is None:
        return "not measured (no docker)"
    proc = subprocess.run(
        [docker, "image", "inspect", "-f", "{{.Size}}", image],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    if proc.returncode != 0:
        return f"not measured ({proc.stderr.strip()[:80] or 'image not built'})"
    size = int(proc.stdout.strip())
    return f"{size / 1e6:.1f} MB ({size:,} bytes)"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--image", default="reviewcoord:local")
    ap.add_argument("--quick", action="store_true", help="CI: 3 runs, no Docker")
    args = ap.parse_args()
    runs = 3 if args.quick else args.runs
    one_run(sys.executable)  # warm the page cache and .pyc files; not counted
    results = [one_run(sys.executable) for _ in range(runs)]
    firsts = sorted(r[0] for r in results)
    totals = sorted(r[1] for r in results)
    print(f"## Process start → first API request ({runs} runs of `python entrypoint.py`)")
    print(
        f"  median {statistics.median(firsts):.3f} s (min {firsts[0]:.3f}, max {firsts[-1]:.3f}); "
        f"target < 1 s → {'met' if statistics.median(firsts) < 1 else 'NOT met'}"
    )
    print(f"  whole run (settle none, 1 PR, exit): median {statistics.median(totals):.3f} s")
    if not args.quick:
        print(f"## Image {args.image}: {image_size(args.image)}")


if __name__ == "__main__":
    main()
