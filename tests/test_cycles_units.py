"""Review cycles, pure parts: the history record, reply/command parsing, reconciliation, and the
rendering of the cycle sections (golden: tests/golden/render/cycles.*.md)."""

from __future__ import annotations

import base64
import json
import os
import zlib
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from reviewcoord import render
from reviewcoord.cycles import fingerprint
from reviewcoord.history import (
    HISTORY_LIMIT,
    MAX_COMMANDS,
    MAX_REFS,
    Acceptance,
    CommandOutcome,
    Entry,
    History,
    bound,
    decode,
    encode,
)
from reviewcoord.ingest import MARKER, ingest
from reviewcoord.judgement import (
    CycleContext,
    CycleLookups,
    ForeignEdits,
    JudgeSettings,
    Subject,
    base_sid,
    cycle_for,
)
from reviewcoord.judgement import judge as judge_reading
from reviewcoord.judgement.identity import family
from reviewcoord.judgement.shift import Push
from reviewcoord.model import (
    AcceptedFinding,
    AuthorReply,
    ConvergenceInfo,
    CycleChange,
    ParsedComment,
    RawComment,
    SeverityAdjustment,
    stable_finding_id,
)
from reviewcoord.normalize import merged_table
from reviewcoord.replies import classify, harvest_replies, parse_commands
from tests import render_scenarios as rs

GOLDEN = Path(__file__).parent / "golden" / "render"
REGEN = os.environ.get("REVIEWCOORD_REGEN") == "1"
HEAD1 = "a" * 40
HEAD2 = "b" * 40
T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


# --- the record ---------------------------------------------------------------------------------


def history(**kw: object) -> History:
    base: dict[str, object] = {
        "repo": "octo/app",
        "pr": 2,
        "heads": [HEAD1],
        "cycle": 1,
        "gate": "block",
        "blocks": 1,
    }
    base.update(kw)
    return History.model_validate(base)


def entry(sid: str, **kw: object) -> Entry:
    base: dict[str, object] = {
        "sid": sid,
        "st": "open",
        "sev": "critical",
        "bot": "codex",
        "ep": "review_comment",
        "cid": 1,
        "file": "a.py",
        "line": 3,
        "title": "Title",
        "first": 1,
        "seen": 1,
    }
    base.update(kw)
    return Entry.model_validate(base)


def sticky_with(line: str) -> str:
    return f"{MARKER}\n{line}\n## verdict"


def test_record_round_trips_and_cannot_close_the_html_comment() -> None:
    h = history(findings=[entry("codex-1", title="--> <!-- evil -- title")], fp="x")
    line = encode(h)
    assert line.startswith("<!-- review-coordinator-history v1 z:") and line.endswith(" -->")
    payload = line.removeprefix("<!-- review-coordinator-history v1 z:").removesuffix(" -->")
    assert "--" not in payload and ">" not in payload
    back, notice = decode(sticky_with(line), repo="octo/app", pr=2)
    assert notice is None and back == h


@pytest.mark.parametrize(
    ("line", "word"),
    [
        ("<!-- review-coordinator-history v9 z:AAAA -->", "version"),
        ("<!-- review-coordinator-history v1 z:!!!! -->", "corrupt"),
        ("<!-- review-coordinator-history v1 json -->", "malformed"),
        (
            "<!-- review-coordinator-history v1 z:"
            + base64.b64encode(zlib.compress(b'{"v":1}')).decode()
            + " -->",
            "corrupt",
        ),
        (
            "<!-- review-coordinator-history v1 z:"
            + base64.b64encode(zlib.compress(b" " * 3_000_000)).decode()
            + " -->",
            "too large",
        ),
    ],
)
def test_bad_records_are_ignored_with_a_notice(line: str, word: str) -> None:
    back, notice = decode(sticky_with(line), repo="octo/app", pr=2)
    assert back is None and notice is not None and word in notice


def test_a_record_of_another_pr_is_foreign() -> None:
    back, notice = decode(sticky_with(encode(history(pr=3))), repo="octo/app", pr=2)
    assert back is None and notice is not None and "another pull request" in notice


def test_bound_drops_oldest_resolved_first_and_fits() -> None:
    entries = [
        entry(f"codex-{i:04d}", st="likely_fixed", seen=i, title=os.urandom(50).hex())
        for i in range(400)
    ] + [
        entry(f"cursor-{i:04d}", sev="critical", seen=50, title=os.urandom(40).hex())
        for i in range(20)
    ]
    big = history(findings=entries, heads=[f"{i:040x}" for i in range(30)])
    cut, dropped = bound(big)
    assert len(encode(cut)) <= HISTORY_LIMIT
    assert len(cut.heads) == 20 and cut.heads[-1] == big.heads[-1]
    kept = {e.stable_id for e in cut.findings}
    assert all(f"cursor-{i:04d}" in kept for i in range(20))  # open criticals survive
    fixed = sorted(int(s.split("-")[1]) for s in kept if s.startswith("codex"))
    assert dropped == 400 - len(fixed) and (not fixed or fixed[0] > 0)  # oldest went first


def test_bound_holds_for_any_length() -> None:
    entries = [entry(f"codex-{i:05d}", title=os.urandom(60).hex()) for i in range(3000)]
    cut, dropped = bound(history(findings=entries, refs={str(i): ["x"] for i in range(1000)}))
    assert len(encode(cut)) <= HISTORY_LIMIT and dropped > 0


