"""One entry point per surface: the sticky comment, the check run, the job summary, the commit
status (verdict and pending), the error report, and the stale banner on an old sticky.

The sticky marker. The publisher finds our comment by its first line, so `sticky_comment` and
`stale_sticky` refuse (ValueError) to return a body that does not start with MARKER or that holds
it twice.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import reviewcoord.render.safe as safe
from reviewcoord.github.gateway import CheckOutput
from reviewcoord.limits import (
    CHECK_TEXT_LIMIT,
    COMMENT_LIMIT,
    MARKER,
    STATUS_DESCRIPTION_LIMIT,
)
from reviewcoord.model import Verdict
from reviewcoord.render.fit import Surface, finding_noun, fit, measure
from reviewcoord.render.templating import template

# GITHUB_STEP_SUMMARY may hold 1 MiB per step, but a summary that long is unreadable and the same
# text is often pasted into a comment: keep it within the comment limit.
JOB_SUMMARY_LIMIT = COMMENT_LIMIT

STALE_PREFIX = "> ⚠️ This verdict is stale: "

_STICKY = Surface(
    "sticky.md.j2",
    COMMENT_LIMIT,
    "comment",
    10,
    "see the check run",
    "see the bots' comments above",
)
_CHECK = Surface(
    "check_summary.md.j2",
    CHECK_TEXT_LIMIT,
    "check-run summary",
    25,
    "see the annotations and the bots' comments on the pull request",
    "see the bots' comments on the pull request",
)
_JOB = Surface(
    "job_summary.md.j2",
    JOB_SUMMARY_LIMIT,
    "job summary",
    10,
    "see the check run",
    "see the bots' comments on the pull request",
)


# --- the sticky comment ------------------------------------------------------------------------


def _require_marker(body: str) -> str:
    """The renderer's promise to the publisher: MARKER is line 1, and nowhere else."""
    if not body.startswith(MARKER + "\n") or body.count(MARKER) != 1:
        raise ValueError(
            f"refusing to emit a sticky comment that does not start with {MARKER!r} exactly once"
        )
    return body


def sticky_comment(
    verdict: Verdict, *, extra_notes: Sequence[str] = (), history_block: str = ""
) -> str:
    """The sticky PR comment: MARKER on line 1, then `history_block` (if any), then the verdict.

    `history_block` is opaque (a hidden HTML comment written by the cycle-history code) and is
    placed verbatim on the lines right after the marker; it must not contain the marker.
    """
    history = history_block.strip("\r\n")
    if MARKER in history:
        raise ValueError("history_block must not contain the sticky marker")
    body = fit(_STICKY, verdict, extra_notes, {"marker": MARKER, "history_block": history})
    return _require_marker(body)


def stale_sticky(previous_body: str, *, reason: str) -> str:
    """`previous_body` (our earlier sticky) with a visible stale warning at its top.

    The warning goes right after the marker line — after the hidden history block when one
    directly follows the marker, so hidden lines stay where the history code put them. Marking
    again replaces the earlier warning (idempotent). The result stays within COMMENT_LIMIT; if
    it would not, the end of the old body is cut, with a note.
    """
    # GitHub may hand back CRLF after a web edit; the publisher's `is_sticky` tolerates leading
    # whitespace before the marker, so accept the same bodies.
    text = previous_body.replace("\r\n", "\n").lstrip()
    if not text.startswith(MARKER):
        raise ValueError(f"not a review-coordinator sticky: it does not start with {MARKER!r}")
    rest = text[len(MARKER) :]
    rest = rest[1:] if rest.startswith("\n") else rest.lstrip(" \t")
    # A hand-edited body could hold the marker again; defuse it so the result has exactly one.
    rest = rest.replace(MARKER, safe.md_text(MARKER, None))
    head = MARKER + "\n"
    # Keep a hidden history block (an HTML comment right after the marker) above the warning.
    if rest.startswith("<!--"):
        end = rest.find("-->")
        if end != -1:
            line_end = rest.find("\n", end)
            cut = len(rest) if line_end == -1 else line_end + 1
            head += rest[:cut].rstrip("\n") + "\n"
            rest = rest[cut:]
    # Drop an earlier warning (our own line plus the blank line after it).
    if rest.startswith(STALE_PREFIX):
        _, _, rest = rest.partition("\n")
        rest = rest.lstrip("\n")
    warning = STALE_PREFIX + (safe.md_text(reason, 300) or "the head commit changed") + "\n\n"
    body = head + warning + rest
    if measure(body) > COMMENT_LIMIT:
        body = _shorten_old_body(head + warning, rest)
    return _require_marker(body)


