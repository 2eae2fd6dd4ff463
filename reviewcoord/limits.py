"""GitHub's limits and our own markers, each written once (docs/github-platform.md §2.1).

Everything that must respect a limit imports it from here: the renderers (sizes), the
publishers (status description), the gateway (annotation batches).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

# Line 1 of our sticky comment: how we find it again (docs/interface.md §6).
MARKER = "<!-- review-coordinator-verdict -->"

# 422 "Body is too long (maximum is 65536 characters)".
COMMENT_LIMIT = 65_536
# checks/create and checks/update: output.summary and output.text have maxLength 65535.
CHECK_TEXT_LIMIT = 65_535
# 422 "description is too long (maximum is 140 characters)".
STATUS_DESCRIPTION_LIMIT = 140
# checks/create, checks/update: `annotations` maxItems 50; further ones need more requests,
# and "each time you update the check run, annotations are appended".
ANNOTATIONS_PER_REQUEST = 50

T = TypeVar("T")


def annotation_batches(annotations: Sequence[T]) -> list[list[T]]:
    """The annotations in request-sized batches (at least one batch, possibly empty)."""
    size = ANNOTATIONS_PER_REQUEST
    batches = [list(annotations[i : i + size]) for i in range(0, len(annotations), size)]
    return batches or [[]]
