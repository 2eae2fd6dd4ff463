"""Cost of a declared reviewer (interface §7 `reviewers:`): checking its regexes at config load,
and reading one comment with them (every pattern, under the per-comment time bound).

Bodies are real ones from the bot corpus (tests/fixtures/bots/corpus.jsonl), re-authored as the
declared bot's, grouped by size; plus the 65,536-character worst case the matcher ever sees.
Best of R runs; not a test: numbers go to docs/performance.md.

    python bench/declared_match.py
    python bench/declared_match.py --quick      # fewer runs
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reviewcoord.bots import bounded_regex, parse_comment
from reviewcoord.bots.declared import FLAGS, MATCH_SECONDS
from reviewcoord.config import build_settings, declared_scope, parse_config_file
from reviewcoord.model import Endpoint, RawComment
from tests.declared_support import KILO_CONFIG, KILO_LOGIN

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests/fixtures/bots/corpus.jsonl"
PATTERNS = [
    r"^\*\*(Critical|Warning|Info)\*\*",
    "No issues found",
    "^## Review complete",
    r"\w+ issues? found",
]
SIZES = [(0, 1_000), (1_000, 10_000), (10_000, 70_000)]
ENDPOINTS = ("review", "review_comment", "issue_comment")


def best(runs: int, work: Callable[[], object]) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def bodies() -> dict[tuple[int, int], list[tuple[Endpoint, str]]]:
    groups: dict[tuple[int, int], list[tuple[Endpoint, str]]] = {size: [] for size in SIZES}
    for line in CORPUS.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        if entry["endpoint"] not in ENDPOINTS:
            continue
        for low, high in SIZES:
            if low <= len(entry["body"]) < high:
                groups[(low, high)].append((entry["endpoint"], entry["body"]))
    return groups


def read_all(items: list[tuple[Endpoint, str]]) -> None:
    for n, (endpoint, body) in enumerate(items):
        raw = RawComment(endpoint=endpoint, id=n, author_login=KILO_LOGIN, body=body, path="a.py")
        parse_comment("kilo", raw)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    runs = 3 if parser.parse_args().quick else 9
    print("Config load: bounded_regex.problem (compile, shape check, probes), per pattern")
    for pattern in PATTERNS:
        seconds = best(runs, partial(bounded_regex.problem, pattern, FLAGS))
        print(f"  {pattern!r:42} {seconds * 1000:7.2f} ms")
    load = best(runs, lambda: parse_config_file(KILO_CONFIG))
    print(f"  the whole example config file (parse_config_file): {load * 1000:.1f} ms")
    settings = build_settings(
        parse_config_file(KILO_CONFIG), {}, file_source="bench", input_source="bench"
    )
    print("\nOne comment read by the declared parser (all 6 regexes, time-bounded), per comment")
    with declared_scope(settings):
        for (low, high), items in bodies().items():
            seconds = best(runs, partial(read_all, items))
            per = seconds / max(1, len(items)) * 1e6
            print(f"  {len(items):4} corpus bodies of {low:>6,}-{high:>6,} chars: {per:8.1f} µs")
        worst: list[tuple[Endpoint, str]] = [("review", "word " * (bounded_regex.MAX_TEXT // 5))]
        seconds = best(runs, partial(read_all, worst))
        print(
            f"     1 body of {bounded_regex.MAX_TEXT:,} chars (the cap) of prose: "
            f"{seconds * 1e6:8.1f} µs"
        )
    bound = best(runs * 100, lambda: bounded_regex.within(MATCH_SECONDS, lambda: None))
    print(f"\nThe time bound alone (setitimer + handler, set and restored): {bound * 1e6:.1f} µs")
    slow = best(1, lambda: re.search(r"\w+ issues? found", "a" * bounded_regex.MAX_TEXT))
    print(
        f"Unbounded, a quadratic pattern on {bounded_regex.MAX_TEXT:,} word characters: "
        f"{slow:.2f} s (bounded: {MATCH_SECONDS * 1000:.0f} ms, then a medium finding)"
    )


if __name__ == "__main__":
    main()
