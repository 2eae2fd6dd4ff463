"""Declared reviewers (interface §7 `reviewers:`): the declaration and its errors, how a declared
bot's comments are read, the bounds on its regexes, and the registry scope it is judged in."""

from __future__ import annotations

import re
import signal
import threading
import time
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reviewcoord.bots import bot_for_author, bot_keys, display_name, parse_comment
from reviewcoord.bots import bounded_regex as bounded
from reviewcoord.bots.declared import profiles
from reviewcoord.config import Settings, build_settings, declared_scope, parse_config_file
from reviewcoord.errors import ConfigError
from reviewcoord.ingest import ingest
from reviewcoord.model import Endpoint, ParsedComment, RawComment
from reviewcoord.normalize import merged_table
from reviewcoord.pipeline import judge
from tests.bots_support import comment, graphql_bot
from tests.declared_support import KILO_CONFIG as KILO
from tests.declared_support import KILO_LOGIN

SRC = ".github/review-coordinator.yml"
HEAD = "c0ffee" + "0" * 34


def build(text: str, **inputs: str) -> Settings:
    return build_settings(
        parse_config_file(text, SRC), inputs, file_source=SRC, input_source="workflow inputs"
    )


@pytest.fixture
def kilo() -> Iterator[Settings]:
    settings = build(KILO)
    with declared_scope(settings):
        yield settings


def kilo_says(
    body: str, endpoint: Endpoint = "review", cid: int = 1, **fields: object
) -> RawComment:
    if endpoint == "review_comment":
        fields = {"path": "src/app.py", "line": 12, "original_commit_id": HEAD, **fields}
    elif endpoint == "review":
        fields = {"commit_id": HEAD, **fields}
    return comment(body, endpoint, KILO_LOGIN, id=cid, **fields)


def parsed(body: str, endpoint: Endpoint = "review", **fields: object) -> ParsedComment:
    return parse_comment("kilo", kilo_says(body, endpoint, **fields), merged_table({}))


def reviewer(extra: str = "", key: str = "kilo", login: str = "kilo-code-bot[bot]") -> str:
    """A minimal `reviewers:` entry plus `extra` lines (indented under it)."""
    lines = "".join(f"    {line}\n" for line in extra.splitlines())
    return f"reviewers:\n  {key}:\n    logins: ['{login}']\n{lines}"


# --- the declaration and its errors --------------------------------------------------------


def test_the_example_declares_a_bot_like_a_built_in_one(kilo: Settings) -> None:
    assert "kilo" in bot_keys() and display_name("kilo") == "Kilo Code"
    assert bot_for_author("kilo-code-bot[bot]", "Bot") == graphql_bot("kilo-code-bot") == "kilo"
    assert "kilo" in kilo.fast_pack and "kilo" not in kilo.slow_pack
    assert set(kilo.reviewers) == {"kilo"}


def test_the_scope_ends_with_the_block_and_may_be_entered_again(kilo: Settings) -> None:
    with declared_scope(kilo):  # the same declarations again: harmless
        assert "kilo" in bot_keys()
    assert "kilo" in bot_keys()
    with declared_scope(None):
        assert "kilo" in bot_keys()
    # Validating the same config again while it is in scope is no clash either.
    assert build(KILO).reviewers == kilo.reviewers


def test_validation_leaves_the_registry_as_it_was() -> None:
    settings = build(KILO)
    assert "kilo" not in bot_keys() and bot_for_author(KILO_LOGIN, "Bot") is None
    assert settings.reviewers["kilo"].logins == (KILO_LOGIN,)


def test_a_declared_key_works_wherever_a_bot_key_does() -> None:
    text = KILO + "expected-bots: [kilo, codex]\nslow-pack: [codex, kilo]\nfast-pack: [cursor]\n"
    text += "severity:\n  kilo:\n    info: medium\n"
    settings = build(text, **{"require-bots": "kilo-code-bot"})  # an input, by login
    assert settings.expected_bots == ["kilo", "codex"] and settings.require_bots == ["kilo"]
    assert settings.slow_pack == ["codex", "kilo"] and settings.fast_pack == ["cursor"]
    with declared_scope(settings):
        table = merged_table(settings.severity)
        assert table["kilo"] == {"critical": "critical", "warning": "medium", "info": "medium"}
        assert settings.explicit_expected == ["codex", "kilo"]


