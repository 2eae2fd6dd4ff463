"""The renderers: golden files, the marker promise, size limits and hostile bot text.

Golden files live in tests/golden/render/<scenario>.<surface>.md and are compared exactly.
After an intended change to a template, regenerate them and review the diff by eye:

    REVIEWCOORD_REGEN=1 .venv/bin/pytest tests/test_render.py

The scenarios (named Verdict values) are built in tests/render_scenarios.py.
"""

from __future__ import annotations

import re
import unicodedata

import jinja2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reviewcoord import render
from reviewcoord.model import ParseNote, Verdict
from reviewcoord.render import (
    CHECK_TEXT_LIMIT,
    COMMENT_LIMIT,
    MARKER,
    STATUS_DESCRIPTION_LIMIT,
    check_output,
    error_report,
    job_summary,
    pending_description,
    safe,
    stale_sticky,
    status_description,
    sticky_comment,
    templating,
)
from tests import golden_support as golden
from tests.markdown_support import outside_code
from tests.render_scenarios import SCENARIOS, oversized, source, verdict, vfinding

# Every '<' the renderers may write themselves; anything else must have come from input.
OUR_TAGS = re.compile(r"<(?:!-- review-coordinator-verdict -->|/?(?:details|summary|sub|code)>)")
INVISIBLE = ("\u202e", "\u200b", "\x00")


def assert_golden(name: str, text: str) -> None:
    golden.assert_golden("render", name, text)


def assert_one_marker_first(body: str) -> None:
    assert body.split("\n", 1)[0] == MARKER
    assert body.count(MARKER) == 1


# --- golden files ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_sticky_golden(name: str) -> None:
    body = sticky_comment(SCENARIOS[name]())
    assert_golden(f"{name}.sticky.md", body)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_check_golden(name: str) -> None:
    out = check_output(SCENARIOS[name]())
    assert_golden(f"{name}.check.md", f"title: {out.title}\n\n{out.summary}")


@pytest.mark.parametrize("name", ["blocking", "hostile", "differing"])
def test_job_summary_golden(name: str) -> None:
    assert_golden(f"{name}.job.md", job_summary(SCENARIOS[name]()))


def test_error_report_golden() -> None:
    body = error_report(
        repo="octo/app",
        pr=12,
        head_sha="9f1c2ab3d4e5f60718293a4b5c6d7e8f90a1b2c3",
        problem="Could not read every bot comment, so no verdict was made.",
        details=[
            "pulls/12/comments: HTTP 502 after 3 retries",
            "issues/12/comments: page 3 of 4 missing",
        ],
    )
    assert_golden("error.md", body)


# --- the sticky comment ------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_marker_is_line_one_exactly_once(name: str) -> None:
    assert_one_marker_first(sticky_comment(SCENARIOS[name]()))


def test_blocking_shape() -> None:
    body = sticky_comment(SCENARIOS["blocking"](), extra_notes=["Commit status not written."])
    lines = body.split("\n")
    assert lines[1] == "## 🧑‍⚖️ Review verdict — `block` (cycle 1)"
    assert "**Gate:** BLOCK ❌ — 2 critical findings (3 bots agree); still pending: codex" in body
    assert "Settled on: Copilot, Cursor, Claude. Pending: Codex." in body
    assert "### Critical (2)" in body and "### Advisory (3)" in body
    assert (
        "1. **F1 · Null session dereference** — `src/handler.ts:225-230` · 3 bots · "
        "Cursor:High Severity · Copilot:medium (no label) · Codex:P3"
    ) in body
    assert "[Cursor](https://github.com/octo/app/pull/12#discussion_r1)" in body
    assert "- Commit status not written." in body
    assert "#1" not in body  # display ids are F1, never an issue link
    assert lines[-2].startswith("<sub>review-coordinator consolidates") and "`9f1c2ab`" in body


def test_clean_is_go() -> None:
    body = sticky_comment(SCENARIOS["clean"]())
    assert "**Gate:** GO ✅" in body and "Pending: none." in body
    assert "### Critical" not in body


