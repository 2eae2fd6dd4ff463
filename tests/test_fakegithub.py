"""The fake GitHub server behaves like GitHub where review-coordinator depends on it."""

from __future__ import annotations

import base64
import re
import time
from collections.abc import Iterator

import pytest
import requests

from tests.fakegithub import APP_TOKEN, FakeGitHub

SHA = "a" * 40


@pytest.fixture
def gh() -> Iterator[FakeGitHub]:
    with FakeGitHub(fault_timeout_seconds=5) as fake:  # a hold ends when the client closes
        fake.add_pull(7, head_sha=SHA)
        yield fake


@pytest.fixture
def http() -> Iterator[requests.Session]:
    with requests.Session() as session:
        session.headers["Authorization"] = f"token {APP_TOKEN}"
        yield session


def test_pagination_link_header_is_githubs_format(gh: FakeGitHub, http: requests.Session) -> None:
    for i in range(250):
        gh.add_review_comment(7, login="bot[bot]", body=f"c{i}", path="a.py", line=i + 1)
    root = gh.base_url
    r1 = http.get(f"{root}/repos/octo/app/pulls/7/comments?per_page=100")
    assert r1.status_code == 200 and len(r1.json()) == 100
    page = f"{root}/repositories/4242/pulls/7/comments?per_page=100&page="
    assert r1.headers["Link"] == f'<{page}2>; rel="next", <{page}3>; rel="last"'
    r2 = http.get(f"{page}2")
    assert r2.headers["Link"] == (
        f'<{page}1>; rel="prev", <{page}3>; rel="next", <{page}3>; rel="last", '
        f'<{page}1>; rel="first"'
    )
    r3 = http.get(f"{page}3")
    assert len(r3.json()) == 50
    assert r3.headers["Link"] == f'<{page}2>; rel="prev", <{page}1>; rel="first"'
    ids = [c["id"] for c in r1.json() + r2.json() + r3.json()]
    assert ids == sorted(ids) and len(set(ids)) == 250


def test_default_per_page_cap_and_single_page_has_no_link(
    gh: FakeGitHub, http: requests.Session
) -> None:
    for i in range(31):
        gh.add_issue_comment(7, login="bot[bot]", body=f"c{i}")
    r = http.get(f"{gh.base_url}/repos/octo/app/issues/7/comments")
    assert len(r.json()) == 30 and "per_page" not in r.headers["Link"]
    r = http.get(f"{gh.base_url}/repos/octo/app/issues/7/comments?per_page=500")
    assert len(r.json()) == 31 and "Link" not in r.headers


def test_ghes_prefix_is_served_and_kept_in_links(gh: FakeGitHub, http: requests.Session) -> None:
    for i in range(3):
        gh.add_review(7, login="bot[bot]", body=f"r{i}")
    r = http.get(f"{gh.base_url}/api/v3/repos/octo/app/pulls/7/reviews?per_page=2")
    assert r.status_code == 200
    assert (
        f"{gh.base_url}/api/v3/repositories/4242/pulls/7/reviews?per_page=2&page=2"
        in (r.headers["Link"])
    )


def test_etag_304_is_free(gh: FakeGitHub, http: requests.Session) -> None:
    url = f"{gh.base_url}/repos/octo/app/pulls/7"
    r = http.get(url)
    etag = r.headers["ETag"]
    assert re.fullmatch(r'W/"[0-9a-f]+"', etag)
    used = gh.rate_limit_used
    r304 = http.get(url, headers={"If-None-Match": etag})
    assert r304.status_code == 304 and r304.content == b""
    assert gh.rate_limit_used == used
    gh.set_head(7, "b" * 40)
    r = http.get(url, headers={"If-None-Match": etag})
    assert r.status_code == 200 and r.json()["head"]["sha"] == "b" * 40
    assert gh.rate_limit_used == used + 1
    assert int(r.headers["x-ratelimit-remaining"]) == 5000 - gh.rate_limit_used
    assert gh.request_log()[-1].response_etag == r.headers["ETag"]


