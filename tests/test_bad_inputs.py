"""Every bad input a clean error, in words that name what to fix: the API URL, counts, the
scorecard's output file, the config file's keys and encodings."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from reviewcoord import cli
from reviewcoord.config import parse_config_file
from reviewcoord.errors import ConfigError
from tests.e2e_support import HEAD, run_action
from tests.fakegithub import FakeGitHub


# ----------------------------------------------------------------------- GITHUB_API_URL
@pytest.mark.parametrize(
    "url", ["api.github.com", "ftp://x", "https://", "http://host:port/api", "https://h/ a"]
)
def test_a_malformed_api_url_is_bad_input_naming_the_variable(tmp_path: Path, url: str) -> None:
    with FakeGitHub() as fake:
        fake.add_pull(2, head_sha=HEAD)
        run = run_action(fake, tmp_path, extra_env={"GITHUB_API_URL": url})
        assert run.returncode == 2, run.log
        assert "GITHUB_API_URL" in run.stdout and "internal error" not in run.stdout
        assert fake.request_log() == []  # nothing was sent anywhere


@pytest.mark.parametrize("url", ["api.github.com", "ftp://x"])
def test_the_cli_names_a_malformed_api_url_too(
    url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    env = {"GITHUB_API_URL": url, "GITHUB_TOKEN": "t"}
    assert cli.main(["12", "--repo", "octo/app"], env) == 2
    err = capsys.readouterr().err
    assert "GITHUB_API_URL" in err and "http" in err


def test_control_a_well_formed_api_url_is_used(tmp_path: Path) -> None:
    with FakeGitHub() as fake:
        fake.add_pull(2, head_sha=HEAD)
        run = run_action(fake, tmp_path, extra_env={"GITHUB_API_URL": fake.base_url + "/"})
        assert run.returncode == 0, run.log


# ------------------------------------------------------------------------------ counts
@pytest.mark.parametrize(
    "argv",
    [
        ["doctor", "--repo", "octo/app", "--prs", "-3"],
        ["doctor", "--repo", "octo/app", "--prs", "0"],
        ["doctor", "--repo", "octo/app", "--prs", "2.5"],
        ["12", "--repo", "octo/app", "--poll-interval", "0"],
        ["12", "--repo", "octo/app", "--fast-timeout", "-1"],
        ["12", "--repo", "octo/app", "--cycle", "-2"],
    ],
)
def test_counts_must_be_positive(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(argv, {"GITHUB_TOKEN": "t"}) == 2
    err = capsys.readouterr().err
    assert "must be a" in err and "whole number" in err, err


# ------------------------------------------------------------------- scorecard --out
@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--out", "card.pdf"], "its suffix names no format"),
        (["--out", "card.csv", "--format", "json"], "is a csv file name but --format is json"),
        (["--out", "missing/card.json"], "the directory"),
    ],
)
def test_scorecard_out_must_agree_with_the_format_and_exist(
    tmp_path: Path, args: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeGitHub() as fake:
        env = {"GITHUB_API_URL": fake.base_url, "GITHUB_TOKEN": "app-token"}
        argv = ["scorecard", "--repo", "octo/app", *args]
        argv = [str(tmp_path / a) if a.startswith(("card", "missing")) else a for a in argv]
        assert cli.main(argv, env, io.StringIO()) == 2
        assert fake.request_log() == []  # refused before any read
    assert words in capsys.readouterr().err
    assert not (tmp_path / "missing").exists()


# ------------------------------------------------------------------------- config file
def test_an_unknown_key_suggests_the_key_meant_with_its_line() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config_file("fast-timeout: 60\nrequire-bot: [codex]\n", "cfg.yml")
    message = str(caught.value)
    assert "line 2, key 'require-bot': unknown key; allowed keys:" in message
    assert "; did you mean 'require-bots'?" in message
    assert caught.value.line == 2


def test_control_a_key_close_to_nothing_gets_no_guess() -> None:
    with pytest.raises(ConfigError, match=r"line 1, key 'zzzzzz': unknown key; allowed") as caught:
        parse_config_file("zzzzzz: 1\n", "cfg.yml")
    assert "did you mean" not in str(caught.value)


@pytest.mark.parametrize(
    "content",
    [
        "settle: full\n".encode("utf-16"),
        "settle: full\n".encode("utf-16-be"),  # no mark: refused below
        b"\xef\xbb\xbfsettle: full\n",
        "settle: full\n".encode("utf-32"),
    ],
    ids=["utf-16", "utf-16-be-no-mark", "utf-8-bom", "utf-32"],
)
def test_encodings_with_a_byte_order_mark_are_read(content: bytes) -> None:
    if content.startswith(b"\x00"):
        with pytest.raises(ConfigError, match=r"UTF-16 without a byte-order mark\): save it"):
            parse_config_file(content, "cfg.yml")
        return
    assert parse_config_file(content, "cfg.yml") == {"settle": "full"}


def test_bytes_that_are_no_text_are_refused_in_plain_words() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config_file(b"settle: full\nrequire-bots: [caf\xe9]\n", "cfg.yml")
    assert str(caught.value) == "cfg.yml: is not UTF-8 text (line 2): save it as UTF-8"


def test_a_replay_reads_a_local_utf16_config_file(tmp_path: Path) -> None:
    config = tmp_path / "rc.yml"
    config.write_bytes("format: json\n".encode("utf-16"))
    out = io.StringIO()
    sample = str(Path(__file__).resolve().parents[1] / "examples/pr-block.json")
    assert cli.main(["12", "--replay", sample, "--config-file", str(config)], {}, out) == 0
    assert out.getvalue().lstrip().startswith("{")  # the file's `format: json`
