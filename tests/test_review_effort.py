"""The review effort Copilot says it used (issue 25; GitHub changelog 2026-11-06): read from its
review body — `**Review effort:**` (overview v2) or the "Review details" fold's `**Review effort
level:**` — into the verdict's bot detail, the record (`bt[bot].ef`) and the scorecard."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from reviewcoord.bots import parse_comment
from reviewcoord.history import BotRun, History, decode, encode
from reviewcoord.ingest import ingest
from reviewcoord.pipeline import judge
from reviewcoord.runs import next_runs
from reviewcoord.scorecard.figures import PrRecord, scorecard
from reviewcoord.scorecard.render import to_csv, to_table
from tests.bots_support import corpus_comment, load_corpus
from tests.e2e_support import MARKER

CORPUS = {e["corpus_id"]: (n, e) for n, e in enumerate(load_corpus(), start=1)}
HEAD = "f" * 40
RECORD = {"repo": "o/r", "pr": 1, "heads": [HEAD], "cycle": 1, "gate": "go"}


def review(cid: str):  # type: ignore[no-untyped-def]
    number, entry = CORPUS[cid]
    return corpus_comment(entry, number).model_copy(update={"commit_id": HEAD})


def test_the_review_details_fold_and_the_overview_give_the_effort() -> None:
    details = parse_comment("copilot", review("N5_cop_dagcore753_review_details"))
    assert (details.kind, details.effort, details.detail) == (
        "clean",
        "Lite",
        "review effort: Lite",
    )
    overview = parse_comment("copilot", review("N4_cop_cargo11_green"))
    assert overview.effort == "Balanced"
    # A body naming no effort names none; a quoted effort line is the PR's content.
    plain = review("N5_cop_dagcore753_review_details")
    quoted = plain.body.replace("- **Review effort level:** Lite", "> **Review effort level:** Max")
    assert parse_comment("copilot", plain.model_copy(update={"body": quoted})).effort == ""


def test_the_effort_is_the_verdicts_bot_detail() -> None:
    verdict = judge(
        [review("N5_cop_dagcore753_review_details")],
        repo="o/r",
        pr=1,
        head_sha=HEAD,
        expected=["copilot"],
    )
    assert verdict.bots["copilot"].state == "reviewed"
    assert verdict.bots["copilot"].detail == "review effort: Lite"


def test_the_record_keeps_the_newest_effort_and_the_scorecard_counts_prs_by_it() -> None:
    lite = review("N5_cop_dagcore753_review_details")
    balanced = review("N4_cop_cargo11_green").model_copy(update={"id": 999})
    ingested = ingest([lite, balanced], head_sha=HEAD)
    assert ingested.efforts == {"copilot": "Balanced"}
    verdict = judge([lite, balanced], repo="o/r", pr=1, head_sha=HEAD, expected=["copilot"])
    runs = next_runs(None, verdict, ingested, ["copilot"], None)
    assert runs["copilot"].effort == "Balanced"
    # A record round-trips it (an older record simply lacks it: None).
    record = History.model_validate({**RECORD, "bt": {"copilot": runs["copilot"]}})
    back, _ = decode(f"{MARKER}\n{encode(record)}\n", repo="o/r", pr=1)
    assert back is not None and back.bots is not None and back.bots["copilot"].effort == "Balanced"
    start = datetime(2026, 11, 1, tzinfo=UTC)
    pulls = [
        PrRecord(
            n,
            True,
            History.model_validate(
                {**RECORD, "pr": n, "bt": {"copilot": BotRun(reviewed=True, effort=e)}}
            ),
        )
        for n, e in ((1, "Balanced"), (2, "Lite"), (3, "Balanced"), (4, None))
    ]
    card = scorecard("o/r", start, start + timedelta(days=30), pulls)
    (copilot,) = card.reviewers
    assert copilot.review_effort == {"Balanced": 2, "Lite": 1}
    assert "Review effort of Copilot (PRs): Balanced 2, Lite 1" in to_table(card)
    assert to_csv(card).splitlines()[1].endswith(
        ",Balanced 2, Lite 1"
    ) or '"Balanced 2, Lite 1"' in to_csv(card)