def test_only_advisory_folds_the_tail() -> None:
    body = sticky_comment(SCENARIOS["only_advisory"]())
    assert body.count("\n- **F") == 10
    assert "<summary>+4 more advisory (see the bots' comments above)</summary>" in body
    assert "- F14 · Advisory finding number 14" in body
    assert body.count("<details>") == body.count("</details>") == 1


def test_unknown_bot_and_parse_notes() -> None:
    body = sticky_comment(SCENARIOS["unknown_bot"]())
    assert "Other bots seen, not judged: `coderabbitai[bot]`" in body
    assert "<summary>Parse notes (1)" in body


def test_history_block_goes_right_after_the_marker() -> None:
    history = '<!-- review-coordinator-history: {"cycles": [1]} -->'
    body = sticky_comment(SCENARIOS["blocking"](), history_block=history)
    assert body.split("\n")[:2] == [MARKER, history]
    assert_one_marker_first(body)
    with pytest.raises(ValueError, match="marker"):
        sticky_comment(SCENARIOS["blocking"](), history_block=f"<!-- {MARKER} -->")


def test_refuses_a_body_without_its_marker(monkeypatch: pytest.MonkeyPatch) -> None:
    env = jinja2.Environment(undefined=jinja2.StrictUndefined)
    broken = env.from_string("## Review verdict — {{ verdict.gate }}\n")
    monkeypatch.setattr(templating, "source", lambda name: broken)
    with pytest.raises(ValueError, match="refusing"):
        sticky_comment(SCENARIOS["clean"]())


def test_refuses_a_body_with_a_second_marker(monkeypatch: pytest.MonkeyPatch) -> None:
    env = jinja2.Environment(undefined=jinja2.StrictUndefined)
    twice = env.from_string("{{ marker }}\n{{ marker }}\n")
    monkeypatch.setattr(templating, "source", lambda name: twice)
    with pytest.raises(ValueError, match="refusing"):
        sticky_comment(SCENARIOS["clean"]())


# --- hostile bot text --------------------------------------------------------------------------


def differ(v: Verdict) -> Verdict:
    """`v` with every group's members reporting different issues (one line per member)."""
    update = {"agrees": False, "same_issue": 1}
    return v.model_copy(
        update={
            "critical": [f.model_copy(update=update) for f in v.critical],
            "advisory": [f.model_copy(update=update) for f in v.advisory],
        }
    )


@pytest.fixture(scope="module", params=["agree", "differ"])
def hostile_bodies(request: pytest.FixtureRequest) -> dict[str, str]:
    v = SCENARIOS["hostile"]()
    if request.param == "differ":
        # Every member's own (hostile) title and label on its own line.
        v = differ(v)
        v = v.model_copy(
            update={
                "critical": [
                    f.model_copy(
                        update={
                            "sources": [s.model_copy(update={"title": f.title}) for s in f.sources]
                        }
                    )
                    for f in v.critical
                ]
            }
        )
    notes = ["note from @octocat <!-- x --> #7 </details>"]
    return {
        "sticky": sticky_comment(v, extra_notes=notes),
        "check": check_output(v, extra_notes=notes).summary,
        "job": job_summary(v, extra_notes=notes),
    }


@pytest.mark.parametrize("surface", ["sticky", "check", "job"])
def test_hostile_cannot_ping_or_link(hostile_bodies: dict[str, str], surface: str) -> None:
    body = hostile_bodies[surface]
    plain = outside_code(body)
    # Rendered via code span only (the path `src/@octocat/x.ts`); never as linkable text.
    assert "@octocat" not in plain
    assert "@\u2060octocat" in plain  # defused, not silently dropped
    assert not re.search(r"#\d", plain), "an issue reference GitHub would autolink"
    assert not re.search(r"(?i)\bGH-\d", plain)


@pytest.mark.parametrize("surface", ["sticky", "check", "job"])
def test_hostile_cannot_inject_html(hostile_bodies: dict[str, str], surface: str) -> None:
    body = hostile_bodies[surface]
    assert body.count("<!--") == (1 if surface == "sticky" else 0)
    assert "<img" not in body and "<script" not in body and "<b>" not in body
    assert body.count("<details>") == body.count("</details>")
    assert "<" not in OUR_TAGS.sub("", body)
    assert "&lt;img src=x onerror=alert(1)&gt;" in body  # shown, not executed


