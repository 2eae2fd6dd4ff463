"""The one binding rule (reviewcoord/binding.py `binds_to_head`): a signal speaks for a head
only by GitHub's own facts about that head. One table; each attack row sits beside its control.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from reviewcoord.binding import ANY_TIME, HeadFacts, Known, Signal, binds_to_head, head_facts

HEAD = "ec26c3e57ca3a959ca5aad62de7213c562f8c821"
OLD = "ec26c3e0000000000000000000000000000000aa"  # shares HEAD's first 7 hex: ground in seconds
OTHER = "b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4"
ARRIVED = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
BEFORE = ARRIVED - timedelta(minutes=5)
AFTER = ARRIVED + timedelta(minutes=5)
LATER = ARRIVED + timedelta(minutes=10)

# The facts of a head that arrived at ARRIVED on a PR that never had another head, and of one
# pushed over an older head (OLD or OTHER), with and without proof that the bot works on it.
FIRST = HeadFacts(HEAD, ARRIVED)
PUSHED = HeadFacts(HEAD, ARRIVED, others=frozenset({OTHER}), older_head=True)
GROUND = HeadFacts(HEAD, ARRIVED, others=frozenset({OLD}), older_head=True)
ANCHORED = HeadFacts(HEAD, ARRIVED, older_head=True, anchors={"codex": AFTER})
FILED = HeadFacts(HEAD, ARRIVED, commit_ids={"codex": frozenset({HEAD})}, older_head=True)

CASES: list[tuple[str, Signal, HeadFacts, bool]] = [
    # A review binds by its commit_id; null is not this head (GitHub did not find the commit).
    ("review of the head", Signal("codex", "review", commit_id=HEAD), PUSHED, True),
    ("review of an older head", Signal("codex", "review", commit_id=OTHER), PUSHED, False),
    ("review with commit_id null", Signal("codex", "review", commit_id=None), FIRST, False),
    (
        "inline comment made on the head",
        Signal("codex", "review_comment", commit_id=HEAD),
        PUSHED,
        True,
    ),
    (
        "inline comment made earlier",
        Signal("codex", "review_comment", commit_id=OTHER),
        PUSHED,
        False,
    ),
    ("inline comment, no commit", Signal("codex", "review_comment"), FIRST, False),
    # A stated commit: the full SHA, or a prefix GitHub confirms; never a bare prefix.
    ("stated full SHA of the head", Signal("greptile", "issue_comment", stated=HEAD), PUSHED, True),
    (
        "stated full SHA of another",
        Signal("greptile", "issue_comment", stated=OTHER),
        PUSHED,
        False,
    ),
    (
        "prefix written before the head arrived",
        Signal("codex", "issue_comment", stated=HEAD[:7], when=BEFORE),
        PUSHED,
        False,
    ),
    (
        "prefix written after the head arrived",
        Signal("codex", "issue_comment", stated=HEAD[:7], when=AFTER),
        PUSHED,
        True,
    ),
    (
        "prefix an older commit shares (ground)",
        Signal("codex", "issue_comment", stated=HEAD[:7], when=AFTER),
        GROUND,
        False,
    ),
    (
        "10-hex prefix unlike the older commit",
        Signal("codex", "issue_comment", stated=HEAD[:10], when=AFTER),
        GROUND,
        True,
    ),
    (
        "prefix agreeing with the bot's commit_id",
        Signal("codex", "issue_comment", stated=HEAD[:7], when=BEFORE),
        FILED,
        True,
    ),
    (
        "prefix of another commit",
        Signal("codex", "issue_comment", stated=OTHER[:7], when=AFTER),
        PUSHED,
        False,
    ),
    (
        "prefix, arrival unknown",
        Signal("codex", "issue_comment", stated=HEAD[:7], when=AFTER),
        HeadFacts(HEAD, None),
        False,
    ),
    (
        "six hex is no commit",
        Signal("codex", "issue_comment", stated=HEAD[:6], when=AFTER),
        FIRST,
        False,
    ),
    # A signal that names no commit: after the head arrived, and after proof the bot is on it.
    ("reaction before the head arrived", Signal("codex", "reaction", when=BEFORE), FIRST, False),
    ("reaction after, the PR's only head", Signal("codex", "reaction", when=AFTER), FIRST, True),
    ("reaction after a push, no proof", Signal("codex", "reaction", when=AFTER), PUSHED, False),
    ("reaction after the bot's proof", Signal("codex", "reaction", when=LATER), ANCHORED, True),
    ("reaction before the bot's proof", Signal("codex", "reaction", when=ARRIVED), ANCHORED, False),
    (
        "another bot's proof is not this bot's",
        Signal("claude", "issue_comment", when=LATER),
        ANCHORED,
        False,
    ),
    (
        "clean comment, arrival unknown",
        Signal("claude", "issue_comment", when=AFTER),
        HeadFacts(HEAD, None),
        False,
    ),
    (
        "offline judgement: what it was given",
        Signal("claude", "issue_comment"),
        HeadFacts(HEAD, ANY_TIME, older_head=True),
        True,
    ),
    # An in-place tracker: its run began when it was created.
    (
        "tracker begun after the push",
        Signal("claude", "issue_comment", when=LATER, in_place=True, created=AFTER),
        PUSHED,
        True,
    ),
    (
        "tracker begun before, finished after",
        Signal("claude", "issue_comment", when=LATER, in_place=True, created=BEFORE),
        PUSHED,
        False,
    ),
]


@pytest.mark.parametrize(
    ("signal", "facts", "binds"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_binds_to_head(signal: Signal, facts: HeadFacts, binds: bool) -> None:
    assert binds_to_head(signal, facts) is binds


def test_head_facts_prove_work_from_the_bots_own_commit_bound_signal() -> None:
    review = Signal("codex", "review", commit_id=HEAD, when=AFTER)
    thumbs = Signal("codex", "reaction", when=LATER)
    facts = head_facts(HEAD, [review, thumbs], Known(ARRIVED, older_head=True))
    assert facts.anchors == {"codex": AFTER}
    assert binds_to_head(thumbs, facts)
    # Control: without its review of the head, the 👍 after a push counts for the older head.
    assert not binds_to_head(thumbs, head_facts(HEAD, [thumbs], Known(ARRIVED, older_head=True)))


def test_head_facts_a_review_of_another_commit_proves_an_older_head() -> None:
    old = Signal("codex", "review", commit_id=OTHER, when=BEFORE)
    thumbs = Signal("codex", "reaction", when=AFTER)
    facts = head_facts(HEAD, [old, thumbs], Known(ARRIVED))
    assert facts.older_head and OTHER in facts.others
    assert not binds_to_head(thumbs, facts)
    # Control: the same 👍 on a PR whose only head this is.
    assert binds_to_head(thumbs, head_facts(HEAD, [thumbs], Known(ARRIVED)))


def test_head_facts_our_request_for_the_head_is_proof_from_when_we_made_it() -> None:
    thumbs = Signal("codex", "reaction", when=LATER)
    asked = Known(ARRIVED, older_head=True, requests={"codex": (BEFORE, AFTER)})
    facts = head_facts(HEAD, [thumbs], asked)
    assert facts.anchors == {"codex": AFTER}  # the request made before the push is not one
    assert binds_to_head(thumbs, facts)
    early = Known(ARRIVED, older_head=True, requests={"codex": (BEFORE,)})
    assert not binds_to_head(thumbs, head_facts(HEAD, [thumbs], early))


def test_head_facts_a_ground_prefix_never_proves_work() -> None:
    old = Signal("codex", "review", commit_id=OLD, when=BEFORE)
    tracker = Signal("codex", "issue_comment", stated=HEAD[:7], when=AFTER)
    facts = head_facts(HEAD, [old, tracker], Known(ARRIVED))
    assert not binds_to_head(tracker, facts)
    assert "codex" not in facts.anchors
