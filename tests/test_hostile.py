"""Hostile input, end to end: bot bodies, titles and paths, event payloads, config files and
replay snapshots written to break the action. Each one gets a clear error or a safe rendering;
none crashes, hangs, pings anyone, or lets text escape its place in the sticky comment.

(a) bot comments carrying every hostile item → `python entrypoint.py` against the fake GitHub;
(b) event payloads that are not JSON, not objects, miss keys or have wrong types;
(c) config files on the base branch: wrong types, unknown keys, YAML bombs, 1 MB, not UTF-8;
(d) replay snapshots with hostile shapes → exit 2 and one line.

The render-level version of (a) is tests/test_render.py; the property version, over random whole
snapshots, is tests/test_fuzz_pipeline.py. Timing is never asserted.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reviewcoord import cli
from reviewcoord.config import parse_config_file
from reviewcoord.errors import ConfigError
from tests.e2e_support import (
    CLAUDE,
    CODEX,
    COPILOT,
    COPILOT_REVIEWER,
    CURSOR,
    HEAD,
    MARKER,
    body,
    parse_outputs,
    run_action,
)
from tests.fakegithub import FakeGitHub
from tests.markdown_support import outside_code
from tests.verdict_contract import check_verdict

ACTIONS_BOT = "github-actions[bot]"
COMMENT_LIMIT = 65_536
CONFIG = ".github/review-coordinator.yml"
OUR_EMOJI = "🧑\u200d⚖️"

# Every '<' the renderers may write themselves; any other '<' came from input.
OUR_TAGS = re.compile(r"<(?:!-- review-coordinator-verdict -->|/?(?:details|summary|sub|code)>)")
# The sticky's own hidden history record (reviewcoord/history.py): line 2, base64 only.
HISTORY_LINE = re.compile(r"<!-- review-coordinator-history v\d+ z:[A-Za-z0-9+/=]* -->")
# What GitHub turns into a notification or a cross-reference outside code.
LINKABLE = re.compile(r"@[A-Za-z0-9]|#[0-9]|(?i:\bGH-[0-9])")
# What GitHub turns into a link outside code (GFM extended autolinks), and our own links'
# targets (`[label](https://…)`), the only URLs we write.
AUTOLINK = re.compile(r"(?i)\b(?:https?://|www\.)")
OUR_LINK_TARGET = re.compile(r"\]\(https://[^)\s]*\)")
# NUL and other controls, zero-width, bidi embeddings/overrides/isolates, BOM, lone surrogates.
# (U+2060 WORD JOINER is allowed: the renderer puts it after '@' and '#' on purpose.)
FORBIDDEN_CHARS = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff\ud800-\udfff]"
)

HOSTILE_LINE = (
    "@octocat @org/team cc @admin #1 GH-2 owner/repo#3 &#64;octocat &lt;b&gt; "
    "<!-- review-coordinator-verdict --> </details></summary><details><summary>pwned</summary> "
    "<img src=x onerror=alert(1)> <script>alert(1)</script> <a href='https://evil.example'>x</a> "
    "<!-- hidden --> \x00 NUL \u200b ZW \u200d \u202e RLO \u2066 LRI \ufeff BOM \ud800 "
    "``` ~~~ | a | b | [x](javascript:alert(1)) ![i](https://evil.example/i.png) *em* _u_ $x$ "
    "<!-- unclosed"
)
HOSTILE_BLOCK = (
    f"{HOSTILE_LINE}\n"
    "```python\nunbalanced fence, never closed\n"
    "| a | b |\n|---|---|\n| 1 | 2 |\n"
    "# Heading\n> quote\n1. list\n- item\n===\n"
    "::error::pwned\n::stop-commands::tok\n"
    "</details>\n<!-- review-coordinator-verdict -->\n"
)
HOSTILE_PATHS = [
    "src/@octocat/`x`|y</details>.ts",
    "a\u202eb\u200b.py",
    "```\n# x|y",
    "<!-- review-coordinator-verdict -->.py",
]


def forbidden_chars(text: str) -> re.Match[str] | None:
    # Our own heading's emoji is a ZWJ sequence; no input may bring one.
    return FORBIDDEN_CHARS.search(text.replace(OUR_EMOJI, ""))


def assert_safe_markdown(text: str, *, sticky: bool) -> None:
    """A rendered surface (sticky, check summary, job summary) shows the hostile text inertly."""
    assert len(text) <= COMMENT_LIMIT
    if sticky:
        assert text.split("\n", 1)[0] == MARKER
        assert text.count(MARKER) == 1
        lines = text.split("\n")
        if len(lines) > 1 and HISTORY_LINE.fullmatch(lines[1]):
            text = "\n".join([lines[0], *lines[2:]])
    assert text.count("<!--") == (1 if sticky else 0)
    assert "<" not in OUR_TAGS.sub("", text), "a raw '<' from input"
    assert text.count("<details>") == text.count("</details>")
    assert text.count("<summary>") == text.count("</summary>")
    assert not forbidden_chars(text)
    plain = outside_code(text)
    assert not LINKABLE.search(plain), LINKABLE.search(plain)
    assert not AUTOLINK.search(OUR_LINK_TARGET.sub("", plain)), "a bare URL would autolink"
    assert "@\u2060octocat" in plain  # defused, not dropped
    for line in text.split("\n"):
        assert not line.lstrip().startswith(("```", "~~~", "|", "::", "> ", "===")), line
        if line.startswith("#"):
            assert line.startswith(
                (
                    "## 🧑‍⚖️ Review verdict",
                    "### Critical (",
                    "### Advisory (",
                    "### What unblocks this",
                )
            ), line
    assert "javascript:" not in text.replace("javascript:alert", "")
    assert "](https://evil.example" not in text


# --- (a) hostile bot comments, end to end ------------------------------------------------------


def cursor_body(title: str, desc: str) -> str:
    """Bugbot's inline shape (corpus C_jdx12718_aur228)."""
    return (
        f"### {title}\n\n**High Severity**\n\n<!-- DESCRIPTION START -->\n{desc}\n"
        "<!-- DESCRIPTION END -->\n\n<!-- BUGBOT_BUG_ID: f5760c56-f895-4123-8ec2-8a1141db34b1 -->\n"
    )


