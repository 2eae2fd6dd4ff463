"""A reviewer that reports only through a check run is one profile and its fixtures: this test
registers one (`shieldbot`, hypothetical: app `shieldbot`, check `Shield Review`) without
touching any other module, and judges a PR with it — as a unit, and end to end through
`runner.evaluate` against the fake GitHub (docs/bot-formats.md § Reviewers' own checks,
CONTRIBUTING § A reviewer that reports only through a check)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from reviewcoord.bots import REGISTRY
from reviewcoord.bots.checks import Check, CheckView, Said, from_checks, kinds_of
from reviewcoord.bots.common import noise
from reviewcoord.bots.profile import BotProfile
from reviewcoord.ingest import ingest
from reviewcoord.model import ParsedComment, RawComment
from reviewcoord.reading import Evidence
from reviewcoord.rest import check_run_ref
from reviewcoord.runner import Outcome
from tests.e2e_support import HEAD, SimulatedClock, evaluate_in_process
from tests.fakegithub import FakeGitHub

CHECK = "Shield Review"


def _shield(view: CheckView) -> Said | None:
    if view.conclusion == "success":
        return Said("reviewed", "its check run passed", view.url, view.when)
    if view.conclusion == "failure":
        return Said("failed", f"its check run failed: {view.title[:100]}", view.url, view.when)
    return None


def _no_comments(comment: RawComment) -> ParsedComment:
    return noise("shieldbot writes no comments")


CHECKS = (Check(CHECK, "shieldbot", meaning=_shield),)
SHIELD = BotProfile(
    key="shieldbot",
    display="Shieldbot",
    logins=frozenset({"shieldbot[bot]"}),
    parse=_no_comments,
    reads=kinds_of(*CHECKS),
    evidence=from_checks(*CHECKS),
)


@pytest.fixture
def shieldbot() -> Iterator[None]:
    with REGISTRY.extended([SHIELD]):
        yield


def run_json(status: str, conclusion: str | None, app: str = "shieldbot") -> dict[str, object]:
    return {
        "id": 5,
        "name": CHECK,
        "head_sha": HEAD,
        "status": status,
        "conclusion": conclusion,
        "html_url": "https://github.com/octo/app/runs/5",
        "app": {"slug": app, "id": 4242},
        "output": {"title": "Shield", "summary": ""},
    }


@pytest.mark.usefixtures("shieldbot")
def test_its_check_run_alone_gives_its_state() -> None:
    def state(*runs: dict[str, object]) -> str:
        evidence = Evidence(check_runs=tuple(check_run_ref(r) for r in runs))
        return ingest([], head_sha=HEAD, evidence=evidence).state("shieldbot")

    assert state() == "not_seen"
    assert state(run_json("in_progress", None)) == "working"
    assert state(run_json("completed", "success")) == "reviewed"
    assert state(run_json("completed", "failure")) == "failed"
    assert state(run_json("completed", "success", app="github-actions")) == "not_seen"


# --------------------------------------------------------------------------- end to end


def judge(fake: FakeGitHub, clock: SimulatedClock) -> Outcome:
    inputs = {"settle": "full", "expected-bots": "shieldbot", "poll-interval": "10"}
    outcome: Outcome = evaluate_in_process(fake, inputs, clock)
    return outcome


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    gh = FakeGitHub().start()
    gh.add_pull(2, head_sha=HEAD)
    yield gh
    gh.stop()


@pytest.mark.e2e
@pytest.mark.usefixtures("shieldbot")
def test_a_pr_judged_on_a_check_only_reviewer_waits_for_it_then_goes(fake: FakeGitHub) -> None:
    run_id = fake.add_bot_check_run(
        HEAD, CHECK, app_slug="shieldbot", app_id=4242, status="in_progress", conclusion=None
    )
    clock = SimulatedClock().at(
        60, lambda: fake.set_bot_check_run(run_id, status="completed", conclusion="success")
    )
    outcome = judge(fake, clock)
    assert outcome.gate == "go", outcome.reason
    assert outcome.verdict is not None and outcome.verdict.settled_on == ["shieldbot"]
    assert clock.t >= 60  # it waited for the check run, as for any reviewer at work


@pytest.mark.e2e
@pytest.mark.usefixtures("shieldbot")
def test_control_a_look_alike_check_of_another_app_is_no_review(fake: FakeGitHub) -> None:
    fake.add_bot_check_run(HEAD, CHECK, app_slug="github-actions", app_id=15368)
    outcome = judge(fake, SimulatedClock())
    assert outcome.verdict is not None
    assert outcome.verdict.settled_on == [] and outcome.verdict.pending == ["shieldbot"]
