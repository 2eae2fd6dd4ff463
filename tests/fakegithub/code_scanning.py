"""The fake's code scanning: alerts in GitHub's own shape, and the ways the endpoint fails.

Each alert is built from GitHub's REST reference example ("List code scanning alerts for a
repository", tests/fixtures/api-examples/code-scanning.list-alerts-for-repo.200.json), with
the fields a test sets replaced. `GET code-scanning/alerts` honours `ref` and `state` as
GitHub does: a ref that no analysis ran on answers 404 "no analysis found".
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

EXAMPLE = (
    Path(__file__).resolve().parents[1]
    / "fixtures"
    / "api-examples"
    / "code-scanning.list-alerts-for-repo.200.json"
)
MSG_NO_ANALYSIS = "no analysis found"
MSG_NOT_ACCESSIBLE = "Resource not accessible by integration"
DOC = "https://docs.github.com/rest/code-scanning/code-scanning#list-code-scanning-alerts-for-a-repository"


@cache
def _example() -> dict[str, Any]:
    item: dict[str, Any] = json.loads(EXAMPLE.read_text(encoding="utf-8"))[0]
    return item


def merge_ref(pr: int) -> str:
    return f"refs/pull/{pr}/merge"


def alert_json(
    repo: str,
    number: int,
    *,
    ref: str,
    state: str,
    rule_id: str,
    description: str,
    severity: str,
    security_severity_level: str | None,
    path: str,
    start_line: int,
    end_line: int | None,
    message: str,
    tool: str,
) -> dict[str, Any]:
    """One alert as `GET code-scanning/alerts` lists it."""
    alert = copy.deepcopy(_example())
    alert.update(
        number=number,
        url=f"https://api.github.com/repos/{repo}/code-scanning/alerts/{number}",
        html_url=f"https://github.com/{repo}/security/code-scanning/{number}",
        instances_url=f"https://api.github.com/repos/{repo}/code-scanning/alerts/{number}/instances",
        state=state,
    )
    if state == "dismissed":
        alert.update(dismissed_at="2026-01-05T09:00:00Z", dismissed_reason="false positive")
    if state == "fixed":
        alert["fixed_at"] = "2026-01-05T09:00:00Z"
    rule = alert["rule"]
    rule.update(id=rule_id, name=rule_id, description=description, severity=severity)
    if security_severity_level is not None:
        rule["security_severity_level"] = security_severity_level
    alert["tool"]["name"] = tool
    instance = alert["most_recent_instance"]
    instance.update(ref=ref, state=state, message={"text": message})
    instance["location"].update(path=path, start_line=start_line, end_line=end_line or start_line)
    return alert


PYTHON = "/language:python"
JAVASCRIPT = "/language:javascript-typescript"


def analysis_json(
    repo: str,
    aid: int,
    ref: str,
    commit_sha: str,
    created: str,
    category: str = PYTHON,
    tool: str = "CodeQL",
) -> dict[str, Any]:
    """One item of `GET code-scanning/analyses` (GitHub's REST reference: "List code scanning
    analyses for a repository"; the fields its schema requires). CodeQL's default setup names
    its categories `/language:<language>`, one analysis per language."""
    return {
        "ref": ref,
        "commit_sha": commit_sha,
        "analysis_key": ".github/workflows/codeql.yml:analyze",
        "environment": "{}",
        "category": category,
        "error": "",
        "created_at": created,
        "results_count": 0,
        "rules_count": 42,
        "id": aid,
        "url": f"https://api.github.com/repos/{repo}/code-scanning/analyses/{aid}",
        "sarif_id": f"6c81cd8e-b078-4ac3-a3be-{aid:012d}",
        "tool": {"name": tool, "guid": None, "version": "2.20.0"},
        "deletable": True,
        "warning": "",
    }


@dataclass
class CodeScanningState:
    """Alerts (newest first, as GitHub lists them) and the refs an analysis ran on."""

    alerts: list[dict[str, Any]] = field(default_factory=list)
    analysed: set[str] = field(default_factory=set)
    analyses: list[dict[str, Any]] = field(default_factory=list)  # newest first
    next_number: int = 100

    def listed(self, query: dict[str, str]) -> list[dict[str, Any]] | None:
        """The alerts `GET code-scanning/alerts` answers for `query`; None: no analysis."""
        ref = query.get("ref")
        if ref is not None and ref not in self.analysed:
            return None
        state = query.get("state")
        items = [
            a
            for a in self.alerts
            if (ref is None or a["most_recent_instance"]["ref"] == ref)
            and (state is None or a["state"] == state)
        ]
        return sorted(items, key=lambda a: -int(a["number"]))
