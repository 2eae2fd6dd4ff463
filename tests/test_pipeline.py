"""Pure stages: grouping, ranking, gating and the original design's worked example."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from reviewcoord.bots import bot_keys
from reviewcoord.group import group
from reviewcoord.ingest import Ingested
from reviewcoord.model import BotStatus, Finding
from reviewcoord.pipeline import verdict_from
from reviewcoord.rank import gate, rank, to_verdict_findings
from tests.factories import finding


def worked_example() -> list[Finding]:
    """The original design's worked example: Codex, Copilot, Cursor on one PR (no Claude)."""
    return [
        # 3-bot convergence at handler.ts:225–230; spread blocking / Medium / P3.
        finding(
            "cursor",
            "src/handler.ts",
            225,
            "Null session dereference",
            "blocking",
            line_end=230,
            comment_id=1,
        ),
        finding("copilot", "src/handler.ts", 227, "session may be null here", None, comment_id=2),
        finding("codex", "src/handler.ts", 229, "Guard the session before use", "P3", comment_id=3),
        # 2-bot group at runner.ts:208–217 (same memory issue).
        finding("copilot", "src/runner.ts", 208, "Buffer grows without bound", None, comment_id=4),
        finding(
            "codex",
            "src/runner.ts",
            213,
            "Unbounded buffer growth",
            "P2",
            line_end=217,
            comment_id=5,
        ),
        # Same theme 100+ lines apart stays separate (line distance only).
        finding(
            "copilot",
            "src/serialize.ts",
            47,
            "JSON.stringify may return undefined",
            None,
            comment_id=6,
        ),
        finding(
            "codex",
            "src/serialize.ts",
            163,
            "JSON.stringify may return undefined",
            "P2",
            comment_id=7,
        ),
        # A singleton.
        finding("cursor", "src/util.ts", 12, "Off-by-one in slice", "Low Severity", comment_id=8),
    ]


def ingested(findings: list[Finding]) -> Ingested:
    return Ingested(
        findings=findings,
        bots={
            "codex": BotStatus(state="reviewed"),
            "copilot": BotStatus(state="reviewed"),
            "cursor": BotStatus(state="reviewed"),
            "claude": BotStatus(state="not_seen"),
        },
        unknown_bots=[],
        parse_notes=[],
    )


def test_worked_example_groups_ranks_and_blocks() -> None:
    verdict = verdict_from(
        ingested(worked_example()),
        repo="octo/app",
        pr=12,
        head_sha="abc",
        cycle=1,
        settle="fast",
        expected=["codex", "copilot", "cursor"],
    )
    assert verdict.gate == "block"
    # Three bots at handler.ts:225-230, three different titles: one place, not one confirmed issue.
    assert verdict.gate_reason == "1 critical finding (3 bots flagged F1's lines)"
    top = verdict.critical[0]
    assert (top.id, top.file, top.line, top.line_end, top.agreement) == (
        "F1",
        "src/handler.ts",
        225,
        230,
        3,
    )
    assert (top.agrees, top.same_issue) == (False, 1)
    assert top.spread == "Cursor:blocking · Copilot:medium (no label) · Codex:P3"
    assert [s.severity for s in top.sources] == ["critical", "medium", "low"]
    assert [s.severity_raw for s in top.sources] == ["blocking", None, "P3"]
    second = verdict.advisory[0]
    assert (second.id, second.file, second.line, second.line_end, second.agreement) == (
        "F2",
        "src/runner.ts",
        208,
        217,
        2,
    )
    serialize = [f for f in verdict.advisory if f.file == "src/serialize.ts"]
    assert [(f.line, f.agreement) for f in serialize] == [(47, 1), (163, 1)]
    assert len(verdict.critical) + len(verdict.advisory) == 5
    assert verdict.settled_on == ["codex", "copilot", "cursor"] and verdict.pending == []


