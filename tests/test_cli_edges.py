"""The command line's edges: one `reviewcoord:` prefix, distinct exit codes, live-only flags
refused with --replay, no import cycle between its modules."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from reviewcoord import cli

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = str(ROOT / "examples/pr-block.json")


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "reviewcoord.cli", *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )


@pytest.mark.parametrize(
    "flag",
    [
        ["--settle", "full"],
        ["--config", "x.yml"],
        ["--fast-timeout", "9"],
        ["--full-timeout", "9"],
        ["--poll-interval", "3"],
        ["--dry-run"],
        ["--publish"],
    ],
)
def test_live_only_flags_with_replay_are_an_error(
    flag: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["12", "--replay", SAMPLE, *flag]) == 2
    err = capsys.readouterr().err
    assert f"{flag[0]}: only for a live run against GitHub" in err


def test_one_prefix_on_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["12", "--no-such-flag"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("reviewcoord: error: ") and err.count("reviewcoord:") == 1, err


def test_internal_error_is_exit_4(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def boom(*_args: object) -> int:
        raise RuntimeError("boom")

    monkeypatch.setattr(cli, "run_replay", boom)
    assert cli.main(["12", "--replay", SAMPLE]) == 4
    assert "internal error: RuntimeError: boom" in capsys.readouterr().err


def test_exit_codes_are_distinct() -> None:
    from reviewcoord import errors

    codes = [errors.EXIT_OK, errors.EXIT_BLOCK, errors.EXIT_USAGE, errors.EXIT_UNREADABLE]
    assert [*codes, errors.EXIT_INTERNAL] == [0, 1, 2, 3, 4]
    assert errors.GatewayError.exit_code == 3 and errors.ConfigError.exit_code == 2


def _module_graph() -> dict[str, set[str]]:
    """reviewcoord module → the reviewcoord modules it imports (top level or inside functions).
    `from pkg import sub` counts as importing the submodule `pkg.sub` when there is one."""
    raw: dict[str, list[tuple[str, str]]] = {}
    for path in (ROOT / "reviewcoord").rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        pairs: list[tuple[str, str]] = []
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("reviewcoord"):
                pairs += [(node.module or "", a.name) for a in node.names]
            elif isinstance(node, ast.Import):
                pairs += [(a.name, "") for a in node.names]
        raw[".".join(parts)] = pairs
    graph: dict[str, set[str]] = {}
    for module, pairs in raw.items():
        targets = {f"{m}.{n}" if f"{m}.{n}" in raw else m for m, n in pairs}
        graph[module] = {t for t in targets if t in raw and t != module}
    return graph


def test_no_import_cycle_in_the_package() -> None:
    graph = _module_graph()
    assert "reviewcoord.cli" not in graph["reviewcoord.live"]
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> None:
        if module in path:
            raise AssertionError(
                "import cycle: " + " → ".join([*path[path.index(module) :], module])
            )
        if module in done:
            return
        for nxt in sorted(graph[module]):
            visit(nxt, [*path, module])
        done.add(module)

    for module in sorted(graph):
        visit(module, [])


# --- issue 17: a CLI that says what it means -----------------------------------------------


def test_a_mistyped_subcommand_gets_did_you_mean(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["statuss", "--repo", "octo/app"], {}) == 2
    err = capsys.readouterr().err
    assert "unknown command 'statuss' (did you mean 'status'?)" in err
    assert "PR number" not in err


def test_an_unknown_word_lists_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["frobnicate"], {}) == 2
    err = capsys.readouterr().err
    assert (
        "positive integer, got 'frobnicate' (or a command: snapshot, status, scorecard, doctor)"
        in err
    )


def test_control_a_pr_number_is_not_a_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["#12", "--replay", SAMPLE, "--format", "json"], {}) == 0
    assert "unknown command" not in capsys.readouterr().err


@pytest.mark.parametrize("value", ["foo", "a/b/c", "/name", "owner/"])
def test_repo_that_is_not_owner_name_says_so(
    value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["12", "--repo", value], {"GITHUB_TOKEN": "t"}) == 2
    err = capsys.readouterr().err
    assert f"--repo {value!r} is not OWNER/NAME" in err and "is required" not in err


def test_control_no_repo_at_all_says_it_is_required(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["12"], {"GITHUB_TOKEN": "t"}) == 2
    assert "--repo OWNER/NAME is required" in capsys.readouterr().err


def test_every_flag_help_shows_its_default() -> None:
    parser = cli._build_parser()
    for action in parser._actions:
        if not action.option_strings or action.dest in ("help", "version"):
            continue
        assert "(default:" in (action.help or ""), action.option_strings
