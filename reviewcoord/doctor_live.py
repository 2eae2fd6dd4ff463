"""`reviewcoord doctor --repo OWNER/NAME [--prs N] [--format text|json]` against GitHub.

Reads: the open PR list (every page), then, for the N newest open PRs, the three comment lists
(every page): 1 + 3·N requests in the usual case. Exit 0 when every body of a known bot was
read, 1 when some body no rule reads (a format change: run it on a schedule as a canary).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TextIO

from reviewcoord.doctor import Report, render_text, tally, to_json
from reviewcoord.errors import EXIT_BLOCK, EXIT_OK
from reviewcoord.github.gateway import Gateway
from reviewcoord.terminal import Parser, count

DEFAULT_PRS = 20


def _parser() -> Parser:
    p = Parser(
        prog="reviewcoord doctor",
        description="Per bot, how many comments of the newest open PRs each rule read, and "
        "which bodies no rule read (with links): a canary for format changes.",
    )
    p.add_argument("--repo", help="OWNER/NAME (default: GITHUB_REPOSITORY)")
    p.add_argument(
        "--prs", type=count, default=DEFAULT_PRS, help=f"how many open PRs (default {DEFAULT_PRS})"
    )
    p.add_argument(
        "--format", choices=["text", "json"], default="text", help="what to print (default text)"
    )
    return p


def read_report(gateway: Gateway, repo: str, prs: int, err: TextIO) -> Report:
    pulls = sorted(gateway.list_open_pulls(), key=lambda p: p.number, reverse=True)[: max(prs, 0)]
    report = Report(repo=repo)
    for pull in pulls:
        err.write(f"reviewcoord doctor: reading #{pull.number}\n")
        comments = [
            *gateway.list_reviews(pull.number),
            *gateway.list_review_comments(pull.number),
            *gateway.list_issue_comments(pull.number),
        ]
        tally(report, pull.number, comments)
    return report


def run_doctor(argv: Sequence[str], env: Mapping[str, str], out: TextIO, err: TextIO) -> int:
    from reviewcoord.live import _gateway, _repo

    args = _parser().parse_args(list(argv))
    repo = _repo(args.repo, env)
    gateway = _gateway(repo, env)
    report = read_report(gateway, repo, args.prs, err)
    err.write(f"reviewcoord doctor: {gateway.request_count} API requests\n")
    if args.format == "json":
        json.dump(to_json(report), out, indent=2, ensure_ascii=False)
        out.write("\n")
    else:
        out.write(render_text(report))
    return EXIT_BLOCK if report.unread else EXIT_OK
