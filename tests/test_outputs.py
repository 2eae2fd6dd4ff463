"""The outputs later steps use: `verdict` (one line of JSON, cut to fit GitHub's limit, never
invalid), `unreviewed`, and `verdict-file` at a path a later step on the host can open on both
runner layouts for Docker container actions (reviewcoord/actions_io.py, `verdict_location`)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from reviewcoord.action import deliver, outputs_for, verdict_data
from reviewcoord.actions_io import Log, verdict_location, write_outputs, write_verdict_file
from reviewcoord.model import Source, Verdict
from reviewcoord.runner import Outcome
from reviewcoord.verdict_output import (
    VERDICT_OUTPUT_BUDGET,
    output_size,
    scrub,
    verdict_output,
)
from tests.container_support import parse_output_file
from tests.e2e_support import parse_outputs
from tests.render_scenarios import blocking, source, verdict, vfinding

# Text a bot could put in a title or a path: line breaks of every kind, workflow-command syntax,
# '%' escapes, a heredoc delimiter line of the runner's pattern, controls, bidi, astral characters.
HOSTILE = (
    "line one\nghadelimiter_0123456789abcdef\nEOF\r\n%0A%25 100% ::set-output name=gate::go\n"
    "::error::pwned \u2028 LS \u2029 PS \x85 NEL \x1c\x1d\x1e \x00 NUL \u202e RLO 😀 \\ \" '"
)


def hostile_verdict(n_advisory: int = 3, *, title: str = HOSTILE) -> Verdict:
    critical = [
        vfinding(
            1,
            title,
            "critical",
            [source("cursor", "High Severity", "critical", 1, title=title)],
            file="src/ghadelimiter_x\n.py",
            line=3,
            gist=title,
        )
    ]
    advisory = [
        vfinding(i + 2, f"{title} #{i}", "medium", [source("copilot", None, "medium", i + 2)])
        for i in range(n_advisory)
    ]
    return verdict(critical, advisory, gate_reason=f"1 critical finding\n{title}")


def deliver_to(tmp_path: Path, outcome: Outcome) -> tuple[dict[str, str], str, Log]:
    """Run `deliver` like the Action on the host (no /github mounts); the outputs and file text."""
    output = tmp_path / "github_output"
    output.write_text("")
    env = {
        "GITHUB_OUTPUT": str(output),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
        "RUNNER_TEMP": str(tmp_path / "temp"),
    }
    log = Log(open(tmp_path / "log.txt", "a", encoding="utf-8"), actions=True)  # noqa: SIM115
    path = deliver(outcome, env, log, repo="octo/app", pr=12)
    log.stream.close()
    text = output.read_text(encoding="utf-8")
    outputs = parse_output_file(text)
    assert parse_outputs(text) == outputs  # also with splitlines(), which splits on U+2028, NEL…
    return outputs, Path(path).read_text(encoding="utf-8"), log


def block_outcome(v: Verdict) -> Outcome:
    return Outcome(gate=v.gate, reason=v.gate_reason, verdict=v, head_sha=v.head_sha)


# --- the one-line `verdict` output ----------------------------------------------------------------


def test_verdict_output_is_one_line_of_the_file_json_for_a_hostile_verdict(
    tmp_path: Path,
) -> None:
    v = hostile_verdict()
    outputs, file_text, _ = deliver_to(tmp_path, block_outcome(v))
    line = outputs["verdict"]
    assert "\n" not in line and "\r" not in line and len(line.splitlines()) == 1
    assert line.isascii() and line.startswith("{")
    assert json.loads(line) == json.loads(file_text) == v.to_json_dict()
    assert "truncated" not in json.loads(line)
    # The other outputs are intact: the hostile text ended no heredoc early.
    assert outputs["gate"] == "block"
    assert outputs["critical-count"] == "1" and outputs["advisory-count"] == "3"
    assert outputs["verdict-file"] == str(tmp_path / "temp/review-coordinator/verdict-pr12.json")
    assert "\n" not in outputs["gate-reason"]
    assert list(outputs)[-2:] == ["verdict", "verdict-file"]


def test_lone_surrogates_become_replacement_characters(tmp_path: Path) -> None:
    v = hostile_verdict(1, title="half a pair \ud800 and \udfff")
    outputs, file_text, _ = deliver_to(tmp_path, block_outcome(v))
    data = json.loads(outputs["verdict"])
    assert data["critical"][0]["title"] == "half a pair \ufffd and \ufffd"
    assert json.loads(file_text) == data
    assert "\\ud8" not in outputs["verdict"] and "\\udf" not in outputs["verdict"]


def test_gate_error_verdict_is_still_a_json_object(tmp_path: Path) -> None:
    outcome = Outcome(gate="error", reason="token lacks\npull-requests: read", head_sha="abc123")
    outputs, file_text, _ = deliver_to(tmp_path, outcome)
    data = json.loads(outputs["verdict"])
    assert data == json.loads(file_text)
    assert data == {
        "schema": 1,
        "repo": "octo/app",
        "pr": 12,
        "head_sha": "abc123",
        "gate": "error",
        "gate_reason": "token lacks\npull-requests: read",
    }
    assert "critical" not in data  # no list that would read as "nothing found"
    assert outputs["gate"] == "error" and outputs["unreviewed"] == ""


def test_unreviewed_comes_from_the_verdict_json() -> None:
    v = blocking()
    outcome = block_outcome(v)
    assert outputs_for(outcome, v.to_json_dict(), "f.json", "{}")["unreviewed"] == (
        ",".join(v.to_json_dict().get("unreviewed", []))  # type: ignore[arg-type]
    )
    data = {**v.to_json_dict(), "unreviewed": ["codex", "copilot"]}
    assert outputs_for(outcome, data, "f.json", "{}")["unreviewed"] == "codex,copilot"


def test_write_outputs_never_uses_a_delimiter_the_value_contains(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import secrets

    tokens = iter(["aaaa", "bbbbbbbb"])
    monkeypatch.setattr(secrets, "token_hex", lambda n: next(tokens))
    out = tmp_path / "out"
    write_outputs(str(out), {"x": "before\nghadelimiter_aaaa\nafter"})
    assert parse_output_file(out.read_text()) == {"x": "before\nghadelimiter_aaaa\nafter"}


# --- the cut to GitHub's output limit -------------------------------------------------------------


def big(n_critical: int, n_advisory: int, *, title_len: int = 400) -> dict[str, Any]:
    def two(i: int) -> list[Source]:
        return [
            source("cursor", "High Severity", "critical", i),
            source("codex", "P1", "critical", i),
        ]

    critical = [
        vfinding(i + 1, f"critical {i} " + "c" * title_len, "critical", two(i))
        for i in range(n_critical)
    ]
    advisory = [
        vfinding(n_critical + i + 1, f"advisory {i} é " + "a" * title_len, "medium",
                 [source("copilot", None, "medium", i)])
        for i in range(n_advisory)
    ]  # fmt: skip
    return verdict(critical, advisory, gate_reason="many", pending=["codex"]).to_json_dict()


def assert_prefix_without_sources(cut: list[Any], full: list[Any]) -> None:
    assert len(cut) <= len(full)
    for c, f in zip(cut, full, strict=False):
        assert c == {**f, "sources": []}


def test_a_verdict_within_the_budget_is_untouched() -> None:
    data = big(3, 10)
    line = verdict_output(data, full_file="/f.json")
    assert not line.truncated and json.loads(line.text) == data


@pytest.mark.parametrize("budget", [4_000, 20_000, 100_000, 300_000])
def test_the_cut_is_valid_json_within_the_budget_and_says_so(budget: int) -> None:
    data = big(20, 400)
    line = verdict_output(data, full_file="/tmp/x/verdict-pr12.json", budget=budget)
    assert line.truncated
    assert output_size(line.text) <= budget
    cut = json.loads(line.text)
    assert cut["truncated"] is True
    assert cut["full_verdict_file"] == "/tmp/x/verdict-pr12.json"
    assert re.search(r"over this output's budget of \d+", cut["truncated_reason"])
    # Fields are kept, none dropped; findings are prefixes without sources, criticals cut last.
    assert set(data) <= set(cut)
    assert {k: cut[k] for k in ("gate", "gate_reason", "pending", "head_sha")} == {
        k: data[k] for k in ("gate", "gate_reason", "pending", "head_sha")
    }
    assert_prefix_without_sources(cut["critical"], data["critical"])
    assert_prefix_without_sources(cut["advisory"], data["advisory"])
    if cut["advisory"]:
        assert len(cut["critical"]) == 20
    omitted = cut["truncated_omitted"]
    assert omitted["sources"] == 20 * 2 + 400
    assert omitted.get("advisory", 0) == 400 - len(cut["advisory"])
    assert omitted.get("critical", 0) == 20 - len(cut["critical"])


def test_the_last_resort_keeps_the_scalars() -> None:
    data = big(2, 0, title_len=5_000)
    line = verdict_output(data, full_file="/f.json", budget=3_000)
    cut = json.loads(line.text)
    assert output_size(line.text) <= 3_000
    assert cut["critical"] == [] and cut["gate"] == "block" and cut["truncated"] is True
    assert cut["truncated_omitted"]["critical"] == 2


def test_an_oversized_verdict_is_cut_in_the_output_and_whole_in_the_file(tmp_path: Path) -> None:
    v = Verdict.model_validate(big(30, 1_500, title_len=400))
    assert output_size(json.dumps(v.to_json_dict())) > VERDICT_OUTPUT_BUDGET
    outputs, file_text, _ = deliver_to(tmp_path, block_outcome(v))
    line = outputs["verdict"]
    assert output_size(line) <= VERDICT_OUTPUT_BUDGET and len(line.splitlines()) == 1
    cut = json.loads(line)
    assert cut["truncated"] is True and cut["full_verdict_file"] == outputs["verdict-file"]
    assert len(cut["critical"]) == 30 and 0 < len(cut["advisory"]) < 1_500
    assert json.loads(file_text) == v.to_json_dict()  # the file stays whole
    assert outputs["advisory-count"] == "1500"  # the counts are the verdict's, not the cut's
    log = (tmp_path / "log.txt").read_text()
    assert "::warning::the 'verdict' output is cut" in log


def test_scrub_reaches_every_depth() -> None:
    assert scrub({"a\ud800": ["x\udfff", {"k": ("t",)}], "n": 1}) == {
        "a\ufffd": ["x\ufffd", {"k": ("t",)}],
        "n": 1,
    }


# --- verdict-file: the runner layouts -------------------------------------------------------------


def runner(tmp_path: Path, layout: str) -> tuple[Path, Path, dict[str, str]]:
    """A runner host: work dir W with W/_temp (+ _github_home) and W/app; a container root whose
    /github/... are symlinks standing for the runner's bind mounts. Returns (root, temp, env)."""
    work = tmp_path / "host/work"
    temp = work / "_temp"
    (temp / "_github_home").mkdir(parents=True)
    (work / "app/app").mkdir(parents=True)
    root = tmp_path / "container"
    (root / "github").mkdir(parents=True)
    (root / "github/home").symlink_to(temp / "_github_home")
    (root / "github/workspace").symlink_to(work / "app/app")
    env = {"RUNNER_WORKSPACE": str(work / "app")}
    if layout == "runner-temp":
        (root / "github/runner_temp").symlink_to(temp)
        env["RUNNER_TEMP"] = "/github/runner_temp"
    else:
        env["RUNNER_TEMP"] = str(temp)
    return root, temp, env


