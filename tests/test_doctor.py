"""`reviewcoord doctor` (issue 16): per bot, how many comments each rule read and which bodies no
rule read, with links — against the fake GitHub through the real CLI, and the pure tally."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator

import pytest

from reviewcoord.doctor import Report, render_text, tally
from tests.bots_support import comment, corpus_comment, load_corpus
from tests.e2e_support import COPILOT_REVIEWER, CURSOR, HEAD, body
from tests.fakegithub import FakeGitHub
from tests.test_cli_live import PAT, cli

ODD = "## Copilot review, layout v3\n\nSomething new."


def test_tally_counts_rules_and_lists_unread_with_links() -> None:
    report = Report(repo="o/r")
    comments = [
        comment(body("N4_cop_cargo11_green"), "review", COPILOT_REVIEWER, id=1),
        comment(ODD, "review", COPILOT_REVIEWER, id=2, html_url="https://github.com/o/r/pull/7#r2"),
        # A person named like the bot is nobody's format: not counted.
        comment(ODD, "review", COPILOT_REVIEWER, id=3).model_copy(update={"author_type": "User"}),
    ]
    tally(report, 7, comments)
    copilot = report.bots["copilot"]
    assert dict(copilot.rules) == {"copilot overview v2": 1}
    assert [(u.pr, u.url, u.first_line) for u in copilot.unread] == [
        (7, "https://github.com/o/r/pull/7#r2", "## Copilot review, layout v3")
    ]
    text = render_text(report)
    assert "UNREAD #7 https://github.com/o/r/pull/7#r2" in text and "1 bodies no rule read" in text


# The layouts issue 25 added, one per rule (tests/fixtures/bots/PROVENANCE.md, N5).
ISSUE_25 = {
    "codex": {"codex security review wrapper", "codex review_comment finding"},
    "qodo": {"qodo reviews paused"},
    "coderabbit": {"coderabbit review body items", "coderabbit limit reply"},
    "cubic": {"cubic inline finding", "cubic review summary (findings inline)"},
    "macroscope": {"macroscope inline finding", "macroscope withdrew its finding by editing it"},
    "codeant": {"codeant inline finding", "codeant review status: done"},
    "graphite": {"graphite inline finding", "graphite merge queue activity"},
    "devin": {"devin inline finding", "devin review: no issues found"},
}


def test_doctor_reads_every_issue_25_layout_and_lists_an_unknown_one_loudly() -> None:
    report = Report(repo="o/r")
    entries = [e for e in load_corpus() if e["corpus_id"].startswith("N5_")]
    tally(report, 25, [corpus_comment(e, n) for n, e in enumerate(entries)])
    assert report.unread == 0
    for bot, rules in ISSUE_25.items():
        assert rules <= set(report.bots[bot].rules), bot
    assert "every body was read" in render_text(report)
    logins = ["cubic-dev-ai[bot]", "macroscopeapp[bot]", "codeant-ai[bot]", "graphite-app[bot]"]
    for n, login in enumerate([*logins, "devin-ai-integration[bot]"], start=100):
        url = f"https://github.com/o/r/pull/8#r{n}"
        tally(report, 8, [comment("## A layout v9\n\nSomething new.", "review", login, id=n,
                                  html_url=url)])  # fmt: skip
    unread = {bot: [u.first_line for u in t.unread] for bot, t in report.bots.items() if t.unread}
    assert unread == {key: ["## A layout v9"] for key in list(ISSUE_25)[3:]}
    assert "5 bodies no rule read" in render_text(report)


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as gh:
        gh.add_token(PAT, "octo-dev", user_endpoint=True)
        for number in (2, 3, 4):
            gh.add_pull(number, head_sha=HEAD)
        gh.add_review(2, login=COPILOT_REVIEWER, body=body("N4_cop_pc4r4_closer"), commit_id=HEAD)
        gh.add_review(3, login=CURSOR, body=body("N4_cur_mise13233_review"), commit_id=HEAD)
        yield gh


def doctor(fake: FakeGitHub, *args: str) -> subprocess.CompletedProcess[str]:
    return cli(fake, "doctor", "--repo", "octo/app", *args)


@pytest.mark.e2e
def test_doctor_every_body_read_exits_0(fake: FakeGitHub) -> None:
    proc = doctor(fake, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["prs"] == [4, 3, 2] and report["unread"] == 0
    assert report["bots"]["copilot"]["rules"] == {"copilot overview v2": 1}
    assert report["bots"]["cursor"]["rules"] == {"bugbot review wrapper": 1}
    # 1 PR list + 3 comment lists per PR.
    assert "10 API requests" in proc.stderr


@pytest.mark.e2e
def test_doctor_an_unread_body_is_listed_and_exits_1(fake: FakeGitHub) -> None:
    fake.add_review(4, login=COPILOT_REVIEWER, body=ODD, commit_id=HEAD)
    proc = doctor(fake, "--prs", "2")
    assert proc.returncode == 1, proc.stderr
    assert "UNREAD #4" in proc.stdout and "## Copilot review, layout v3" in proc.stdout
    assert "2 PRs" in proc.stdout  # --prs 2: the newest two (#4, #3)
