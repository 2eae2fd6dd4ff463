"""GitHub code scanning as a source (reviewcoord/bots/code_scanning.py): alerts in GitHub's real
shape → findings, its inline comments, one finding per alert, and a required source that could
not be read blocking the gate by name."""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from reviewcoord.bots import REGISTRY, parse_comment, reviewer_keys
from reviewcoord.bots.code_scanning import alert_findings
from reviewcoord.config import Settings
from reviewcoord.errors import ConfigError, GatewayError
from reviewcoord.history import History, decode, encode
from reviewcoord.ingest import Ingested, ingest, settled_and_pending
from reviewcoord.judgement import JudgeSettings, Subject, first_cycle, judge
from reviewcoord.judgement.shift import NOTHING
from reviewcoord.limits import MARKER
from reviewcoord.model import BotStatus, RawComment, Verdict
from reviewcoord.pipeline import verdict_from
from reviewcoord.reading import AlertRead, Evidence, unreadable
from tests.bots_support import corpus_comment, graphql_bot, load_corpus, source_bot
from tests.verdict_contract import check_verdict

EXAMPLE = (
    Path(__file__).parent / "fixtures/api-examples/code-scanning.list-alerts-for-repo.200.json"
)
HEAD = "c" * 40
REF = "refs/pull/12/merge"
GHAS = "github-advanced-security[bot]"


def example() -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    return items


def alert(number: int, state: str = "open", **rule: str) -> dict[str, Any]:
    """The reference example's open alert, renumbered, with `rule` fields replaced."""
    item = copy.deepcopy(example()[0])
    item.update(
        number=number,
        state=state,
        html_url=f"https://github.com/o/r/security/code-scanning/{number}",
    )
    item["rule"].update(rule)
    return item


def corpus_entry(corpus_id: str) -> dict[str, Any]:
    return next(e for e in load_corpus() if e["corpus_id"] == corpus_id)


def inline(number: int, path: str = "spec-main/api-session-spec.ts", line: int = 917) -> RawComment:
    body = corpus_entry("N3_ghas_nvf5226_redos")["body"].replace("/154", f"/{number}")
    return RawComment(
        endpoint="review_comment",
        id=900 + number,
        author_login=GHAS,
        author_type="Bot",
        body=body,
        path=path,
        line=line,
        commit_id=HEAD,
        original_commit_id=HEAD,
        html_url=f"https://github.com/o/r/pull/12#discussion_r{900 + number}",
    )


def with_alerts(comments: list[RawComment], read: AlertRead | None, table: Any = None) -> Ingested:
    """The comments and the alerts, ingested as one reading."""
    evidence = Evidence(comments=tuple(comments), alerts=read)
    return ingest(comments, head_sha=HEAD, table=table, evidence=evidence)


def verdict(
    comments: list[RawComment], read: AlertRead | None, required: list[str] | None = None
) -> Verdict:
    ingested = with_alerts(comments, read)
    out = verdict_from(
        ingested,
        repo="o/r",
        pr=12,
        head_sha=HEAD,
        cycle=1,
        settle="none",
        expected=[],
        required=required or [],
    )
    check_verdict(out.to_json_dict())
    return out


# --------------------------------------------------------------------------- alerts → findings


def test_the_reference_examples_open_alert_is_one_finding_and_the_dismissed_one_none() -> None:
    findings, notes = alert_findings(example())
    (f,) = findings
    assert notes == []
    assert (f.bot, f.endpoint, f.comment_id, f.native_id) == (
        "code-scanning",
        "code_scanning_alert",
        4,
        "4",
    )
    assert f.title == "Arbitrary file write during zip extraction"  # rule.description
    assert f.gist == "This path depends on a user-provided value."
    assert (f.file, f.line, f.line_end) == ("spec-main/api-session-spec.ts", 917, None)
    assert f.url == "https://github.com/octocat/hello-world/code-scanning/4"
    assert f.severity_raw == "error"


def test_fixed_alerts_are_no_findings() -> None:
    fixed = alert(5, "fixed")
    fixed["fixed_at"] = "2026-01-05T09:00:00Z"
    assert alert_findings([fixed, alert(6, "dismissed")]) == ([], [])


