"""`reviewcoord scorecard` end to end: PRs judged by the Action (`python entrypoint.py`, a fresh
process a run, through their review cycles) on the fake GitHub, then scored from their stickies.
The figures must match what happened: a finding fixed by a push, one accepted by a maintainer,
one left open at merge (merged over a block), one corroborated by a second reviewer, a reviewer
out of quota, an open PR excluded, a
closed-unmerged PR counted apart, a merged PR never judged listed as unjudged. The JSON, table,
CSV and SVG of that repository are the goldens."""

from __future__ import annotations

import io
import json
import os
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from reviewcoord.scorecard.live import run_scorecard
from tests.e2e_support import CODEX, CURSOR, Run, body, cursor_clean, run_action
from tests.fakegithub import FakeGitHub
from tests.fakegithub.server import iso

pytestmark = pytest.mark.e2e

GOLDEN = Path(__file__).parent / "golden" / "scorecard"
REGEN = os.environ.get("REVIEWCOORD_REGEN") == "1"
BUG_COMMIT = "16bb91031364200d101c932819f3101bf4285770"
INPUTS = {"expected-bots": "cursor,codex"}
WINDOW = ["--since", "2026-01-01", "--until", "2026-01-31"]
SVG_NS = "{http://www.w3.org/2000/svg}"
Z25_TITLE = "Guard reverse TypedDict comparison with cycle detector"  # Codex's Z25


def sha(pr: int, n: int) -> str:
    return f"{pr:02d}{n:02d}" * 10


class Repo:
    """The fake repository and a way to judge one of its PRs with the Action."""

    def __init__(self, fake: FakeGitHub, tmp: Path) -> None:
        self.fake, self.tmp, self.runs = fake, tmp, 0

    def judge(self, pr: int, **inputs: str) -> Run:
        self.runs += 1
        run = run_action(
            self.fake,
            self.tmp / f"run{self.runs}",
            event="workflow_dispatch",
            payload="workflow_dispatch.json",
            inputs={**INPUTS, "pr": str(pr), **inputs},
        )
        assert run.returncode == 0, run.log
        return run

    def open(self, pr: int) -> str:
        head = sha(pr, 1)
        self.fake.add_pull(pr, head_sha=head, title=f"PR {pr}")
        self.fake.set_commit_files(head, ["mise.lock", "src/app.py"])
        return head

    def later(self, head: str, minutes: int) -> str:
        """`minutes` after `head`'s commit time: when a bot posted its review of it."""
        made = datetime.fromisoformat(self.fake._commit_times[head].replace("Z", "+00:00"))
        return iso(made + timedelta(minutes=minutes))

    def cursor_bug(self, pr: int, head: str, minutes: int = 5) -> None:
        text = body("C_jdx12718_lock156").replace(BUG_COMMIT, head)
        self.fake.add_review_comment(
            pr,
            login=CURSOR,
            body=text,
            path="mise.lock",
            line=156,
            commit_id=head,
            created_at=self.later(head, minutes),
        )

    def cursor_clean(self, pr: int, head: str, minutes: int = 5) -> None:
        self.fake.add_review(
            pr,
            login=CURSOR,
            body=cursor_clean(head),
            commit_id=head,
            submitted_at=self.later(head, minutes),
        )

    def codex_clean(self, pr: int, head: str) -> None:
        """Codex's clean verdict on `head`. Codex reviews a pushed head only when asked, and its
        status tracker names the commit first: what binds the verdict, which names none, to
        the new head (reviewcoord/binding.py)."""
        if head != sha(pr, 1):
            tracker = body("N3_codex_status_asic381_propened").replace("8777ef4", head[:7])
            self.fake.add_issue_comment(
                pr, login=CODEX, body=tracker, created_at=self.later(head, 2)
            )
        self.fake.add_issue_comment(
            pr, login=CODEX, body=body("X_clean_swish"), created_at=self.later(head, 3)
        )


