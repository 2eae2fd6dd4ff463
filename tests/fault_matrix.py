"""The fault matrix: every endpoint the Action calls × every fault, run in-process.

One cell = one FakeGitHub, one fault injected on one endpoint (`times=1`: transient, or
`times=1000`: persistent), one `runner.evaluate` with an injected clock (nothing sleeps; the
gateway's retry waits advance the clock), then one shared invariant checker over what the fake
holds afterwards. `docs/reliability.md` is rendered from the same data (`render_doc`), so the
doc and the tests cannot drift (tests/test_faults.py compares them; REVIEWCOORD_REGEN=1
rewrites the doc).
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from reviewcoord.actions_io import Log
from reviewcoord.github.pygithub_gateway import PyGithubGateway
from reviewcoord.runner import RunRequest, evaluate
from tests.e2e_support import (
    CODEX,
    COPILOT,
    COPILOT_REVIEWER,
    CURSOR,
    HEAD,
    MARKER,
    all_clean,
    body,
    cursor_clean,
)
from tests.fakegithub import APP_TOKEN, FakeGitHub

PR = 2
OURS = "github-actions[bot]"
CONFIG_PATH = ".github/review-coordinator.yml"
PERSISTENT_TIMES = 1000
PAGE = 10  # the fake's page size: lists of more than 10 items have a page 2
# The fake holds a "timeout" fault's connection until the gateway gives up (after
# GATEWAY_TIMEOUT s, for that request only: every other request may take as long as a loaded
# machine needs, so no figure depends on the machine's speed) or FAULT_TIMEOUT s pass: a bound
# that costs nothing (the hold ends when the gateway closes), long enough that only the
# gateway's own timeout ends a stall, however late its thread runs. Which attempt stalls is
# fixed when the gateway asks (`FakeGitHub.will_stall`), not when the fake's thread gets to it.
# Simulated time counts each timed-out attempt as PROD_TIMEOUT s: what it costs on a runner
# (the gateway's production timeout).
FAULT_TIMEOUT = 30.0
GATEWAY_TIMEOUT = 0.1
PROD_TIMEOUT = 15.0
# Gateway defaults (reviewcoord/github/pygithub_gateway.py): attempts per request and the
# longest single wait it accepts.
MAX_ATTEMPTS = 5
MAX_RETRY_WAIT = 60.0
FAST_TIMEOUT = 180.0
# The stated bound: a run ends within its settle timeout + one poll interval + MARGIN, whatever
# the faults. A failing request costs at most (MAX_ATTEMPTS - 1) waits of ≤ MAX_RETRY_WAIT plus
# MAX_ATTEMPTS timeouts; a run meets the same dead endpoint at most twice (once in the work, once
# while reporting the error).
PER_REQUEST_WORST = (MAX_ATTEMPTS - 1) * MAX_RETRY_WAIT + MAX_ATTEMPTS * PROD_TIMEOUT
MARGIN = 2 * PER_REQUEST_WORST


@dataclass(frozen=True)
class Endpoint:
    key: str
    method: str
    regex: str
    write: bool = False
    optional: frozenset[str] = frozenset()  # faults that mean "absent", not "failed"
    # A dead endpoint the run can route around and still publish the verdict.
    degradable: bool = False
    prior_stickies: int = 0  # our stickies present before the run (to exercise PATCH/DELETE)
    # Claude never reviews this PR: `expected-bots: auto` must then read the repository-wide
    # lists (with all four known bots on the PR they are not read at all).
    without_claude: bool = False


@dataclass(frozen=True)
class Fault:
    key: str
    inject: dict[str, Any]
    retryable: bool
    writes_only: bool = False


ENDPOINTS: tuple[Endpoint, ...] = (
    Endpoint("GET pulls/{n}", "GET", rf"^/repos/octo/app/pulls/{PR}(\?|$)"),
    Endpoint("GET pulls/{n}/reviews", "GET", rf"/pulls/{PR}/reviews"),
    Endpoint("GET pulls/{n}/comments p1", "GET", rf"^/repos/octo/app/pulls/{PR}/comments"),
    Endpoint("GET pulls/{n}/comments p2+", "GET", rf"^/repositories/4242/pulls/{PR}/comments"),
    Endpoint("GET issues/{n}/comments", "GET", rf"/issues/{PR}/comments"),
    Endpoint(
        "GET pulls/comments (repo)",
        "GET",
        r"^/repos/octo/app/pulls/comments\?",
        without_claude=True,
    ),
    Endpoint(
        "GET issues/comments (repo)",
        "GET",
        r"^/repos/octo/app/issues/comments\?",
        without_claude=True,
    ),
    Endpoint("GET commits/{sha}/check-suites", "GET", rf"/commits/{HEAD}/check-suites"),
    Endpoint("GET issues/{n}/timeline", "GET", rf"/issues/{PR}/timeline"),
    Endpoint("GET contents (config)", "GET", r"/contents/", optional=frozenset({"404"})),
    # Who our token is (GraphQL `viewer`; the only GraphQL query of this all-clean PR).
    Endpoint("POST graphql (viewer)", "POST", r"^/graphql$"),
    Endpoint("GET commits/{sha}/check-runs", "GET", r"/check-runs\?"),
    Endpoint("POST check-runs", "POST", r"/check-runs$", write=True),
    Endpoint("PATCH check-runs/{id}", "PATCH", r"/check-runs/\d+", write=True),
    Endpoint("POST statuses/{sha}", "POST", r"/statuses/", write=True),
    Endpoint("POST issues/{n}/comments", "POST", rf"/issues/{PR}/comments", write=True),
    Endpoint(
        "PATCH issues/comments/{id}",
        "PATCH",
        r"/issues/comments/\d+",
        write=True,
        prior_stickies=1,
        degradable=True,  # post a new sticky, delete the old one
    ),
    Endpoint(
        "DELETE issues/comments/{id}",
        "DELETE",
        r"/issues/comments/\d+",
        write=True,
        prior_stickies=2,
        degradable=True,  # an undeletable duplicate is marked stale instead
    ),
)

FAULTS: tuple[Fault, ...] = (
    Fault("502", {"status": 502, "body": "<html><h1>502 Bad Gateway</h1></html>"}, True),
    Fault("503", {"status": 503}, True),
    Fault("reset", {"action": "reset"}, True),
    Fault("timeout", {"action": "timeout"}, True),
    Fault("403 secondary + Retry-After", {"status": 403, "headers": {"Retry-After": "30"}}, True),
    Fault("429 + Retry-After", {"status": 429, "headers": {"Retry-After": "20"}}, True),
    Fault("429 no Retry-After", {"status": 429}, True),
    Fault("primary exhausted", {"status": 403, "exhausted": True}, False),
    Fault("401", {"status": 401}, False),
    Fault("404", {"status": 404}, False),
    Fault("422", {"status": 422}, False, writes_only=True),
)

MODES = {"transient": 1, "persistent": PERSISTENT_TIMES}


def runner_gap(cell: Cell) -> str | None:
    """Cells known to miss an invariant (tests/test_faults.py marks them xfail(strict=True)).
    None today: the runner fixes R1-R4 (docs/reliability.md § Runner fixes) closed them all."""
    return None


@dataclass(frozen=True)
class Cell:
    endpoint: Endpoint
    fault: Fault
    mode: str

    @property
    def id(self) -> str:
        return f"{self.endpoint.key} | {self.fault.key} | {self.mode}"


def cells() -> list[Cell]:
    out = []
    for ep in ENDPOINTS:
        for fault in FAULTS:
            if fault.writes_only and not ep.write:
                continue
            for mode in MODES:
                out.append(Cell(ep, fault, mode))
    return out


class SimClock:
    """The runner's Clock and the gateway's sleep/clock in one: nothing really sleeps."""

    def __init__(self) -> None:
        self.t = 0.0
        self.retry_sleeps: list[float] = []

    def now(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.t += max(0.0, seconds)

    def gateway_sleep(self, seconds: float) -> None:
        self.retry_sleeps.append(seconds)
        self.t += max(0.0, seconds)


def sim_gateway(fake: FakeGitHub, token: str, clock: SimClock) -> PyGithubGateway:
    """The production gateway on the simulated clock: retry waits advance it, never sleep; only
    a request the fake stalls can time out."""
    return PyGithubGateway(
        "octo/app",
        token,
        base_url=fake.base_url,
        sleep=clock.gateway_sleep,
        clock=clock.now,
        write_spacing=0,
        timeout=fake.timeouts(stalled=GATEWAY_TIMEOUT),
    )


@dataclass
class Result:
    cell_id: str
    gate: str  # block / go / error / "crash: <exception>"
    reason: str
    status: str  # last commit status state on the head, "-" if none
    status_description: str
    check: str  # "completed/failure", "in_progress", "-" …, one per check run
    check_summaries: list[str]
    stickies_ours: int
    stickies_live: int  # ours and not marked stale
    stickies_claiming: list[str]  # gates claimed by our non-stale stickies
    elapsed: float  # simulated seconds
    attempts: int  # requests that hit the faulted endpoint
    log: str
    violations: list[str] = field(default_factory=list)


def seed(fake: FakeGitHub, ep: Endpoint) -> None:
    fake.add_pull(PR, head_sha=HEAD)
    if ep.without_claude:
        fake.add_issue_comment(PR, login=CODEX, body=body("X_clean_swish"))
        fake.add_review(PR, login=CURSOR, body=cursor_clean(HEAD), commit_id=HEAD)
        fake.add_review(PR, login=COPILOT_REVIEWER, body=body("Z12"), commit_id=HEAD)
    else:
        all_clean(fake)
    for i in range(PAGE + 2):  # Copilot nitpicks fill page 1 of pulls/2/comments: page 2 is read
        fake.add_review_comment(PR, login=COPILOT, body=body("Z59"), path=f"f{i}.py", line=3)
    fake.set_file(CONFIG_PATH, "main", "group-window: 5\n")
    for i in range(ep.prior_stickies):
        fake.add_issue_comment(PR, login=OURS, body=f"{MARKER}\n## old verdict {i}")


def run_cell(
    cell: Cell,
    *,
    token: str = APP_TOKEN,
    prepare: Callable[[FakeGitHub], None] | None = None,
) -> Result:
    with FakeGitHub(fault_timeout_seconds=FAULT_TIMEOUT, per_page_max=PAGE) as fake:
        seed(fake, cell.endpoint)
        if prepare is not None:
            prepare(fake)
        fake.inject(
            cell.endpoint.method,
            cell.endpoint.regex,
            times=MODES[cell.mode],
            **cell.fault.inject,
        )
        clock = SimClock()
        stream = io.StringIO()
        log = Log(stream)
        log.mask(token)
        gateway = sim_gateway(fake, token, clock)
        req = RunRequest(
            repo="octo/app",
            pr=PR,
            inputs={"settle": "fast", "fast-timeout": str(int(FAST_TIMEOUT))},
            input_source="workflow inputs",
            config_path=CONFIG_PATH,
        )
        try:
            outcome = evaluate(req, gateway, clock, log)
            gate, reason = outcome.gate, outcome.reason
        except Exception as exc:  # the matrix records crashes; the checker flags them
            gate, reason = f"crash: {type(exc).__name__}", str(exc)
        finally:
            gateway.close()
        return observe(fake, cell, clock, gate, reason, stream.getvalue())


_CLAIM = re.compile(r"Review verdict — `(\w+)`")


def observe(
    fake: FakeGitHub, cell: Cell, clock: SimClock, gate: str, reason: str, log: str
) -> Result:
    statuses = fake.statuses(HEAD)
    runs = fake.check_runs(HEAD)
    ours = [
        c
        for c in fake.issue_comments(PR)
        if c["user"]["login"] == OURS and c["body"].lstrip().startswith(MARKER)
    ]
    claiming = []
    for c in ours:
        text = c["body"]
        if "This verdict is stale" in text:
            continue
        m = _CLAIM.search(text)
        if m:
            claiming.append(m.group(1))
    pattern = re.compile(cell.endpoint.regex)
    hits = [
        r for r in fake.request_log() if r.method == cell.endpoint.method and pattern.search(r.path)
    ]
    timeouts = sum(1 for r in fake.request_log() if r.action == "timeout")
    return Result(
        cell_id=cell.id,
        gate=gate,
        reason=reason,
        status=statuses[-1]["state"] if statuses else "-",
        status_description=statuses[-1]["description"] or "" if statuses else "",
        check=", ".join(
            f"{r['status']}/{r['conclusion']}" if r["conclusion"] else r["status"] for r in runs
        )
        or "-",
        check_summaries=[(r["output"] or {}).get("summary") or "" for r in runs],
        stickies_ours=len(ours),
        stickies_live=sum(1 for c in ours if "This verdict is stale" not in c["body"]),
        stickies_claiming=claiming,
        elapsed=clock.t + timeouts * PROD_TIMEOUT,
        attempts=len(hits),
        log=log,
    )


def expected_gates(cell: Cell) -> set[str]:
    """What a correct run ends with. The baseline PR is all clean (`go`): a read that silently
    lost data would also say `go`, so "never go on an incomplete read" is tested head-on."""
    fault, ep = cell.fault, cell.endpoint
    if fault.key in ep.optional:
        return {"go"}  # 404 on config/commit means "absent": the verdict stands
    if cell.mode == "transient" and fault.retryable:
        return {"go"}
    if ep.degradable:
        return {"go"}
    return {"error"}


def check(cell: Cell, res: Result) -> list[str]:
    """The invariants every cell must keep. Returns the violations (empty = pass)."""
    bad: list[str] = []
    want = expected_gates(cell)
    if res.gate not in want:
        bad.append(f"gate {res.gate!r}, expected one of {sorted(want)}")
    if res.gate == "go" and res.attempts and not _recovered(cell):
        bad.append("gate go although a read/write failed for good")
    # GitHub's 404 on DELETE means "already gone"; the fake injects it and keeps the comment.
    gone = cell.endpoint.method == "DELETE" and cell.fault.key == "404"
    if res.stickies_live > 1 and not gone:
        bad.append(f"{res.stickies_live} live stickies of ours")
    for claimed in res.stickies_claiming:
        wanted = {"go": "success", "block": "failure"}.get(claimed)
        if res.status != wanted:
            bad.append(f"sticky claims {claimed!r} but the final status is {res.status!r}")
    if "in_progress" in res.check and not (
        cell.mode == "persistent" and cell.endpoint.key == "PATCH check-runs/{id}"
    ):
        bad.append(f"check run left {res.check}")
    if res.gate == "error":
        if res.status not in ("error", "-") and not _status_dead(cell):
            bad.append(f"gate error but the final status is {res.status!r}")
        if res.status == "error" and not res.status_description.startswith("error:"):
            bad.append("the error status does not say what failed")
        head_unknown = cell.endpoint.key == "GET pulls/{n}"  # nothing to write a status on
        if (
            not _check_dead(cell)
            and not head_unknown
            and not any(
                "check" in s or "could not" in s or "No trustworthy" in s
                for s in res.check_summaries
            )
        ):
            bad.append("no check run names what failed")
    bound = FAST_TIMEOUT + MARGIN
    if res.elapsed > bound:
        bad.append(f"took {res.elapsed:.0f} simulated s > bound {bound:.0f}")
    if APP_TOKEN in res.log.replace("app-token", "") or "ghs_" in res.log:
        bad.append("token in the log")
    return bad


def _recovered(cell: Cell) -> bool:
    return (
        (cell.mode == "transient" and cell.fault.retryable)
        or cell.fault.key in cell.endpoint.optional
        or cell.endpoint.degradable
    )


def _status_dead(cell: Cell) -> bool:
    return cell.mode == "persistent" and cell.endpoint.key == "POST statuses/{sha}"


def _check_dead(cell: Cell) -> bool:
    return cell.mode == "persistent" and cell.endpoint.key in (
        "POST check-runs",
        "PATCH check-runs/{id}",
        "GET commits/{sha}/check-runs",
    )


@cache
def outcome(cell_id: str) -> Result:
    cell = next(c for c in cells() if c.id == cell_id)
    res = run_cell(cell)
    res.violations = check(cell, res)
    return res


# ---------------------------------------------------------------------------- the document
DOC_HEAD = """# Reliability: the fault matrix

