"""API cost of one evaluation, against the fake GitHub server on 127.0.0.1.

1. One evaluation (`settle: none`) of a PR with N comments: HTTP requests by endpoint, how many
   cost rate limit, against the minimum possible (1 PR read + one request per 100 items per
   endpoint + the writes).
2. A fast settle that runs to its timeout with nothing new posted: how many rate-limited
   requests the polling costs (conditional requests: a 304 is free).

The clock is injected (no real waiting); the fake counts requests exactly as GitHub would
(every response but 304 costs one).

    python bench/api_cost.py                   # 300 comments; 180 s fast settle at 15 s polls
    python bench/api_cost.py --comments 10,300,3000 --timeout 480
"""

from __future__ import annotations

import argparse
import io
import math
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reviewcoord.actions_io import Log
from reviewcoord.github.pygithub_gateway import PyGithubGateway
from reviewcoord.runner import RunRequest, evaluate
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


def one_evaluation(comments: int) -> None:
    with FakeGitHub(rate_limit=100_000) as fake:
        reviews, inline, issue = populate(fake, comments)
        gateway = PyGithubGateway("octo/app", "app-token", base_url=fake.base_url, write_spacing=0)
        request = RunRequest(
            repo="octo/app",
            pr=2,
            inputs={"settle": "none", "expected-bots": "codex"},
            input_source="bench",
            config_path=".github/review-coordinator.yml",
        )
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


def idle_settle(comments: int, timeout: int, poll: int) -> None:
    with FakeGitHub(rate_limit=100_000) as fake:
        populate(fake, comments)
        gateway = PyGithubGateway("octo/app", "app-token", base_url=fake.base_url, write_spacing=0)
        request = RunRequest(
            repo="octo/app",
            pr=2,
            input_source="bench",
            config_path=".github/review-coordinator.yml",
            inputs={
                "settle": "fast",
                "fast-timeout": str(timeout),
                "poll-interval": str(poll),
                "expected-bots": "codex,claude",
                "merge-patience": "false",
            },
        )
        clock = FakeClock()
        evaluate(request, gateway, clock, Log(io.StringIO()))
        counts = routes(fake)
        polls = sum(n for k, n in counts.items() if "/pulls/2/reviews" in k)
        print(
            f"\n## Fast settle with nothing new: {comments} comments, {timeout} s at {poll} s "
            f"polls → {polls} polls, {clock.t:.0f} s"
        )
        print(
            f"  {len(fake.request_log())} HTTP requests, {fake.rate_limit_used} rate-limited, "
            f"{sum(n for k, n in counts.items() if '(304)' in k)} answered 304 (free)"
        )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--comments", default="300")
    ap.add_argument("--timeout", type=int, default=180)
    ap.add_argument("--poll", type=int, default=15)
    args = ap.parse_args()
    for n in (int(x) for x in args.comments.split(",")):
        one_evaluation(n)
        idle_settle(n, args.timeout, args.poll)


if __name__ == "__main__":
    main()
