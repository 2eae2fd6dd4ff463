"""The shipped trigger logic (.github/workflows/judge.yml, docs/adopt.md § What starts a run):
generated from the bot registry, evaluated with tests/ghexpr.py as GitHub would over the events of
the user's two workflows (examples/workflows), every bot's in-place edit included, with the token
each event gets (read-only for a fork's `pull_request*`: handed over to the relay)."""

from __future__ import annotations

import re
import runpy
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from reviewcoord.bots import REGISTRY, bot_for_author, parse_comment
from reviewcoord.bots.checks import Check, from_checks
from reviewcoord.bots.profile import Tracker
from reviewcoord.config import Settings
from reviewcoord.errors import EventError
from reviewcoord.event import resolve
from reviewcoord.model import RawComment
from tests import workflow_support as wf
from tests.bots_support import load_corpus
from tests.e2e_support import CLAUDE, CODEX, COPILOT, COPILOT_REVIEWER, CURSOR, MARKER, body

GENERATED: dict[str, Any] = runpy.run_path(str(wf.ROOT / "scripts" / "generated.py"))
(JUDGE_YML,) = [g for g in GENERATED["FILES"] if g.path == wf.REUSABLE]
PERSON = "octocat"
QODO, GREPTILE, CODERABBIT = "qodo-code-review[bot]", "greptile-apps[bot]", "coderabbitai[bot]"
CODEX_RUNNING = body("N3_codex_status_asic381_propened").replace(
    "✅ **Completed**", "🔄 **Running**"
)
CODEX_FAILED = CODEX_RUNNING.replace("Running", "Failed")
CLAUDE_WORKING = (
    'Claude Code is working… <img src="https://github.com/user-attachments/assets/5ac382c7" />'
    "\n\nI'll analyze this and get back to you.\n\n[View job run](https://example.invalid)"
)
CODEANT, MACROSCOPE = "codeant-ai[bot]", "macroscopeapp[bot]"
CODEANT_DONE = body("N5_codeant_cc1745_status")
# Its status comment while the newest record is not done (the done one, as the bot edits it).
CODEANT_RUNNING = CODEANT_DONE.replace('"done":true', '"done":false')
CODERABBIT_IN_PROGRESS = (
    "<!-- This is an auto-generated comment: summarize by coderabbit.ai -->\n"
    "<!-- This is an auto-generated comment: review in progress by coderabbit.ai -->\n\n"
    "> [!NOTE]\n> Currently processing new changes in this PR. This may take a few minutes."
)


def _corpus(login: str, endpoint: str = "issue_comment") -> list[dict[str, Any]]:
    return [e for e in load_corpus() if e["bot_login"] == login and e["endpoint"] == endpoint]


# ---------------------------------------------------------------- one place: the registry
def test_the_shipped_trigger_logic_is_the_registrys() -> None:
    """judge.yml's `if:`s are written from the profiles: regenerate and compare."""
    text = wf.REUSABLE.read_text(encoding="utf-8")
    assert GENERATED["regenerate"](text, JUDGE_YML) == text, (
        "run .venv/bin/python scripts/generated.py --write"
    )


def test_a_new_reviewer_reaches_the_trigger_logic_from_its_profile_alone() -> None:
    """Control: a profile with a check app, a login and a tracker changes the generated logic,
    so the comparison above fails until judge.yml is regenerated."""
    base = REGISTRY.profile("cursor")
    extra = replace(
        base,
        key="newbot",
        display="Newbot",
        logins=frozenset({"newbot-ai[bot]"}),
        evidence=from_checks(Check("Newbot Review", "newbot-ai", meaning=lambda view: None)),
        tracker=Tracker(working=("Newbot is thinking",)),
    )
    text = wf.REUSABLE.read_text(encoding="utf-8")
    with REGISTRY.extended([extra]):
        fresh = GENERATED["regenerate"](text, JUDGE_YML)
    assert fresh != text
    for needle in ("newbot-ai[bot]", '"newbot-ai"', "Newbot is thinking"):
        assert needle in fresh


def test_every_reviewer_app_and_login_is_in_the_shipped_logic() -> None:
    text = wf.REUSABLE.read_text(encoding="utf-8")
    assert {"cursor", "greptile-apps", "coderabbitai"} <= set(REGISTRY.check_apps())
    assert "github-actions" not in REGISTRY.check_apps()  # anyone's workflow runs as it
    for app in REGISTRY.check_apps():
        assert f'"{app}"' in text
    for login in REGISTRY.logins():
        assert f'"{login}"' in text


