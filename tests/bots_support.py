"""Corpus loading and comment builders for the bot-parser tests."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from reviewcoord.model import Endpoint, RawComment

CORPUS_NAME = "bots/corpus.jsonl"


def corpus_path() -> Path | None:
    """shared/bots/corpus.jsonl next to the repository, else under $REVIEWCOORD_SHARED."""
    candidates = [Path(__file__).resolve().parents[2] / "shared" / CORPUS_NAME]
    env = os.environ.get("REVIEWCOORD_SHARED")
    if env:
        candidates.append(Path(env) / CORPUS_NAME)
    return next((path for path in candidates if path.is_file()), None)


def load_corpus() -> list[dict[str, Any]]:
    path = corpus_path()
    if path is None:
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def corpus_comment(entry: dict[str, Any], number: int) -> RawComment:
    """A RawComment as the gateway would build it from one corpus entry."""
    return RawComment(
        endpoint=entry["endpoint"],
        id=number,
        author_login=entry["bot_login"],
        author_type="Bot",
        body=entry["body"],
        path=entry.get("path"),
        line=entry.get("line"),
        review_state=entry.get("review_state"),
        html_url=entry.get("source") or "",
    )


def comment(
    body: str,
    endpoint: Endpoint = "review_comment",
    login: str = "bot",
    **fields: Any,
) -> RawComment:
    return RawComment(
        endpoint=endpoint,
        id=fields.pop("id", 1),
        author_login=login,
        author_type="Bot",
        body=body,
        html_url=fields.pop("html_url", "https://github.com/o/r/pull/1#x"),
        **fields,
    )


def as_list(value: Any) -> list[Any] | None:
    """Corpus `title`/`severity_raw`: null, one value, or a list (multi-finding bodies)."""
    if value is None:
        return None
    return list(value) if isinstance(value, list) else [value]