def test_no_bound_drops_a_command_in_force() -> None:
    """Issue 23 route 9: 401 replies (anyone can post them) must not push a maintainer's applied
    command out of the record; the other bindings and refused outcomes go first."""
    applied = CommandOutcome(comment_id=7, ok=True)
    refused = [CommandOutcome(comment_id=1000 + i, ok=False, note="no") for i in range(150)]
    refs = {"7": ["codex-aaaa"], **{str(10_000 + i): ["codex-aaaa"] for i in range(MAX_REFS + 1)}}
    cut, _ = bound(history(refs=refs, commands=[applied, *refused]))
    assert cut.refs["7"] == ["codex-aaaa"] and applied in cut.commands
    assert len(cut.refs) == MAX_REFS and len(cut.commands) == MAX_COMMANDS
    assert str(10_000) not in cut.refs  # the oldest other binding went first
    # Under the size limit too: every other binding may go, the command in force stays.
    tiny, _ = bound(history(refs=refs, commands=[applied, *refused]), limit=300)
    assert tiny.refs["7"] == ["codex-aaaa"] and applied in tiny.commands
    assert len(tiny.refs) < 20 and len(encode(tiny)) <= 300
    # Control: without the flood, the bound keeps everything.
    calm, dropped = bound(history(refs={"7": ["codex-aaaa"]}, commands=[applied]))
    assert calm.refs == {"7": ["codex-aaaa"]} and calm.commands == [applied] and dropped == 0


def test_fingerprint_ignores_our_sticky_and_sees_edits() -> None:
    bot = RawComment(endpoint="issue_comment", id=1, author_login="claude[bot]", body="hi")
    ours = RawComment(endpoint="issue_comment", id=2, author_login="x", body=MARKER + "\nv")
    ours2 = ours.model_copy(update={"body": MARKER + "\nother"})
    assert fingerprint([bot, ours], "x") == fingerprint([bot, ours2], "x")
    assert fingerprint([bot], "x") != fingerprint([bot.model_copy(update={"body": "ho"})], "x")
    assert fingerprint([bot], "x", "a") != fingerprint([bot], "x", "b")


def test_cycle_defaults_to_recorded_plus_one_when_the_head_moved() -> None:
    h = history(cycle=4, heads=[HEAD1])
    assert cycle_for(None, HEAD2, None) == 1
    assert cycle_for(h, HEAD1, None) == 4
    assert cycle_for(h, HEAD2, None) == 5
    assert cycle_for(h, HEAD2, 9) == 9


# --- replies and commands -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Won't fix, because the API requires it", "wontfix"),
        ("wontfix: out of scope", "wontfix"),
        ("I'll handle this in a follow-up", "deferred"),
        ("Tracked for a separate PR", "deferred"),
        ("False positive: the build validates this", "rebutted"),
        ("This is intended.", "rebutted"),
        ("Fixed in 1a2b3c4", "fixed"),
        ("addressed", "fixed"),
        ("> won't fix\nthanks, looking", None),
        ("lgtm", None),
    ],
)
def test_reply_classes(text: str, kind: str | None) -> None:
    assert classify(text) == kind


def human(cid: int, body: str, *, login: str = "octocat", **kw: object) -> RawComment:
    return RawComment.model_validate(
        {
            "endpoint": "issue_comment",
            "id": cid,
            "author_login": login,
            "author_type": "User",
            "body": body,
            "created_at": T0,
            **kw,
        }
    )


def test_commands_are_parsed_strictly() -> None:
    comments = [
        human(1, "/review-coordinator accept F3 follow-up #12: later in #12"),
        human(2, "/review-coordinator accept F3 follow-up: no issue"),
        human(3, "please /review-coordinator accept F1 wontfix: not at line start"),
        human(4, "/review-coordinator accept F2 by-design:"),
        human(5, "/Review-Coordinator ACCEPT f4 WONTFIX: shouting"),
        human(6, "/review-coordinator accept F1 wontfix: x", login="bot[bot]"),
        human(7, "/review-coordinator accept F1 wontfix: x", author_type="Bot"),
        human(8, "/review-coordinator accept F1 wontfix: body", endpoint="review"),
    ]
    cmds = parse_commands(comments, own_login="github-actions[bot]")
    assert [(c.comment.id, c.fid, c.kind, c.issue, c.error is None) for c in cmds] == [
        (1, "F3", "follow-up", 12, True),
        (2, "F3", "follow-up", None, False),
        (4, None, None, None, False),
        (5, "F4", "wontfix", None, True),
    ]


def test_replies_need_a_target_and_a_person() -> None:
    comments = [
        human(1, "won't fix F2, see the ADR"),
        human(2, "won't fix (names no finding)"),
        human(3, "false positive", endpoint="review_comment", in_reply_to_id=99),
        human(4, "F1 is fixed", login="claude[bot]", author_type="Bot"),
        human(5, "/review-coordinator accept F1 wontfix: a command, not a reply"),
    ]
    replies = harvest_replies(comments, own_login=None)
    assert [(r.comment.id, r.kind, r.fids, r.thread_root) for r in replies] == [
        (1, "wontfix", ("F2",), None),
        (3, "rebutted", (), 99),
    ]


# --- reconciliation ------------------------------------------------------------------------------

CODEX = "chatgpt-codex-connector[bot]"


