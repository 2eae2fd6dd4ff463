"""A broken config file on the base branch never locks the repository and never silently weakens
it (docs/troubleshooting.md § The config file is invalid): the PR is judged under the file's last
valid version on the base branch (else the defaults), and the broken file — its key and line —
is named on every surface. A PR's own edit of the file never judges that PR; its sticky says
what the edit would change."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e_support import CODEX, CURSOR, HEAD, body, cursor_clean, run_action, stickies
from tests.fakegithub import FakeGitHub

CONFIG = ".github/review-coordinator.yml"
VALID = "expected-bots: [cursor]\nrequire-bots: [cursor]\n"
BROKEN = "expected-bots: [cursor]\ngroup-windw: 9\nrequire-bots: [cursor]\n"  # a typo, line 2
FIXED = "expected-bots: [cursor]\ngroup-window: 9\nrequire-bots: [cursor]\n"


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as gh:
        gh.add_pull(2, head_sha=HEAD)
        gh.add_review(2, login=CURSOR, body=cursor_clean(HEAD), commit_id=HEAD)
        yield gh


def surfaces(fake: FakeGitHub, run_stdout: str, summary: str) -> dict[str, str]:
    (sticky,) = stickies(fake)
    check = max(fake.check_runs(HEAD), key=lambda r: r["id"])
    return {
        "sticky": sticky["body"],
        "check run": f"{check['output']['title']}\n{check['output']['summary']}",
        "commit status": fake.statuses(HEAD)[-1]["description"],
        "job summary": summary,
        "log": run_stdout,
    }


def test_the_pr_that_fixes_a_broken_config_goes_green_under_the_last_valid_one(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    valid = fake.commit_file(CONFIG, "main", VALID)
    fake.commit_file(CONFIG, "main", BROKEN)
    fake.set_file(CONFIG, fake.merge_commit(2), FIXED)  # the PR fixes the typo
    run = run_action(fake, tmp_path)
    assert run.returncode == 0, run.log
    assert run.outputs["gate"] == "go" and run.outputs["settled-on"] == "cursor"
    # Judged under the last valid version (require-bots: cursor), never the PR's own.
    assert fake.statuses(HEAD)[-1]["state"] == "success"
    status = fake.statuses(HEAD)[-1]["description"]
    assert status.startswith(f"go (config file invalid: {CONFIG} line 2; see the sticky): ")
    assert len(status) <= 140
    for name, text in surfaces(fake, run.stdout, run.summary).items():
        flat = " ".join(text.split())
        if name == "commit status":  # 140 characters: the file and line (above), not the key
            continue
        assert CONFIG in flat and "group-windw" in flat and "line 2" in flat, name
        assert "did you mean 'group-window'" in flat, name
        assert f"last valid version ({CONFIG} at {valid[:7]})" in flat, name
    assert f"::error file={CONFIG},line=2::" in run.stdout
    # The PR's edit is described, not applied.
    sticky = " ".join(stickies(fake)[0]["body"].split())
    assert f"This PR changes `{CONFIG}`; it is judged under the base branch's copy" in sticky
    assert "`group-window`: `5` → `9`" in sticky


def test_the_last_valid_policy_still_blocks_never_a_silent_weakening(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    """Control for the above: the last valid version requires Codex, which has not reviewed:
    the broken file does not fall back to the defaults (which require nobody)."""
    fake.commit_file(CONFIG, "main", "require-bots: [codex]\n")
    fake.commit_file(CONFIG, "main", "require-bots: [codex]\nsettle: sometimes\n")
    run = run_action(fake, tmp_path, inputs={"settle": "none"})
    assert run.returncode == 0, run.log
    assert run.outputs["gate"] == "block"
    assert "required bot codex has not reviewed" in run.outputs["gate-reason"]
    assert "line 2, key 'settle'" in " ".join(stickies(fake)[0]["body"].split())


def test_without_a_valid_earlier_version_the_defaults_judge_and_say_so(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    fake.commit_file(CONFIG, "main", "settle: [full\n")  # never valid: not even YAML
    fake.add_issue_comment(2, login=CODEX, body=body("X_clean_swish"))
    run = run_action(fake, tmp_path)
    assert run.returncode == 0, run.log
    assert run.outputs["gate"] == "go"
    flat = " ".join(stickies(fake)[0]["body"].split())
    assert "not valid YAML" in flat and "the defaults (no valid earlier version" in flat


def test_a_prs_own_config_never_judges_it(fake: FakeGitHub, tmp_path: Path) -> None:
    """The base branch requires Codex; the PR drops the requirement in its own copy: it still
    blocks, and the sticky says what the PR's copy would change once merged."""
    fake.set_file(CONFIG, "main", "require-bots: [codex]\n")
    fake.set_file(CONFIG, fake.merge_commit(2), "require-bots: []\n")
    run = run_action(fake, tmp_path, inputs={"settle": "none"})
    assert run.returncode == 0, run.log
    assert run.outputs["gate"] == "block"
    flat = " ".join(stickies(fake)[0]["body"].split())
    assert "`require-bots`: `[codex]` → `[]`" in flat
    assert "config file on the base branch is invalid" not in flat


