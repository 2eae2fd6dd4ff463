"""No false go from what anyone can edit or time (issue 15 #5, #6, #7, #13), end to end:
`python entrypoint.py` against the fake GitHub, whose GraphQL serves `userContentEdits` in
GitHub's shape. One finding, one entry; acceptances only from unedited (or author-edited)
command comments; our sticky edited by another is discarded; commands bind to the revision
their author saw; the noop seals the record. Each attack sits beside its control."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from reviewcoord.history import Acceptance, decode, encode
from tests.e2e_support import (
    CODEX,
    HEAD,
    MARKER,
    NEW_HEAD,
    Run,
    run_action,
    stickies,
    verdict_of,
    writes,
)
from tests.fakegithub import FakeGitHub
from tests.test_cycles_e2e import AUTHOR, INPUTS, cursor_bug, record, sticky_body
from tests.workflow_support import dispatch

pytestmark = pytest.mark.e2e

NOOP = "nothing new since"


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as gh:
        gh.add_pull(2, head_sha=HEAD)
        gh.set_commit_files(HEAD, ["mise.lock", "src/app.py"])
        gh.enable_graphql()
        yield gh


class Runs:
    def __init__(self, fake: FakeGitHub, tmp: Path) -> None:
        self.fake, self.tmp, self.n = fake, tmp, 0

    def __call__(self, **kw: Any) -> Run:
        self.n += 1
        inputs = {**INPUTS, **kw.pop("inputs", {})}
        run = run_action(self.fake, self.tmp / str(self.n), inputs=inputs, **kw)
        assert run.returncode == 0, run.log
        return run


def graphql_edit_reads(fake: FakeGitHub, since: int = 0) -> int:
    """Edit-history queries (not the `viewer` query every run makes: who we are)."""
    return len(
        [
            r
            for r in fake.request_log()[since:]
            if r.route == "/graphql" and "userContentEdits" in json.dumps(r.body)
        ]
    )


def forge_all_accepted(fake: FakeGitHub) -> str:
    """What a PR author with write access can do: re-encode our record, every finding accepted."""
    (sticky,) = stickies(fake)
    rec, _ = decode(sticky["body"], repo=fake.repo, pr=2)
    assert rec is not None
    acc = Acceptance(kind="wontfix", reason="forged", by="mona", cycle=1)
    forged = rec.model_copy(
        update={
            "gate": "go",
            "findings": [
                e.model_copy(update={"status": "accepted", "acceptance": acc}) for e in rec.findings
            ],
        }
    )
    lines = sticky["body"].split("\n")
    lines[1] = encode(forged)
    return "\n".join(lines)


def test_a_record_re_encoded_by_the_pr_author_is_discarded_never_a_noop_go(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    run = Runs(fake, tmp_path)
    cursor_bug(fake, HEAD)
    assert run().outputs["gate"] == "block"
    # Control: nothing touched → a noop that keeps `block`.
    control = run()
    assert NOOP in control.log and control.outputs["gate"] == "block"
    # Attack: the PR author (write access) edits our sticky's record to "all accepted".
    (sticky,) = stickies(fake)
    fake.edit_issue_comment(sticky["id"], forge_all_accepted(fake), editor=AUTHOR)
    attacked = run()
    assert NOOP not in attacked.log
    assert attacked.outputs["gate"] == "block"
    v = verdict_of(attacked)
    assert v["accepted"] == [] and len(v["critical"]) == 1
    assert "edited by @octocat" in (v["history_notice"] or "")
    assert "its record was discarded" in sticky_body(fake)
    # Our own fresh record replaced it; the next run trusts it again (edited by us only).
    assert record(fake).findings[0].status == "open"
    assert NOOP in run().log


def test_the_sticky_edited_only_by_us_keeps_its_record(fake: FakeGitHub, tmp_path: Path) -> None:
    """Control: our own edits (each run PATCHes the sticky) never discard the record."""
    run = Runs(fake, tmp_path)
    cursor_bug(fake, HEAD)
    run()
    fake.add_issue_comment(2, login="someone", user_type="User", body="ping")
    run()
    n = len(fake.request_log())
    fake.add_issue_comment(2, login="someone", user_type="User", body="ping again")
    third = run()
    v = verdict_of(third)
    assert v["history_notice"] is None and v["review_mode"] == "same_head"
    assert graphql_edit_reads(fake, n) >= 1  # our edited sticky's editor was read


def test_a_maintainers_comment_edited_by_the_pr_author_into_a_command_is_ignored(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    run = Runs(fake, tmp_path)
    cursor_bug(fake, HEAD)
    run()
    fake.set_permission("mona", "maintain")
    old = fake.add_issue_comment(2, login="mona", user_type="User", body="Thanks, looking.")
    command = "/review-coordinator accept F1 wontfix: the lock is fine"
    # Attack: the PR author (write access) edits mona's old comment; REST still says "mona".
    fake.edit_issue_comment(old["id"], command, editor=AUTHOR)
    attacked = run()
    v = verdict_of(attacked)
    assert attacked.outputs["gate"] == "block" and v["accepted"] == []
    assert any("edited by @octocat" in n for n in v["command_notes"])
    assert "edited by @\u2060octocat" in sticky_body(fake)  # shown, never a ping
    # The noop after it reads no edit history and still ignores the command (from the record).
    n = len(fake.request_log())
    noop = run()
    assert NOOP in noop.log and noop.outputs["gate"] == "block"
    assert graphql_edit_reads(fake, n) == 0
    # Control: mona edits her own comment into the command: it counts.
    fake.edit_issue_comment(old["id"], command + ".", editor="mona")
    # (the history still shows the PR author's edit: still ignored)
    assert run().outputs["gate"] == "block"
    mine = fake.add_issue_comment(2, login="mona", user_type="User", body="Reading it.")
    fake.edit_issue_comment(mine["id"], command)  # edited by its author only
    ok = run()
    assert ok.outputs["gate"] == "go" and verdict_of(ok)["accepted"][0]["accepted_by"] == "mona"


def test_the_edit_history_is_read_only_when_an_edited_comment_exists(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    run = Runs(fake, tmp_path)
    cursor_bug(fake, HEAD)
    fake.set_permission("mona", "maintain")
    fake.add_issue_comment(
        2, login="mona", user_type="User", body="/review-coordinator accept F1 wontfix: fine"
    )
    n = len(fake.request_log())
    first = run()  # no sticky yet, nothing edited: no edit-history read
    assert first.outputs["gate"] == "block"  # (no F ids existed when the command was written)
    edits = [r for r in fake.request_log()[n:] if r.path.endswith("/graphql")]
    assert all("userContentEdits" not in json.dumps(r.body) for r in edits)


def test_workflow_dispatch_always_judges_again(fake: FakeGitHub, tmp_path: Path) -> None:
    run = Runs(fake, tmp_path)
    cursor_bug(fake, HEAD)
    run()
    # Control: the same run from a PR event is a noop that writes nothing.
    before = len(writes(fake))
    assert NOOP in run().log and len(writes(fake)) == before
    by_hand = run(event="workflow_dispatch", payload=dispatch(2), inputs={"pr": "2"})
    assert NOOP not in by_hand.log and len(writes(fake)) > before
    assert by_hand.outputs["gate"] == "block"


def test_a_noop_is_refused_when_the_record_no_longer_matches_its_seal(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    """The fingerprint covers the record's own digest: a record changed in any way judges
    again. (Here by our own identity and with its old `updated_at`, so that neither the edit
    history nor GitHub's clock is what catches it: only the seal.)"""
    run = Runs(fake, tmp_path)
    cursor_bug(fake, HEAD)
    run()
    (sticky,) = stickies(fake)
    assert sticky["body"].startswith(MARKER)
    forged = forge_all_accepted(fake)
    fake.edit_issue_comment(
        sticky["id"], forged, sticky["updated_at"], editor=sticky["user"]["login"]
    )
    again = run()
    assert NOOP not in again.log and again.outputs["gate"] == "block"
    # Control: the sticky as we wrote it, same clock: a noop.
    assert NOOP in run().log


def codex_finding(
    fake: FakeGitHub,
    path: str,
    title: str,
    badge: str,
    head: str,
    line: int = 10,
    review_id: int | None = None,
) -> None:
    text = (
        f"**<sub><sub>![{badge} Badge](https://img.shields.io/badge/{badge}-orange?style=flat)"
        f"</sub></sub>  {title}**\n\nExplanation of the problem."
    )
    fake.add_review_comment(
        2, login=CODEX, body=text, path=path, line=line, commit_id=head, review_id=review_id
    )


def test_two_findings_with_one_title_in_one_file_are_accepted_one_by_one(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    run = Runs(fake, tmp_path)
    codex_finding(fake, "a.py", "Unchecked input", "P1", HEAD, line=10, review_id=901)
    codex_finding(fake, "a.py", "Unchecked input", "P1", HEAD, line=300, review_id=901)
    first = verdict_of(run())
    assert sorted(f["line"] for f in first["critical"]) == [10, 300]
    assert len({e.stable_id for e in record(fake).findings}) == 2
    f1 = next(f for f in first["critical"] if f["id"] == "F1")
    fake.set_permission("mona", "maintain")
    fake.add_issue_comment(
        2, login="mona", user_type="User", body="/review-coordinator accept F1 wontfix: known"
    )
    # Attack (the old shared entry): accepting F1 accepted its twin too.
    second = verdict_of(run())
    assert [a["line"] for a in second["accepted"]] == [f1["line"]]
    assert [f["line"] for f in second["critical"]] != [] and second["gate"] == "block"
    # Control: accepting the other one too lets the gate go.
    fid = second["critical"][0]["id"]
    fake.add_issue_comment(
        2, login="mona", user_type="User", body=f"/review-coordinator accept {fid} wontfix: also"
    )
    assert verdict_of(run())["gate"] == "go"


def shown(v: dict[str, Any], fid: str) -> str:
    return next(str(f["title"]) for f in [*v["critical"], *v["advisory"]] if f["id"] == fid)


def test_a_command_typed_while_a_push_renumbers_binds_to_the_ids_its_author_saw(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    run = Runs(fake, tmp_path)
    codex_finding(fake, "a.py", "Alpha problem", "P2", HEAD)
    codex_finding(fake, "b.py", "Beta problem", "P2", HEAD)
    first = verdict_of(run())
    then = shown(first, "F2")
    (sticky,) = stickies(fake)
    seen_at = datetime.fromisoformat(sticky["updated_at"].replace("Z", "+00:00"))
    fake.push(2, NEW_HEAD, ["c.py"])
    codex_finding(fake, "c.py", "Gamma crash", "P1", NEW_HEAD)
    second = verdict_of(run())
    assert shown(second, "F2") != then  # the new critical moved the F ids
    fake.set_permission("mona", "maintain")
    # mona typed it while the first revision was shown (her comment predates the second).
    typed = (seen_at + timedelta(seconds=1)).isoformat().replace("+00:00", "Z")
    fake.add_issue_comment(
        2,
        login="mona",
        user_type="User",
        body="/review-coordinator accept F2 wontfix: known",
        created_at=typed,
    )
    third = verdict_of(run())
    assert [a["title"] for a in third["accepted"]] == [then]
    # Control: the same command typed now binds to today's F2.
    today = shown(third, "F2")
    fake.add_issue_comment(
        2, login="mona", user_type="User", body="/review-coordinator accept F2 wontfix: also"
    )
    fourth = verdict_of(run())
    assert sorted(a["title"] for a in fourth["accepted"]) == sorted([then, today])


def test_a_bot_comment_edited_by_the_pr_author_keeps_gating(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    run = Runs(fake, tmp_path)
    bug = cursor_bug(fake, HEAD)
    assert run().outputs["gate"] == "block"
    # Attack: the PR author (write access) edits Bugbot's finding down to Low.
    lowered = bug["body"].replace("**High Severity**", "**Low Severity**")
    fake.edit_review_comment(bug["id"], lowered, editor=AUTHOR)
    attacked = run()
    v = verdict_of(attacked)
    assert attacked.outputs["gate"] == "block" and [f["severity"] for f in v["critical"]] == [
        "critical"
    ]
    assert any("shown as edited" in n["note"] for n in v["parse_notes"])
    assert "shown as edited" in sticky_body(fake)
    noop = run()  # the noop keeps holding it (from the record): still block
    assert NOOP in noop.log and noop.outputs["gate"] == "block"
    assert record(fake).held


def test_a_bot_lowering_its_own_finding_is_its_word(fake: FakeGitHub, tmp_path: Path) -> None:
    """Control: the same edit by Bugbot itself."""
    run = Runs(fake, tmp_path)
    bug = cursor_bug(fake, HEAD)
    run()
    fake.edit_review_comment(
        bug["id"], bug["body"].replace("**High Severity**", "**Low Severity**")
    )
    v = verdict_of(run())
    assert v["critical"] == [] and not any("shown as edited" in n["note"] for n in v["parse_notes"])


def test_an_unreadable_edit_history_fails_closed(fake: FakeGitHub, tmp_path: Path) -> None:
    run = Runs(fake, tmp_path)
    cursor_bug(fake, HEAD)
    fake.set_permission("mona", "maintain")
    run()
    mine = fake.add_issue_comment(2, login="mona", user_type="User", body="Reading it.")
    fake.edit_issue_comment(mine["id"], "/review-coordinator accept F1 wontfix: known")
    fake.inject("POST", r"/graphql", status=500, times=100, query_contains="userContentEdits")
    failed = run_action(fake, tmp_path / "x", inputs=dict(INPUTS))
    assert failed.outputs["gate"] == "error", failed.log
    assert "comment edit history" in failed.log
    fake.clear_faults()
    # Control: readable again, the command (edited by its author only) counts.
    ok = run()
    assert ok.outputs["gate"] == "go", verdict_of(ok)["command_notes"]