def codex_inline(cid: int, path: str, commit: str, title: str, badge: str = "P1") -> RawComment:
    text = (
        f"**<sub><sub>![{badge} Badge](https://img.shields.io/badge/{badge}-orange?style=flat)"
        f"</sub></sub>  {title}**\n\nExplanation of the problem."
    )
    return RawComment(
        endpoint="review_comment",
        id=cid,
        author_login=CODEX,
        author_type="Bot",
        body=text,
        path=path,
        line=10,
        commit_id=commit,
        original_commit_id=commit,
        html_url=f"https://github.com/octo/app/pull/2#discussion_r{cid}",
    )


def codex_review(commit: str, rid: int = 500) -> RawComment:
    """Codex's clean verdict as a review on `commit`: Codex has finished there."""
    return RawComment(
        endpoint="review",
        id=rid,
        author_login=CODEX,
        author_type="Bot",
        body="Codex Review: Didn't find any major issues. Swish!",
        commit_id=commit,
        review_state="COMMENTED",
    )


def push(touched: object, hunks: object) -> Push:
    """The compare to this head: the files it changed (`touched`) and their change blocks
    (`hunks`, path → blocks); both None: unknown."""
    if touched is None and hunks is None:
        return Push.unknown()
    blocks = dict(hunks or {})  # type: ignore[call-overload]
    return Push(files=frozenset(touched or blocks), blocks=blocks)  # type: ignore[arg-type]


def ctx(record: History | None, **kw: object) -> CycleContext:
    latest = push(kw.pop("touched", None), kw.pop("hunks", None))
    perms = kw.pop("perms", {})
    base: dict[str, object] = {
        "record": record,
        "notice": None,
        "cycle": 1 if record is None else record.cycle + 1,
        "mode": "initial" if record is None else "incremental",
        "previous_head": None if record is None else record.last_head,
        "force_push": False,
        "pr_author": "octocat",
        "own_login": "github-actions[bot]",
        "convergence_after": 2,
        "fingerprint": "fp",
        "lookups": CycleLookups(
            permission=lambda login: perms.get(login, "none"),  # type: ignore[attr-defined]
        ),
        "latest": latest,
    }
    base.update(kw)
    return CycleContext(**base)  # type: ignore[arg-type]


def judge(comments: list[RawComment], context: CycleContext, head: str) -> tuple[object, History]:
    ingested = ingest(comments, head_sha=head, own_login="github-actions[bot]")
    subject = Subject("octo/app", 2, head, comments, ingested, ["codex"])
    judgement = judge_reading(subject, context)
    return judgement.verdict, judgement.record


def test_without_history_the_verdict_is_the_stateless_one() -> None:
    from reviewcoord.pipeline import judge as stateless

    comments = [codex_inline(1, "a.py", HEAD1, "Null deref"), codex_review(HEAD1)]
    v, h = judge(comments, ctx(None), HEAD1)
    plain = stateless(comments, repo="octo/app", pr=2, head_sha=HEAD1, expected=["codex"])
    assert v.critical == plain.critical and v.gate == "block"  # type: ignore[attr-defined]
    assert h.cycle == 1 and h.blocks == 1 and h.findings[0].blocked


def test_likely_fixed_needs_the_bot_on_head_and_evidence_about_its_lines() -> None:
    """The finding sits at a.py:10. A push that touches a.py elsewhere is no evidence (the
    original design: absence from an incremental review means "not touched"); a hunk over its
    line is."""
    old = [codex_inline(1, "a.py", HEAD1, "Null deref"), codex_review(HEAD1)]
    _v, h1 = judge(old, ctx(None), HEAD1)
    touched = frozenset({"a.py"})
    on_line = {"a.py": ((8, 5, 8, 5),)}  # old lines 8-12
    # Codex has not reviewed HEAD2 yet: carried forward even though its lines changed.
    v, _ = judge(old, ctx(h1, touched=touched, hunks=on_line), HEAD2)
    assert v.gate == "block" and v.critical[0].carried_forward  # type: ignore[attr-defined]
    now = [*old, codex_review(HEAD2, rid=501)]
    # Attack: Codex finished on HEAD2 and a.py changed, but only at line 300: still gating.
    elsewhere = {"a.py": ((300, 4, 300, 4),), "b.py": ((10, 1, 10, 1),)}
    v, _ = judge(now, ctx(h1, touched=touched, hunks=elsewhere), HEAD2)
    assert v.gate == "block" and v.changes == []  # type: ignore[attr-defined]
    # Control: the push changed lines 8-12: likely fixed, and the sticky says why.
    v, h2 = judge(now, ctx(h1, touched=touched, hunks=on_line), HEAD2)
    assert v.gate == "go" and [c.change for c in v.changes] == ["likely_fixed"]  # type: ignore[attr-defined]
    assert v.changes[0].note.startswith(  # type: ignore[attr-defined]
        "a push since its bot reported it changed the lines it points at (10)"
    )
    assert h2.findings[0].status == "likely_fixed"
    # Unknown patch (a force-push, a failed compare): never "fixed" by default.
    v, _ = judge(now, ctx(h1, touched=touched, hunks=None), HEAD2)
    assert v.gate == "block"  # type: ignore[attr-defined]


def test_an_outdated_comment_is_evidence_of_a_fix() -> None:
    old = [codex_inline(1, "a.py", HEAD1, "Null deref"), codex_review(HEAD1)]
    _v, h1 = judge(old, ctx(None), HEAD1)
    gone = old[0].model_copy(update={"line": None, "original_line": 10})
    v, _ = judge([gone, old[1], codex_review(HEAD2, rid=501)], ctx(h1), HEAD2)
    assert v.gate == "go"  # type: ignore[attr-defined]
    assert "outdated" in v.changes[0].note  # type: ignore[attr-defined]
    # Control: the same comment still anchored (`line` 10) on the new head: still gating.
    v, _ = judge([*old, codex_review(HEAD2, rid=501)], ctx(h1), HEAD2)
    assert v.gate == "block"  # type: ignore[attr-defined]


