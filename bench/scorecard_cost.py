"""API cost of `reviewcoord scorecard`, against the fake GitHub server on 127.0.0.1.

N PRs merged in the window, each with our sticky (a record with three findings and the
reviewers' tally) and two bot comments; one in 10 with 150 more comments (two pages); one in 50
never judged (no sticky); plus N/10 closed unmerged and N/20 open PRs with comments of their own.
Three runs, each a fresh process's gateway:

1. cold: the list pages, the sweep of the repository's comments (newest update first), the
   per-PR reads of what the sweep did not find;
2. warm: the same with `--cache DIR` filled by a first run: unchanged pages answer 304 (free);
3. worst case: so many newer comments on one issue that the sweep would have more than one page
   per 4 merged PRs: it stops after its first page, and every PR is read on its own (its first
   page of comments, and the last one when there are more).

Prints requests by kind, how many cost rate limit, the most any PR cost, and the wall time.

    python bench/scorecard_cost.py               # 100 and 1000 merged PRs
    python bench/scorecard_cost.py --pulls 300
    python bench/scorecard_cost.py --quick       # CI: 100
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reviewcoord.history import BotRun, Entry, History, encode
from reviewcoord.scorecard.live import run_scorecard
from tests.fakegithub import ACTIONS_LOGIN, FakeGitHub

MARKER = "<!-- review-coordinator-verdict -->"
CODEX = "chatgpt-codex-connector[bot]"
WINDOW = ["--since", "2026-01-01", "--until", "2026-12-31", "--as", ACTIONS_LOGIN]


def _record(fake: FakeGitHub, n: int, head: str) -> str:
    findings = [
        Entry.model_validate(
            {"sid": f"{bot}-{n:012x}", "st": st, "sev": "critical", "bot": bot,
             "ep": "review_comment", "cid": n, "title": f"finding {n}", "first": 1, "seen": 2}
        )
        for bot, st in (("codex", "likely_fixed"), ("cursor", "open"), ("claude", "awaiting"))
    ]  # fmt: skip
    runs = {b: BotRun(expected=True, reviewed=True, minutes=4.0) for b in ("codex", "cursor")}
    record = History(repo=fake.repo, pr=n, heads=[head], cycle=2, gate="go", findings=findings,
                     bots=runs)  # fmt: skip
    return f"{MARKER}\n{encode(record)}\n## Verdict: go\n"


def populate(fake: FakeGitHub, merged: int) -> None:
    for n in range(1, merged + merged // 10 + merged // 20 + 1):
        head = f"{n:040x}"
        fake.add_pull(n, head_sha=head, title=f"Change {n}")
        chatter = 150 if n % 10 == 0 else 0
        for i in range(chatter):
            fake.add_issue_comment(n, login="octocat", user_type="User", body=f"note {i}")
        fake.add_issue_comment(n, login=CODEX, body="Codex Review: Didn't find any major issues.")
        if n % 50:
            fake.add_issue_comment(n, login=ACTIONS_LOGIN, body=_record(fake, n, head))
        fake.add_issue_comment(n, login=CODEX, body="Codex Review: Didn't find any major issues.")
        if n <= merged:
            fake.close_pull(n, merged=True)
        elif n <= merged + merged // 10:
            fake.close_pull(n)


def run(fake: FakeGitHub, *extra: str) -> tuple[str, float]:
    env = {"GITHUB_API_URL": fake.base_url, "GITHUB_TOKEN": "app-token"}
    out, err = io.StringIO(), io.StringIO()
    started = time.perf_counter()
    code = run_scorecard(["--repo", fake.repo, *WINDOW, "--format", "json", *extra], env, out, err)
    assert code == 0, err.getvalue()
    return out.getvalue(), time.perf_counter() - started


def report(label: str, merged: int, log: list, elapsed: float) -> None:  # type: ignore[type-arg]
    kinds: Counter[str] = Counter()
    per_pr: Counter[str] = Counter()
    for r in log:
        parts = r.route.split("/")
        if r.route.endswith("/issues/comments"):
            kinds["sweep"] += 1
        elif r.route.endswith("/comments"):
            kinds["per-PR"] += 1
            per_pr[parts[-2]] += 1
        else:
            kinds[parts[-1]] += 1
    limited = sum(1 for r in log if r.status != 304)
    most = max(per_pr.values(), default=0)
    print(
        f"{merged:>5} merged PRs, {label}: {len(log)} requests ({limited} rate-limited): "
        f"{kinds['pulls']} list pages + {kinds['sweep']} sweep pages + {kinds['per-PR']} per-PR "
        f"pages ({len(per_pr)} PRs, most {most}); {limited / merged:.3f} rate-limited a PR; "
        f"{elapsed:.1f} s"
    )


def measure(merged: int) -> None:
    with FakeGitHub() as fake, tempfile.TemporaryDirectory() as cache:
        populate(fake, merged)
        start = len(fake.request_log())
        cold, elapsed = run(fake)
        report("cold", merged, fake.request_log()[start:], elapsed)
        run(fake, "--cache", cache)
        start = len(fake.request_log())
        warm, elapsed = run(fake, "--cache", cache)
        report("warm (--cache)", merged, fake.request_log()[start:], elapsed)
        assert warm == cold
        fake.add_issue(10**6)
        for i in range((merged // 4 + 1) * 100):
            fake.add_issue_comment(10**6, login="octocat", user_type="User", body=f"flood {i}")
        start = len(fake.request_log())
        worst, elapsed = run(fake)
        report("worst (stickies buried)", merged, fake.request_log()[start:], elapsed)
        assert worst == cold


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--pulls", type=int, action="append")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    for merged in args.pulls or ([100] if args.quick else [100, 1000]):
        measure(merged)


if __name__ == "__main__":
    main()