@pytest.mark.parametrize("layout", ["legacy", "runner-temp"])
def test_the_reported_path_opens_on_the_host_on_both_layouts(tmp_path: Path, layout: str) -> None:
    root, temp, env = runner(tmp_path, layout)
    location = verdict_location(env, 7, root=root, cwd=root / "github/workspace")
    assert location.layout == ("home-mount" if layout == "legacy" else "runner-temp-mount")
    shown = write_verdict_file(location, '{"gate": "go"}\n')
    # The same host path on both layouts: T/_github_home/review-coordinator/verdict-pr7.json.
    assert shown == str(temp / "_github_home/review-coordinator/verdict-pr7.json")
    assert Path(shown).read_text() == '{"gate": "go"}\n'  # opened as a host step would
    assert str(location.target).startswith(str(root / "github"))


def test_layout_paths_without_a_filesystem(tmp_path: Path) -> None:
    root = tmp_path / "c"
    (root / "github/home").mkdir(parents=True)
    legacy = verdict_location({"RUNNER_TEMP": "/home/runner/work/_temp"}, 7, root=root)
    assert (legacy.layout, legacy.shown, legacy.target) == (
        "home-mount",
        "/home/runner/work/_temp/_github_home/review-coordinator/verdict-pr7.json",
        root / "github/home/review-coordinator/verdict-pr7.json",
    )
    (root / "github/runner_temp").mkdir()
    env = {"RUNNER_TEMP": "/github/runner_temp", "RUNNER_WORKSPACE": "/home/runner/work/app"}
    new = verdict_location(env, 7, root=root)
    assert (new.layout, new.shown, new.target) == (
        "runner-temp-mount",
        legacy.shown,
        root / "github/runner_temp/_github_home/review-coordinator/verdict-pr7.json",
    )
    # A runner that left RUNNER_TEMP a host path despite the mount: that path.
    odd = verdict_location({"RUNNER_TEMP": "/srv/w/_temp"}, 7, root=root)
    assert odd.shown == "/srv/w/_temp/_github_home/review-coordinator/verdict-pr7.json"


