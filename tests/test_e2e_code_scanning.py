"""End to end: GitHub code scanning as a source, through entrypoint.py against the fake GitHub.

The PR's open alerts are read once per run, every page, from `refs/pull/<n>/merge`; an alert is
a finding at its own level, one finding with its inline comment; with `code-scanning: true` an
unreadable source (403, 404, 503, a failed page) means the gate is never `go`, and says why."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from reviewcoord.cli import main
from tests.e2e_support import HEAD, Run, all_clean, body, run_action, stickies
from tests.e2e_support import verdict_of as checked_verdict
from tests.fakegithub import FakeGitHub
from tests.verdict_contract import check_verdict

pytestmark = pytest.mark.e2e

GHAS = "github-advanced-security[bot]"
INPUTS = {"expected-bots": "codex,copilot,cursor,claude"}
PERMISSION = "the workflow token needs `permissions: security-events: read`"


def make_fake(per_page_max: int = 100) -> FakeGitHub:
    gh = FakeGitHub(per_page_max=per_page_max).start()
    gh.add_pull(2, head_sha=HEAD)
    all_clean(gh)
    return gh


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    gh = make_fake()
    yield gh
    gh.stop()


def enable(fake: FakeGitHub) -> None:
    fake.set_file(".github/review-coordinator.yml", "main", "code-scanning: true\n")


def inline_alert(fake: FakeGitHub, number: int, path: str, line: int) -> None:
    """GitHub's inline comment for alert `number` (the real body, renumbered), in its review."""
    review = fake.add_review(2, login=GHAS, body="", commit_id=HEAD)
    text = body("N3_ghas_nvf5226_redos").replace("code-scanning/154", f"code-scanning/{number}")
    fake.add_review_comment(2, login=GHAS, body=text, path=path, line=line, review_id=review["id"])


def alert_reads(
    fake: FakeGitHub, *, paid: bool = True, state: str = "open"
) -> list[dict[str, list[str]]]:
    """The requests for the alerts in `state` (open; dismissed: read too, an alert the PR's
    author dismissed still counts); `paid`: only those that cost rate limit (not a 304: each
    reading asks again with its ETag, and an unchanged list is free)."""
    queries = [
        parse_qs(urlsplit(r.path).query)
        for r in fake.request_log()
        if r.method == "GET" and "/code-scanning/alerts" in r.path and (not paid or r.status != 304)
    ]
    return [q for q in queries if q.get("state") == [state]]


def sources(verdict: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for f in verdict["critical"] + verdict["advisory"] for s in f["sources"]]


def verdict_of(run: Run) -> dict[str, Any]:
    return checked_verdict(run, exit_ok=True)


def test_alerts_over_several_pages_are_all_read(tmp_path: Path) -> None:
    fake = make_fake(per_page_max=2)
    try:
        enable(fake)
        for n in range(5):
            fake.add_code_scanning_alert(2, severity="note", path=f"src/m{n}.py", start_line=10)
        verdict = verdict_of(run_action(fake, tmp_path, inputs=INPUTS))
        reads = alert_reads(fake)
    finally:
        fake.stop()
    assert [q.get("page", ["1"]) for q in reads] == [["1"], ["2"], ["3"]]
    assert all(q["ref"] == ["refs/pull/2/merge"] and q["state"] == ["open"] for q in reads)
    assert reads[0]["per_page"] == ["100"]
    assert len(verdict["advisory"]) == 5 and verdict["gate"] == "go"
    assert verdict["bots"]["code-scanning"] == {
        "state": "reviewed",
        "detail": "5 open alerts on refs/pull/2/merge",
        "url": "",
    }


def test_dismissed_and_fixed_alerts_are_ignored(fake: FakeGitHub, tmp_path: Path) -> None:
    enable(fake)
    fake.add_code_scanning_alert(2, state="dismissed", security_severity_level="critical")
    fake.add_code_scanning_alert(2, state="fixed", security_severity_level="high")
    fake.add_code_scanning_alert(2, severity="warning", path="src/ok.py")
    verdict = verdict_of(run_action(fake, tmp_path, inputs=INPUTS))
    assert verdict["gate"] == "go" and verdict["critical"] == []
    (finding,) = verdict["advisory"]
    assert finding["file"] == "src/ok.py" and finding["sources"][0]["severity_raw"] == "warning"