_DETAILS_OPEN = re.compile(r"<details>")
_DETAILS_CLOSE = re.compile(r"</details>")


def _shorten_old_body(top: str, rest: str) -> str:
    """`top` + as many whole lines of `rest` as fit, with open <details> closed and a note."""
    note = "\n\n_✂️ The end of this stale verdict was cut to fit GitHub's comment size limit._\n"
    budget = COMMENT_LIMIT - measure(top) - measure(note) - 200  # 200: room for </details>
    kept: list[str] = []
    used = 0
    for line in rest.split("\n"):
        cost = measure(line) + 1
        if used + cost > budget:
            break
        kept.append(line)
        used += cost
    body = "\n".join(kept)
    unclosed = len(_DETAILS_OPEN.findall(body)) - len(_DETAILS_CLOSE.findall(body))
    body += "\n\n</details>" * max(0, min(unclosed, 20))
    return top + body + note


# --- check run, job summary, statuses ----------------------------------------------------------


def check_output(
    verdict: Verdict, config_where: str | None = None, *, extra_notes: Sequence[str] = ()
) -> CheckOutput:
    """Title and summary of the check run; annotations are sent separately (`annotations`)."""
    return CheckOutput(
        title=status_description(verdict, config_where),
        summary=fit(_CHECK, verdict, extra_notes),
    )


def job_summary(verdict: Verdict, *, extra_notes: Sequence[str] = ()) -> str:
    """Markdown for GITHUB_STEP_SUMMARY (also within the comment limit)."""
    return fit(_JOB, verdict, extra_notes)


def status_description(verdict: Verdict, config_where: str | None = None) -> str:
    """One line for the commit status (≤ 140 characters): "block: 2 critical findings (…)";
    with an invalid config file it names the file and line first, before the reason is clipped
    ("go (config file invalid: .github/review-coordinator.yml line 2; see the sticky): …")."""
    reason = safe.clean(verdict.gate_reason, STATUS_DESCRIPTION_LIMIT)
    if not reason:
        n = len(verdict.critical)
        reason = f"{n} critical {finding_noun(n)}" if n else "no critical findings"
    config = ""
    if verdict.config_warning:
        where = f": {safe.clean(config_where, 80)}" if config_where else ""
        config = f" (config file invalid{where}; see the sticky)"
    return safe.clip(f"{verdict.gate}{config}: {reason}", STATUS_DESCRIPTION_LIMIT)


def error_description(problem: str) -> str:
    """The commit status when no trustworthy verdict could be made (≤ 140 characters)."""
    return safe.clip(
        f"error: {safe.clean(problem, STATUS_DESCRIPTION_LIMIT)}", STATUS_DESCRIPTION_LIMIT
    )


def pending_description(waiting_for: Sequence[str]) -> str:
    """The commit status while settling (≤ 140 characters): "waiting for codex, claude…"."""
    names = [name for name in (safe.clean(n, 60) for n in waiting_for) if name]
    if not names:
        return "waiting for the review bots…"
    text = f"waiting for {', '.join(names)}"
    if len(text) + 1 <= STATUS_DESCRIPTION_LIMIT:
        return text + "…"
    return safe.clip(text, STATUS_DESCRIPTION_LIMIT)


# --- the error report --------------------------------------------------------------------------


def error_report(
    *,
    repo: str,
    pr: int | None,
    head_sha: str | None,
    problem: str,
    details: Sequence[str] = (),
) -> str:
    """Markdown (check-run / job summary) for a run that could not reach a trustworthy verdict:
    the gate is not go, and this says what could not be read."""
    report_template = template("error.md.j2")

    def render(shown: int) -> str:
        return report_template.render(
            repo=repo,
            pr=pr,
            head_sha=head_sha,
            problem=problem or "review-coordinator failed before it could read the pull request.",
            details=list(details[:shown]),
            details_hidden=len(details) - min(shown, len(details)),
        )

    shown = min(len(details), 50)
    body = render(shown)
    while measure(body) > CHECK_TEXT_LIMIT and shown > 0:
        shown //= 2
        body = render(shown)
    return body
