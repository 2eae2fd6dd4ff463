"""Command line and Action entry: the only place that reads argv and the process environment
and builds real clients. Every ReviewCoordError becomes one line on stderr and an exit code.

    reviewcoord <pr> --replay SNAPSHOT.json [--format json|comment|both] [--cycle N] [...]
    reviewcoord <pr> --repo OWNER/NAME [--settle fast|full|none] [--format …] [--dry-run] …
    reviewcoord snapshot <pr> --repo OWNER/NAME > pr.json
    (no arguments, GITHUB_ACTIONS=true)  run as the GitHub Action
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from typing import TextIO

from reviewcoord import __version__
from reviewcoord.bots import bot_keys
from reviewcoord.config import Settings, build_settings
from reviewcoord.errors import EXIT_BLOCK, EXIT_INTERNAL, EXIT_OK, ReviewCoordError, UsageError
from reviewcoord.model import BotKey
from reviewcoord.normalize import merged_table
from reviewcoord.terminal import Parser, pr_number, print_verdict


def _build_parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="reviewcoord",
        description="Judge the AI reviewers' comments on a PR: one verdict, one merge gate.",
        epilog="Also: 'reviewcoord snapshot <pr> --repo OWNER/NAME > pr.json' saves a PR for "
        "--replay. Run with no arguments inside GitHub Actions to act as the Action.",
    )
    p.add_argument("pr", type=pr_number, help="pull request number")
    p.add_argument("--repo", help="OWNER/NAME (default: GITHUB_REPOSITORY)")
    p.add_argument("--replay", metavar="SNAPSHOT.json", help="judge a saved snapshot offline")
    p.add_argument("--cycle", type=int, help="review-cycle index (default 1)")
    p.add_argument("--settle", choices=["fast", "full", "none"], help="when to read (live only)")
    p.add_argument("--format", choices=["json", "comment", "both"], help="what to print")
    p.add_argument("--expected-bots", help="comma list of codex, copilot, cursor, claude, or auto")
    p.add_argument(
        "--require-bots",
        help="comma list of bots that must have reviewed the head before the gate may be go",
    )
    p.add_argument("--config", help="config file path in the repo (live only)")
    p.add_argument("--fast-timeout", type=int)
    p.add_argument("--full-timeout", type=int)
    p.add_argument("--poll-interval", type=int)
    p.add_argument("--dry-run", action="store_true", help="print every payload, write nothing")
    p.add_argument("--fail-on-block", action="store_true", help="exit 1 when the gate is block")
    p.add_argument("--version", action="version", version=f"reviewcoord {__version__}")
    return p


def _cli_inputs(args: argparse.Namespace) -> dict[str, object]:
    return {
        "cycle": args.cycle,
        "settle": args.settle,
        "format": args.format,
        "expected-bots": args.expected_bots,
        "require-bots": args.require_bots,
        "fast-timeout": args.fast_timeout,
        "full-timeout": args.full_timeout,
        "poll-interval": args.poll_interval,
        "dry-run": True if args.dry_run else None,
        "fail-on-block": True if args.fail_on_block else None,
    }


def expected_for_replay(settings: Settings, seen: Mapping[BotKey, int]) -> list[BotKey]:
    """`auto` in a replay = the known bots that wrote anything in the snapshot (every known bot
    if none: an empty expected set must never mean an instant `go`) plus any named explicitly, and
    every `require-bots` bot."""
    named = {*settings.explicit_expected, *settings.require_bots}
    if not settings.auto_expected:
        return [b for b in bot_keys() if b in named]
    found = [b for b in bot_keys() if seen.get(b)] or list(bot_keys())
    return [b for b in bot_keys() if b in found or b in named]


# Flags that only mean something against GitHub: with --replay they are an error, not ignored.
LIVE_ONLY = {
    "settle": "--settle",
    "config": "--config",
    "fast_timeout": "--fast-timeout",
    "full_timeout": "--full-timeout",
    "poll_interval": "--poll-interval",
    "dry_run": "--dry-run",
}


def _refuse_live_only(args: argparse.Namespace) -> None:
    given = [flag for name, flag in LIVE_ONLY.items() if getattr(args, name) not in (None, False)]
    if given:
        raise UsageError(
            f"{', '.join(given)}: only for a live run against GitHub; a replay judges the "
            "snapshot as saved (drop the flag or --replay)"
        )


def run_replay(args: argparse.Namespace, out: TextIO) -> int:
    from reviewcoord import snapshot
    from reviewcoord.ingest import ingest
    from reviewcoord.pipeline import verdict_from

    _refuse_live_only(args)
    settings = build_settings(
        {}, _cli_inputs(args), file_source="(no config file)", input_source="command line"
    )
    snap = snapshot.load(args.replay)
    if snap.pull.number != args.pr:
        raise UsageError(f"{args.replay}: the snapshot is PR {snap.pull.number}, not PR {args.pr}")
    ingested = ingest(
        snap.comments,
        head_sha=snap.pull.head_sha,
        pr_by_bot=snap.pull.author_type.casefold() == "bot",
        table=merged_table(settings.severity),
    )
    verdict = verdict_from(
        ingested,
        repo=args.repo or snap.repo,
        pr=snap.pull.number,
        head_sha=snap.pull.head_sha,
        cycle=settings.cycle or 1,
        settle="none",
        expected=expected_for_replay(settings, ingested.seen),
        group_window=settings.group_window,
        severity_overrides=settings.severity,
        required=settings.require_bots,
    )
    print_verdict(verdict, settings.format, out)
    return EXIT_BLOCK if settings.fail_on_block and verdict.gate == "block" else EXIT_OK


def main(argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> int:
    env = os.environ if environ is None else environ
    args_list = list(sys.argv[1:] if argv is None else argv)
    try:
        if not args_list and env.get("GITHUB_ACTIONS") == "true":
            from reviewcoord.action import run_action

            return run_action(env)
        if args_list and args_list[0] == "snapshot":
            from reviewcoord.live import run_snapshot

            return run_snapshot(args_list[1:], env, sys.stdout)
        if args_list and args_list[0] == "status":
            from reviewcoord.status_live import run_status

            return run_status(args_list[1:], env, sys.stdout, sys.stderr)
        args = _build_parser().parse_args(args_list)
        if args.replay:
            return run_replay(args, sys.stdout)
        from reviewcoord.live import run_live

        return run_live(args, _cli_inputs(args), env, sys.stdout)
    except ReviewCoordError as exc:
        print(f"reviewcoord: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("reviewcoord: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except Exception as exc:
        if env.get("REVIEWCOORD_DEBUG"):
            raise
        print(
            f"reviewcoord: internal error: {type(exc).__name__}: {str(exc)[:300]} "
            "(set REVIEWCOORD_DEBUG=1 for a traceback)",
            file=sys.stderr,
        )
        return EXIT_INTERNAL


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
