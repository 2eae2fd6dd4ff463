"""Races: two runs on one PR at once, a run cancelled mid-settle, an older head's run finishing
after a newer head's."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e_support import HEAD, NEW_HEAD, PAYLOADS, ROOT, all_clean, run_action, stickies
from tests.fakegithub import FakeGitHub
from tests.fault_matrix import run_once


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as gh:
        gh.add_pull(2, head_sha=HEAD)
        all_clean(gh)
        yield gh


def test_two_concurrent_runs_leave_one_sticky(fake: FakeGitHub) -> None:
    barrier = threading.Barrier(2, timeout=20)

    def both_post_together(method: str, path: str) -> None:
        # Each run has listed the comments (no sticky) before either POST lands.
        if method == "POST" and path.endswith("/issues/2/comments"):
            barrier.wait()

    fake.before_request(both_post_together)
    results: list[Any] = []
    threads = [threading.Thread(target=lambda: results.append(run_once(fake))) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert [o.gate for o, _ in results] == ["go", "go"], [log for _, log in results]
    posts = [r for r in fake.request_log() if r.method == "POST" and "/issues/2/" in r.path]
    assert len(posts) == 2  # the race really happened
    (left,) = stickies(fake)
    fake.add_review(2, login="claude[bot]", body="LGTM again", commit_id=HEAD)
    outcome, log = run_once(fake)
    assert outcome.gate == "go", log
    assert [c["id"] for c in stickies(fake)] == [left["id"]]


def test_cancelled_run_leaves_check_in_progress_and_the_next_run_completes_it(
    tmp_path: Path,
) -> None:
    with FakeGitHub() as fake:
        fake.add_pull(2, head_sha=HEAD)  # no bot has posted: settle waits
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(tmp_path),
            "GITHUB_ACTIONS": "true",
            "GITHUB_API_URL": fake.base_url,
            "GITHUB_REPOSITORY": fake.repo,
            "GITHUB_EVENT_NAME": "pull_request",
            "GITHUB_EVENT_PATH": str(PAYLOADS / "pull_request.opened.json"),
            "RUNNER_TEMP": str(tmp_path),
            "REVIEWCOORD_WRITE_SPACING": "0",
            "INPUT_GITHUB-TOKEN": "app-token",
            "INPUT_SETTLE": "fast",
            "INPUT_FAST-TIMEOUT": "600",
            "INPUT_POLL-INTERVAL": "1",
        }
        proc = subprocess.Popen(
            [sys.executable, str(ROOT / "entrypoint.py")],
            env=env,
            cwd=tmp_path,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                polls = sum(1 for r in fake.request_log() if r.path.endswith("/pulls/2"))
                if fake.check_runs(HEAD) and polls >= 3:
                    break
                time.sleep(0.05)
            proc.send_signal(signal.SIGKILL)  # the runner's cancel, at its hardest
            proc.wait(10)
        finally:
            if proc.poll() is None:
                proc.kill()
        (stuck,) = fake.check_runs(HEAD)
        assert stuck["status"] == "in_progress"
        all_clean(fake)
        run = run_action(fake, tmp_path / "next")
        assert run.returncode == 0, run.log
        (done,) = fake.check_runs(HEAD)
        assert done["id"] == stuck["id"]
        assert (done["status"], done["conclusion"]) == ("completed", "success")


def test_an_older_heads_run_never_writes_after_the_newer_heads(fake: FakeGitHub) -> None:
    """Run A reads HEAD; before it publishes, the PR moves to NEW_HEAD and run B judges and
    publishes NEW_HEAD. A must then not publish HEAD's verdict (status or sticky)."""
    order: list[tuple[str, str]] = []

    class Interleave:
        def __init__(self, inner: Any) -> None:
            self.inner, self.fired = inner, False

        def __getattr__(self, name: str) -> Any:
            return getattr(self.inner, name)

        def _newer_head_first(self) -> None:
            if not self.fired:
                self.fired = True
                fake.set_head(2, NEW_HEAD)
                all_clean(fake, head=NEW_HEAD)
                outcome, log = run_once(fake)
                assert outcome.head_sha == NEW_HEAD, log

        def create_status(self, sha: str, state: str, *args: Any) -> None:
            if state != "pending":
                self._newer_head_first()
            self.inner.create_status(sha, state, *args)

        def create_issue_comment(self, *args: Any) -> Any:
            self._newer_head_first()
            return self.inner.create_issue_comment(*args)

        def update_issue_comment(self, *args: Any) -> Any:
            self._newer_head_first()
            return self.inner.update_issue_comment(*args)

    run_once(fake, gateway_wrapper=Interleave)
    for sha in (HEAD, NEW_HEAD):
        order += [(s["created_at"], sha) for s in fake.statuses(sha)]
    newer = [t for t, sha in order if sha == NEW_HEAD]
    older_after = [t for t, sha in order if sha == HEAD and t > min(newer)]
    assert older_after == [], "a status for the older head was written after the newer head's"
    (sticky,) = stickies(fake)
    assert NEW_HEAD[:7] in sticky["body"]
