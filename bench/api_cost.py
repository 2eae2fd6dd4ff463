"""API cost and verdict latency, against the fake GitHub server on 127.0.0.1.

1. One evaluation (`settle: none`) of a PR with N comments: HTTP requests by endpoint, how many
   cost rate limit, against the minimum possible (1 PR read + one request per 100 items per
   endpoint + the writes).
2. A settle that runs to its timeout with nothing new posted (default: `settle: full`, 480 s at
   15 s polls, the 8-minute worst case): requests per polled endpoint, how many cost rate limit
   (conditional requests: a 304 is free). Target: only the first read of each endpoint counts.
3. Latency: the last fast-pack bot posts at a random moment; how long (in simulated seconds)
   until the verdict is published, for several poll intervals.
4. Noop: a second run (a fresh process's gateway: no ETag cache) on a PR where nothing changed
   since the first: requests by endpoint, rate-limited, writes. Target ≤ 5, no writes.
5. Code scanning (`code-scanning: true`): the alert reads of a run and of the noop after it.
   Target: one request per 100 open alerts (at least 1), each.
6. Review cycles (`cycles_cost`): the reads a run makes because the head moved. Shifting the
   recorded findings' lines uses the one compare a moved head already reads; a force-push reads
   nothing more; convergence mode reads, per reviewer with a finding, the files changed since
   the last head it reviewed: nothing more when that is the last judged head, one compare when
   it is an older one, the PR's files when it reviewed none. Target: no new rate-limited request
   outside convergence mode.
7. The reviewers' own checks (Bugbot's and Greptile's check runs, CodeRabbit's commit status,
   Codex's reactions): an evaluation where they are the only signs, and a full settle where
   they say "working" until the timeout. Target: at most 2 rate-limited requests more than the
   comments need per evaluation (the check-run listing is shared with our own check run's),
   and every poll after the first free (304).
8. Binding (issue 23): the PR's timeline (`GET issues/{n}/timeline`) and the bots' edit
   histories, read by the reading step. Target: none on a run whose comments name their
   commits; one timeline read per head (then the record keeps the arrival) when a signal names
   none.
9. The record's trusted copy (issue 23 route 6): a run, a judged run, a run after someone else
   edited our sticky (same head, then after a push), the held run after it: requests, check-run
   listings and PR-commit reads of each; the size of the copy in our check run's output.text.
   Target: no new request on an ordinary run; the extra reads only after a discard.

Who we are is GraphQL `viewer`, one query a run (GitHub's GraphQL budget, not REST's): the fake
counts it among the rate-limited requests; sections 4 and 9 show it apart.

The clock is injected (no real waiting); the fake counts requests exactly as GitHub would
(every response but 304 costs one).

    python bench/api_cost.py                        # 10, 300, 3000 comments; full 480 s settle
    python bench/api_cost.py --comments 300 --mode fast --timeout 180
    python bench/api_cost.py --quick                # CI: 10 and 300 comments, 60 s settle
"""

from __future__ import annotations

import argparse
import io
import math
import random
import statistics
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reviewcoord.actions_io import Log
from reviewcoord.github.pygithub_gateway import PyGithubGateway
from reviewcoord.runner import RunRequest, evaluate
from tests.e2e_support import CLAUDE, CODEX, COPILOT_REVIEWER, CURSOR, body, cursor_clean
from tests.fakegithub import FakeGitHub

HEAD = "ec26c3e57ca3a959ca5aad62de7213c562f8c821"
P2 = (
    "**<sub><sub>![P2 Badge](https://img.shields.io/badge/P2-yellow?style=flat)</sub></sub>  "
    "Respect configured memory path**\n\nThe check hardcodes a path.\n\nUseful? React with 👍 / 👎."
)


