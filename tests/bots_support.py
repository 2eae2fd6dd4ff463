"""Corpus loading and comment builders for the bot-parser tests."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from reviewcoord.bots import REGISTRY, bounded_regex
from reviewcoord.model import Endpoint, RawComment

# Real bot bodies from public PRs; see tests/fixtures/bots/PROVENANCE.md.
CORPUS_PATH = Path(__file__).resolve().parent / "fixtures" / "bots" / "corpus.jsonl"


class CorpusMissingError(FileNotFoundError):
    """The corpus fixture is part of the repository: without it the bot tests cannot run."""


def corpus_path() -> Path:
    """tests/fixtures/bots/corpus.jsonl; missing is an error naming the path, never a skip."""
    if not CORPUS_PATH.is_file():
        raise CorpusMissingError(
            f"bot corpus fixture missing: {CORPUS_PATH} "
            "(tracked in the repository; see tests/fixtures/bots/PROVENANCE.md)"
        )
    return CORPUS_PATH


def load_corpus() -> list[dict[str, Any]]:
    lines = corpus_path().read_text(encoding="utf-8").splitlines()
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


def graphql_bot(login: str) -> str | None:
    """The reviewer a GraphQL `Bot` author's suffix-less login (`claude`) maps to."""
    return REGISTRY.bot_for_graphql_author(login, "Bot")


def source_bot(login: str) -> str | None:
    """The reviewer a corpus entry's `bot_login` names as its source shows it: a REST login of
    a `Bot` account, or a GraphQL spelling of a `Bot` author."""
    return REGISTRY.bot_for_author(login, "Bot") or graphql_bot(login)


def finishes_within_cpu(seconds: float, work: Callable[[], object]) -> bool:
    """Whether `work()` ends within `seconds` of this process's CPU time (a linear parser ends in
    milliseconds, a runaway one never): unlike a wall-clock bound, a busy machine cannot fail it."""
    return not isinstance(bounded_regex.within(seconds, work), bounded_regex.OutOfTime)
