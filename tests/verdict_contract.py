"""docs/interface.md §5 as an executable check: every field, its type, and the gate rule."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

LEVELS = {"critical", "medium", "low"}
# The built-in bot keys of docs/interface.md §7, and the one source (read, never waited for).
REVIEWERS = {
    *("codex", "copilot", "cursor", "claude", "coderabbit", "gemini", "greptile", "qodo"),
    *("cubic", "macroscope", "codeant", "graphite", "devin"),
}
SOURCES = {"code-scanning"}
BOTS = REVIEWERS | SOURCES
ENDPOINTS = {"review", "review_comment", "issue_comment", "code_scanning_alert"}


def _finding(f: Any, bots: Collection[str] = BOTS) -> None:
    assert isinstance(f, dict)
    assert isinstance(f["id"], str) and f["id"].startswith("F") and f["id"][1:].isdigit()
    assert f["file"] is None or isinstance(f["file"], str)
    for key in ("line", "line_end"):
        assert f[key] is None or (isinstance(f[key], int) and f[key] > 0)
    assert isinstance(f["title"], str) and f["title"]
    assert f["severity"] in LEVELS
    assert isinstance(f["agreement"], int) and f["agreement"] >= 1
    assert f["agreement"] == len({s["bot"] for s in f["sources"]})
    # Added: whether the sources report one issue, and how many bots report the lead's issue.
    assert isinstance(f["agrees"], bool)
    assert isinstance(f["same_issue"], int) and 1 <= f["same_issue"] <= f["agreement"]
    assert not f["agrees"] or f["same_issue"] == f["agreement"]
    for s in f["sources"]:
        assert s["bot"] in bots
        assert s["severity_raw"] is None or isinstance(s["severity_raw"], str)
        assert s["severity"] in LEVELS
        assert isinstance(s["url"], str)
        assert s["endpoint"] in ENDPOINTS


def check_verdict(v: Any, declared: Collection[str] = ()) -> None:
    """`declared`: the keys of the reviewers the run's config declares (bots like the others)."""
    bots = BOTS | set(declared)
    reviewers = REVIEWERS | set(declared)
    assert isinstance(v, dict)
    assert v["schema"] == 1
    assert isinstance(v["repo"], str) and v["repo"].count("/") == 1
    assert isinstance(v["pr"], int) and not isinstance(v["pr"], bool)
    assert isinstance(v["head_sha"], str) and v["head_sha"]
    assert isinstance(v["cycle"], int) and v["cycle"] >= 1
    assert v["settle"] in {"fast", "full", "none"}
    for key in ("settled_on", "pending"):
        assert isinstance(v[key], list) and set(v[key]) <= reviewers
    assert isinstance(v["unknown_bots"], list)
    for f in v["critical"]:
        _finding(f, bots)
        assert f["severity"] == "critical"
    for f in v["advisory"]:
        _finding(f, bots)
        assert f["severity"] != "critical"
    states = {"not_seen", "working", "reviewed", "failed", "skipped", "unreadable"}
    assert isinstance(v["bots"], dict) and set(v["bots"]) <= bots
    for bot, status in v["bots"].items():
        assert status["state"] in states, bot
        assert isinstance(status["detail"], str) and isinstance(status["url"], str)
    if v["bots"]:  # (hand-built render scenarios carry no states)
        assert set(v["expected_bots"]) <= set(v["bots"]) & reviewers
        assert set(v["required_bots"]) <= set(v["bots"])
        assert v["settled_on"] == [
            b for b, s in v["bots"].items() if s["state"] == "reviewed" and b in reviewers
        ]
        assert set(v["pending"]) == {
            b for b in v["expected_bots"] if v["bots"][b]["state"] in ("not_seen", "working")
        }
        owed = set(v["expected_bots"]) | set(v["required_bots"])
        sources = set(v["required_bots"]) - reviewers  # code scanning: never expected
        assert set(v["unreviewed"]) == {
            b
            for b in owed
            if v["bots"][b]["state"] in ("failed", "skipped", "unreadable")
            or (b in sources and v["bots"][b]["state"] != "reviewed")
        }
    missing = [b for b in v["required_bots"] if v["bots"].get(b, {}).get("state") != "reviewed"]
    assert v["gate"] in {"block", "go"}
    # interface §5: block iff a critical finding, a require-bots bot has not reviewed the head,
    # the record is held, or a bot is awaited (`wait: events`: published as pending).
    assert v.get("held") is None or isinstance(v["held"], str)
    awaiting = v.get("awaiting") or []
    assert set(awaiting) <= set(v["pending"]) | set(v["required_bots"])
    assert (v["gate"] == "block") == bool(v["critical"] or missing or v.get("held") or awaiting)
    assert isinstance(v["gate_reason"], str) and v["gate_reason"]
    ids = [f["id"] for f in v["critical"] + v["advisory"]]
    assert ids == [f"F{i}" for i in range(1, len(ids) + 1)]
