"""A realistic PR lifecycle, replayed as the events GitHub sends, through the workflow's REAL
`if:` filter and concurrency semantics, each triggered run the REAL `entrypoint.py` (a
subprocess, as on a runner) against the fake GitHub server whose state follows the timeline.

Timeline (simulated minutes; the bodies are real bot bodies from the shared corpus, the commit
they name set to the head they are posted on):
open; Codex's status table created (Running); Claude's tracker created and edited 8 times
(working), then finished; Copilot review + 6 inline; Cursor review + 3 inline; Codex's status
table edited 3 times (Running, Running, Completed), then Codex review + 4 inline at minute 11;
one push; the same again on the new head; two human replies and one accept command; a re-run
by hand (workflow_dispatch) at the end, which finds nothing new (a noop).

Workflow semantics (the user's examples/workflows/review-coordinator.yml calling the shipped
.github/workflows/judge.yml, job-level concurrency with cancel-in-progress; a same-repository
PR, so every run can write): an event whose `if:` is false starts nothing (and cancels nothing); one
that passes becomes the group's pending run (replacing an older pending one, which GitHub marks
cancelled) and cancels the running one (killed: SIGKILL, its check run stays in_progress); the
pending run starts when the group is free.

Time: one simulated minute is SCALE real seconds. The settle inputs are the production defaults
scaled the same way (fast-timeout 180 s = 3 min → 3 × SCALE s, full-timeout 480 s = 8 min →
8 × SCALE s); poll-interval is 1 s (the minimum the input takes; 15 s in production). While no
run is alive the replay jumps to the next event. Write spacing is the production one
(REVIEWCOORD_WRITE_SPACING=1: the first 5 writes of a run at once, later ones ≥ 1 s apart).

    python bench/lifecycle.py            # SCALE 2.0 s per simulated minute (about 40 s)
    python bench/lifecycle.py --quick    # CI: SCALE 1.0, same timeline (about 20 s)
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests import ghexpr
from tests import workflow_support as wf
from tests.e2e_support import (
    CLAUDE,
    CODEX,
    COPILOT,
    COPILOT_REVIEWER,
    CURSOR,
    HEAD,
    NEW_HEAD,
    ROOT,
    action_env,
    body,
)
from tests.fakegithub import FakeGitHub
from tests.fakegithub.server import APP_TOKEN, RecordedRequest

PR = 2
AUTHOR = "octocat"  # the PR author in the fake
MAINTAINER = "maintainer-mia"
REVIEWER = "reviewer-raj"
Event = tuple[str, dict[str, Any]]

CODEX_DONE = body("N3_codex_status_asic381_propened")
# Codex edits this one comment from "🔄 **Running**" to "✅ **Completed**" (its documented shape;
# no real Running copy is in the corpus, so Running is the real Completed body with that cell).
CODEX_RUNNING = CODEX_DONE.replace("✅ **Completed**", "🔄 **Running**")
# claude-code-action's tracking comment while it works (the reported shape).
CLAUDE_WORKING = (
    'Claude Code is working… <img src="https://github.com/user-attachments/assets/5ac382c7" />'
    "\n\nI'll analyze this and get back to you.\n\n[View job run](https://example.invalid/run)"
)
CLAUDE_STEPS = ["Read the diff", "Check bugs", "Check security", "Check tests", "Check docs"]
COPILOT_INLINE = ["Z1", "Z29", "Z59", "Z55", "Rsugg", "Rnoline"]
CURSOR_INLINE = ["C_jdx12718_aur228", "C_jdx12718_aur201", "C_jdx12718_aur85"]
CODEX_INLINE = [
    ("X_agogo65_inline", "crates/host/src/bridge.rs", 987),
    ("Z36", "crates/ty_python_semantic/src/types/infer/builder.rs", 11749),
    ("Z38", "crates/ty_python_semantic/src/types.rs", 3231),
    ("X_bitrix_p3_cors", "src/cors.php", 12),
]


@dataclass
class Step:
    at: float  # simulated minutes
    label: str
    apply: Callable[[FakeGitHub, dict[str, Any]], list[Event]]
    bot_post: bool = False  # a bot's post (a burst): the check state is reported after it
    burst: str = ""  # the bot burst it belongs to ("" = not a bot's)


def _head(fake: FakeGitHub) -> str:
    return str(fake._pulls[PR]["head"]["sha"])


def for_head(text: str, head: str) -> str:
    """A real body posted on `head`: the commit it names is the one it reviewed (as the bot
    would write it: Bugbot's "for commit <sha>", Codex's "Reviewed commit: `<sha10>`")."""
    text = re.sub(r"for commit [0-9a-f]{40}", f"for commit {head}", text)
    return re.sub(r"(\*\*Reviewed commit:\*\* `)[0-9a-f]{7,40}`", rf"\g<1>{head[:10]}`", text)


def review_burst(
    login: str, inline_login: str, review_id: str, inline: list[tuple[str, str, int]]
) -> Callable[[FakeGitHub, dict[str, Any]], list[Event]]:
    def apply(fake: FakeGitHub, state: dict[str, Any]) -> list[Event]:
        head = _head(fake)
        text = for_head(body(review_id), head)
        review = fake.add_review(PR, login=login, body=text, commit_id=head)
        events: list[Event] = [("pull_request_review", wf.review(login, text))]
        for cid, path, line in inline:
            t = for_head(body(cid), head)
            c = fake.add_review_comment(
                PR,
                login=inline_login,
                body=t,
                path=path,
                line=line,
                commit_id=head,
                review_id=review["id"],
            )
            state.setdefault("inline", {})[cid] = c["id"]
            events.append(("pull_request_review_comment", wf.review_comment(inline_login, t)))
        return events

    return apply


def comment(login: str, text: str, key: str | None = None) -> Callable[..., list[Event]]:
    def apply(fake: FakeGitHub, state: dict[str, Any]) -> list[Event]:
        c = fake.add_issue_comment(PR, login=login, body=text, user_type=_type(login))
        if key:
            state[key] = c["id"]
        return [("issue_comment", wf.issue_comment(login, text))]

    return apply


def edit(key: str, login: str, text: str) -> Callable[..., list[Event]]:
    def apply(fake: FakeGitHub, state: dict[str, Any]) -> list[Event]:
        fake.edit_issue_comment(state[key], text)
        return [("issue_comment", wf.issue_comment(login, text, "edited"))]

    return apply


def _type(login: str) -> str:
    return "Bot" if login.endswith("[bot]") or login == "Copilot" else "User"


def head_steps(t0: float, n: int, codex_edits: list[tuple[float, str]]) -> list[Step]:
    """What the four bots do on one head, from minute t0 (n: 1 or 2, the head's number)."""
    tracker = f"claude-tracker-{n}"
    copilot = [(c, f"src/web/panel{i}.ts", 10 + i) for i, c in enumerate(COPILOT_INLINE)]
    cursor = [(c, "mise/aur.rs", 85 + 60 * i) for i, c in enumerate(CURSOR_INLINE)]
    steps = [
        Step(t0 + 0.2, "Claude tracker created (working)", comment(CLAUDE, CLAUDE_WORKING, tracker))
    ]
    for i in range(8):
        done = "\n".join(f"- [x] {s}" for s in CLAUDE_STEPS[: i % 5 + 1])
        steps.append(
            Step(
                t0 + 0.5 + 0.3 * i,
                f"Claude tracker edit {i + 1} (working)",
                edit(tracker, CLAUDE, f"{CLAUDE_WORKING}\n\n{done}"),
            )
        )
    steps += [
        Step(
            t0 + 1.5,
            "Copilot review + 6 inline",
            review_burst(COPILOT_REVIEWER, COPILOT, "Z28", copilot),
            bot_post=True,
        ),
        Step(
            t0 + 2.5,
            "Cursor review + 3 inline",
            review_burst(CURSOR, CURSOR, "C_jdx12718_review", cursor),
            bot_post=True,
        ),
        Step(
            t0 + 3.0,
            "Claude tracker finished",
            edit(tracker, CLAUDE, body("L_email_verificay3")),
            bot_post=True,
        ),
        *[
            Step(t0 + at, f"Codex status table edit ({what})", edit("codex", CODEX, text))
            for at, what in codex_edits
            for text in [CODEX_DONE if what == "Completed" else CODEX_RUNNING]
        ],
        Step(
            t0 + 11.0,
            "Codex review + 4 inline",
            review_burst(CODEX, CODEX, "X_agogo65_review", CODEX_INLINE),
            bot_post=True,
        ),
    ]
    for s in steps:
        bot = s.label.split()[0]
        s.burst = f"{bot} (head {n})"
    return steps


def timeline() -> list[Step]:
    def opened(fake: FakeGitHub, state: dict[str, Any]) -> list[Event]:
        return [("pull_request", wf.pull_request("opened", PR))]

    def pushed(fake: FakeGitHub, state: dict[str, Any]) -> list[Event]:
        fake.push(PR, NEW_HEAD, ["crates/host/src/bridge.rs", "src/web/panel0.ts"])
        return [("pull_request", wf.pull_request("synchronize", PR))]

    def reply(fake: FakeGitHub, state: dict[str, Any]) -> list[Event]:
        text = "This is intended: the log line only runs behind the debug flag."
        fake.add_review_comment(
            PR,
            login=AUTHOR,
            user_type="User",
            body=text,
            path="src/web/panel0.ts",
            line=10,
            in_reply_to_id=state["inline"]["Z1"],
        )
        return [("pull_request_review_comment", wf.review_comment(AUTHOR, text))]

    accept = (
        "/review-coordinator accept F1 wontfix: the scheduler drains the deadline buffer "
        "before it runs the commands"
    )
    steps = [
        Step(0.0, "PR opened", opened),
        Step(0.1, "Codex status table created (Running)", comment(CODEX, CODEX_RUNNING, "codex")),
        *head_steps(0.0, 1, [(4.0, "Running"), (8.0, "Running"), (10.9, "Completed")]),
        Step(13.0, "push (new head)", pushed),
        *head_steps(13.0, 2, [(0.1, "Running"), (5.0, "Running"), (10.9, "Completed")]),
        Step(26.0, "human inline reply (author)", reply),
        Step(27.0, "human PR comment", comment(REVIEWER, "Thanks, looking at the Codex notes.")),
        Step(28.0, "accept command (maintainer)", comment(MAINTAINER, accept)),
        Step(
            30.0,
            "re-run by hand (workflow_dispatch)",
            lambda f, s: [("workflow_dispatch", wf.dispatch(PR))],
        ),
    ]
    return sorted(steps, key=lambda s: s.at)


# ------------------------------------------------------------------------------ the runs
@dataclass
class RunRecord:
    n: int
    trigger: str
    burst: str
    first: int  # index into the request log
    last: int = -1
    outcome: str = "running"  # completed / cancelled / replaced (pending, never started)
    gate: str = ""
    noop: bool = False
    rate_limited: int = 0  # REST requests that cost primary rate limit (not 304)
    graphql: int = 0  # GraphQL queries (a separate budget: 1 point each here)
    writes: int = 0
    routes: dict[str, int] = field(default_factory=dict)
    verdict_latency: float | None = None  # s from the read that produced it to the check's end
    from_first: float | None = None  # s from the run's first request to the check's end
    started: float = 0.0
    ended: float = 0.0  # when its end was seen (exit, or killed); 0.0: it never started
    # Its own token (registered with the fake), so that its requests are told apart from those
    # of a run alive at the same time (bench/lifecycle_fork.py); "": the fake's default one.
    token: str = ""


@dataclass
class Replay:
    fake: FakeGitHub
    scale: float
    workdir: Path
    stamps: list[float] = field(default_factory=list)
    runs: list[RunRecord] = field(default_factory=list)
    skipped: int = 0
    skipped_by_event: dict[str, int] = field(default_factory=dict)
    states: list[tuple[str, str]] = field(default_factory=list)
    wait: str = "poll"  # the `wait` input: poll (settle in the run) or events
    synced: float = 0.0  # simulated seconds the fake's clock was moved on (`wait: events`)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, _fake: FakeGitHub, _req: RecordedRequest) -> None:
        with self._lock:
            self.stamps.append(time.monotonic())

    def inputs(self) -> dict[str, str]:
        if self.wait == "events":  # GitHub's clock follows the simulated minutes: real timeouts
            return {
                "settle": "fast",
                "fast-timeout": "180",
                "full-timeout": "480",
                "wait": "events",
            }
        return {
            "settle": "fast",
            "fast-timeout": str(max(1, round(3 * self.scale))),
            "full-timeout": str(max(2, round(8 * self.scale))),
            "poll-interval": "1",
        }

    def start(self, rec: RunRecord, event: Event) -> subprocess.Popen[str]:
        tmp = self.workdir / f"run{rec.n}"
        env = action_env(
            self.fake,
            tmp,
            event=event[0],
            payload=event[1],
            inputs={**step_inputs(event), **self.inputs()},
            token=rec.token or APP_TOKEN,
            extra_env={"REVIEWCOORD_WRITE_SPACING": "1"},
        )
        rec.first = len(self.fake.request_log())
        rec.started = time.monotonic()
        return subprocess.Popen(
            [sys.executable, str(ROOT / "entrypoint.py")],
            env=env,
            cwd=tmp,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )


def step_inputs(event: Event) -> dict[str, str]:
    """The action step's `with:` from the shipped reusable workflow, evaluated for this event
    as the user's workflow calls it (e.g. `pr` from `inputs.pr` for workflow_dispatch); the
    token is the bench's own."""
    (step,) = [s for s in wf.job()["steps"] if s.get("id") == "review"]
    context = wf.context(*event)
    values = {k: ghexpr.interpolate(str(v), context) for k, v in step["with"].items()}
    return {k: v for k, v in values.items() if v and k != "github-token"}


def check_state(fake: FakeGitHub) -> str:
    runs = fake.check_runs(_head(fake))
    if not runs:
        return "none"
    newest = max(runs, key=lambda r: r["id"])
    return str(newest["conclusion"] or newest["status"])


def account(replay: Replay, rec: RunRecord, output: str) -> None:
    rec.ended = time.monotonic()
    log = replay.fake.request_log()
    rec.last = len(log)
    indices = [i for i in range(rec.first, rec.last) if ours(rec, log[i])]
    mine = [log[i] for i in indices]
    rec.rate_limited = sum(1 for r in mine if r.status not in (304, 0) and r.route != "/graphql")
    rec.graphql = sum(1 for r in mine if r.route == "/graphql")
    for r in mine:
        route = re.sub(r"/[0-9a-f]{40}", "/{sha}", re.sub(r"/\d{4,}", "/{id}", r.route))
        key = f"{r.method} {route}{' 304' if r.status == 304 else ''}"
        rec.routes[key] = rec.routes.get(key, 0) + 1
    rec.writes = sum(1 for r in mine if r.method != "GET" and r.route != "/graphql")
    rec.noop = "nothing new since" in output
    for line in output.splitlines():
        if line.startswith("gate: "):
            rec.gate = line.split()[1]
    stamps = [replay.stamps[i] for i in indices]
    done = [
        i
        for i, r in enumerate(mine)
        if r.method == "PATCH" and "/check-runs/" in r.path and (r.body or {}).get("conclusion")
    ]
    if done and stamps:
        end = done[-1]
        publish = next(
            (i for i, r in enumerate(mine) if r.method != "GET" and "/issues/" in r.path), end
        )
        reads = [
            i for i, r in enumerate(mine[:publish]) if r.route == f"/repos/octo/app/pulls/{PR}"
        ]
        begin = reads[-1] if reads else 0
        rec.verdict_latency = stamps[end] - stamps[begin]
        rec.from_first = stamps[end] - stamps[0]


Loop = Callable[[Replay, list[Step], bool], None]


def ours(rec: RunRecord, req: RecordedRequest) -> bool:
    """The request is the run's: every one while it ran, or, with its own token, those sent
    with it."""
    return not rec.token or req.headers.get("authorization", "").split()[-1:] == [rec.token]


def replay(
    scale: float,
    verbose: bool,
    *,
    head_repo: str | None = None,
    loop: Loop | None = None,
    wait: str = "poll",
) -> Replay:
    """The timeline replayed against a fresh fake. Hooks for bench/lifecycle_fork.py:
    `head_repo`, the PR's head repository (a fork's: None is the base repository's own);
    `loop`, what delivers the events and runs the workflows (None: `run_loop`, this file's)."""
    with FakeGitHub(rate_limit=100_000) as fake, tempfile.TemporaryDirectory() as tmp:
        fake.add_pull(PR, head_sha=HEAD, author=AUTHOR, head_repo=head_repo)
        fake.set_commit_files(HEAD, ["crates/host/src/bridge.rs", "src/web/panel0.ts"])
        fake.set_permission(MAINTAINER, "write")
        fake.enable_graphql()
        r = Replay(fake, scale, Path(tmp), wait=wait)
        fake.on_request(r.record)
        (loop or run_loop)(r, timeline(), verbose)
        return r


def run_loop(r: Replay, steps: list[Step], verbose: bool) -> None:
    state: dict[str, Any] = {}
    running: tuple[RunRecord, subprocess.Popen[str]] | None = None
    pending: tuple[RunRecord, Event] | None = None
    offset = time.monotonic()
    i = 0
    post: list[str] = []  # the last bot post whose outcome is not yet reported

    def snapshot(note: str = "") -> None:
        if post:
            r.states.append((post.pop(), check_state(r.fake) + note))

    while i < len(steps) or running or pending:
        now = (time.monotonic() - offset) / r.scale
        if running is None and pending is None and i < len(steps) and steps[i].at > now:
            snapshot()  # quiet: what the last bot post led to
            offset -= (steps[i].at - now) * r.scale  # nothing alive: jump to the next event
            continue
        while i < len(steps) and steps[i].at <= now:
            step = steps[i]
            i += 1
            if step.bot_post:
                snapshot(" (its run still going at the next post)")
                post.append(step.label)
            for event in step.apply(r.fake, state):
                if not wf.starts(*event):
                    r.skipped += 1
                    r.skipped_by_event[event[0]] = r.skipped_by_event.get(event[0], 0) + 1
                    continue
                trigger = f"{step.label} [{event[0]}]"
                # The job's real concurrency key: every run of this PR is in one group.
                if wf.group(*event) != f"review-coordinator-{PR}":
                    raise SystemExit(f"{trigger}: unexpected group {wf.group(*event)!r}")
                rec = RunRecord(len(r.runs) + 1, trigger, step.burst, first=-1)
                r.runs.append(rec)
                if pending is not None:
                    pending[0].outcome = "replaced"
                pending = (rec, event)
                if running is not None and running[1].poll() is None:
                    running[1].send_signal(signal.SIGKILL)  # cancel-in-progress
                    running[0].outcome = "cancelled"
                    running[0].ended = time.monotonic()
        if running is not None and running[1].poll() is not None:
            rec, proc = running
            output = proc.stdout.read() if proc.stdout else ""
            proc.wait()
            if rec.outcome == "running":
                rec.outcome = "completed"
            account(r, rec, output)
            if verbose:
                print(
                    f"  run {rec.n} {rec.outcome} {rec.gate} {rec.rate_limited} req: {rec.trigger}"
                )
                print(f"      {rec.routes}")
            running = None
        if running is None and pending is not None:
            rec, event = pending
            pending = None
            if r.wait == "events" and now * 60 > r.synced:  # GitHub's clock: simulated time
                r.fake.advance(now * 60 - r.synced)
                r.synced = now * 60
            running = (rec, r.start(rec, event))
        time.sleep(0.02)
    snapshot()


# ------------------------------------------------------------------------------ report
def report(r: Replay, scale: float) -> None:
    runs = r.runs
    done = [x for x in runs if x.outcome == "completed"]
    cancelled = [x for x in runs if x.outcome == "cancelled"]
    replaced = [x for x in runs if x.outcome == "replaced"]
    noops = [x for x in done if x.noop]
    full = [x for x in done if not x.noop and x.writes]
    total = sum(x.rate_limited for x in runs)
    graphql = sum(x.graphql for x in runs)
    writes = sum(x.writes for x in runs)
    events = r.skipped + len(runs)
    print(f"\n## PR lifecycle replay (SCALE {scale} s per simulated minute)")
    print(f"  settle inputs: {r.inputs()}")
    print(
        f"  events GitHub sent: {events}; skipped by the workflow filter: {r.skipped} "
        f"{r.skipped_by_event}"
    )
    print(
        f"  runs triggered: {len(runs)}; started: {len(runs) - len(replaced)}; completed: "
        f"{len(done)} ({len(noops)} noop); cancelled while running: {len(cancelled)}; "
        f"replaced while pending: {len(replaced)}"
    )
    print(
        f"  rate-limited REST requests: {total} in total; writes: {writes}; GraphQL queries "
        f"(thread state, a separate budget): {graphql}"
    )
    print(f"  sum of run durations: {run_minutes(runs, scale):.1f} simulated minutes")
    print(
        f"  {'run':>3} {'outcome':<9} {'gate':<5} {'noop':<4} {'req':>4} {'wr':>3} "
        f"{'verdict s':>11}  trigger"
    )
    for x in runs:
        lat = f"{x.verdict_latency:.2f}" if x.verdict_latency is not None else "-"
        if x.from_first is not None:
            lat += f"/{x.from_first:.2f}"
        print(
            f"  {x.n:>3} {x.outcome:<9} {x.gate or '-':<5} {'yes' if x.noop else '':<4} "
            f"{x.rate_limited:>4} {x.writes:>3} {lat:>11}  {x.trigger}"
        )
    print(f"  killed while running: {len(cancelled)}")
    print("  (verdict s: from the read the verdict is based on / from the run's first request)")
    print("  check run after each bot post (when the runs it started had finished):")
    for label, st in r.states:
        print(f"    {label:<34} {st}")
    print(f"    {'end':<34} {check_state(r.fake)}")
    targets(r, full, noops, total)


def run_minutes(runs: list[RunRecord], scale: float) -> float:
    """The runs' time alive, start to exit or kill, in simulated minutes (real s ÷ SCALE)."""
    return sum(x.ended - x.started for x in runs if x.ended) / scale


def targets(r: Replay, full: list[RunRecord], noops: list[RunRecord], total: int) -> None:
    one = statistics.median(x.rate_limited for x in full) if full else 0
    worst_noop = max((x.rate_limited for x in noops), default=0)
    noop_writes = sum(x.writes for x in noops)
    lat = [x.verdict_latency for x in full if x.verdict_latency is not None]
    bursts: dict[str, list[RunRecord]] = {}
    for x in r.runs:
        if x.burst:
            bursts.setdefault(x.burst, []).append(x)
    print(
        f"  bot bursts (every event of one bot's post on one head; one full evaluation = {one:g} "
        "rate-limited requests, the median of the publishing runs):"
    )
    print(f"    {'burst':<20} {'runs':>4} {'completed':>9} {'req':>4} {'÷ one':>6}")
    worst = 0.0
    for name, xs in bursts.items():
        cost = sum(x.rate_limited for x in xs)
        ratio = cost / one if one else 0.0
        worst = max(worst, ratio)
        completed = sum(1 for x in xs if x.outcome == "completed")
        print(f"    {name:<20} {len(xs):>4} {completed:>9} {cost:>4} {ratio:>6.2f}")
    moments = len({x.burst or x.trigger for x in r.runs})
    print("  targets:")
    print(
        f"    noop ≤ 5 rate-limited and no writes: worst noop {worst_noop}, writes {noop_writes} "
        f"→ {'met' if noops and worst_noop <= 5 and not noop_writes else 'NOT met'}"
        + ("" if noops else " (no noop run happened)")
    )
    print(
        f"    each bot burst ≤ 1.5 × one full evaluation: worst {worst:.2f} × → "
        f"{'met' if worst <= 1.5 else 'NOT met'}"
    )
    budget = 1.5 * one * moments
    print(
        f"    whole lifecycle ≤ 1.5 × one full evaluation × {moments} moments that started runs "
        f"(bot bursts, open, push, people, re-run) = {budget:g}: {total} → "
        f"{'met' if total <= budget else 'NOT met'}"
    )
    if lat:
        print(
            f"    verdict on GitHub ≤ 3 s after the run starts reading: max {max(lat):.2f} s, "
            f"median {statistics.median(lat):.2f} s → {'met' if max(lat) <= 3 else 'NOT met'}"
        )


def arguments() -> argparse.ArgumentParser:
    """The options of this bench (bench/lifecycle_fork.py adds its own)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=float, default=2.0, help="real seconds per simulated minute")
    ap.add_argument("--quick", action="store_true", help="CI: SCALE 1.0")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--wait", choices=["poll", "events"], default="poll", help="the wait input")
    return ap


def main() -> None:
    args = arguments().parse_args()
    scale = 1.0 if args.quick else args.scale
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    started = time.monotonic()
    r = replay(scale, args.verbose, wait=args.wait)
    report(r, scale)
    print(f"  (replay took {time.monotonic() - started:.1f} s real time)")


if __name__ == "__main__":
    main()