def codex_body(title: str, desc: str) -> str:
    """Codex's badge shape (corpus Z27)."""
    return (
        "**<sub><sub>![P1 Badge](https://img.shields.io/badge/P1-orange?style=flat)</sub></sub>  "
        f"{title}**\n\n{desc}\n\nUseful? React with 👍 / 👎."
    )


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as gh:
        gh.add_pull(2, head_sha=HEAD, title=f"PR {HOSTILE_LINE}")
        yield gh


def hostile_pr(fake: FakeGitHub) -> list[dict[str, Any]]:
    """Every bot's shapes carrying every hostile item; returns the humans' comments."""
    title = HOSTILE_LINE
    fake.add_review_comment(
        2, login=CURSOR, body=cursor_body(title, HOSTILE_BLOCK), path=HOSTILE_PATHS[0], line=3
    )
    fake.add_review_comment(
        2, login=CODEX, body=codex_body(title, HOSTILE_BLOCK), path=HOSTILE_PATHS[1], line=10**9
    )
    # Copilot plain prose, 1 MB: hostile text, then a megabyte of pathological Markdown.
    big = HOSTILE_BLOCK + ("<!--" + "`" * 7 + "[" + "@x " + "|" + "\u202e") * 70_000
    assert len(big) > 1_000_000
    fake.add_review_comment(2, login=COPILOT, body=big, path=HOSTILE_PATHS[2], line=5)
    fake.add_review_comment(
        2, login=CLAUDE, body=f"🔴 {HOSTILE_BLOCK}", path=HOSTILE_PATHS[3], line=-4
    )
    fake.add_review(2, login=COPILOT_REVIEWER, body=body("Z12"), commit_id=HEAD)
    fake.add_review(2, login=CURSOR, body=f"{HOSTILE_BLOCK}\n" * 3, commit_id=HEAD)
    fake.add_issue_comment(2, login=CODEX, body=HOSTILE_BLOCK)
    fake.add_issue_comment(2, login="x</details>@octocat[bot]", body=HOSTILE_BLOCK)
    fake.add_issue_comment(2, login="octocat", user_type="User", body=f"human {HOSTILE_BLOCK}")
    # A human forging our marker: never edited, never counted as our sticky.
    fake.add_issue_comment(2, login="mallory", user_type="User", body=f"{MARKER}\nfake go ✅")
    return fake.issue_comments(2)


