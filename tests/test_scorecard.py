"""`reviewcoord scorecard`, the pure parts and the edge's hard cases: what the Action adds to the
record (reviewcoord/runs.py, backward compatible), the figures (reviewcoord/scorecard/figures.py),
the renderers' defences, the window, and the reads (first and last page only, the list stopping
at the window, the cache, forged and foreign stickies) against the fake GitHub."""

from __future__ import annotations

import hashlib
import io
import json
import xml.etree.ElementTree as ET
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from reviewcoord.errors import GatewayError, UsageError
from reviewcoord.history import BotRun, Entry, History, bound, decode, encode
from reviewcoord.ingest import Ingested, ingest
from reviewcoord.model import BotStatus, Source, Verdict, VerdictFinding
from reviewcoord.runs import next_corroborated, next_runs
from reviewcoord.scorecard.figures import PrRecord, scorecard
from reviewcoord.scorecard.live import Bar, run_scorecard, window
from reviewcoord.scorecard.render import to_csv, to_svg, to_table
from tests.e2e_support import CURSOR, MARKER, cursor_clean
from tests.fakegithub import ACTIONS_LOGIN, FakeGitHub

REPO = "octo/app"
T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
SINCE, UNTIL = datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 1, 31, tzinfo=UTC)


def entry(sid: str, status: str, level: str = "critical", bot: str = "codex", **kw: Any) -> Entry:
    data = {"sid": sid, "st": status, "sev": level, "bot": bot, "ep": "review_comment"}
    return Entry.model_validate({**data, "cid": 1, "title": sid, "first": 1, "seen": 1, **kw})


def record(pr: int, findings: list[Entry], **extra: Any) -> History:
    data = {"repo": REPO, "pr": pr, "heads": ["a" * 40], "cycle": 1, "gate": "go"}
    return History.model_validate({**data, "findings": findings, **extra})


def verdict(findings: list[VerdictFinding], bots: dict[str, str]) -> Verdict:
    return Verdict(
        repo=REPO,
        pr=1,
        head_sha="a" * 40,
        cycle=1,
        settle="none",
        settled_on=[],
        pending=[],
        unknown_bots=[],
        critical=findings,
        advisory=[],
        gate="go",
        gate_reason="",
        bots={b: BotStatus(state=s) for b, s in bots.items()},  # type: ignore[arg-type]
    )


def vfinding(sources: list[tuple[str, str]], agrees: bool) -> VerdictFinding:
    srcs = [
        Source(bot=b, severity_raw=None, severity="critical", url="", endpoint="review_comment",
               stable_id=sid, title="t")
        for b, sid in sources
    ]  # fmt: skip
    return VerdictFinding(
        id="F1", file="a.py", line=1, line_end=None, title="t", severity="critical",
        agreement=len({b for b, _ in sources}), sources=srcs, spread="", agrees=agrees,
        same_issue=len({b for b, _ in sources}) if agrees else 1,
    )  # fmt: skip


def reading(**kw: Any) -> Ingested:
    return Ingested(findings=[], bots={}, unknown_bots=[], parse_notes=[], **kw)


# ------------------------------------------------------------------ what the Action records
def test_runs_accumulate_over_runs_and_keep_the_first_measured_time() -> None:
    first = next_runs(
        None,
        verdict([], {"codex": "failed", "cursor": "reviewed", "claude": "not_seen"}),
        reading(reviewed_at={"cursor": T0 + timedelta(minutes=7)}),
        ["codex", "cursor"],
        T0,
    )
    assert set(first) == {"codex", "cursor"}  # claude: neither expected nor seen
    assert first["codex"] == BotRun(expected=True, failed=True)
    assert first["cursor"] == BotRun(expected=True, reviewed=True, minutes=7.0)
    later = T0 + timedelta(hours=1)
    second = next_runs(
        first,
        verdict([], {"codex": "reviewed", "cursor": "reviewed"}),
        reading(reviewed_at={"codex": later + timedelta(minutes=2), "cursor": later}),
        ["codex", "cursor"],
        later,
    )
    assert second["codex"] == BotRun(expected=True, reviewed=True, failed=True, minutes=2.0)
    assert second["cursor"].minutes == 7.0  # the first head's, not re-measured


