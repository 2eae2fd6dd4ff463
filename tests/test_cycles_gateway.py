"""The Gateway reads review cycles need, against the fake GitHub: changed files (paginated),
compare (reachable / force-push / gone), collaborator permission, GraphQL review threads."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from reviewcoord.errors import GatewayError
from reviewcoord.github.pygithub_gateway import PyGithubGateway
from tests.fakegithub import FakeGitHub
from tests.fakegithub.server import APP_TOKEN

A, B, C = "a" * 40, "b" * 40, "c" * 40


@pytest.fixture
def gh() -> Iterator[FakeGitHub]:
    with FakeGitHub() as fake:
        fake.add_pull(7, head_sha=A)
        fake.set_commit_files(A, [f"src/f{i}.py" for i in range(150)])
        yield fake


@pytest.fixture
def gw(gh: FakeGitHub) -> Iterator[PyGithubGateway]:
    with PyGithubGateway(
        "octo/app", APP_TOKEN, base_url=gh.base_url, sleep=lambda s: None, write_spacing=0
    ) as gateway:
        yield gateway


def test_pull_files_reads_every_page(gh: FakeGitHub, gw: PyGithubGateway) -> None:
    gh.push(7, B, ["README.md"])
    files = gw.list_pull_files(7)
    assert len(files) == 151 and files[-1] == "README.md"
    assert sum(1 for r in gh.request_log() if "/files" in r.path) == 2


def test_compare_tells_a_push_from_a_force_push(gh: FakeGitHub, gw: PyGithubGateway) -> None:
    gh.push(7, B, ["a.py"])
    gh.push(7, C, ["b.py", "a.py"])
    ahead = gw.compare_commits(A, C)
    assert ahead.status == "ahead" and set(ahead.files) == {"a.py", "b.py"}
    assert ahead.files_complete
    gh.push(7, "d" * 40, ["c.py"], force=True)
    assert gw.compare_commits(C, "d" * 40).status == "diverged"
    gh.forget_commit(C)
    assert gw.compare_commits(C, "d" * 40).status == "unreachable"
    assert gw.compare_commits("e" * 40, "d" * 40).status == "unreachable"


def test_permission(gh: FakeGitHub, gw: PyGithubGateway) -> None:
    gh.set_permission("mona", "maintain")
    gh.set_permission("hubot", "triage")
    assert gw.get_permission("mona") == "maintain"
    assert gw.get_permission("hubot") == "triage"
    assert gw.get_permission("stranger") == "none"  # 404


def test_review_threads(gh: FakeGitHub, gw: PyGithubGateway) -> None:
    root = gh.add_review_comment(7, login="cursor[bot]", body="bug", path="a.py", line=1)
    gh.add_review_comment(
        7,
        login="octocat",
        user_type="User",
        body="fixed",
        path="a.py",
        line=1,
        in_reply_to_id=root["id"],
    )
    with pytest.raises(GatewayError):  # GraphQL is off in the fake unless enabled
        gw.list_review_threads(7)
    gh.enable_graphql()
    gh.set_thread_state(root["id"], resolved=True)
    (thread,) = gw.list_review_threads(7)
    assert thread.root_comment_id == root["id"] and thread.is_resolved
    assert not thread.is_outdated and thread.path == "a.py"
    (post,) = [r for r in gh.request_log() if r.route == "/graphql" and r.status == 200]
    assert post.method == "POST" and "reviewThreads" in post.body["query"]
