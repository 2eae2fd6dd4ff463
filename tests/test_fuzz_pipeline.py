"""Fuzz: random whole snapshots through snapshot.parse → ingest → verdict → every renderer.

Snapshots mix real bot bodies from tests/fixtures/bots/corpus.jsonl, spliced and mutated with
hostile fragments, under known bot logins, unknown `x[bot]`s and people, on all three endpoints,
with paths and lines that are missing, zero, negative or huge; some items have the wrong shape.

Invariants: only SnapshotError (one line) for invalid shapes, nothing else ever raised; the
verdict satisfies docs/interface.md §5 (tests/verdict_contract.py); gate `block` iff there is a
critical finding; the sticky starts with the marker (once), fits GitHub's limit, and lets no
mention, raw '<', invisible character or unbalanced <details> through; the other surfaces stay
in theirs.
"""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reviewcoord import render, snapshot
from reviewcoord.bots import reviewer_keys
from reviewcoord.errors import SnapshotError
from reviewcoord.ingest import ingest
from reviewcoord.pipeline import verdict_from
from tests.bots_support import load_corpus
from tests.test_hostile import (
    HISTORY_LINE,
    LINKABLE,
    MARKER,
    OUR_TAGS,
    forbidden_chars,
    outside_code,
)
from tests.verdict_contract import check_verdict

CORPUS = load_corpus()

HEAD = "ec26c3e57ca3a959ca5aad62de7213c562f8c821"
LOGINS = [
    *sorted({e["bot_login"] for e in CORPUS}),
    "x[bot]",
    "evil</details>[bot]",
    "octocat",
    "ghost",
    "github-actions[bot]",
]
FRAGMENTS = [
    "@octocat",
    "@org/team",
    "#12",
    "GH-3",
    MARKER,
    "<!--",
    "-->",
    "</details>",
    "<details><summary>x</summary>",
    "<img src=x onerror=alert(1)>",
    "```",
    "~~~",
    "`",
    "| a | b |\n|---|---|\n",
    "\n# H\n",
    "\n> q\n",
    "\x00",
    "\u200b",
    "\u200d",
    "\u202e",
    "\u2066",
    "\ufeff",
    "\ud800",
    "\r\n",
    "**High Severity**",
    "**Critical Severity**",
    "![P0 Badge](https://img.shields.io/badge/P0-red?style=flat)",
    "🔴",
    "[nitpick]",
    "### ",
    "`src/a.py:12`",
    "https://github.com/o/r/blob/" + HEAD + "/src/a.py#L3-L9",
    "<!-- LOCATIONS START\nsrc/a.py#L1-L2\nLOCATIONS END -->",
    "<!-- BUGBOT_BUG_ID: 1 -->",
    "**Reviewed commit:** `" + HEAD[:10] + "`",
    "::error::x",
    "&#64;octocat",
    "[x](javascript:alert(1))",
    "\\",
    "*",
    "_",
    "x" * 5000,
]

corpus_bodies = st.sampled_from([e["body"] for e in CORPUS])
fragment = st.sampled_from(FRAGMENTS)


@st.composite
def spliced(draw: st.DrawFn) -> str:
    """A corpus body with hostile fragments inserted, a slice removed, or another body appended."""
    text = draw(corpus_bodies)
    for _ in range(draw(st.integers(0, 6))):
        pos = draw(st.integers(0, len(text)))
        kind = draw(st.integers(0, 3))
        if kind == 0:
            text = text[:pos] + draw(fragment) + text[pos:]
        elif kind == 1:
            text = text[:pos] + draw(st.text(max_size=30)) + text[pos:]
        elif kind == 2:
            end = draw(st.integers(pos, len(text)))
            text = text[:pos] + text[end:]
        else:
            text = text[:pos] + draw(corpus_bodies)
    return text


bodies = st.one_of(
    corpus_bodies, spliced(), st.lists(fragment, max_size=12).map("".join), st.text(max_size=80)
)
paths = st.one_of(
    st.none(),
    st.sampled_from(["src/a.py", "src/@octocat/x.ts", "a\u202eb.py", "```\n# x", "../../etc/x"]),
    st.text(max_size=40),
)
lines = st.one_of(
    st.none(), st.integers(-5, 3000), st.sampled_from([0, -1, 2**31, 10**30, -(10**30)])
)
commits = st.one_of(st.none(), st.just(HEAD), st.sampled_from(["0" * 40, HEAD[:7], ""]))
# Values of the wrong type, to make some items invalid.
wrong = st.one_of(
    st.integers(), st.floats(allow_nan=True), st.booleans(), st.lists(st.integers(), max_size=2)
)


