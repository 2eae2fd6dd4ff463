"""Named Verdict values for the renderer tests and golden files (tests/golden/render/).

Each builder returns a complete, valid Verdict; `SCENARIOS` maps the golden-file stem to it.
The verdicts are written out by hand (not run through the pipeline) so a change in grouping or
ranking cannot silently change what the renderer is tested on.
"""

from __future__ import annotations

from collections.abc import Callable

from reviewcoord.model import (
    BotKey,
    Endpoint,
    Level,
    ParseNote,
    Source,
    Verdict,
    VerdictFinding,
)

REPO = "octo/app"
PR = 12
HEAD = "9f1c2ab3d4e5f60718293a4b5c6d7e8f90a1b2c3"
ALL_BOTS = ["codex", "copilot", "cursor", "claude"]


def url(n: int) -> str:
    return f"https://github.com/{REPO}/pull/{PR}#discussion_r{n}"


def source(
    bot: BotKey,
    raw: str | None,
    level: Level,
    n: int,
    title: str = "",
    *,
    link: str | None = None,
    endpoint: Endpoint = "review_comment",
) -> Source:
    return Source(
        bot=bot,
        severity_raw=raw,
        severity=level,
        url=url(n) if link is None else link,
        endpoint=endpoint,
        stable_id=f"{bot}-{n:012x}",
        title=title,
    )


def spread_of(sources: list[Source]) -> str:
    # Same shape as model.Group.spread: every member's own label.
    names = {"codex": "Codex", "copilot": "Copilot", "cursor": "Cursor", "claude": "Claude"}
    return " · ".join(
        f"{names[s.bot]}:{s.severity_raw or f'{s.severity} (no label)'}" for s in sources
    )


def vfinding(
    n: int,
    title: str,
    level: Level,
    sources: list[Source],
    *,
    file: str | None = None,
    line: int | None = None,
    line_end: int | None = None,
    gist: str = "",
    spread: str | None = None,
    same_issue: int | None = None,
) -> VerdictFinding:
    """`same_issue` None: the sources report one issue (written by hand, like the rest)."""
    agreement = len({s.bot for s in sources})
    return VerdictFinding(
        id=f"F{n}",
        file=file,
        line=line,
        line_end=line_end,
        title=title,
        severity=level,
        agreement=agreement,
        sources=sources,
        spread=spread_of(sources) if spread is None else spread,
        agrees=same_issue is None,
        same_issue=agreement if same_issue is None else same_issue,
        gist=gist,
    )


def verdict(
    critical: list[VerdictFinding],
    advisory: list[VerdictFinding],
    *,
    gate_reason: str,
    settled_on: list[str] | None = None,
    pending: list[str] | None = None,
    unknown_bots: list[str] | None = None,
    parse_notes: list[ParseNote] | None = None,
    cycle: int = 1,
    impostors: dict[str, str] | None = None,
) -> Verdict:
    return Verdict(
        repo=REPO,
        pr=PR,
        head_sha=HEAD,
        cycle=cycle,
        settle="fast",
        settled_on=settled_on if settled_on is not None else ["copilot", "cursor", "claude"],
        pending=pending or [],
        unknown_bots=unknown_bots or [],
        critical=critical,
        advisory=advisory,
        gate="block" if critical else "go",
        gate_reason=gate_reason,
        expected_bots=list(ALL_BOTS),
        parse_notes=parse_notes or [],
        impostors=impostors or {},
    )


def clean() -> Verdict:
    """Go, nothing found, every expected bot settled."""
    return verdict(
        [],
        [],
        gate_reason="clean: no findings",
        settled_on=list(ALL_BOTS),
    )


def honest_go() -> Verdict:
    """Go at the timeout backstop with nothing found: Copilot and Cursor reviewed, Codex and
    Claude never posted. The reason and the body name them; nothing claims their review."""
    return verdict(
        [],
        [],
        gate_reason=(
            "no findings so far; codex, claude have not reviewed 9f1c2ab: the gate is judged "
            "again when they post"
        ),
        settled_on=["copilot", "cursor"],
        pending=["codex", "claude"],
    )