def test_a_full_re_review_is_evidence_only_for_a_profile_that_repeats_findings() -> None:
    """CodeRabbit-like incremental reviewers (the default) vs a profile that declares that every
    review repeats each finding still present (`BotProfile.repeats_findings`)."""
    import dataclasses

    from reviewcoord.bots import REGISTRY
    from reviewcoord.bots.codex import PROFILE as CODEX_PROFILE

    old = [codex_inline(1, "a.py", HEAD1, "Null deref"), codex_review(HEAD1)]
    _v, h1 = judge(old, ctx(None), HEAD1)
    now = [*old, codex_review(HEAD2, rid=501)]
    v, _ = judge(now, ctx(h1, touched=frozenset({"b.py"}), hunks={}), HEAD2)
    assert v.gate == "block"  # type: ignore[attr-defined]

    def parse(comment: RawComment) -> ParsedComment:
        parsed = CODEX_PROFILE.parse(comment)
        mine = tuple(f.model_copy(update={"bot": "sweeper"}) for f in parsed.findings)
        return parsed.model_copy(update={"findings": mine})

    sweeper = dataclasses.replace(
        CODEX_PROFILE, key="sweeper", logins=frozenset({"sweeper[bot]"}), parse=parse
    )
    sweeps = dataclasses.replace(sweeper, repeats_findings=True)
    for profile, gate in ((sweeper, "block"), (sweeps, "go")):
        with REGISTRY.extended([profile]):
            as_sweeper = [c.model_copy(update={"author_login": "sweeper[bot]"}) for c in old]
            _v, rec = judge_as(as_sweeper, ctx(None), HEAD1, "sweeper")
            later = [*as_sweeper, now[-1].model_copy(update={"author_login": "sweeper[bot]"})]
            v, _ = judge_as(
                later, ctx(rec, touched=frozenset({"b.py"}), hunks={}), HEAD2, "sweeper"
            )
            assert v.gate == gate, profile  # type: ignore[attr-defined]


def judge_as(
    comments: list[RawComment], context: CycleContext, head: str, bot: str
) -> tuple[object, History]:
    ingested = ingest(comments, head_sha=head, own_login="github-actions[bot]")
    subject = Subject("octo/app", 2, head, comments, ingested, [bot])
    judgement = judge_reading(subject, context)
    return judgement.verdict, judgement.record


def test_a_new_bot_joining_an_accepted_finding_reopens_the_gate() -> None:
    first = [codex_inline(1, "a.py", HEAD1, "Null deref"), codex_review(HEAD1)]
    _v, h1 = judge(first, ctx(None), HEAD1)
    cmd = human(9, "/review-coordinator accept F1 wontfix: known", login="mona")
    v, h2 = judge([*first, cmd], ctx(h1, cycle=1, perms={"mona": "maintain"}), HEAD1)
    assert v.gate == "go" and v.accepted[0].accepted_by == "mona"  # type: ignore[attr-defined]
    again = [*first, cmd, codex_inline(2, "a.py", HEAD2, "Another crash nearby")]
    v, _ = judge(again, ctx(h2, touched=frozenset({"a.py"})), HEAD2)
    assert v.gate == "block" and v.accepted == []  # type: ignore[attr-defined]


def test_config_severity_overrides_are_visible_adjustments() -> None:
    comments = [codex_inline(1, "a.py", HEAD1, "Minor thing", badge="P2"), codex_review(HEAD1)]
    overrides = {"codex": {"P2": "critical"}}
    ingested = ingest(comments, head_sha=HEAD1, table=merged_table(overrides))
    subject = Subject("octo/app", 2, HEAD1, comments, ingested, ["codex"])
    v = judge_reading(subject, ctx(None), JudgeSettings(severity_overrides=overrides)).verdict
    (f,) = v.critical
    assert f.severity_adjustment is not None
    assert (f.severity_adjustment.from_level, f.severity_adjustment.to_level) == (
        "medium",
        "critical",
    )
    assert "Severity adjustments" in render.sticky_comment(v)


def test_base_sid_round_trips_every_bot_key() -> None:
    # Attack on the old `-2` stripping: hyphenated keys collapsed to `code-scanning` / `pr-agent`.
    for key in ("codex", "code-scanning", "pr-agent", "a-b-c"):
        sid = stable_finding_id(key, "a.py", "Title", None)
        assert base_sid(f"{sid}~2") == sid and base_sid(sid) == sid
        assert family(f"{sid}.3~2") == sid
    digits = "code-scanning-012345678901"  # a hash that happens to be all digits
    assert base_sid(digits) == digits and family(digits) == digits


# --- rendering (golden) --------------------------------------------------------------------------


