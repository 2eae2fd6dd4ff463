"""Command line and Action entry: the only place that reads argv and the process environment
and builds real clients. Every ReviewCoordError becomes one line on stderr and an exit code.

    reviewcoord <pr> --replay SNAPSHOT.json [--format text|json|comment|both] [--cycle N] [...]
    reviewcoord <pr> --repo OWNER/NAME [--settle fast|full|none] [--format …] [--publish] …
    reviewcoord snapshot <pr> --repo OWNER/NAME > pr.json
    reviewcoord status --repo OWNER/NAME [--format table|json]
    reviewcoord scorecard --repo OWNER/NAME [--since DATE] [--until DATE] [--format …] [--out FILE]
    reviewcoord doctor --repo OWNER/NAME [--prs N] [--format text|json]
    (no arguments, GITHUB_ACTIONS=true)  run as the GitHub Action
    python -m reviewcoord …              the same (reviewcoord/__main__.py)

Without --format: plain text on a terminal (terminal.output_format), else the configured format.
"""

from __future__ import annotations

import argparse
import difflib
import os
import sys
from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, TextIO

from reviewcoord import __version__
from reviewcoord.bots import reviewer_keys
from reviewcoord.config import (
    DEFAULT_CONFIG_PATH,
    MAX_CONFIG_BYTES,
    Settings,
    build_settings,
    declared_scope,
    parse_config_file,
)
from reviewcoord.errors import EXIT_BLOCK, EXIT_INTERNAL, EXIT_OK, ReviewCoordError, UsageError
from reviewcoord.model import BotKey
from reviewcoord.normalize import merged_table

if TYPE_CHECKING:
    pass
from reviewcoord.terminal import (
    FORMATS,
    Parser,
    count,
    output_format,
    pr_number,
    print_verdict,
    seconds,
)

# The real defaults, from the Settings model (so --help cannot drift from them).
_DEFAULTS = Settings()


USAGE = """%(prog)s [-h] [--version] <pr> [options]
       %(prog)s snapshot <pr> --repo OWNER/NAME > pr.json
       %(prog)s status --repo OWNER/NAME [--format table|json]
       %(prog)s scorecard --repo OWNER/NAME [--since DATE] [--format table|json|csv|svg]
       %(prog)s doctor --repo OWNER/NAME [--prs N]
       %(prog)s            (no arguments, inside GitHub Actions: run as the Action)"""


def _build_parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="reviewcoord",
        usage=USAGE,
        description="Judge the AI reviewers' comments on a PR: one verdict, one merge gate.",
        epilog="Subcommands: 'reviewcoord snapshot <pr> --repo OWNER/NAME > pr.json' saves a PR "
        "for --replay ('reviewcoord snapshot --help'); 'reviewcoord status --repo OWNER/NAME' "
        "lists every open PR's last verdict ('reviewcoord status --help'); 'reviewcoord scorecard "
        "--repo OWNER/NAME' scores the reviewers over the merged PRs ('reviewcoord scorecard "
        "--help'). Run with no "
        "arguments inside GitHub Actions to act as the Action. Output: on a terminal, without "
        "--format, the verdict in plain text (colour unless NO_COLOR is set); otherwise "
        f"--format (default {_DEFAULTS.format}).",
    )
    p.add_argument("pr", type=pr_number, metavar="<pr>", help="pull request number (12 or #12)")
    src = p.add_argument_group("where the PR comes from (one of)")
    src.add_argument(
        "--repo",
        metavar="OWNER/NAME",
        help="read the PR live from GitHub; with --replay it must be the snapshot's "
        "(default: $GITHUB_REPOSITORY)",
    )
    src.add_argument(
        "--replay",
        metavar="SNAPSHOT.json",
        help="judge a saved snapshot offline (no token; docs/interface.md § Snapshots) "
        "(default: none: read the PR live)",
    )
    src.add_argument(
        "--config-file",
        metavar="FILE",
        help="with --replay: a local copy of the repository's config file (its reviewers, "
        "severity overrides, packs), read as the base branch's would be (default: none)",
    )
    judge = p.add_argument_group("judging")
    judge.add_argument(
        "--cycle",
        type=count,
        metavar="N",
        help="review-cycle index (default: from the review history, else 1)",
    )
    judge.add_argument(
        "--expected-bots",
        metavar="BOTS",
        help=f"comma list of {', '.join(reviewer_keys())} (or logins), or auto: the known bots "
        f"seen on the repository (default: {','.join(_DEFAULTS.expected_bots)})",
    )
    judge.add_argument(
        "--require-bots",
        metavar="BOTS",
        help="comma list of bots that must have reviewed the head before the gate may be go "
        "(default: none)",
    )
    judge.add_argument(
        "--code-scanning",
        action="store_true",
        help="judge GitHub code scanning's open results on the PR; the gate is never go unless "
        "they were read (a replay: those its snapshot holds) (default: the config file's "
        "code-scanning, else off; a replay judges any its snapshot holds)",
    )
    out = p.add_argument_group("output")
    out.add_argument(
        "--format",
        choices=FORMATS,
        help="what to print (never what is published): text: plain verdict for people; json: "
        "the verdict JSON; comment: the sticky's Markdown; both: comment, ---, JSON (default: "
        f"text on a terminal, else {_DEFAULTS.format})",
    )
    out.add_argument(
        "--fail-on-block",
        action="store_true",
        help="exit 1 when the gate is block (default: exit 0)",
    )
    _add_live_flags(p.add_argument_group("live runs only (an error with --replay)"))
    p.add_argument("--version", action="version", version=f"reviewcoord {__version__}")
    return p