# ------------------------------------------------------------------ the user's workflows
def test_the_users_workflows_are_small_and_have_no_filter_of_their_own() -> None:
    for path in (wf.CALLER, wf.RELAY):
        data = wf.load(path.read_text(encoding="utf-8"))
        lines = path.read_text(encoding="utf-8").splitlines()
        assert len(lines) <= 30, path
        assert "if" not in str(data["jobs"]), path
        assert "pull_request_target" not in data["on"]
        (call,) = data["jobs"].values()
        assert call["uses"].startswith("octo/review-coordinator/.github/workflows/judge.yml@")
        assert data["permissions"] == {}
    relay = wf.load(wf.RELAY.read_text(encoding="utf-8"))
    assert relay["on"]["workflow_run"]["workflows"] == [wf.load(wf.CALLER.read_text())["name"]]


@pytest.mark.parametrize("name", ["review-coordinator.yml", "review-coordinator-relay.yml"])
def test_this_repository_runs_the_users_workflows(name: str) -> None:
    """Its own workflows are the examples with the reusable workflow of the same commit."""
    mine = (wf.ROOT / ".github/workflows" / name).read_text(encoding="utf-8")
    example = (wf.ROOT / "examples/workflows" / name).read_text(encoding="utf-8")
    a, b = wf.load(mine), wf.load(example)
    (own,) = a["jobs"].values()
    (theirs,) = b["jobs"].values()
    assert own.pop("uses") == "./.github/workflows/judge.yml"
    theirs.pop("uses")
    assert a == b


def test_the_jobs_are_not_named_like_the_required_check() -> None:
    for name in wf.JOBS:
        assert name != Settings().check_name
        assert wf.job(name).get("name", name) != "review-coordinator"
    assert wf.job()["concurrency"]["cancel-in-progress"] is True
    assert "concurrency" not in wf.job("hand-over")  # it never cancels a run that writes
    assert wf.job("hand-over")["permissions"] == {}