@pytest.mark.parametrize(
    ("rule", "raw", "level"),
    [
        ({"security_severity_level": "critical"}, "critical", "critical"),
        ({"security_severity_level": "high", "severity": "warning"}, "high", "critical"),
        ({"security_severity_level": "medium", "severity": "error"}, "medium", "medium"),
        ({"security_severity_level": "low", "severity": "error"}, "low", "low"),
        ({"severity": "error"}, "error", "medium"),
        ({"severity": "warning"}, "warning", "medium"),
        ({"severity": "note"}, "note", "low"),
        ({"severity": "none"}, "none", "low"),
    ],
)
def test_security_severity_level_wins_over_rule_severity(
    rule: dict[str, str], raw: str, level: str
) -> None:
    read = AlertRead(REF, alerts=[alert(7, **rule)])
    (f,) = with_alerts([], read).findings
    assert (f.severity_raw, f.severity) == (raw, level)


def test_the_levels_follow_a_severity_override() -> None:
    read = AlertRead(REF, alerts=[alert(7, security_severity_level="high")])
    table = {"code-scanning": {"high": "medium"}}
    (f,) = with_alerts([], read, table).findings
    assert f.severity == "medium"


def test_malformed_alerts_are_notes_never_a_crash() -> None:
    bad_rule = alert(8)
    bad_rule["rule"]["description"] = ["not", "text"]
    closed_bad = alert(9, "dismissed")
    closed_bad["html_url"] = 3
    odd_state = alert(10, "reopened-somehow")
    items: list[Any] = ["text", {"number": "x"}, bad_rule, closed_bad, odd_state, None]
    findings, notes = alert_findings(items)
    # The open alert whose number is readable stays a medium finding: never silently dropped.
    (kept,) = findings
    assert (kept.native_id, kept.severity_raw, kept.title) == ("8", None, "code scanning alert 8")
    assert len(notes) == len(items)
    assert all("#" not in n.note for n in notes)  # `#8` would link an issue on GitHub
    assert any("alert 8 is malformed" in n.note and "kept as medium" in n.note for n in notes)
    assert any("unknown state 'reopened-somehow'" in n.note for n in notes)


# --------------------------------------------------------------------------- inline comments


@pytest.mark.parametrize(
    "corpus_id", ["N3_ghas_nvf5226_redos", "N3_ghas_zeta5110_race", "N3_ghas_nvf5226_review_empty"]
)
def test_the_real_inline_bodies_parse_as_the_corpus_says(corpus_id: str) -> None:
    entry = corpus_entry(corpus_id)
    assert source_bot(entry["bot_login"]) == "code-scanning"
    parsed = parse_comment("code-scanning", corpus_comment(entry, 1))
    if entry["kind"] == "wrapper":
        assert parsed.kind == "noise" and parsed.findings == ()
        return
    (f,) = parsed.findings
    assert parsed.kind == "finding" and parsed.parse_note is None
    assert f.title == entry["title"]
    assert (f.severity_raw, f.severity) == (None, "medium")  # the body carries no level
    number = entry["body"].rsplit("/", 1)[1].rstrip(")")
    assert f.native_id == number
    assert f.file == entry["path"] and f.line == entry["line"]


def test_the_graphql_login_is_code_scanning_too() -> None:
    assert graphql_bot("github-advanced-security") == "code-scanning"


# --------------------------------------------------------------------------- one finding per alert


def test_an_inline_comment_and_its_alert_are_one_finding_at_the_alerts_level() -> None:
    read = AlertRead(REF, alerts=[alert(4, security_severity_level="high")])
    out = verdict([inline(4)], read)
    (f,) = out.critical
    (source,) = f.sources
    assert (source.endpoint, source.severity_raw, source.bot) == (
        "code_scanning_alert",
        "high",
        "code-scanning",
    )
    assert out.gate == "block" and out.advisory == []
    assert out.bots["code-scanning"] == BotStatus(state="reviewed", detail=f"1 open alert on {REF}")


def test_an_inline_comment_whose_alert_is_no_longer_open_is_dropped() -> None:
    out = verdict([inline(4), inline(5, line=3)], AlertRead(REF, alerts=[alert(5)]))
    (f,) = out.advisory
    assert f.sources[0].url.endswith("/code-scanning/5")
    assert any("alert 4 is no longer open" in n.note for n in out.parse_notes)


def test_alerts_not_read_leave_the_inline_comment_a_medium_finding_and_a_note() -> None:
    problem = "code scanning alerts could not be read (403 Resource not accessible by integration)"
    out = verdict([inline(4)], AlertRead(REF, problem=problem))
    (f,) = out.advisory
    assert f.severity == "medium" and f.sources[0].endpoint == "review_comment"
    assert out.gate == "go"  # not required: a note, not a block
    assert out.bots["code-scanning"].state == "failed"
    assert out.unreviewed == []
    assert any(problem in n.note for n in out.parse_notes)


# --------------------------------------------------------------------------- required source