def _add_live_flags(live: argparse._ArgumentGroup) -> None:
    live.add_argument(
        "--settle",
        choices=["fast", "full", "none"],
        help="fast: wait for the fast bots or --fast-timeout; full: every expected bot or "
        f"--full-timeout; none: judge now (default: {_DEFAULTS.settle})",
    )
    live.add_argument(
        "--fast-timeout",
        type=seconds,
        metavar="SECONDS",
        help=f"longest wait with --settle fast, in seconds (default: {_DEFAULTS.fast_timeout})",
    )
    live.add_argument(
        "--full-timeout",
        type=seconds,
        metavar="SECONDS",
        help=f"longest wait with --settle full, in seconds (default: {_DEFAULTS.full_timeout})",
    )
    live.add_argument(
        "--poll-interval",
        type=count,
        metavar="SECONDS",
        help=f"seconds between reads while settling (default: {_DEFAULTS.poll_interval})",
    )
    live.add_argument(
        "--config",
        metavar="PATH",
        help="config file in the repository, read from the base branch "
        f"(default: {DEFAULT_CONFIG_PATH})",
    )
    live.add_argument(
        "--publish",
        action="store_true",
        help="write the verdict to the PR: the sticky comment, the commit status and the check "
        "run, as the token's user (it says who first) (default: off: read and print only)",
    )
    live.add_argument(
        "--dry-run",
        action="store_true",
        help="read, judge, and print every payload --publish would send; write nothing "
        "(default: off)",
    )


def _cli_inputs(args: argparse.Namespace) -> dict[str, object]:
    # `--format` is what is printed, never a setting: what --publish writes is the config's.
    # Without --publish a live run writes nothing (a dry run that prints no payloads).
    return {
        "cycle": args.cycle,
        "settle": args.settle,
        "expected-bots": args.expected_bots,
        "require-bots": args.require_bots,
        "fast-timeout": args.fast_timeout,
        "full-timeout": args.full_timeout,
        "poll-interval": args.poll_interval,
        "dry-run": True if args.dry_run or not getattr(args, "publish", False) else None,
        "fail-on-block": True if args.fail_on_block else None,
        "code-scanning": True if args.code_scanning else None,
    }


def expected_for_replay(settings: Settings, seen: Collection[BotKey]) -> list[BotKey]:
    """`auto` in a replay = the known bots the snapshot shows reviewing (every known bot
    if none: an empty expected set must never mean an instant `go`) plus any named explicitly, and
    every `require-bots` bot. Reviewers only, as live (`resolve.resolve_expected`)."""
    named = {*settings.explicit_expected, *settings.require_bots}
    if not settings.auto_expected:
        return [b for b in reviewer_keys() if b in named]
    found = [b for b in reviewer_keys() if b in seen] or list(reviewer_keys())
    return [b for b in reviewer_keys() if b in found or b in named]


# Flags that only mean something against GitHub: with --replay they are an error, not ignored.
LIVE_ONLY = {
    "settle": "--settle",
    "config": "--config",
    "fast_timeout": "--fast-timeout",
    "full_timeout": "--full-timeout",
    "poll_interval": "--poll-interval",
    "dry_run": "--dry-run",
    "publish": "--publish",
}


def _refuse_live_only(args: argparse.Namespace) -> None:
    given = [flag for name, flag in LIVE_ONLY.items() if getattr(args, name) not in (None, False)]
    if given:
        raise UsageError(
            f"{', '.join(given)}: only for a live run against GitHub; a replay judges the "
            "snapshot as saved (drop the flag or --replay)"
        )


def run_replay(args: argparse.Namespace, out: TextIO, env: Mapping[str, str] | None = None) -> int:
    _refuse_live_only(args)
    args.publish = True  # a replay writes nothing anyway: no dry-run input for it
    file_values, file_source = _local_config(args.config_file)
    settings = build_settings(
        file_values, _cli_inputs(args), file_source=file_source, input_source="command line"
    )
    with declared_scope(settings):  # the file's declared reviewers are bots like the others
        return _judge_snapshot(args, settings, out, env)


