"""Property tests: no parser raises, and every result is well-formed, on arbitrary text."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reviewcoord.bots import bot_keys, parse_comment
from reviewcoord.model import BotKey, Endpoint, ParsedComment
from tests.bots_support import comment, load_corpus

BOTS: list[BotKey] = list(bot_keys())
ENDPOINTS: list[Endpoint] = ["review", "review_comment", "issue_comment"]
CORPUS_BODIES = [entry["body"] for entry in load_corpus()]
SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def spliced(draw: st.DrawFn) -> str:
    """Pieces of real bodies, truncated and glued, with arbitrary text in between."""
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        body = draw(st.sampled_from(CORPUS_BODIES))
        start = draw(st.integers(0, len(body)))
        end = draw(st.integers(start, len(body)))
        parts.append(body[start:end])
        parts.append(draw(st.text(max_size=20)))
    return "".join(parts)


def check(parsed: ParsedComment) -> None:
    assert (parsed.kind == "finding") == bool(parsed.findings)
    for finding in parsed.findings:
        assert finding.title.strip()
        assert finding.severity in {"critical", "medium", "low"}


@SETTINGS
@given(bot=st.sampled_from(BOTS), endpoint=st.sampled_from(ENDPOINTS), body=st.text())
def test_arbitrary_text(bot: BotKey, endpoint: Endpoint, body: str) -> None:
    parsed = parse_comment(bot, comment(body, endpoint))
    check(parsed)
    assert parsed.parse_note is None or "parser error" not in parsed.parse_note


@SETTINGS
@given(
    bot=st.sampled_from(BOTS),
    endpoint=st.sampled_from(ENDPOINTS),
    body=spliced(),
    line=st.none() | st.integers(-5, 10_000),
    original_line=st.none() | st.integers(-5, 10_000),
    path=st.none() | st.text(min_size=1, max_size=30),
    reply=st.none() | st.integers(1, 10),
)
def test_spliced_corpus_fragments(
    bot: BotKey,
    endpoint: Endpoint,
    body: str,
    line: int | None,
    original_line: int | None,
    path: str | None,
    reply: int | None,
) -> None:
    raw = comment(
        body, endpoint, line=line, original_line=original_line, path=path, in_reply_to_id=reply
    )
    parsed = parse_comment(bot, raw)
    check(parsed)
    assert parsed.parse_note is None or "parser error" not in parsed.parse_note
