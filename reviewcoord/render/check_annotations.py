"""Check-run annotations from a verdict, within GitHub's title and message limits.

No `from __future__ import annotations` here: it would bind the name `annotations`, which is
the public function of this module.
"""

from typing import Literal

import reviewcoord.render.safe as safe
from reviewcoord.bots import display_name
from reviewcoord.github.gateway import Annotation
from reviewcoord.limits import ANNOTATION_MESSAGE_BYTES, ANNOTATION_TITLE_LIMIT
from reviewcoord.model import Verdict, VerdictFinding

_LEVEL_TO_ANNOTATION: dict[str, Literal["notice", "warning", "failure"]] = {
    "critical": "failure",
    "medium": "warning",
    "low": "notice",
}


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
                    safe.escape_non_bmp(safe.clean(f"{f.id} · {_annotation_title(f)}", 1_000)),
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


def _annotation_title(f: VerdictFinding) -> str:
    """The group's title, or, when its members report different issues, what it is: a place."""
    if f.agrees:
        return safe.clip(f.title, 1_000)
    n = len(f.sources)
    if n == f.agreement:
        return f"{n} bots flagged these lines"
    return f"{n} findings from {f.agreement} {'bot' if f.agreement == 1 else 'bots'} on these lines"


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
        if not f.agrees:  # different issues at one place: each member's own title
            name = f"{name}: {safe.clean(s.title, 200)}"
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
