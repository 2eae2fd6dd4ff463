"""The CLI against GitHub: `reviewcoord <pr> --repo …` and `reviewcoord snapshot <pr> --repo …`."""

from __future__ import annotations

import argparse
import io
import json
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from typing import TextIO

from reviewcoord.actions_io import Log
from reviewcoord.config import DEFAULT_CONFIG_PATH, declared_scope
from reviewcoord.errors import (
    EXIT_BLOCK,
    EXIT_OK,
    EXIT_UNREADABLE,
    EXIT_USAGE,
    UsageError,
)
from reviewcoord.github.dry_run import DryRunGateway
from reviewcoord.reading import read_everything
from reviewcoord.runner import RunRequest, evaluate
from reviewcoord.settle import SystemClock
from reviewcoord.terminal import Parser, output_format, pr_number, print_verdict


def find_token(env: Mapping[str, str]) -> str:
    """GITHUB_TOKEN, then GH_TOKEN, then `gh auth token` (docs/interface.md §1)."""
    for name in ("GITHUB_TOKEN", "GH_TOKEN"):
        if env.get(name, "").strip():
            return env[name].strip()
    gh = shutil.which("gh")
    if gh:
        try:
            proc = subprocess.run(
                [gh, "auth", "token"], capture_output=True, text=True, timeout=15, check=False
            )
        except (OSError, subprocess.SubprocessError):
            proc = None
        if proc is not None and proc.returncode == 0 and proc.stdout.strip():
            return proc.stdout.strip()
    raise UsageError(
        "no GitHub token: set GITHUB_TOKEN or GH_TOKEN, or log in with `gh auth login`"
    )


def _repo(value: str | None, env: Mapping[str, str]) -> str:
    repo = (value or env.get("GITHUB_REPOSITORY", "")).strip()
    if not repo:
        raise UsageError("--repo OWNER/NAME is required (or set GITHUB_REPOSITORY)")
    if repo.count("/") != 1 or not all(repo.split("/")):
        where = "--repo" if value else "GITHUB_REPOSITORY"
        raise UsageError(f"{where} {repo[:80]!r} is not OWNER/NAME (e.g. octo/app)")
    return repo


def _gateway(repo: str, env: Mapping[str, str]):  # type: ignore[no-untyped-def]
    from reviewcoord.action import write_spacing
    from reviewcoord.github.pygithub_gateway import PyGithubGateway
    from reviewcoord.github.transport import api_url

    base_url = api_url(env)  # a malformed GITHUB_API_URL is named before anything else
    return PyGithubGateway(
        repo, find_token(env), base_url=base_url, write_spacing=write_spacing(env)
    )


def run_live(
    args: argparse.Namespace, inputs: Mapping[str, object], env: Mapping[str, str], out: TextIO
) -> int:
    repo = _repo(args.repo, env)
    gateway = _gateway(repo, env)
    log = Log(sys.stderr)
    log.mask(find_token(env))
    if args.dry_run and args.publish:
        raise UsageError(
            "--dry-run and --publish: choose one (--dry-run prints what --publish sends)"
        )
    if args.publish:
        who = gateway.whoami() or "the token's GitHub App (GET /user is not allowed for it)"
        print(
            f"reviewcoord: --publish: writing the sticky comment, commit status and check run "
            f"on {repo}#{args.pr} as {who}",
            file=sys.stderr,
        )
    elif not args.dry_run:
        # A read-only run: the writes are neither sent nor printed (--dry-run prints them).
        gateway = DryRunGateway(gateway, Log(io.StringIO()), "(you)")
    request = RunRequest(
        repo=repo,
        pr=args.pr,
        inputs=dict(inputs),
        input_source="command line",
        config_path=args.config or DEFAULT_CONFIG_PATH,
        identity_hint=None,
    )
    outcome = evaluate(request, gateway, SystemClock(), log)  # (it sets up a dry run itself)
    log.info(f"{gateway.request_count} API requests")
    if not args.publish and not args.dry_run:
        log.info("nothing was written to GitHub (add --publish to write the verdict)")
    if outcome.verdict is None:
        print(f"reviewcoord: error: no trustworthy verdict: {outcome.reason}", file=sys.stderr)
        return EXIT_USAGE if outcome.bad_input else EXIT_UNREADABLE
    configured = outcome.settings.format if outcome.settings else "both"
    with declared_scope(outcome.settings):  # the text names declared reviewers too
        print_verdict(outcome.verdict, output_format(args.format, configured, out), out, env)
    fail_on_block = outcome.settings.fail_on_block if outcome.settings else False
    return EXIT_BLOCK if fail_on_block and outcome.gate == "block" else EXIT_OK


def run_snapshot(argv: Sequence[str], env: Mapping[str, str], out: TextIO) -> int:
    from reviewcoord.snapshot import dump

    parser = Parser(
        prog="reviewcoord snapshot",
        usage="%(prog)s <pr> --repo OWNER/NAME > pr.json",
        description="Save a PR (its head and every comment) as JSON on stdout, for "
        "'reviewcoord <pr> --replay pr.json' (the snapshot format, docs/interface.md "
        "§ Snapshots). It holds every comment body: check it before you share it.",
    )
    parser.add_argument("pr", type=pr_number, metavar="<pr>", help="pull request number")
    parser.add_argument(
        "--repo", metavar="OWNER/NAME", help="the repository (default: $GITHUB_REPOSITORY)"
    )
    args = parser.parse_args(list(argv))
    repo = _repo(args.repo, env)
    gateway = _gateway(repo, env)
    pull = gateway.get_pull(args.pr)
    evidence, problem = read_everything(gateway, pull)
    if problem:  # optional in a snapshot: saved when readable
        print(f"reviewcoord: {problem}", file=sys.stderr)
    json.dump(dump(repo, pull, evidence), out, indent=2, ensure_ascii=False)
    out.write("\n")
    print(
        f"reviewcoord: the snapshot holds every comment body of {repo}#{args.pr} "
        f"({len(evidence.comments)} comments, and the rest of its reading), "
        "as anyone who can read the PR sees them: check it before you share it",
        file=sys.stderr,
    )
    return 0
