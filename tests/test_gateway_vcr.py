"""Gateway contract tests replayed with vcrpy from cassettes recorded against the fake server.

Replay (the default, `record_mode="none"`) needs no server: every request must match a recorded
interaction, in order, and every interaction must be used (`cassette.all_played`).

Re-record with `REVIEWCOORD_RECORD=1 pytest tests/test_gateway_vcr.py`: the fake GitHub then runs
on the FIXED port 38517 (`BASE_URL`) — cassettes are host/port-bound (vcrpy matches on
scheme/host/port/path/query, and the recorded `Link` headers hold absolute URLs that the gateway
checks against its base_url), so recording and replay must use the same base_url. A random port
would change every URL between recordings; a fixed one keeps cassettes stable and diffable.

The recording token is a fake secret; `filter_headers=["authorization"]` keeps it out of the
cassette (asserted below), and replay uses a different token, which matches because the
Authorization header is neither stored nor matched.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import vcr
import yaml

from reviewcoord.errors import GatewayError, WriteForbidden
from reviewcoord.github.gateway import Annotation, CheckOutput
from reviewcoord.github.pygithub_gateway import PyGithubGateway
from tests.fakegithub import FakeGitHub

CASSETTES = Path(__file__).parent / "cassettes"
PORT = 38517
BASE_URL = f"http://127.0.0.1:{PORT}"
RECORD = os.environ.get("REVIEWCOORD_RECORD") == "1"
RECORD_TOKEN = "ghs_RecordingOnlySecret0123456789abcdef"
FORK_TOKEN = "ghs_ForkReadOnlySecret0123456789abcdef"
SHA = "c0ffee" + "0" * 34


def _seed(gh: FakeGitHub) -> None:
    gh.add_token(RECORD_TOKEN, "github-actions[bot]", user_endpoint=False)
    gh.add_token(FORK_TOKEN, "github-actions[bot]", user_endpoint=False, read_only=True)
    gh.add_pull(12, head_sha=SHA, title="Add retries")
    for i in range(230):
        gh.add_review_comment(
            12, login="coderabbitai[bot]", body=f"finding {i}", path="app.py", line=i + 1
        )
    gh.add_review(12, login="copilot-pull-request-reviewer[bot]", body="LGTM", state="COMMENTED")
    gh.add_issue_comment(12, login="chatgpt-codex-connector[bot]", body="Codex review")
    gh.set_file(".github/reviewcoord.yml", "main", "expected-bots: auto\n")


@contextmanager
def _session(
    name: str, token: str = RECORD_TOKEN, setup: Callable[[FakeGitHub], None] | None = None
) -> Iterator[tuple[PyGithubGateway, list[float]]]:
    fake = None
    if RECORD:
        fake = FakeGitHub(port=PORT).start()
        _seed(fake)
        if setup is not None:
            setup(fake)
    else:
        token = "replay-token"
    recorder = vcr.VCR(
        cassette_library_dir=str(CASSETTES),
        record_mode="all" if RECORD else "none",
        filter_headers=["authorization"],
        match_on=("method", "scheme", "host", "port", "path", "query", "body"),
        decode_compressed_response=True,
    )
    sleeps: list[float] = []
    try:
        with recorder.use_cassette(f"{name}.yaml") as cassette:
            # the Github client is created inside the cassette (docs/github-platform.md §6.1)
            with PyGithubGateway(
                "octo/app", token, base_url=BASE_URL, sleep=sleeps.append, write_spacing=0
            ) as gateway:
                yield gateway, sleeps
            if not RECORD:
                assert cassette.all_played, "a recorded interaction was not replayed"
    finally:
        if fake is not None:
            fake.stop()


def test_read_poll_contract() -> None:
    with _session("read_poll") as (gw, _):
        pull = gw.get_pull(12)
        assert pull.head_sha == SHA and pull.title == "Add retries"
        comments = gw.list_review_comments(12)
        assert [c.body for c in comments] == [f"finding {i}" for i in range(230)]
        assert comments[5].html_url.endswith(f"#discussion_r{comments[5].id}")
        reviews = gw.list_reviews(12)
        assert [r.review_state for r in reviews] == ["COMMENTED"]
        issue_comments = gw.list_issue_comments(12)
        assert issue_comments[0].author_login == "chatgpt-codex-connector[bot]"
        first_cost = gw.rate_limited_count
        # the re-poll is conditional: all 304, free, still complete
        assert gw.list_review_comments(12) == comments
        assert gw.get_pull(12) == pull
        assert gw.rate_limited_count == first_cost == 6
        assert gw.whoami() is None
        assert gw.get_file(".github/reviewcoord.yml", "main") == b"expected-bots: auto\n"
        assert gw.get_file("nope.yml", "main") is None
        recent = gw.recent_comments()
        assert ("coderabbitai[bot]", "Bot") in {(c.author_login, c.author_type) for c in recent}


def test_publish_contract() -> None:
    def faults(gh: FakeGitHub) -> None:
        gh.inject("PATCH", r"/issues/comments/", status=502)
        gh.inject("PATCH", r"/check-runs/", status=403, headers={"Retry-After": "3"})

    with _session("publish", setup=faults) as (gw, sleeps):
        created = gw.create_issue_comment(12, "<!-- reviewcoord -->\nwaiting")
        assert created.author_login == "github-actions[bot]"
        updated = gw.update_issue_comment(created.id, "<!-- reviewcoord -->\nverdict")
        assert updated.body.endswith("verdict") and updated.id == created.id
        gw.create_status(SHA, "pending", "waiting for reviewers", "reviewcoord", None)
        run = gw.create_check_run("reviewcoord", SHA, "in_progress")
        assert run.app_slug == "github-actions"
        note = Annotation(
            path="app.py",
            start_line=3,
            end_line=3,
            annotation_level="failure",
            title="Null dereference",
            message="x may be None",
        )
        output = CheckOutput(title="1 blocker", summary="block", annotations=(note,))
        gw.update_check_run(run.id, "completed", output, "failure")
        assert [r.id for r in gw.list_check_runs(SHA, "reviewcoord")] == [run.id]
        assert sleeps == [1.0, 3.0]


def test_fork_token_contract() -> None:
    with _session("fork_token", token=FORK_TOKEN) as (gw, _):
        assert gw.get_pull(12).number == 12
        with pytest.raises(WriteForbidden):
            gw.create_issue_comment(12, "hi")
        with pytest.raises(GatewayError, match="not found"):
            gw.get_pull(404)


@pytest.mark.parametrize("name", ["read_poll", "publish", "fork_token"])
def test_cassettes_hold_no_token(name: str) -> None:
    text = (CASSETTES / f"{name}.yaml").read_text()
    for secret in (RECORD_TOKEN, FORK_TOKEN, "app-token"):
        assert secret not in text
    for interaction in yaml.safe_load(text)["interactions"]:
        assert "authorization" not in {h.lower() for h in interaction["request"]["headers"]}
