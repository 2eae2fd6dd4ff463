"""`reviewcoord status --repo OWNER/NAME [--as LOGIN] [--format table|json]` against GitHub.

Reads: the open PR list (every page), then each PR's issue comments (every page): one request
per 100 comments, so one per PR in the usual case; plus `GET /user` once when `--as` is not
given. No check run, status or re-judgement: a verdict is stale when the head its record
reviewed is not the PR's head (which the list item carries). Progress goes to stderr.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TextIO

from reviewcoord.cycles import ACTIONS_BOT
from reviewcoord.github.gateway import Gateway, PullInfo
from reviewcoord.status import StatusRow, render_table, row_for, sort_rows, to_json
from reviewcoord.terminal import Parser


def _parser() -> Parser:
    p = Parser(
        prog="reviewcoord status",
        description="List every open PR with its last published verdict (read from the "
        "sticky comments, not re-judged), blockers first.",
    )
    p.add_argument("--repo", help="OWNER/NAME (default: GITHUB_REPOSITORY)")
    p.add_argument(
        "--as",
        dest="login",
        metavar="LOGIN",
        help="whose sticky comments hold the verdicts (default: the token's user, else "
        f"{ACTIONS_BOT}); a sticky by anyone else is ignored",
    )
    p.add_argument(
        "--format",
        choices=["table", "json"],
        default="table",
        help="what to print (default: table)",
    )
    return p


class Progress:
    """One line on stderr per step; on a terminal, one line rewritten in place."""

    def __init__(self, err: TextIO) -> None:
        self.err = err
        isatty = getattr(err, "isatty", None)
        self.tty = bool(isatty and isatty())

    def say(self, text: str) -> None:
        self.err.write(f"reviewcoord status: {text}\n")
        self.err.flush()

    def abort(self) -> None:
        if self.tty:
            self.err.write("\n")
            self.err.flush()

    def step(self, done: int, total: int, number: int) -> None:
        text = f"reviewcoord status: reading PR {done}/{total} (#{number})"
        if self.tty:
            self.err.write(f"\r\x1b[K{text}" + ("\n" if done == total else ""))
        elif done == total or done == 1 or done % 25 == 0:
            self.err.write(text + "\n")
        self.err.flush()


def read_rows(gateway: Gateway, repo: str, login: str, progress: Progress) -> list[StatusRow]:
    """Every open PR's row, in list order (reads: module docstring)."""
    progress.say(f"listing the open pull requests of {repo}")
    pulls: list[PullInfo] = gateway.list_open_pulls()
    progress.say(f"{len(pulls)} open pull request{'s' if len(pulls) != 1 else ''}")
    rows = []
    try:
        for done, pull in enumerate(pulls, start=1):
            progress.step(done, len(pulls), pull.number)
            comments = gateway.list_issue_comments(pull.number)
            rows.append(row_for(pull, comments, login, repo=repo))
    except BaseException:
        progress.abort()  # the error (never a partial table) goes on a line of its own
        raise
    return rows


def run_status(argv: Sequence[str], env: Mapping[str, str], out: TextIO, err: TextIO) -> int:
    from reviewcoord.live import _gateway, _repo

    args = _parser().parse_args(list(argv))
    repo = _repo(args.repo, env)
    gateway = _gateway(repo, env)
    progress = Progress(err)
    login = args.login or gateway.whoami() or ACTIONS_BOT
    rows = sort_rows(read_rows(gateway, repo, login, progress))
    limited = getattr(gateway, "rate_limited_count", gateway.request_count)
    progress.say(f"{gateway.request_count} API requests ({limited} rate-limited)")
    if args.format == "json":
        json.dump(to_json(rows, repo=repo, login=login), out, indent=2, ensure_ascii=False)
        out.write("\n")
    else:
        out.write(render_table(rows, repo=repo, login=login))
    return 0