def test_a_high_alert_blocks_with_the_source_code_scanning(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    enable(fake)
    fake.add_code_scanning_alert(
        2,
        rule_id="py/sql-injection",
        description="SQL query built from user-controlled sources",
        security_severity_level="high",
        severity="error",
        path="app/db.py",
        start_line=41,
    )
    # Gemini never posts: settle polls until its full timeout; the alerts are read with every
    # reading, and after the first read an unchanged list is a free 304.
    waits = {"expected-bots": "codex,copilot,cursor,claude,gemini", "settle": "full"}
    run = run_action(fake, tmp_path, inputs={**waits, "full-timeout": "2"})
    verdict = verdict_of(run)
    assert run.outputs["gate"] == "block" and verdict["pending"] == ["gemini"]
    polls = [r for r in fake.request_log() if r.method == "GET" and "/pulls/2/reviews" in r.path]
    assert len(polls) >= 2 and len(alert_reads(fake, paid=False)) == len(polls)
    assert len(alert_reads(fake)) == 1  # paid once per run: the polls' reads are 304s
    (finding,) = verdict["critical"]
    assert (finding["file"], finding["line"], finding["title"]) == (
        "app/db.py",
        41,
        "SQL query built from user-controlled sources",
    )
    (source,) = finding["sources"]
    assert (source["bot"], source["endpoint"], source["severity_raw"]) == (
        "code-scanning",
        "code_scanning_alert",
        "high",
    )
    assert source["url"].endswith("/security/code-scanning/101")
    assert "code-scanning" not in verdict["expected_bots"] + verdict["settled_on"]
    assert fake.check_runs(HEAD)[-1]["conclusion"] == "failure"


def test_an_inline_comment_and_its_alert_are_one_finding(fake: FakeGitHub, tmp_path: Path) -> None:
    # No `code-scanning: true`: GitHub's comments on the PR are reason enough to read the alerts.
    fake.add_code_scanning_alert(
        2, number=154, security_severity_level="critical", path="a.py", start_line=7
    )
    inline_alert(fake, 154, "a.py", 7)
    verdict = verdict_of(run_action(fake, tmp_path, inputs=INPUTS))
    assert verdict["advisory"] == []
    (finding,) = verdict["critical"]
    (source,) = finding["sources"]
    assert (source["endpoint"], source["severity_raw"]) == ("code_scanning_alert", "critical")
    assert finding["title"] == "Arbitrary file write during zip extraction"
    assert verdict["bots"]["code-scanning"]["state"] == "reviewed"
    assert verdict["gate"] == "block"


def test_403_with_code_scanning_on_is_never_go_and_names_the_permission(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    enable(fake)
    fake.add_code_scanning_analysis(2)
    fake.fail_code_scanning("forbidden")
    run = run_action(fake, tmp_path, inputs=INPUTS)
    verdict = verdict_of(run)
    assert run.outputs["gate"] == "block" and verdict["critical"] == []
    assert run.outputs["gate-reason"] == (
        f"code scanning alerts could not be read (403 Resource not accessible by integration): "
        f"{PERMISSION}"
    )
    assert run.outputs["unreviewed"] == "code-scanning"
    assert verdict["bots"]["code-scanning"]["state"] == "failed"
    assert fake.statuses(HEAD)[-1]["state"] == "failure"
    (sticky,) = stickies(fake)
    assert PERMISSION in sticky["body"]


def test_404_no_analysis_found_is_pending_then_unreviewed(fake: FakeGitHub, tmp_path: Path) -> None:
    enable(fake)  # and no analysis ever ran on refs/pull/2/merge: GitHub's 404
    run = run_action(fake, tmp_path, inputs=INPUTS)
    verdict = verdict_of(run)
    assert run.outputs["gate"] == "block"
    assert run.outputs["gate-reason"] == (
        "code scanning pending: no analysis of refs/pull/2/merge yet (GitHub: no analysis found)"
    )
    assert verdict["bots"]["code-scanning"]["state"] == "working"
    assert verdict["unreviewed"] == ["code-scanning"]


def test_503_is_never_go(fake: FakeGitHub, tmp_path: Path) -> None:
    enable(fake)
    fake.add_code_scanning_alert(2, severity="note")
    fake.fail_code_scanning("unavailable")
    run = run_action(fake, tmp_path, inputs=INPUTS)
    verdict_of(run)
    assert run.outputs["gate"] == "block"
    assert "code scanning alerts could not be read" in run.outputs["gate-reason"]
    assert "HTTP 503" in run.outputs["gate-reason"]


def test_a_failed_second_page_is_never_go_and_never_a_short_list(tmp_path: Path) -> None:
    fake = make_fake(per_page_max=1)
    try:
        enable(fake)
        fake.add_code_scanning_alert(2, severity="note", path="a.py")
        fake.add_code_scanning_alert(2, security_severity_level="critical", path="b.py")
        fake.fail_code_scanning("unavailable", page=2)
        run = run_action(fake, tmp_path, inputs=INPUTS)
        verdict = verdict_of(run)
    finally:
        fake.stop()
    assert run.outputs["gate"] == "block"
    assert "page 2" in run.outputs["gate-reason"]
    assert sources(verdict) == []  # page 1's alert is not judged alone
    assert verdict["bots"]["code-scanning"]["state"] == "failed"


def test_403_without_the_flag_keeps_the_inline_comment_medium_and_notes_it(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    inline_alert(fake, 154, "a.py", 7)
    fake.fail_code_scanning("forbidden")
    run = run_action(fake, tmp_path, inputs=INPUTS)
    verdict = verdict_of(run)
    assert run.outputs["gate"] == "go"  # a note, not a block on its own
    (finding,) = verdict["advisory"]
    (source,) = finding["sources"]
    assert (source["endpoint"], source["severity"]) == ("review_comment", "medium")
    assert any(PERMISSION in n["note"] for n in verdict["parse_notes"])
    assert verdict["unreviewed"] == [] and verdict["required_bots"] == []


def test_a_dismissed_alert_is_judged_again_on_the_same_head(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    enable(fake)
    alert = fake.add_code_scanning_alert(2, security_severity_level="high")
    assert run_action(fake, tmp_path / "1", inputs=INPUTS).outputs["gate"] == "block"
    again = run_action(fake, tmp_path / "2", inputs=INPUTS)
    assert again.outputs["gate"] == "block" and "nothing new since" in again.log
    # Only the alert changed: the alerts are part of the noop fingerprint, so it is judged.
    fake.set_code_scanning_alert_state(alert["number"], "dismissed")
    run = run_action(fake, tmp_path / "3", inputs=INPUTS)
    assert run.outputs["gate"] == "go", run.log
    assert fake.check_runs(HEAD)[-1]["conclusion"] == "success"


def cli(fake: FakeGitHub, *args: str) -> tuple[int, str]:
    """`reviewcoord …` in-process against the fake (a PAT: GET /user answers)."""
    fake.add_token("ghp_cs", "octo-dev", user_endpoint=True)
    env = {"GITHUB_API_URL": fake.base_url, "GITHUB_TOKEN": "ghp_cs", "PATH": ""}
    out = io.StringIO()
    return main(list(args), environ=env, stdout=out), out.getvalue()


def test_a_snapshot_saves_the_alerts_and_replays_them(
    fake: FakeGitHub, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake.add_code_scanning_alert(2, security_severity_level="critical", path="a.py")
    code, text = cli(fake, "snapshot", "2", "--repo", "octo/app")
    assert code == 0
    saved = json.loads(text)
    assert [a["number"] for a in saved["code_scanning_alerts"]] == [101]
    path = tmp_path / "pr.json"
    path.write_text(text)
    replay = ["2", "--replay", str(path), "--format", "json"]
    code, out = main_json(replay)  # judged as if read live, with or without the flag
    assert out["gate"] == "block" and sources(out)[0]["bot"] == "code-scanning"
    del saved["code_scanning_alerts"]
    path.write_text(json.dumps(saved))
    assert main_json(replay)[1]["gate"] == "go"
    code, out = main_json([*replay, "--code-scanning"])
    assert out["gate"] == "block"
    assert out["gate_reason"] == "the snapshot holds no code scanning alerts"
    # Unreadable alerts are left out of the snapshot, with a line saying why.
    fake.fail_code_scanning("forbidden")
    code, text = cli(fake, "snapshot", "2", "--repo", "octo/app")
    assert code == 0 and "code_scanning_alerts" not in json.loads(text)
    assert PERMISSION in capsys.readouterr().err


def main_json(args: list[str]) -> tuple[int, dict[str, Any]]:
    out = io.StringIO()
    code = main(args, environ={}, stdout=out)
    verdict: dict[str, Any] = json.loads(out.getvalue())
    check_verdict(verdict)
    return code, verdict
