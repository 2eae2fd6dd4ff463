"""The `next-step` output (docs/interface.md §4): what unblocks the PR, as one of a fixed set a
workflow can branch on. The sticky and the check run say the same in words (_next.md.j2)."""

from __future__ import annotations

from typing import Literal, get_args

from reviewcoord.bots import is_source
from reviewcoord.model import Verdict

NextStep = Literal[
    "none",
    "fix_findings",
    "accept_or_fix",
    "wait_review",
    "rerequest_review",
    "fix_config",
    "github_unreadable",
]
NEXT_STEPS: tuple[NextStep, ...] = get_args(NextStep)
_WAITING = ("not_seen", "working")


def next_step(verdict: Verdict | None, gate: str, *, bad_input: bool = False) -> NextStep:
    """`gate` is the run's (a merge_group run has no verdict of its own). A bot asked again
    for this head (`verdict.rerequested`) is waited for."""
    if gate == "error":
        return "fix_config" if bad_input else "github_unreadable"
    if gate == "go":
        return "none"
    if verdict is None:  # merge_group: the PR has no complete `go` for its head yet
        return "wait_review"
    if verdict.critical:
        contested = any(f.status == "awaiting_decision" for f in verdict.critical)
        return "accept_or_fix" if contested else "fix_findings"
    # Blocked without a critical finding: a required reviewer (or source) has not reviewed.
    missing = [b for b in verdict.required_bots if b in verdict.unreviewed or b in verdict.pending]
    if any(b in verdict.pending or b in verdict.rerequested for b in missing):
        return "wait_review"
    if missing and all(is_source(b) for b in missing):
        return "github_unreadable"  # a source (code scanning) could not be read
    return "rerequest_review"