@pytest.mark.parametrize(
    "runner_workspace", [None, "", "app", "/github/workspace", "/github/runner_temp/x", "/"]
)
def test_unknown_host_temp_falls_back_to_the_workspace(
    tmp_path: Path, runner_workspace: str | None
) -> None:
    root = tmp_path / "c"
    (root / "github/runner_temp").mkdir(parents=True)
    (root / "github/home").mkdir(parents=True)
    env = {"RUNNER_TEMP": "/github/runner_temp"}
    if runner_workspace is not None:
        env["RUNNER_WORKSPACE"] = runner_workspace
    cwd = tmp_path / "workspace"
    location = verdict_location(env, 7, root=root, cwd=cwd)
    assert location.layout == "workspace"
    assert location.shown == ".review-coordinator/verdict-pr7.json"  # relative to GITHUB_WORKSPACE
    assert write_verdict_file(location, "{}") == location.shown
    assert (cwd / location.shown).read_text() == "{}"


def test_outside_a_container_the_cli_behaviour_stays(tmp_path: Path) -> None:
    root = tmp_path / "no-mounts"
    here = verdict_location({"RUNNER_TEMP": str(tmp_path)}, 7, root=root)
    assert (here.layout, here.shown) == (
        "local",
        str(tmp_path / "review-coordinator/verdict-pr7.json"),
    )
    cwd = verdict_location({}, 7, root=root, cwd=tmp_path / "cwd")
    assert cwd.target == tmp_path / "cwd/review-coordinator/verdict-pr7.json"
    assert cwd.shown == str(cwd.target)


