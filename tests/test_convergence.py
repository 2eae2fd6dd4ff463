"""Convergence mode and travelling line ranges, pure (reviewcoord/judgement/converge.py, carry.py,
record.py): the judge over plain `CycleContext` data, no server. The end-to-end routes are in
tests/test_e2e_convergence.py."""

from __future__ import annotations

from pathlib import Path

from reviewcoord.history import History, decode
from reviewcoord.ingest import MARKER, ingest
from reviewcoord.judgement import JudgeSettings, Subject
from reviewcoord.judgement import judge as judge_reading
from reviewcoord.judgement.converge import converging, prior_requests, reviewed_before
from reviewcoord.judgement.shift import NOTHING, Push, parse_patch
from reviewcoord.model import RawComment
from tests.test_cycles_units import HEAD1, HEAD2, codex_inline, codex_review, ctx, judge

HEAD3 = "c" * 40
HEAD4 = "d" * 40
NOT_B = frozenset({"c.py"})  # a push that left b.py alone


def blocked_twice() -> tuple[list[RawComment], History]:
    """Two changes-requested cycles: Codex's P1 on a.py on HEAD1, carried on HEAD2."""
    first = [codex_inline(1, "a.py", HEAD1, "Null deref"), codex_review(HEAD1)]
    _v, h1 = judge(first, ctx(None), HEAD1)
    _v, h2 = judge(first, ctx(h1, touched=NOT_B), HEAD2)
    assert (h2.requested_before, h2.requested_last) == (1, True)
    return first, h2


def new_critical_on_head3(comments: list[RawComment]) -> list[RawComment]:
    """Codex reviews HEAD3 and reports a new P1 in b.py."""
    return [*comments, codex_inline(2, "b.py", HEAD3, "Race on close"), codex_review(HEAD3, 502)]


def levels(v: object) -> dict[str | None, str]:
    return {f.file: f.severity for f in [*v.critical, *v.advisory]}  # type: ignore[attr-defined]


def test_only_blocks_with_a_critical_open_are_changes_requested_cycles() -> None:
    # A block while Codex, required, has not reviewed (no finding: pending) is not one.
    subject = Subject("octo/app", 2, HEAD1, [], ingest([], head_sha=HEAD1), ["codex"])
    pending = judge_reading(subject, ctx(None), JudgeSettings(required=["codex"])).record
    assert pending.gate == "block" and pending.requested_last is False
    assert prior_requests(pending, HEAD2) == 0
    _comments, h2 = blocked_twice()
    assert prior_requests(h2, HEAD3) == 2 and converging(h2, 2, HEAD3)
    # A re-run on the same head does not count its own cycle twice.
    assert prior_requests(h2, HEAD2) == 1 and not converging(h2, 2, HEAD2)


def test_a_record_from_before_the_count_starts_it_again() -> None:
    """Older records counted every block (pending ones too): their count is not trusted, so
    convergence mode comes later, never sooner."""
    line = (Path(__file__).parent / "fixtures/history/record-written-by-v0.1-main.txt").read_text()
    old, notice = decode(f"{MARKER}\n{line.strip()}\n", repo="octo/app", pr=2)
    assert notice is None and old is not None and old.blocks == 2
    assert old.requested_before is None and not converging(old, 2, HEAD3)
    assert old.reviewed is None and reviewed_before(old, "codex", HEAD3) is None
    assert all(e.span is None and not e.changed for e in old.findings)


def test_a_new_critical_is_judged_against_the_push_its_bot_saw() -> None:
    first, h2 = blocked_twice()
    now = new_critical_on_head3(first)
    # Its bot's latest push left b.py alone: adjacent hardening, shown at medium.
    v, h3 = judge(now, ctx(h2, touched=NOT_B, since_review={"codex": NOT_B}), HEAD3)
    assert levels(v)["b.py"] == "medium" and v.convergence.exempted  # type: ignore[attr-defined]
    assert [e.exempted for e in h3.findings if e.file == "b.py"] == [True]
    # The push its bot saw changed b.py: it blocks.
    changed_b = {"codex": frozenset({"b.py"})}
    v, _ = judge(now, ctx(h2, touched=NOT_B, since_review=changed_b), HEAD3)
    assert levels(v)["b.py"] == "critical"
    # Unknown (the cycle-context step gave nothing for its bot): it could have; it blocks.
    v, _ = judge(now, ctx(h2, touched=NOT_B), HEAD3)
    assert levels(v)["b.py"] == "critical"


def test_a_critical_with_no_file_is_never_exempt() -> None:
    first, h2 = blocked_twice()
    fileless = codex_inline(2, "b.py", HEAD3, "Race on close").model_copy(
        update={"path": None, "line": None}
    )
    now = [*first, fileless, codex_review(HEAD3, 502)]
    v, _ = judge(now, ctx(h2, touched=NOT_B, since_review={"codex": NOT_B}), HEAD3)
    assert levels(v)[None] == "critical" and not v.convergence.exempted  # type: ignore[attr-defined]