def cycles_verdict() -> object:
    v = rs.blocking()
    crit = [
        v.critical[0].model_copy(
            update={
                "status": "awaiting_decision",
                "first_seen_cycle": 1,
                "stable_id": "cursor-aaa",
                "reply": AuthorReply(
                    kind="wontfix",
                    by="octocat",
                    reason="Won't fix: @team <!-- x --> the API needs it | really",
                    url="https://github.com/octo/app/pull/12#discussion_r9",
                ),
            }
        ),
        *[
            f.model_copy(update={"status": "still_open", "carried_forward": True})
            for f in v.critical[1:]
        ],
    ]
    adv = [
        v.advisory[0].model_copy(
            update={
                "status": "new",
                "severity_adjustment": SeverityAdjustment(
                    from_level="critical",
                    to_level="medium",
                    reason="convergence mode (after 2 block cycles): new, untouched file",
                ),
            }
        ),
        *v.advisory[1:],
    ]
    n = len(crit) + len(adv)
    return v.model_copy(
        update={
            "cycle": 3,
            "critical": crit,
            "advisory": adv,
            "review_mode": "full",
            "previous_head": "1" * 40,
            "force_push": True,
            "changes": [
                CycleChange(
                    id="F9",
                    stable_id="codex-1",
                    title="Old | bug `x`",
                    file="a.py",
                    line=3,
                    severity="critical",
                    change="likely_fixed",
                    note="its bot finished on this head",
                )
            ],
            "accepted": [
                AcceptedFinding(
                    id=f"F{n + 1}",
                    stable_id="claude-1",
                    title="Accepted thing",
                    file="b.py",
                    line=1,
                    severity="critical",
                    kind="follow-up",
                    issue=77,
                    reason="tracked @here",
                    accepted_by="mona",
                    url="https://github.com/octo/app/pull/12#issuecomment-5",
                    cycle=2,
                )
            ],
            "convergence": ConvergenceInfo(active=True, block_cycles=2, after=2, exempted=["F4"]),
            "command_notes": ["@octocat cannot accept F1: the PR author cannot accept"],
        }
    )


def test_cycles_render_golden() -> None:
    v = cycles_verdict()
    body = render.sticky_comment(v, history_block=encode(history()))  # type: ignore[arg-type]
    assert body.startswith(MARKER + "\n<!-- review-coordinator-history v1 z:")
    assert "@team" not in body and "@here" not in body and "<!-- x -->" not in body
    assert "@octocat" not in body
    path = GOLDEN / "cycles.sticky.md"
    if REGEN:
        path.write_text(body, encoding="utf-8", newline="")
    assert body == path.read_text(encoding="utf-8")


def test_cycles_json_keeps_the_interface_fields() -> None:
    from tests.verdict_contract import check_verdict

    data = json.loads(json.dumps(cycles_verdict().to_json_dict()))  # type: ignore[attr-defined]
    check_verdict(data)
    assert data["accepted"][0]["accepted_by"] == "mona"
    assert data["critical"][0]["status"] == "awaiting_decision"


def test_acceptance_model_bounds_reason() -> None:
    with pytest.raises(ValueError):
        Acceptance(kind="wontfix", reason="x" * 1000, by="a", cycle=1)


def test_a_record_written_by_the_previous_release_still_decodes() -> None:
    """The record's readable attribute names serialise to the v1 short keys: a sticky written
    before the rename (tests/fixtures/history/, made by v0.1 main) decodes to the same data and
    encodes back byte for byte."""
    line = (Path(__file__).parent / "fixtures/history/record-written-by-v0.1-main.txt").read_text()
    body = f"{MARKER}\n{line.strip()}\n"
    record, notice = decode(body, repo="octo/app", pr=2)
    assert notice is None and record is not None
    first, accepted, fixed, awaiting = record.findings
    assert (first.stable_id, first.status, first.level, first.blocked) == (
        "codex-0123456789ab",
        "open",
        "critical",
        True,
    )
    assert (first.endpoint, first.comment_id, first.thread) == ("review_comment", 101, "resolved")
    assert accepted.acceptance is not None and accepted.acceptance.issue == 123
    assert (fixed.status, fixed.exempted) == ("likely_fixed", True)
    assert awaiting.status == "awaiting" and record.refs["9"] == ["cursor-abcdefabcdef"]
    assert encode(record) == line.strip()


# --- one finding, one entry (issue 15 #5) --------------------------------------------------------


def twin(cid: int, line: int, commit: str, review: int = 700) -> RawComment:
    """Codex's inline finding "Unchecked input" in a.py at `line`, from review `review`."""
    c = codex_inline(cid, "a.py", commit, "Unchecked input")
    return c.model_copy(update={"line": line, "pull_request_review_id": review})


def at(c: RawComment, line: int | None) -> RawComment:
    """`c` as GitHub shows it after a push: its live `line` moved with the code, or None once
    outdated (its `original_line` kept)."""
    return c.model_copy(update={"line": line, "original_line": c.original_line or c.line})


