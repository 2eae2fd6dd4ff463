"""One read per event (issue 26 item 2): REST requests and GraphQL points of one evaluation and of
the noop after it, with the PR and its comment lists read over REST (today's default) and in one
GraphQL query (`PyGithubGateway(one_read=True)`), against the fake GitHub on 127.0.0.1.

GraphQL points are GitHub's own figure where the answer carries it (`rateLimit { cost }` of the
reading queries, which the fake computes with GitHub's formula); the other GraphQL queries of a
run (`viewer`, edit histories) have no connection or one of `first: 100` and cost 1 point each
by the same formula. REST requests are counted as GitHub counts them (a 304 is free).

    python bench/one_read.py                 # 10, 100, 300 comments
    python bench/one_read.py --quick         # CI: 10 comments
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.api_cost import FakeClock, bench_request, populate, routes
from reviewcoord.actions_io import Log
from reviewcoord.github.pygithub_gateway import PyGithubGateway
from reviewcoord.runner import evaluate
from tests.fakegithub import FakeGitHub
from tests.fakegithub.graphql_reading import operation

Row = tuple[str, int, int, int, int]
# A settle that waits for a bot that never comes (claude): 12 polls of 15 s.
SETTLE = {"settle": "fast", "fast-timeout": "180", "poll-interval": "15"}


def run_pair(comments: int, one_read: bool, settle: bool = False) -> list[Row]:
    """(run, REST requests, rate-limited REST, GraphQL queries, GraphQL points) of a first run
    and the noop after it, each with a fresh gateway (no ETag cache), as a fresh process; with
    `settle`, of one run that polls until its fast timeout."""
    rows = []
    with FakeGitHub(rate_limit=100_000) as fake:
        populate(fake, comments)
        inputs = {**SETTLE, "expected-bots": "codex,claude"} if settle else {"settle": "none"}
        request = bench_request(inputs)  # without settle, expected-bots: auto (the default)
        for run in ("180 s settle",) if settle else ("first run", "noop run"):
            start, used, points = len(fake.request_log()), fake.rate_limit_used, fake.graphql_points
            with PyGithubGateway(
                "octo/app", "app-token", base_url=fake.base_url, write_spacing=0, one_read=one_read
            ) as gateway:
                stream = io.StringIO()
                outcome = evaluate(request, gateway, FakeClock(), Log(stream))
                assert gateway.graphql_points == fake.graphql_points - points
            counts = routes(fake, start)
            graphql = sum(n for k, n in counts.items() if k.startswith("POST /graphql"))
            reading = fake.graphql_points - points
            queries = sum(1 for r in fake.request_log()[start:] if _reading(r.body))
            rest = sum(counts.values()) - graphql
            rest_limited = fake.rate_limit_used - used - graphql
            noop = " (noop)" if "nothing new since" in stream.getvalue() else ""
            label = f"{run}, gate {outcome.gate}{noop}"
            rows.append((label, rest, rest_limited, graphql, reading + graphql - queries))
    return rows


def _reading(body: object) -> bool:
    """Whether a request is one of the reading queries (their cost is GitHub's figure)."""
    return isinstance(body, dict) and operation(str(body.get("query", ""))) is not None


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--comments", default="10,100,300")
    ap.add_argument("--quick", action="store_true", help="CI: 10 comments")
    args = ap.parse_args()
    for comments in (int(x) for x in ("10" if args.quick else args.comments).split(",")):
        print(f"\n## {comments} comments (settle none: expected-bots auto; settle: codex,claude)")
        head = f"{'REST':>5} {'REST limited':>13} {'GraphQL':>8} {'points':>7}"
        print(f"  {'reading':<8} {'run':<26} {head}")
        for one_read in (False, True):
            rows = run_pair(comments, one_read) + run_pair(comments, one_read, settle=True)
            for label, rest, limited, graphql, points in rows:
                how = "GraphQL" if one_read else "REST"
                print(f"  {how:<8} {label:<26} {rest:>5} {limited:>13} {graphql:>8} {points:>7}")


if __name__ == "__main__":
    main()