def test_a_pr_leaving_the_config_alone_reads_it_once_more_and_says_nothing(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    fake.set_file(CONFIG, "main", VALID)
    fake.set_file(CONFIG, HEAD, "require-bots: [codex]\n")  # branched before the base's edit
    fake.set_file(CONFIG, fake.merge_commit(2), VALID)  # merging leaves the base's copy
    run = run_action(fake, tmp_path)
    assert run.returncode == 0, run.log
    assert "This PR changes" not in stickies(fake)[0]["body"]
    reads = [r for r in fake.request_log() if "/contents/" in r.path]
    assert len(reads) == 2  # the base branch's copy, and the merge commit's
    # Judged once on this head with nothing to say: a later run reads it no more.
    fake.add_issue_comment(2, login="octocat", user_type="User", body="thanks")
    again = run_action(fake, tmp_path / "2")
    assert again.returncode == 0, again.log
    assert len([r for r in fake.request_log() if "/contents/" in r.path]) == 3


@pytest.mark.parametrize(
    ("content", "shown"),
    [
        ("settle: none\n".encode("utf-16"), None),  # UTF-16 with its byte-order mark: read
        (b"\xef\xbb\xbfsettle: none\n", None),  # UTF-8 with a byte-order mark: read
        ("settle: none\n".encode("utf-16-le"), "UTF-16 without a byte-order mark"),
        (b"settle: caf\xe9\n", "is not UTF-8 text (line 1)"),
    ],
)
def test_encodings_are_read_or_refused_in_plain_words(
    fake: FakeGitHub, tmp_path: Path, content: bytes, shown: str | None
) -> None:
    fake.commit_file(CONFIG, "main", content)
    run = run_action(fake, tmp_path)
    assert run.returncode == 0, run.log
    flat = " ".join(stickies(fake)[0]["body"].split())
    if shown is None:
        assert "invalid" not in flat and "settle `none`" in run.summary
    else:
        assert shown in flat and "codec" not in flat


def test_once_fixed_the_next_run_drops_the_warning_then_noops_again(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    """Nothing new on the PR, but its sticky still warns: the run after the fix judges again
    (a noop would leave the warning standing); the one after it is a noop."""
    fake.commit_file(CONFIG, "main", VALID)
    fake.commit_file(CONFIG, "main", BROKEN)
    first = run_action(fake, tmp_path / "1")
    assert "config file on the base branch is invalid" in stickies(fake)[0]["body"], first.log
    fake.commit_file(CONFIG, "main", VALID)  # the fix is merged: the settings are as before
    second = run_action(fake, tmp_path / "2")
    assert "nothing new since" not in second.log
    assert "config file on the base branch is invalid" not in stickies(fake)[0]["body"]
    writes = len(_writes(fake))
    third = run_action(fake, tmp_path / "3")
    assert "nothing new since" in third.log
    assert len(_writes(fake)) == writes


def _writes(fake: FakeGitHub) -> list[object]:
    """Every write so far (GraphQL `viewer`, who our token is, is a POST that reads)."""
    return [r for r in fake.request_log() if r.method != "GET" and r.route != "/graphql"]


def test_a_long_config_path_is_shown_by_its_end_within_the_status() -> None:
    from reviewcoord.resolve import MAX_PATH_SHOWN, ConfigUsed

    deep = "config/" * 20 + "review-coordinator.yml"
    where = ConfigUsed("bad", "the defaults", 7, None, deep).where
    assert where is not None and where.endswith("review-coordinator.yml line 7")
    assert len(where) <= MAX_PATH_SHOWN + len("… line 7")
    assert ConfigUsed(path=deep).where is None  # a valid file: nothing to say