# --------------------------------------------------------------------- what starts what
STARTS = [
    # PR events of a same-repository PR (a token that can write)
    ("pull_request", wf.pull_request("opened")),
    ("pull_request", wf.pull_request("synchronize")),
    ("pull_request", wf.pull_request("reopened")),
    ("pull_request", wf.pull_request("ready_for_review")),
    ("pull_request", wf.pull_request("edited", base_changed=True)),  # judged under the new base
    ("workflow_dispatch", wf.dispatch(2)),
    ("merge_group", wf.merge_group()),
    # every review, a bot's late one included
    ("pull_request_review", wf.review(CODEX, body("X_agogo65_review"))),
    ("pull_request_review", wf.review(COPILOT_REVIEWER, body("Z28"))),
    ("pull_request_review", wf.review(CURSOR, body("C_jdx12718_review"))),
    ("pull_request_review", wf.review(CLAUDE, body("L_cca1078_lgtm"))),
    ("pull_request_review", wf.review(PERSON, "looks fine")),
    ("pull_request_review", wf.review(CODEX, body("X_agogo65_review"), "edited")),
    # people's inline replies and commands; a known bot editing its inline comment
    ("pull_request_review_comment", wf.review_comment(PERSON, "this is intended")),
    ("pull_request_review_comment", wf.review_comment(PERSON, "fixed", "edited")),
    ("pull_request_review_comment", wf.review_comment(CODERABBIT, "✅ Addressed", "edited")),
    # Macroscope withdraws a finding by editing its own inline comment
    (
        "pull_request_review_comment",
        wf.review_comment(MACROSCOPE, body("N5_macro_t3code_no_longer_relevant"), "edited"),
    ),
    # people's PR comments, created or edited, on a fork's PR too (issue_comment can write)
    ("issue_comment", wf.issue_comment(PERSON, "/review-coordinator accept F3 wontfix: ok")),
    ("issue_comment", wf.issue_comment(PERSON, "F2 is a false positive", "edited")),
    # bots' PR comments: new ones, and in-place edits that finish or change a review
    ("issue_comment", wf.issue_comment(CODEX, body("X_clean_swish"))),
    ("issue_comment", wf.issue_comment(CODEX, body("X_usage_vllm"))),
    ("issue_comment", wf.issue_comment(CODEX, body("N3_codex_status_asic381_propened"), "edited")),
    ("issue_comment", wf.issue_comment(CODEX, CODEX_FAILED, "edited")),
    ("issue_comment", wf.issue_comment(CLAUDE, body("L_email_verificay3"), "edited")),
    ("issue_comment", wf.issue_comment(CLAUDE, body("Rclaude"), "edited")),
    ("issue_comment", wf.issue_comment(CURSOR, body("C_skip_fixture"))),
    ("issue_comment", wf.issue_comment(CODEANT, CODEANT_DONE, "edited")),  # its status: done
    # a reviewer's own check run finishing (a clean Bugbot or Greptile may post nothing else)
    ("check_run", wf.check_run("cursor")),
    ("check_run", wf.check_run("greptile-apps")),
    ("check_run", wf.check_run("coderabbitai")),
    ("check_run", wf.check_run("cubic-dev-ai")),
    ("check_run", wf.check_run("macroscopeapp")),
    ("check_run", wf.check_run("devin-ai-integration")),
    ("check_run", wf.check_run("cursor", pr=None)),  # a fork's PR: the action finds it
    # the relay: a fork's run that handed over, and Dependabot's
    ("workflow_run", wf.workflow_run("pull_request")),
    ("workflow_run", wf.workflow_run("pull_request_review")),
    ("workflow_run", wf.workflow_run("pull_request_review_comment")),
    ("workflow_run", wf.workflow_run(fork=False, actor="dependabot[bot]", pr=2)),
]
HANDED_OVER = [
    # a fork's PR (or Dependabot's) on pull_request*: read-only token → the relay judges
    ("pull_request", wf.pull_request("opened", fork=True)),
    ("pull_request", wf.pull_request("synchronize", fork=True)),
    ("pull_request", wf.pull_request("synchronize", actor="dependabot[bot]")),
    ("pull_request", wf.pull_request("edited", fork=True, base_changed=True)),
    ("pull_request_review", wf.review(CODEX, body("X_agogo65_review"), fork=True)),
    ("pull_request_review", wf.review(PERSON, "lgtm", fork=True)),
    ("pull_request_review_comment", wf.review_comment(PERSON, "this is intended", fork=True)),
]
SKIPPED = [
    # PR edits that change nothing judged (title, body)
    ("pull_request", wf.pull_request("edited")),
    ("pull_request", wf.pull_request("edited", fork=True)),
    # check runs of anyone else: CI jobs and our own (`github-actions`), other apps
    ("check_run", wf.check_run("github-actions")),
    ("check_run", wf.check_run("octocoders-linter")),
    # inline comments by bots: the review event of the same burst starts the run
    ("pull_request_review_comment", wf.review_comment(CODEX, body("X_agogo65_inline"))),
    ("pull_request_review_comment", wf.review_comment(COPILOT, body("Z29"))),
    ("pull_request_review_comment", wf.review_comment(CURSOR, body("C_jdx12718_lock156"))),
    ("pull_request_review_comment", wf.review_comment(CODEX, body("X_agogo65_inline"), fork=True)),
    # an unknown bot editing its inline comment
    ("pull_request_review_comment", wf.review_comment("linter-bot[bot]", "x", "edited")),
    # trackers still working, created or edited
    ("issue_comment", wf.issue_comment(CODEX, CODEX_RUNNING)),
    ("issue_comment", wf.issue_comment(CODEX, CODEX_RUNNING, "edited")),
    ("issue_comment", wf.issue_comment(CLAUDE, CLAUDE_WORKING)),
    ("issue_comment", wf.issue_comment(CLAUDE, CLAUDE_WORKING + "\n- [x] Read", "edited")),
    ("issue_comment", wf.issue_comment(CODERABBIT, CODERABBIT_IN_PROGRESS, "edited")),
    ("issue_comment", wf.issue_comment(CODEANT, CODEANT_RUNNING)),
    ("issue_comment", wf.issue_comment(CODEANT, CODEANT_RUNNING, "edited")),
    # our own sticky and re-request (posted with an App token, they would start a run)
    ("issue_comment", wf.issue_comment("my-app[bot]", MARKER + "\nGo ✅ Completed")),
    ("issue_comment", wf.issue_comment("my-app[bot]", MARKER + "\n**Completed**", "edited")),
    (
        "issue_comment",
        wf.issue_comment("my-app[bot]", "@codex review\n<!-- review-coordinator-rerequest -->"),
    ),
    # an unknown bot editing its comment (a deploy preview, a coverage report)
    ("issue_comment", wf.issue_comment("vercel[bot]", "Preview ready", "edited")),
    # plain issues, deleted comments, triggers we do not listen to
    ("issue_comment", wf.issue_comment(PERSON, "hello", on_pr=False)),
    ("issue_comment", wf.issue_comment(PERSON, "gone", "deleted")),
    ("pull_request_review", wf.review(CODEX, "x", "dismissed")),
    ("pull_request", wf.pull_request("closed")),
    ("pull_request_target", wf.pull_request("opened")),  # not in the user's workflow
    # the relay: same-repository runs judged already, runs that judged nothing or failed
    ("workflow_run", wf.workflow_run(fork=False, pr=2)),
    ("workflow_run", wf.workflow_run(conclusion="skipped")),
    ("workflow_run", wf.workflow_run(conclusion="failure")),
    ("workflow_run", wf.workflow_run("issue_comment")),
    ("workflow_run", wf.workflow_run("workflow_run")),
]