_Generated by `tests/test_faults.py` from `tests/fault_matrix.py`; do not edit by hand —
`REVIEWCOORD_REGEN=1 .venv/bin/pytest tests/test_faults.py` rewrites it, and the test fails when
this file and the tests disagree._

Every endpoint the Action calls × every fault, against the fake GitHub server, one run of
`runner.evaluate` per cell with an injected clock. **transient** = the fault hits once
(`times=1`), **persistent** = every time. The PR is all clean (correct verdict `go`), with 12
inline comments (the fake serves 10 a page) so that the review-comment list has a page 2, a
config file on the base branch and, for the PATCH/DELETE comment rows, one or two earlier
stickies of ours.

Invariants checked in every cell (`fault_matrix.check`):

* the gate is the expected one: `go` when the fault is transient and retryable or means
  "absent" (404 on config / head commit), otherwise `error` (fail closed);
  never `go` after a read or write failed for good;
* at most one sticky comment of ours; a sticky that claims a verdict has the matching final
  commit status (`go` → `success`, `block` → `failure`), otherwise it is marked stale;
* no check run left `in_progress` (except when `PATCH check-runs/{{id}}` itself is dead);
* on `error`: the status is `error` with a description saying what failed (unless the status
  endpoint itself is dead) and the check run says what failed (unless the check-run endpoints
  are dead);