class FakeClock:
    def __init__(self) -> None:
        self.t = 0.0

    def now(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.t += seconds


def populate(fake: FakeGitHub, comments: int) -> tuple[int, int, int]:
    """`comments` in all: ~93% inline, the rest review bodies and conversation comments."""
    fake.add_pull(2, head_sha=HEAD)
    reviews = max(1, comments // 30)
    issue = max(1, comments // 30)
    inline = max(0, comments - reviews - issue)
    for _ in range(reviews):
        fake.add_review(
            2,
            login="chatgpt-codex-connector[bot]",
            body=f"\n### 💡 Codex Review\n\n**Reviewed commit:** `{HEAD[:10]}`\n",
            commit_id=HEAD,
        )
    for i in range(inline):
        fake.add_review_comment(
            2, login="chatgpt-codex-connector[bot]", body=P2, path=f"src/m{i % 50}.py", line=1 + i
        )
    for i in range(issue):
        fake.add_issue_comment(2, login="octocat", user_type="User", body=f"note {i}")
    return reviews, inline, issue


def routes(fake: FakeGitHub, start: int = 0) -> Counter[str]:
    counts: Counter[str] = Counter()
    for r in fake.request_log()[start:]:
        path = r.path.split("?")[0].replace("/repositories/4242/", "/repos/octo/app/")
        path = path.replace(HEAD, "{sha}")
        for part in ("comments/", "check-runs/"):
            if part in path and path.rsplit("/", 1)[-1].isdigit():
                path = path.rsplit("/", 1)[0] + "/{id}"
        counts[f"{r.method} {path}{' (304)' if r.status == 304 else ''}"] += 1
    return counts


def bench_request(inputs: dict[str, object]) -> RunRequest:
    return RunRequest(
        repo="octo/app",
        pr=2,
        inputs=inputs,
        input_source="bench",
        config_path=".github/review-coordinator.yml",
    )


def one_evaluation(comments: int) -> None:
    with FakeGitHub(rate_limit=100_000) as fake:
        reviews, inline, issue = populate(fake, comments)
        gateway = PyGithubGateway("octo/app", "app-token", base_url=fake.base_url, write_spacing=0)
        request = bench_request({"settle": "none", "expected-bots": "codex"})
        outcome = evaluate(request, gateway, FakeClock(), Log(io.StringIO()))
        counts = routes(fake)
        lists = 1 + sum(math.ceil(n / 100) for n in (reviews, inline, issue))
        writes = sum(n for k, n in counts.items() if not k.startswith("GET"))
        total = sum(counts.values())
        print(
            f"\n## One evaluation, {comments} comments ({reviews} reviews, {inline} inline, "
            f"{issue} conversation), gate {outcome.gate}"
        )
        for key, n in sorted(counts.items()):
            print(f"  {n:4d}  {key}")
        print(
            f"  total {total} requests ({fake.rate_limit_used} rate-limited); minimum possible "
            f"{lists} reads + {writes} writes = {lists + writes}; overhead "
            f"{total - lists - writes} (identity, config, expected-bots auto, head commit, "
            "check-run lookup, sticky re-read after create)"
        )


POLLED = ("pulls/2", "pulls/2/reviews", "pulls/2/comments", "issues/2/comments")


def idle_settle(comments: int, mode: str, timeout: int, poll: int) -> None:
    with FakeGitHub(rate_limit=100_000) as fake:
        populate(fake, comments)
        gateway = PyGithubGateway("octo/app", "app-token", base_url=fake.base_url, write_spacing=0)
        request = RunRequest(
            repo="octo/app",
            pr=2,
            input_source="bench",
            config_path=".github/review-coordinator.yml",
            inputs={
                "settle": mode,
                f"{mode}-timeout": str(timeout),
                "poll-interval": str(poll),
                "expected-bots": "codex,claude",  # claude never posts: runs to the timeout
                "merge-patience": "false",
            },
        )
        clock = FakeClock()
        evaluate(request, gateway, clock, Log(io.StringIO()))
        everything = fake.request_log()
        # The settle ends where publishing starts: the sticky's POST (after it, one re-read of
        # the conversation comments, which our own new comment has changed, is publishing's).
        publish_at = next(
            i
            for i, r in enumerate(everything)
            if r.method == "POST" and r.route.endswith("/issues/2/comments")
        )
        log = everything[:publish_at]
        polls = sum(1 for r in log if r.method == "GET" and r.route.endswith("/pulls/2/reviews"))
        print(
            f"\n## {mode.capitalize()} settle with nothing new: {comments} comments, {timeout} s "
            f"at {poll} s polls → {polls} reads of each list, {clock.t:.0f} s simulated"
        )
        print(f"  {'endpoint':<28} {'requests':>8} {'rate-limited':>13} {'304 (free)':>11}")
        first_reads = 0
        for name in POLLED:
            hits = [
                r
                for r in log
                if r.method == "GET" and _norm(r.route).endswith(f"/repos/octo/app/{name}")
            ]
            counted = sum(1 for r in hits if r.status != 304)
            pages = len({r.path for r in hits})  # distinct page URLs = the first full read
            first_reads += pages
            print(f"  GET {name:<24} {len(hits):>8} {counted:>13} {len(hits) - counted:>11}")
        polled_counted = sum(
            1
            for r in log
            if r.method == "GET"
            and r.status != 304
            and any(_norm(r.route).endswith(f"/repos/octo/app/{n}") for n in POLLED)
        )
        print(
            f"  settle: {len(log)} HTTP requests, {sum(r.status != 304 for r in log)} "
            f"rate-limited (incl. identity, config, pending status and check run); polled "
            f"endpoints: {polled_counted} rate-limited vs {first_reads} first-read pages "
            f"(target: equal) → {'met' if polled_counted <= first_reads else 'NOT met'}"
        )
        print(
            f"  whole run incl. publishing: {len(everything)} HTTP requests, "
            f"{fake.rate_limit_used} rate-limited"
        )


def _norm(route: str) -> str:
    return route.replace("/repositories/4242/", "/repos/octo/app/")


class PostingClock(FakeClock):
    """Claude (the last of the fast pack) posts its clean review at simulated time `post_at`."""

    def __init__(self, fake: FakeGitHub, post_at: float) -> None:
        super().__init__()
        self.fake = fake
        self.post_at = post_at
        self.posted = False

    def sleep(self, seconds: float) -> None:
        super().sleep(seconds)
        if not self.posted and self.t >= self.post_at:
            self.fake.add_review(2, login=CLAUDE, body=body("L_cca1078_lgtm"), commit_id=HEAD)
            self.posted = True


def delay_once(poll: int, post_at: float) -> float:
    with FakeGitHub(rate_limit=100_000) as fake:
        fake.add_pull(2, head_sha=HEAD)
        fake.add_review(2, login=CURSOR, body=cursor_clean(HEAD), commit_id=HEAD)
        fake.add_review(2, login=COPILOT_REVIEWER, body=body("Z12"), commit_id=HEAD)
        gateway = PyGithubGateway("octo/app", "app-token", base_url=fake.base_url, write_spacing=0)
        request = RunRequest(
            repo="octo/app",
            pr=2,
            input_source="bench",
            config_path=".github/review-coordinator.yml",
            inputs={
                "settle": "fast",
                "fast-timeout": "600",
                "poll-interval": str(poll),
                "expected-bots": "claude,copilot,cursor",
                "merge-patience": "false",
            },
        )
        clock = PostingClock(fake, post_at)
        outcome = evaluate(request, gateway, clock, Log(io.StringIO()))
        final = [s for s in fake.statuses(HEAD) if s["state"] != "pending"]
        if outcome.gate != "go" or not final or not clock.posted:
            raise SystemExit(f"delay bench: unexpected outcome {outcome.gate}: {outcome.reason}")
        # Nothing sleeps between the read that sees the post and the status write, so the
        # clock at the end is the moment the verdict was published.
        return clock.t - post_at


def delays(polls: list[int], samples: int) -> None:
    print(
        f"\n## Last fast-pack post → verdict published (simulated seconds, {samples} random "
        "post times per poll interval)"
    )
    print(f"  {'poll s':>6} {'min':>6} {'mean':>6} {'max':>6}")
    rng = random.Random(7)
    for poll in polls:
        values = [delay_once(poll, 2 * poll + rng.uniform(0, poll)) for _ in range(samples)]
        print(
            f"  {poll:>6} {min(values):>6.1f} {statistics.mean(values):>6.1f} {max(values):>6.1f}"
        )


def noop_cost(comments: int) -> None:
    with FakeGitHub(rate_limit=100_000) as fake:
        populate(fake, comments)
        request = RunRequest(
            repo="octo/app",
            pr=2,
            inputs={"settle": "none"},  # expected-bots: auto, the default
            input_source="bench",
            config_path=".github/review-coordinator.yml",
        )
        for _run in ("first", "noop"):
            start, used = len(fake.request_log()), fake.rate_limit_used
            gateway = PyGithubGateway(
                "octo/app", "app-token", base_url=fake.base_url, write_spacing=0
            )
            stream = io.StringIO()
            outcome = evaluate(request, gateway, FakeClock(), Log(stream))
            gateway.close()
        counts = routes(fake, start)
        writes = sum(n for k, n in counts.items() if not k.startswith("GET"))
        noop = "nothing new since" in stream.getvalue()
        print(
            f"\n## Noop run, {comments} comments (expected-bots auto), gate {outcome.gate}, "
            f"noop {'yes' if noop else 'NO'}"
        )
        for key, n in sorted(counts.items()):
            print(f"  {n:4d}  {key}")
        graphql = sum(n for k, n in counts.items() if k.startswith("POST /graphql"))
        used = fake.rate_limit_used - used - graphql
        met = "met" if used <= 5 and writes == graphql else "NOT met"
        print(
            f"  {sum(counts.values())} requests, {used} rate-limited REST + {graphql} GraphQL "
            f"(`viewer`: who our token is), {writes - graphql} writes "
            f"(target ≤ 5 rate-limited REST, no writes: {met})"
        )


def code_scanning_cost(alerts: int) -> None:
    """`code-scanning: true` on a 10-comment PR with `alerts` open alerts: the extra requests
    of a publishing run and of the noop run after it (target: ⌈alerts / 100⌉ each, at least 1)."""
    with FakeGitHub(rate_limit=100_000) as fake:
        populate(fake, 10)
        fake.set_file(".github/review-coordinator.yml", "main", "code-scanning: true\n")
        fake.add_code_scanning_analysis(2)
        for n in range(alerts):
            fake.add_code_scanning_alert(
                2, severity="note", path=f"src/m{n % 50}.py", start_line=n + 1
            )
        request = bench_request({"settle": "none", "expected-bots": "codex"})
        target = max(1, math.ceil(alerts / 100))
        print(f"\n## Code scanning, {alerts} open alerts (10 comments, code-scanning: true)")
        for run in ("publishing run", "noop run"):
            start = len(fake.request_log())
            gateway = PyGithubGateway(
                "octo/app", "app-token", base_url=fake.base_url, write_spacing=0
            )
            outcome = evaluate(request, gateway, FakeClock(), Log(io.StringIO()))
            gateway.close()
            counts = routes(fake, start)
            reads = _alert_reads(fake, start, "open")
            dismissed = _alert_reads(fake, start, "dismissed")
            analyses = counts["GET /repos/octo/app/code-scanning/analyses"]
            met = "met" if reads == target else "NOT met"
            print(
                f"  {run}: gate {outcome.gate}, {sum(counts.values())} requests, of which "
                f"{reads} open alerts (target {target}: {met}), {dismissed} dismissed alerts, "
                f"{analyses} code-scanning/analyses (the merge ref's and the base branch's)"
            )


def _alert_reads(fake: FakeGitHub, start: int, state: str) -> int:
    """Paid reads of the alerts in `state` since request `start`."""
    return sum(
        1
        for r in fake.request_log()[start:]
        if "/code-scanning/alerts" in r.path and f"state={state}" in r.path and r.status != 304
    )


EVIDENCE = ("check-runs", "/statuses", "/reactions")


def evidence_table(fake: FakeGitHub, start: int) -> None:
    """Print the evidence endpoints' requests since `start`, and the rate-limited ones beyond
    the one check-run listing a run makes anyway (ours): check runs and statuses (target ≤ 2),
    reactions (Codex's: one more while it is pending)."""
    print(f"  {'endpoint':<28} {'requests':>8}  {'rate-limited':>12}  {'304 (free)':>10}")
    paid_by: dict[str, int] = {}
    for part in EVIDENCE:
        hits = [
            r
            for r in fake.request_log()[start:]
            if r.method == "GET" and r.path.split("?")[0].endswith(part.lstrip("/"))
        ]
        paid = sum(1 for r in hits if r.status != 304)
        paid_by[part] = paid
        print(f"  GET …{part:<24} {len(hits):>8}  {paid:>12}  {len(hits) - paid:>10}")
    extra = paid_by["check-runs"] - 1 + paid_by["/statuses"]
    met = "met" if extra <= 2 else "NOT met"
    print(
        f"  more rate-limited than without them: {extra} for check runs and statuses "
        f"(target ≤ 2: {met}), {paid_by['/reactions']} for reactions"
    )


def own_checks_cost(timeout: int, poll: int) -> None:
    """The bots' own checks and reactions as the only signs, then as "working" for a whole
    full settle (docs/bot-formats.md § 20)."""
    bots = {"expected-bots": "cursor,greptile,codex"}
    with FakeGitHub(rate_limit=100_000) as fake:
        fake.add_pull(2, head_sha=HEAD)
        summary = "Greptile has reviewed the Pull Request.\n\n8 files reviewed, 0 comments added."
        fake.add_bot_check_run(HEAD, "Cursor Bugbot", app_slug="cursor", app_id=1210556)
        fake.add_bot_check_run(
            HEAD, "Greptile Review", app_slug="greptile-apps", app_id=867647, summary=summary
        )
        fake.add_reaction(2, "+1", login="chatgpt-codex-connector[bot]")
        start, used = len(fake.request_log()), fake.rate_limit_used
        with PyGithubGateway(
            "octo/app", "app-token", base_url=fake.base_url, write_spacing=0
        ) as gw:
            outcome = evaluate(
                bench_request({"settle": "none", **bots}), gw, FakeClock(), Log(io.StringIO())
            )
        settled = ",".join(outcome.verdict.settled_on) if outcome.verdict else "-"
        print(
            f"\n## Own checks as the only signs (Bugbot, Greptile check runs; Codex 👍): gate "
            f"{outcome.gate}, settled on {settled}, {fake.rate_limit_used - used} rate-limited"
        )
        evidence_table(fake, start)
    with FakeGitHub(rate_limit=100_000) as fake:
        fake.add_pull(2, head_sha=HEAD)
        fake.add_bot_check_run(
            HEAD,
            "Cursor Bugbot",
            app_slug="cursor",
            app_id=1210556,
            status="in_progress",
            conclusion=None,
        )
        fake.add_status(
            HEAD,
            "CodeRabbit",
            "pending",
            description="Review in progress",
            creator_login="coderabbitai[bot]",
        )
        fake.add_reaction(2, "eyes", login="chatgpt-codex-connector[bot]")
        inputs = {
            "settle": "full",
            "full-timeout": str(timeout),
            "poll-interval": str(poll),
            "expected-bots": "cursor,coderabbit,codex",
        }
        start, used = len(fake.request_log()), fake.rate_limit_used
        with PyGithubGateway(
            "octo/app", "app-token", base_url=fake.base_url, write_spacing=0
        ) as gw:
            outcome = evaluate(bench_request(inputs), gw, FakeClock(), Log(io.StringIO()))
        pending = ",".join(outcome.verdict.pending) if outcome.verdict else "-"
        print(
            f"\n## Own checks saying working for a full settle ({timeout} s at {poll} s polls): "
            f"gate {outcome.gate}, pending {pending}, {fake.rate_limit_used - used} rate-limited"
        )
        evidence_table(fake, start)


def edit_history_cost(edited: int) -> None:
    """Edit history (GraphQL `nodes(ids:)`, 100 comments a query), read only for edited comments:
    `edited` people's command comments edited by their authors, on a 10-comment PR; four runs
    (first, a judged run, a judged run once our sticky was edited by our own publishing, the
    noop). Target: ⌈edited commands (+1 for our edited sticky, judged runs) / 100⌉ queries a run;
    none when nothing is edited; the noop reads no sticky history."""
    with FakeGitHub(rate_limit=100_000) as fake:
        populate(fake, 10)
        for i in range(edited):
            c = fake.add_issue_comment(2, login=f"user{i}", user_type="User", body="Looking.")
            fake.edit_issue_comment(c["id"], "/review-coordinator accept F1 wontfix: fine")
        request = bench_request({"settle": "none", "expected-bots": "codex"})
        print(f"\n## Edit history, {edited} edited command comments (10 comments)")
        for run in ("first run", "judged run", "judged run, sticky edited", "noop run"):
            if run.startswith("judged"):
                fake.add_issue_comment(2, login="someone", user_type="User", body="ping")
            start, used = len(fake.request_log()), fake.rate_limit_used
            gateway = PyGithubGateway(
                "octo/app", "app-token", base_url=fake.base_url, write_spacing=0
            )
            stream = io.StringIO()
            outcome = evaluate(request, gateway, FakeClock(), Log(stream))
            gateway.close()
            queries = [
                r
                for r in fake.request_log()[start:]
                if r.path.endswith("/graphql") and "userContentEdits" in str(r.body)
            ]
            noop = "nothing new since" in stream.getvalue()
            print(
                f"  {run}: gate {outcome.gate}{' (noop)' if noop else ''}, "
                f"{fake.rate_limit_used - used} rate-limited requests, of which "
                f"{len(queries)} edit-history queries"
            )


H2 = "b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4"
H3 = "c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6"
BUGBOT_HIGH = (
    "### Unsafe token comparison\n\n**High Severity**\n\n<!-- DESCRIPTION START -->\nThe "
    "token is compared with `==`.\n<!-- DESCRIPTION END -->\n\n"
    "<!-- BUGBOT_BUG_ID: 0f0e0d0c-0b0a-4909-8807-060504030201 -->"
)
P1 = P2.replace("P2", "P1").replace("yellow", "orange")


def cycle_run(fake: FakeGitHub, inputs: dict[str, object]) -> tuple[int, int, int]:
    """One run in a fresh gateway: (rate-limited requests, compare reads, PR-file reads)."""
    start, used = len(fake.request_log()), fake.rate_limit_used
    with PyGithubGateway("octo/app", "app-token", base_url=fake.base_url, write_spacing=0) as gw:
        evaluate(bench_request(inputs), gw, FakeClock(), Log(io.StringIO()))
    paths = [r.path for r in fake.request_log()[start:]]
    compares = sum("/compare/" in p for p in paths)
    return fake.rate_limit_used - used, compares, sum("/pulls/2/files" in p for p in paths)


def cycles_cost() -> None:
    """Section 6 of the module docstring: the run on the third head of a PR, per case."""
    inputs: dict[str, object] = {"settle": "none", "expected-bots": "cursor"}
    print("\n## Review cycles: the run on head 3 (rate-limited, compares, PR-file reads)")
    cases = {  # (case, Bugbot reviewed head 2, Codex's P1 blocks heads 1 and 2: convergence)
        "head moved, a finding's lines shifted": ("shift", True, False),
        "force-push": ("force", True, False),
        "convergence, the bot reviewed the last judged head": ("converge", True, True),
        "convergence, the bot last reviewed an older head": ("converge", False, True),
        "convergence, the bot's first review": ("first", False, True),
    }
    for name, (case, early, blocker) in cases.items():
        with FakeGitHub(rate_limit=100_000) as fake:
            fake.add_pull(2, head_sha=HEAD)
            fake.set_commit_files(HEAD, ["README.md", "src/auth.py", "src/db.py"])
            fake.enable_graphql()
            codex = "chatgpt-codex-connector[bot]"
            fake.add_review_comment(
                2, login=codex, body=P1 if blocker else P2, path="src/db.py", line=10
            )
            if case != "first":
                fake.add_review(2, login=CURSOR, body=cursor_clean(HEAD), commit_id=HEAD)
            cycle_run(fake, inputs)
            fake.push(2, H2, ["README.md"])
            if early:
                fake.add_review(2, login=CURSOR, body=cursor_clean(H2), commit_id=H2)
            cycle_run(fake, inputs)
            fake.push(2, H3, ["README.md", "src/db.py"], force=case == "force")
            fake.set_patch(H3, "src/db.py", "@@ -10 +10 @@\n-a\n+b")
            path = "src/auth.py" if case in ("converge", "first") else "src/db.py"
            fake.add_review_comment(2, login=CURSOR, body=BUGBOT_HIGH, path=path, line=20)
            used, compares, files = cycle_run(fake, inputs)
            print(f"  {used:4d}  {compares} compare, {files} PR files  {name}")


TIMELINE = "GET /repos/octo/app/issues/2/timeline"


def binding_cost() -> None:
    """The reads that bind signals to the head (reviewcoord/binding.py, arrival.py): a first
    run and the noop after it, for comments that name their commits (Bugbot, Copilot: reviews
    and inline comments), for Codex's clean verdict (names none), and for a pushed head that
    Codex's tracker (edited in place) names."""
    print("\n## Binding: timeline and edit-history reads (issue 23)")
    for case in ("commits named", "Codex clean comment", "pushed head, Codex tracker"):
        with FakeGitHub(rate_limit=100_000) as fake:
            fake.add_pull(2, head_sha=HEAD)
            inputs: dict[str, object] = {"settle": "none", "expected-bots": "codex"}
            if case == "commits named":
                fake.add_review(2, login=CURSOR, body=cursor_clean(HEAD), commit_id=HEAD)
                fake.add_review(2, login=COPILOT_REVIEWER, body=body("Z12"), commit_id=HEAD)
                inputs = {"settle": "none", "expected-bots": "cursor,copilot"}
            elif case == "Codex clean comment":
                fake.add_issue_comment(2, login=CODEX, body=body("X_clean_swish"))
            else:
                _pushed_head_codex(fake)
            for run in ("first run", "noop run"):
                start, used = len(fake.request_log()), fake.rate_limit_used
                gateway = PyGithubGateway(
                    "octo/app", "app-token", base_url=fake.base_url, write_spacing=0
                )
                stream = io.StringIO()
                outcome = evaluate(bench_request(inputs), gateway, FakeClock(), Log(stream))
                gateway.close()
                counts = routes(fake, start)
                timeline = counts[TIMELINE]
                edits = sum(
                    1
                    for r in fake.request_log()[start:]
                    if r.path.endswith("/graphql") and "userContentEdits" in str(r.body)
                )
                noop = " (noop)" if "nothing new since" in stream.getvalue() else ""
                print(
                    f"  {case}, {run}: gate {outcome.gate}{noop}, "
                    f"{fake.rate_limit_used - used} rate-limited, timeline reads {timeline}, "
                    f"edit-history queries {edits}"
                )


def _pushed_head_codex(fake: FakeGitHub) -> None:
    """The PR moved to a new head; Codex, asked, names it in its tracker (edited in place from
    the old head's row) and finds nothing."""
    new = H2
    row = body("N3_codex_status_asic381_propened")
    tracker = fake.add_issue_comment(2, login=CODEX, body=row.replace("8777ef4", HEAD[:7]))
    fake.push(2, new, ["src/app.py"])
    fake.edit_issue_comment(tracker["id"], row.replace("8777ef4", new[:7]))
    fake.add_issue_comment(2, login=CODEX, body=body("X_clean_swish"))


def record_copy_cost() -> None:
    """Issue 23 route 6: the record's trusted copy rides in our check run's completion (no new
    request); a run whose sticky someone else edited reads our check runs on the head again
    (after a push: the PR's commits, then our check runs on each earlier head, at most 20) —
    an attack's path only. Who we are (`viewer`) is one GraphQL query a run."""
    with FakeGitHub(rate_limit=100_000) as fake:
        populate(fake, 10)
        fake.add_review_comment(
            2, login="cursor[bot]", body=body("C_jdx12718_lock156"), path="mise.lock", line=156
        )
        request = bench_request({"settle": "none", "expected-bots": "codex"})
        print("\n## The record's trusted copy (10 comments, a critical finding)")
        steps = (
            "first run",
            "judged run",
            "sticky edited by someone (same head)",
            "held run",
            "pushed, then sticky edited (the copy is on an earlier head)",
        )
        for step in steps:
            if step in ("judged run", "held run"):
                fake.add_issue_comment(2, login="someone", user_type="User", body="ping")
            if step.startswith("pushed"):
                fake.push(2, "f" * 40, ["src/new.py"])
            if "sticky edited" in step:
                (sticky,) = [
                    c for c in fake.issue_comments(2) if "review-coordinator-v" in c["body"]
                ]
                fake.edit_issue_comment(sticky["id"], sticky["body"] + " ", editor="octocat")
            start, used = len(fake.request_log()), fake.rate_limit_used
            gateway = PyGithubGateway(
                "octo/app", "app-token", base_url=fake.base_url, write_spacing=0
            )
            outcome = evaluate(request, gateway, FakeClock(), Log(io.StringIO()))
            gateway.close()
            counts = routes(fake, start)
            graphql = sum(n for k, n in counts.items() if k.startswith("POST /graphql"))
            listings = sum(
                n for k, n in counts.items() if k.startswith("GET") and "check-runs" in k
            )
            commits = counts["GET /repos/octo/app/pulls/2/commits"]
            print(
                f"  {step}: gate {outcome.gate}, {fake.rate_limit_used - used - graphql} "
                f"rate-limited REST + {graphql} GraphQL; check-run listings {listings}, "
                f"PR commits {commits}"
            )
        ours = [r for r in fake.check_runs() if r["name"] == "review-coordinator"]
        text = max(ours, key=lambda r: r["id"])["output"]["text"] or ""
        print(f"  the copy: {len(text)} characters of output.text (GitHub allows 65,535)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--comments", default="10,300,3000")
    ap.add_argument("--mode", choices=["fast", "full"], default="full")
    ap.add_argument("--timeout", type=int, default=480)
    ap.add_argument("--poll", type=int, default=15)
    ap.add_argument("--delay-polls", default="5,15,30")
    ap.add_argument("--samples", type=int, default=20)
    ap.add_argument("--quick", action="store_true", help="CI: small sizes, short settle")
    args = ap.parse_args()
    sizes = [10, 300] if args.quick else [int(x) for x in args.comments.split(",")]
    timeout = 60 if args.quick else args.timeout
    for n in [10, 100] if args.quick else [10, 100, 300]:
        noop_cost(n)
    for n in sizes:
        one_evaluation(n)
    for n in [0, 150] if args.quick else [0, 1, 100, 250]:
        code_scanning_cost(n)
    for n in [0, 1] if args.quick else [0, 1, 99, 150]:
        edit_history_cost(n)
    cycles_cost()
    own_checks_cost(timeout, args.poll)
    binding_cost()

    record_copy_cost()
    for n in sizes:
        idle_settle(n, args.mode, timeout, args.poll)
    delays(
        [int(x) for x in args.delay_polls.split(",")] if not args.quick else [15],
        3 if args.quick else args.samples,
    )


if __name__ == "__main__":
    main()