def test_two_findings_with_one_title_in_one_file_are_two_entries() -> None:
    first = [twin(1, 10, HEAD1), twin(2, 300, HEAD1), codex_review(HEAD1)]
    v, h1 = judge(first, ctx(None), HEAD1)
    assert [f.line for f in v.critical] == [10, 300]  # type: ignore[attr-defined]
    sids = [e.stable_id for e in h1.findings]
    assert len(set(sids)) == 2 and len({family(s) for s in sids}) == 1
    # Attack: accepting F1 (line 10) must not accept the finding at line 300.
    cmd = human(9, "/review-coordinator accept F1 wontfix: known", login="mona")
    perms = {"mona": "maintain"}
    v, h2 = judge([*first, cmd], ctx(h1, cycle=1, perms=perms), HEAD1)
    assert v.gate == "block" and [a.line for a in v.accepted] == [10]  # type: ignore[attr-defined]
    assert [f.line for f in v.critical] == [300]  # type: ignore[attr-defined]
    assert sorted(e.status for e in h2.findings) == ["accepted", "open"]
    # Codex re-reviews HEAD2: both re-posted with shifted lines (GitHub moves the live threads
    # with the code); still one accepted, one open.
    moved = [at(first[0], 14), at(first[1], 305), first[2]]
    again = [*moved, cmd, twin(3, 14, HEAD2, 701), twin(4, 305, HEAD2, 701)]
    again.append(codex_review(HEAD2, 501))
    v, h3 = judge(again, ctx(h2, perms=perms), HEAD2)
    assert [a.line for a in v.accepted] == [14] and [f.line for f in v.critical] == [305]  # type: ignore[attr-defined]
    assert {e.stable_id for e in h3.findings} == set(sids)
    # The accepted one is fixed (gone on HEAD3, its threads outdated): the other never
    # inherits its acceptance.
    HEAD3 = "c" * 40
    old = [at(moved[0], None), at(moved[1], 290), at(again[4], None), at(again[5], 290)]
    later = [*old, moved[2], cmd, again[-1], twin(5, 290, HEAD3, 702), codex_review(HEAD3, 502)]
    v, _ = judge(later, ctx(h3, perms=perms, touched=frozenset({"a.py"})), HEAD3)
    assert v.gate == "block" and [f.line for f in v.critical] == [290]  # type: ignore[attr-defined]


def test_one_finding_reposted_each_cycle_stays_one_entry() -> None:
    """Control: the same finding reported again on a new head is the same entry (no twin)."""
    first = [twin(1, 10, HEAD1), codex_review(HEAD1)]
    cmd = human(9, "/review-coordinator accept F1 wontfix: known", login="mona")
    _v, h1 = judge(first, ctx(None), HEAD1)
    v, h2 = judge([*first, cmd], ctx(h1, cycle=1, perms={"mona": "maintain"}), HEAD1)
    assert v.gate == "go"  # type: ignore[attr-defined]
    # The code moved 30 lines down: GitHub moves the live thread with it, or marks it outdated
    # when its lines changed; either way Codex's new report is the same finding.
    for old in (at(first[0], 40), at(first[0], None)):
        again = [old, first[1], cmd, twin(3, 40, HEAD2, 701), codex_review(HEAD2, 501)]
        v, h3 = judge(again, ctx(h2, perms={"mona": "maintain"}), HEAD2)
        assert v.gate == "go" and len(v.accepted) == 1  # type: ignore[attr-defined]
        assert [e.stable_id for e in h3.findings] == [e.stable_id for e in h1.findings]


def test_two_live_threads_far_apart_from_two_reviews_are_two_entries() -> None:
    """Issue 23 route 10: line 10 on one head, the same title at line 300 in a later review on
    another head, both threads live: two findings, accepted one by one."""
    first = [twin(1, 10, HEAD1), codex_review(HEAD1)]
    _v, h1 = judge(first, ctx(None), HEAD1)
    second = [*first, twin(3, 300, HEAD2, 701), codex_review(HEAD2, 501)]
    v, h2 = judge(second, ctx(h1), HEAD2)
    assert sorted(f.line for f in v.critical) == [10, 300]  # type: ignore[attr-defined]
    assert len({e.stable_id for e in h2.findings}) == 2
    f1 = next(f for f in v.critical if f.id == "F1")  # type: ignore[attr-defined]
    cmd = human(9, "/review-coordinator accept F1 wontfix: known", login="mona")
    v, _ = judge([*second, cmd], ctx(h2, perms={"mona": "maintain"}), HEAD2)
    assert [a.line for a in v.accepted] == [f1.line] and v.gate == "block"  # type: ignore[attr-defined]


# --- nothing editable authorises; commands bind to what their author saw (issue 15 #6, #7) ------


def test_a_record_marked_accepted_grants_nothing_without_its_command() -> None:
    first = [codex_inline(1, "a.py", HEAD1, "Null deref"), codex_review(HEAD1)]
    _v, h1 = judge(first, ctx(None), HEAD1)
    # Attack: the record re-encoded with the finding `accepted` (no command comment exists).
    acc = Acceptance(kind="wontfix", reason="forged", by="mona", cycle=1)
    forged = h1.model_copy(
        update={
            "findings": [
                e.model_copy(update={"status": "accepted", "acceptance": acc}) for e in h1.findings
            ]
        }
    )
    v, _ = judge(first, ctx(forged, cycle=1), HEAD1)
    assert v.gate == "block" and v.accepted == []  # type: ignore[attr-defined]
    # Control: the same acceptance, by its command comment, holds.
    cmd = human(9, "/review-coordinator accept F1 wontfix: known", login="mona")
    v, h2 = judge([*first, cmd], ctx(h1, cycle=1, perms={"mona": "write"}), HEAD1)
    assert v.gate == "go"  # type: ignore[attr-defined]
    # The command comment deleted: the acceptance goes with it.
    v, _ = judge(first, ctx(h2, cycle=1, perms={"mona": "write"}), HEAD1)
    assert v.gate == "block"  # type: ignore[attr-defined]


def test_an_edited_command_counts_only_as_its_author_wrote_it() -> None:
    first = [codex_inline(1, "a.py", HEAD1, "Null deref"), codex_review(HEAD1)]
    _v, h1 = judge(first, ctx(None), HEAD1)
    cmd = human(9, "/review-coordinator accept F1 wontfix: known", login="mona")
    ingested = ingest([*first, cmd], head_sha=HEAD1, own_login="github-actions[bot]")
    subject = Subject("octo/app", 2, HEAD1, [*first, cmd], ingested, ["codex"])
    c = ctx(h1, cycle=1, perms={"mona": "maintain"})
    # Attack: mona's old comment edited by the PR author into a command.
    why = "it was edited by @octocat, not only by its author"
    v = judge_reading(subject, c, edits=ForeignEdits(commands={("issue_comment", 9): why})).verdict
    assert v.gate == "block" and any("edited by @octocat" in n for n in v.command_notes)
    # Control: the same command, unedited (or edited by mona only), accepts.
    assert judge_reading(subject, c).verdict.gate == "go"


