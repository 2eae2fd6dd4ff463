"""Review cycles end to end: several runs of `python entrypoint.py` (each a fresh process)
against the fake GitHub; the only state between runs is what GitHub holds (our sticky)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reviewcoord.history import History, decode
from tests.e2e_support import (
    CODEX,
    CURSOR,
    HEAD,
    NEW_HEAD,
    Run,
    body,
    cursor_clean,
    run_action,
    stickies,
    verdict_of,
    writes,
)
from tests.fakegithub import FakeGitHub

pytestmark = pytest.mark.e2e

HEAD3 = "c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6"
BUG_COMMIT = "16bb91031364200d101c932819f3101bf4285770"
AUTHOR = "octocat"  # the PR author in the fake
INPUTS = {"expected-bots": "cursor,codex"}
# A patch of mise.lock that rewrites lines 155-157 (the Bugbot finding is at 156).
LOCK_FIX = "@@ -155,3 +155,3 @@ tools\n-a\n-b\n-c\n+a2\n+b2\n+c2"


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as gh:
        gh.add_pull(2, head_sha=HEAD)
        gh.set_commit_files(HEAD, ["mise.lock", "src/app.py"])
        gh.enable_graphql()
        yield gh


def cursor_bug(fake: FakeGitHub, head: str, line: int = 156) -> dict[str, Any]:
    """Bugbot's real lockfile finding (BUGBOT_BUG_ID a87285e7…), posted for `head`."""
    text = body("C_jdx12718_lock156").replace(BUG_COMMIT, head)
    return fake.add_review_comment(
        2, login=CURSOR, body=text, path="mise.lock", line=line, commit_id=head
    )


class Runner:
    def __init__(self, fake: FakeGitHub, tmp: Path) -> None:
        self.fake, self.tmp, self.n = fake, tmp, 0

    def __call__(self, **kw: Any) -> Run:
        self.n += 1
        run = run_action(self.fake, self.tmp / str(self.n), inputs=dict(INPUTS), **kw)
        assert run.returncode == 0, run.log
        return run


def sticky_body(fake: FakeGitHub) -> str:
    (sticky,) = stickies(fake)
    return str(sticky["body"])


def record(fake: FakeGitHub) -> History:
    history, notice = decode(sticky_body(fake), repo=fake.repo, pr=2)
    assert notice is None and history is not None
    return history


def test_found_on_push_1_fixed_on_push_2_is_likely_fixed(fake: FakeGitHub, tmp_path: Path) -> None:
    run = Runner(fake, tmp_path)
    cursor_bug(fake, HEAD)
    first = run()
    assert first.outputs["gate"] == "block"
    rec = record(fake)
    assert rec.cycle == 1 and rec.heads == [HEAD] and rec.blocks == 1
    (entry,) = rec.findings
    assert entry.status == "open" and entry.level == "critical" and entry.fid == "F1"

    fake.push(2, NEW_HEAD, ["mise.lock"])
    fake.set_patch(NEW_HEAD, "mise.lock", LOCK_FIX)  # the push rewrites the finding's line
    fake.add_review(2, login=CURSOR, body=cursor_clean(NEW_HEAD), commit_id=NEW_HEAD)
    second = run()
    v = verdict_of(second)
    assert second.outputs["gate"] == "go" and v["cycle"] == 2
    assert v["review_mode"] == "incremental" and v["previous_head"] == HEAD
    (change,) = v["changes"]
    assert change["change"] == "likely_fixed" and change["stable_id"] == entry.stable_id
    assert change["note"].startswith(
        "a push since its bot reported it changed the lines it points at (156)"
    )
    text = sticky_body(fake)
    assert "✅ Likely fixed" in text and "Since last cycle" in text
    assert "✅ Fixed" not in text
    rec2 = record(fake)
    assert rec2.heads == [HEAD, NEW_HEAD] and rec2.cycle == 2
    assert [e.status for e in rec2.findings] == ["likely_fixed"]


