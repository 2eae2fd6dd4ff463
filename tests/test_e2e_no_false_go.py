"""End to end (entrypoint.py against the fake GitHub): the bot-profile routes of issue 15 "No
false go" — a finding quoting a notice, a person named like a bot, a refusal read as a
withdrawal, Claude's critical layouts — never give `go`; beside each, its control."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e_support import CLAUDE, HEAD, Run, body, run_action, stickies
from tests.e2e_support import verdict_of as checked_verdict
from tests.fakegithub import FakeGitHub

pytestmark = pytest.mark.e2e

GREPTILE = "greptile-apps[bot]"
CODERABBIT = "coderabbitai[bot]"
FINISHED = (
    "**Claude finished @octocat's task in 2m 3s** —— [View job](https://github.com/x)\n\n---\n"
)
CLAUDE_CRITICAL_QUOTING_SKIP = FINISHED + (
    "## Code Review\n\n### 🔴 Critical Issues\n\n"
    "#### 1. Secret token written to the log in `src/log.py:7`\n"
    "The new line logs the token:\n\n"
    "```python\nlog('⚠️ **Code review skipped** — your spend limit has been reached')\n```\n"
)
GREPTILE_P0 = (
    '<a href="#"><img alt="P0" src="https://greptile-static-assets.s3.amazonaws.com/badges/'
    'p0.svg?v=9" align="top"></a> **Unsafe exception-state iteration**\n\nIt crashes.'
)
AFFIRMATIVE = "That context resolves the concern, so I’m withdrawing this finding."


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as gh:
        gh.add_pull(2, head_sha=HEAD)
        yield gh


def verdict_of(run: Run) -> dict[str, Any]:
    return checked_verdict(run, exit_ok=True)


def test_claude_critical_quoting_code_review_skipped_blocks(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    fake.add_issue_comment(2, login=CLAUDE, body=CLAUDE_CRITICAL_QUOTING_SKIP)
    verdict = verdict_of(run_action(fake, tmp_path, inputs={"expected-bots": "claude"}))
    assert verdict["gate"] == "block"
    (finding,) = verdict["critical"]
    assert (finding["title"], finding["file"], finding["line"]) == (
        "Secret token written to the log in `src/log.py:7`",
        "src/log.py",
        7,
    )
    assert verdict["bots"]["claude"]["state"] == "reviewed"


def test_control_claudes_real_skip_notice_is_still_a_notice(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    fake.add_review(2, login=CLAUDE, body=body("L_qoax_skipped"), commit_id=HEAD)
    verdict = verdict_of(run_action(fake, tmp_path, inputs={"expected-bots": "claude"}))
    assert verdict["bots"]["claude"]["state"] == "failed" and verdict["critical"] == []
    assert verdict["unreviewed"] == ["claude"]


def test_coderabbit_critical_quoting_review_limit_reached_blocks(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    finding = (
        "_⚠️ Potential issue_ | _🔴 Critical_\n\n**Rate limiter bypassed by a header.**\n\n"
        "The handler answers:\n\n```\n> ## Review limit reached\nReview limit reached\n```\n"
    )
    fake.add_review_comment(2, login=CODERABBIT, body=finding, path="src/rate.py", line=12)
    verdict = verdict_of(run_action(fake, tmp_path, inputs={"expected-bots": "coderabbit"}))
    assert verdict["gate"] == "block"
    assert [f["title"] for f in verdict["critical"]] == ["Rate limiter bypassed by a header."]


def test_a_user_named_claude_never_satisfies_require_bots(fake: FakeGitHub, tmp_path: Path) -> None:
    fake.add_review(2, login="claude", body=body("L_cca1078_lgtm"), commit_id=HEAD,
                    user_type="User")  # fmt: skip
    inputs = {"expected-bots": "claude", "require-bots": "claude"}
    verdict = verdict_of(run_action(fake, tmp_path, inputs=inputs))
    assert verdict["gate"] == "block" and verdict["settled_on"] == []
    assert verdict["impostors"] == {"claude": "claude"}
    (sticky,) = stickies(fake)
    assert sticky["body"].count("`claude` is not Claude") == 1


def test_control_the_claude_app_satisfies_require_bots(fake: FakeGitHub, tmp_path: Path) -> None:
    fake.add_review(2, login=CLAUDE, body=body("L_cca1078_lgtm"), commit_id=HEAD)
    inputs = {"expected-bots": "claude", "require-bots": "claude"}
    verdict = verdict_of(run_action(fake, tmp_path, inputs=inputs))
    assert verdict["gate"] == "go" and verdict["settled_on"] == ["claude"]
    assert verdict["impostors"] == {}
    (sticky,) = stickies(fake)
    assert "is not Claude" not in sticky["body"]


@pytest.mark.parametrize(
    ("login", "user_type", "reply", "gate"),
    [
        ("greptile-apps", "User", AFFIRMATIVE, "block"),  # a person named like Greptile
        (GREPTILE, "Bot", "I will not withdraw this finding; the crash is real.", "block"),
        (GREPTILE, "Bot", AFFIRMATIVE, "go"),  # control: Greptile's own withdrawal
    ],
)
def test_only_greptile_itself_withdraws_its_p0_and_only_affirmatively(
    fake: FakeGitHub, tmp_path: Path, login: str, user_type: str, reply: str, gate: str
) -> None:
    root = fake.add_review_comment(2, login=GREPTILE, body=GREPTILE_P0, path="src/a.py", line=3)
    fake.add_review_comment(2, login=login, body=reply, path="src/a.py", line=3,
                            in_reply_to_id=root["id"], user_type=user_type)  # fmt: skip
    verdict = verdict_of(run_action(fake, tmp_path, inputs={"expected-bots": "greptile"}))
    assert verdict["gate"] == gate


def test_a_copilot_finding_mentioning_fixed_in_a_sha_is_judged(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    text = "This retries forever when the server is down; it was fixed in 0c66f2d and came back."
    root = fake.add_review_comment(2, login="Copilot", body=text, path="src/net.py", line=8)
    verdict = verdict_of(run_action(fake, tmp_path, inputs={"expected-bots": "copilot"}))
    assert [(f["file"], f["line"]) for f in verdict["advisory"]] == [("src/net.py", 8)]
    # Control: the coding agent's reply in that thread (Z41's shape) stays chatter.
    fake.add_review_comment(2, login="Copilot", body=body("Z41"), path="src/net.py", line=8,
                            in_reply_to_id=root["id"])  # fmt: skip
    again = verdict_of(run_action(fake, tmp_path / "2", inputs={"expected-bots": "copilot"}))
    assert len(again["advisory"]) == 1