def build(fake: FakeGitHub, tmp: Path) -> Repo:
    repo = Repo(fake, tmp)
    fake.set_permission("mona", "write")

    # 11: Bugbot's critical finding, fixed by the next push; Codex clean.
    head = repo.open(11)
    repo.cursor_bug(11, head, minutes=4)
    repo.codex_clean(11, head)
    assert repo.judge(11).outputs["gate"] == "block"
    fake.push(11, sha(11, 2), ["mise.lock"])
    fake.set_patch(sha(11, 2), "mise.lock", "@@ -150,10 +150,8 @@\n-a\n+b")  # the bug's lines
    repo.cursor_clean(11, sha(11, 2), minutes=30)  # measured on the first head only
    repo.codex_clean(11, sha(11, 2))
    assert repo.judge(11).outputs["gate"] == "go"
    fake.close_pull(11, merged=True)

    # 12: Bugbot's finding accepted by a maintainer (wontfix); Codex clean.
    head = repo.open(12)
    repo.cursor_bug(12, head, minutes=10)
    repo.codex_clean(12, head)
    assert repo.judge(12).outputs["gate"] == "block"
    fake.add_issue_comment(
        12, login="mona", user_type="User", body="/review-coordinator accept F1 wontfix: pinned"
    )
    assert repo.judge(12).outputs["gate"] == "go"
    fake.close_pull(12, merged=True)

    # 13: Codex's P1 left open; merged while the gate said block.
    head = repo.open(13)
    fake.add_review_comment(
        13,
        login=CODEX,
        body=body("Z25"),
        path="src/app.py",
        line=7,
        created_at=repo.later(head, 20),
    )
    repo.cursor_clean(13, head, minutes=6)
    assert repo.judge(13).outputs["gate"] == "block"
    fake.close_pull(13, merged=True)

    # 14: Codex out of quota; Bugbot clean.
    head = repo.open(14)
    fake.add_issue_comment(14, login=CODEX, body=body("X_usage_vllm"))
    repo.cursor_clean(14, head, minutes=8)
    assert repo.judge(14).outputs["gate"] == "go"
    fake.close_pull(14, merged=True)

    # 18: Codex and Bugbot report one issue at one place (Bugbot's real body, its title made
    # Codex's), both fixed by the next push: corroborated, and likely fixed.
    head = repo.open(18)
    fake.add_review_comment(
        18, login=CODEX, body=body("Z25"), path="src/app.py", line=7, created_at=repo.later(head, 9)
    )
    same = body("C_jdx12718_lock156").replace(BUG_COMMIT, head)
    same = same.replace("Lockfile points aube at unofficial repo", Z25_TITLE, 1)
    fake.add_review_comment(18, login=CURSOR, body=same, path="src/app.py", line=7, commit_id=head)
    assert repo.judge(18).outputs["gate"] == "block"
    fake.push(18, sha(18, 2), ["src/app.py"])
    fake.set_patch(sha(18, 2), "src/app.py", "@@ -1,10 +1,8 @@\n-a\n+b")  # lines 1-10
    repo.cursor_clean(18, sha(18, 2))
    repo.codex_clean(18, sha(18, 2))
    assert repo.judge(18).outputs["gate"] == "go"
    fake.close_pull(18, merged=True)

    # 15: still open, with a finding: not part of the figures.
    head = repo.open(15)
    repo.cursor_bug(15, head)
    repo.judge(15)

    # 16: closed without merging: counted apart.
    head = repo.open(16)
    repo.cursor_bug(16, head)
    repo.judge(16)
    fake.close_pull(16)

    # 17: merged, never judged.
    repo.open(17)
    fake.close_pull(17, merged=True)
    return repo


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeGitHub]:
    with FakeGitHub() as gh:
        gh.enable_graphql()
        build(gh, tmp_path_factory.mktemp("scorecard"))
        yield gh


def scorecard(fake: FakeGitHub, *args: str) -> tuple[int, str, str]:
    env = {"GITHUB_API_URL": fake.base_url, "GITHUB_TOKEN": "app-token"}
    out, err = io.StringIO(), io.StringIO()
    code = run_scorecard(["--repo", fake.repo, *WINDOW, *args], env, out, err)
    return code, out.getvalue(), err.getvalue()


def card(fake: FakeGitHub) -> dict[str, Any]:
    code, out, err = scorecard(fake, "--format", "json")
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


def reviewer(data: dict[str, Any], bot: str) -> dict[str, Any]:
    (r,) = [r for r in data["reviewers"] if r["bot"] == bot]
    return r


def test_repository_figures_match_what_happened(judged: FakeGitHub) -> None:
    data = card(judged)
    assert data["prs"] == 6  # 11, 12, 13, 14, 17, 18; the open 15 is not counted
    assert data["closed_unmerged"] == 1  # 16
    assert data["merged_over_block"] == [13]
    assert data["unjudged"] == [17]
    assert data["untallied"] == []
    assert [r["bot"] for r in data["reviewers"]] == ["codex", "cursor"]


