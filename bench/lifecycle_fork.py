"""bench/lifecycle.py's PR lifecycle, the same timeline and bodies, for a FORK's PR: every event
goes through the real trigger logic of BOTH of the user's workflows (the event workflow and the
relay on `workflow_run`, each calling the shipped .github/workflows/judge.yml; tests/ghexpr.py
evaluates the job `if:`s and the concurrency groups), and every judging job is the real
`entrypoint.py` against the fake GitHub, as in bench/lifecycle.py (whose timeline, fake, run
start and accounting this file imports: only the delivery of the events differs).

What GitHub does for a fork's PR (docs/adopt.md § Fork pull requests):
- a `pull_request*` run gets a read-only token: judge.yml starts its `hand-over` job (one
  `echo`, no request; no concurrency group, so it is never cancelled), which succeeds;
- `issue_comment` and `workflow_dispatch` run in the base repository with a token that can
  write: `judge` starts there, in the PR's group `review-coordinator-<number>`, as for a
  same-repository PR;
- every run of the event workflow that completes — the skipped ones (every job skipped:
  conclusion `skipped`, the check suite's rule), the cancelled ones (killed, or replaced while
  pending) and the judging ones too — triggers one relay run (`workflow_run` fires on every
  completed run of the workflows it names; its `if:` decides, not its trigger);
- the relay's `judge` starts only for a `pull_request*` run of a fork (or Dependabot) whose
  conclusion is `success` — the hand-overs — and finds the PR by `GET pulls?head=<owner>:<branch>`;
  its concurrency group is the fork's branch (`review-coordinator-<fork>:<branch>`, the payload
  names no PR), not the PR's, so a relay's run and a comment's run can be alive at once.

A hand-over run lasts HANDOVER_MINUTES (a job's pick-up and one `echo`, ≈ 9 s; `--handover`);
the relay's run is started when it completes. Time is scaled as in bench/lifecycle.py.

    python bench/lifecycle_fork.py            # SCALE 2.0 s per simulated minute
    python bench/lifecycle_fork.py --quick    # CI: SCALE 1.0, same timeline
    python bench/lifecycle_fork.py --skipped-conclusion success   # if skipped runs said success
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import lifecycle as lc
from tests import workflow_support as wf
from tests.fakegithub import FakeGitHub
from tests.fakegithub.server import ACTIONS_LOGIN

FORK_REPO = "contributor/Hello-World"  # the fork the PR's head is in (the payloads' fork)
EVENTS = "review-coordinator"  # the user's event workflow (`name:`), which the relay names
RELAY = "review-coordinator relay"
HANDOVER_MINUTES = 0.15


@dataclass
class WorkflowRun:
    """One run of either workflow, as the Actions tab lists it."""

    n: int
    workflow: str  # EVENTS or RELAY
    event: lc.Event
    trigger: str
    burst: str
    job: str  # "judge", "hand-over", or "" (every job skipped)
    conclusion: str = ""  # "" until it completes
    judge: lc.RunRecord | None = None  # the judging job's record
    ends: float = 0.0  # a hand-over: when it completes (simulated minutes)


@dataclass
class Group:
    """One concurrency group of the judge job: its running run and its pending one."""

    running: tuple[WorkflowRun, subprocess.Popen[str]] | None = None
    pending: WorkflowRun | None = None


@dataclass
class Fork:
    skipped_conclusion: str = "skipped"
    handover: float = HANDOVER_MINUTES
    runs: list[WorkflowRun] = field(default_factory=list)
    groups: dict[str, Group] = field(default_factory=dict)
    most_alive: int = 0  # judging jobs of this PR alive at once, across its groups
    overlapping: int = 0  # judging jobs started while one of another group was alive


def as_fork(fake: FakeGitHub, event: lc.Event) -> lc.Event:
    """The event as GitHub sends it for the fork's PR: a `pull_request*` payload's head is the
    fork's branch at the PR's current head (issue comments and dispatches name no head)."""
    name, payload = event
    if name in wf.READ_ONLY_EVENTS:
        head = payload["pull_request"]["head"]
        pull = fake._pulls[lc.PR]["head"]
        head.update(ref=pull["ref"], sha=pull["sha"])
        head["repo"].update(full_name=FORK_REPO, fork=True)
    return event


def fork_loop(fork: Fork) -> lc.Loop:
    def loop(r: lc.Replay, steps: list[lc.Step], verbose: bool) -> None:
        Delivery(fork, r, verbose).run(steps)

    return loop


class Delivery:
    """GitHub's side: the events to workflow runs, the completed runs to relay runs, the
    judging jobs through their groups (a new one replaces the pending one and kills the running
    one: `cancel-in-progress`)."""

    def __init__(self, fork: Fork, r: lc.Replay, verbose: bool) -> None:
        self.fork, self.r, self.verbose = fork, r, verbose
        self.offset = time.monotonic()
        self.posts: list[str] = []  # the last bot post whose check state is not yet reported

    def now(self) -> float:
        return (time.monotonic() - self.offset) / self.r.scale

    def alive(self) -> bool:
        handing = any(x.job == "hand-over" and not x.conclusion for x in self.fork.runs)
        return handing or any(g.running or g.pending for g in self.fork.groups.values())

    def note(self, suffix: str = "") -> None:
        if self.posts:
            self.r.states.append((self.posts.pop(), lc.check_state(self.r.fake) + suffix))

    def run(self, steps: list[lc.Step]) -> None:
        state: dict[str, object] = {}
        i = 0
        while i < len(steps) or self.alive():
            if not self.alive() and steps[i].at > self.now():
                self.note()  # quiet: what the last bot post led to
                self.offset -= (steps[i].at - self.now()) * self.r.scale
                continue
            while i < len(steps) and steps[i].at <= self.now():
                step = steps[i]
                i += 1
                if step.bot_post:
                    self.note(" (its run still going at the next post)")
                    self.posts.append(step.label)
                for event in step.apply(self.r.fake, state):
                    trigger = f"{step.label} [{event[0]}]"
                    self.dispatch(EVENTS, as_fork(self.r.fake, event), trigger, step.burst)
            for x in self.fork.runs:
                if x.job == "hand-over" and not x.conclusion and x.ends <= self.now():
                    self.complete(x, "success")
            for group in list(self.fork.groups.values()):
                self.advance(group)
            time.sleep(0.02)
        self.note()

    def dispatch(self, workflow: str, event: lc.Event, trigger: str, burst: str) -> None:
        if not wf.triggered(*event):
            raise SystemExit(f"{trigger}: not among {workflow}'s triggers")
        job = wf.job_for(*event) or ""
        run = WorkflowRun(len(self.fork.runs) + 1, workflow, event, trigger, burst, job)
        self.fork.runs.append(run)
        if not job:
            self.complete(run, self.fork.skipped_conclusion)
        elif job == "hand-over":
            run.ends = self.now() + self.fork.handover
        else:
            self.enqueue(run)

    def complete(self, run: WorkflowRun, conclusion: str) -> None:
        """The run completed: for the event workflow, GitHub delivers the relay's event."""
        run.conclusion = conclusion
        if run.workflow == EVENTS:
            relay = ("workflow_run", wf.relay_event(*run.event, conclusion=conclusion))
            self.dispatch(RELAY, relay, f"relay of {run.n}: {run.trigger}", run.burst)

    def enqueue(self, run: WorkflowRun) -> None:
        rec = lc.RunRecord(len(self.r.runs) + 1, run.trigger, run.burst, first=-1)
        rec.token = f"app-token-run{rec.n}"  # GITHUB_TOKEN's identity; its requests told apart
        self.r.fake.add_token(rec.token, ACTIONS_LOGIN, user_endpoint=False)
        self.r.runs.append(rec)
        run.judge = rec
        group = self.fork.groups.setdefault(wf.group(*run.event), Group())
        if group.pending is not None and group.pending.judge is not None:
            group.pending.judge.outcome = "replaced"
            self.complete(group.pending, "cancelled")
        group.pending = run
        if group.running is not None and group.running[1].poll() is None:
            group.running[1].send_signal(signal.SIGKILL)  # cancel-in-progress
            if group.running[0].judge is not None:
                group.running[0].judge.outcome = "cancelled"

    def advance(self, group: Group) -> None:
        if group.running is not None and group.running[1].poll() is not None:
            run, proc = group.running
            group.running = None
            output = proc.stdout.read() if proc.stdout else ""
            proc.wait()
            rec = run.judge
            assert rec is not None
            if rec.outcome == "running":
                rec.outcome = "completed"
            lc.account(self.r, rec, output)
            if self.verbose:
                print(
                    f"  run {rec.n} {rec.outcome} {rec.gate} {rec.rate_limited} req: {run.trigger}"
                )
                print(f"      {rec.routes}")
            ok = "success" if proc.returncode == 0 else "failure"
            self.complete(run, ok if rec.outcome == "completed" else "cancelled")
        if group.running is None and group.pending is not None:
            run, group.pending = group.pending, None
            assert run.judge is not None
            others = [g for g in self.fork.groups.values() if g.running]
            self.fork.overlapping += bool(others)
            group.running = (run, self.r.start(run.judge, run.event))
            self.fork.most_alive = max(self.fork.most_alive, len(others) + 1)