def test_window_is_configurable() -> None:
    pair = [
        finding("codex", "a.py", 10, "x", "P2"),
        finding("cursor", "a.py", 18, "y", "Medium Severity"),
    ]
    assert len(group(pair, window=5)) == 2
    assert len(group(pair, window=8)) == 1


def test_file_level_findings_group_by_file_and_title() -> None:
    fs = [
        finding("codex", "a.py", None, "Missing license header", "P3", comment_id=1),
        finding("copilot", "a.py", None, "missing  LICENSE header!", None, comment_id=2),
        finding("cursor", "a.py", None, "Another thing", "Low Severity", comment_id=3),
        finding("claude", "b.py", None, "Missing license header", "🟡", comment_id=4),
    ]
    groups = group(fs)
    sizes = sorted((g.file, g.agreement) for g in groups)
    assert sizes == [("a.py", 1), ("a.py", 2), ("b.py", 1)]


def test_rank_order_level_then_agreement_then_file_then_line() -> None:
    fs = [
        finding("codex", "z.py", 1, "lone critical", "P1", comment_id=1),
        finding("codex", "b.py", 50, "two agree", "P2", comment_id=2),
        finding("copilot", "b.py", 51, "two agree too", None, comment_id=3),
        finding("cursor", "a.py", 9, "medium a", "Medium Severity", comment_id=4),
        finding("cursor", "a.py", 3, "low a", "Low Severity", comment_id=5),
        finding("claude", "a.py", 100, "critical a", "🔴", comment_id=6),
    ]
    ranked = rank(group(fs))
    assert [(g.file, g.line, g.severity) for g in ranked] == [
        ("a.py", 100, "critical"),
        ("z.py", 1, "critical"),
        ("b.py", 50, "medium"),
        ("a.py", 9, "medium"),
        ("a.py", 3, "low"),
    ]


def test_gate_reasons() -> None:
    c, a = to_verdict_findings(rank(group([finding("codex", "a.py", 1, "t", "P2")])))
    assert gate(c, a, []) == ("go", "no critical findings (1 advisory)")
    assert gate([], [], ["codex"], head_sha="9f1c2e4aa") == (
        "go",
        "no findings so far; codex has not reviewed 9f1c2e4: the gate is judged again when it "
        "posts",
    )
    assert gate(c, a, ["codex"], head_sha="", unreviewed=["claude", "codex"]) == (
        "go",
        "no critical findings so far (1 advisory); codex, claude have not reviewed this head: "
        "the gate is judged again when they post",
    )
    c, a = to_verdict_findings(
        rank(
            group(
                [
                    finding("codex", "a.py", 1, "t", "P0"),
                    finding("cursor", "b.py", 1, "u", "High Severity"),
                ]
            )
        )
    )
    assert gate(c, a, []) == ("block", "2 critical findings")


def _one_group(*fs: Finding) -> tuple[bool, int, int]:
    (g,) = group(list(fs))
    return g.agrees, g.same_issue, g.agreement


def test_same_issue_same_normalised_title_agrees() -> None:
    assert _one_group(
        finding("cursor", "a.py", 10, "Null session dereference", "High Severity", comment_id=1),
        finding("codex", "a.py", 12, "null session  dereference.", "P1", comment_id=2),
    ) == (True, 2, 2)


def test_same_issue_different_titles_only_share_a_place() -> None:
    assert _one_group(
        finding("codex", "a.py", 10, "Guard the comparison", "P1", comment_id=1),
        finding("copilot", "a.py", 12, "Remove console.log", None, comment_id=2),
        finding("cursor", "a.py", 14, "Upgrade replaces packages", "Medium Severity", comment_id=3),
    ) == (False, 1, 3)