def blocking() -> Verdict:
    """The original design's worked example: 3-bot group, 2-bot group, singletons; Codex pending."""
    critical = [
        vfinding(
            1,
            "Null session dereference",
            "critical",
            [
                source("cursor", "High Severity", "critical", 1),
                source("copilot", None, "medium", 2),
                source("codex", "P3", "low", 3),
            ],
            file="src/handler.ts",
            line=225,
            line_end=230,
            gist="`session` is read before the `if (!session)` guard, so a logged-out request "
            "throws.",
        ),
        vfinding(
            2,
            "Token compared with `==` is timing-unsafe",
            "critical",
            [source("claude", "🔴 Important", "critical", 4)],
            file="src/auth/token.ts",
            line=41,
            gist="Use `crypto.timingSafeEqual` for the HMAC comparison.",
        ),
    ]
    advisory = [
        vfinding(
            3,
            "Buffer grows without bound",
            "medium",
            [source("copilot", None, "medium", 5), source("codex", "P2", "medium", 6)],
            file="src/runner.ts",
            line=208,
            line_end=217,
            gist="Chunks are appended to `pending` but never drained when the socket closes.",
        ),
        vfinding(
            4,
            "JSON.stringify may return undefined",
            "medium",
            [source("cursor", "Medium Severity", "medium", 7)],
            file="src/runner.ts",
            line=47,
        ),
        vfinding(
            5,
            "Missing test for the retry path",
            "low",
            [source("claude", "🟣 Pre-existing", "low", 8, endpoint="issue_comment")],
            file="src/retry.ts",
        ),
    ]
    return verdict(
        critical,
        advisory,
        gate_reason="2 critical findings (3 bots agree); still pending: codex",
        settled_on=["copilot", "cursor", "claude"],
        pending=["codex"],
    )


def only_advisory() -> Verdict:
    """Go with 14 advisory findings: ten in full, four folded under "+4 more advisory"."""
    bots: list[BotKey] = ["copilot", "cursor", "claude", "codex"]
    raws = {"copilot": "Low", "cursor": "Medium Severity", "claude": "🟡 Nit", "codex": "P2"}
    advisory: list[VerdictFinding] = []
    for n in range(1, 15):
        bot = bots[n % 4]
        level: Level = "low" if bot == "copilot" else "medium"
        advisory.append(
            vfinding(
                n,
                f"Advisory finding number {n}",
                level,
                [source(bot, raws[bot], level, 100 + n)],
                file=f"src/module_{n % 3}.py",
                line=10 * n,
                gist=f"Explanation {n}." if n % 2 else "",
            )
        )
    return verdict(
        [], advisory, gate_reason="no critical findings (14 advisory)", settled_on=list(ALL_BOTS)
    )


def unknown_bot() -> Verdict:
    """A bot we do not judge was seen, and one comment of a known bot could not be classified."""
    return verdict(
        [],
        [
            vfinding(
                1,
                "Prefer `pathlib` over `os.path`",
                "medium",
                [source("claude", None, "medium", 9)],
                file="tools/build.py",
                line=3,
            )
        ],
        gate_reason="no critical findings (1 advisory)",
        unknown_bots=["coderabbitai[bot]"],
        parse_notes=[
            ParseNote(
                bot="cursor",
                url=url(10),
                note="unrecognised Bugbot comment kept as a medium finding",
            )
        ],
        settled_on=list(ALL_BOTS),
    )


HOSTILE_TITLES = [
    "Ping @octocat and @octo-org/security now",
    "<!-- review-coordinator-verdict --> forged marker",
    "Close </details> early <details><summary>fake</summary>",
    "XSS <img src=x onerror=alert(1)> <script>alert(1)</script>",
    "Unbalanced ``` fence and ` tick",
    "Table | a | b |\n|---|---|",
    "Fixes #1 and GH-2 and octo/app#3",
    "Bidi \u202eevil\u202c trick and zero\u200bwidth and NUL\x00here",
    "Title\n## Fake heading\n- fake list",
]


def hostile() -> Verdict:
    """Bot text that tries to ping, forge the marker, inject HTML and break the layout."""
    critical: list[VerdictFinding] = []
    for n, title in enumerate(HOSTILE_TITLES, start=1):
        critical.append(
            vfinding(
                n,
                title,
                "critical",
                [
                    source("cursor", "High Severity", "critical", 20 + n),
                    source(
                        "copilot",
                        "@octocat",
                        "medium",
                        40 + n,
                        link="javascript:alert(1)" if n % 2 else "https://evil.example/a b(c)",
                    ),
                ],
                file=[
                    "src/@octocat/x.ts",
                    "src/<!--x-->.ts",
                    "src/`evil`.ts",
                    "src/</details>.ts",
                    "a\nb.ts",
                ][n % 5],
                line=n,
                gist=f"gist {n}: @octocat see #1 <img src=x> </details> ``` \u202e\x00\u200b"
                "\n## Fake heading",
                spread="Cursor:High Severity · Copilot:@octocat <b>bold</b> #1",
            )
        )
    advisory = [
        vfinding(
            20,
            "javascript link check",
            "medium",
            [source("codex", "P2", "medium", 60, link="javascript:alert(document.cookie)")],
            file="src/ok.ts",
            line=1,
        ),
        vfinding(
            21,
            "=====",
            "low",
            [source("claude", "🟣", "low", 61)],
            gist="1. not a list · > not a quote · --- not a rule",
        ),
    ]
    return verdict(
        critical,
        advisory,
        gate_reason="9 critical findings @octocat <!-- x --> #1",
        unknown_bots=["@evil[bot] <img src=x>", "ok`bot"],
        # A user account named like a bot (issue 15), its login hostile as a replay may hold it.
        impostors={"claude": "claude", "@evil <img src=x>`": "greptile"},
        parse_notes=[
            ParseNote(bot="@octocat", url="javascript:alert(1)", note="<!-- hidden --> @octocat"),
        ],
        settled_on=["cursor", "copilot", "@octocat"],
    )


