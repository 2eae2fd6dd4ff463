"""Issue 23 routes 6-10 and issue 28, end to end: `python entrypoint.py` against the fake GitHub.

Nothing a person deletes or edits turns a recorded critical green (the record's trusted copy
lives in our own check run); who we are comes only from GitHub's word about our token; no
outsider can fill the record's bounds; one finding is one entry; a command binds to the last
sticky revision published strictly before it. Each attack sits beside its control.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from reviewcoord.history import decode
from tests.e2e_support import HEAD, NEW_HEAD, Run, run_action, stickies, verdict_of
from tests.fakegithub import FakeGitHub
from tests.test_cycles_e2e import AUTHOR, INPUTS, cursor_bug, record, sticky_body
from tests.test_e2e_trust import codex_finding, forge_all_accepted
from tests.workflow_support import dispatch

pytestmark = pytest.mark.e2e

NOOP = "nothing new since"
MAINTAINER = "mona"


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as gh:
        gh.add_pull(2, head_sha=HEAD)
        gh.set_commit_files(HEAD, ["mise.lock", "src/app.py"])
        gh.enable_graphql()
        gh.set_permission(MAINTAINER, "maintain")
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

    def dispatched(self, inputs: dict[str, str] | None = None) -> Run:
        """A maintainer runs the workflow by hand for PR 2."""
        return self(
            event="workflow_dispatch", payload=dispatch(2), inputs={**(inputs or {}), "pr": "2"}
        )


def accept(fake: FakeGitHub, fid: str, created_at: str | None = None) -> dict[str, Any]:
    return fake.add_issue_comment(
        2,
        login=MAINTAINER,
        user_type="User",
        body=f"/review-coordinator accept {fid} wontfix: known",
        created_at=created_at,
    )


def void_the_record(fake: FakeGitHub) -> None:
    """What anyone with write access can do: edit our sticky (here: one space more)."""
    (sticky,) = stickies(fake)
    fake.edit_issue_comment(sticky["id"], sticky["body"] + " ", editor=AUTHOR)


def titles(v: dict[str, Any]) -> list[str]:
    return [str(f["title"]) for f in v["critical"]]


# --- route 6: delete the finding, then void the record ---------------------------------------


def test_a_deleted_finding_keeps_gating_as_deleted_not_fixed(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    run = Runs(fake, tmp_path)
    bug = cursor_bug(fake, HEAD)
    assert run().outputs["gate"] == "block"
    fake.delete_comment(bug["id"])
    v = verdict_of(run())
    assert v["gate"] == "block" and len(v["critical"]) == 1
    assert any("deleted by someone, not fixed" in n["note"] for n in v["parse_notes"])
    assert "deleted by someone, not fixed" in sticky_body(fake)
    # Control: someone allowed to accept it accepts it.
    accept(fake, "F1")
    assert verdict_of(run())["gate"] == "go"


def test_deleting_a_finding_then_voiding_the_record_never_goes(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    run = Runs(fake, tmp_path)
    bug = cursor_bug(fake, HEAD)
    first = verdict_of(run())
    assert first["gate"] == "block"
    fake.delete_comment(bug["id"])
    # Attack: the PR author (write access) edits our sticky: its record is discarded.
    void_the_record(fake)
    attacked = verdict_of(run())
    assert attacked["gate"] == "block" and attacked["gate_reason"].startswith("held:")
    assert titles(attacked) == titles(first)  # the record came back from our check run
    assert "edited by @octocat" in (attacked["history_notice"] or "")
    assert "restored from our check run" in sticky_body(fake)
    # Any later run that nobody allowed asked for keeps it held (a person's comment).
    fake.add_issue_comment(2, login=AUTHOR, user_type="User", body="ping")
    still = verdict_of(run())
    assert still["gate"] == "block" and still["gate_reason"].startswith("held:")
    # A maintainer's workflow_dispatch judges again from the trusted record: the deleted
    # finding still gates (deleted by someone, not fixed), no longer held.
    again = verdict_of(run.dispatched())
    assert titles(again) == titles(first) and not again["gate_reason"].startswith("held:")
    # Control: accepting it lets the gate go.
    accept(fake, "F1")
    assert verdict_of(run())["gate"] == "go"


def test_a_record_voided_without_a_deletion_is_held_until_a_bot_reviews_again(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    run = Runs(fake, tmp_path)
    codex_finding(fake, "a.py", "Unchecked input", "P2", HEAD)
    assert verdict_of(run())["gate"] == "go"  # a medium finding: go
    void_the_record(fake)
    held = verdict_of(run())
    assert held["gate"] == "block" and held["gate_reason"].startswith("held:")
    # The reviewers' next review (here Codex's, posted after the held verdict) releases it.
    codex_finding(fake, "b.py", "Another note", "P3", HEAD, review_id=902)
    assert verdict_of(run())["gate"] == "go"


def greptile_p0_with_a_reply(fake: FakeGitHub) -> dict[str, Any]:
    """Greptile's P0 on src/a.py and its own first reply in the thread (returned)."""
    from tests.test_e2e_no_false_go import GREPTILE, GREPTILE_P0

    root = fake.add_review_comment(2, login=GREPTILE, body=GREPTILE_P0, path="src/a.py", line=3)
    return fake.add_review_comment(
        2, login=GREPTILE, body="Thanks, looking.", path="src/a.py", line=3,
        in_reply_to_id=root["id"],
    )  # fmt: skip