@pytest.mark.parametrize("surface", ["sticky", "check", "job"])
def test_hostile_cannot_break_layout(hostile_bodies: dict[str, str], surface: str) -> None:
    body = hostile_bodies[surface]
    for ch in INVISIBLE:
        assert ch not in body
    headings = [line for line in body.split("\n") if line.startswith("#")]
    assert all(
        h.startswith(
            ("## 🧑‍⚖️ Review verdict", "### Critical (", "### Advisory (", "### What unblocks this")
        )
        for h in headings
    )
    assert "```" not in outside_code(body).replace("\\`", "")
    assert "javascript:" not in body.replace("javascript link check", "")
    assert "](https://evil.example" not in body  # a URL with a space is not a link
    assert "| a | b |" not in body


def test_hostile_sticky_has_one_marker(hostile_bodies: dict[str, str]) -> None:
    assert_one_marker_first(hostile_bodies["sticky"])


# --- sizes -------------------------------------------------------------------------------------


def test_oversized_fits_every_surface() -> None:
    v = SCENARIOS["oversized"]()
    sticky = sticky_comment(v)
    check = check_output(v).summary
    job = job_summary(v)
    assert len(sticky) <= COMMENT_LIMIT
    assert len(check) <= CHECK_TEXT_LIMIT
    assert len(job) <= COMMENT_LIMIT
    assert_one_marker_first(sticky)
    for body in (sticky, check, job):
        assert "**Gate:** BLOCK ❌ — 1,500 critical findings" in body
        assert "✂️ Shortened to fit GitHub's" in body
        assert re.search(r"\*\*\+[\d,]+ more critical — see the ", body)
        assert body.count("<details>") == body.count("</details>")
    # Degradation lists the top of the ranking, in order, before cutting the rest.
    assert "1. **F1 · Finding 1 " in sticky


def test_oversized_with_differing_members_fits_every_surface() -> None:
    """Per-member lines (each with its own long title) still fit: the ladder cuts titles, then
    the list of critical findings."""
    v = differ(oversized(1_500, 2_000))
    long = "t" * 2_000
    v = v.model_copy(
        update={
            "critical": [
                f.model_copy(
                    update={
                        "sources": [
                            s.model_copy(update={"title": f"{s.bot} {long}"}) for s in f.sources
                        ]
                        * 8
                    }
                )
                for f in v.critical
            ]
        }
    )
    sticky = sticky_comment(v)
    assert_one_marker_first(sticky)
    for body, limit in (
        (sticky, COMMENT_LIMIT),
        (check_output(v).summary, CHECK_TEXT_LIMIT),
        (job_summary(v), COMMENT_LIMIT),
    ):
        assert len(body) <= limit
        assert "✂️ Shortened to fit GitHub's" in body
        assert (
            "1. **F1 · 16 findings from 2 bots at `src/very/long/path/module_1.ts:1-4`** —" in body
        )
        assert "- … and 6 more on these lines (see the bots' comments)" in body


def test_differing_members_show_their_own_titles() -> None:
    body = sticky_comment(SCENARIOS["differing"]())
    assert "1. **F1 · 3 bots flagged `src/aur.rs:226-231`** — different findings:" in body
    assert "   - Copilot:medium (no label) — Remove the console.log statement · [Copilot](" in body
    assert (
        "- **F3 · 3 bots flagged `src/runner.ts:208-217`** — 2 bots agree, the others differ:"
        in (body)
    )
    assert "3✕" not in body and "3 bots agree" not in body


def test_folded_differing_group_says_it_holds_other_findings() -> None:
    v = SCENARIOS["differing"]()
    v = v.model_copy(update={"advisory": v.advisory * 11})
    body = sticky_comment(v)
    assert (
        "- F3 · Buffer grows without bound and 2 other findings on these lines — "
        "`src/runner.ts:208-217` · Copilot:medium (no label) · Codex:P2 · Claude:🟡 Nit"
    ) in body