EVENT_FILES = [wf.CALLER, wf.TARGET_CALLER]
CASES = [
    *((event, payload, "judge") for event, payload in STARTS),
    *((event, payload, "hand-over") for event, payload in HANDED_OVER),
    *((event, payload, None) for event, payload in SKIPPED),
]


def as_received(event_file: Path, event: str, job: str | None) -> tuple[str, str | None]:
    """The event as `event_file` receives it, and the job it must start there. The
    `pull_request_target` variant gets a PR event as `pull_request_target`, whose token can
    write for a fork's PR too: what hands over with `pull_request` is judged at once, and what
    `pull_request` skips (a title edit, a close) it skips too. Every other event is the same."""
    if event_file == wf.CALLER or event not in ("pull_request", "pull_request_target"):
        return event, job
    skipped = event == "pull_request" and job is None
    return "pull_request_target", None if skipped else "judge"


@pytest.mark.parametrize("event_file", EVENT_FILES, ids=lambda path: path.name)
@pytest.mark.parametrize(("event", "payload", "job"), CASES)
def test_each_event_starts_its_job_under_either_event_workflow(
    event_file: Path, event: str, payload: dict[str, Any], job: str | None
) -> None:
    """`judge`, `hand-over` (a read-only run: the relay judges) or no job at all."""
    received, expected = as_received(event_file, event, job)
    assert wf.job_for(received, payload, event_file) == expected


# ------------------------------------------------------ the sweep of `wait: events`
OPT_IN = "## Waiting without a runner: `wait: events`"


def opt_in_blocks() -> list[dict[str, Any]]:
    """docs/adopt.md's opt-in: the event workflow's job, then the relay, as the user writes them."""
    text = (wf.ROOT / "docs/adopt.md").read_text(encoding="utf-8")
    section = text.split(f"\n{OPT_IN}\n", 1)[1].split("\n## ", 1)[0]
    return [wf.load(b) for b in re.findall(r"^```yaml\n(.*?)^```$", section, flags=re.M | re.S)]


def opted_in(path: Path) -> dict[str, Any]:
    """An example workflow with the documented opt-in applied: `wait: events` in its call's
    `with:`, and for the relay the schedule and `actions: write` (the sweep's dispatches)."""
    data = wf.load(path.read_text(encoding="utf-8"))
    (call,) = data["jobs"].values()
    call["with"] = {**(call.get("with") or {}), "wait": "events"}
    if path == wf.RELAY:
        data["on"]["schedule"] = [{"cron": "*/10 * * * *"}]
        call["permissions"] = {**call["permissions"], "actions": "write"}
    return data


def test_the_documented_opt_in_is_the_examples_with_five_lines_and_one_grant() -> None:
    jobs, relay = opt_in_blocks()
    assert jobs == {"jobs": opted_in(wf.CALLER)["jobs"]}
    assert relay == opted_in(wf.RELAY)
    for path in (wf.CALLER, wf.RELAY):  # the shipped examples hold no schedule, no `wait`
        data = wf.load(path.read_text(encoding="utf-8"))
        assert "schedule" not in data["on"] and "wait" not in str(data["jobs"])
        (call,) = data["jobs"].values()
        assert "actions" not in call["permissions"]  # no one grants it without a sweep


