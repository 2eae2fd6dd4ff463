"""`reviewcoord status`: every open PR's last published verdict, read from our stickies (never
re-judged), against the fake GitHub server: pages, identities, stale, missing and corrupt
records, the sort, the JSON shape, the request cost per PR, progress, and the golden table."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from reviewcoord.github.gateway import PullInfo
from reviewcoord.history import Entry, History, decode, encode
from reviewcoord.render import STALE_PREFIX
from reviewcoord.status import StatusRow, row_for, sort_rows
from reviewcoord.status_live import Progress, run_status
from tests.e2e_support import CODEX, CURSOR, HEAD, MARKER, ROOT, all_clean, body
from tests.fakegithub import ACTIONS_LOGIN, FakeGitHub

PAT = "ghp_statustoken"
ME = "octo-dev"
REPO = "octo/app"
GOLDEN = Path(__file__).parent / "golden" / "status.table.txt"
REGEN = os.environ.get("REVIEWCOORD_REGEN") == "1"


def sha(n: int) -> str:
    return f"{n:02x}" * 20


def entry(sid: str, status: str, level: str) -> Entry:
    return Entry.model_validate(
        {
            "sid": sid,
            "st": status,
            "sev": level,
            "bot": "codex",
            "ep": "review_comment",
            "cid": 1,
            "title": f"finding {sid}",
            "first": 1,
            "seen": 1,
        }
    )


def record(pr: int, head: str, gate: str, findings: list[Entry], **extra: object) -> History:
    return History.model_validate(
        {
            "repo": REPO,
            "pr": pr,
            "heads": [sha(99), head],
            "cycle": extra.pop("cycle", 2),
            "gate": gate,
            "reason": f"reason of #{pr}",
            "findings": findings,
            **extra,
        }
    )


def sticky(history: History | None, visible: str = "## Verdict", raw: str | None = None) -> str:
    line = raw if raw is not None else (encode(history) if history else "")
    return f"{MARKER}\n{line}\n{visible}\n"


BLOCK = [
    entry("a", "open", "critical"),
    entry("b", "awaiting", "critical"),
    entry("c", "open", "medium"),
    entry("d", "accepted", "critical"),
    entry("e", "likely_fixed", "critical"),
]
GO = [entry("f", "open", "low"), entry("g", "likely_fixed", "medium")]


def populate(gh: FakeGitHub) -> None:
    """The scenarios, one PR each (PR n's head is sha(n))."""
    titles = {9: "\x1b[31mRed\x1b[0m title\x07 with \x1b]0;pwned\x07controls\u202e"}
    for n in range(1, 11):
        gh.add_pull(n, head_sha=sha(n), title=titles.get(n, f"Change number {n}"))
    mine = {
        1: record(1, sha(1), "block", BLOCK, pnd=["claude"], unr=[]),
        2: record(2, sha(2), "go", GO, pnd=[], unr=["cursor"]),
        3: record(3, sha(33), "block", BLOCK[:1], pnd=[], unr=[]),  # an older head
        4: record(4, sha(44), "go", [], pnd=[], unr=[]),
        8: record(8, sha(8), "go", [], cycle=1),  # written before pending/unreviewed existed
        9: record(9, sha(9), "go", [], pnd=[], unr=[]),
    }
    for n, rec in mine.items():
        gh.add_issue_comment(n, login=ME, body=sticky(rec), user_type="User")
    gh.add_issue_comment(5, login="someone", body="LGTM", user_type="User")
    # 6: a sticky by someone else (even with a valid record) is ignored.
    gh.add_issue_comment(6, login="mallory", body=sticky(record(6, sha(6), "go", [])))
    # 7: our sticky, record corrupt.
    gh.add_issue_comment(
        7, login=ME, body=sticky(None, raw="<!-- review-coordinator-history v1 z:AAAA -->")
    )
    # 10: our sticky, marked stale by a later run.
    stale = sticky(record(10, sha(10), "go", [], pnd=[], unr=[]))
    stale = stale.replace("## Verdict", STALE_PREFIX + "the head commit changed\n\n## Verdict")
    gh.add_issue_comment(10, login=ME, body=stale, user_type="User")


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as gh:
        gh.add_token(PAT, ME, user_endpoint=True)
        yield gh


def status(gh: FakeGitHub, *args: str) -> tuple[int, str, str]:
    env = {"GITHUB_API_URL": gh.base_url, "GITHUB_TOKEN": PAT, "REVIEWCOORD_WRITE_SPACING": "0"}
    out, err = io.StringIO(), io.StringIO()
    code = run_status(["--repo", REPO, *args], env, out, err)
    return code, out.getvalue(), err.getvalue()


def test_the_table_matches_its_golden_file(fake: FakeGitHub) -> None:
    populate(fake)
    code, out, err = status(fake)
    assert code == 0, err
    if REGEN:
        GOLDEN.write_text(out, encoding="utf-8", newline="")
    assert GOLDEN.exists(), f"missing golden {GOLDEN}; run with REVIEWCOORD_REGEN=1"
    assert out == GOLDEN.read_text(encoding="utf-8")
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    assert "Red title with controls" in out


def test_json_rows_sorted_blockers_first_with_counts_and_staleness(fake: FakeGitHub) -> None:
    populate(fake)
    code, out, _err = status(fake, "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert (data["repo"], data["identity"], data["open"]) == (REPO, ME, 10)
    rows = {r["number"]: r for r in data["pulls"]}
    assert [r["number"] for r in data["pulls"]] == [1, 3, 5, 6, 7, 4, 10, 2, 8, 9]
    one = rows[1]
    assert (one["gate"], one["critical"], one["advisory"], one["cycle"]) == ("block", 2, 1, 2)
    assert (one["pending"], one["unreviewed"], one["current"]) == (["claude"], [], True)
    assert one["reviewed_head"] == sha(1) and one["reason"] == "reason of #1"
    assert one["verdict_url"].startswith("https://github.com/octo/app/pull/1#issuecomment-")
    assert (rows[2]["critical"], rows[2]["advisory"], rows[2]["unreviewed"]) == (0, 1, ["cursor"])
    assert rows[3]["current"] is False and rows[4]["current"] is False
    assert rows[10]["current"] is False and "marked stale" in rows[10]["note"]
    assert rows[5]["verdict"] == "none" and rows[5]["note"].startswith("no verdict yet")
    assert rows[6]["verdict"] == "none" and "mallory" in rows[6]["note"]
    assert rows[7]["verdict"] == "unreadable"
    assert rows[7]["note"].startswith("no readable verdict: history record is corrupt")
    assert rows[8]["pending"] is None and rows[8]["gate"] == "go"
    assert set(one) == set(StatusRow.model_fields)
    assert rows[5]["gate"] is None and rows[5]["critical"] is None
    assert rows[9]["title"] == "Red title with controls"


def test_as_login_reads_another_identitys_stickies(fake: FakeGitHub) -> None:
    populate(fake)
    _code, out, _err = status(fake, "--format", "json", "--as", "mallory")
    data = json.loads(out)
    rows = {r["number"]: r for r in data["pulls"]}
    assert data["identity"] == "mallory" and rows[6]["gate"] == "go"
    assert rows[1]["verdict"] == "none" and f"a sticky by {ME} is ignored" in rows[1]["note"]
    assert not [r for r in fake.request_log() if r.route == "/user"]


def test_every_page_at_most_two_requests_per_pr_and_progress(fake: FakeGitHub) -> None:
    for n in range(1, 106):  # 105 open PRs: two pages of the PR list
        fake.add_pull(n, head_sha=sha(n % 256))
    fake.add_pull(200, head_sha=sha(200))
    fake.close_pull(200)  # closed: not listed
    for i in range(150):  # PR 1: 151 comments, our sticky on the second page
        fake.add_issue_comment(1, login=CODEX, body=f"chatter {i}")
    fake.add_issue_comment(1, login=ME, body=sticky(record(1, sha(1), "block", BLOCK)))
    fake.add_issue_comment(105, login=ME, body=sticky(record(105, sha(105), "go", [])))
    code, out, err = status(fake, "--format", "json")
    assert code == 0
    rows = json.loads(out)["pulls"]
    assert len(rows) == 105 and 200 not in [r["number"] for r in rows]
    assert rows[0]["number"] == 1 and rows[0]["gate"] == "block"
    assert next(r for r in rows if r["number"] == 105)["gate"] == "go"
    log = fake.request_log()
    per_pr = Counter(r.route.split("/")[-2] for r in log if r.route.endswith("/comments"))
    assert per_pr["1"] == 2 and max(per_pr.values()) <= 2 and len(per_pr) == 105
    pull_pages = [r for r in log if r.route.endswith("/pulls")]
    assert len(pull_pages) == 2 and "state=open" in pull_pages[0].path
    assert len(log) == 2 + 106 + 1  # list pages, comment pages, GET /user
    assert all(r.method == "GET" for r in log)
    assert "105 open pull requests" in err
    assert "reading PR 1/105 (#" in err and "reading PR 105/105" in err
    assert "109 API requests (109 rate-limited)" in err


def test_no_open_pulls(fake: FakeGitHub) -> None:
    code, out, err = status(fake)
    assert (code, out) == (0, "No open pull requests in octo/app.\n")
    assert "0 open pull requests" in err


def test_sort_order_unit() -> None:
    def row(
        n: int, gate: str | None, current: bool | None, crit: int = 0, adv: int = 0
    ) -> StatusRow:
        verdict = gate or "none"
        return StatusRow(
            number=n,
            title="",
            pr_url="",
            head_sha="",
            verdict=verdict,  # type: ignore[arg-type]
            gate=gate,  # type: ignore[arg-type]
            critical=crit if gate else None,
            advisory=adv if gate else None,
            current=current,
        )

    rows = [
        row(1, "go", True),
        row(2, None, None),
        row(3, "block", False, 5),
        row(4, "block", True, 1, 0),
        row(5, "block", True, 1, 3),
        row(6, "go", False),
        row(7, "block", True, 2),
    ]
    assert [r.number for r in sort_rows(rows)] == [7, 5, 4, 3, 2, 6, 1]


def test_row_for_ignores_foreign_and_takes_our_newest_sticky() -> None:
    from reviewcoord.model import RawComment

    pull = PullInfo(number=4, head_sha=sha(4), base_ref="main", html_url="u")

    def comment(cid: int, login: str, text: str) -> RawComment:
        return RawComment(endpoint="issue_comment", id=cid, author_login=login, body=text)

    old = sticky(record(4, sha(4), "block", BLOCK[:1]))
    new = sticky(record(4, sha(4), "go", []))
    rows = [comment(1, ME, old), comment(3, ME, new), comment(5, "eve", old)]
    assert row_for(pull, rows, ME, repo=REPO).gate == "go"
    other_repo = row_for(pull, [comment(1, ME, old)], ME, repo="octo/other")
    assert other_repo.verdict == "unreadable" and "another pull request" in (other_repo.note or "")


def test_records_keep_pending_and_unreviewed_and_old_ones_still_decode() -> None:
    rec = record(1, sha(1), "block", [], pnd=["claude"], unr=["cursor"])
    back, notice = decode(sticky(rec), repo=REPO, pr=1)
    assert notice is None and back is not None
    assert (back.pending, back.unreviewed) == (["claude"], ["cursor"])
    dumped = rec.model_dump(mode="json", by_alias=True, exclude_defaults=True)
    assert dumped["pnd"] == ["claude"] and dumped["unr"] == ["cursor"]
    old, _ = decode(sticky(record(1, sha(1), "go", [])), repo=REPO, pr=1)
    assert old is not None and old.pending is None and old.unreviewed is None


@pytest.mark.e2e
def test_a_published_verdict_is_listed_by_the_cli(fake: FakeGitHub) -> None:
    # A real run publishes the sticky (its record now carries pending/unreviewed); `status`
    # then lists it through `reviewcoord status` (cli dispatch), and after a push it is stale.
    fake.add_pull(2, head_sha=HEAD)
    all_clean(fake)
    fake.add_review_comment(2, login=CODEX, body=body("Z25"), path="src/t.rs", line=178)
    fake.add_review_comment(2, login=CURSOR, body=body("C_jdx12718_aur201"), path="t.rs", line=9)
    env = {
        "PATH": os.environ.get("PATH", ""),
        "GITHUB_API_URL": fake.base_url,
        "GITHUB_TOKEN": PAT,
        "REVIEWCOORD_WRITE_SPACING": "0",
    }

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "reviewcoord.cli", *args],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    judged = cli("2", "--repo", REPO, "--settle", "none", "--publish")
    assert judged.returncode == 0, judged.stderr
    verdict = json.loads(judged.stdout.rpartition("\n---\n\n")[2])
    listed = cli("status", "--repo", REPO, "--format", "json")
    assert listed.returncode == 0, listed.stderr
    (row,) = json.loads(listed.stdout)["pulls"]
    assert row["gate"] == verdict["gate"] == "block" and row["current"] is True
    assert row["critical"] == len(verdict["critical"]) and row["cycle"] == verdict["cycle"]
    assert row["pending"] == verdict["pending"] and row["unreviewed"] == verdict["unreviewed"]
    assert "reading PR 1/1 (#2)" in listed.stderr
    fake.set_head(2, "f" * 40)
    table = cli("status", "--repo", REPO)
    assert table.returncode == 0 and "stale" in table.stdout and "#2" in table.stdout
    assert ACTIONS_LOGIN not in table.stdout


def test_progress_on_a_terminal_rewrites_one_line() -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    err = Tty()
    progress = Progress(err)
    for done in (1, 2, 3):
        progress.step(done, 3, 10 + done)
    text = err.getvalue()
    assert text.count("\n") == 1 and text.endswith("reading PR 3/3 (#13)\n")
    assert text.count("\r\x1b[K") == 3


def test_a_failed_read_fails_the_command_with_no_table(fake: FakeGitHub) -> None:
    from reviewcoord.errors import GatewayError

    populate(fake)
    fake.inject("GET", r"/issues/4/comments", status=404)
    env = {"GITHUB_API_URL": fake.base_url, "GITHUB_TOKEN": PAT, "REVIEWCOORD_WRITE_SPACING": "0"}
    out = io.StringIO()
    with pytest.raises(GatewayError, match="issues/4/comments"):
        run_status(["--repo", REPO], env, out, io.StringIO())
    assert out.getvalue() == ""
