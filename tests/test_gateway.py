"""PyGithubGateway against the fake GitHub: completeness, retries, ETags, errors, secrecy."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator

import pytest

from reviewcoord.errors import GatewayError, WriteForbidden
from reviewcoord.github.gateway import Annotation, CheckOutput
from reviewcoord.github.pygithub_gateway import PyGithubGateway
from tests.fakegithub import APP_TOKEN, FakeGitHub

SHA = "a" * 40
SECRET = "ghs_SuperSecretToken0123456789abcdef"


@pytest.fixture
def gh() -> Iterator[FakeGitHub]:
    with FakeGitHub(fault_timeout_seconds=5) as fake:  # a hold ends when the client closes
        fake.add_pull(7, head_sha=SHA)
        fake.add_token(SECRET, "github-actions[bot]", user_endpoint=False)
        yield fake


class Sleeps(list[float]):
    def __call__(self, seconds: float) -> None:
        self.append(seconds)


@pytest.fixture
def sleeps() -> Sleeps:
    return Sleeps()


@pytest.fixture
def gw(gh: FakeGitHub, sleeps: Sleeps) -> Iterator[PyGithubGateway]:
    with PyGithubGateway(
        "octo/app",
        APP_TOKEN,
        base_url=gh.base_url,
        sleep=sleeps,
        write_spacing=0,
        timeout=gh.timeouts(),
    ) as gateway:
        yield gateway


def _comments(gh: FakeGitHub, n: int, pr: int = 7) -> None:
    for i in range(n):
        gh.add_review_comment(pr, login="coderabbitai[bot]", body=f"c{i}", path="a.py", line=i + 1)


def test_reads_every_page(gh: FakeGitHub, gw: PyGithubGateway) -> None:
    _comments(gh, 250)
    got = gw.list_review_comments(7)
    assert [c.body for c in got] == [f"c{i}" for i in range(250)]
    assert got[0].endpoint == "review_comment" and got[0].author_type == "Bot"
    paths = [r.path for r in gh.request_log()]
    assert paths == [
        "/repos/octo/app/pulls/7/comments?per_page=100",
        "/repositories/4242/pulls/7/comments?page=2&per_page=100",
        "/repositories/4242/pulls/7/comments?page=3&per_page=100",
    ]
    assert gw.request_count == 3 == gw.rate_limited_count


def test_ghes_base_url(gh: FakeGitHub, sleeps: Sleeps) -> None:
    _comments(gh, 120)
    with PyGithubGateway(
        "octo/app", APP_TOKEN, base_url=gh.base_url + "/api/v3", sleep=sleeps, write_spacing=0
    ) as gateway:
        assert len(gateway.list_review_comments(7)) == 120
    assert gh.request_log()[-1].path.startswith("/api/v3/repositories/4242/")


def test_502_on_page_2_is_retried(gh: FakeGitHub, gw: PyGithubGateway, sleeps: Sleeps) -> None:
    _comments(gh, 250)
    gh.inject("GET", r"page=2", status=502)
    assert len(gw.list_review_comments(7)) == 250
    assert sleeps == [1.0]
    assert gw.request_count == 4


def test_persistent_502_fails_without_partial_list(
    gh: FakeGitHub, gw: PyGithubGateway, sleeps: Sleeps
) -> None:
    _comments(gh, 250)
    gh.inject("GET", r"page=2", status=502, times=100)
    with pytest.raises(GatewayError) as info:
        gw.list_review_comments(7)
    assert str(info.value) == "could not read pulls/7/comments page 2: HTTP 502 after 5 attempts"
    assert info.value.endpoint == "pulls/7/comments" and info.value.status == 502
    assert sleeps == [1.0, 2.0, 4.0, 8.0]


def test_patch_retried_after_502_and_secondary_limit(
    gh: FakeGitHub, gw: PyGithubGateway, sleeps: Sleeps
) -> None:
    cid = gh.add_issue_comment(7, login="github-actions[bot]", body="old")["id"]
    gh.inject("PATCH", rf"/issues/comments/{cid}$", status=502)
    gh.inject("PATCH", rf"/issues/comments/{cid}$", status=403, headers={"Retry-After": "7"})
    updated = gw.update_issue_comment(cid, "new")
    assert updated.body == "new" and gh.issue_comments(7)[0]["body"] == "new"
    assert sleeps == [1.0, 7.0]
    assert [r.status for r in gh.request_log()] == [502, 403, 200]


def test_secondary_limit_without_retry_after_waits_a_minute_capped(
    gh: FakeGitHub, sleeps: Sleeps
) -> None:
    gh.inject("POST", r"/statuses/", status=403)
    with PyGithubGateway(
        "octo/app", APP_TOKEN, base_url=gh.base_url, sleep=sleeps, write_spacing=0
    ) as gateway:
        gateway.create_status(SHA, "pending", "waiting", "reviewcoord", None)
    assert sleeps == [60.0]
    gh.inject("POST", r"/statuses/", status=403)
    with PyGithubGateway(
        "octo/app",
        APP_TOKEN,
        base_url=gh.base_url,
        sleep=sleeps,
        write_spacing=0,
        max_retry_wait=10,
    ) as gateway:
        gateway.create_status(SHA, "success", "done", "reviewcoord", None)
    assert sleeps == [60.0, 10.0]
    assert [s["state"] for s in gh.statuses(SHA)] == ["pending", "success"]


def test_retry_after_longer_than_allowed_fails(gh: FakeGitHub, gw: PyGithubGateway) -> None:
    gh.inject("POST", r"/comments$", status=429, headers={"Retry-After": "600"})
    with pytest.raises(GatewayError, match="wait 600s"):
        gw.create_issue_comment(7, "hi")


def test_429_without_retry_after_backs_off(
    gh: FakeGitHub, gw: PyGithubGateway, sleeps: Sleeps
) -> None:
    gh.inject("GET", r"/pulls/7/reviews", status=429, times=2)
    gw.list_reviews(7)
    assert sleeps == [1.0, 2.0]


@pytest.mark.parametrize("action", ["reset", "timeout", "truncate"])
def test_transport_errors_are_retried(
    gh: FakeGitHub, gw: PyGithubGateway, sleeps: Sleeps, action: str
) -> None:
    _comments(gh, 150)
    gh.inject("GET", r"page=2", action=action)
    assert len(gw.list_review_comments(7)) == 150
    assert sleeps == [1.0]


def test_a_late_server_thread_costs_no_extra_attempt(
    gh: FakeGitHub, gw: PyGithubGateway, sleeps: Sleeps
) -> None:
    # As under load: the fake's thread reaches the stalled page only after the gateway timed
    # out and retried. The stall was the first attempt's; the retry is answered.
    late: list[str] = []

    def slow(_method: str, path: str) -> None:
        if "page=2" in path and not late:
            late.append(path)
            time.sleep(0.3)

    gh.before_request(slow)
    _comments(gh, 150)
    gh.inject("GET", r"page=2", action="timeout")
    assert len(gw.list_review_comments(7)) == 150
    assert sleeps == [1.0]
    assert [r.action for r in gh.request_log() if "page=2" in r.path] == ["timeout", None]


def test_post_retried_after_reset(gh: FakeGitHub, gw: PyGithubGateway, sleeps: Sleeps) -> None:
    gh.inject("POST", r"/check-runs$", action="reset")
    ref = gw.create_check_run("reviewcoord", SHA, "in_progress")
    assert ref.app_slug == "github-actions" and len(gh.check_runs(SHA)) == 1
    assert sleeps == [1.0]


def test_primary_rate_limit_exhausted_fails_at_once(
    gh: FakeGitHub, gw: PyGithubGateway, sleeps: Sleeps
) -> None:
    gh.set_rate_limit_remaining(0, reset_in=1800)
    with pytest.raises(GatewayError, match="rate limit exhausted"):
        gw.get_pull(7)
    assert sleeps == [] and gw.request_count == 1


def test_primary_rate_limit_waits_for_a_near_reset(gh: FakeGitHub) -> None:
    gh.set_rate_limit_remaining(0, reset_in=20)
    waited: list[float] = []

    def sleep(seconds: float) -> None:
        waited.append(seconds)
        gh.set_rate_limit_remaining(100)

    # The gateway's wall clock reads 20 s before the reset GitHub names, however long the test
    # took to get here: it waits those 20 s and one more.
    reset_at = gh.rate_limit_reset
    with PyGithubGateway(
        "octo/app",
        APP_TOKEN,
        base_url=gh.base_url,
        sleep=sleep,
        write_spacing=0,
        wall_clock=lambda: reset_at - 20.0,
    ) as gateway:
        assert gateway.get_pull(7).head_sha == SHA
    assert waited == [21.0]


def test_read_only_token_write_is_forbidden(gh: FakeGitHub, sleeps: Sleeps) -> None:
    gh.add_token("fork-token", "github-actions[bot]", user_endpoint=False, read_only=True)
    with PyGithubGateway(
        "octo/app", "fork-token", base_url=gh.base_url, sleep=sleeps, write_spacing=0
    ) as gateway:
        assert gateway.get_pull(7).number == 7
        with pytest.raises(WriteForbidden):
            gateway.create_issue_comment(7, "hi")
        with pytest.raises(WriteForbidden):
            gateway.create_status(SHA, "success", "ok", "reviewcoord", None)
        with pytest.raises(WriteForbidden):
            gateway.create_check_run("reviewcoord", SHA, "in_progress")
    assert sleeps == []


def test_dispatch_workflow_sends_the_ref_and_inputs_once(
    gh: FakeGitHub, gw: PyGithubGateway, sleeps: Sleeps
) -> None:
    """The sweep's one write: 204 and no body; refused without `actions: write` (403, no
    retry); a workflow GitHub lacks or an input it does not take is a GatewayError naming it."""
    gw.dispatch_workflow("review-coordinator.yml", "main", {"pr": "7"})
    assert gh.dispatches == [
        {
            "workflow": "review-coordinator.yml",
            "ref": "main",
            "inputs": {"pr": "7"},
            "login": "github-actions[bot]",
        }
    ]
    sent = [r for r in gh.request_log() if r.method == "POST"]
    assert [r.path for r in sent] == [
        "/repos/octo/app/actions/workflows/review-coordinator.yml/dispatches"
    ]
    for workflow, inputs, status in (
        ("other.yml", {"pr": "7"}, 404),
        ("review-coordinator.yml", {"number": "7"}, 422),
    ):
        with pytest.raises(GatewayError) as info:
            gw.dispatch_workflow(workflow, "main", inputs)
        assert info.value.status == status and not isinstance(info.value, WriteForbidden)
    gh.actions_write = False
    with pytest.raises(WriteForbidden):
        gw.dispatch_workflow("review-coordinator.yml", "main", {"pr": "7"})
    assert len(gh.dispatches) == 1 and sleeps == []


def test_client_errors(gh: FakeGitHub, gw: PyGithubGateway, sleeps: Sleeps) -> None:
    with pytest.raises(GatewayError, match="not found") as info:
        gw.get_pull(99)
    assert info.value.status == 404
    with pytest.raises(GatewayError, match="Body is too long"):
        gw.create_issue_comment(7, "x" * 65537)
    with pytest.raises(GatewayError, match="description is too long"):
        gw.create_status(SHA, "success", "d" * 141, "reviewcoord", None)
    with pytest.raises(GatewayError, match="not found"):
        gw.create_issue_comment(99, "hi")
    assert sleeps == []


def test_malformed_list_and_foreign_link(gh: FakeGitHub, gw: PyGithubGateway) -> None:
    gh.inject("GET", r"/pulls/7/reviews", status=200, body={"not": "a list"})
    with pytest.raises(GatewayError, match="malformed"):
        gw.list_reviews(7)
    gh.inject(
        "GET",
        r"/issues/7/comments",
        status=200,
        body=[],
        headers={"Link": '<https://evil.example/x?page=2>; rel="next"'},
    )
    with pytest.raises(GatewayError, match="another host"):
        gw.list_issue_comments(7)
    gh.inject("GET", r"/pulls/7$", status=200, body={"number": 7})
    with pytest.raises(GatewayError, match=r"head\.sha"):
        gw.get_pull(7)


def test_conditional_repoll_is_free(gh: FakeGitHub, gw: PyGithubGateway) -> None:
    _comments(gh, 250)
    first = gw.list_review_comments(7)
    pull = gw.get_pull(7)
    used = gh.rate_limit_used
    assert gw.list_review_comments(7) == first
    assert gw.get_pull(7) == pull
    assert gh.rate_limit_used == used
    assert gw.request_count == 8 and gw.rate_limited_count == 4
    assert [r.status for r in gh.request_log()[-4:]] == [304] * 4


def test_new_comment_after_a_full_last_page_is_found(gh: FakeGitHub, gw: PyGithubGateway) -> None:
    _comments(gh, 200)
    assert len(gw.list_review_comments(7)) == 200
    assert len(gw.list_review_comments(7)) == 200  # probes page 3 once (empty, then cached)
    used = gh.rate_limit_used
    assert len(gw.list_review_comments(7)) == 200
    assert gh.rate_limit_used == used  # the probe is conditional too
    gh.add_review_comment(7, login="cursor[bot]", body="late", path="b.py", line=1)
    got = gw.list_review_comments(7)
    assert len(got) == 201 and got[-1].body == "late"


def test_head_change_is_seen(gh: FakeGitHub, gw: PyGithubGateway) -> None:
    assert gw.get_pull(7).head_sha == SHA
    gh.set_head(7, "b" * 40)
    assert gw.get_pull(7).head_sha == "b" * 40


def test_token_never_in_errors_or_logs(
    gh: FakeGitHub, sleeps: Sleeps, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    errors: list[BaseException] = []
    with PyGithubGateway(
        "octo/app", SECRET, base_url=gh.base_url, sleep=sleeps, write_spacing=0
    ) as gateway:
        gh.inject("*", r"/pulls/7/comments", status=502, times=10)
        gh.inject("POST", r"/issues/7/comments", status=422, body={"message": SECRET})
        gh.inject("GET", r"/pulls/7$", action="reset", times=5)
        for call in (
            lambda: gateway.list_review_comments(7),
            lambda: gateway.create_issue_comment(7, "x"),
            lambda: gateway.get_pull(7),
        ):
            with pytest.raises(GatewayError) as info:
                call()
            errors.append(info.value)
    with (
        PyGithubGateway(
            "octo/app", SECRET + "x", base_url=gh.base_url, sleep=sleeps, write_spacing=0
        ) as gateway,
        pytest.raises(GatewayError, match="bad credentials") as info,
    ):
        gateway.get_pull(7)
    errors.append(info.value)
    for err in errors:
        chain: BaseException | None = err
        while chain is not None:
            assert SECRET not in str(chain) and SECRET not in repr(chain)
            chain = chain.__cause__ or chain.__context__
    assert SECRET not in caplog.text


def test_writes_are_spaced_past_the_first_burst(gh: FakeGitHub) -> None:
    """The first WRITE_BURST writes of a run go at once; later ones keep write_spacing after
    the previous write (GitHub asks ≥ 1 s only for "a large number" of mutations)."""
    from reviewcoord.github.pygithub_gateway import WRITE_BURST

    now = [100.0]
    waits: list[float] = []

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        now[0] += seconds

    with PyGithubGateway(
        "octo/app",
        APP_TOKEN,
        base_url=gh.base_url,
        sleep=sleep,
        clock=lambda: now[0],
        write_spacing=1.0,
    ) as gateway:
        c = gateway.create_issue_comment(7, "a")
        for i in range(WRITE_BURST - 1):
            gateway.update_issue_comment(c.id, f"b{i}")
        assert waits == []  # the burst: no wait at all
        now[0] += 0.25
        gateway.update_issue_comment(c.id, "c")
        gateway.get_pull(7)  # reads are never spaced
        gateway.delete_issue_comment(c.id)
    assert waits == [0.75, 1.0]
    assert gh.issue_comments(7) == []


def test_other_reads(gh: FakeGitHub, gw: PyGithubGateway) -> None:
    gh.add_token("pat", "alice", user_endpoint=True)
    assert gw.whoami() is None
    with PyGithubGateway("octo/app", "pat", base_url=gh.base_url, write_spacing=0) as pat:
        assert pat.whoami() == "alice"
    gh.set_file(".github/reviewcoord.yml", "main", "expected-bots: auto\n")
    assert gw.get_file(".github/reviewcoord.yml", "main") == b"expected-bots: auto\n"
    assert gw.get_file("missing.yml", "main") is None
    gh.add_review_comment(7, login="coderabbitai[bot]", body="x", path="a", line=1)
    gh.add_issue_comment(7, login="alice", body="x", user_type="User")
    gh.add_issue_comment(7, login="chatgpt-codex-connector[bot]", body="y")
    recent = gw.recent_comments()
    assert [(c.author_login, c.author_type, c.endpoint, c.body) for c in recent] == [
        ("coderabbitai[bot]", "Bot", "review_comment", "x"),
        ("chatgpt-codex-connector[bot]", "Bot", "issue_comment", "y"),
        ("alice", "User", "issue_comment", "x"),
    ]
    assert gh.request_log()[-1].path == (
        "/repos/octo/app/issues/comments?direction=desc&per_page=100&sort=created"
    )
    gh.add_review(7, login="copilot[bot]", body="r", state="COMMENTED")
    (review,) = gw.list_reviews(7)
    assert review.review_state == "COMMENTED" and review.endpoint == "review"
    assert gw.list_issue_comments(7)[0].author_login == "alice"


def test_check_runs_with_many_annotations(gh: FakeGitHub, gw: PyGithubGateway) -> None:
    notes = tuple(
        Annotation(
            path="a.py",
            start_line=i,
            end_line=i,
            annotation_level="warning",
            title="t",
            message=f"m{i}",
        )
        for i in range(1, 121)
    )
    ref = gw.create_check_run(
        "reviewcoord",
        SHA,
        "completed",
        CheckOutput(title="T", summary="S", annotations=notes),
        "failure",
    )
    (run,) = gh.check_runs(SHA)
    assert run["status"] == "completed" and run["conclusion"] == "failure"
    assert [a["message"] for a in run["annotations"]] == [f"m{i}" for i in range(1, 121)]
    writes = [r for r in gh.request_log() if r.method in ("POST", "PATCH")]
    assert [len(r.body["output"]["annotations"]) for r in writes] == [50, 50, 20]
    gw.update_check_run(ref.id, "completed", CheckOutput(title="T", summary="S2"), "success")
    assert gh.check_runs(SHA)[0]["conclusion"] == "success"
    assert [r.id for r in gw.list_check_runs(SHA, "reviewcoord")] == [ref.id]
    assert gw.list_check_runs(SHA, "other") == []


def test_open_pulls_every_page_or_nothing(
    gh: FakeGitHub, gw: PyGithubGateway, sleeps: Sleeps
) -> None:
    for n in range(8, 110):  # 103 open PRs with #7: two pages
        gh.add_pull(n, head_sha=f"{n:02x}" * 20, title=f"PR {n}")
    gh.close_pull(50)
    pulls = gw.list_open_pulls()
    assert len(pulls) == 102 and 50 not in {p.number for p in pulls}
    assert pulls[0].number == 109 and pulls[0].head_sha == "6d" * 20
    assert pulls[0].title == "PR 109" and pulls[0].html_url.endswith("/pull/109")
    log = gh.request_log()
    assert [r.route for r in log] == ["/repos/octo/app/pulls", "/repositories/4242/pulls"]
    assert all("state=open" in r.path and "per_page=100" in r.path for r in log)
    gh.inject("GET", r"pulls\?.*page=2", status=502, times=100)
    with pytest.raises(GatewayError, match="could not read pulls page 2"):
        gw.list_open_pulls()
    gh.clear_faults()
    gh.inject("GET", r"/pulls\?", status=200, body=[{"number": 3}])
    with pytest.raises(GatewayError, match=r"malformed.*head\.sha"):
        gw.list_open_pulls()


def test_a_refused_read_names_a_missing_permission_not_a_fork(
    gh: FakeGitHub, gw: PyGithubGateway
) -> None:
    gh.inject(
        "GET",
        r"/pulls/7/comments",
        status=403,
        body={"message": "Resource not accessible by integration"},
    )
    with pytest.raises(GatewayError) as info:
        gw.list_review_comments(7)
    assert "the token lacks a permission this read needs" in str(info.value)
    assert "fork" not in str(info.value) and info.value.status == 403


def test_comment_edit_history_is_read_100_comments_a_query(
    gh: FakeGitHub, gw: PyGithubGateway
) -> None:
    made = [
        gh.add_issue_comment(7, login="mona", user_type="User", body=f"c{i}") for i in range(150)
    ]
    for c in made[:149]:
        gh.edit_issue_comment(c["id"], "edited", editor="octocat")
    before = len(gh.request_log())
    edits = gw.list_comment_edits([c["node_id"] for c in made])
    posts = [r for r in gh.request_log()[before:] if r.path.endswith("/graphql")]
    assert len(posts) == 2 and len(edits) == 150
    first = edits[0]
    assert first.editor is not None and (first.editor.login, first.editor.type) == (
        "octocat",
        "User",
    )
    # GitHub's shape: newest edit first, the original text (by its author) last.
    assert [a.login for a in first.editors if a] == ["octocat", "mona"] and first.complete
    assert edits[-1].editor is None and edits[-1].editors == ()  # never edited
    # A bot's GraphQL login has no `[bot]`; its type says it is a Bot.
    ours = gh.add_issue_comment(7, login="github-actions[bot]", body="x")
    gh.edit_issue_comment(ours["id"], "y")
    (mine,) = gw.list_comment_edits([ours["node_id"]])
    assert mine.editor is not None and (mine.editor.login, mine.editor.type) == (
        "github-actions",
        "Bot",
    )


def test_comment_edit_history_errors_fail_the_read(gh: FakeGitHub, gw: PyGithubGateway) -> None:
    with pytest.raises(GatewayError, match="comment edit history"):
        gw.list_comment_edits(["IC_no_such_node"])