def test_a_review_older_than_its_head_commit_gives_no_time_not_a_negative_one() -> None:
    runs = next_runs(
        None,
        verdict([], {"cursor": "reviewed"}),
        reading(reviewed_at={"cursor": T0 - timedelta(minutes=5)}),
        ["cursor"],
        T0,
    )
    assert runs["cursor"].minutes is None
    control = next_runs(None, verdict([], {"cursor": "reviewed"}),
                        reading(reviewed_at={"cursor": T0}), ["cursor"], T0)  # fmt: skip
    assert control["cursor"].minutes == 0.0


def test_unreadable_comes_from_the_parsers_notes() -> None:
    runs = next_runs(None, verdict([], {}), reading(unreadable=frozenset({"qodo"})), [], None)
    assert runs == {"qodo": BotRun(unreadable=True)}


def test_ingest_records_when_a_bot_first_reviewed_the_head() -> None:
    head = "b" * 40
    clean = cursor_clean(head)
    from tests.factories import comment

    c1 = comment(CURSOR, clean, endpoint="review", id=5, commit=head)
    c1 = c1.model_copy(update={"created_at": T0 + timedelta(minutes=9)})
    c2 = c1.model_copy(update={"id": 6, "created_at": T0 + timedelta(minutes=3)})
    got = ingest([c1, c2], head_sha=head)
    assert got.reviewed_at == {"cursor": T0 + timedelta(minutes=3)}
    # Bugbot names the commit it reviewed: another head's review is not this one's.
    other = c1.model_copy(update={"body": cursor_clean("c" * 40), "commit_id": "c" * 40})
    assert ingest([other], head_sha=head).reviewed_at == {}


def test_corroborated_needs_two_reviewers_reporting_one_issue() -> None:
    rec = record(1, [entry("codex-aaaaaaaaaaaa", "open"), entry("cursor-bbbbbbbbbbbb", "open")])
    both = vfinding([("codex", "codex-aaaaaaaaaaaa"), ("cursor", "cursor-bbbbbbbbbbbb~2")], True)
    assert next_corroborated(None, verdict([both], {}), rec) == [
        "codex-aaaaaaaaaaaa",
        "cursor-bbbbbbbbbbbb",
    ]
    place_only = both.model_copy(update={"agrees": False})  # one place, not one issue
    assert next_corroborated(None, verdict([place_only], {}), rec) == []
    # Kept across cycles (the finding may since be likely fixed), only for entries still held.
    assert next_corroborated(["codex-aaaaaaaaaaaa", "gone-1"], verdict([], {}), rec) == [
        "codex-aaaaaaaaaaaa"
    ]


def test_old_records_still_decode_and_new_ones_round_trip() -> None:
    old = record(3, [entry("codex-a", "open")])
    assert old.bots is None and old.corroborated is None
    back, notice = decode(f"{MARKER}\n{encode(old)}\n", repo=REPO, pr=3)
    assert notice is None and back == old
    new = old.model_copy(update={"bots": {"codex": BotRun(expected=True, minutes=3.5)},
                                 "corroborated": ["codex-a"]})  # fmt: skip
    back, notice = decode(f"{MARKER}\n{encode(new)}\n", repo=REPO, pr=3)
    assert notice is None and back == new
    assert '"bt":{"codex":{"e":true,"m":3.5}}' in json.dumps(
        new.model_dump(mode="json", exclude_defaults=True, by_alias=True), separators=(",", ":")
    )


# ------------------------------------------------------------------ figures
def test_records_without_the_tally_are_untallied_not_guessed() -> None:
    old = record(5, [entry("codex-a", "likely_fixed")])  # no `bt`, no `co`
    new = record(6, [entry("codex-b", "open", "low")],
                 bots={"codex": BotRun(expected=True, reviewed=True)})  # fmt: skip
    card = scorecard(REPO, SINCE, UNTIL, [PrRecord(5, True, old), PrRecord(6, True, new)])
    assert card.untallied == [5]
    (codex,) = card.reviewers
    assert codex.prs_expected == 1 and codex.prs_reviewed == 1  # PR 6 only
    assert codex.findings.total == 2 and codex.likely_fixed == 1 and codex.open_at_merge == 1
    assert codex.median_minutes_to_review is None