@pytest.fixture(scope="module")
def opted(tmp_path_factory: pytest.TempPathFactory) -> dict[Path, Path]:
    """Each example → its opted-in copy, as files (what wf.job_for reads)."""
    where = tmp_path_factory.mktemp("opted-in")
    copies = {}
    for path in (wf.CALLER, wf.TARGET_CALLER, wf.RELAY):
        copy = where / path.name
        copy.write_text(yaml.safe_dump(opted_in(path), sort_keys=False), encoding="utf-8")
        copies[path] = copy
    return copies


@pytest.mark.parametrize("event_file", EVENT_FILES, ids=lambda path: path.name)
def test_a_schedule_starts_the_sweep_only_where_it_was_opted_into(
    event_file: Path, opted: dict[Path, Path]
) -> None:
    tick = wf.schedule()
    assert wf.job_for("schedule", tick, opted[event_file], opted[wf.RELAY]) == "sweep"
    # The shipped examples have no schedule: nothing starts, nothing is listed.
    assert wf.job_for("schedule", tick, event_file) is None
    # A schedule under `wait: poll` (the schedule added, not the input) starts no job either.
    ctx = wf.context("schedule", tick)
    assert ctx["inputs"]["wait"] == "poll"
    assert [name for name in wf.JOBS if wf.truthy_if(name, ctx)] == []
    ctx["inputs"]["wait"] = "events"
    assert [name for name in wf.JOBS if wf.truthy_if(name, ctx)] == ["sweep"]


@pytest.mark.parametrize("event_file", EVENT_FILES, ids=lambda path: path.name)
@pytest.mark.parametrize(("event", "payload", "job"), CASES)
def test_wait_events_never_sweeps_on_any_other_event_and_changes_no_job(
    event_file: Path,
    event: str,
    payload: dict[str, Any],
    job: str | None,
    opted: dict[Path, Path],
) -> None:
    """Every event fixture, through the opted-in workflows: the same job as without the
    opt-in, never `sweep`."""
    received, expected = as_received(event_file, event, job)
    assert wf.job_for(received, payload, opted[event_file], opted[wf.RELAY]) == expected
    ctx = wf.context(received, payload, event_file=opted[event_file], relay=opted[wf.RELAY])
    assert ctx["inputs"]["wait"] == "events"
    assert not wf.truthy_if("sweep", ctx)


def test_the_sweep_runs_the_action_as_judge_does_with_the_sweeps_inputs() -> None:
    judge, sweep = wf.job("judge"), wf.job("sweep")
    assert sweep["steps"][0] == judge["steps"][0]  # the action at the workflow's own commit
    assert sweep["steps"][1]["uses"] == judge["steps"][1]["uses"]
    given = sweep["steps"][1]["with"]
    assert given == {
        "github-token": "${{ secrets.token || github.token }}",
        "config": "${{ inputs.config }}",
        "wait": "${{ inputs.wait }}",
        "sweep-budget": "${{ inputs.sweep-budget }}",
        "sweep-workflow": "${{ inputs.sweep-workflow }}",
    }
    assert judge["steps"][1]["with"]["wait"] == "${{ inputs.wait }}"
    action_inputs = yaml.safe_load((wf.ROOT / "action.yml").read_text(encoding="utf-8"))["inputs"]
    declared = wf.reusable()["on"]["workflow_call"]["inputs"]
    for name in ("wait", "sweep-budget", "sweep-workflow"):
        assert declared[name]["default"] == action_inputs[name]["default"], name
    # The caller's grant, for both: the sweep's `actions: write` comes from the relay's opt-in;
    # asked for here, it would fail every caller that does not grant it.
    assert "permissions" not in sweep and "permissions" not in judge


# ------------------------------------------------------------ every bot's in-place edits
BOT_COMMENTS = [
    (e["corpus_id"], e["bot_login"])
    for e in load_corpus()
    if e["endpoint"] == "issue_comment" and bot_for_author(e["bot_login"], "Bot") is not None
]


