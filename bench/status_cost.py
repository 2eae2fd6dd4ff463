"""API cost of `reviewcoord status`, against the fake GitHub server on 127.0.0.1.

N open PRs; on each, a few bot comments and (on 3 of 4) our sticky with its history record; one
PR in 10 has 150 comments (two pages). `status` reads the open PR list (every page), then each
PR's issue comments (every page), plus `GET /user` once. Prints requests by endpoint, how many
cost rate limit, the most any PR cost, and the wall time.

    python bench/status_cost.py                 # 10, 101 and 500 open PRs
    python bench/status_cost.py --pulls 250
    python bench/status_cost.py --quick         # CI: 10 and 101
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reviewcoord.history import History, encode
from reviewcoord.status_live import run_status
from tests.fakegithub import FakeGitHub

PAT = "ghp_benchtoken"
ME = "octo-dev"
MARKER = "<!-- review-coordinator-verdict -->"


def populate(fake: FakeGitHub, pulls: int) -> None:
    for n in range(1, pulls + 1):
        head = f"{n:040x}"
        fake.add_pull(n, head_sha=head, title=f"Change {n}")
        chatter = 150 if n % 10 == 0 else 3
        for i in range(chatter):
            fake.add_issue_comment(n, login="chatgpt-codex-connector[bot]", body=f"note {i}")
        if n % 4:
            record = History(repo=fake.repo, pr=n, heads=[head], cycle=1, gate="go")
            body = f"{MARKER}\n{encode(record)}\n## Verdict: go\n"
            fake.add_issue_comment(n, login=ME, body=body, user_type="User")


def measure(pulls: int) -> None:
    with FakeGitHub() as fake:
        fake.add_token(PAT, ME, user_endpoint=True)
        populate(fake, pulls)
        env = {"GITHUB_API_URL": fake.base_url, "GITHUB_TOKEN": PAT}
        started = time.perf_counter()
        code = run_status(["--repo", fake.repo], env, io.StringIO(), io.StringIO())
        elapsed = time.perf_counter() - started
        assert code == 0
        log = fake.request_log()
    kinds: Counter[str] = Counter()
    per_pr: Counter[str] = Counter()
    for r in log:
        if r.route.endswith("/comments"):
            kinds["issues/N/comments"] += 1
            per_pr[r.route.split("/")[-2]] += 1
        else:
            kinds[r.route.rsplit("/", 1)[-1]] += 1
    limited = sum(1 for r in log if r.status != 304)
    list_pages = kinds["pulls"]
    print(
        f"{pulls:>5} open PRs: {len(log)} requests ({limited} rate-limited): "
        f"{list_pages} PR-list pages + {kinds['issues/N/comments']} comment pages + "
        f"{kinds['user']} GET /user; most for one PR: {max(per_pr.values())}; "
        f"{elapsed:.2f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--pulls", type=int, action="append")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    for pulls in args.pulls or ([10, 101] if args.quick else [10, 101, 500]):
        measure(pulls)


if __name__ == "__main__":
    main()
