"""One read per event (issue 26 item 2): the PR and its three comment lists in one GraphQL query
(reviewcoord/github/graphql_reading.py) equal the REST reading for every fixture the fake can
hold, both built from the fake's one store; a GraphQL failure of any kind reads over REST,
complete, and says so in one line; an evaluation with it judges as with REST.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from reviewcoord.actions_io import Log
from reviewcoord.errors import GatewayError
from reviewcoord.github.pull_state import PullState
from reviewcoord.github.pygithub_gateway import PyGithubGateway
from reviewcoord.runner import RunRequest, evaluate
from tests.e2e_support import (
    CLAUDE,
    CODEX,
    COPILOT_REVIEWER,
    CURSOR,
    HEAD,
    MARKER,
    NEW_HEAD,
    SimulatedClock,
    all_clean,
    body,
)
from tests.fakegithub import APP_TOKEN, FakeGitHub
from tests.fakegithub.graphql_reading import load_snapshot

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("pr-*.json"))
P1 = (
    "**<sub><sub>![P1 Badge](https://img.shields.io/badge/P1-orange?style=flat)</sub></sub>  "
    "Guard the empty list**\n\nIt indexes `[0]` unconditionally.\n\nUseful? React with 👍 / 👎."
)


def gateway(fake: FakeGitHub, *, one_read: bool) -> PyGithubGateway:
    return PyGithubGateway(
        fake.repo,
        APP_TOKEN,
        base_url=fake.base_url,
        write_spacing=0,
        one_read=one_read,
        sleep=lambda _s: None,
        max_retry_wait=0.0,
        max_attempts=2,
    )


def both(fake: FakeGitHub, pr: int = 2) -> tuple[PullState, PullState]:
    """The REST reading and the GraphQL reading of `pr`, each by a fresh gateway."""
    with gateway(fake, one_read=False) as rest_gw:
        over_rest = rest_gw.read_pull_state(pr)
    start = len(fake.request_log())
    with gateway(fake, one_read=True) as gql_gw:
        over_graphql = gql_gw.read_pull_state(pr)
        assert gql_gw.graphql_points == over_graphql.points
    sent = fake.request_log()[start:]
    assert over_graphql.fallback == ""
    assert sent and all(r.method == "POST" and r.route.endswith("/graphql") for r in sent)
    return over_rest, over_graphql


def assert_equal(over_rest: PullState, over_graphql: PullState) -> None:
    """Model by model, field by field (a failure names the first differing comment)."""
    assert over_graphql.pull.model_dump() == over_rest.pull.model_dump()
    got = [c.model_dump() for c in over_graphql.comments]
    want = [c.model_dump() for c in over_rest.comments]
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert g == w
    assert over_graphql.comments == over_rest.comments


# ------------------------------------------------------------------ the fixtures


def _examples(fake: FakeGitHub, path: Path) -> int:
    return load_snapshot(fake, json.loads(path.read_text(encoding="utf-8")))


def _clean(fake: FakeGitHub) -> int:
    fake.add_pull(2, head_sha=HEAD)
    all_clean(fake)
    return 2


def _threads_and_edits(fake: FakeGitHub) -> int:
    """Replies (to the root and to a reply), a multi-line comment, an outdated one, a review's
    own inline comments, a review of a lost commit, edits by the author and by someone else,
    a person's comments, a deleted account's."""
    fake.add_pull(2, head_sha=HEAD)
    review = fake.add_review(2, login=CODEX, body=body("X_agogo65_review"), commit_id=HEAD)
    root = fake.add_review_comment(
        2, login=CODEX, body=P1, path="a.py", line=9, start_line=4, review_id=review["id"]
    )
    reply = fake.add_review_comment(
        2, login="alice", user_type="User", body="Fixed?", path="a.py", line=9,
        in_reply_to_id=root["id"],
    )  # fmt: skip
    fake.add_review_comment(
        2, login=CODEX, body="Yes.", path="a.py", line=9, in_reply_to_id=reply["id"]
    )
    old = fake.add_review_comment(2, login=CURSOR, body=P1, path="b.py", line=3)
    fake.outdate_review_comment(old["id"])
    fake.edit_review_comment(old["id"], P1 + "\n\nEdited.")
    fake.add_review(2, login=CLAUDE, body="lost", commit_found=False, state="CHANGES_REQUESTED")
    fake.add_review(2, login="bob", user_type="User", body="", state="APPROVED")
    note = fake.add_issue_comment(2, login="carol", user_type="User", body="a note")
    fake.edit_issue_comment(note["id"], "a note, edited by a maintainer", editor="dave")
    fake.add_issue_comment(2, login=CODEX, body=body("X_clean_swish"))
    ghost = fake.add_issue_comment(2, login="ghost", user_type="User", body="gone")
    fake._find(fake._issue_comments, ghost["id"])["user"] = None  # type: ignore[index]
    fake.add_issue_comment(2, login="octo", user_type="Organization", body="org")
    return 2


def _hostile(fake: FakeGitHub) -> int:
    """Lone surrogates, control characters and markup in bodies and titles."""
    fake.add_pull(2, head_sha=HEAD, title="\ud800 <script> \x00")
    fake.add_issue_comment(2, login=CODEX, body="\udfff\r\n<!-- review-coordinator-verdict -->")
    fake.add_review_comment(2, login=CODEX, body="\x1b[31m red", path="ü/ß.py", line=1)
    return 2


def _fork_by_bot(fake: FakeGitHub) -> int:
    fake.add_pull(
        2, head_sha=HEAD, author="dependabot[bot]", author_type="Bot", head_repo="fork/app"
    )
    fake.add_review(2, login=COPILOT_REVIEWER, body=body("Z12"), commit_id=HEAD)
    return 2


def _merged(fake: FakeGitHub) -> int:
    fake.add_pull(2, head_sha=HEAD)
    fake.set_head(2, NEW_HEAD, force=True)
    fake.add_review(2, login=CODEX, body=body("X_agogo65_review"), commit_id=HEAD)
    fake.close_pull(2, merged=True)
    return 2


def _closed(fake: FakeGitHub) -> int:
    fake.add_pull(2, head_sha=HEAD)
    fake.close_pull(2)
    return 2


def _many(fake: FakeGitHub) -> int:
    """Every list over its page (the fake's pages: 7 GraphQL nodes, 10 REST items), and a
    thread with more replies than a page."""
    fake.graphql_page_max = 7
    fake.add_pull(2, head_sha=HEAD)
    for i in range(23):
        fake.add_review(2, login=CODEX, body=f"review {i}", commit_id=HEAD)
    roots = [
        fake.add_review_comment(2, login=CODEX, body=P1, path=f"m{i}.py", line=i + 1)
        for i in range(17)
    ]
    for i in range(16):
        fake.add_review_comment(
            2, login="alice", user_type="User", body=f"r{i}", path="m3.py", line=4,
            in_reply_to_id=roots[3]["id"],
        )  # fmt: skip
    for i in range(19):
        fake.add_issue_comment(2, login="carol", user_type="User", body=f"note {i}")
    return 2


def _empty(fake: FakeGitHub) -> int:
    fake.add_pull(2, head_sha=HEAD)
    return 2


BUILT: dict[str, Callable[[FakeGitHub], int]] = {
    "all-clean": _clean,
    "threads-and-edits": _threads_and_edits,
    "hostile": _hostile,
    "fork-by-bot": _fork_by_bot,
    "merged": _merged,
    "closed": _closed,
    "many-pages": _many,
    "empty": _empty,
}


@pytest.fixture
def small_pages() -> Iterator[FakeGitHub]:
    with FakeGitHub(per_page_max=10) as fake:
        yield fake


@pytest.mark.parametrize("name", sorted(BUILT))
def test_graphql_reading_equals_rest_reading(name: str, small_pages: FakeGitHub) -> None:
    pr = BUILT[name](small_pages)
    over_rest, over_graphql = both(small_pages, pr)
    assert_equal(over_rest, over_graphql)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_graphql_reading_equals_rest_reading_for_every_example(path: Path) -> None:
    repo = json.loads(path.read_text(encoding="utf-8"))["repo"]
    with FakeGitHub(repo=repo) as fake:
        pr = _examples(fake, path)
        over_rest, over_graphql = both(fake, pr)
        assert len(over_rest.comments) > 5
        assert_equal(over_rest, over_graphql)


def test_one_query_when_every_list_fits_its_page_and_github_s_cost_is_kept() -> None:
    with FakeGitHub() as fake:
        _threads_and_edits(fake)
        start = len(fake.request_log())
        with gateway(fake, one_read=True) as gw:
            state = gw.read_pull_state(2)
            assert len(fake.request_log()) - start == 1
            assert state.points == 1 == gw.graphql_points == fake.graphql_points


def test_overflowing_lists_are_paged_with_follow_up_queries_only() -> None:
    with FakeGitHub() as fake:
        _many(fake)
        start = len(fake.request_log())
        with gateway(fake, one_read=True) as gw:
            state = gw.read_pull_state(2)
        queries = [str(r.body["query"]).split("(")[0] for r in fake.request_log()[start:]]
        # 23 reviews, 17 threads, 19 comments at 7 a page; thread 4's 17 comments.
        assert queries.count("query PullReading") == 1
        assert queries.count("query PullReviewsPage") == 3
        assert queries.count("query PullThreadsPage") == 2
        assert queries.count("query PullCommentsPage") == 2
        assert queries.count("query ThreadCommentsPage") == 2
        assert state.points == len(queries)
        assert len(state.comments) == 23 + 17 + 16 + 19


# ------------------------------------------------------------------ failing over to REST

ERRORS: dict[str, dict[str, Any]] = {
    "an error": {"errors": [{"message": "Something went wrong while executing your query."}]},
    "partial data": {
        "data": {"repository": {"pullRequest": {"number": 2, "reviews": None}}},
        "errors": [
            {"type": "FORBIDDEN", "path": ["repository", "pullRequest", "reviews"], "message": "x"}
        ],
    },
    "a field an older GHES lacks": {
        "errors": [
            {
                "path": ["query PullReading", "repository", "pullRequest", "fullDatabaseId"],
                "extensions": {"code": "undefinedField", "typeName": "PullRequestReview"},
                "message": "Field 'fullDatabaseId' doesn't exist on type 'PullRequestReview'",
            }
        ]
    },
    "a malformed id": {"data": {"repository": {"pullRequest": {"reviews": {"nodes": [{}]}}}}},
}


@pytest.mark.parametrize("kind", sorted(ERRORS))
def test_a_failed_graphql_read_is_the_rest_reading_said_once(kind: str) -> None:
    with FakeGitHub() as fake:
        _threads_and_edits(fake)
        with gateway(fake, one_read=False) as rest_gw:
            want = rest_gw.read_pull_state(2)
        fake.inject("POST", r"/graphql", status=200, body=ERRORS[kind], query_contains="PullRead")
        with gateway(fake, one_read=True) as gw:
            got = gw.read_pull_state(2)
            assert got.fallback.startswith("GraphQL read failed (could not read the pull request")
            assert got.fallback.endswith("): read over REST")
            assert_equal(want, got)
            again = gw.read_pull_state(2)  # the rest of the run: REST, nothing said again
            assert again.fallback == "" and again.points == 0
        graphql = [r for r in fake.request_log() if r.route.endswith("/graphql")]
        assert len(graphql) == 1


def test_a_secondary_limit_on_graphql_reads_over_rest() -> None:
    with FakeGitHub() as fake:
        _clean(fake)
        fake.inject("POST", r"/graphql", status=403, times=5, query_contains="PullReading")
        with gateway(fake, one_read=True) as gw:
            got = gw.read_pull_state(2)
        assert "read over REST" in got.fallback and len(got.comments) == 4


def test_a_page_that_fails_fails_the_whole_graphql_reading() -> None:
    """A follow-up page's error: the first page's nodes are never a reading."""
    with FakeGitHub() as fake:
        _many(fake)
        fake.inject("POST", r"/graphql", status=502, times=5, query_contains="ThreadCommentsPage")
        with gateway(fake, one_read=True) as gw:
            got = gw.read_pull_state(2)
        assert got.fallback and len(got.comments) == 23 + 17 + 16 + 19


def test_no_pull_request_fails_closed_over_both() -> None:
    with FakeGitHub() as fake, gateway(fake, one_read=True) as gw, pytest.raises(GatewayError):
        gw.read_pull_state(9)


# ------------------------------------------------------------------ an evaluation with it


def _evaluate(fake: FakeGitHub, *, one_read: bool) -> tuple[Any, str]:
    req = RunRequest(
        repo=fake.repo,
        pr=2,
        inputs={"settle": "none", "expected-bots": "codex,cursor,copilot,claude"},
        input_source="test",
        config_path=".github/review-coordinator.yml",
    )
    out = io.StringIO()
    with gateway(fake, one_read=one_read) as gw:
        outcome = evaluate(req, gw, SimulatedClock(), Log(out))
    return outcome, out.getvalue()


@pytest.mark.parametrize("fail", [False, True], ids=["graphql", "graphql-failed"])
def test_an_evaluation_judges_the_same_with_one_read(fail: bool) -> None:
    verdicts = []
    for one_read in (False, True):
        with FakeGitHub() as fake:
            _threads_and_edits(fake)
            if fail:
                fake.inject("POST", r"/graphql", status=502, times=10, query_contains="PullRead")
            outcome, log = _evaluate(fake, one_read=one_read)
            stickies = [c["body"] for c in fake.issue_comments(2) if MARKER in c["body"]]
            verdicts.append((outcome.gate, outcome.reason, outcome.verdict, stickies))
            reviews = [r for r in fake.request_log() if r.route.endswith("/pulls/2/reviews")]
            if one_read and not fail:
                assert not reviews and "GraphQL read failed" not in log
            if one_read and fail:
                assert log.count("GraphQL read failed") == 1 and "read over REST" in log
    assert verdicts[0] == verdicts[1]