def test_same_issue_counts_the_bots_of_the_leads_issue() -> None:
    # The lead (Codex P1, most severe) and Copilot agree; Claude reports something else.
    assert _one_group(
        finding("codex", "a.py", 10, "Buffer grows without bound", "P1", comment_id=1),
        finding("copilot", "a.py", 11, "Buffer grows without bound!", None, comment_id=2),
        finding("claude", "a.py", 12, "Rename buf", "🟡", comment_id=3),
    ) == (False, 2, 3)
    # Two bots agree on something other than the lead's issue: not the lead's agreement.
    assert _one_group(
        finding("codex", "a.py", 10, "Null deref", "P1", comment_id=1),
        finding("copilot", "a.py", 11, "Rename buf", None, comment_id=2),
        finding("claude", "a.py", 12, "rename BUF", "🟡", comment_id=3),
    ) == (False, 1, 3)


def test_same_issue_bugbot_id_links_a_retitled_finding() -> None:
    # Bugbot re-posts one bug (one BUGBOT_BUG_ID) under a new title, which Codex's matches.
    high = "High Severity"
    assert _one_group(
        finding("cursor", "a.py", 10, "Null session", high, native_id="B1", comment_id=1),
        finding("cursor", "a.py", 11, "Session may be null", high, native_id=" b1", comment_id=2),
        finding("codex", "a.py", 12, "session may be NULL", "P2", comment_id=3),
    ) == (True, 2, 2)


def test_same_issue_empty_titles_do_not_agree() -> None:
    assert _one_group(
        finding("codex", "a.py", 10, "…", "P1", comment_id=1),
        finding("copilot", "a.py", 11, "!!", None, comment_id=2),
    ) == (False, 1, 2)


def test_gate_reason_counts_agreeing_bots_not_the_group() -> None:
    agreeing = [
        finding("cursor", "a.py", 10, "Null deref", "High Severity", comment_id=1),
        finding("codex", "a.py", 11, "null deref", "P1", comment_id=2),
        finding("copilot", "a.py", 12, "Unrelated", None, comment_id=3),
    ]
    c, a = to_verdict_findings(rank(group(agreeing)))
    assert gate(c, a, []) == ("block", "1 critical finding (2 bots agree)")
    differing = [
        finding("codex", "a.py", 10, "Null deref", "P1", comment_id=1),
        finding("copilot", "a.py", 12, "Unrelated", None, comment_id=2),
    ]
    c, a = to_verdict_findings(rank(group(differing)))
    assert gate(c, a, []) == ("block", "1 critical finding (2 bots flagged F1's lines)")


def _dump(findings: list[Finding]) -> list[tuple[object, ...]]:
    return [
        (
            g.file,
            g.line,
            g.line_end,
            g.title,
            g.severity,
            g.agreement,
            g.agrees,
            g.same_issue,
            tuple(f.stable_id for f in g.findings),
        )
        for g in rank(group(findings))
    ]


def test_grouping_is_independent_of_order_exhaustive_small() -> None:
    base = worked_example()[:6]
    expected = _dump(base)
    for perm in itertools.permutations(base):
        assert _dump(list(perm)) == expected


_findings = st.lists(
    st.builds(
        lambda bot, file, line, span, title, raw, cid: finding(
            bot,
            file,
            line,
            title,
            raw,
            line_end=(line + span) if line and span else None,
            comment_id=cid,
        ),
        st.sampled_from(bot_keys()),
        st.sampled_from(["a.py", "b.py", None]),
        st.one_of(st.none(), st.integers(1, 60)),
        st.integers(0, 4),
        st.sampled_from(["x", "y", "Same title", "same TITLE"]),
        st.sampled_from([None, "P1", "P3", "High Severity", "🟣", "[nitpick]"]),
        st.integers(1, 10_000),
    ),
    max_size=25,
)


@settings(max_examples=200, deadline=None)
@given(_findings, st.randoms(use_true_random=False))
def test_grouping_is_independent_of_order_property(fs: list[Finding], rnd: object) -> None:
    shuffled = list(fs)
    rnd.shuffle(shuffled)  # type: ignore[attr-defined]
    assert _dump(shuffled) == _dump(fs)
    # every finding lands in exactly one group
    assert sum(len(g.findings) for g in group(fs)) == len(fs)