def ours(fake: FakeGitHub) -> list[dict[str, Any]]:
    return [c for c in fake.issue_comments(2) if c["user"]["login"] == ACTIONS_BOT]


@pytest.mark.e2e
def test_hostile_bot_comments_end_to_end(fake: FakeGitHub, tmp_path: Path) -> None:
    humans = hostile_pr(fake)
    run = run_action(fake, tmp_path)
    assert run.returncode == 0, run.log
    assert run.outputs["gate"] == "block"
    assert int(run.outputs["critical-count"]) >= 3  # Cursor High, Codex P1, Claude 🔴

    # exactly one sticky, ours, marker first and once, every hostile item inert
    (sticky,) = ours(fake)
    assert_safe_markdown(sticky["body"], sticky=True)

    # the humans' comments (and the forged sticky) are exactly as they were
    others = [c for c in fake.issue_comments(2) if c["user"]["login"] != ACTIONS_BOT]
    assert others == humans
    assert not any(
        r.method in ("PATCH", "DELETE") and str(c["id"]) in r.path
        for r in fake.request_log()
        for c in humans
    )

    # the other surfaces: check run, commit status, annotations, job summary, verdict file
    (check,) = fake.check_runs(HEAD)
    assert check["conclusion"] == "failure"
    assert_safe_markdown(check["output"]["summary"], sticky=False)
    for a in check["annotations"]:
        assert a["path"] in HOSTILE_PATHS and not FORBIDDEN_CHARS.search(a["path"])
        assert a["start_line"] >= 1
        for key in ("title", "message"):
            assert not FORBIDDEN_CHARS.search(a[key].replace("\n", " "))
            assert all(ord(ch) <= 0xFFFF for ch in a[key])
    status = fake.statuses(HEAD)[-1]
    assert status["state"] == "failure" and len(status["description"]) <= 140
    assert not FORBIDDEN_CHARS.search(status["description"])
    assert_safe_markdown(run.summary, sticky=False)
    verdict = json.loads(Path(run.outputs["verdict-file"]).read_text(encoding="utf-8"))
    check_verdict(verdict)

    # no workflow command smuggled into the log from a bot's text
    for line in run.stdout.splitlines():
        assert not line.startswith(("::stop-commands", "::error::pwned")), line


@pytest.mark.e2e
def test_rerun_updates_the_one_sticky_and_nothing_else(fake: FakeGitHub, tmp_path: Path) -> None:
    humans = hostile_pr(fake)
    first = run_action(fake, tmp_path / "1")
    second = run_action(fake, tmp_path / "2")
    assert (first.returncode, second.returncode) == (0, 0), second.log
    (sticky,) = ours(fake)
    assert_safe_markdown(sticky["body"], sticky=True)
    assert [c for c in fake.issue_comments(2) if c["user"]["login"] != ACTIONS_BOT] == humans


# --- (b) event payloads ------------------------------------------------------------------------


def action_env(fake: FakeGitHub, tmp: Path, event_path: Path, **inputs: str) -> dict[str, str]:
    out = tmp / "github_output"
    out.write_text("")
    (tmp / "summary").write_text("")
    env = {
        "GITHUB_ACTIONS": "true",
        "GITHUB_API_URL": fake.base_url,
        "GITHUB_REPOSITORY": fake.repo,
        "GITHUB_EVENT_NAME": inputs.pop("event", "pull_request"),
        "GITHUB_EVENT_PATH": str(event_path),
        "GITHUB_OUTPUT": str(out),
        "GITHUB_STEP_SUMMARY": str(tmp / "summary"),
        "RUNNER_TEMP": str(tmp),
        "REVIEWCOORD_WRITE_SPACING": "0",
        "INPUT_GITHUB-TOKEN": "app-token",
        "INPUT_SETTLE": "none",
    }
    env.update({f"INPUT_{k.upper().replace('_', '-')}": v for k, v in inputs.items()})
    return env