* bounded time: simulated seconds (injected clock: settle sleeps + retry waits; every timed-out
  attempt counted as the {prod_timeout:g} s production timeout) ≤ fast-timeout {fast:g} s +
  margin {margin:g} s, where the margin is two dead requests of {per_request:g} s each
  ({attempts} attempts, waits ≤ {max_wait:g} s, timeouts {prod_timeout:g} s).

Retry policy (gateway): 5xx, connection reset, read timeout, 429 and 403 secondary rate limits
are retried (Retry-After honoured, else 1, 2, 4, 8 s; secondary without Retry-After 60 s) up to
{attempts} attempts; a requested wait over {max_wait:g} s (primary rate limit exhausted until
its reset) fails at once; 401, 404, 422 are not retried.

Columns: gate, last commit status on the head, check run(s) (`status/conclusion`), our
stickies, simulated seconds, requests that hit the faulted endpoint. ✗ = an invariant does not
hold (listed under "Gaps").
"""


def _row(res: Result) -> str:
    ep, fault, mode = res.cell_id.split(" | ")
    mark = "✗" if res.violations else "✓"
    gate = res.gate.replace("|", "/")
    return (
        f"| {ep} | {fault} | {mode} | {gate} | {res.status} | {res.check} | "
        f"{res.stickies_ours} | {res.elapsed:.0f} | {res.attempts} | {mark} |"
    )


def render_doc(results: list[Result], extra_sections: str = "") -> str:
    head = DOC_HEAD.format(
        prod_timeout=PROD_TIMEOUT,
        fast=FAST_TIMEOUT,
        margin=MARGIN,
        per_request=PER_REQUEST_WORST,
        attempts=MAX_ATTEMPTS,
        max_wait=MAX_RETRY_WAIT,
    )
    lines = [head.replace("{{id}}", "{id}")]
    ok = sum(1 for r in results if not r.violations)
    lines.append(
        f"**{len(results)} cells: {ok} keep every invariant, {len(results) - ok} do not.**\n"
    )
    lines.append(
        "| endpoint | fault | mode | gate | status | check run | stickies | sim s | hits | ok |"
    )
    lines.append("|---|---|---|---|---|---|---|---|---|---|")
    lines += [_row(r) for r in results]
    gaps = [r for r in results if r.violations]
    lines.append("\n## Gaps (best behaviour not reached)\n")
    if not gaps:
        lines.append("None.")
    groups: dict[str, list[Result]] = {}
    for r in gaps:
        cell = next(c for c in cells() if c.id == r.cell_id)
        groups.setdefault(runner_gap(cell) or "not explained", []).append(r)
    for why, members in groups.items():
        lines.append(f"* **{len(members)} cells** — {why}:")
        lines += [f"  * `{r.cell_id}`: {'; '.join(r.violations)}" for r in members]
    if extra_sections:
        lines.append("\n" + extra_sections.strip("\n"))
    return "\n".join(lines).rstrip("\n") + "\n"


def run_once(
    fake: FakeGitHub,
    token: str = APP_TOKEN,
    inputs: dict[str, object] | None = None,
    gateway_wrapper: Callable[[PyGithubGateway], Any] | None = None,
) -> tuple[Any, str]:
    """One in-process evaluation against `fake` (settle none unless `inputs` say otherwise):
    (Outcome, log text)."""
    clock = SimClock()
    stream = io.StringIO()
    log = Log(stream)
    log.mask(token)
    gateway = sim_gateway(fake, token, clock)
    req = RunRequest(
        repo="octo/app",
        pr=PR,
        inputs={"settle": "none", **(inputs or {})},
        input_source="workflow inputs",
        config_path=CONFIG_PATH,
    )
    try:
        active = gateway_wrapper(gateway) if gateway_wrapper else gateway
        return evaluate(req, active, clock, log), stream.getvalue()
    finally:
        gateway.close()


NOTES = """
## Tokens, fork PRs, races (tests/test_tokens.py, tests/test_races.py)