# ------------------------------------------------------------------------------ report
def report(r: lc.Replay, fork: Fork, scale: float) -> None:
    events = [x for x in fork.runs if x.workflow == EVENTS]
    relays = [x for x in fork.runs if x.workflow == RELAY]
    jobs = Counter(x.job or "none" for x in events)
    skipped = Counter(x.event[0] for x in events if not x.job)
    print(f"\n## Fork PR lifecycle replay (SCALE {scale} s per simulated minute)")
    print(f"  settle inputs: {r.inputs()}; hand-over: {fork.handover} min")
    print(f"  skipped runs conclude: {fork.skipped_conclusion}")
    print(f"  events GitHub sent: {len(events)} (each one run of {EVENTS})")
    print(
        f"    jobs: hand-over {jobs['hand-over']}, judge {jobs['judge']} "
        f"(base-repository events), none {jobs['none']} {dict(skipped)}"
    )
    relay_judges = [x for x in relays if x.job]
    why = Counter(
        f"{x.event[1]['workflow_run']['event']}:{x.event[1]['workflow_run']['conclusion']}"
        for x in relays
        if not x.job
    )
    print(
        f"  relay runs triggered: {len(relays)} (one per completed run); judge started: "
        f"{len(relay_judges)}; every job skipped: {len(relays) - len(relay_judges)} {dict(why)}"
    )
    for label, xs in (("event workflow", events), ("relay", relays)):
        recs = [x.judge for x in xs if x.judge is not None]
        print(f"  judging jobs ({label}): {summary(recs)}")
    print(
        f"  judging jobs alive at once: at most {fork.most_alive}; started while another "
        f"group's was alive: {fork.overlapping} (groups: {sorted(fork.groups)})"
    )
    runs = r.runs
    print(
        f"  rate-limited REST requests: {sum(x.rate_limited for x in runs)} in total; writes: "
        f"{sum(x.writes for x in runs)}; GraphQL queries: {sum(x.graphql for x in runs)}"
    )
    handovers = jobs["hand-over"] * fork.handover
    judged = lc.run_minutes(runs, scale)
    print(
        f"  sum of run durations: {judged + handovers:.1f} simulated minutes (judging jobs "
        f"{judged:.1f}, hand-overs {handovers:.1f})"
    )
    print(
        f"  {'run':>3} {'wf':<5} {'outcome':<9} {'gate':<5} {'noop':<4} {'req':>4} "
        f"{'wr':>3}  trigger"
    )
    for x in fork.runs:
        rec = x.judge
        if rec is None:
            continue
        print(
            f"  {rec.n:>3} {'relay' if x.workflow == RELAY else 'event':<5} {rec.outcome:<9} "
            f"{rec.gate or '-':<5} {'yes' if rec.noop else '':<4} {rec.rate_limited:>4} "
            f"{rec.writes:>3}  {x.trigger}"
        )
    print("  check run after each bot post (when the runs it started had finished):")
    for label, st in r.states:
        print(f"    {label:<34} {st}")
    print(f"    {'end':<34} {lc.check_state(r.fake)}")
    done = [x for x in runs if x.outcome == "completed"]
    noops = [x for x in done if x.noop]
    full = [x for x in done if not x.noop and x.writes]
    lc.targets(r, full, noops, sum(x.rate_limited for x in runs))


