"""The command line for people: plain-text verdict on a terminal (golden files, colour, NO_COLOR,
TTY detection, no escape sequences from bot text), help with units and real defaults, the
usage line naming `snapshot`, "did you mean" for a mistyped flag, `python -m reviewcoord`.

Regenerate the golden files (tests/golden/plain/) with
    REVIEWCOORD_REGEN=1 .venv/bin/pytest tests/test_cli_plain.py
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from reviewcoord import __version__, cli
from reviewcoord.config import Settings
from reviewcoord.limits import MARKER
from reviewcoord.model import BotStatus
from reviewcoord.render.plain import RESET, STYLES, plain_text
from tests import golden_support as golden
from tests.render_scenarios import SCENARIOS

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = {
    "pr-block": (12, ROOT / "examples/pr-block.json"),
    "pr-go": (34, ROOT / "examples/pr-go.json"),
    "pr-mixed": (27, ROOT / "examples/pr-mixed.json"),
}
OUR_SGR = re.compile(
    "|".join(re.escape(f"\x1b[{code}m") for code in STYLES.values()) + "|" + re.escape(RESET)
)


class FakeTTY(io.StringIO):
    """A stdout that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def assert_golden(name: str, text: str) -> None:
    golden.assert_golden("plain", name, text)


def replay(
    example: str, *extra: str, stdout: io.StringIO | None = None, env: dict[str, str] | None = None
) -> tuple[int, str]:
    pr, path = EXAMPLES[example]
    out = io.StringIO() if stdout is None else stdout
    code = cli.main([str(pr), "--replay", str(path), *extra], environ=env or {}, stdout=out)
    return code, out.getvalue()


# --- golden files ------------------------------------------------------------------------------


@pytest.mark.parametrize("example", sorted(EXAMPLES))
def test_plain_text_golden_on_a_terminal_with_colour(example: str) -> None:
    code, text = replay(example, stdout=FakeTTY())
    assert code == 0
    assert_golden(f"{example}.colour.txt", text)


@pytest.mark.parametrize("example", sorted(EXAMPLES))
def test_plain_text_golden_without_colour(example: str) -> None:
    code, text = replay(example, stdout=FakeTTY(), env={"NO_COLOR": "1"})
    assert code == 0
    assert "\x1b" not in text
    assert_golden(f"{example}.txt", text)
    # The same text when asked for explicitly into a pipe (`--format text | less`): no colour.
    assert replay(example, "--format", "text") == (0, text)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_plain_text_golden_scenarios(name: str) -> None:
    assert_golden(f"{name}.txt", plain_text(SCENARIOS[name]()))


def test_plain_text_golden_bot_states() -> None:
    """Every bot state, required and not-expected bots, and the re-request hint in plain words."""
    verdict = SCENARIOS["blocking"]().model_copy(
        update={
            "bots": {
                "codex": BotStatus(state="failed", detail="usage limit reached"),
                "cursor": BotStatus(state="skipped"),
                "copilot": BotStatus(state="working", detail="review in progress"),
                "claude": BotStatus(state="not_seen"),
                "coderabbit": BotStatus(state="reviewed"),
            },
            "expected_bots": ["codex", "cursor", "copilot", "claude"],
            "required_bots": ["codex"],
            "unreviewed": ["codex", "cursor"],
        }
    )
    text = plain_text(verdict)
    assert "`" not in text.split("Critical")[0]
    assert_golden("bot_states.txt", text)


def test_plain_text_has_no_markdown_or_marker() -> None:
    _, text = replay("pr-block", stdout=FakeTTY(), env={"NO_COLOR": "1"})
    assert MARKER not in text and "<" not in text and "**" not in text
    assert "Copilot:[nitpick]" in text and "\\[" not in text
    assert text.index("Critical (2)") < text.index("Advisory (3)")
    for needle in ("BLOCK", "F1", "mise.lock:156", "3 bots", "Pending: none", "Cursor "):
        assert needle in text
    assert "https://github.com/octo/app/pull/12#discussion_r1007" in text


# --- colour, NO_COLOR, TTY detection -----------------------------------------------------------


def test_colour_only_on_a_terminal() -> None:
    assert "\x1b[" in replay("pr-block", stdout=FakeTTY())[1]
    assert "\x1b" not in replay("pr-block", "--format", "text")[1]


@pytest.mark.parametrize("value", ["1", "0", "false", "yes"])
def test_no_color_any_non_empty_value_disables_colour(value: str) -> None:
    _, text = replay("pr-block", stdout=FakeTTY(), env={"NO_COLOR": value})
    assert "\x1b" not in text and text.startswith("review-coordinator · octo/app #12")


def test_empty_no_color_keeps_colour_and_dumb_terminal_has_none() -> None:
    assert "\x1b[" in replay("pr-block", stdout=FakeTTY(), env={"NO_COLOR": ""})[1]
    assert "\x1b" not in replay("pr-block", stdout=FakeTTY(), env={"TERM": "dumb"})[1]


def test_not_a_terminal_keeps_the_scripted_default_both() -> None:
    code, text = replay("pr-block")
    assert code == 0
    sticky, sep, verdict_json = text.partition("\n---\n\n")
    assert sep and sticky.startswith(MARKER + "\n")
    assert json.loads(verdict_json)["gate"] == "block"