def test_huge_verdict_still_fits() -> None:
    """5,000 findings with 10 KB titles and gists, plus many notes and parse notes."""
    v = oversized(5_000, 10_000)
    v = v.model_copy(
        update={
            "parse_notes": [ParseNote(bot="cursor", url="https://x.example/", note="n" * 5_000)]
            * 2_000,
            "unknown_bots": [f"bot{n}[bot]" * 20 for n in range(500)],
        }
    )
    notes = ["<" * 5_000] * 200
    sticky = sticky_comment(v, extra_notes=notes, history_block="<!-- h -->")
    assert len(sticky) <= COMMENT_LIMIT
    assert_one_marker_first(sticky)
    assert sticky.split("\n")[1] == "<!-- h -->"
    assert "**Gate:** BLOCK ❌ — 2,500 critical findings" in sticky
    assert "1. **F1 · Finding 1 " in sticky  # notes gave way before the top critical findings
    assert "✂️ Shortened" in sticky and "notes not listed" in sticky
    assert len(check_output(v, extra_notes=notes).summary) <= CHECK_TEXT_LIMIT
    assert len(job_summary(v, extra_notes=notes)) <= COMMENT_LIMIT


def test_advisory_cut_before_critical() -> None:
    # Enough advisory text to overflow, few criticals: every critical stays listed in full.
    v = oversized(1_200, 300)
    v = v.model_copy(update={"critical": v.critical[:5]})
    body = sticky_comment(v)
    assert len(body) <= COMMENT_LIMIT
    assert "more critical" not in body
    assert body.count("\n   Gist ") == 5
    assert "advisory findings counted, not listed" in body


def test_history_block_too_long_is_refused() -> None:
    with pytest.raises(ValueError, match="history block"):
        sticky_comment(SCENARIOS["clean"](), history_block="<!-- " + "h" * COMMENT_LIMIT + " -->")


# --- stale -------------------------------------------------------------------------------------


def test_stale_sticky_inserts_warning_after_marker() -> None:
    body = sticky_comment(SCENARIOS["blocking"]())
    stale = stale_sticky(body, reason="new commits were pushed (head 1234567)")
    lines = stale.split("\n")
    assert lines[0] == MARKER
    assert lines[1] == "> ⚠️ This verdict is stale: new commits were pushed (head 1234567)"
    assert lines[2] == ""
    assert stale.endswith(body.split("\n", 1)[1])
    assert_one_marker_first(stale)


def test_stale_sticky_is_idempotent() -> None:
    body = sticky_comment(SCENARIOS["blocking"](), history_block="<!-- hist -->")
    once = stale_sticky(body, reason="first")
    assert stale_sticky(once, reason="first") == once
    again = stale_sticky(once, reason="second @octocat")
    assert again.count("This verdict is stale") == 1
    assert "second @\u2060octocat" in again
    assert again.split("\n")[:3] == [MARKER, "<!-- hist -->", again.split("\n")[2]]
    assert again.split("\n")[2].startswith("> ⚠️ This verdict is stale: second")
    assert stale_sticky(again, reason="first") == once


def test_stale_sticky_crlf_and_limits() -> None:
    body = sticky_comment(SCENARIOS["oversized"]()).replace("\n", "\r\n")
    stale = stale_sticky(body, reason="x" * 10_000)
    assert len(stale) <= COMMENT_LIMIT
    assert_one_marker_first(stale)
    assert stale.count("<details>") == stale.count("</details>")
    assert "\r" not in stale
    with pytest.raises(ValueError):
        stale_sticky("not our comment", reason="x")


def test_stale_sticky_accepts_what_the_publisher_calls_a_sticky() -> None:
    # publish.sticky.is_sticky: body.lstrip().startswith(MARKER)
    odd = f"\n  {MARKER} trailing text\nbody\n{MARKER}\n"
    stale = stale_sticky(odd, reason="r")
    assert_one_marker_first(stale)
    assert stale.split("\n")[1:4] == ["> ⚠️ This verdict is stale: r", "", "trailing text"]
    assert stale_sticky(MARKER, reason="r") == f"{MARKER}\n> ⚠️ This verdict is stale: r\n\n"