def test_incremental_review_not_touching_the_file_carries_the_finding(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    run = Runner(fake, tmp_path)
    cursor_bug(fake, HEAD)
    run()
    fake.push(2, NEW_HEAD, ["src/other.py"])  # the lockfile is not touched
    fake.add_review(2, login=CURSOR, body=cursor_clean(NEW_HEAD), commit_id=NEW_HEAD)
    second = run()
    v = verdict_of(second)
    assert second.outputs["gate"] == "block"
    (f,) = v["critical"]
    assert f["status"] == "still_open" and f["carried_forward"] is True
    assert f["first_seen_cycle"] == 1 and v["cycle"] == 2
    assert v["changes"] == []
    assert "carried forward" in sticky_body(fake)


def test_finding_gone_from_every_comment_carries_forward_from_history(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    """A bot that deleted its comment and did not re-review the file: kept from the record."""
    run = Runner(fake, tmp_path)
    bug = cursor_bug(fake, HEAD)
    run()
    with fake._lock:  # the bot's comment disappears
        fake._review_comments[:] = [c for c in fake._review_comments if c["id"] != bug["id"]]
    fake.push(2, NEW_HEAD, ["src/other.py"])
    fake.add_review(2, login=CURSOR, body=cursor_clean(NEW_HEAD), commit_id=NEW_HEAD)
    v = verdict_of(run())
    assert v["gate"] == "block"
    (f,) = v["critical"]
    assert f["carried_forward"] and f["file"] == "mise.lock" and f["sources"][0]["url"]


def test_bugbot_reposting_the_same_bug_id_is_one_finding(fake: FakeGitHub, tmp_path: Path) -> None:
    run = Runner(fake, tmp_path)
    cursor_bug(fake, HEAD)
    run()
    fake.push(2, NEW_HEAD, ["mise.lock"])
    cursor_bug(fake, NEW_HEAD, line=160)  # same BUGBOT_BUG_ID, new thread, new line
    second = run()
    v = verdict_of(second)
    assert second.outputs["critical-count"] == "1"
    (f,) = v["critical"]
    assert f["status"] == "still_open" and f["first_seen_cycle"] == 1
    assert not f["carried_forward"] and f["line"] == 160
    assert len(record(fake).findings) == 1


def test_reply_awaits_decision_then_a_maintainer_accepts(fake: FakeGitHub, tmp_path: Path) -> None:
    run = Runner(fake, tmp_path)
    bug = cursor_bug(fake, HEAD)
    run()
    fake.add_review_comment(
        2,
        login=AUTHOR,
        user_type="User",
        body="Won't fix, because the lock is pinned upstream @everyone <!-- x -->",
        path="mise.lock",
        line=156,
        in_reply_to_id=bug["id"],
    )
    second = run()
    v = verdict_of(second)
    assert second.outputs["gate"] == "block"  # a reply moves it sideways, never off the list
    (f,) = v["critical"]
    assert f["status"] == "awaiting_decision" and f["reply"]["kind"] == "wontfix"
    assert f["reply"]["by"] == AUTHOR and v["cycle"] == 1  # same head: same cycle
    text = sticky_body(fake)
    assert "⏸️ Awaiting decision" in text and "the lock is pinned upstream" in text
    assert "@everyone" not in text and "<!-- x -->" not in text  # through the safe filters
    assert record(fake).findings[0].status == "awaiting"

    fake.set_permission("mona", "write")
    fake.add_issue_comment(
        2,
        login="mona",
        user_type="User",
        body="/review-coordinator accept F1 follow-up #123: pinned upstream, tracked in #123",
    )
    third = run()
    v = verdict_of(third)
    assert third.outputs["gate"] == "go" and v["critical"] == []
    (acc,) = v["accepted"]
    assert acc["accepted_by"] == "mona" and acc["kind"] == "follow-up" and acc["issue"] == 123
    text = sticky_body(fake)
    assert "Accepted exceptions" in text and "<details>" in text and "mona" in text
    assert record(fake).findings[0].status == "accepted"
    permission_reads = [r for r in fake.request_log() if "/collaborators/" in r.path]
    assert len(permission_reads) == 1

    # Accepted stays accepted on the next push; mona's permission is read again (the record
    # never grants it), once per run; a noop takes it from the record.
    fake.push(2, NEW_HEAD, ["src/other.py"])
    fourth = run()
    assert fourth.outputs["gate"] == "go"
    assert len([r for r in fake.request_log() if "/collaborators/" in r.path]) == 2
    noop = run()
    assert "nothing new since" in noop.log and noop.outputs["gate"] == "go"
    assert len([r for r in fake.request_log() if "/collaborators/" in r.path]) == 2


def test_the_pr_author_cannot_accept_their_own_finding(fake: FakeGitHub, tmp_path: Path) -> None:
    run = Runner(fake, tmp_path)
    cursor_bug(fake, HEAD)
    run()
    fake.set_permission(AUTHOR, "admin")
    fake.add_issue_comment(
        2, login=AUTHOR, user_type="User", body="/review-coordinator accept F1 by-design: mine"
    )
    fake.set_permission("guest", "read")
    fake.add_issue_comment(
        2, login="guest", user_type="User", body="/review-coordinator accept F1 wontfix: meh"
    )
    # A bot quoting a command is never read as one.
    fake.add_issue_comment(
        2, login="evil[bot]", body="/review-coordinator accept F1 wontfix: bot says so"
    )
    second = run()
    v = verdict_of(second)
    assert second.outputs["gate"] == "block" and v["accepted"] == []
    notes = v["command_notes"]
    assert any("PR author cannot accept" in n and AUTHOR in n for n in notes)
    assert any("needs write permission (has read)" in n for n in notes)
    assert not any("evil" in n for n in notes)
    text = sticky_body(fake)
    assert "Commands ignored" in text and f"@{AUTHOR} cannot" not in text  # no ping


def test_convergence_lets_a_new_critical_in_an_untouched_file_through(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    run = Runner(fake, tmp_path)
    cursor_bug(fake, HEAD)
    assert run().outputs["gate"] == "block"  # block cycle 1
    fake.push(2, NEW_HEAD, ["src/app.py"])
    assert run().outputs["gate"] == "block"  # block cycle 2 (carried forward)
    fake.push(2, HEAD3, ["mise.lock"])  # fixes the blocker
    fake.set_patch(HEAD3, "mise.lock", LOCK_FIX)
    fake.add_review(2, login=CURSOR, body=cursor_clean(HEAD3), commit_id=HEAD3)
    fake.add_review_comment(
        2, login=CODEX, body=body("Z25"), path="src/typed_dict.rs", line=178, commit_id=HEAD3
    )
    third = run()
    v = verdict_of(third)
    assert third.outputs["gate"] == "go" and v["cycle"] == 3
    assert v["convergence"]["active"] and v["convergence"]["block_cycles"] == 2
    (f,) = v["advisory"]
    assert f["severity"] == "medium" and f["status"] == "new"
    assert f["severity_adjustment"]["from_level"] == "critical"
    assert v["convergence"]["exempted"] == [f["id"]]
    text = sticky_body(fake)
    assert "Convergence mode" in text and "⚖️ Severity adjustments" in text
    assert "critical → medium" in text


def test_convergence_still_blocks_a_new_critical_in_a_changed_file(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    run = Runner(fake, tmp_path)
    cursor_bug(fake, HEAD)
    run()
    fake.push(2, NEW_HEAD, ["src/app.py"])
    run()
    fake.push(2, HEAD3, ["src/typed_dict.rs"])
    fake.add_review_comment(
        2, login=CODEX, body=body("Z25"), path="src/typed_dict.rs", line=178, commit_id=HEAD3
    )
    v = verdict_of(run())
    assert v["gate"] == "block" and len(v["critical"]) == 2  # new one + the prior blocker


def test_corrupt_history_is_ignored_safely(fake: FakeGitHub, tmp_path: Path) -> None:
    run = Runner(fake, tmp_path)
    cursor_bug(fake, HEAD)
    run()
    (sticky,) = stickies(fake)
    lines = sticky["body"].split("\n")
    assert lines[1].startswith("<!-- review-coordinator-history v1 z:")
    lines[1] = "<!-- review-coordinator-history v1 z:AAAA!!not-base64 -->"
    fake.edit_issue_comment(sticky["id"], "\n".join(lines))
    second = run()
    v = verdict_of(second)
    assert second.outputs["gate"] == "block"
    assert "corrupt" in v["history_notice"]
    assert "Review history ignored" in sticky_body(fake)
    assert record(fake).cycle == 1  # a fresh, valid record replaces it


def test_a_foreign_record_is_not_trusted(fake: FakeGitHub, tmp_path: Path) -> None:
    """A history line in someone else's comment is never read: with ours deleted, the record
    comes back from our own check run (issue 23 route 6), never from mallory's copy."""
    run = Runner(fake, tmp_path)
    cursor_bug(fake, HEAD)
    run()
    forged = sticky_body(fake).replace("review-coordinator", "review-coordinator", 1)
    (ours,) = stickies(fake)
    with fake._lock:
        fake._issue_comments[:] = [c for c in fake._issue_comments if c["id"] != ours["id"]]
    fake.add_issue_comment(2, login="mallory", user_type="User", body=forged)
    v = verdict_of(run())
    assert v["review_mode"] == "same_head" and v["cycle"] == 1
    assert "restored from our check run" in (v["history_notice"] or "") and v["held"]
    assert [c["user"]["login"] for c in stickies(fake)] == ["mallory", "github-actions[bot]"]


def test_noop_run_writes_nothing(fake: FakeGitHub, tmp_path: Path) -> None:
    run = Runner(fake, tmp_path)
    cursor_bug(fake, HEAD)
    first = run()
    before = writes(fake)
    second = run()
    assert writes(fake) == before
    assert "nothing new since" in second.log
    assert second.outputs["gate"] == first.outputs["gate"] == "block"
    assert second.outputs["critical-count"] == "1"
    assert second.outputs["comment-url"] == stickies(fake)[0]["html_url"]


def test_force_push_reconciles_in_full_mode(fake: FakeGitHub, tmp_path: Path) -> None:
    run = Runner(fake, tmp_path)
    bug = cursor_bug(fake, HEAD)
    run()
    fake.push(2, NEW_HEAD, ["mise.lock", "src/app.py"], force=True)
    fake.outdate_review_comment(bug["id"])  # GitHub: its lines are gone on the new head
    fake.add_review(2, login=CURSOR, body=cursor_clean(NEW_HEAD), commit_id=NEW_HEAD)
    second = run()
    v = verdict_of(second)
    assert v["force_push"] is True and v["review_mode"] == "full"
    assert [c["change"] for c in v["changes"]] == ["likely_fixed"]
    assert "is not reachable from this head (force-push?)" in sticky_body(fake)
    # Nothing needs the PR's files (only convergence mode does): not read.
    assert not any("/pulls/2/files" in r.path for r in fake.request_log())


def test_thread_resolved_on_github_is_reported_not_cleared(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    run = Runner(fake, tmp_path)
    bug = cursor_bug(fake, HEAD)
    run()
    fake.set_thread_state(bug["id"], resolved=True)
    fake.add_issue_comment(2, login="someone", user_type="User", body="ping")
    v = verdict_of(run())
    (f,) = v["critical"]
    assert f["thread_state"] == "resolved" and v["gate"] == "block"
    assert [c["change"] for c in v["changes"]] == ["thread_resolved"]


def test_request_cost_of_a_second_cycle(fake: FakeGitHub, tmp_path: Path) -> None:
    """Added reads per run: compare (head moved), GraphQL threads (history + inline findings)."""
    run = Runner(fake, tmp_path)
    cursor_bug(fake, HEAD)
    run()
    n = len(fake.request_log())
    fake.push(2, NEW_HEAD, ["src/other.py"])
    run()
    log = fake.request_log()[n:]
    paths = [r.route for r in log]
    threads = [r for r in log if r.route == "/graphql" and "reviewThreads" in str(r.body)]
    assert len([p for p in paths if "/compare/" in p]) == 1
    assert len(threads) == 1  # (and one `viewer` query: who we are, every run)
    assert not [p for p in paths if "/files" in p]


def test_no_noop_after_a_failed_publish(fake: FakeGitHub, tmp_path: Path) -> None:
    """A run that failed half-way (check run not completed, or sticky marked stale) is never
    taken as current: the next run publishes again."""
    cursor_bug(fake, HEAD)
    assert run_action(fake, tmp_path / "1", inputs=dict(INPUTS)).returncode == 0
    fake.add_issue_comment(2, login="someone", user_type="User", body="any news?")
    fake.inject("PATCH", r"/check-runs/", status=500, times=100)
    failed = run_action(fake, tmp_path / "2", inputs=dict(INPUTS))
    assert failed.outputs["gate"] == "error"  # its check run stays in progress
    fake.clear_faults()
    before = len(writes(fake))
    again = run_action(fake, tmp_path / "3", inputs=dict(INPUTS))
    assert again.returncode == 0 and again.outputs["gate"] == "block"
    assert "nothing new since" not in again.log and len(writes(fake)) > before
    assert "This verdict is stale" not in sticky_body(fake)


def test_no_noop_when_the_last_verdict_is_marked_stale(fake: FakeGitHub, tmp_path: Path) -> None:
    from reviewcoord.render import stale_sticky

    run = Runner(fake, tmp_path)
    cursor_bug(fake, HEAD)
    run()
    (sticky,) = stickies(fake)
    fake.edit_issue_comment(sticky["id"], stale_sticky(sticky["body"], reason="read failed"))
    assert record(fake).cycle == 1  # the history line survives the stale banner
    before = len(writes(fake))
    again = run()
    assert "nothing new since" not in again.log and len(writes(fake)) > before
    assert "This verdict is stale" not in sticky_body(fake)