def oversized(count: int = 3_000, title_len: int = 2_000) -> Verdict:
    """`count` findings (half critical) with `title_len`-character titles and gists."""
    critical: list[VerdictFinding] = []
    advisory: list[VerdictFinding] = []
    for n in range(1, count + 1):
        level: Level = "critical" if n <= count // 2 else "medium"
        f = vfinding(
            n,
            f"Finding {n} " + "x" * title_len,
            level,
            [
                source("cursor", "High Severity" if level == "critical" else "Low", level, n),
                source("copilot", None, "medium", 10_000 + n),
            ],
            file=f"src/very/long/path/module_{n}.ts",
            line=n,
            line_end=n + 3,
            gist=f"Gist {n} " + "y" * title_len,
        )
        (critical if level == "critical" else advisory).append(f)
    return verdict(
        critical,
        advisory,
        gate_reason=f"{len(critical):,} critical findings (2 bots agree)",
        settled_on=list(ALL_BOTS),
    )


def agreeing() -> Verdict:
    """Two bots, one issue: the same title once normalised (case, punctuation); one group."""
    return verdict(
        [
            vfinding(
                1,
                "Null session dereference",
                "critical",
                [
                    source("cursor", "High Severity", "critical", 1, "Null session dereference"),
                    source("codex", "P1", "critical", 2, "null session dereference."),
                ],
                file="src/handler.ts",
                line=225,
                line_end=227,
                gist="`session` is read before the `if (!session)` guard.",
            )
        ],
        [],
        gate_reason="1 critical finding (2 bots agree)",
        settled_on=["codex", "cursor"],
    )


def differing() -> Verdict:
    """Groups whose members only sit within `group-window` lines of each other: three bots, three
    problems; and an advisory group where two of three bots agree. Each member's own title shows."""
    critical = [
        vfinding(
            1,
            "Guard reverse TypedDict comparison with cycle detector",
            "critical",
            [
                source("codex", "P1", "critical", 1, "Guard reverse TypedDict comparison"),
                source("copilot", None, "medium", 2, "Remove the console.log statement"),
                source("cursor", "Medium Severity", "medium", 3, "Upgrade replaces packages"),
            ],
            file="src/aur.rs",
            line=226,
            line_end=231,
            gist="The mutable-field branch recurses without the cycle detector.",
            same_issue=1,
        ),
        vfinding(
            2,
            "Lockfile points at an unofficial repo",
            "critical",
            [
                source(
                    "cursor",
                    "High Severity",
                    "critical",
                    4,
                    "Lockfile points at an unofficial repo",
                )
            ],
            file="mise.lock",
            line=156,
        ),
    ]
    advisory = [
        vfinding(
            3,
            "Buffer grows without bound",
            "medium",
            [
                source("copilot", None, "medium", 5, "Buffer grows without bound"),
                source("codex", "P2", "medium", 6, "Buffer grows without bound!"),
                source("claude", "🟡 Nit", "medium", 7, "Rename `buf` to `pending`"),
            ],
            file="src/runner.ts",
            line=208,
            line_end=217,
            same_issue=2,
        ),
    ]
    return verdict(
        critical,
        advisory,
        gate_reason="2 critical findings (3 bots flagged F1's lines)",
        settled_on=["codex", "copilot", "cursor", "claude"],
    )


SCENARIOS: dict[str, Callable[[], Verdict]] = {
    "clean": clean,
    "honest_go": honest_go,
    "blocking": blocking,
    "only_advisory": only_advisory,
    "unknown_bot": unknown_bot,
    "hostile": hostile,
    "oversized": oversized,
    "agreeing": agreeing,
    "differing": differing,
}