def test_a_bots_reply_edited_into_a_withdrawal_then_the_record_voided_never_goes(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    """Route 6's variant: the PR author edits Greptile's own reply in its thread into a
    withdrawal, then voids the record. The run restores the record from our check run and
    does not go; the dispatch after it judges from that record, and the withdrawal someone else
    wrote counts for nothing (an edit never makes a signal newer)."""
    from tests.test_e2e_no_false_go import AFFIRMATIVE

    run = Runs(fake, tmp_path)
    inputs = {"expected-bots": "greptile"}
    reply = greptile_p0_with_a_reply(fake)
    first = verdict_of(run(inputs=inputs))
    assert first["gate"] == "block"
    # Control: the record intact, nobody's edit voids anything (a person's comment: no change).
    fake.add_issue_comment(2, login=AUTHOR, user_type="User", body="ping")
    assert verdict_of(run(inputs=inputs))["gate"] == "block"
    # Attack: Greptile's reply edited by the PR author into a withdrawal, then the record voided.
    fake.edit_review_comment(reply["id"], AFFIRMATIVE, editor=AUTHOR)
    void_the_record(fake)
    attacked = verdict_of(run(inputs=inputs))
    assert attacked["gate"] == "block" and attacked["held"], attacked
    assert "restored from our check run" in (attacked["history_notice"] or "")
    assert [e.title for e in record(fake).findings] == titles(first)
    # A maintainer's dispatch judges again from the restored record: the withdrawal someone
    # else wrote into Greptile's reply withdraws nothing, the P0 still gates.
    again = verdict_of(run.dispatched(inputs=inputs))
    assert again["gate"] == "block" and not again["held"] and titles(again) == titles(first)


@pytest.mark.parametrize(
    ("login", "user_type", "gate"),
    [("greptile-apps", "User", "block"), ("greptile-apps[bot]", "Bot", "go")],
    ids=["a-person-named-like-greptile", "control-greptile-itself"],
)
def test_greptiles_withdrawal_after_the_first_verdict_withdraws_a_recorded_finding(
    fake: FakeGitHub, tmp_path: Path, login: str, user_type: str, gate: str
) -> None:
    """A withdrawal usually answers the author's reply, so it comes after the finding is in the
    record: the recorded finding is then withdrawn (likely fixed), not carried forward as a
    finding no comment reports any more. Only Greptile's own reply does that."""
    from tests.test_e2e_no_false_go import AFFIRMATIVE, GREPTILE, GREPTILE_P0

    assert login == GREPTILE or user_type == "User"
    run = Runs(fake, tmp_path)
    inputs = {"expected-bots": "greptile"}
    root = fake.add_review_comment(2, login=GREPTILE, body=GREPTILE_P0, path="src/a.py", line=3)
    assert verdict_of(run(inputs=inputs))["gate"] == "block"
    fake.add_review_comment(2, login=login, body=AFFIRMATIVE, path="src/a.py", line=3,
                            in_reply_to_id=root["id"], user_type=user_type)  # fmt: skip
    assert verdict_of(run(inputs=inputs))["gate"] == gate


def test_control_greptiles_own_edit_into_a_withdrawal_withdraws_after_the_dispatch(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    """The control of route 6's variant, discriminating: the same steps, but Greptile edits its
    own reply into the withdrawal. The voided record is still held until the dispatch; the
    dispatch then judges from the restored record, and the bot's own withdrawal counts: go."""
    from tests.test_e2e_no_false_go import AFFIRMATIVE, GREPTILE

    run = Runs(fake, tmp_path)
    inputs = {"expected-bots": "greptile"}
    reply = greptile_p0_with_a_reply(fake)
    assert verdict_of(run(inputs=inputs))["gate"] == "block"
    fake.edit_review_comment(reply["id"], AFFIRMATIVE, editor=GREPTILE, editor_type="Bot")
    void_the_record(fake)
    held = verdict_of(run(inputs=inputs))
    assert held["gate"] == "block" and held["held"], held
    again = verdict_of(run.dispatched(inputs=inputs))
    assert again["gate"] == "go" and not again["held"], again


def test_our_sticky_deleted_is_restored_from_our_check_run(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    run = Runs(fake, tmp_path)
    bug = cursor_bug(fake, HEAD)
    first = verdict_of(run())
    fake.delete_comment(bug["id"])
    # Attack: delete the finding's comment and our sticky: "judged again from its comments".
    (sticky,) = stickies(fake)
    fake.delete_comment(sticky["id"])
    attacked = verdict_of(run())
    assert attacked["gate"] == "block" and titles(attacked) == titles(first)
    assert "gone" in (attacked["history_notice"] or "")
    # Control: a first run on a PR (no sticky, no check run of ours) is no deletion.
    fake.add_pull(3, head_sha=NEW_HEAD)
    fresh = run_action(fake, tmp_path / "fresh", inputs={**INPUTS, "pr": "3"})
    assert fresh.returncode == 0, fresh.log
    assert verdict_of(fresh)["history_notice"] is None


def test_the_check_run_carries_the_same_record_as_the_sticky(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    run = Runs(fake, tmp_path)
    cursor_bug(fake, HEAD)
    run()
    (ours,) = fake.check_runs(HEAD)
    line = str(ours["output"]["text"]).split("\n", 1)[0]
    assert line == sticky_body(fake).split("\n")[1]
    copy, notice = decode(f"x\n{line}\n", repo=fake.repo, pr=2)
    assert notice is None and copy == record(fake)
    assert len(ours["output"]["text"]) <= 65_535


def test_a_forged_record_is_discarded_and_the_run_never_goes(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    """The old attack (issue 15 #6), now also held: the forged "all accepted" record is
    replaced by our check run's copy."""
    run = Runs(fake, tmp_path)
    cursor_bug(fake, HEAD)
    run()
    (sticky,) = stickies(fake)
    fake.edit_issue_comment(sticky["id"], forge_all_accepted(fake), editor=AUTHOR)
    v = verdict_of(run())
    assert v["gate"] == "block" and v["accepted"] == [] and len(v["critical"]) == 1
    assert record(fake).findings[0].status == "open"


# --- issue 28: a command in the same second as a new revision ---------------------------------


def iso(t: datetime) -> str:
    return t.isoformat().replace("+00:00", "Z")


def sticky_time(fake: FakeGitHub) -> datetime:
    (sticky,) = stickies(fake)
    return datetime.fromisoformat(str(sticky["updated_at"]).replace("Z", "+00:00"))


@pytest.mark.parametrize(("delay", "accepts"), [(0, "b.py"), (1, "a.py")])
def test_a_command_binds_to_the_revision_published_strictly_before_it(
    fake: FakeGitHub, tmp_path: Path, delay: int, accepts: str
) -> None:
    """Revision 1: F1 a.py, F2 b.py. A push; revision 2 renumbers: F1 0.py, F2 a.py, F3 b.py.
    `accept F2` created in revision 2's second was typed while revision 1 was on screen: it
    accepts b.py (the attack on the old rule); one second later it means revision 2's F2."""
    run = Runs(fake, tmp_path)
    codex_finding(fake, "a.py", "Alpha crash", "P1", HEAD)
    codex_finding(fake, "b.py", "Beta crash", "P1", HEAD)
    first = verdict_of(run())
    assert [f["file"] for f in first["critical"]] == ["a.py", "b.py"]
    revision_1 = sticky_time(fake)
    fake.push(2, NEW_HEAD, ["0.py"])
    codex_finding(fake, "0.py", "Zero crash", "P0", NEW_HEAD)
    second = verdict_of(run())
    assert [f["file"] for f in second["critical"]] == ["0.py", "a.py", "b.py"]
    published = sticky_time(fake)
    accept(fake, "F2", created_at=iso(published + timedelta(seconds=delay)))
    third = verdict_of(run())
    assert [a["file"] for a in third["accepted"]] == [accepts]
    bound_to = published if delay else revision_1
    assert third["accepted"][0]["revision"] == bound_to.isoformat()
    assert f"answering the verdict of {bound_to.isoformat()}" in sticky_body(fake)


# --- route 7: whose sticky it is comes only from what we created ------------------------------

MY_APP = "my-app-token"  # a dedicated GitHub App installation token: writes as my-app[bot]


def look_alike(fake: FakeGitHub, sha: str, *, app: str, app_id: int, done: bool = True) -> int:
    """A check run named like ours by another App (a look-alike App; `github-actions` for a
    fork's or a PR branch's job named `review-coordinator`)."""
    return fake.add_bot_check_run(
        sha,
        "review-coordinator",
        app_slug=app,
        app_id=app_id,
        status="completed" if done else "in_progress",
        conclusion="success" if done else None,
    )


def forged_sticky(fake: FakeGitHub, login: str) -> None:
    """A sticky with our marker and a record of this PR that knows no finding, by `login`."""
    from reviewcoord.history import History, encode
    from tests.e2e_support import MARKER

    clean = History(repo=fake.repo, pr=2, heads=[HEAD], cycle=1, gate="go")
    fake.add_issue_comment(2, login=login, body=f"{MARKER}\n{encode(clean)}\n✅ go")


def test_a_look_alike_apps_check_run_never_makes_its_sticky_ours(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    run = Runs(fake, tmp_path)
    bug = cursor_bug(fake, HEAD)
    assert run().outputs["gate"] == "block"
    fake.delete_comment(bug["id"])  # the finding now lives in our record only
    # Control: without the look-alike, the record keeps it.
    assert run().outputs["gate"] == "block"
    # Attack: an App named like us makes a newer check run named ours, and posts a sticky whose
    # record knows no finding; one more of its runs sits in progress (never ours to adopt).
    look_alike(fake, HEAD, app="review-coordinator-app", app_id=777)
    forged_sticky(fake, "review-coordinator-app[bot]")
    pending = look_alike(fake, HEAD, app="review-coordinator-app", app_id=777, done=False)
    fake.add_issue_comment(2, login=AUTHOR, user_type="User", body="ping")  # judged, no noop
    attacked = run()
    v = verdict_of(attacked)
    assert v["gate"] == "block" and len(v["critical"]) == 1, attacked.log
    assert "identity: github-actions[bot]" in attacked.log
    runs = {r["id"]: r for r in fake.check_runs(HEAD)}
    assert runs[pending]["status"] == "in_progress"  # never adopted: another App's
    ours = [r for r in runs.values() if r["app"]["slug"] == "github-actions"]
    assert max(ours, key=lambda r: r["id"])["conclusion"] == "failure"


def test_a_fork_job_named_like_us_never_loses_our_record(fake: FakeGitHub, tmp_path: Path) -> None:
    """We run as a dedicated App; a job of the github-actions App named `review-coordinator`
    (a fork's, a PR branch's) must not make us github-actions[bot] and lose our sticky."""
    fake.add_token(MY_APP, "my-app[bot]", user_endpoint=False)
    run = Runs(fake, tmp_path)
    cursor_bug(fake, HEAD)
    assert run(token=MY_APP).outputs["gate"] == "block"
    assert stickies(fake)[0]["user"]["login"] == "my-app[bot]"
    look_alike(fake, HEAD, app="github-actions", app_id=15368)
    accept(fake, "F1")
    ok = run(token=MY_APP)
    v = verdict_of(ok)
    assert v["gate"] == "go" and v["accepted"][0]["accepted_by"] == MAINTAINER, ok.log
    assert "no trustworthy review history" not in ok.log
    # Control: the record is ours, and the noop after it trusts it too.
    assert NOOP in run(token=MY_APP).log


# --- route 8: a declared reviewer may not be us -----------------------------------------------

OUR_LOGIN_AS_REVIEWER = """
reviewers:
  house:
    logins: ['github-actions[bot]']
    reviewed: ['go']
"""


def test_a_declared_reviewer_with_our_own_login_is_refused(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    fake.set_file(".github/review-coordinator.yml", "main", OUR_LOGIN_AS_REVIEWER)
    inputs = {"expected-bots": "house", "require-bots": "house"}
    refused = run_action(fake, tmp_path / "gh", inputs=inputs)
    assert refused.returncode == 2 and refused.outputs.get("gate") in (None, "error"), refused.log
    assert "reviewers.house.logins" in refused.log and "own identity" in refused.log
    (check,) = fake.check_runs(HEAD)
    assert check["conclusion"] == "failure"
    # Control: under a dedicated App token we are my-app[bot]; github-actions[bot] is another
    # account (a workflow's), so the same reviewer is accepted — and our sticky is not its review.
    fake.add_token(MY_APP, "my-app[bot]", user_endpoint=False)
    ok = run_action(fake, tmp_path / "app", inputs=inputs, token=MY_APP)
    v = verdict_of(ok, declared=["house"])
    assert ok.returncode == 0 and v["gate"] == "block", ok.log  # house has not reviewed
    assert v["bots"]["house"]["state"] != "reviewed"


# --- route 9: bounds no outsider can fill ------------------------------------------------------


def test_no_flood_of_replies_pushes_a_maintainers_acceptance_out(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    from reviewcoord.history import MAX_REFS

    run = Runs(fake, tmp_path)
    cursor_bug(fake, HEAD)
    run()
    accept(fake, "F1")
    assert verdict_of(run())["gate"] == "go"
    # Attack: the PR author posts MAX_REFS + 1 replies naming F1; each becomes a binding.
    for i in range(MAX_REFS + 1):
        fake.add_issue_comment(2, login=AUTHOR, user_type="User", body=f"F1 later ({i})")
    flooded = verdict_of(run())
    assert flooded["gate"] == "go" and len(flooded["accepted"]) == 1
    again = verdict_of(run())  # the next run reads the bounded record back
    assert again["gate"] == "go" and not any("void" in n for n in again["command_notes"])
    assert len(record(fake).refs) <= MAX_REFS + 1
    # Control: the maintainer's acceptance is what holds it (deleting it blocks again).
    (command,) = [c for c in fake.issue_comments(2) if c["body"].startswith("/review-coordinator")]
    fake.delete_comment(command["id"])
    assert verdict_of(run())["gate"] == "block"


# --- route 10: one finding, one stable id, one entry -------------------------------------------


def test_two_live_findings_with_one_title_from_two_reviews_are_two_entries(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    run = Runs(fake, tmp_path)
    codex_finding(fake, "a.py", "Unchecked input", "P1", HEAD, line=10, review_id=901)
    assert len(verdict_of(run())["critical"]) == 1
    fake.push(2, NEW_HEAD, ["b.py"])
    # A later review on the new head: the same title in the same file at line 300; the thread
    # at line 10 is still live (its lines did not change).
    codex_finding(fake, "a.py", "Unchecked input", "P1", NEW_HEAD, line=300, review_id=902)
    second = verdict_of(run())
    assert sorted(f["line"] for f in second["critical"]) == [10, 300]
    assert len({e.stable_id for e in record(fake).findings}) == 2
    f1 = next(f for f in second["critical"] if f["id"] == "F1")
    accept(fake, "F1")
    third = verdict_of(run())
    assert [a["line"] for a in third["accepted"]] == [f1["line"]] and third["gate"] == "block"


def test_one_finding_reported_again_where_the_code_moved_stays_one_entry(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    """Control: the same finding reported again on a new head, its old thread outdated."""
    run = Runs(fake, tmp_path)
    codex_finding(fake, "a.py", "Unchecked input", "P1", HEAD, line=10, review_id=901)
    run()
    accept(fake, "F1")
    assert verdict_of(run())["gate"] == "go"
    fake.push(2, NEW_HEAD, ["a.py"])
    (old,) = fake.review_comments(2)
    fake.outdate_review_comment(old["id"])
    codex_finding(fake, "a.py", "Unchecked input", "P1", NEW_HEAD, line=40, review_id=902)
    v = verdict_of(run())
    assert v["gate"] == "go" and len(v["accepted"]) == 1 and v["critical"] == []
    assert len({e.stable_id for e in record(fake).findings}) == 1


def test_two_alerts_of_a_hyphenated_source_are_accepted_one_by_one(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    """The `-2` suffix collapse: code scanning's key has a hyphen; two alerts of one rule in
    one file are two entries, each accepted on its own."""
    fake.set_file(".github/review-coordinator.yml", "main", "code-scanning: true\n")
    for line in (12, 240):
        fake.add_code_scanning_alert(
            2,
            rule_id="py/sql-injection",
            security_severity_level="high",
            path="src/db.py",
            start_line=line,
        )
    fake.add_code_scanning_analysis(2)
    run = Runs(fake, tmp_path)
    first = verdict_of(run())
    assert sorted(f["line"] for f in first["critical"]) == [12, 240]
    assert len({e.stable_id for e in record(fake).findings}) == 2
    accept(fake, "F1")
    second = verdict_of(run())
    assert len(second["accepted"]) == 1 and len(second["critical"]) == 1
    accept(fake, second["critical"][0]["id"])
    assert verdict_of(run())["gate"] == "go"