def test_a_required_source_that_could_not_be_read_blocks_in_its_own_words() -> None:
    exc = GatewayError(
        "could not read code-scanning/alerts: HTTP 403",
        status=403,
        detail="Resource not accessible by integration",
    )
    out = verdict([], AlertRead(REF, problem=unreadable(exc)), required=["code-scanning"])
    assert out.gate == "block"
    assert out.gate_reason == (
        "code scanning alerts could not be read (403 Resource not accessible by integration): "
        "the workflow token needs `permissions: security-events: read`"
    )
    assert out.unreviewed == ["code-scanning"] and out.required_bots == ["code-scanning"]
    assert out.settled_on == [] and out.pending == []


def test_a_required_source_read_completely_lets_a_clean_pr_go() -> None:
    out = verdict([], AlertRead(REF, alerts=[alert(4, "dismissed")]), required=["code-scanning"])
    assert out.gate == "go"
    assert out.bots["code-scanning"] == BotStatus(
        state="reviewed", detail=f"0 open alerts on {REF}"
    )
    assert out.settled_on == []  # read, not settled on


@pytest.mark.parametrize(
    ("status", "detail", "message", "said"),
    [
        (
            404,
            "no analysis found",
            "not found (HTTP 404)",
            "code scanning is not set up for this repository (no analysis found)",
        ),
        (
            403,
            "Advanced Security must be enabled for this repository to use code scanning.",
            "HTTP 403",
            "(403 Advanced Security must be enabled",
        ),
        (
            503,
            "",
            "could not read code-scanning/alerts: HTTP 503 after 5 attempts",
            "code scanning alerts could not be read (could not read code-scanning/alerts: "
            "HTTP 503 after 5 attempts)",
        ),
    ],
)
def test_why_the_alerts_could_not_be_read(
    status: int, detail: str, message: str, said: str
) -> None:
    text = unreadable(GatewayError(message, status=status, detail=detail))
    assert said in text
    assert ("security-events" in text) is False


# --------------------------------------------------------------------------- never waited for


def test_code_scanning_is_in_no_pack_and_never_expected() -> None:
    assert REGISTRY.profile("code-scanning").pack == "none"
    assert "code-scanning" not in reviewer_keys()
    settings = Settings()
    assert "code-scanning" not in settings.fast_pack + settings.slow_pack
    assert settings.code_scanning is False and settings.required == []
    assert Settings.model_validate({"code-scanning": "true"}).required == ["code-scanning"]
    states = {"code-scanning": BotStatus(state="not_seen")}
    assert settled_and_pending(states, ["code-scanning"]) == ([], [], [])


@pytest.mark.parametrize("key", ["expected-bots", "require-bots", "fast-pack", "slow-pack"])
def test_code_scanning_is_switched_on_by_its_own_key_not_as_a_reviewer(key: str) -> None:
    from reviewcoord.config import build_settings

    with pytest.raises(ConfigError, match="set `code-scanning: true`"):
        build_settings({}, {key: "code-scanning"}, file_source="f", input_source="inputs")


def judge_with(read: AlertRead, record: History | None) -> tuple[Verdict, History]:
    """One cycle's judgement of the alerts alone (no file changed since the record)."""
    ingested = with_alerts([], read)
    subject = Subject("o/r", 12, HEAD, [], ingested, [])
    context = first_cycle()
    if record is not None:
        decoded, notice = decode(f"{MARKER}\n{encode(record)}", repo="o/r", pr=12)
        assert notice is None and decoded is not None
        context = replace(context, record=decoded, cycle=2, mode="same_head", latest=NOTHING)
    judgement = judge(subject, context, JudgeSettings(required=["code-scanning"]))
    return judgement.verdict, judgement.record


def test_an_alert_finding_survives_the_history_record_and_leaves_it_when_dismissed() -> None:
    high = alert(4, security_severity_level="high")
    v1, record = judge_with(AlertRead(REF, alerts=[high]), None)
    (entry,) = record.findings
    assert (entry.endpoint, entry.comment_id, entry.status) == ("code_scanning_alert", 4, "open")
    assert v1.gate == "block"
    # Not read this time: the recorded blocker carries forward (fail closed).
    v2, _ = judge_with(AlertRead(REF, problem="code scanning alerts could not be read (x)"), record)
    assert v2.gate == "block" and v2.critical[0].carried_forward
    # Read, and no longer open (dismissed; its file untouched): gone from the gate, visibly.
    v3, _ = judge_with(AlertRead(REF, alerts=[]), record)
    assert v3.gate == "go"
    (change,) = v3.changes
    assert change.change == "likely_fixed"
    assert change.note == "code scanning no longer lists it as open (fixed or dismissed)"