def test_what_became_of_findings_and_the_rates() -> None:
    acc = {"kind": "follow-up", "reason": "later", "by": "mona", "cycle": 1}
    rec = record(
        7,
        [
            entry("codex-a", "accepted", acc=acc),
            entry("codex-b", "awaiting", "medium"),
            entry("cursor-c", "likely_fixed", bot="cursor"),
        ],
        gate="block",
        corroborated=["cursor-c"],
        bots={"gemini": BotRun(expected=True, skipped=True)},
    )
    card = scorecard(REPO, SINCE, UNTIL, [PrRecord(7, True, rec), PrRecord(8, False, None)])
    assert card.prs == 1 and card.closed_unmerged == 1 and card.merged_over_block == [7]
    by = {r.bot: r for r in card.reviewers}
    assert by["codex"].by_kind == {"wontfix": 0, "by-design": 0, "follow-up": 1}
    assert by["codex"].awaiting == 1 and by["codex"].acted_on == 0.0
    assert by["cursor"].corroborated == 1 and by["cursor"].unique == 0
    assert by["cursor"].acted_on == 1.0
    assert by["gemini"].skipped == 1 and by["gemini"].acted_on is None  # no findings: null


def test_a_closed_unmerged_prs_record_is_never_counted() -> None:
    rec = record(9, [entry("codex-a", "open")], gate="block")
    card = scorecard(REPO, SINCE, UNTIL, [PrRecord(9, False, rec)])
    assert card.prs == 0 and card.reviewers == [] and card.merged_over_block == []


# ------------------------------------------------------------------ renderers' defences
HOSTILE = '=HYPERLINK("x")<script>&\x1b[31m'


def hostile_card() -> Any:
    rec = record(4, [entry("x-a", "open", bot=HOSTILE), entry("codex-b", "open")])
    return scorecard(REPO, SINCE, UNTIL, [PrRecord(4, True, rec)])