def run_in_process(
    capsys: pytest.CaptureFixture[str], env: dict[str, str]
) -> tuple[int, list[str], str]:
    """`cli.main` as entrypoint.py calls it: exit code, stdout lines, stderr."""
    code = cli.main([], environ=env)
    captured = capsys.readouterr()
    return code, captured.out.splitlines(), captured.err


DEEP = "[" * 100_000 + "]" * 100_000
BAD_PAYLOADS: dict[str, tuple[str, bytes | str]] = {
    "not json": ("pull_request", "{not json"),
    "empty file": ("pull_request", ""),
    "array": ("pull_request", "[]"),
    "null": ("pull_request", "null"),
    "string": ("pull_request", '"pull_request"'),
    "not utf-8": ("pull_request", b'{"pull_request": {"number": 2, "title": "\xff\xfe"}}'),
    "nested too deep": ("pull_request", DEEP),
    "5000-digit number": ("pull_request", '{"pull_request": {"number": ' + "9" * 5000 + "}}"),
    "missing keys": ("pull_request", "{}"),
    "pull_request not an object": ("pull_request_target", '{"pull_request": [2]}'),
    "number a string": ("pull_request", '{"pull_request": {"number": "two"}}'),
    "number a bool": ("pull_request", '{"pull_request": {"number": true}}'),
    "number a float": ("pull_request", '{"pull_request": {"number": 2.5}}'),
    "number negative": ("pull_request", '{"pull_request": {"number": -2}}'),
    "number zero": ("pull_request", '{"number": 0}'),
    "number 2**64": ("pull_request", '{"pull_request": {"number": 18446744073709551616}}'),
    "number superscript": ("pull_request", '{"pull_request": {"number": "\\u00b2"}}'),
    "issue not an object": ("issue_comment", '{"issue": "2"}'),
    "issue number missing": ("issue_comment", '{"issue": {"pull_request": {"url": "u"}}}'),
    "issue number a list": (
        "issue_comment",
        '{"issue": {"pull_request": {"x": 1}, "number": [2]}}',
    ),
    "dispatch without pr": ("workflow_dispatch", '{"inputs": {}}'),
    "unknown event": ("push", '{"pull_request": {"number": 2}}'),
    "huge (> 25 MB)": ("pull_request", b'{"pad": "' + b"x" * (25 * 1024 * 1024 + 16) + b'"}'),
}