def test_bugbot_figures(judged: FakeGitHub) -> None:
    r = reviewer(card(judged), "cursor")
    assert r["findings"] == {"total": 3, "critical": 3, "medium": 0, "low": 0}
    assert r["likely_fixed"] == 2  # PRs 11 and 18, fixed by a push
    assert r["accepted"] == 1 and r["by_kind"] == {"wontfix": 1, "by-design": 0, "follow-up": 0}
    assert r["awaiting"] == 0 and r["open_at_merge"] == 0
    assert r["acted_on"] == 0.667
    assert r["prs_expected"] == 5 and r["prs_reviewed"] == 5  # 11-14, 18 (not the open 15)
    assert r["failed"] == 0 and r["skipped"] == 0 and r["unreadable"] == 0
    assert r["corroborated"] == 1 and r["unique"] == 2  # PR 18's, with Codex
    assert r["median_minutes_to_review"] == 6.0  # of 4, 10, 6, 8, 0 (PRs 11-14, 18)


def test_codex_figures(judged: FakeGitHub) -> None:
    r = reviewer(card(judged), "codex")
    assert r["findings"] == {"total": 2, "critical": 2, "medium": 0, "low": 0}
    assert r["open_at_merge"] == 1 and r["likely_fixed"] == 1 and r["accepted"] == 0
    assert r["acted_on"] == 0.5
    assert r["corroborated"] == 1 and r["unique"] == 1  # PR 18's, with Bugbot
    assert r["failed"] == 1  # PR 14: usage limits reached
    assert r["prs_expected"] == 5 and r["prs_reviewed"] == 4
    assert r["median_minutes_to_review"] == 6.0  # of 3, 3, 20, 9 (PRs 11, 12, 13, 18)


def test_cost_is_the_list_pages_plus_at_most_two_requests_a_pr(judged: FakeGitHub) -> None:
    before = len(judged.request_log())
    code, _out, err = scorecard(judged, "--format", "json")
    assert code == 0, err
    routes = [r.route for r in judged.request_log()[before:]]
    assert routes == [
        "/user",  # who we are (no --as)
        "/repos/octo/app/pulls",  # one page of closed PRs
        "/repos/octo/app/issues/comments",  # one page of the repository's comments: 5 stickies
        "/repos/octo/app/issues/17/comments",  # the PR whose sticky it did not find
    ]


def test_a_cache_makes_an_unchanged_rerun_free(judged: FakeGitHub, tmp_path: Path) -> None:
    first = card(judged)
    assert scorecard(judged, "--cache", str(tmp_path), "--format", "json")[0] == 0
    before = len(judged.request_log())
    code, out, err = scorecard(judged, "--cache", str(tmp_path), "--format", "json")
    assert code == 0, err
    again = [r for r in judged.request_log()[before:] if "/issues/" in r.route]
    assert [r.status for r in again] == [304, 304]  # the sweep page and PR 17's page
    assert json.loads(out) == first  # the same figures from the cached pages


def _golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if REGEN:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.read_text(encoding="utf-8") == text, f"{name} differs (REVIEWCOORD_REGEN=1)"


@pytest.mark.parametrize("fmt", ["json", "table", "csv", "svg"])
def test_golden(judged: FakeGitHub, fmt: str) -> None:
    code, out, err = scorecard(judged, "--format", fmt)
    assert code == 0, err
    _golden(f"repo.{fmt}" if fmt != "table" else "repo.txt", out)


def test_svg_is_xml_with_a_bar_per_reviewer(judged: FakeGitHub) -> None:
    _code, out, _err = scorecard(judged, "--format", "svg")
    root = ET.fromstring(out)
    assert root.tag == f"{SVG_NS}svg"
    groups = root.findall(f"{SVG_NS}g")
    assert len(groups) == 2
    texts = ["".join(t.itertext()) for t in root.iter(f"{SVG_NS}text")]
    assert any("acted on 67% · no failures" in t for t in texts)
    assert any("acted on 50% · 1 failed" in t for t in texts)


def test_progress_bar_only_past_twenty_prs(judged: FakeGitHub) -> None:
    _code, _out, err = scorecard(judged, "--format", "json")
    assert "scorecard: [" not in err  # five PRs: no bar
    assert "6 merged PRs in the window (1 closed unmerged)" in err
    assert "#17: unjudged: no sticky comment by github-actions[bot]" in err