@st.composite
def item(draw: st.DrawFn, endpoint: str) -> Any:
    if draw(st.integers(0, 40)) == 0:  # not an object at all
        return draw(st.one_of(st.none(), st.text(max_size=5), st.integers(), st.just([])))
    d: dict[str, Any] = {
        "id": draw(st.one_of(st.integers(1, 10**6), st.sampled_from([0, -1, 10**20]))),
        "user": {
            "login": draw(st.sampled_from(LOGINS)),
            "type": draw(st.sampled_from(["Bot", "User"])),
        },
        "body": draw(bodies),
        "html_url": draw(st.sampled_from(["https://github.com/o/r/pull/1#x", "javascript:x", ""])),
    }
    if endpoint == "review":
        d["commit_id"] = draw(commits)
        d["state"] = draw(st.sampled_from(["COMMENTED", "APPROVED", "CHANGES_REQUESTED", None]))
    if endpoint == "review_comment":
        d.update(
            path=draw(paths),
            line=draw(lines),
            original_line=draw(lines),
            start_line=draw(lines),
            commit_id=draw(commits),
            original_commit_id=draw(commits),
        )
    if draw(st.integers(0, 25)) == 0:  # one field of the wrong type
        key = draw(st.sampled_from(sorted(d)))
        d[key] = draw(wrong) if key != "user" else draw(st.one_of(wrong, st.text(max_size=5)))
    return d


@st.composite
def snapshots(draw: st.DrawFn) -> dict[str, Any]:
    data: dict[str, Any] = {
        "format": 1,
        "repo": "octo/app",
        "pull": {"number": 2, "head": {"sha": HEAD}, "title": draw(bodies)},
    }
    for key, endpoint in snapshot.LISTS.items():
        data[key] = draw(st.lists(item(endpoint), max_size=8))
    if draw(st.integers(0, 30)) == 0:
        data[draw(st.sampled_from(["repo", "pull", "reviews"]))] = draw(wrong)
    # Through JSON, as a replay file would be (lone surrogates become \ud800 escapes).
    loaded: dict[str, Any] = json.loads(json.dumps(data))
    return loaded


def assert_sticky_safe(body: str) -> None:
    assert body.split("\n", 1)[0] == MARKER
    assert body.count(MARKER) == 1
    assert len(body) <= render.COMMENT_LIMIT
    body = HISTORY_LINE.sub("", body)
    assert body.count("<!--") == 1
    assert "<" not in OUR_TAGS.sub("", body)
    assert body.count("<details>") == body.count("</details>")
    assert not forbidden_chars(body)
    assert not LINKABLE.search(outside_code(body))
    for line in body.split("\n"):
        assert not line.lstrip().startswith(("```", "~~~", "|", "::")), line
        if line.startswith("#"):
            assert line.startswith(
                ("## 🧑‍⚖️ Review verdict", "### Critical (", "### Advisory (", "### What unblocks")
            ), line


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    data=snapshots(),
    expected=st.lists(st.sampled_from(reviewer_keys()), min_size=1, max_size=4, unique=True),
    window=st.integers(0, 50),
)
def test_random_snapshots_through_the_whole_pipeline(
    data: dict[str, Any], expected: list[str], window: int
) -> None:
    try:
        snap = snapshot.parse(data, source="fuzz.json")
    except SnapshotError as exc:
        assert "\n" not in str(exc) and str(exc).startswith("fuzz.json: ")
        return
    ingested = ingest(snap.comments, head_sha=snap.pull.head_sha)
    verdict = verdict_from(
        ingested,
        repo=snap.repo,
        pr=snap.pull.number,
        head_sha=snap.pull.head_sha,
        cycle=1,
        settle="none",
        expected=expected,  # type: ignore[arg-type]
        group_window=window,
    )
    as_json = verdict.to_json_dict()
    json.dumps(as_json, ensure_ascii=False).encode("utf-8")  # writable as the verdict file
    check_verdict(as_json)
    assert (verdict.gate == "block") == bool(verdict.critical)

    notes = [f.title for f in verdict.critical[:2]]
    sticky = render.sticky_comment(verdict, extra_notes=notes)
    assert_sticky_safe(sticky)
    sticky.encode("utf-8")
    assert ("BLOCK" in sticky) == (verdict.gate == "block")

    check = render.check_output(verdict, extra_notes=notes)
    assert len(check.summary) <= render.CHECK_TEXT_LIMIT
    assert "<" not in OUR_TAGS.sub("", check.summary)
    assert not LINKABLE.search(outside_code(check.summary))
    summary = render.job_summary(verdict, extra_notes=notes)
    assert "<" not in OUR_TAGS.sub("", summary)
    assert summary.count("<details>") == summary.count("</details>")
    description = render.status_description(verdict)
    assert len(description) <= render.STATUS_DESCRIPTION_LIMIT and "\n" not in description

    for a in render.annotations(verdict):
        assert a.start_line >= 1 and a.end_line >= a.start_line
        assert a.path and not re.search("[\x00-\x1f]", a.path)
        assert all(ord(ch) <= 0xFFFF for ch in a.title + a.message)
        assert len(a.title) <= 255 and len(a.message.encode("utf-8")) <= 64 * 1024