@pytest.mark.parametrize(("corpus_id", "login"), BOT_COMMENTS)
@pytest.mark.parametrize("action", ["created", "edited"])
def test_a_bots_comment_is_skipped_only_while_its_own_parser_reads_it_as_working(
    corpus_id: str, login: str, action: str
) -> None:
    """Every real PR comment of every known bot, posted or edited in place (Qodo's, CodeRabbit's
    and Greptile's summaries, Codex's table, Claude's tracker …): the logic starts a run unless
    the bot's own profile reads the body as still at work, so no edit that changes a state or a
    finding is ever left unjudged."""
    text = body(corpus_id)
    started = wf.starts("issue_comment", wf.issue_comment(login, text, action))
    bot = bot_for_author(login, "Bot")
    assert bot is not None
    comment = RawComment(
        endpoint="issue_comment", id=1, author_login=login, author_type="Bot", body=text
    )
    if not started:
        assert parse_comment(bot, comment).kind == "in_progress", corpus_id


@pytest.mark.parametrize("login", [QODO, GREPTILE, CODERABBIT, CODEX, CLAUDE])
def test_each_summary_bots_edits_are_judged(login: str) -> None:
    """The issue's cases: Qodo updates "Code Review by Qodo" in place, CodeRabbit and Greptile
    their summaries, Codex its table: every finished edit starts a run."""
    finished = [
        e
        for e in _corpus(login)
        if parse_comment(
            bot_for_author(login, "Bot") or "",
            RawComment(
                endpoint="issue_comment",
                id=1,
                author_login=login,
                author_type="Bot",
                body=e["body"],
            ),
        ).kind
        != "in_progress"
    ]
    assert finished, login
    for entry in finished:
        assert wf.starts("issue_comment", wf.issue_comment(login, entry["body"], "edited"))


def test_a_skipped_codeant_status_is_one_its_parser_reads_as_working() -> None:
    """The skip above is the parser's own reading: a status whose newest record is not done."""
    for text, kind in ((CODEANT_RUNNING, "in_progress"), (CODEANT_DONE, "reviewed")):
        comment = RawComment(
            endpoint="issue_comment", id=1, author_login=CODEANT, author_type="Bot", body=text
        )
        assert parse_comment("codeant", comment).kind == kind


def test_every_tracker_at_work_is_skipped_and_its_done_edit_starts() -> None:
    for profile in REGISTRY.profiles():
        if profile.tracker is None:
            continue
        (login, *_) = sorted(profile.logins)
        working = f"{profile.tracker.working[0]}\n\n- [ ] step"
        assert not wf.starts("issue_comment", wf.issue_comment(login, working, "edited"))
        for done in profile.tracker.done:
            assert wf.starts(
                "issue_comment", wf.issue_comment(login, f"{working}\n{done}", "edited")
            )
        # Another bot writing the same words is not that bot's tracker: a new comment starts.
        assert wf.starts("issue_comment", wf.issue_comment("other-bot[bot]", working))


# ---------------------------------------------------------------- declared reviewers
def test_a_declared_reviewers_check_and_edits_start_through_the_workflow_inputs() -> None:
    check = wf.check_run("kilo-code-bot")
    edit = wf.issue_comment("kilo-code-bot[bot]", "**Warning** typo", "edited")
    assert not wf.starts("check_run", check) and not wf.starts("issue_comment", edit)
    inputs = {"reviewer-apps": "other,kilo-code-bot", "reviewer-logins": "kilo-code-bot[bot]"}
    for event, payload in (("check_run", check), ("issue_comment", edit)):
        ctx = wf.context(event, payload)
        ctx["inputs"].update(inputs)
        assert wf.truthy_if("judge", ctx)
    # Control: a prefix of a listed app is not that app.
    ctx = wf.context("check_run", wf.check_run("kilo"))
    ctx["inputs"].update(inputs)
    assert not wf.truthy_if("judge", ctx)


# --------------------------------------------------------------------------- concurrency
@pytest.mark.parametrize(
    ("event", "payload"),
    [
        ("pull_request", wf.pull_request("opened")),
        ("pull_request", wf.pull_request("synchronize")),
        ("pull_request_review", wf.review(CODEX, body("X_agogo65_review"))),
        ("pull_request_review_comment", wf.review_comment(PERSON, "false positive")),
        ("issue_comment", wf.issue_comment(PERSON, "/review-coordinator accept F1 wontfix: x")),
        ("workflow_dispatch", wf.dispatch(2)),
        ("check_run", wf.check_run("cursor")),
        ("workflow_run", wf.workflow_run(fork=False, actor="dependabot[bot]", pr=2)),
    ],
)
def test_concurrency_group_is_the_pr_number(event: str, payload: dict[str, Any]) -> None:
    assert wf.group(event, payload) == "review-coordinator-2"


