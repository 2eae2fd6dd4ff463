"""Render a Verdict as text for each GitHub surface: sticky comment, check run, job summary,
commit status; plus the error report, the "stale" banner and the check-run annotations.

Every Markdown body comes from a Jinja2 template in `templates/`; autoescape is off (the output
is Markdown, not HTML) and every untrusted value goes through an explicit filter from
`reviewcoord.render.safe` instead. Rendering is pure: Verdict in, str out.

Sizes. GitHub rejects a comment over 65,536 characters and a check summary over 65,535
(docs/github-platform.md §2.1); a verdict can hold thousands of long-titled findings. Each body is
therefore rendered by `_fit`: first in full, then in steps that cut the least useful text first
(the folded advisory lines, then advisory in full, then critical gists, then the tail of the
critical list), until it fits. Every step that cuts something adds a visible "✂️ Shortened" note
naming what was cut; the marker and the gate line are never cut.

No `from __future__ import annotations` here: it would bind the name `annotations`, which is
a public function of this module.

The sticky marker. The publisher finds our comment by its first line, so `sticky_comment`
refuses (ValueError) to return a body that does not start with MARKER or that holds it twice.
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from jinja2 import Environment, PackageLoader, StrictUndefined, Template

from reviewcoord.bots import bot_keys, display_name, rerequest_hint
from reviewcoord.github.gateway import Annotation, CheckOutput
from reviewcoord.model import Verdict, VerdictFinding
from reviewcoord.render import safe

__all__ = [
    "CHECK_TEXT_LIMIT",
    "COMMENT_LIMIT",
    "JOB_SUMMARY_LIMIT",
    "MARKER",
    "STATUS_DESCRIPTION_LIMIT",
    "annotations",
    "check_output",
    "error_report",
    "job_summary",
    "pending_description",
    "stale_sticky",
    "status_description",
    "sticky_comment",
]

MARKER = "<!-- review-coordinator-verdict -->"
# 422 "Body is too long (maximum is 65536 characters)" (docs/github-platform.md §2.1).
COMMENT_LIMIT = 65_536
# checks/create and checks/update: output.summary and output.text have maxLength 65535.
CHECK_TEXT_LIMIT = 65_535
# 422 "description is too long (maximum is 140 characters)".
STATUS_DESCRIPTION_LIMIT = 140
# GITHUB_STEP_SUMMARY may hold 1 MiB per step, but a summary that long is unreadable and the same
# text is often pasted into a comment: keep it within the comment limit.
JOB_SUMMARY_LIMIT = COMMENT_LIMIT
# Annotation `title` ≤ 255 characters, `message` ≤ 64 KB (OAS checks/create).
ANNOTATION_TITLE_LIMIT = 255
ANNOTATION_MESSAGE_BYTES = 64 * 1024 - 1

STALE_PREFIX = "> ⚠️ This verdict is stale: "

_LEVEL_TO_ANNOTATION: dict[str, Literal["notice", "warning", "failure"]] = {
    "critical": "failure",
    "medium": "warning",
    "low": "notice",
}

_ENV = Environment(
    loader=PackageLoader("reviewcoord", "render/templates"),
    undefined=StrictUndefined,
    # Markdown, not HTML: escaping is done per value by the filters below, on purpose.
    autoescape=False,
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
)
_ENV.filters.update(
    text=safe.md_text,
    code=safe.code,
    link=safe.link,
    bot=safe.bot,
    bots=safe.bots,
    logins=safe.logins,
    sha=safe.short_sha,
)
_ENV.globals.update(location=safe.location)


def _template(name: str) -> Template:
    """The named template (a seam: tests swap it to prove the marker check bites)."""
    return _ENV.get_template(name)


def _measure(text: str) -> int:
    """Length as GitHub may count it. Ruby counts code points, JavaScript UTF-16 units; UTF-16 is
    never smaller, so a body that fits by this measure fits by both."""
    return len(text.encode("utf-16-le")) // 2


# --- fitting a body into a size limit ----------------------------------------------------------


@dataclass(frozen=True)
class _Plan:
    """How much of a verdict to show. `None` means all."""

    critical: int | None = None  # critical findings listed
    gist: int = 300  # characters of each gist; 0 leaves gists out
    title: int = 200  # characters of each title
    advisory_full: int = 10  # advisory findings shown like the critical ones
    advisory_folded: int | None = None  # one-line advisory entries inside <details>
    notes: int = 20  # extra notes listed
    parse_notes: int = 50  # parse notes listed
    names: int = 20  # bots / logins listed per line


_DEFAULT_PLAN = _Plan()


def _ladder(advisory_full: int) -> list[_Plan]:
    """Plans from the full rendering to the smallest that still lists every critical finding."""
    full = _Plan(advisory_full=advisory_full)
    short = replace(full, advisory_folded=0, advisory_full=0, notes=10, parse_notes=10)
    return [
        full,
        replace(full, advisory_folded=100),
        replace(full, advisory_folded=20),
        replace(full, advisory_folded=0),
        replace(full, advisory_folded=0, advisory_full=3, notes=10, parse_notes=10),
        replace(short, gist=100),
        # Notes are the last thing to give way before the list of critical findings.
        replace(short, gist=0, title=100, notes=5, parse_notes=5),
    ]


# Nothing but counts: what is left when even listing no critical finding does not fit.
_MINIMAL = _Plan(
    critical=0,
    gist=0,
    title=100,
    advisory_full=0,
    advisory_folded=0,
    notes=0,
    parse_notes=0,
    names=5,
)


@dataclass(frozen=True)
class _Surface:
    template: str
    limit: int
    limit_label: str  # "comment" / "check-run summary" / "job summary"
    advisory_full: int  # advisory findings in full at the top of the ladder
    more_critical: str  # where the unlisted critical findings can be seen
    more_advisory: str  # where the folded advisory findings can be read in full


_STICKY = _Surface(
    "sticky.md.j2",
    COMMENT_LIMIT,
    "comment",
    10,
    "see the check run",
    "see the bots' comments above",
)
_CHECK = _Surface(
    "check_summary.md.j2",
    CHECK_TEXT_LIMIT,
    "check-run summary",
    25,
    "see the annotations and the bots' comments on the pull request",
    "see the bots' comments on the pull request",
)
_JOB = _Surface(
    "job_summary.md.j2",
    JOB_SUMMARY_LIMIT,
    "job summary",
    10,
    "see the check run",
    "see the bots' comments on the pull request",
)


def _cut_note(
    surface: _Surface,
    plan: _Plan,
    *,
    critical_hidden: int,
    advisory_unlisted: int,
    parse_notes_hidden: int,
    notes_hidden: int,
    has_gists: bool,
) -> str:
    cuts: list[str] = []
    if critical_hidden:
        cuts.append(
            f"{critical_hidden:,} critical {_noun(critical_hidden)} not listed "
            f"({surface.more_critical})"
        )
    if has_gists and plan.gist < _DEFAULT_PLAN.gist:
        cuts.append("gists left out" if plan.gist == 0 else f"gists cut to {plan.gist} characters")
    if plan.title < _DEFAULT_PLAN.title:
        cuts.append(f"titles cut to {plan.title} characters")
    if advisory_unlisted:
        cuts.append(
            f"{advisory_unlisted:,} advisory {_noun(advisory_unlisted)} counted, not listed"
        )
    if parse_notes_hidden:
        cuts.append(f"{parse_notes_hidden:,} parse notes not listed")
    if notes_hidden:
        cuts.append(f"{notes_hidden:,} notes not listed")
    if plan.names < _DEFAULT_PLAN.names:
        cuts.append(f"bot lists cut to {plan.names} names")
    if not cuts:
        return ""
    return (
        f"Shortened to fit GitHub's {surface.limit:,}-character {surface.limit_label} "
        f"limit: {'; '.join(cuts)}."
    )


def _noun(n: int) -> str:
    return "finding" if n == 1 else "findings"


# Each bot's line in the verdict; more than this many bots is not a real PR.
_MAX_BOT_ROWS = 40


def bot_rows(verdict: Verdict) -> list[dict[str, Any]]:
    """One row per bot in `verdict.bots` (expected ones first) for `_macros.bot_line`."""
    expected = set(verdict.expected_bots)
    required = set(verdict.required_bots)
    ordered = sorted(verdict.bots.items(), key=lambda item: item[0] not in expected)
    return [
        {
            "bot": key,
            "state": status.state,
            "detail": status.detail,
            "url": status.url,
            "hint": rerequest_hint(key) if key in bot_keys() else "",
            "expected": key in expected,
            "required": key in required,
        }
        for key, status in ordered
    ]


def _context(
    verdict: Verdict, plan: _Plan, surface: _Surface, extra_notes: Sequence[str]
) -> dict[str, Any]:
    critical = verdict.critical if plan.critical is None else verdict.critical[: plan.critical]
    advisory_full = verdict.advisory[: plan.advisory_full]
    rest = verdict.advisory[plan.advisory_full :]
    folded = rest if plan.advisory_folded is None else rest[: plan.advisory_folded]
    parse_notes = verdict.parse_notes[: plan.parse_notes]
    notes = list(extra_notes[: plan.notes])
    counts = {
        "critical_hidden": len(verdict.critical) - len(critical),
        # Folded entries are not "cut": the default rendering folds them on purpose.
        "advisory_unlisted": len(rest) - len(folded),
        "parse_notes_hidden": len(verdict.parse_notes) - len(parse_notes),
        "notes_hidden": len(extra_notes) - len(notes),
    }
    has_gists = any(f.gist for f in (*critical, *advisory_full))
    rows = bot_rows(verdict)
    return {
        "verdict": verdict,
        "bot_rows": rows[:_MAX_BOT_ROWS],
        "bot_rows_hidden": max(0, len(rows) - _MAX_BOT_ROWS),
        "critical": critical,
        "advisory_full": advisory_full,
        "advisory_rest": len(rest),
        "advisory_folded": folded,
        "parse_notes": parse_notes,
        "notes": notes,
        "gist_chars": plan.gist,
        "title_chars": plan.title,
        "names": plan.names,
        "rows": plan.notes,  # review-cycle rows per section shrink with the notes
        "more_critical": surface.more_critical,
        "more_advisory": surface.more_advisory,
        "cut_note": _cut_note(surface, plan, has_gists=has_gists, **counts),
        **counts,
    }


def _fit(
    surface: _Surface,
    verdict: Verdict,
    extra_notes: Sequence[str],
    extra: dict[str, Any] | None = None,
    limit: int | None = None,
) -> str:
    """The fullest rendering of `verdict` on `surface` that fits its size limit."""
    limit = surface.limit if limit is None else limit
    template = _template(surface.template)

    def render(plan: _Plan) -> str:
        return template.render(**_context(verdict, plan, surface, extra_notes), **(extra or {}))

    ladder = _ladder(surface.advisory_full)
    body = render(ladder[0])
    if _measure(body) <= limit:
        return body  # the usual case: one render
    # Try the smallest plan that still lists every critical finding before the ones between:
    # for a huge verdict this saves several renders of thousands of findings.
    last = ladder[-1]
    if _measure(render(last)) <= limit:
        for plan in ladder[1:]:
            body = render(plan)
            if _measure(body) <= limit:
                return body
    # Still too long with every critical finding listed briefly: list the first K, the largest
    # K that fits (binary search; the body grows with K).
    best: str | None = None
    lo, hi = 0, len(verdict.critical) - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        body = render(replace(last, critical=mid))
        if _measure(body) <= limit:
            best, lo = body, mid + 1
        else:
            hi = mid - 1
    if best is not None:
        return best
    body = render(_MINIMAL)
    if _measure(body) <= limit:
        return body
    raise ValueError(
        f"cannot fit the {surface.limit_label} into {limit:,} characters even with every list "
        "left out (is the history block too long?)"
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
    body = _fit(_STICKY, verdict, extra_notes, {"marker": MARKER, "history_block": history})
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
    if _measure(body) > COMMENT_LIMIT:
        body = _shorten_old_body(head + warning, rest)
    return _require_marker(body)


_DETAILS_OPEN = re.compile(r"<details>")
_DETAILS_CLOSE = re.compile(r"</details>")


def _shorten_old_body(top: str, rest: str) -> str:
    """`top` + as many whole lines of `rest` as fit, with open <details> closed and a note."""
    note = "\n\n_✂️ The end of this stale verdict was cut to fit GitHub's comment size limit._\n"
    budget = COMMENT_LIMIT - _measure(top) - _measure(note) - 200  # 200: room for </details>
    kept: list[str] = []
    used = 0
    for line in rest.split("\n"):
        cost = _measure(line) + 1
        if used + cost > budget:
            break
        kept.append(line)
        used += cost
    body = "\n".join(kept)
    unclosed = len(_DETAILS_OPEN.findall(body)) - len(_DETAILS_CLOSE.findall(body))
    body += "\n\n</details>" * max(0, min(unclosed, 20))
    return top + body + note


# --- check run, job summary, statuses ----------------------------------------------------------


def check_output(verdict: Verdict, *, extra_notes: Sequence[str] = ()) -> CheckOutput:
    """Title and summary of the check run; annotations are sent separately (`annotations`)."""
    return CheckOutput(
        title=status_description(verdict),
        summary=_fit(_CHECK, verdict, extra_notes),
    )


def job_summary(verdict: Verdict, *, extra_notes: Sequence[str] = ()) -> str:
    """Markdown for GITHUB_STEP_SUMMARY (also within the comment limit)."""
    return _fit(_JOB, verdict, extra_notes)


def status_description(verdict: Verdict) -> str:
    """One line for the commit status (≤ 140 characters): "block: 2 critical findings (…)"."""
    reason = safe.clean(verdict.gate_reason, STATUS_DESCRIPTION_LIMIT)
    if not reason:
        n = len(verdict.critical)
        reason = f"{n} critical {_noun(n)}" if n else "no critical findings"
    return safe.clip(f"{verdict.gate}: {reason}", STATUS_DESCRIPTION_LIMIT)


def pending_description(waiting_for: Sequence[str]) -> str:
    """The commit status while settling (≤ 140 characters): "waiting for codex, claude…"."""
    names = [name for name in (safe.clean(n, 60) for n in waiting_for) if name]
    if not names:
        return "waiting for the review bots…"
    text = f"waiting for {', '.join(names)}"
    if len(text) + 1 <= STATUS_DESCRIPTION_LIMIT:
        return text + "…"
    return safe.clip(text, STATUS_DESCRIPTION_LIMIT)


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
    template = _template("error.md.j2")

    def render(shown: int) -> str:
        return template.render(
            repo=repo,
            pr=pr,
            head_sha=head_sha,
            problem=problem or "review-coordinator failed before it could read the pull request.",
            details=list(details[:shown]),
            details_hidden=len(details) - min(shown, len(details)),
        )

    shown = min(len(details), 50)
    body = render(shown)
    while _measure(body) > CHECK_TEXT_LIMIT and shown > 0:
        shown //= 2
        body = render(shown)
    return body


# --- annotations -------------------------------------------------------------------------------


def annotations(verdict: Verdict) -> list[Annotation]:
    """One annotation per finding that names a file, critical first (the publisher sends them
    50 per request). Plain text: annotations are not rendered as Markdown."""
    result: list[Annotation] = []
    for f in (*verdict.critical, *verdict.advisory):
        path = _annotation_path(f.file)
        if path is None:
            continue
        start = f.line if f.line is not None and f.line >= 1 else 1
        end = f.line_end if f.line_end is not None and f.line_end >= start else start
        result.append(
            Annotation(
                path=path,
                start_line=start,
                end_line=end,
                annotation_level=_LEVEL_TO_ANNOTATION[f.severity],
                title=safe.clip(
                    safe.escape_non_bmp(safe.clean(f"{f.id} · {safe.clip(f.title, 1_000)}", 1_000)),
                    ANNOTATION_TITLE_LIMIT,
                ),
                message=_annotation_message(f),
            )
        )
    return result


def _annotation_path(file: str | None) -> str | None:
    """The path as GitHub must see it to place the annotation, or None to skip the finding.

    A path is matched against the diff verbatim, so it cannot be "cleaned" into another path:
    one with control or invisible characters, or characters the annotations API rejects (above
    U+FFFF), is skipped instead; the finding is still in the summary.
    """
    if not file or len(file) > 1_000:
        return None
    if safe.has_controls(file) or safe.escape_non_bmp(file) != file:
        return None
    return file


def _annotation_message(f: VerdictFinding) -> str:
    lines = []
    gist = safe.clean(f.gist, 1_000)
    if gist:
        lines += [gist, ""]
    lines.append(
        f"{f.agreement} {'bot' if f.agreement == 1 else 'bots'}: {safe.clean(f.spread, 500)}"
    )
    for s in f.sources:
        url = safe.safe_url(s.url)
        name = display_name(s.bot)
        lines.append(f"{name}: {url}" if url else name)
    message = safe.escape_non_bmp(safe.clean_multiline("\n".join(lines)))
    return _clip_bytes(message, ANNOTATION_MESSAGE_BYTES)


def _clip_bytes(text: str, limit: int) -> str:
    """`text` cut so its UTF-8 encoding is at most `limit` bytes (with "…" when cut)."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    cut = data[: limit - len(safe.ELLIPSIS.encode("utf-8"))].decode("utf-8", errors="ignore")
    return cut + safe.ELLIPSIS