def test_a_command_whose_binding_was_dropped_is_void_not_rebound() -> None:
    first = [codex_inline(1, "a.py", HEAD1, "Null deref"), codex_review(HEAD1)]
    _v, h1 = judge(first, ctx(None), HEAD1)
    cmd = human(9, "/review-coordinator accept F1 wontfix: known", login="mona")
    perms = {"mona": "maintain"}
    v, h2 = judge([*first, cmd], ctx(h1, cycle=1, perms=perms), HEAD1)
    assert v.gate == "go" and h2.consumed == {"issue_comment": 9}  # type: ignore[attr-defined]
    # Attack: the bound dropped the command's binding and outcome; F1 is another finding now.
    cut = h2.model_copy(update={"refs": {}, "commands": []})
    other = [codex_inline(2, "b.py", HEAD2, "Other crash"), codex_review(HEAD2, 501), cmd]
    v, _ = judge(other, ctx(cut, perms=perms, touched=frozenset({"a.py"})), HEAD2)
    assert v.gate == "block" and v.accepted == []  # type: ignore[attr-defined]
    assert any("is void" in n for n in v.command_notes)  # type: ignore[attr-defined]
    # Control: with its binding kept, the command still accepts its own finding only.
    v, _ = judge([*first, *other], ctx(h2, perms=perms), HEAD2)
    assert [a.title for a in v.accepted] == ["Null deref"]  # type: ignore[attr-defined]


def shifted_f2(t1: datetime) -> tuple[list[RawComment], History, str, str]:
    """Two advisory findings, then a push adds a critical one and the F ids shift: the comments,
    the record after the second verdict (published at `t1`), and F2's title then and now."""
    a = codex_inline(1, "a.py", HEAD1, "Alpha problem", badge="P2")
    b = codex_inline(2, "b.py", HEAD1, "Beta problem", badge="P2")
    first = [a, b, codex_review(HEAD1)]
    v1, h1 = judge(first, ctx(None), HEAD1)
    f2_then = next(f.title for f in v1.advisory if f.id == "F2")  # type: ignore[attr-defined]
    second = [*first, codex_inline(3, "c.py", HEAD2, "Gamma crash"), codex_review(HEAD2, 501)]
    v2, h2 = judge(second, ctx(h1, revision_time=t1), HEAD2)
    f2_now = next(f.title for f in [*v2.critical, *v2.advisory] if f.id == "F2")  # type: ignore[attr-defined]
    return second, h2, f2_then, f2_now


def test_a_command_binds_to_the_sticky_revision_its_author_saw() -> None:
    t1, t2, t3 = (datetime(2026, 1, 5, 9, m, tzinfo=UTC) for m in (1, 2, 3))
    # A push adds a critical finding: the F ids shift. mona typed her command (at t2) while
    # the sticky still showed the first revision (written at t1); the new one is from t3.
    second, h2, f2_then, f2_now = shifted_f2(t1)
    assert f2_now != f2_then and [r.t for r in h2.revisions] == [t1.isoformat()]
    perms = {"mona": "maintain"}
    typed = human(9, "/review-coordinator accept F2 wontfix: known", login="mona", created_at=t2)
    v3, h3 = judge([*second, typed], ctx(h2, revision_time=t3, perms=perms), HEAD2)
    assert [x.title for x in v3.accepted] == [f2_then]  # type: ignore[attr-defined]
    # Control: the same command typed after the new revision binds to today's F2.
    later = typed.model_copy(update={"created_at": t3 + (t3 - t2), "id": 10})
    v4, _ = judge([*second, later], ctx(h2, revision_time=t3, perms=perms), HEAD2)
    assert [x.title for x in v4.accepted] == [f2_now]  # type: ignore[attr-defined]
    # Attack on the bound: that revision dropped from the record → void, never today's F2.
    cut = h2.model_copy(update={"revisions": []})
    v5, _ = judge([*second, typed], ctx(cut, revision_time=t3, perms=perms), HEAD2)
    assert v5.accepted == []  # type: ignore[attr-defined]
    assert any("revision it answered" in n for n in v5.command_notes)  # type: ignore[attr-defined]
    assert [r.t for r in h3.revisions] == [t1.isoformat(), t3.isoformat()]


def test_a_command_in_the_same_second_as_a_revision_binds_to_the_one_before() -> None:
    """Issue 28: GitHub's times have one-second resolution; a command created in the second a
    revision was published was typed while the previous one was on screen."""
    t1, t3 = (datetime(2026, 1, 5, 9, m, tzinfo=UTC) for m in (1, 3))
    second, h2, f2_then, f2_now = shifted_f2(t1)
    perms = {"mona": "maintain"}
    tie = human(9, "/review-coordinator accept F2 wontfix: known", login="mona", created_at=t3)
    v3, h3 = judge([*second, tie], ctx(h2, revision_time=t3, perms=perms), HEAD2)
    assert [x.title for x in v3.accepted] == [f2_then]  # type: ignore[attr-defined]
    assert [x.revision for x in v3.accepted] == [t1.isoformat()]  # type: ignore[attr-defined]
    # Control: one second after the revision, F2 is what that revision showed.
    after = tie.model_copy(update={"created_at": t3 + timedelta(seconds=1), "id": 10})
    v4, _ = judge([*second, after], ctx(h2, revision_time=t3, perms=perms), HEAD2)
    assert [x.title for x in v4.accepted] == [f2_now]  # type: ignore[attr-defined]
    assert [x.revision for x in v4.accepted] == [t3.isoformat()]  # type: ignore[attr-defined]
    # The bound command keeps the revision it answered in the record, run after run.
    again, _ = judge([*second, tie], ctx(h3, revision_time=t3, perms=perms), HEAD2)
    assert [x.revision for x in again.accepted] == [t1.isoformat()]  # type: ignore[attr-defined]