def summary(recs: list[lc.RunRecord]) -> str:
    outcomes = Counter(x.outcome for x in recs)
    noops = sum(1 for x in recs if x.outcome == "completed" and x.noop)
    return (
        f"triggered {len(recs)}; started {len(recs) - outcomes['replaced']}; completed "
        f"{outcomes['completed']} ({noops} noop); cancelled while running "
        f"{outcomes['cancelled']}; replaced while pending {outcomes['replaced']}; "
        f"{sum(x.rate_limited for x in recs)} rate-limited requests"
    )


def main() -> None:
    ap = lc.arguments()
    ap.add_argument("--handover", type=float, default=HANDOVER_MINUTES, help="simulated minutes")
    ap.add_argument(
        "--skipped-conclusion",
        choices=("skipped", "success"),
        default="skipped",
        help="what a run whose every job was skipped concludes (GitHub: skipped)",
    )
    args = ap.parse_args()
    scale = 1.0 if args.quick else args.scale
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    started = time.monotonic()
    fork = Fork(args.skipped_conclusion, args.handover)
    r = lc.replay(scale, args.verbose, head_repo=FORK_REPO, loop=fork_loop(fork))
    report(r, fork, scale)
    print(f"  (replay took {time.monotonic() - started:.1f} s real time)")


if __name__ == "__main__":
    main()
