"""Render a Verdict as text for each GitHub surface: sticky comment, check run, job summary,
commit status; plus the error report, the "stale" banner and the check-run annotations.

Rendering is pure: Verdict in, str out. Every Markdown body comes from a Jinja2 template in
`templates/`, with every untrusted value passed through a filter from `safe`. The modules:

    surfaces           one entry point per surface (sticky, check, job summary, statuses, …)
    fit                the size ladder that keeps a body under its surface's limit, and the
                       note saying what it cut
    rows               the per-bot state rows
    check_annotations  check-run annotations from a verdict
    templating         the Jinja2 environment and template lookup
    safe               making untrusted text safe for GitHub Markdown
    plain              the verdict as plain text for a terminal (own environment, optional colour)

GitHub's limits and the sticky marker are `reviewcoord.limits`'s; they are re-exported here.

No `from __future__ import annotations` here: it would bind the name `annotations`, which is
a public function of this package.
"""

from reviewcoord.limits import (
    ANNOTATION_MESSAGE_BYTES,
    ANNOTATION_TITLE_LIMIT,
    CHECK_TEXT_LIMIT,
    COMMENT_LIMIT,
    MARKER,
    STATUS_DESCRIPTION_LIMIT,
)
from reviewcoord.render import safe
from reviewcoord.render.check_annotations import annotations
from reviewcoord.render.rows import bot_rows
from reviewcoord.render.surfaces import (
    JOB_SUMMARY_LIMIT,
    STALE_PREFIX,
    check_output,
    error_description,
    error_report,
    job_summary,
    pending_description,
    stale_sticky,
    status_description,
    sticky_comment,
)

__all__ = [
    "ANNOTATION_MESSAGE_BYTES",
    "ANNOTATION_TITLE_LIMIT",
    "CHECK_TEXT_LIMIT",
    "COMMENT_LIMIT",
    "JOB_SUMMARY_LIMIT",
    "MARKER",
    "STALE_PREFIX",
    "STATUS_DESCRIPTION_LIMIT",
    "annotations",
    "bot_rows",
    "check_output",
    "error_description",
    "error_report",
    "job_summary",
    "pending_description",
    "safe",
    "stale_sticky",
    "status_description",
    "sticky_comment",
]