def test_a_reply_naming_an_f_id_means_the_revision_its_author_saw() -> None:
    """Issue 28: a reply outside a thread binds by the rule commands follow."""
    t1, t2, t3 = (datetime(2026, 1, 5, 9, m, tzinfo=UTC) for m in (1, 2, 3))
    second, h2, f2_then, f2_now = shifted_f2(t1)

    def awaiting(v: object) -> list[str]:
        found = [*v.critical, *v.advisory]  # type: ignore[attr-defined]
        return [f.title for f in found if f.status == "awaiting_decision"]

    typed = human(9, "won't fix F2, see the ADR", created_at=t2)
    v3, h3 = judge([*second, typed], ctx(h2, revision_time=t3), HEAD2)
    assert awaiting(v3) == [f2_then]
    # The binding is kept: later runs agree whatever F2 names by then.
    again, _ = judge([*second, typed], ctx(h3, revision_time=t3), HEAD2)
    assert awaiting(again) == [f2_then]
    # Control: typed after the new revision (or in its second's successor), today's F2.
    later = typed.model_copy(update={"created_at": t3 + timedelta(seconds=1), "id": 10})
    v4, _ = judge([*second, later], ctx(h2, revision_time=t3), HEAD2)
    assert awaiting(v4) == [f2_now]
    # That revision gone from the record: the reply answers nothing, never today's F2.
    cut = h2.model_copy(update={"revisions": []})
    v5, _ = judge([*second, typed], ctx(cut, revision_time=t3), HEAD2)
    assert awaiting(v5) == []


def test_a_bot_comment_edited_by_someone_else_gates_at_its_first_read_level() -> None:
    first = [codex_inline(1, "a.py", HEAD1, "Null deref"), codex_review(HEAD1)]
    _v, h1 = judge(first, ctx(None), HEAD1)
    assert h1.findings[0].first_level == "critical"
    # Attack: the PR author edits Codex's comment from P1 to P3 (REST still says Codex).
    edited = first[0].model_copy(update={"body": first[0].body.replace("P1", "P3")})
    comments = [edited, first[1]]
    ingested = ingest(comments, head_sha=HEAD1, own_login="github-actions[bot]")
    subject = Subject("octo/app", 2, HEAD1, comments, ingested, ["codex"])
    why = "it was edited by @octocat, not only by its author"
    held = ForeignEdits(bots={("review_comment", 1): why})
    v = judge_reading(subject, ctx(h1, cycle=1), edits=held).verdict
    assert v.gate == "block" and [f.severity for f in v.critical] == ["critical"]
    assert any("shown as edited" in n.note for n in v.parse_notes)
    # Control: the bot's own edit to P3 is the bot's word.
    v = judge_reading(subject, ctx(h1, cycle=1)).verdict
    assert v.gate == "go" and v.critical == []
    # Attack: the finding edited away entirely is not "fixed": it carries forward.
    gone = first[0].model_copy(update={"body": "Nothing here."})
    comments = [gone, first[1], codex_review(HEAD2, 501)]
    ingested = ingest(comments, head_sha=HEAD2, own_login="github-actions[bot]")
    subject = Subject("octo/app", 2, HEAD2, comments, ingested, ["codex"])
    # Even with evidence about its lines (a hunk over a.py:10), the edit by someone else holds it.
    c2 = ctx(h1, touched=frozenset({"a.py"}), hunks={"a.py": ((8, 5, 8, 5),)})
    assert judge_reading(subject, c2, edits=held).verdict.gate == "block"
    assert judge_reading(subject, c2).verdict.gate == "go"  # control: the bot's own edit


def test_a_forged_outcome_never_grants_a_readers_command() -> None:
    first = [codex_inline(1, "a.py", HEAD1, "Null deref"), codex_review(HEAD1)]
    _v, h1 = judge(first, ctx(None), HEAD1)
    cmd = human(9, "/review-coordinator accept F1 wontfix: known", login="guest")
    sid = h1.findings[0].stable_id
    # Attack: the record says guest's command was applied (outcome ok, bound to the finding).
    forged = h1.model_copy(
        update={"commands": [CommandOutcome(comment_id=9, ok=True)], "refs": {"9": [sid]}}
    )
    v, _ = judge([*first, cmd], ctx(forged, cycle=1, perms={"guest": "read"}), HEAD1)
    assert v.gate == "block"  # type: ignore[attr-defined]
    assert any("needs write permission (has read)" in n for n in v.command_notes)  # type: ignore[attr-defined]
    # Control: the same record for a writer's command holds.
    v, _ = judge([*first, cmd], ctx(forged, cycle=1, perms={"guest": "write"}), HEAD1)
    assert v.gate == "go"  # type: ignore[attr-defined]