@pytest.mark.parametrize("name", sorted(BAD_PAYLOADS))
def test_bad_event_payload_is_one_error_line_and_no_request(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    event, content = BAD_PAYLOADS[name]
    path = tmp_path / "event.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    with FakeGitHub() as fake:
        fake.add_pull(2, head_sha=HEAD)
        code, out, err = run_in_process(capsys, action_env(fake, tmp_path, path, event=event))
        assert code == 2, (out, err)
        errors = [line for line in out if line.startswith("::error")]
        assert len(errors) == 1 and len(errors[0]) < 400, out
        assert err == ""  # no traceback, no "internal error"
        assert fake.request_log() == []


@pytest.mark.parametrize("pr", ["²", "-1", "0", "1e3", "#", "99999999999", "2; rm -rf /", "٢"])
def test_bad_pr_input_is_one_error_line(
    pr: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "event.json"
    path.write_text('{"inputs": {}}')
    with FakeGitHub() as fake:
        env = action_env(fake, tmp_path, path, event="workflow_dispatch", pr=pr)
        code, out, err = run_in_process(capsys, env)
        assert code == 2 and err == "", (out, err)
        assert [line for line in out if line.startswith("::error")], out
        assert fake.request_log() == []


@pytest.mark.e2e
def test_bad_event_through_entrypoint(tmp_path: Path) -> None:
    """The same through `python entrypoint.py`: the process, not only `main`, exits cleanly."""
    with FakeGitHub() as fake:
        fake.add_pull(2, head_sha=HEAD)
        for i, payload in enumerate(["{not json", DEEP, '{"pull_request": {"number": "x"}}']):
            event = tmp_path / f"event{i}.json"
            event.write_text(payload)
            run = run_action(fake, tmp_path / str(i), payload=str(event))
            assert run.returncode == 2, run.log
            assert [x for x in run.stdout.splitlines() if x.startswith("::error::")], run.log
            assert "Traceback" not in run.log and "internal error" not in run.log
        assert fake.request_log() == []


# --- (c) config files on the base branch -------------------------------------------------------

BOMB = "\n".join(
    ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    + [
        f"{c}: &{c} [{','.join([f'*{p}'] * 9)}]"
        for p, c in zip("abcdefgh", "bcdefghi", strict=True)
    ]
)
BAD_CONFIGS: dict[str, tuple[str, str]] = {
    # name: (file text, what the error must say besides the file)
    "unknown key": ("sette: full\n", "key 'sette': unknown key"),
    "wrong type int": ("fast-timeout: [1]\n", "key 'fast-timeout'"),
    "wrong type bool as int": ("poll-interval: true\n", "key 'poll-interval'"),
    "wrong type string as bool": ("merge-patience: maybe\n", "key 'merge-patience'"),
    "wrong enum": ("settle: slow\n", "key 'settle': allowed"),
    "negative": ("fast-timeout: -5\n", "key 'fast-timeout'"),
    "infinite": ("fast-timeout: .inf\n", "key 'fast-timeout'"),
    "5000 digits": ("fast-timeout: " + "9" * 5000 + "\n", "not valid YAML"),
    "severity level": ("severity:\n  cursor:\n    Low Severity: blocker\n", "severity.cursor"),
    "severity not a map": ("severity: [critical]\n", "key 'severity'"),
    "unknown bot": ("expected-bots: [codex, skynet]\n", "key 'expected-bots': unknown bot"),
    "run-only key": ("repo: evil/repo\n", "key 'repo': set per run"),
    "not a mapping": ("- settle: full\n", "must be a mapping"),
    "duplicate key": ("settle: full\nsettle: none\n", "'settle' appears twice"),
    "anchors": ("base: &b full\nsettle: *b\n", "anchors and aliases"),
    "alias bomb": (BOMB, "anchors and aliases"),
    "merge key": ("x: &x {settle: full}\n<<: *x\n", "anchors and aliases"),
    "python tag": ("settle: !!python/object/apply:os.system ['id']\n", "not valid YAML"),
    "deep nesting": ("a: " + "[" * 30_000 + "]" * 30_000 + "\n", "nested deeper"),
    "NUL": ("settle: full\x00\n", "holds NUL bytes"),
    "1 MB": ("# " + "x" * (1 << 20) + "\n", "larger than"),
    "unterminated": ("settle: [full\n", "not valid YAML"),
}


@pytest.mark.parametrize("name", sorted(BAD_CONFIGS))
def test_bad_config_file_parse_names_file_and_key(name: str) -> None:
    text, message = BAD_CONFIGS[name]
    with pytest.raises(ConfigError) as info:
        parse_config_file(text, CONFIG)
    assert str(info.value).startswith(f"{CONFIG}: ")
    assert message in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("name", sorted(BAD_CONFIGS))
def test_bad_config_file_is_named_on_every_surface_never_a_lock(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A broken config file on the base branch, without a valid earlier version: the PR is
    judged under the defaults (docs/troubleshooting.md), and the file and the problem are on
    every surface, rendered inertly whatever the file holds."""
    text, message = BAD_CONFIGS[name]
    with FakeGitHub() as fake:
        fake.add_pull(2, head_sha=HEAD)
        fake.add_review_comment(2, login=CODEX, body=body("Z27"), path="a.rs", line=3)
        fake.set_file(CONFIG, "main", text)
        event = Path(__file__).parent / "fixtures/payloads/pull_request.opened.json"
        code, out, err = run_in_process(capsys, action_env(fake, tmp_path, event))
        assert code == 0 and err == "", err
        outputs = parse_outputs((tmp_path / "github_output").read_text())
        assert outputs["gate"] in ("block", "go")
        verdict = json.loads(Path(outputs["verdict-file"]).read_text(encoding="utf-8"))
        warning = verdict["config_warning"]
        assert CONFIG in warning and message in warning and "the defaults" in warning
        (check,) = fake.check_runs(HEAD)
        assert "config file invalid" in check["output"]["title"]
        status = fake.statuses(HEAD)[-1]
        assert "config file invalid" in status["description"] and len(status["description"]) <= 140
        (sticky,) = ours(fake)
        for shown in (check["output"]["summary"], sticky["body"].split("\n", 2)[2]):
            assert len(shown) <= COMMENT_LIMIT and CONFIG in shown
            assert "> [!WARNING]" in shown and "<" not in OUR_TAGS.sub("", shown)
            assert not forbidden_chars(shown) and shown.count("<!--") == 0
        assert sticky["body"].count(MARKER) == 1
        assert any(line.startswith(f"::error file={CONFIG}") for line in out)


@pytest.mark.e2e
def test_config_not_utf8_is_refused_in_plain_words(tmp_path: Path) -> None:
    with FakeGitHub() as fake:
        fake.add_pull(2, head_sha=HEAD)
        fake.set_file(CONFIG, "main", b"settle: \xff\xfe full\n")  # GitHub serves its bytes
        run = run_action(fake, tmp_path)
        assert run.returncode == 0, run.log
        verdict = json.loads(Path(run.outputs["verdict-file"]).read_text(encoding="utf-8"))
        assert "is not UTF-8 text (line 1): save it as UTF-8" in verdict["config_warning"]
        assert [s["state"] for s in fake.statuses(HEAD)][-1] == "success"
        assert "Traceback" not in run.log and "codec" not in run.log


# --- (d) replay snapshots ----------------------------------------------------------------------


def snapshot(**overrides: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "format": 1,
        "repo": "octo/app",
        "pull": {"number": 2, "head": {"sha": HEAD}},
        "reviews": [],
        "issue_comments": [],
        "review_comments": [],
    }
    data.update(overrides)
    return data


def inline(**fields: Any) -> dict[str, Any]:
    item: dict[str, Any] = {
        "id": 7,
        "user": {"login": CURSOR, "type": "Bot"},
        "body": cursor_body("Title", "desc"),
        "path": "a.py",
        "line": 3,
    }
    item.update(fields)
    return item


def js(data: Any) -> str:
    return json.dumps(data)


BAD_SNAPSHOTS: dict[str, str | bytes] = {
    "not json": "{",
    "empty": "",
    "not utf-8": b'{"repo": "\xff"}',
    "array": "[]",
    "null": "null",
    "nested 100k deep": DEEP,
    "nested deep inside": js(snapshot())[:-1] + ', "x": ' + "[" * 5000 + "]" * 5000 + "}",
    "5000-digit id": js(snapshot(review_comments=[inline()])).replace(
        '"id": 7', '"id": ' + "9" * 5000
    ),
    "Infinity line": js(snapshot(review_comments=[inline()])).replace(
        '"line": 3', '"line": Infinity'
    ),
    "NaN id": js(snapshot(review_comments=[inline()])).replace('"id": 7', '"id": NaN'),
    "float line": js(snapshot(review_comments=[inline(line=2.5)])),
    "string line": js(snapshot(review_comments=[inline(line="3")])),
    "bool id": js(snapshot(review_comments=[inline(id=True)])),
    "item a string": js(snapshot(review_comments=["x"])),
    "item null": js(snapshot(reviews=[None])),
    "item a list": js(snapshot(issue_comments=[[1, 2]])),
    "list a dict": js(snapshot(reviews={"0": inline()})),
    "body a number": js(snapshot(review_comments=[inline(body=5)])),
    "body a dict": js(snapshot(review_comments=[inline(body={"text": "x"})])),
    "login a number": js(snapshot(review_comments=[inline(user={"login": 5})])),
    "time not ISO": js(snapshot(review_comments=[inline(created_at="yesterday")])),
    "time a number": js(snapshot(review_comments=[inline(created_at=1700000000)])),
    "repo missing": js({k: v for k, v in snapshot().items() if k != "repo"}),
    "repo a list": js(snapshot(repo=["octo", "app"])),
    "pull missing": js({k: v for k, v in snapshot().items() if k != "pull"}),
    "pull a string": js(snapshot(pull="2")),
    "pull number a string": js(snapshot(pull={"number": "2", "head": {"sha": HEAD}})),
    "head sha missing": js(snapshot(pull={"number": 2, "head": []})),
    "other PR": js(snapshot(pull={"number": 3, "head": {"sha": HEAD}})),
}


@pytest.mark.parametrize("name", sorted(BAD_SNAPSHOTS))
def test_bad_snapshot_exits_2_with_one_line(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "pr.json"
    content = BAD_SNAPSHOTS[name]
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    code = cli.main(["2", "--replay", str(path)], environ={})
    captured = capsys.readouterr()
    assert code == 2, captured.err
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("reviewcoord: error: "), lines
    assert len(lines[0]) < 400


HOSTILE_BUT_VALID: dict[str, Any] = {
    "huge line": snapshot(review_comments=[inline(line=10**30, original_line=-(10**30))]),
    "huge id": snapshot(review_comments=[inline(id=10**40)]),
    "negative and zero lines": snapshot(
        review_comments=[inline(id=1, line=-1), inline(id=2, line=0, start_line=-5)]
    ),
    "user a list": snapshot(review_comments=[inline(user=[1])]),
    "lone surrogates": snapshot(
        review_comments=[inline(body=cursor_body("t \ud800", "\udfff"), path="\ud800.py")]
    ),
    "hostile pull": snapshot(
        repo="octo/<!--x-->@octocat",
        pull={"number": 2, "head": {"sha": f"{MARKER} @octocat"}, "title": HOSTILE_LINE},
    ),
    "hostile urls": snapshot(
        review_comments=[
            inline(html_url="javascript:alert(1)"),
            inline(id=8, html_url="https://a@b"),
        ]
    ),
    "hostile everything": snapshot(
        review_comments=[
            inline(id=i, body=b(HOSTILE_LINE, HOSTILE_BLOCK), path=p, user={"login": login})
            for i, (b, p, login) in enumerate(
                [
                    (cursor_body, HOSTILE_PATHS[0], CURSOR),
                    (codex_body, HOSTILE_PATHS[1], CODEX),
                    (lambda t, d: d, HOSTILE_PATHS[2], COPILOT),
                    (lambda t, d: f"🔴 {t}\n{d}", HOSTILE_PATHS[3], CLAUDE),
                ],
                start=1,
            )
        ],
        issue_comments=[
            {"id": 9, "user": {"login": "x</details>[bot]", "type": "Bot"}, "body": HOSTILE_LINE}
        ],
    ),
}


@pytest.mark.parametrize("name", sorted(HOSTILE_BUT_VALID))
def test_hostile_but_valid_snapshot_renders_safely(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "pr.json"
    path.write_text(json.dumps(HOSTILE_BUT_VALID[name]), encoding="utf-8")
    code = cli.main(["2", "--replay", str(path), "--format", "both"], environ={})
    captured = capsys.readouterr()
    assert code == 0, captured.err
    sticky, _, verdict_json = captured.out.partition("\n---\n\n")
    check_verdict(json.loads(verdict_json))
    assert sticky.split("\n", 1)[0] == MARKER and sticky.count(MARKER) == 1
    assert "<" not in OUR_TAGS.sub("", HISTORY_LINE.sub("", sticky))
    assert sticky.count("<details>") == sticky.count("</details>")
    assert not forbidden_chars(sticky)
    assert not LINKABLE.search(outside_code(sticky))


# --- a bot cannot silence itself by forging our marker ---------------------------------------


def test_a_bot_comment_opening_with_our_marker_is_still_judged() -> None:
    from reviewcoord.ingest import ingest
    from reviewcoord.model import RawComment

    comment = RawComment(
        endpoint="review_comment",
        id=1,
        author_login=CURSOR,
        author_type="Bot",
        body=f"{MARKER}\n" + cursor_body("Null dereference in parse", "desc"),
        path="a.py",
        line=3,
        html_url="https://github.com/octo/app/pull/2#discussion_r1",
    )
    ingested = ingest([comment], head_sha=HEAD, own_login=ACTIONS_BOT)
    assert [f.severity_raw for f in ingested.findings] == ["High Severity"]