def test_the_default_packs_take_the_declared_pack() -> None:
    settings = build(reviewer("pack: slow"))
    assert "kilo" in settings.slow_pack and "kilo" not in settings.fast_pack


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            reviewer("severity:\n  pattern: '(Critical'"),
            "key 'reviewers.kilo.severity.pattern': does not compile: missing ),",
        ),
        (
            reviewer("severity:\n  pattern: '^(A):'\n  levels: {A: high}"),
            "key 'reviewers.kilo.severity.levels.A': allowed: 'critical', 'medium' or 'low'",
        ),
        (
            reviewer("severity:\n  pattern: '^Critical'"),
            "key 'reviewers.kilo.severity.pattern': needs a group 1",
        ),
        (
            reviewer("severity:\n  pattern: '^(A):'\n  levels: {A: low, a: medium}"),
            "key 'reviewers.kilo.severity.levels': 'A' and 'a' are one label",
        ),
        (reviewer(key="Kilo"), "key 'reviewers.Kilo': a reviewer key is lowercase letters"),
        (reviewer(key="-kilo"), "key 'reviewers.-kilo': a reviewer key is lowercase letters"),
        (reviewer(key="codex"), "key 'reviewers.codex': 'codex' is already the key of Codex"),
        (reviewer(key="auto"), "key 'reviewers.auto': 'auto' is reserved"),
        (
            reviewer(login="cursor[bot]"),
            "key 'reviewers.kilo.logins': login 'cursor[bot]' already belongs to Cursor (cursor)",
        ),
        (
            # The GraphQL spelling of one is the login of the other: one bot, two keys.
            reviewer() + "  lolo:\n    logins: ['kilo-code-bot']\n",
            "key 'reviewers.lolo.logins': login 'kilo-code-bot' already belongs to kilo",
        ),
        (reviewer("colour: red"), "key 'reviewers.kilo.colour': unknown key; allowed keys: name,"),
        (
            reviewer("severity:\n  pattern: '^(A)'\n  lvls: {}"),
            "key 'reviewers.kilo.severity.lvls': unknown key; allowed keys: pattern, levels",
        ),
        ("reviewers:\n  kilo:\n    logins: []\n", "key 'reviewers.kilo.logins': must not be empty"),
        (
            "reviewers:\n  kilo:\n    logins: k[bot]\n",
            "key 'reviewers.kilo.logins': must be a list",
        ),
        ("reviewers:\n  kilo:\n    pack: fast\n", "key 'reviewers.kilo.logins': Field required"),
        (reviewer(login="kilo bot"), "key 'reviewers.kilo.logins.0': not a GitHub login"),
        (reviewer("pack: medium"), "key 'reviewers.kilo.pack': allowed: 'fast' or 'slow'"),
        (reviewer("reviewed: done"), "key 'reviewers.kilo.reviewed': must be a list"),
        (reviewer("reviewed: [3]"), "key 'reviewers.kilo.reviewed.0': must be a string"),
        (reviewer("name: '<b>Kilo</b>'"), "key 'reviewers.kilo.name': letters, digits, spaces"),
        ("reviewers: [kilo]\n", "key 'reviewers': must be a mapping"),
        (
            reviewer("working: ['(a)\\1']"),
            "key 'reviewers.kilo.working.0': uses a backreference",
        ),
        (
            reviewer("failed: ['rate limit', '']"),
            "key 'reviewers.kilo.failed.1': String should have at least 1 character",
        ),
        (reviewer("failed: ['x?']"), "key 'reviewers.kilo.failed.0': matches the empty string"),
        (reviewer() + "require-bots: [kilo, lolo]\n", "unknown bot 'lolo'; allowed: codex,"),
    ],
)
def test_errors_name_the_key(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        build(text)
    assert str(info.value).startswith(f"{SRC}: "), info.value
    assert message in str(info.value), info.value
    assert "\n" not in str(info.value)
    assert "kilo" not in bot_keys()


@pytest.mark.parametrize(
    "pattern", [r"(a+)+$", r"(a*)*b", r"x(.*a)*", r"^(\w+\s?)+$", r"(a{1,3})+!", r"(?:\s*x)*y"]
)
def test_a_catastrophic_regex_is_a_config_error_naming_the_key(pattern: str) -> None:
    text = reviewer(f"reviewed: ['No issues found', '{pattern}']")
    with pytest.raises(ConfigError, match=r"key 'reviewers\.kilo\.reviewed\.1': has a repeat"):
        build(text)


def test_a_regex_that_backtracks_without_nested_repeats_is_caught_by_the_probe() -> None:
    with pytest.raises(ConfigError, match=r"'reviewers\.kilo\.failed\.0': took longer than"):
        build(reviewer(r"failed: ['(a|a)*b']"))


def test_an_input_may_not_name_an_undeclared_reviewer() -> None:
    with pytest.raises(ConfigError, match="workflow inputs: key 'require-bots': unknown bot"):
        build("group-window: 3\n", **{"require-bots": "kilo"})


# --- how a declared bot's comments are read ------------------------------------------------


@pytest.mark.usefixtures("kilo")
def test_an_inline_comment_is_one_finding_labelled_by_group_1() -> None:
    p = parsed("**Critical** SQL built from user input\n\nMore words.", "review_comment")
    (f,) = p.findings
    assert (f.title, f.severity_raw, f.severity) == (
        "SQL built from user input",
        "Critical",
        "critical",
    )
    assert (f.file, f.line, f.endpoint) == ("src/app.py", 12, "review_comment")
    plain = parsed("Consider a guard here.", "review_comment")
    assert [(f.title, f.severity_raw, f.severity) for f in plain.findings] == [
        ("Consider a guard here.", None, "medium")
    ]
    unknown = parsed("**Critical**: x\n**Info** y", "review_comment").findings[0]
    assert unknown.severity_raw == "Critical"  # the first label, once per inline comment


@pytest.mark.usefixtures("kilo")
def test_an_inline_comment_is_never_a_state_notice() -> None:
    # "rate limit" in a finding is about the code, not about the bot's run.
    p = parsed("**Warning** This loop can hit the API rate limit", "review_comment")
    assert p.kind == "finding" and p.findings[0].severity == "medium"


@pytest.mark.usefixtures("kilo")
def test_a_review_body_or_pr_comment_is_a_finding_only_on_a_pattern_match() -> None:
    assert parsed("Thanks for the PR! I will look at it.", "issue_comment").kind == "noise"
    assert parsed("Summary of the changes: two files.").kind == "noise"
    assert parsed("").kind == "noise" and parsed("   \n").kind == "noise"
    body = "Two things:\n\n**Critical** Token logged in `src/auth.py:40`\n\n**Info** Typo"
    p = parsed(body, "issue_comment")
    assert [(f.title, f.severity, f.file, f.line) for f in p.findings] == [
        ("Token logged in `src/auth.py:40`", "critical", "src/auth.py", 40),
        ("Typo", "low", None, None),
    ]


@pytest.mark.usefixtures("kilo")
def test_phrases_signal_the_run_state_with_failed_over_working_over_reviewed() -> None:
    failed = parsed("Hello\nSorry, I hit a rate limit on this repo.\nReviewing your changes")
    assert (failed.kind, failed.detail) == ("failed", "Sorry, I hit a rate limit on this repo.")
    working = parsed("Reviewing your changes…\n\n## Review complete")
    assert (working.kind, working.detail) == ("in_progress", "Reviewing your changes…")
    clean = parsed("No issues found in 3 files.", "issue_comment")
    assert clean.kind == "reviewed" and not clean.findings


@pytest.mark.usefixtures("kilo")
def test_a_reviewed_phrase_with_findings_is_a_finding_comment_that_counts_as_the_review() -> None:
    p = parsed("## Review complete\n\n**Critical** Unbounded retry")
    assert p.kind == "finding" and p.review_signal and p.findings[0].severity == "critical"
    # Without the phrase, findings are kept but are not the finished review (a phrase is
    # declared): the bot may still be posting.
    p = parsed("**Critical** Unbounded retry")
    assert p.kind == "finding" and not p.review_signal
    # A failure notice keeps its findings (never drop a blocker) and still says failed.
    p = parsed("**Critical** Unbounded retry\n\nStopped: rate limit")
    assert p.kind == "failed" and [f.severity for f in p.findings] == ["critical"]


def test_without_reviewed_phrases_a_finding_is_the_review() -> None:
    settings = build(reviewer("severity:\n  pattern: '^(P[0-3])'\n  levels: {P0: critical}"))
    with declared_scope(settings):
        p = parsed("P0 crash on empty input", "review_comment")
        assert p.review_signal and p.findings[0].severity == "critical"


def test_labels_ignore_case_and_outer_spaces_on_both_sides() -> None:
    text = reviewer("severity:\n  pattern: '^\\[(\\w+ ?)\\]'\n  levels: {' HIGH': critical}")
    with declared_scope(build(text)):
        assert parsed("[high ] Leak", "review_comment").findings[0].severity == "critical"
        assert parsed("[High] Leak", "review_comment").findings[0].severity == "critical"
        assert parsed("[Low] Leak", "review_comment").findings[0].severity == "medium"


@pytest.mark.usefixtures("kilo")
def test_only_the_first_65536_characters_are_matched() -> None:
    late = "x" * bounded.MAX_TEXT + "\nrate limit"
    assert parsed(late).kind == "noise"
    assert parsed(late[-200:]).kind == "failed"


@pytest.mark.usefixtures("kilo")
def test_states_through_ingest_inline_findings_then_the_closing_review() -> None:
    inline = kilo_says("**Critical** SQL built from user input", "review_comment", cid=5)
    done = kilo_says("## Review complete", "review", cid=6)
    other = kilo_says("**Info** Typo", "review_comment", cid=7)
    # REST always spells the App `kilo-code-bot[bot]`: the suffix-less spelling is not it.
    other = other.model_copy(update={"author_login": "kilo-code-bot"})
    only_inline = ingest([inline, other], head_sha=HEAD)
    assert only_inline.state("kilo") == "not_seen" and len(only_inline.findings) == 1
    assert only_inline.unknown_bots == ["kilo-code-bot"]
    both = ingest([inline, other, done], head_sha=HEAD)
    assert both.state("kilo") == "reviewed"
    verdict = judge([inline, done], repo="o/r", pr=1, head_sha=HEAD, expected=["kilo"])
    assert verdict.gate == "block" and verdict.bots["kilo"].state == "reviewed"
    assert verdict.critical[0].spread == "Kilo Code:Critical"


@pytest.mark.usefixtures("kilo")
def test_a_failure_after_findings_is_not_a_review() -> None:
    inline = kilo_says("**Critical** SQL built from user input", "review_comment", cid=5)
    limit = kilo_says("could not review the rest: rate limit", "issue_comment", cid=9)
    verdict = judge(
        [inline, limit], repo="o/r", pr=1, head_sha=HEAD, expected=["kilo"], required=["kilo"]
    )
    assert verdict.bots["kilo"].state == "failed" and verdict.unreviewed == ["kilo"]
    assert len(verdict.critical) == 1


# --- the bounds on the regexes -------------------------------------------------------------


@pytest.mark.parametrize(
    "pattern",
    [
        r"^\*\*(Critical|Warning|Info)\*\*",
        r"(\d{1,3}\.){3}\d{1,3}",
        r"\w+ issues? found",
        r"(?i)rate[ -]limit",
        r"^## Review (complete|done)$",
        r"(?:ab)+c",
    ],
)
def test_ordinary_patterns_pass(pattern: str) -> None:
    assert bounded.problem(pattern, re.MULTILINE) is None


def test_within_returns_the_work_or_out_of_time() -> None:
    assert bounded.within(5, lambda: 42) == 42
    runaway = bounded.within(0.02, lambda: re.match(r"(a+)+$", "a" * 40 + "b"))
    assert runaway == bounded.OutOfTime(0.02)


def test_within_counts_cpu_time_not_the_wall_clock() -> None:
    # A run descheduled on a busy runner (here: asleep) is not out of time; burning CPU is.
    assert bounded.within(0.05, lambda: time.sleep(0.2) or "slept") == "slept"
    runaway = bounded.within(0.05, lambda: re.match(r"(a+)+$", "a" * 40 + "b"))
    assert runaway == bounded.OutOfTime(0.05)


def test_within_restores_the_previous_handler_and_timer() -> None:
    def mine(_signum: int, _frame: object) -> None:
        raise AssertionError("the outer timer must not fire during the test")

    previous = signal.signal(signal.SIGVTALRM, mine)
    signal.setitimer(signal.ITIMER_VIRTUAL, 3600)
    try:
        bounded.within(0.01, lambda: re.match(r"(a+)+$", "a" * 40 + "b"))
        assert signal.getsignal(signal.SIGVTALRM) is mine
        left, _interval = signal.getitimer(signal.ITIMER_VIRTUAL)
        assert 0 < left <= 3600
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        signal.signal(signal.SIGVTALRM, previous)


def test_off_the_main_thread_the_work_runs_unbounded() -> None:
    results: list[object] = []
    thread = threading.Thread(target=lambda: results.append(bounded.within(0.001, lambda: 7)))
    thread.start()
    thread.join()
    assert results == [7]


def test_a_pattern_that_slips_past_the_checks_is_bounded_on_the_body_that_blows_it_up() -> None:
    # Quadratic, not exponential: fine on ordinary bodies and on the probes, seconds on 64 KB of
    # word characters. The comment fails closed: `unreadable` with a parse note, never a review.
    pattern = r"\w+ issues found"
    assert bounded.problem(pattern, re.MULTILINE) is None
    with declared_scope(build(reviewer(f"reviewed: ['{pattern}']"))):
        assert parsed("3 issues found").kind == "reviewed"
        p = parsed("a" * bounded.MAX_TEXT)
        assert p.unreadable and not p.review_signal and not p.findings
        assert p.parse_note is not None and "took longer than 100 ms" in p.parse_note
        inline = parsed("a" * bounded.MAX_TEXT, "review_comment")
        assert inline.findings and inline.findings[0].severity == "medium"


def test_a_tiny_budget_bounds_any_comment(kilo: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    from reviewcoord.bots import declared_parser

    def burn(*_args: object, **_kwargs: object) -> None:
        # Matching that never ends by itself (two CPU seconds stand for "forever"): the CPU
        # timer counts in scheduler ticks, so the work must outlast a few of them to be cut.
        started = time.process_time()
        while time.process_time() - started < 2:
            pass

    monkeypatch.setattr(declared_parser, "MATCH_SECONDS", 0.01)
    monkeypatch.setattr(declared_parser.DeclaredParser, "_match", burn)
    p = parsed("**Critical** x\n" * 20_000)
    assert p.parse_note is not None and "took longer than" in p.parse_note
    assert not p.review_signal


DECLARED_SETTINGS = settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@DECLARED_SETTINGS
@given(
    endpoint=st.sampled_from(["review", "review_comment", "issue_comment"]),
    body=st.text(
        alphabet=st.sampled_from(list("*#\n :CriticalWngInfoNsuedrtm`/.0123")), max_size=300
    ),
    reply=st.none() | st.integers(1, 5),
)
def test_the_declared_parser_never_raises(endpoint: Endpoint, body: str, reply: int | None) -> None:
    with declared_scope(build(KILO)):
        p = parsed(body, endpoint, in_reply_to_id=reply)
    assert p.parse_note is None
    if p.kind == "finding":
        assert p.findings
    for f in p.findings:
        assert f.title.strip() and f.severity in {"critical", "medium", "low"}


def test_profiles_from_one_declaration_are_equal() -> None:
    settings = build(KILO)
    assert profiles(settings.reviewers) == profiles(build(KILO).reviewers)


# --- issue 15: phrases only as the bot's own words; identity = login and type ---------------


@pytest.mark.usefixtures("kilo")
@pytest.mark.parametrize(
    "quoted",
    [
        "```\nprint('No issues found')\n```",
        "> No issues found",
        "The test prints `No issues found` on success.",
    ],
)
def test_a_phrase_inside_what_the_bot_quotes_is_no_run_state(quoted: str) -> None:
    assert parsed(f"Looking at it.\n\n{quoted}\n").kind == "noise"
    # Control: the phrase as the bot's own line is its finished review.
    assert parsed("Looking at it.\n\nNo issues found\n").kind == "reviewed"


USER_REVIEWER = """
reviewers:
  cuioss:
    name: CUI review
    logins: ['cuioss-review-bot']
    type: user
    reviewed: ['^## PR Reviewer Guide']
"""


def test_a_user_account_reviewer_counts_only_from_that_user_account() -> None:
    settings = build(USER_REVIEWER)
    with declared_scope(settings):
        assert display_name("cuioss") == "CUI review (user account)"
        guide = "## PR Reviewer Guide 🔍\n\nNo security concerns identified."
        person = comment(guide, "issue_comment", "cuioss-review-bot")
        person = person.model_copy(update={"author_type": "User"})
        assert ingest([person], head_sha=HEAD).state("cuioss") == "reviewed"
        # Control: an App (type Bot) of that login is not it; it is an unknown bot.
        app = comment(guide, "issue_comment", "cuioss-review-bot")
        got = ingest([app], head_sha=HEAD)
        assert got.state("cuioss") == "not_seen" and got.unknown_bots == ["cuioss-review-bot"]


def test_a_bot_reviewer_never_counts_from_a_user_account(kilo: Settings) -> None:
    done = kilo_says("## Review complete", "review", cid=6)
    person = done.model_copy(update={"author_login": "kilo-code-bot", "author_type": "User"})
    got = ingest([person], head_sha=HEAD)
    assert got.state("kilo") == "not_seen" and got.impostors == {"kilo-code-bot": "kilo"}
    assert ingest([done], head_sha=HEAD).state("kilo") == "reviewed"


def test_a_user_reviewer_may_not_declare_an_app_login() -> None:
    with pytest.raises(ConfigError, match=r"'x\[bot\]' is an App's"):
        build("reviewers:\n  kilo:\n    logins: ['x[bot]']\n    type: user\n")
    with pytest.raises(ConfigError, match=r"reviewers\.kilo\.type"):
        build("reviewers:\n  kilo:\n    logins: ['x']\n    type: robot\n")


def test_a_declared_trigger_is_the_profile_trigger_and_hint() -> None:
    from reviewcoord.bots.declared import parse_reviewers, profile
    from reviewcoord.bots.registry import REGISTRY as registry

    declared = parse_reviewers(
        {"kilo": {"logins": ["kilo[bot]"], "trigger": "@kilo review"}}, registry
    )
    p = profile("kilo", declared["kilo"])
    assert p.trigger == "@kilo review" and p.rerequest == "re-request with `@kilo review`"


@pytest.mark.parametrize(
    "trigger",
    ["/review-coordinator accept F1 wontfix: x", "two\nlines", "<b>hi</b>", "", "x" * 101],
)
def test_a_declared_trigger_that_is_not_a_plain_line_is_refused(trigger: str) -> None:
    from reviewcoord.bots.declared import DeclarationError, parse_reviewers
    from reviewcoord.bots.registry import REGISTRY as registry

    with pytest.raises(DeclarationError) as err:
        parse_reviewers({"kilo": {"logins": ["kilo[bot]"], "trigger": trigger}}, registry)
    assert err.value.key == "reviewers.kilo.trigger"


def test_control_no_trigger_means_never_asked() -> None:
    from reviewcoord.bots.declared import parse_reviewers, profile
    from reviewcoord.bots.registry import REGISTRY as registry

    declared = parse_reviewers({"kilo": {"logins": ["kilo[bot]"]}}, registry)
    assert profile("kilo", declared["kilo"]).trigger == ""


# --- issue 15 #10: a declared tracker's done line is "finishing", not the review -----------

FINISHING_REVIEWER = """
reviewers:
  kilo:
    logins: ['kilo-code-bot']
    severity:
      pattern: '\\*\\*(Critical|Warning)\\*\\*'
      levels: {critical: critical, warning: medium}
    reviewed: ['^## Review complete']
    finishing: ['^Review completed']
"""


def test_a_declared_trackers_done_line_makes_the_reviewer_finishing_not_reviewed() -> None:
    from reviewcoord.ingest import FINISHING, finished_by_grace

    settings = build(FINISHING_REVIEWER)
    with declared_scope(settings):
        tracker = kilo_says("Review completed ✅ (posting the findings)", "issue_comment", cid=7)
        got = ingest([tracker], head_sha=HEAD)
        assert got.state("kilo") == "working" and got.bots["kilo"].detail == FINISHING
        assert got.finishing == frozenset({"kilo"})
        # Past the grace it counts as reviewed (the run's clock decides when; not here).
        assert finished_by_grace(got, ["kilo"], 60).state("kilo") == "reviewed"
        # Control: its review landing after the tracker counts at once.
        review = kilo_says("## Review complete\n\nNo issues.", "review", cid=8)
        both = ingest([tracker, review], head_sha=HEAD)
        assert both.state("kilo") == "reviewed" and both.finishing == frozenset()


def test_control_without_a_finishing_phrase_the_done_line_is_noise() -> None:
    settings = build(FINISHING_REVIEWER.replace("    finishing: ['^Review completed']\n", ""))
    with declared_scope(settings):
        tracker = kilo_says("Review completed ✅ (posting the findings)", "issue_comment", cid=7)
        assert ingest([tracker], head_sha=HEAD).state("kilo") == "not_seen"


def test_a_finishing_phrase_never_hides_a_finding() -> None:
    settings = build(FINISHING_REVIEWER)
    with declared_scope(settings):
        text = "Review completed\n\n**Critical** The token is logged in `src/a.py:3`."
        got = ingest([kilo_says(text, "issue_comment", cid=9)], head_sha=HEAD)
        assert [f.severity for f in got.findings] == ["critical"]


# --- a declared reviewer's own check run (interface §7 `check`) ----------------------------

SHIELD_CHECK = """check:
  name: Shield Review
  app: shieldbot
"""


def shield_state(settings: Settings, *runs: dict[str, object]) -> str:
    from reviewcoord.reading import Evidence
    from reviewcoord.rest import check_run_ref

    with declared_scope(settings):
        evidence = Evidence(check_runs=tuple(check_run_ref(r) for r in runs))
        return ingest([], head_sha=HEAD, evidence=evidence).state("shield")


def shield_run(status: str, conclusion: str | None, app: str = "shieldbot") -> dict[str, object]:
    return {
        "id": 9,
        "name": "Shield Review",
        "head_sha": HEAD,
        "status": status,
        "conclusion": conclusion,
        "html_url": "https://github.com/o/r/runs/9",
        "app": {"slug": app},
        "output": {"title": "Shield", "summary": ""},
    }


def test_a_declared_check_gives_the_reviewers_state() -> None:
    settings = build(reviewer(SHIELD_CHECK, key="shield", login="shieldbot[bot]"))
    assert shield_state(settings) == "not_seen"
    assert shield_state(settings, shield_run("in_progress", None)) == "working"
    assert shield_state(settings, shield_run("completed", "success")) == "reviewed"
    assert shield_state(settings, shield_run("completed", "failure")) == "failed"
    assert shield_state(settings, shield_run("completed", "stale")) == "not_seen"  # not listed


def test_a_declared_checks_conclusions_may_be_mapped() -> None:
    extra = SHIELD_CHECK + "  conclusions: {success: finishing, neutral: skipped}\n"
    settings = build(reviewer(extra, key="shield", login="shieldbot[bot]"))
    assert shield_state(settings, shield_run("completed", "success")) == "working"  # finishing
    assert shield_state(settings, shield_run("completed", "neutral")) == "skipped"
    assert shield_state(settings, shield_run("completed", "failure")) == "not_seen"


def test_attack_a_declared_check_counts_only_from_its_app() -> None:
    settings = build(reviewer(SHIELD_CHECK, key="shield", login="shieldbot[bot]"))
    forged = shield_run("completed", "success", app="github-actions")
    assert shield_state(settings, forged) == "not_seen"
    assert shield_state(settings, shield_run("completed", "success")) == "reviewed"  # control


@pytest.mark.parametrize(
    ("check", "says"),
    [
        ("check:\n  name: Shield Review\n  app: Shield Bot\n", "app"),
        ("check:\n  name: '<b>x</b>'\n  app: shieldbot\n", "name"),
        ("check:\n  name: x\n  app: shieldbot\n  conclusions: {success: go}\n", "conclusions"),
        ("check:\n  app: shieldbot\n", "name"),
    ],
)
def test_a_bad_declared_check_is_an_invalid_configuration(check: str, says: str) -> None:
    with pytest.raises(ConfigError, match=says):
        build(reviewer(check, key="shield", login="shieldbot[bot]"))