def test_shapes(gh: FakeGitHub, http: requests.Session) -> None:
    review = gh.add_review(7, login="copilot[bot]", body="r", state="COMMENTED")
    first = gh.add_review_comment(
        7, login="cursor[bot]", body="b", path="a.py", line=None, original_line=4
    )
    reply = gh.add_review_comment(
        7, login="cursor[bot]", body="b", path="a.py", line=5, in_reply_to_id=first["id"]
    )
    ic = gh.add_issue_comment(7, login="codex[bot]", body="c")
    assert review["html_url"].endswith(f"/pull/7#pullrequestreview-{review['id']}")
    assert review["user"]["type"] == "Bot" and review["commit_id"] == SHA
    assert first["html_url"] == f"https://github.com/octo/app/pull/7#discussion_r{first['id']}"
    assert "in_reply_to_id" not in first and reply["in_reply_to_id"] == first["id"]
    assert first["line"] is None and first["original_line"] == 4
    assert first["original_commit_id"] == SHA
    assert ic["html_url"].endswith(f"/pull/7#issuecomment-{ic['id']}")
    pull = http.get(f"{gh.base_url}/repos/octo/app/pulls/7").json()
    assert pull["head"]["sha"] == SHA and pull["base"]["repo"]["full_name"] == "octo/app"
    repo_wide = http.get(
        f"{gh.base_url}/repos/octo/app/pulls/comments?sort=created&direction=desc"
    ).json()
    assert [c["id"] for c in repo_wide] == [reply["id"], first["id"]]


def test_identities(gh: FakeGitHub, http: requests.Session) -> None:
    root = gh.base_url
    gh.add_token("pat", "alice", user_endpoint=True)
    gh.add_token("inst", "my-app[bot]", user_endpoint=False)
    gh.add_token("fork", "github-actions[bot]", user_endpoint=False, read_only=True)
    assert http.get(f"{root}/user").status_code == 403
    pat = {"Authorization": "token pat"}
    assert http.get(f"{root}/user", headers=pat).json()["login"] == "alice"
    r = http.get(f"{root}/user", headers={"Authorization": "token nope"})
    assert r.status_code == 401 and r.json()["message"] == "Bad credentials"
    url = f"{root}/repos/octo/app/issues/7/comments"
    made = http.post(url, json={"body": "x"}, headers={"Authorization": "token inst"})
    assert made.status_code == 201 and made.json()["user"]["login"] == "my-app[bot]"
    assert http.post(url, json={"body": "y"}).json()["user"]["login"] == "github-actions[bot]"
    fork = {"Authorization": "token fork"}
    denied = http.post(url, json={"body": "x"}, headers=fork)
    assert denied.status_code == 403
    assert denied.json()["message"] == "Resource not accessible by integration"
    assert http.get(url, headers=fork).status_code == 200
    assert http.post(f"{root}/repos/octo/app/issues/99/comments", json={"body": "x"}).status_code
    assert gh.request_log()[-1].status == 404


def test_validation_errors(gh: FakeGitHub, http: requests.Session) -> None:
    root = f"{gh.base_url}/repos/octo/app"
    r = http.post(f"{root}/issues/7/comments", json={"body": "x" * 65537})
    assert r.status_code == 422
    assert "Body is too long" in r.json()["errors"][0]["message"]
    assert http.post(f"{root}/issues/7/comments", json={"body": "x" * 65536}).status_code == 201
    r = http.post(f"{root}/statuses/{SHA}", json={"state": "success", "description": "d" * 141})
    assert r.status_code == 422
    assert r.json()["errors"][0]["message"].startswith("description is too long")
    note = {"path": "a", "start_line": 1, "end_line": 1, "annotation_level": "notice"}
    notes = [{**note, "message": str(i)} for i in range(51)]
    out = {"title": "t", "summary": "s", "annotations": notes}
    r = http.post(f"{root}/check-runs", json={"name": "n", "head_sha": SHA, "output": out})
    assert r.status_code == 422