@pytest.mark.parametrize("fmt", ["json", "comment", "both"])
def test_explicit_format_wins_on_a_terminal(fmt: str) -> None:
    _, on_tty = replay("pr-go", "--format", fmt, stdout=FakeTTY())
    _, piped = replay("pr-go", "--format", fmt)
    assert on_tty == piped and "\x1b" not in on_tty
    if fmt == "json":
        assert json.loads(on_tty)["gate"] == "go"


def test_a_stream_without_isatty_is_not_a_terminal() -> None:
    class Bare:
        def __init__(self) -> None:
            self.parts: list[str] = []

        def write(self, text: str) -> int:
            self.parts.append(text)
            return len(text)

    out = Bare()
    pr, path = EXAMPLES["pr-go"]
    assert cli.main([str(pr), "--replay", str(path)], environ={}, stdout=out) == 0  # type: ignore[arg-type]
    assert "".join(out.parts).startswith(MARKER)


# --- bot text cannot drive the terminal --------------------------------------------------------

EVIL = "\x1b]0;pwned\x07\x1b[2J\x1b[31mred\r\x08\x9b31m\u202eevil"


def test_bot_text_cannot_inject_escape_sequences() -> None:
    verdict = SCENARIOS["blocking"]()
    finding = verdict.critical[0]
    source = finding.sources[0].model_copy(update={"url": "https://x.test/\x1b[2J"})
    evil = finding.model_copy(
        update={"title": EVIL, "gist": EVIL, "spread": EVIL, "file": EVIL, "sources": [source]}
    )
    verdict = verdict.model_copy(
        update={"critical": [evil], "gate_reason": EVIL, "unknown_bots": [EVIL], "repo": EVIL}
    )
    for colour in (False, True):
        text = plain_text(verdict, colour=colour)
        rest = OUR_SGR.sub("", text)
        assert not re.search(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u202e]", rest), repr(rest)
        assert "x.test" not in text  # an URL that is not plain https is not printed at all
        assert "pwned" in text  # the text is kept, only the controls go


# --- help, usage, did you mean -----------------------------------------------------------------


def help_raw(*args: str) -> str:
    out = io.StringIO()
    with pytest.raises(SystemExit) as exc:
        sys.stdout, saved = out, sys.stdout
        try:
            cli.main([*args, "--help"], environ={})
        finally:
            sys.stdout = saved
    assert exc.value.code == 0
    return out.getvalue()


def help_text(*args: str) -> str:
    return " ".join(help_raw(*args).split())  # one line: argparse wraps at the terminal width


def flag_help(flag: str) -> str:
    """The help entry of `flag` (metavar and text) as one line: from the flag's line in --help
    to the next entry or section."""
    m = re.search(
        rf"^  {re.escape(flag)} (.*?)(?=^  -|^\S|\Z)", help_raw(), re.DOTALL | re.MULTILINE
    )
    assert m, flag
    return " ".join(m.group(1).split())


@pytest.mark.parametrize(
    ("flag", "field"),
    [
        ("--fast-timeout", "fast_timeout"),
        ("--full-timeout", "full_timeout"),
        ("--poll-interval", "poll_interval"),
    ],
)
def test_help_gives_units_and_the_real_default(flag: str, field: str) -> None:
    entry = flag_help(flag)
    default = Settings.model_fields[field].default
    assert entry.startswith("SECONDS "), entry
    assert "seconds" in entry and f"(default: {default})" in entry, entry


def test_help_every_flag_has_help_and_cycle_says_from_history() -> None:
    text = help_text()
    assert "--cycle N review-cycle index (default: from the review history, else 1)" in text
    assert "(default: fast)" in flag_help("--settle")
    assert "(default: text on a terminal, else both)" in text
    parser = cli._build_parser()
    for action in parser._actions:
        assert action.help, action.option_strings


def test_usage_names_the_snapshot_subcommand() -> None:
    text = help_text()
    assert text.startswith(
        "usage: reviewcoord [-h] [--version] <pr> [options] "
        "reviewcoord snapshot <pr> --repo OWNER/NAME"
    )
    assert "usage: reviewcoord snapshot <pr> --repo OWNER/NAME" in help_text("snapshot")


@pytest.mark.parametrize(
    ("args", "wrong", "right"),
    [
        (["12", "--dry-rn"], "--dry-rn", "--dry-run"),
        (["12", "--fast-timout=30"], "--fast-timout", "--fast-timeout"),
        (["--fromat", "json", "12"], "--fromat", "--format"),
        (["12", "--replya", "x.json"], "--replya", "--replay"),
    ],
)
def test_did_you_mean_for_a_mistyped_flag(
    args: list[str], wrong: str, right: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(args, environ={}) == 2
    err = capsys.readouterr().err
    assert err.count("reviewcoord:") == 1 and err.startswith("reviewcoord: error: ")
    assert f"unrecognized argument: {wrong} (did you mean {right}?)" in err


def test_no_suggestion_for_nonsense_and_abbreviations_still_work(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli.main(["12", "--zzzzzz"], environ={}) == 2
    err = capsys.readouterr().err
    assert "unrecognized arguments: --zzzzzz" in err and "did you mean" not in err
    # `--fail-on` is an unambiguous prefix of --fail-on-block: argparse's abbreviation holds.
    assert replay("pr-block", "--format", "json", "--fail-on")[0] == 1


def test_python_dash_m_reviewcoord_version() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "reviewcoord", "--version"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"reviewcoord {__version__}"