def test_an_exemption_is_decided_again_each_cycle() -> None:
    first, h2 = blocked_twice()
    now = new_critical_on_head3(first)
    _v, h3 = judge(now, ctx(h2, touched=NOT_B, since_review={"codex": NOT_B}), HEAD3)
    # Not reported again on HEAD4 (Codex reviewed it, said nothing of b.py): the fact about its
    # push is the one from when it was reported; it stays let through.
    later = [*now, codex_review(HEAD4, 503)]
    v, _ = judge(later, ctx(h3, touched=NOT_B, since_review={"codex": NOT_B}), HEAD4)
    assert levels(v)["b.py"] == "medium"
    # With no record of that decision (its entry dropped by the bound): it could have; it blocks.
    cut = h3.model_copy(update={"findings": [e for e in h3.findings if e.file != "b.py"]})
    v, _ = judge(later, ctx(cut, touched=NOT_B, since_review={"codex": NOT_B}), HEAD4)
    assert levels(v)["b.py"] == "critical"
    # Reported again on HEAD4 after a push that changed b.py: decided again, it blocks.
    again = [*later, codex_inline(3, "b.py", HEAD4, "Race on close")]
    changed_b = {"codex": frozenset({"b.py"})}
    v, _ = judge(again, ctx(h3, touched=frozenset({"b.py"}), since_review=changed_b), HEAD4)
    assert levels(v)["b.py"] == "critical"


def test_a_noop_takes_the_last_decisions_and_reads_nothing_for_them() -> None:
    first, h2 = blocked_twice()
    now = new_critical_on_head3(first)
    _v, h3 = judge(now, ctx(h2, touched=NOT_B, since_review={"codex": NOT_B}), HEAD3)
    same = ctx(h3, cycle=3, mode="same_head", latest=NOTHING, convergence_from_record=True)
    v, _ = judge(now, same, HEAD3)
    assert levels(v)["b.py"] == "medium"
    # Control: a judged re-run without the per-reviewer facts fails closed.
    v, _ = judge(now, ctx(h3, cycle=3, mode="same_head", latest=NOTHING), HEAD3)
    assert levels(v)["b.py"] == "critical"


def test_the_record_keeps_the_heads_each_reviewer_reviewed() -> None:
    first, h2 = blocked_twice()
    assert h2.reviewed == {"codex": [HEAD1]}  # Codex did not review HEAD2
    assert reviewed_before(h2, "codex", HEAD3) == HEAD1
    now = new_critical_on_head3(first)
    _v, h3 = judge(now, ctx(h2, touched=NOT_B, since_review={"codex": NOT_B}), HEAD3)
    assert h3.reviewed == {"codex": [HEAD1, HEAD3]}
    assert reviewed_before(h3, "codex", HEAD3) == HEAD1  # a re-run on HEAD3
    assert reviewed_before(h3, "codex", HEAD4) == HEAD3


def test_recorded_lines_travel_and_carry_their_evidence() -> None:
    """Stated on HEAD1 at a.py:10; HEAD2 inserts 5 lines above (Codex not yet on HEAD2: carried,
    its lines now 15); HEAD3 changes line 15 (Codex reviews HEAD3, no longer reports it)."""
    first = [codex_inline(1, "a.py", HEAD1, "Null deref"), codex_review(HEAD1)]
    _v, h1 = judge(first, ctx(None), HEAD1)
    assert h1.findings[0].span == (10, 10)
    insert = Push(frozenset({"a.py"}), {"a.py": parse_patch("@@ -2,0 +3,5 @@\n" + "+x\n" * 5)})
    v, h2 = judge(first, ctx(h1, latest=insert), HEAD2)
    assert v.gate == "block" and (h2.findings[0].span, h2.findings[0].changed) == ((15, 15), False)
    at_10 = Push(frozenset({"a.py"}), {"a.py": parse_patch("@@ -10 +10 @@\n-a\n+b")})
    at_15 = Push(frozenset({"a.py"}), {"a.py": parse_patch("@@ -15 +15 @@\n-a\n+b")})
    now = [*first, codex_review(HEAD3, 502)]
    v, _ = judge(now, ctx(h2, latest=at_10), HEAD3)
    assert v.gate == "block"  # its old number, not its line
    v, h3 = judge(now, ctx(h2, latest=at_15), HEAD3)
    assert v.gate == "go" and h3.findings[0].status == "likely_fixed"  # control
    # The evidence travels: changed on HEAD2 while Codex had not reviewed it, reviewed on HEAD3.
    v, h2b = judge(
        first, ctx(h1, latest=Push(frozenset({"a.py"}), {"a.py": ((10, 1, 10, 1),)})), HEAD2
    )
    assert v.gate == "block" and h2b.findings[0].changed
    v, _ = judge(now, ctx(h2b, latest=Push(frozenset({"b.py"}))), HEAD3)
    assert v.gate == "go"