def test_stale_sticky_cuts_an_overlong_body_and_closes_details() -> None:
    body = MARKER + "\n<details>\n<summary>s</summary>\n\n" + ("line\n" * 20_000)
    stale = stale_sticky(body, reason="old")
    assert len(stale) <= COMMENT_LIMIT
    assert stale.count("<details>") == stale.count("</details>") == 1
    assert "was cut to fit" in stale


# --- one-line surfaces -------------------------------------------------------------------------


def test_status_description() -> None:
    assert status_description(SCENARIOS["blocking"]()) == (
        "block: 2 critical findings (3 bots agree); still pending: codex"
    )
    assert status_description(SCENARIOS["clean"]()) == "go: clean: no findings"
    long = SCENARIOS["blocking"]().model_copy(update={"gate_reason": "reason\n" * 100})
    text = status_description(long)
    assert len(text) <= STATUS_DESCRIPTION_LIMIT and text.endswith("…") and "\n" not in text
    empty = SCENARIOS["clean"]().model_copy(update={"gate_reason": ""})
    assert status_description(empty) == "go: no critical findings"


def test_status_description_names_an_invalid_config_files_line_before_the_reason() -> None:
    """The file and line come first, so clipping a long reason never drops them."""
    broken = SCENARIOS["blocking"]().model_copy(
        update={"config_warning": "invalid", "gate_reason": "reason " * 100}
    )
    where = ".github/review-coordinator.yml line 2"
    text = status_description(broken, where)
    assert text.startswith(f"block (config file invalid: {where}; see the sticky): reason")
    assert len(text) <= STATUS_DESCRIPTION_LIMIT and text.endswith("…")
    # Control: a valid config says nothing of it, whatever is passed.
    assert "config" not in status_description(SCENARIOS["blocking"](), where)
    assert status_description(broken).startswith("block (config file invalid; see the sticky)")


def test_pending_description() -> None:
    assert pending_description(["codex", "claude"]) == "waiting for codex, claude…"
    assert pending_description([]) == "waiting for the review bots…"
    long = pending_description([f"bot-{n}\x00\u202e" for n in range(100)])
    assert len(long) <= STATUS_DESCRIPTION_LIMIT and "\x00" not in long


def test_check_output_title_is_status() -> None:
    out = check_output(SCENARIOS["blocking"]())
    assert out.title == status_description(SCENARIOS["blocking"]())
    assert out.annotations == ()
    assert MARKER not in out.summary


# --- annotations -------------------------------------------------------------------------------


def test_annotations_levels_and_lines() -> None:
    result = render.annotations(SCENARIOS["blocking"]())
    by_path = {(a.path, a.start_line): a for a in result}
    assert len(result) == 5
    a = by_path[("src/handler.ts", 225)]
    assert (a.end_line, a.annotation_level) == (230, "failure")
    assert a.title == "F1 · Null session dereference"
    assert "3 bots: Cursor:High Severity" in a.message
    assert "Cursor: https://github.com/octo/app/pull/12#discussion_r1" in a.message
    assert by_path[("src/runner.ts", 208)].annotation_level == "warning"
    file_level = by_path[("src/retry.ts", 1)]
    assert (file_level.end_line, file_level.annotation_level) == (1, "notice")


def test_annotations_of_differing_members_name_each_title() -> None:
    a = render.annotations(SCENARIOS["differing"]())[0]
    assert a.title == "F1 · 3 bots flagged these lines"
    assert "Copilot: Remove the console.log statement: https://github.com/" in a.message
    agreeing = render.annotations(SCENARIOS["agreeing"]())[0]
    assert agreeing.title == "F1 · Null session dereference"
    assert "Cursor: https://github.com/octo/app/pull/12#discussion_r1" in agreeing.message