def test_verdict_data_matches_the_model() -> None:
    v = blocking()
    assert verdict_data(block_outcome(v), repo="octo/app", pr=12) == v.to_json_dict()


@pytest.mark.e2e
def test_unreviewed_output_lists_the_bot_that_could_not_review(tmp_path: Path) -> None:
    from tests.e2e_support import (
        CLAUDE,
        CODEX,
        COPILOT_REVIEWER,
        CURSOR,
        HEAD,
        body,
        cursor_clean,
        run_action,
    )
    from tests.fakegithub import FakeGitHub

    with FakeGitHub() as fake:
        fake.add_pull(2, head_sha=HEAD)
        fake.add_review(2, login=CURSOR, body=cursor_clean(HEAD), commit_id=HEAD)
        fake.add_review(2, login=COPILOT_REVIEWER, body=body("Z12"), commit_id=HEAD)
        fake.add_review(2, login=CLAUDE, body=body("L_cca1078_lgtm"), commit_id=HEAD)
        fake.add_issue_comment(2, login=CODEX, body=body("X_usage_vllm"))
        run = run_action(
            fake,
            tmp_path,
            inputs={"settle": "none", "expected-bots": "codex,copilot,cursor,claude"},
        )
    assert run.returncode == 0, run.log
    assert run.outputs["unreviewed"] == "codex"
    verdict = json.loads(run.outputs["verdict"])
    assert verdict["unreviewed"] == ["codex"]
    assert json.loads(Path(run.outputs["verdict-file"]).read_text(encoding="utf-8")) == verdict
