"""Consolidation cost: N findings from the four bots → one verdict.

Findings are real inline bodies from examples/*.json (Codex, Copilot, Cursor, Claude) spread
over files and lines. Reports parse (ingest) and consolidate (normalise + group + rank + gate)
separately, best of R runs. Not a test: numbers go to the closing note / docs.

    python bench/consolidate.py                 # 10,000 findings
    python bench/consolidate.py --sizes 1000,10000,100000
    python bench/consolidate.py --quick         # CI: 10,000, one run
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from reviewcoord.ingest import ingest
from reviewcoord.model import RawComment
from reviewcoord.pipeline import verdict_from
from reviewcoord.rest import raw_comment

ROOT = Path(__file__).resolve().parents[1]
HEAD = "9f1c2e4b7a0d3c5e8f6a1b2c3d4e5f60718293a4"


def templates() -> list[dict[str, object]]:
    items: list[dict[str, object]] = []
    for path in sorted((ROOT / "examples").glob("*.json")):
        items.extend(json.loads(path.read_text())["review_comments"])
    claude = {
        "user": {"login": "claude[bot]", "type": "Bot"},
        "body": "🔴 The retry loop never terminates when the server keeps answering 502.\n\n"
        "<details><summary>Extended reasoning...</summary>\n\nbecause…\n</details>",
    }
    items.append(claude)
    return items


def comments(n: int) -> list[RawComment]:
    base = templates()
    out = []
    for i in range(n):
        t = dict(base[i % len(base)])
        t.update(
            id=10_000 + i,
            path=f"src/module_{i % 400}.py",
            line=1 + (i * 7) % 2000,
            original_line=1 + (i * 7) % 2000,
            commit_id=HEAD,
            original_commit_id=HEAD,
            html_url=f"https://github.com/octo/app/pull/1#discussion_r{10_000 + i}",
        )
        out.append(raw_comment("review_comment", t))
    return out


def measure(n: int, repeats: int) -> tuple[float, float, int]:
    raws = comments(n)
    best_parse = best_consolidate = float("inf")
    groups = 0
    for _ in range(repeats):
        t0 = time.perf_counter()
        ingested = ingest(raws, head_sha=HEAD)
        t1 = time.perf_counter()
        verdict = verdict_from(
            ingested,
            repo="octo/app",
            pr=1,
            head_sha=HEAD,
            cycle=1,
            settle="none",
            expected=["codex", "copilot", "cursor", "claude"],
        )
        t2 = time.perf_counter()
        best_parse = min(best_parse, t1 - t0)
        best_consolidate = min(best_consolidate, t2 - t1)
        groups = len(verdict.critical) + len(verdict.advisory)
    return best_parse, best_consolidate, groups


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10000")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    sizes = [10_000] if args.quick else [int(s) for s in args.sizes.split(",")]
    repeats = 1 if args.quick else args.repeats
    print(f"{'findings':>9} {'parse s':>9} {'consolidate s':>14} {'total s':>8} {'groups':>7}")
    for n in sizes:
        parse_s, cons_s, groups = measure(n, repeats)
        print(f"{n:>9} {parse_s:>9.3f} {cons_s:>14.3f} {parse_s + cons_s:>8.3f} {groups:>7}")


if __name__ == "__main__":
    main()
