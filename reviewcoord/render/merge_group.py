"""Text of a `merge_group` run (reviewcoord/merge_queue.py): the check run's title and summary,
the commit status description and the job summary. Every value is untrusted and goes through
the filters of `reviewcoord.render.safe` (in the template) or `safe.clean` (plain lines)."""

from __future__ import annotations

import reviewcoord.render.safe as safe
from reviewcoord.github.gateway import CheckOutput
from reviewcoord.limits import STATUS_DESCRIPTION_LIMIT
from reviewcoord.render.templating import template


def description(gate: str, reason: str) -> str:
    """One line for the commit status and the check title (≤ 140 characters)."""
    text = f"{gate}: {safe.clean(reason, STATUS_DESCRIPTION_LIMIT)}"
    return safe.clip(text, STATUS_DESCRIPTION_LIMIT)


def report(
    *,
    repo: str,
    pr: int,
    gate: str,
    reason: str,
    group_sha: str,
    pr_head: str | None,
    verdict_url: str,
    pull_url: str,
) -> str:
    """Markdown for the check-run summary and the job summary (short: the reason is clipped)."""
    return template("merge_group.md.j2").render(
        repo=repo,
        pr=pr,
        gate=gate,
        success=gate == "go",
        reason=reason,
        group_sha=group_sha,
        pr_head=pr_head,
        verdict_url=verdict_url,
        pull_url=pull_url,
    )


def check_output(summary: str, gate: str, reason: str) -> CheckOutput:
    return CheckOutput(title=description(gate, reason), summary=summary)


def pending_output(pr: int) -> CheckOutput:
    """The check run while the PR's verdict is being read (a few requests)."""
    return CheckOutput(
        title="Reading the PR's verdict",
        summary=f"review-coordinator is reading the verdict of PR #{pr} for this merge group.",
    )