def test_the_sweep_has_one_group_of_its_own_never_cancelled() -> None:
    """One sweep at a time, never cancelled; no PR's group is the sweep's (a PR's run cancels
    its own group's run, so sharing it would cancel a sweep). The sweep writes no verdict: its
    dispatches judge in the PRs' groups (below)."""
    assert wf.group("schedule", wf.schedule(), name="sweep") == "review-coordinator-sweep"
    assert wf.job("sweep")["concurrency"]["cancel-in-progress"] is False
    for event, payload, _job in CASES:
        assert wf.group(event, payload, run_id=7) != "review-coordinator-sweep"


@pytest.mark.parametrize("event_file", EVENT_FILES, ids=lambda path: path.name)
def test_the_sweeps_dispatch_judges_in_the_prs_own_group(
    event_file: Path, opted: dict[Path, Path]
) -> None:
    """What the sweep sends (reviewcoord/sweep.py: `inputs: {pr: "<n>"}`) to the opted-in event
    workflow starts `judge` in `review-coordinator-<n>`, the group of the PR's own events: a
    sweep's judgement and an event's never run at once (the bug a sweep judging in its own
    group had: its stale `go` could land after a newer `block`)."""
    sent = wf.dispatch(7)
    assert sent["inputs"] == {"pr": "7"}
    assert wf.job_for("workflow_dispatch", sent, opted[event_file], opted[wf.RELAY]) == "judge"
    pull = wf.pull_request("synchronize", pr=7)
    assert wf.group("workflow_dispatch", sent) == wf.group("pull_request", pull)
    assert wf.group("workflow_dispatch", sent) == "review-coordinator-7"


def test_a_forks_relays_share_a_group_of_their_own() -> None:
    """The fork's run names no PR: its relays are grouped by the fork's branch, so the newest
    cancels an older one; they never cancel the PR's other runs by a wrong number."""
    a = wf.group("workflow_run", wf.workflow_run("pull_request"), run_id=7)
    b = wf.group("workflow_run", wf.workflow_run("pull_request_review"), run_id=8)
    assert a == b == "review-coordinator-contributor/octo-repo:feature-2"


def test_concurrency_group_of_a_merge_group_is_its_own() -> None:
    group = wf.group("merge_group", wf.merge_group(), run_id=99)
    assert group.startswith("review-coordinator-refs/heads/gh-readonly-queue/")


def test_a_dispatched_pr_number_in_another_shape_is_refused_not_raced() -> None:
    """Attack/accident: `pr=#2` would run in group `review-coordinator-#2`, beside the PR's own
    runs (group `review-coordinator-2`); the action refuses any shape but the bare number."""
    odd = wf.dispatch(2)
    odd["inputs"]["pr"] = "#2"
    assert wf.group("workflow_dispatch", odd) != "review-coordinator-2"
    with pytest.raises(EventError, match="bare PR number"):
        resolve("workflow_dispatch", odd, odd["inputs"]["pr"])
    # Control: the bare number is accepted and shares the PR's group.
    assert resolve("workflow_dispatch", wf.dispatch(2), "2").pr == 2
    assert wf.group("workflow_dispatch", wf.dispatch(2)) == "review-coordinator-2"


# ----------------------------------------------------------------------------- hygiene
def test_no_body_is_ever_interpolated_into_a_shell() -> None:
    for path in (wf.REUSABLE, wf.CALLER, wf.RELAY):
        text = path.read_text(encoding="utf-8")
        assert "${{ github.event.comment.body" not in text
        assert "${{ github.event.review.body" not in text
    for name in wf.JOBS:
        for step in wf.job(name)["steps"]:
            assert "${{" not in str(step.get("run", ""))


def test_the_action_is_checked_out_at_the_workflows_own_commit_never_the_prs() -> None:
    checkout, action = wf.job()["steps"]
    assert checkout["uses"].startswith("actions/checkout@")
    assert checkout["with"] == {
        "repository": "${{ job.workflow_repository }}",
        "ref": "${{ job.workflow_sha }}",
        "path": ".review-coordinator-action",
        "persist-credentials": False,
    }
    assert action["uses"] == "./.review-coordinator-action"