def test_check_runs_and_statuses(gh: FakeGitHub, http: requests.Session) -> None:
    root = f"{gh.base_url}/repos/octo/app"
    note = {"path": "a", "start_line": 1, "end_line": 1, "annotation_level": "notice"}
    out = {"title": "t", "summary": "s", "annotations": [{**note, "message": "1"}]}
    run = http.post(
        f"{root}/check-runs", json={"name": "rc", "head_sha": SHA, "status": "in_progress"}
    ).json()
    assert run["app"]["id"] == 15368 and run["status"] == "in_progress"
    http.patch(f"{root}/check-runs/{run['id']}", json={"output": out})
    http.patch(f"{root}/check-runs/{run['id']}", json={"conclusion": "success", "output": out})
    (stored,) = gh.check_runs(SHA)
    assert stored["status"] == "completed" and len(stored["annotations"]) == 2
    listed = http.get(f"{root}/commits/{SHA}/check-runs?check_name=rc").json()
    assert listed["total_count"] == 1 and listed["check_runs"][0]["id"] == run["id"]
    http.post(f"{root}/statuses/{SHA}", json={"state": "pending", "context": "rc"})
    http.post(f"{root}/statuses/{SHA}", json={"state": "success", "context": "rc"})
    combined = http.get(f"{root}/commits/{SHA}/status").json()
    assert combined["state"] == "success" and combined["total_count"] == 1
    assert [s["state"] for s in gh.statuses(SHA)] == ["pending", "success"]


def test_contents(gh: FakeGitHub, http: requests.Session) -> None:
    gh.set_file(".github/reviewcoord.yml", "main", "gate: block\n")
    r = http.get(f"{gh.base_url}/repos/octo/app/contents/.github/reviewcoord.yml?ref=main")
    assert base64.b64decode(r.json()["content"]).decode() == "gate: block\n"
    r = http.get(f"{gh.base_url}/repos/octo/app/contents/.github/reviewcoord.yml?ref=dev")
    assert r.status_code == 404


def test_status_faults(gh: FakeGitHub, http: requests.Session) -> None:
    url = f"{gh.base_url}/repos/octo/app/pulls/7"
    gh.inject("GET", r"/pulls/7$", status=403, headers={"Retry-After": "3"}, times=2)
    for _ in range(2):
        r = http.get(url)
        assert r.status_code == 403 and r.headers["Retry-After"] == "3"
        assert "secondary rate limit" in r.json()["message"]
    assert http.get(url).status_code == 200
    gh.inject("PATCH", r"/issues/comments/", status=502, body="<html>502</html>")
    r = http.patch(f"{gh.base_url}/repos/octo/app/issues/comments/1", json={"body": "x"})
    assert r.status_code == 502 and r.text == "<html>502</html>"


@pytest.mark.parametrize(
    ("action", "error"),
    [
        ("reset", requests.exceptions.ConnectionError),
        ("timeout", requests.exceptions.ReadTimeout),
        ("truncate", requests.exceptions.ChunkedEncodingError),
    ],
)
def test_transport_faults(
    gh: FakeGitHub, http: requests.Session, action: str, error: type[Exception]
) -> None:
    # Only the stalled request gets a short client timeout (`timeouts`), so a late server
    # thread never turns a reset or a truncated body into a timeout.
    url = f"{gh.base_url}/repos/octo/app/pulls/7"
    timeout = gh.timeouts(stalled=0.1)
    gh.inject("GET", r"/pulls/7$", action=action)
    with pytest.raises(error):
        http.get(url, timeout=timeout("GET", url)).json()
    assert http.get(url, timeout=timeout("GET", url)).status_code == 200
    assert gh.request_log()[-2].action == action


def test_will_stall_answers_as_the_fake_will_take_the_fault(
    gh: FakeGitHub, http: requests.Session
) -> None:
    graphql = f"{gh.base_url}/graphql"
    gh.inject("POST", r"^/graphql$", action="timeout", query_contains="userContentEdits")
    assert not gh.will_stall("POST", graphql, {"query": "{ viewer { login } }"})
    url = f"{gh.base_url}/repos/octo/app/pulls/7"
    gh.inject("GET", r"/pulls/7$", status=502)  # the first matching fault is the one taken
    gh.inject("GET", r"/pulls/7$", action="timeout")
    assert not gh.will_stall("GET", url)
    assert http.get(url).status_code == 502
    assert gh.will_stall("GET", url)  # reserved for this attempt: its retry is answered
    with pytest.raises(requests.exceptions.ReadTimeout):
        http.get(url, timeout=0.1)
    assert not gh.will_stall("GET", url)
    assert [r.action for r in gh.request_log()] == [None, "timeout"]


