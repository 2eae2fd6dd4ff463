"""Config: defaults < file (base branch) < inputs; errors name the file, the key, the choices."""

from __future__ import annotations

import pytest

from reviewcoord.config import Settings, build_settings, parse_config_file
from reviewcoord.errors import ConfigError

SRC = ".github/review-coordinator.yml"


def build(file_text: str = "", **inputs: object) -> Settings:
    values = parse_config_file(file_text, SRC) if file_text else {}
    return build_settings(
        values,
        {k.replace("_", "-"): v for k, v in inputs.items()},
        file_source=SRC,
        input_source="workflow inputs",
    )


def test_defaults_match_interface() -> None:
    s = build()
    assert (s.settle, s.fast_timeout, s.full_timeout, s.poll_interval) == ("fast", 180, 480, 15)
    assert s.expected_bots == ["auto"] and s.merge_patience and s.format == "both"
    assert s.check_name == s.status_context == "review-coordinator"
    assert (s.group_window, s.fast_pack, s.slow_pack) == (
        5,
        [
            "claude",
            "codeant",
            "coderabbit",
            "copilot",
            "cursor",
            "devin",
            "gemini",
            "graphite",
            "greptile",
            "macroscope",
            "qodo",
        ],
        ["codex", "cubic"],
    )
    assert not s.dry_run and not s.fail_on_block


def test_precedence_inputs_over_file_over_default() -> None:
    text = "settle: full\nfast-timeout: 60\nexpected-bots: [codex, cursor]\ngroup-window: 9\n"
    s = build(text, fast_timeout="30", settle="")
    assert s.settle == "full"  # '' = input not set: the file wins
    assert s.fast_timeout == 30  # input wins
    assert s.expected_bots == ["codex", "cursor"] and s.group_window == 9


def test_input_strings_are_coerced() -> None:
    s = build(merge_patience="false", dry_run="true", expected_bots="codex, cursor[bot],Copilot")
    assert not s.merge_patience and s.dry_run
    assert s.expected_bots == ["codex", "cursor", "copilot"]


def test_severity_overrides() -> None:
    s = build(
        "severity:\n  cursor:\n    High Severity: medium\n  copilot:\n    '[MUST]': critical\n"
    )
    assert s.severity == {"cursor": {"High Severity": "medium"}, "copilot": {"[MUST]": "critical"}}


@pytest.mark.parametrize(
    ("text", "inputs", "message"),
    [
        ("settle: slow\n", {}, f"{SRC}: line 1, key 'settle': allowed: 'fast', 'full' or 'none'"),
        ("fast-timeout: soon\n", {}, "key 'fast-timeout'"),
        ("fast-timeout: -1\n", {}, "key 'fast-timeout'"),
        ("colour: blue\n", {}, "key 'colour': unknown key; allowed keys:"),
        ("expected-bots: [codex, gremlin]\n", {}, "unknown bot 'gremlin'; allowed:"),
        ("severity:\n  cursor:\n    High: high\n", {}, "key 'severity.cursor.High'"),
        ("severity:\n  sonar:\n    x: low\n", {}, "unknown bot 'sonar'; allowed:"),
        # A misspelt bot name: the key it is closest to (the control: 'gremlin' has none, above).
        ("expected-bots: [codx]\n", {}, "unknown bot 'codx' (did you mean 'codex'?); allowed:"),
        ("require-bots: [Copilto]\n", {}, "unknown bot 'Copilto' (did you mean 'copilot'?)"),
        ("severity:\n  curser:\n    x: low\n", {}, "unknown bot 'curser' (did you mean 'cursor'?)"),
        (
            "",
            {"expected-bots": "claud"},
            "workflow inputs: key 'expected-bots': unknown bot 'claud' (did you mean 'claude'?)",
        ),
        ("github-token: abc\n", {}, "set per run"),
        ("- a\n- b\n", {}, "must be a mapping"),
        ("a: [\n", {}, "not valid YAML"),
        ("a: &x [1]\nb: *x\n", {}, "anchors and aliases are not allowed"),
        ("merge-patience: maybe\n", {}, "must be true or false"),
        ("", {"settle": "later"}, "workflow inputs: key 'settle'"),
        ("", {"poll_interval": "0"}, "key 'poll-interval'"),
    ],
)
def test_errors_name_source_key_and_choices(
    text: str, inputs: dict[str, object], message: str
) -> None:
    with pytest.raises(ConfigError) as info:
        build(text, **inputs)
    assert message in str(info.value)


def test_yaml_bomb_is_refused_quickly() -> None:
    bomb = "a: &a [x,x,x,x,x,x,x,x,x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)}]\n"
        for i in range(9)
    )
    with pytest.raises(ConfigError, match="anchors and aliases"):
        parse_config_file(bomb, SRC)
    with pytest.raises(ConfigError, match="larger than"):
        parse_config_file("a: " + "x" * 70_000, SRC)


# --- issue 17: the messages agree with themselves -------------------------------------------


def test_an_unknown_file_key_does_not_list_per_run_keys_as_allowed() -> None:
    with pytest.raises(ConfigError) as err:
        parse_config_file("setle: fast\n", "cfg.yml")
    message = str(err.value)
    assert "line 1, key 'setle': unknown key; allowed keys:" in message
    assert "; did you mean 'settle'?" in message
    allowed = message.split("allowed keys:", 1)[1]
    assert "settle" in allowed and "rerequest" in allowed
    assert "cycle" not in allowed  # refused in the file: never offered there


def test_cycle_in_the_file_is_refused_as_per_run() -> None:
    with pytest.raises(ConfigError, match="key 'cycle': set per run"):
        parse_config_file("cycle: 2\n", "cfg.yml")


def test_an_underscore_alias_is_refused_naming_the_real_key() -> None:
    with pytest.raises(ConfigError) as err:
        parse_config_file("expected_bots: codex\n", "cfg.yml")
    assert "key 'expected_bots': unknown key (did you mean 'expected-bots'?)" in str(err.value)


def test_control_the_documented_spelling_is_read() -> None:
    values = parse_config_file("expected-bots: codex\nrerequest: true\n", "cfg.yml")
    settings = build_settings(values, {}, file_source="cfg.yml", input_source="inputs")
    assert settings.expected_bots == ["codex"] and settings.rerequest is True


def test_an_underscore_input_is_refused_too() -> None:
    with pytest.raises(ConfigError, match="did you mean 'fail-on-block'"):
        build_settings({}, {"fail_on_block": "true"}, file_source="f", input_source="inputs")