def test_annotations_skip_findings_without_a_usable_file() -> None:
    v = verdict(
        [
            vfinding(1, "no file", "critical", [source("codex", "P1", "critical", 1)]),
            vfinding(
                2,
                "bad path",
                "critical",
                [source("codex", "P1", "critical", 2)],
                file="src/\u202ex.ts",
                line=3,
            ),
            vfinding(
                3,
                "🔴 " + "t" * 1_000,
                "critical",
                [source("codex", "P1", "critical", 3)],
                file="ok.py",
                line=9,
                line_end=2,
                gist="g\x00" * 50_000,
            ),
        ],
        [],
        gate_reason="3 critical findings",
    )
    result = render.annotations(v)
    assert [a.path for a in result] == ["ok.py"]
    only = result[0]
    assert (only.start_line, only.end_line) == (9, 9)
    assert len(only.title) <= 255 and only.title.startswith("F3 · \\U0001f534 ")
    assert len(only.message.encode()) <= 64 * 1024 and "\x00" not in only.message


def test_annotations_hostile_are_plain_and_bounded() -> None:
    for a in render.annotations(SCENARIOS["hostile"]()):
        assert "\n" not in a.title and len(a.title) <= 255
        assert not any(ch in a.title + a.message for ch in INVISIBLE)
        assert "javascript:" not in a.message


# --- error report ------------------------------------------------------------------------------


def test_error_report_is_not_go_and_sanitised() -> None:
    body = error_report(
        repo="octo/app",
        pr=None,
        head_sha=None,
        problem="GitHub said <!-- x --> @octocat",
        details=["<img src=x> #5"] * 10_000,
    )
    assert "the gate is **not go**" in body
    assert "PR unknown" in body and "head `unknown`" in body
    assert "<!--" not in body and "<img" not in body and "@octocat" not in body
    assert len(body) <= CHECK_TEXT_LIMIT
    assert "more, not listed here" in body


# --- safe.py -----------------------------------------------------------------------------------


def test_clean_strips_every_format_and_control_character() -> None:
    """safe._STRIP hardcodes the Cf ranges; check them against this Python's Unicode data."""
    missed = [
        hex(cp)
        for cp in range(0x110000)
        if unicodedata.category(chr(cp)) in ("Cc", "Cf", "Cs")
        and not chr(cp).isspace()
        and safe.clean("a" + chr(cp) + "b") != "ab"
    ]
    assert missed == []


@pytest.mark.parametrize(
    ("url", "ok"),
    [
        ("https://github.com/octo/app/pull/12#discussion_r1", True),
        ("https://github.com/o/r/pull/1#issuecomment-2", True),
        ("https://example.com/a(b)", True),  # parentheses are percent-encoded
        ("http://github.com/x", False),
        ("javascript:alert(1)", False),
        ("https://github.com@evil.example/", False),
        ("https://evil.example/a b", False),
        ("https://evil.example/<x>", False),
        ("https://evil.example/\u202e", False),
        ("", False),
    ],
)
def test_safe_url(url: str, ok: bool) -> None:
    assert (safe.safe_url(url) is not None) is ok
    if ok:
        assert "(" not in (safe.safe_url(url) or "")


@pytest.mark.parametrize(
    ("raw", "md"),
    [
        ("plain title", "plain title"),
        ("use `foo()` here", "use `foo()` here"),
        ("``a ` b``", "``a ` b``"),
        ("`<img>`", "<code>&lt;img&gt;</code>"),
        (
            "a * b _c_ [d](e) | f ~g~ $h$ \\",
            "a \\* b \\_c\\_ \\[d\\](e) \\| f \\~g\\~ \\$h\\$ \\\\",
        ),
        ("# head", "\\# head"),
        ("12. item", "12\\. item"),
        ("- item", "\\- item"),
        ("::add-mask::x", "\\::add-mask::x"),  # never a workflow command if echoed to a log
        ("&#64;octocat", "&amp;#\u206064;octocat"),
        ("a\nb\r\nc\u2028d", "a b c d"),
    ],
)
def test_md_text(raw: str, md: str) -> None:
    assert safe.md_text(raw, 200) == md


# GitHub's extended autolinks (GFM: `www.`, `http://`, `https://`, and `mailto:`/`xmpp:`),
# in any case: each one in a bot's text is defused; the control rows stay as they were.
AUTOLINKS = re.compile(r"(?i)\b(?:https?://|www\.|mailto:|xmpp:|ftp://)")