def _local_config(path: str | None) -> tuple[dict[str, object], str]:
    """The config file a replay is judged under (`--config-file`), as the base branch's copy
    would be read: the same keys, the same errors naming the file."""
    if path is None:
        return {}, "(no config file)"
    try:
        with open(path, "rb") as handle:
            content = handle.read(4 * MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise UsageError(f"--config-file {path}: cannot read it: {exc.strerror}") from None
    return parse_config_file(content, path), path


def _judge_snapshot(
    args: argparse.Namespace, settings: Settings, out: TextIO, env: Mapping[str, str] | None
) -> int:
    from reviewcoord import snapshot
    from reviewcoord.ingest import ingest
    from reviewcoord.pipeline import verdict_from
    from reviewcoord.reading import for_replay

    snap = snapshot.load(args.replay)
    if args.repo and args.repo.strip().casefold() != snap.repo.casefold():
        raise UsageError(
            f"--repo {args.repo[:80]!r}: the snapshot {args.replay} is of {snap.repo}; drop "
            "--repo (a replay judges the snapshot's repository) or replay that repository's"
        )
    if snap.pull.number != args.pr:
        raise UsageError(f"{args.replay}: the snapshot is PR {snap.pull.number}, not PR {args.pr}")
    evidence = for_replay(snap.evidence, snap.pull.number, code_scanning=settings.code_scanning)
    ingested = ingest(
        evidence.comments,
        head_sha=snap.pull.head_sha,
        pr_by_bot=snap.pull.author_type.casefold() == "bot",
        table=merged_table(settings.severity),
        evidence=evidence,
    )
    verdict = verdict_from(
        ingested,
        repo=snap.repo,
        pr=snap.pull.number,
        head_sha=snap.pull.head_sha,
        cycle=settings.cycle or 1,
        settle="none",
        expected=expected_for_replay(settings, ingested.reviewing),
        group_window=settings.group_window,
        severity_overrides=settings.severity,
        required=settings.required,
    )
    print_verdict(verdict, output_format(args.format, settings.format, out), out, env)
    return EXIT_BLOCK if settings.fail_on_block and verdict.gate == "block" else EXIT_OK


# The subcommands `main` dispatches on (a first argument that is neither a PR nor a flag).
SUBCOMMANDS = ("snapshot", "status", "scorecard", "doctor")


def _refuse_unknown_command(argv: Sequence[str]) -> None:
    """`reviewcoord statuss` is a mistyped subcommand, not a bad PR number."""
    first = argv[0] if argv else ""
    if not first or first.startswith("-") or first.lstrip("#").isdigit():
        return
    close = difflib.get_close_matches(first, SUBCOMMANDS, n=1, cutoff=0.6)
    if close:
        raise UsageError(
            f"unknown command {first[:40]!r} (did you mean '{close[0]}'?) "
            "(see `reviewcoord --help`)"
        )
    raise UsageError(
        f"PR number must be a positive integer, got {first[:40]!r} (or a command: "
        f"{', '.join(SUBCOMMANDS)}) (see `reviewcoord --help`)"
    )


def main(
    argv: Sequence[str] | None = None,
    environ: Mapping[str, str] | None = None,
    stdout: TextIO | None = None,
) -> int:
    env = os.environ if environ is None else environ
    out = sys.stdout if stdout is None else stdout
    args_list = list(sys.argv[1:] if argv is None else argv)
    try:
        if not args_list and env.get("GITHUB_ACTIONS") == "true":
            from reviewcoord.action import run_action

            return run_action(env)
        if args_list and args_list[0] == "snapshot":
            from reviewcoord.live import run_snapshot

            return run_snapshot(args_list[1:], env, out)
        if args_list and args_list[0] == "doctor":
            from reviewcoord.doctor_live import run_doctor

            return run_doctor(args_list[1:], env, out, sys.stderr)
        if args_list and args_list[0] == "status":
            from reviewcoord.status_live import run_status

            return run_status(args_list[1:], env, out, sys.stderr)
        if args_list and args_list[0] == "scorecard":
            from reviewcoord.scorecard.live import run_scorecard

            return run_scorecard(args_list[1:], env, out, sys.stderr)
        _refuse_unknown_command(args_list)
        args = _build_parser().parse_args(args_list)
        if args.replay:
            return run_replay(args, out, env)
        if args.config_file:
            raise UsageError(
                "--config-file: only with --replay; a live run reads the config file from the "
                "PR's base branch (--config names its path there)"
            )
        from reviewcoord.live import run_live

        return run_live(args, _cli_inputs(args), env, out)
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
