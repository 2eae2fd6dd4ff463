"""examples/review-coordinator.yml, the annotated config the README points at, is shipped and
loads: as the base branch's copy would be read, and as `--config-file` for a replay."""

from __future__ import annotations

import io
from pathlib import Path

import yaml

from reviewcoord import cli
from reviewcoord.config import Settings, build_settings, parse_config_file

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples/review-coordinator.yml"


def test_the_example_config_loads_and_states_the_defaults() -> None:
    text = EXAMPLE.read_text(encoding="utf-8")
    values = parse_config_file(text, str(EXAMPLE))
    settings = build_settings(values, {}, file_source=str(EXAMPLE), input_source="inputs")
    defaults = Settings()
    for key in ("settle", "fast_timeout", "full_timeout", "poll_interval", "expected_bots"):
        assert getattr(settings, key) == getattr(defaults, key), key
    assert settings.rerequest is False and settings.format == "both"
    assert settings.severity["copilot"] == {"[MUST]": "critical"}


def test_every_key_of_the_example_is_commented() -> None:
    lines = EXAMPLE.read_text(encoding="utf-8").splitlines()
    data = yaml.safe_load("\n".join(lines))
    for key in data:
        (line,) = [n for n, text in enumerate(lines) if text.startswith(f"{key}:")]
        assert lines[line - 1].startswith("#") or "#" in lines[line], key


def test_the_commented_declared_reviewer_is_valid_too() -> None:
    text = EXAMPLE.read_text(encoding="utf-8")
    block = text.split("# reviewers:\n", 1)[1]
    uncommented = "reviewers:\n" + "\n".join(line[2:] for line in block.splitlines())
    values = parse_config_file(uncommented, "example reviewers")
    settings = build_settings(values, {}, file_source="example", input_source="inputs")
    kilo = settings.reviewers["kilo"]
    assert kilo.trigger == "@kilo review" and kilo.name == "Kilo Code"
    assert kilo.check is not None and kilo.check.app == "kilo-code-bot"


def test_a_replay_under_the_example_config(capsys: object) -> None:
    out = io.StringIO()
    argv = ["12", "--replay", str(ROOT / "examples/pr-block.json"), "--format", "json"]
    assert cli.main([*argv, "--config-file", str(EXAMPLE)], {}, out) == 0
    assert '"gate": "block"' in out.getvalue()