@pytest.mark.parametrize(
    ("raw", "defused"),
    [
        ("see https://evil.example/x", True),
        ("HTTP://evil.example", True),
        ("visit www.evil.example now", True),
        ("(www.evil.example)", True),
        ("mail mailto:a@b.example", True),
        ("ftp://files.example/x", True),
        ("awww.example stays a word", False),  # control: no autolink starts inside a word
        ("use `https://in.code/span` here", False),  # control: code spans never autolink
        ("plain title", False),
    ],
)
def test_autolinks_in_bot_text_are_defused(raw: str, defused: bool) -> None:
    md = safe.md_text(raw, 200)
    assert not AUTOLINKS.search(outside_code(md)), md
    assert (safe.JOINER in md) is defused


def test_code_spans_survive_any_content() -> None:
    assert safe.code("a`b") == "``a`b``"
    assert safe.code("`x`") == "`` `x` ``"
    assert safe.code("@octocat") == "`@octocat`"
    assert safe.code("<!--") == "<code>&lt;!--</code>"
    assert safe.location("src/a.ts", 3, 3) == "`src/a.ts:3`"
    assert safe.location("src/a.ts", 3, 7) == "`src/a.ts:3-7`"
    assert safe.location(None, 3, 7) == ""
    assert safe.clip("x" * 300, 200) == "x" * 199 + "…"


def test_a_pipe_in_a_code_span_never_ends_a_table_cell() -> None:
    # Attack: a title `use `a|b` here` in a table row would split the cell at the raw `|`.
    assert safe.code("a|b") == "<code>a\\|b</code>"
    assert safe.md_text("use `a|b` here") == "use <code>a\\|b</code> here"
    assert safe.md_text("a|b") == "a\\|b"
    row = f"| {safe.md_text('use `x || y` or `z|w`')} | {safe.code('p|q.py')} |"
    assert len(re.findall(r"(?<!\\)\|", row)) == 3  # the row's own delimiters only
    # Control: a code span without a pipe stays a plain Markdown code span.
    assert safe.code("a-b") == "`a-b`"
    assert safe.md_text("use `a-b` here") == "use `a-b` here"


# --- property test -----------------------------------------------------------------------------

HOSTILE_BITS = [
    MARKER,
    "<!--",
    "-->",
    "<details>",
    "</details>",
    "<img src=x>",
    "```",
    "`",
    "@octocat",
    "#1",
    "|",
    "\n",
    "\r\n",
    "\u202e",
    "\u200b",
    "\x00",
    "\ud800",
    "&lt;",
    "\\",
    "*",
    "_",
    "[",
    "](",
    "> ",
    "# ",
    "1. ",
    "🧑‍⚖️",
]
untrusted = st.lists(
    st.one_of(st.text(max_size=40), st.sampled_from(HOSTILE_BITS)), max_size=12
).map("".join)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    titles=st.lists(untrusted, min_size=1, max_size=6),
    path=st.one_of(st.none(), untrusted),
    gist=untrusted,
    note=untrusted,
    url=untrusted,
    agrees=st.booleans(),
)
def test_sticky_never_breaks(
    titles: list[str], path: str | None, gist: str, note: str, url: str, agrees: bool
) -> None:
    findings = [
        vfinding(
            n,
            title,
            "critical" if n % 2 else "medium",
            [
                source("cursor", title[:10], "critical" if n % 2 else "medium", n, title, link=url),
                source("codex", note[:10] or None, "medium", 100 + n, note + title, link=url),
            ],
            file=path,
            line=n,
            gist=gist,
            spread=note,
            same_issue=None if agrees else 1,
        )
        for n, title in enumerate(titles, start=1)
    ]
    v: Verdict = verdict(
        [f for f in findings if f.severity == "critical"],
        [f for f in findings if f.severity != "critical"],
        gate_reason=note,
        unknown_bots=[note],
        parse_notes=[ParseNote(bot=note, url=url, note=note)],
    )
    body = sticky_comment(v, extra_notes=[note, gist])
    assert_one_marker_first(body)
    assert len(body) <= COMMENT_LIMIT
    assert "<" not in OUR_TAGS.sub("", body)
    assert body.count("<!--") == 1
    assert body.count("<details>") == body.count("</details>")
    assert not any(ch in body for ch in INVISIBLE)
    assert "@octocat" not in outside_code(body)