def test_svg_escapes_every_value() -> None:
    root = ET.fromstring(to_svg(hostile_card()))  # parses: nothing broke out of the XML
    names = ["".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert any(n.startswith('=HYPERLINK("x")<script>&') for n in names)
    assert "Codex" in names  # control: the ordinary name as is


def test_csv_defuses_formulas() -> None:
    rows = to_csv(hostile_card()).splitlines()
    assert rows[1].startswith('"\'=HYPERLINK(""x"")<script>&",') and "\x1b" not in rows[1]
    assert rows[2].startswith("codex,")  # control


def test_table_strips_terminal_escapes() -> None:
    text = to_table(hostile_card())
    assert "\x1b" not in text and "=HYPERLINK" in text and "Codex" in text


# ------------------------------------------------------------------ window and progress
def test_window_bounds() -> None:
    now = datetime(2026, 4, 1, 12, 0, 30, tzinfo=UTC)
    assert window(None, None, now) == (now - timedelta(days=90), now)
    assert window("2026-01-01", "2026-01-31", now) == (
        datetime(2026, 1, 1, tzinfo=UTC),
        datetime(2026, 1, 31, 23, 59, 59, tzinfo=UTC),
    )
    assert window("2026-01-01T10:00:00+02:00", None, now)[0] == datetime(2026, 1, 1, 8, tzinfo=UTC)
    for bad in (("yesterday", None), ("2026-02-01", "2026-01-01"), (None, "2026-13-01")):
        with pytest.raises(UsageError):
            window(*bad, now)


def test_progress_bar_past_twenty_prs_only() -> None:
    err = io.StringIO()
    bar = Bar(err, 40)
    for n in range(1, 41):
        bar.step(n)
    lines = err.getvalue().splitlines()
    assert len(lines) == 10 and lines[-1].endswith("] 40/40") and "#" * 30 in lines[-1]
    quiet = io.StringIO()
    small = Bar(quiet, 20)
    for n in range(1, 21):
        small.step(n)
    assert quiet.getvalue() == ""


# ------------------------------------------------------------------ reads against the fake
def sticky(pr: int, findings: list[Entry], repo: str = REPO, **extra: Any) -> str:
    rec = record(pr, findings, **extra).model_copy(update={"repo": repo})
    return f"{MARKER}\n{encode(rec)}\n## Verdict\n"


def run(fake: FakeGitHub, *args: str, fmt: str | None = "json") -> tuple[int, str, str]:
    env = {"GITHUB_API_URL": fake.base_url, "GITHUB_TOKEN": "app-token"}
    out, err = io.StringIO(), io.StringIO()
    extra = ["--since", "2026-01-01", "--until", "2026-01-31", *(["--format", fmt] if fmt else [])]
    code = run_scorecard(["--repo", REPO, *extra, *args], env, out, err)
    return code, out.getvalue(), err.getvalue()


def merged(fake: FakeGitHub, pr: int) -> None:
    fake.add_pull(pr, head_sha=f"{pr:040x}")


def test_forged_and_foreign_stickies_are_never_read() -> None:
    with FakeGitHub() as fake:
        for pr in (1, 2, 3):
            merged(fake, pr)
        forged = sticky(1, [entry("codex-a", "likely_fixed")])
        fake.add_issue_comment(1, login="mallory", user_type="User", body=forged)
        fake.add_issue_comment(2, login=ACTIONS_LOGIN, body=sticky(9, [entry("codex-a", "open")]))
        fake.add_issue_comment(3, login=ACTIONS_LOGIN, body=sticky(3, [entry("codex-c", "open")]))
        for pr in (1, 2, 3):
            fake.close_pull(pr, merged=True)
        code, out, err = run(fake)
    assert code == 0, err
    data = json.loads(out)
    assert data["unjudged"] == [1, 2]
    assert (
        "#1: unjudged: no sticky comment by github-actions[bot]; one by mallory is ignored" in err
    )
    assert "#2: unjudged: history record belongs to another pull request" in err
    (codex,) = data["reviewers"]  # control: PR 3's own record counts
    assert codex["findings"]["total"] == 1 and codex["open_at_merge"] == 1


def test_a_long_conversation_costs_two_requests_and_finds_the_newest_sticky() -> None:
    with FakeGitHub() as fake:
        for pr in (1, 2):
            merged(fake, pr)

        def chat(pr: int, n: int) -> None:
            for i in range(n):
                fake.add_issue_comment(pr, login="chatty", user_type="User", body=f"hi {i}")

        # PR 1: our sticky came late, on the last of 3 pages; PR 2: on page 2 of 4, the middle.
        chat(1, 250)
        fake.add_issue_comment(1, login=ACTIONS_LOGIN, body=sticky(1, [entry("codex-a", "open")]))
        chat(2, 150)
        fake.add_issue_comment(2, login=ACTIONS_LOGIN, body=sticky(2, [entry("codex-b", "open")]))
        chat(2, 200)
        for pr in (1, 2):
            fake.close_pull(pr, merged=True)
        before = len(fake.request_log())
        code, out, err = run(fake, "--as", ACTIONS_LOGIN)
        reads = [r.path for r in fake.request_log()[before:] if r.route.endswith("/comments")]
    assert code == 0, err
    sweep, per_pr = reads[:1], reads[1:]
    assert "/repos/octo/app/issues/comments?" in sweep[0]  # found none: the sweep stops at once
    assert len(per_pr) == 4  # the first and the last page of each, never the middle
    assert sum("page=2" in r for r in per_pr) == 0
    data = json.loads(out)
    assert data["unjudged"] == [2]
    assert "#2: unjudged: no sticky comment by github-actions[bot] in its first and last" in err
    (codex,) = data["reviewers"]
    assert codex["open_at_merge"] == 1  # PR 1's record, read from its last page


def test_the_list_stops_at_the_window() -> None:
    with FakeGitHub() as fake:
        for pr in range(1, 251):
            merged(fake, pr)
            fake.close_pull(pr, merged=pr > 5)
        # Every PR was closed on 2026-01-05 by the fake's clock; a window after it is empty.
        env = {"GITHUB_API_URL": fake.base_url, "GITHUB_TOKEN": "app-token"}
        out, err = io.StringIO(), io.StringIO()
        args = ["--repo", REPO, "--since", "2026-01-06", "--as", "x", "--format", "json"]
        assert run_scorecard(args, env, out, err) == 0
        lists = [r for r in fake.request_log() if r.route.endswith("/pulls")]
        assert len(lists) == 1  # page 1 already reached past the window
        assert json.loads(out.getvalue())["prs"] == 0
        code, out2, err2 = run(fake, "--as", "x")
        assert code == 0, err2
        assert json.loads(out2)["prs"] == 245 and json.loads(out2)["closed_unmerged"] == 5
        assert "scorecard: [" in err2  # more than twenty: a progress bar


def test_a_corrupt_or_foreign_cache_is_ignored(tmp_path: Path) -> None:
    with FakeGitHub() as fake:
        merged(fake, 1)
        fake.add_issue_comment(1, login=ACTIONS_LOGIN, body=sticky(1, [entry("codex-a", "open")]))
        fake.close_pull(1, merged=True)
        code, first, err = run(fake, "--cache", str(tmp_path))
        assert code == 0, err
        (cache,) = tmp_path.glob("scorecard-*.json")
        data = json.loads(cache.read_text())
        # A cached page pointing elsewhere is dropped; the rest of the file still loads.
        _url, page = next(iter(data["pages"].items()))
        data["pages"]["https://evil.example/x"] = page
        cache.write_text(json.dumps(data))
        code, again, err = run(fake, "--cache", str(tmp_path))
        assert code == 0 and again == first and "cache: 1 pages" in err
        cache.write_text("{not json")
        code, third, err = run(fake, "--cache", str(tmp_path))
        assert code == 0 and third == first and "ignored: unreadable" in err


def test_a_failed_read_fails_the_run_and_writes_nothing(tmp_path: Path) -> None:
    with FakeGitHub() as fake:
        merged(fake, 1)
        fake.close_pull(1, merged=True)
        fake.inject("GET", r"/issues/1/comments", status=500, times=100)
        target = tmp_path / "card.json"
        env = {"GITHUB_API_URL": fake.base_url, "GITHUB_TOKEN": "app-token"}
        from reviewcoord.cli import main

        code = main(
            ["scorecard", "--repo", REPO, "--since", "2026-01-01", "--out", str(target)],
            env,
            io.StringIO(),
        )
    assert code != 0 and not target.exists()


def test_out_file_format_follows_its_suffix(tmp_path: Path) -> None:
    with FakeGitHub() as fake:
        merged(fake, 1)
        fake.close_pull(1, merged=True)
        for name in ("card.svg", "card.csv", "card.json"):
            code, _out, err = run(fake, "--out", str(tmp_path / name), fmt=None)
            assert code == 0, err
    assert (tmp_path / "card.svg").read_text().startswith("<svg")
    assert (tmp_path / "card.csv").read_text().startswith("bot,")
    assert json.loads((tmp_path / "card.json").read_text())["prs"] == 1


# ------------------------------------------------------------------ the documented contract
def _keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _keys(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_keys(v) for v in value[:1]]
    return None


def test_interface_example_has_the_golden_shape() -> None:
    root = Path(__file__).resolve().parents[1]
    doc = (root / "docs/interface.md").read_text(encoding="utf-8")
    section = doc.split("## 8. Scorecard JSON\n", 1)[1]
    example = json.loads(section.split("```json\n", 1)[1].split("```", 1)[0])
    golden = json.loads((root / "tests/golden/scorecard/repo.json").read_text(encoding="utf-8"))
    assert _keys(example) == _keys(golden)
    for field in _keys(golden["reviewers"][0]):
        assert f"`{field}`" in section, field


def test_the_sweep_is_read_through_only_when_it_is_cheaper() -> None:
    with FakeGitHub() as fake:
        for pr in range(1, 31):
            merged(fake, pr)
            fake.add_issue_comment(pr, login=ACTIONS_LOGIN, body=sticky(pr, []))
            fake.close_pull(pr, merged=True)
        before = len(fake.request_log())
        code, out, err = run(fake, "--as", ACTIONS_LOGIN)
        cheap = [r.route for r in fake.request_log()[before:]]
        assert code == 0 and json.loads(out)["unjudged"] == [], err
        assert cheap.count("/repos/octo/app/issues/comments") == 1 and len(cheap) == 2
        # Then a flood of newer comments elsewhere: 11 pages to sweep for 30 PRs is more than one
        # page per 4 PRs, so the sweep stops after its first page and every PR is read on its
        # own (never more than 2 requests a PR).
        fake.add_issue(999)
        for n in range(1000):
            fake.add_issue_comment(999, login="chatty", user_type="User", body=f"hi {n}")
        before = len(fake.request_log())
        code, out2, err = run(fake, "--as", ACTIONS_LOGIN)
        costly = [r.route for r in fake.request_log()[before:]]
    assert code == 0 and json.loads(out2) == json.loads(out), err
    assert costly.count("/repos/octo/app/issues/comments") == 1
    assert len([r for r in costly if r.startswith("/repos/octo/app/issues/")]) == 1 + 30


def test_a_sweep_of_a_few_pages_is_read_through_past_newer_comments() -> None:
    with FakeGitHub() as fake:
        for pr in range(1, 41):
            merged(fake, pr)
            fake.add_issue_comment(pr, login=ACTIONS_LOGIN, body=sticky(pr, []))
            fake.close_pull(pr, merged=True)
        fake.add_issue(999)
        for n in range(250):  # newer: the first 2 pages hold no sticky; 3 pages ≤ 40 / 4
            fake.add_issue_comment(999, login="chatty", user_type="User", body=f"hi {n}")
        before = len(fake.request_log())
        code, out, err = run(fake, "--as", ACTIONS_LOGIN)
        routes = [r.route for r in fake.request_log()[before:]]
    assert code == 0 and json.loads(out)["unjudged"] == [], err
    sweep = [r for r in routes if r.endswith("/issues/comments")]  # page 2+: /repositories/…
    assert len(sweep) == 3 and len(routes) == 4


def test_a_run_cut_short_by_the_rate_limit_keeps_its_cache(tmp_path: Path) -> None:
    with FakeGitHub() as fake:
        for pr in (1, 2):
            merged(fake, pr)
            fake.close_pull(pr, merged=True)  # no stickies: the sweep finds none, per-PR reads
        fake.inject("GET", r"/issues/2/comments", status=403, times=100, exhausted=True)
        with pytest.raises(GatewayError, match="rate limit exhausted"):
            run(fake, "--as", ACTIONS_LOGIN, "--cache", str(tmp_path))
        fake.clear_faults()
        before = len(fake.request_log())
        code, out, err = run(fake, "--as", ACTIONS_LOGIN, "--cache", str(tmp_path))
        again = {r.route: r.status for r in fake.request_log()[before:]}
    assert code == 0, err
    assert again["/repos/octo/app/issues/1/comments"] == 304  # read before the limit: free now
    assert again["/repos/octo/app/issues/2/comments"] == 200
    assert json.loads(out)["unjudged"] == [1, 2]


def test_the_bound_keeps_corroborations_only_for_the_entries_it_keeps() -> None:
    def title(i: int) -> str:  # incompressible, so the record needs cutting
        return hashlib.sha256(str(i).encode()).hexdigest() * 3

    many = [entry(f"codex-{i:012x}", "likely_fixed", title=title(i)) for i in range(600)]
    sids = [e.stable_id for e in many]
    rec = record(1, many, corroborated=sids, bots={"codex": BotRun(expected=True)})
    cut, dropped = bound(rec)
    assert dropped > 0 and len(encode(cut)) <= 20_000
    kept = {e.stable_id for e in cut.findings}
    assert cut.corroborated == [s for s in sids if s in kept] and cut.bots == rec.bots