def test_a_stall_reserved_for_a_late_request_is_not_given_to_its_retry(
    gh: FakeGitHub, http: requests.Session
) -> None:
    # As under load: the server thread reaches the stalled request only after the client gave
    # up and retried. The retry waits in `timeouts` until the stall was taken, then is answered.
    late: list[str] = []

    def slow(_method: str, path: str) -> None:
        if path.endswith("/pulls/7") and not late:
            late.append(path)
            time.sleep(0.3)

    gh.before_request(slow)
    gh.inject("GET", r"/pulls/7$", action="timeout")
    url = f"{gh.base_url}/repos/octo/app/pulls/7"
    timeout = gh.timeouts(stalled=0.1)
    with pytest.raises(requests.exceptions.ReadTimeout):
        http.get(url, timeout=timeout("GET", url))
    assert http.get(url, timeout=timeout("GET", url)).status_code == 200
    assert [r.action for r in gh.request_log()] == ["timeout", None]


def test_primary_rate_limit(gh: FakeGitHub, http: requests.Session) -> None:
    gh.set_rate_limit_remaining(0)
    r = http.get(f"{gh.base_url}/repos/octo/app/pulls/7")
    assert r.status_code == 403 and r.json()["message"].startswith("API rate limit exceeded")
    assert r.headers["x-ratelimit-remaining"] == "0" and int(r.headers["x-ratelimit-reset"]) > 0
    gh.set_rate_limit_remaining(10)
    r = http.get(f"{gh.base_url}/repos/octo/app/pulls/7")
    assert r.status_code == 200 and r.headers["x-ratelimit-remaining"] == "9"


def test_on_request_hook_sees_answered_requests(gh: FakeGitHub, http: requests.Session) -> None:
    seen: list[str] = []

    def hook(fake: FakeGitHub, req: object) -> None:
        seen.append(getattr(req, "route", ""))
        if len(seen) == 1:
            fake.set_head(7, "c" * 40)

    gh.on_request(hook)
    assert http.get(f"{gh.base_url}/repos/octo/app/pulls/7").json()["head"]["sha"] == SHA
    assert http.get(f"{gh.base_url}/repos/octo/app/pulls/7").json()["head"]["sha"] == "c" * 40
    # The hook runs after the response is sent: the client may see the reply first.
    for _ in range(3000):  # a bound (30 s) for a busy machine, not a figure
        if len(seen) == 2:
            break
        time.sleep(0.01)
    assert seen == ["/repos/octo/app/pulls/7"] * 2


def test_pull_list_state_filter_order_shape_and_pages(
    gh: FakeGitHub, http: requests.Session
) -> None:
    for n in range(8, 13):
        gh.add_pull(n, head_sha=f"{n:02x}" * 20)
    gh.close_pull(9, merged=True)
    root = gh.base_url
    r = http.get(f"{root}/repos/octo/app/pulls?state=open&per_page=2")
    page = f"{root}/repositories/4242/pulls?state=open&per_page=2&page="
    assert r.headers["Link"] == f'<{page}2>; rel="next", <{page}3>; rel="last"'
    numbers = [p["number"] for p in r.json() + http.get(f"{page}2").json()]
    numbers += [p["number"] for p in http.get(f"{page}3").json()]
    assert numbers == [12, 11, 10, 8, 7]  # newest first, the closed one left out
    item = r.json()[0]
    assert item["head"]["sha"] == "0c" * 20 and item["state"] == "open"
    assert "mergeable" not in item and "changed_files" not in item and "title" in item
    default = [p["number"] for p in http.get(f"{root}/repos/octo/app/pulls").json()]
    closed = http.get(f"{root}/repos/octo/app/pulls?state=closed").json()
    assert default == numbers and [(p["number"], p["state"]) for p in closed] == [(9, "closed")]
    assert len(http.get(f"{root}/repos/octo/app/pulls?state=all").json()) == 6
    assert http.get(f"{root}/repos/octo/app/pulls?state=bogus").status_code == 422
