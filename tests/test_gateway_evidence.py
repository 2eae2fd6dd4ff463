"""The evidence reads of a PR head against the fake GitHub over HTTP: every App's check runs,
commit statuses with their creator, reactions on the PR. Complete or GatewayError, ETags free.

The bots' data follows their documentation: Copilot code review's check run
`copilot-pull-request-reviewer` (app `github-actions`, 15368), `Cursor Bugbot` (app `cursor`,
1210556), `Greptile Review` (app `greptile-apps`, 867647), CodeRabbit's check run or commit status
(`coderabbitai[bot]`), Codex's `eyes` while it works and `+1` when it found nothing
(`chatgpt-codex-connector[bot]`).
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
import requests

from reviewcoord.actions_io import Log
from reviewcoord.errors import GatewayError
from reviewcoord.github.dry_run import DryRunGateway
from reviewcoord.github.gateway import CHECK_SUMMARY_CHARS, CheckOutput, Reaction
from reviewcoord.github.pygithub_gateway import PyGithubGateway
from tests.fakegithub import APP_TOKEN, FakeGitHub

SHA = "c" * 40
PR = 7
CODEX = "chatgpt-codex-connector[bot]"
CODERABBIT = "coderabbitai[bot]"
GREPTILE_SUMMARY = "Greptile has reviewed the Pull Request.\n\n8 files reviewed, 0 comments added."
BUGBOT_LIMIT = "Bugbot couldn't run - usage limit reached"
APPS = [
    ("copilot-pull-request-reviewer", "github-actions", 15368),
    ("Cursor Bugbot", "cursor", 1210556),
    ("Greptile Review", "greptile-apps", 867647),
    ("CodeRabbit", "coderabbitai", 400_001),  # an id made up for the tests
]


@pytest.fixture
def gh() -> Iterator[FakeGitHub]:
    with FakeGitHub() as fake:
        fake.add_pull(PR, head_sha=SHA)
        yield fake


class Sleeps(list[float]):
    def __call__(self, seconds: float) -> None:
        self.append(seconds)


@pytest.fixture
def gw(gh: FakeGitHub) -> Iterator[PyGithubGateway]:
    with PyGithubGateway(
        "octo/app",
        APP_TOKEN,
        base_url=gh.base_url,
        sleep=Sleeps(),
        write_spacing=0,
        timeout=gh.timeouts(),
    ) as gateway:
        yield gateway


def _raw(gh: FakeGitHub, path: str) -> Any:
    """GET the fake directly (what GitHub itself answers, not what the gateway makes of it)."""
    resp = requests.get(
        f"{gh.base_url}/repos/octo/app/{path}",
        headers={"Authorization": f"token {APP_TOKEN}"},
        timeout=60,
    )
    assert resp.status_code == 200, resp.text
    return resp.json()


def _many_runs(gh: FakeGitHub, n: int) -> list[int]:
    ids = []
    for i in range(n):
        name, slug, app_id = APPS[i % len(APPS)]
        ids.append(gh.add_bot_check_run(SHA, name, app_slug=slug, app_id=app_id, title=f"t{i}"))
    return ids


# ---------------------------------------------------------------------- check runs, every App
def test_every_apps_check_runs_on_every_page(gh: FakeGitHub, gw: PyGithubGateway) -> None:
    ids = _many_runs(gh, 150)
    ours = gw.create_check_run("review-coordinator", SHA, "in_progress")
    start = len(gh.request_log())
    runs = gw.list_check_runs(SHA)
    assert [r.id for r in runs] == [ours.id, *reversed(ids)]  # newest first, as GitHub
    assert {r.app_slug for r in runs} == {
        "github-actions",
        "cursor",
        "greptile-apps",
        "coderabbitai",
    }
    assert [r.path for r in gh.request_log()[start:]] == [
        f"/repos/octo/app/commits/{SHA}/check-runs?filter=all&per_page=100",
        f"/repositories/4242/commits/{SHA}/check-runs?filter=all&page=2&per_page=100",
    ]


def test_bot_check_runs_carry_title_summary_and_times(gh: FakeGitHub, gw: PyGithubGateway) -> None:
    bugbot = gh.add_bot_check_run(
        SHA,
        "Cursor Bugbot",
        app_slug="cursor",
        app_id=1210556,
        conclusion="neutral",
        title=BUGBOT_LIMIT,
        started_at="2026-01-05T09:01:00Z",
        completed_at="2026-01-05T09:01:30Z",
    )
    greptile = gh.add_bot_check_run(
        SHA,
        "Greptile Review",
        app_slug="greptile-apps",
        app_id=867647,
        title="Greptile Review",
        summary=GREPTILE_SUMMARY,
    )
    copilot = gh.add_bot_check_run(
        SHA,
        "copilot-pull-request-reviewer",
        app_slug="github-actions",
        app_id=15368,
        status="in_progress",
        summary="x" * 5000,
    )
    by_id = {r.id: r for r in gw.list_check_runs(SHA)}
    run = by_id[bugbot]
    assert (run.name, run.app_slug, run.status, run.conclusion) == (
        "Cursor Bugbot",
        "cursor",
        "completed",
        "neutral",
    )
    assert run.title == BUGBOT_LIMIT and run.summary is None
    assert run.started_at == datetime(2026, 1, 5, 9, 1, tzinfo=UTC)
    assert run.completed_at == datetime(2026, 1, 5, 9, 1, 30, tzinfo=UTC)
    assert by_id[greptile].summary == GREPTILE_SUMMARY
    assert by_id[greptile].html_url.endswith(f"/runs/{greptile}")
    cop = by_id[copilot]
    assert (cop.status, cop.conclusion, cop.completed_at) == ("in_progress", None, None)
    assert cop.app_slug == "github-actions" and cop.started_at is not None
    assert cop.summary == "x" * CHECK_SUMMARY_CHARS


def test_name_filtered_listing_is_unchanged(gh: FakeGitHub, gw: PyGithubGateway) -> None:
    _many_runs(gh, 8)
    first = gh.add_bot_check_run(SHA, "Cursor Bugbot", app_slug="cursor", app_id=1210556)
    rerun = gh.add_bot_check_run(SHA, "Cursor Bugbot", app_slug="cursor", app_id=1210556)
    start = len(gh.request_log())
    named = gw.list_check_runs(SHA, "Cursor Bugbot")
    assert [r.id for r in named][:2] == [rerun, first]  # filter=all: the re-run and the first
    assert {r.name for r in named} == {"Cursor Bugbot"} and len(named) == 4
    assert gw.list_check_runs(SHA, name="nobody") == []
    runs = f"/repos/octo/app/commits/{SHA}/check-runs"
    assert [r.path for r in gh.request_log()[start:]] == [
        f"{runs}?check_name=Cursor+Bugbot&filter=all&per_page=100",
        f"{runs}?check_name=nobody&filter=all&per_page=100",
    ]
    # GitHub's default `filter=latest`: only the newest run of each name and App.
    latest = _raw(gh, f"commits/{SHA}/check-runs?check_name=Cursor+Bugbot")
    assert [r["id"] for r in latest["check_runs"]] == [rerun]
    assert latest["total_count"] == 1
    by_app = _raw(gh, f"commits/{SHA}/check-runs?filter=all&app_id=867647")
    assert {r["app"]["slug"] for r in by_app["check_runs"]} == {"greptile-apps"}


def test_a_repeated_unchanged_listing_is_answered_304(gh: FakeGitHub, gw: PyGithubGateway) -> None:
    ids = _many_runs(gh, 150)
    first = gw.list_check_runs(SHA)
    used, counted, start = gh.rate_limit_used, gw.rate_limited_count, len(gh.request_log())
    assert gw.list_check_runs(SHA) == first
    assert [r.status for r in gh.request_log()[start:]] == [304, 304]
    assert gh.rate_limit_used == used and gw.rate_limited_count == counted
    # The App moves its run: the next listing sees it.
    gh.set_bot_check_run(ids[0], status="in_progress")
    assert next(r for r in gw.list_check_runs(SHA) if r.id == ids[0]).status == "in_progress"
    gh.set_bot_check_run(ids[0], conclusion="failure", title="2 bugs found", summary="Bugbot")
    run = next(r for r in gw.list_check_runs(SHA) if r.id == ids[0])
    assert (run.status, run.conclusion, run.title, run.summary) == (
        "completed",
        "failure",
        "2 bugs found",
        "Bugbot",
    )
    assert run.completed_at is not None


def test_a_failed_second_page_fails_the_read(gh: FakeGitHub, gw: PyGithubGateway) -> None:
    _many_runs(gh, 150)
    gh.inject("GET", r"/check-runs\?.*page=2", status=502, headers={"Retry-After": "0"}, times=9)
    with pytest.raises(GatewayError, match="page 2") as info:
        gw.list_check_runs(SHA)
    assert info.value.status == 502
    gh.clear_faults()
    gh.inject("GET", r"/check-runs\?.*page=2", status=404)
    with pytest.raises(GatewayError, match="page 2"):
        gw.list_check_runs(SHA)
    gh.inject("GET", r"/reactions\?.*page=2", status=404)
    for i in range(120):
        gh.add_reaction(PR, "+1", login=f"user{i}", user_type="User")
    with pytest.raises(GatewayError, match="page 2"):
        gw.list_issue_reactions(PR)


# ---------------------------------------------------------------------- commit statuses
def test_statuses_name_their_creator(gh: FakeGitHub, gw: PyGithubGateway) -> None:
    queued = gh.add_status(
        SHA, "CodeRabbit", "pending", creator_login=CODERABBIT, description="Review queued"
    )
    gh.add_status(
        SHA,
        "CodeRabbit",
        "pending",
        creator_login=CODERABBIT,
        description="Review in progress",
        target_url="https://coderabbit.ai/review/1",
    )
    done = gh.add_status(
        SHA, "CodeRabbit", "success", creator_login=CODERABBIT, description="Review completed"
    )
    # Anyone with write access may set a status under any context.
    fake = gh.add_status(SHA, "CodeRabbit", "success", creator_login="mallory", creator_type="User")
    statuses = gw.list_commit_statuses(SHA)
    assert statuses[0].id == fake and statuses[-1].id == queued  # newest first
    mine = [s for s in statuses if (s.creator_login, s.creator_type) == (CODERABBIT, "Bot")]
    assert [s.description for s in mine] == [
        "Review completed",
        "Review in progress",
        "Review queued",
    ]
    assert mine[0].id == done and mine[0].state == "success" and mine[0].updated_at is not None
    assert mine[1].target_url == "https://coderabbit.ai/review/1"
    assert (statuses[0].creator_login, statuses[0].creator_type) == ("mallory", "User")
    # The combined status counts the newest of each context and names no creator.
    combined = _raw(gh, f"commits/{SHA}/status")
    assert combined["state"] == "success" and combined["total_count"] == 1
    assert combined["statuses"][0]["id"] == fake and "creator" not in combined["statuses"][0]


def test_our_own_status_reads_back(gh: FakeGitHub, gw: PyGithubGateway) -> None:
    gw.create_status(SHA, "pending", "waiting for reviewers", "review-coordinator", None)
    (status,) = gw.list_commit_statuses(SHA)
    assert (status.creator_login, status.creator_type) == ("github-actions[bot]", "Bot")
    assert status.description == "waiting for reviewers"


# ---------------------------------------------------------------------- reactions
def test_reactions_on_every_page_and_304(gh: FakeGitHub, gw: PyGithubGateway) -> None:
    eyes = gh.add_reaction(PR, "eyes", login=CODEX, created_at="2026-01-05T09:02:00Z")
    for i in range(130):
        gh.add_reaction(PR, "heart", login=f"fan{i}", user_type="User")
    got = gw.list_issue_reactions(PR)
    assert len(got) == 131
    assert got[0] == Reaction(
        id=eyes,
        content="eyes",
        user_login=CODEX,
        user_type="Bot",
        created_at=datetime(2026, 1, 5, 9, 2, tzinfo=UTC),
    )
    assert {(r.content, r.user_type) for r in got[1:]} == {("heart", "User")}
    assert [r.path for r in gh.request_log()[-2:]] == [
        f"/repos/octo/app/issues/{PR}/reactions?per_page=100",
        f"/repositories/4242/issues/{PR}/reactions?page=2&per_page=100",
    ]
    used, start = gh.rate_limit_used, len(gh.request_log())
    assert gw.list_issue_reactions(PR) == got
    assert [r.status for r in gh.request_log()[start:]] == [304, 304]
    assert gh.rate_limit_used == used
    # Codex is done and found nothing: `eyes` goes, `+1` comes.
    gh.remove_reaction(eyes)
    plus = gh.add_reaction(PR, "+1", login=CODEX)
    codex = [r for r in gw.list_issue_reactions(PR) if r.user_login == CODEX]
    assert [(r.id, r.content) for r in codex] == [(plus, "+1")]


def test_reactions_of_the_fake(gh: FakeGitHub, gw: PyGithubGateway) -> None:
    first = gh.add_reaction(PR, "+1", login=CODEX)
    assert gh.add_reaction(PR, "+1", login=CODEX) == first  # one of each content per user
    gh.add_reaction(PR, "eyes", login=CODEX)
    gh.add_issue(8)
    gh.add_reaction(8, "rocket", login="octocat", user_type="User")
    assert [r["content"] for r in _raw(gh, f"issues/{PR}/reactions")] == ["+1", "eyes"]
    assert [r["content"] for r in _raw(gh, f"issues/{PR}/reactions?content=eyes")] == ["eyes"]
    item = gh.reactions(PR)[0]
    assert set(item) == {"id", "node_id", "user", "content", "created_at"}
    assert item["user"]["login"] == CODEX and item["user"]["type"] == "Bot"
    assert [r.content for r in gw.list_issue_reactions(8)] == ["rocket"]
    with pytest.raises(ValueError, match="not a GitHub reaction"):
        gh.add_reaction(PR, "thumbsup", login=CODEX)
    with pytest.raises(KeyError):
        gh.add_reaction(99, "+1", login=CODEX)
    with pytest.raises(KeyError):
        gh.remove_reaction(1)
    with pytest.raises(GatewayError) as info:
        gw.list_issue_reactions(99)
    assert info.value.status == 404


def test_a_deleted_accounts_reaction_is_ghost(gh: FakeGitHub, gw: PyGithubGateway) -> None:
    body = [{"id": 5, "node_id": "x", "user": None, "content": "-1", "created_at": None}]
    gh.inject("GET", r"/issues/7/reactions", status=200, body=body)
    (reaction,) = gw.list_issue_reactions(PR)
    assert (reaction.user_login, reaction.user_type, reaction.created_at) == ("ghost", "User", None)


# ---------------------------------------------------------------------- malformed answers
MALFORMED = [
    ("check-runs", {"total_count": 1, "check_runs": [{"id": "1"}]}, "field 'id'"),
    ("check-runs", {"total_count": 1, "check_runs": ["run"]}, "JSON object"),
    ("check-runs", {"check_runs": {"id": 1}}, "expected a JSON list"),
    ("check-runs", {"total_count": 1}, "expected a JSON list"),
    (
        "check-runs",
        {
            "check_runs": [
                {"id": 1, "name": "n", "status": "s", "head_sha": SHA, "output": {"title": 3}}
            ]
        },
        "output.title",
    ),
    (
        "check-runs",
        {
            "check_runs": [
                {"id": 1, "name": "n", "status": "s", "head_sha": SHA, "started_at": "soon"}
            ]
        },
        "started_at",
    ),
    ("statuses", [{"id": 1, "state": "success"}], "'context'"),
    ("statuses", [{"id": 1, "state": "success", "context": "c", "creator": "x"}], "creator"),
    ("statuses", [{"id": 1, "state": "success", "context": "c", "description": 5}], "description"),
    ("statuses", {"id": 1}, "expected a JSON list"),
    ("reactions", [{"id": 1, "user": None}], "'content'"),
    ("reactions", [{"id": True, "content": "+1"}], "'id'"),
    ("reactions", [{"id": 1, "content": "+1", "user": "codex"}], "'user'"),
    ("reactions", [{"id": 1, "content": "+1", "created_at": "yesterday"}], "created_at"),
    ("reactions", [7], "JSON object"),
]


@pytest.mark.parametrize(("what", "body", "detail"), MALFORMED)
def test_malformed_items_fail_the_read(
    gh: FakeGitHub, gw: PyGithubGateway, what: str, body: Any, detail: str
) -> None:
    gh.inject("GET", rf"/{what}\?", status=200, body=body)
    read = {
        "check-runs": lambda: gw.list_check_runs(SHA),
        "statuses": lambda: gw.list_commit_statuses(SHA),
        "reactions": lambda: gw.list_issue_reactions(PR),
    }[what]
    with pytest.raises(GatewayError, match="malformed") as info:
        read()
    assert detail in str(info.value)


# ---------------------------------------------------------------------- other gateways
def test_dry_run_reads_through(gh: FakeGitHub, gw: PyGithubGateway) -> None:
    gh.add_bot_check_run(SHA, "Greptile Review", app_slug="greptile-apps", app_id=867647)
    gh.add_reaction(PR, "eyes", login=CODEX)
    gw.create_check_run(
        "review-coordinator", SHA, "completed", CheckOutput(title="T", summary="S"), "success"
    )
    dry = DryRunGateway(gw, Log(io.StringIO()), "github-actions[bot]")
    assert [r.name for r in dry.list_check_runs(SHA)] == ["review-coordinator", "Greptile Review"]
    assert [r.name for r in dry.list_check_runs(SHA, "review-coordinator")] == [
        "review-coordinator"
    ]
    (ours,) = dry.list_check_runs(SHA, "review-coordinator")
    assert (ours.title, ours.summary) == ("T", "S")
    assert [r.content for r in dry.list_issue_reactions(PR)] == ["eyes"]
    assert dry.writes == []