* **Identity.** GITHUB_TOKEN (GraphQL `viewer` → `github-actions[bot]`), a PAT (`viewer`
  answers its login) and an App installation token (`viewer` → `my-app[bot]`): three runs each
  end with exactly one sticky of ours; a human's and another App's comment carrying our marker
  are never edited or deleted. With a PAT, check runs are refused (only Apps may write them):
  one warning, the commit status carries the gate. The identity is GitHub's word about our own
  token, read before the sticky is looked for, so the second run edits the same sticky; the App
  of the check run the run opens confirms it (R3). A failed `viewer` read fails the run closed.
* **Secrets.** Error bodies echoing the token, on reads and writes: the token appears in no log
  line (except `::add-mask::`), output, job summary, verdict file, exception message or anything
  written to GitHub.
* **Fork PRs.** A read-only token (every write → 403 "Resource not accessible by
  integration"): the verdict is computed and delivered through the job summary, the outputs,
  the verdict file, the exit code (`fail-on-block`) and `::error` annotations — at most 10 (the
  per-step cap), the last saying how many more — with one `::warning` line explaining why and
  pointing to docs/troubleshooting.md § Fork pull requests. The shipped workflows hand such
  runs over to the relay (`workflow_run`), and no step checks out or runs the PR's code.
* **Concurrent runs.** Two runs that both see "no sticky" and POST together end with one sticky
  (the newest kept, the other deleted; a 404 on that delete means the other run already did it);
  a third run edits that one.
* **Cancelled run.** A run killed mid-settle leaves its check run `in_progress`; the next run on
  the head adopts and completes that same check run (no second one).
* **Older head.** A run that read head A and finds, after writing the sticky, that the PR moved to
  B (whose run may already have published) writes no status for A, closes A's check run as
  superseded and judges B instead, re-publishing the sticky for B (R4; bounded: after two moves
  it stops with gate `error`).

## Runner fixes (applied)

* **R1** guard `surfaces.start()` (and the start after a head move) with `except GatewayError`
  → `_fail(…, surfaces=surfaces)`.
* **R2** in `_fail`, attempt the error status, the check-run completion and the stale marking
  each on its own (one dead endpoint must not skip the others), and pass `pr=req.pr` to
  `mark_stale` (it re-reads the comments, so a sticky written earlier in the same run is found).
* **R3** take the identity from GitHub's word about our token (GraphQL `viewer`), confirmed by
  the `app.slug` of the check run this run creates (`<slug>[bot]`) — never from a check run
  another App made with our name (issue 23 route 7).
* **R4** re-read `pulls/{n}` (a free 304 when unchanged) after writing the sticky and before the
  status; if the head moved, write no status for the old head (close its check run as
  cancelled) and judge the new head, re-publishing the sticky.

Fixed here (gateway, publishers): rate-limit failures carry status 429 (never mistaken for the
PAT's "cannot write check runs" 403); an unchangeable sticky (PATCH dead or 404) is replaced by
a new one; a duplicate that cannot be deleted is marked stale; a 404 on deleting a duplicate
counts as done; `mark_stale` re-reads the comments; the fake server sets `TCP_NODELAY` (every
response was delayed ~40 ms by Nagle + delayed ACK).
"""
