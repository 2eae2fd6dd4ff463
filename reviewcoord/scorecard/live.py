"""`reviewcoord scorecard --repo OWNER/NAME [--since DATE] [--until DATE] [--format …]
[--out FILE] [--cache DIR] [--as LOGIN]` against GitHub: the edge of the scorecard.

Reads (docs/performance.md § Scorecard): the closed PRs, 100 a page, newest update first, until
a page reaches past the window (`Gateway.list_closed_pulls`); then our stickies from the
repository's conversation comments, 100 a page, newest update first (`Gateway.sweep_stickies`),
for as long as each page finds at least one of them on average; then, for each merged PR whose
sticky the sweep did not find, the first page of its conversation comments, and the last page
too when there are more (`Gateway.sticky_candidates`). So at most 2 requests a PR, plus the list
pages and one sweep page; usually far fewer (100 PRs' stickies in a few pages). Plus `GET /user`
once without `--as`. With `--cache DIR` those first and last pages are kept with their ETags across
runs: an unchanged page answers 304, which costs no rate limit. Any failed read fails the run
(never a partial scorecard); the output file is replaced whole, never half-written.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime, time, timedelta
from pathlib import Path
from typing import Any, TextIO

from reviewcoord.cycles import ACTIONS_BOT
from reviewcoord.errors import UsageError
from reviewcoord.github.gateway import ClosedPull, Gateway, StickyCandidates
from reviewcoord.history import decode
from reviewcoord.model import RawComment
from reviewcoord.publish.sticky import ours
from reviewcoord.render.safe import plain
from reviewcoord.scorecard.figures import PrRecord, scorecard
from reviewcoord.scorecard.render import RENDERERS
from reviewcoord.terminal import Parser

DEFAULT_DAYS = 90
PROGRESS_OVER = 20  # a progress bar for more PRs than this
SWEEP_SHARE = 4  # the sweep is read through when it has at most 1 page per 4 merged PRs
FORMATS = tuple(RENDERERS)
_SUFFIX_FORMAT = {".json": "json", ".csv": "csv", ".svg": "svg", ".txt": "table"}


def _parser() -> Parser:
    p = Parser(
        prog="reviewcoord scorecard",
        description="Which AI reviewer earns its cost: per reviewer, what became of its findings "
        "on the PRs merged in a window, read from our sticky comments' records (nothing is "
        "re-judged).",
    )
    p.add_argument("--repo", help="OWNER/NAME (default: GITHUB_REPOSITORY)")
    p.add_argument(
        "--since",
        metavar="DATE",
        help=f"first day of the window, YYYY-MM-DD or an ISO time (default: {DEFAULT_DAYS} days "
        "before --until)",
    )
    p.add_argument(
        "--until", metavar="DATE", help="last day of the window, inclusive (default: now)"
    )
    p.add_argument(
        "--format",
        choices=FORMATS,
        help="json (the contract), table, csv or svg (default: from --out's suffix, else table "
        "on a terminal, else json)",
    )
    p.add_argument("--out", metavar="FILE", help="write there instead of stdout (replaced whole)")
    p.add_argument(
        "--cache",
        metavar="DIR",
        help="keep the pages read with their ETags in DIR: a later run pays no rate limit for "
        "what did not change (default: no cache)",
    )
    p.add_argument(
        "--as",
        dest="login",
        metavar="LOGIN",
        help="whose sticky comments hold the records (default: the token's user, else "
        f"{ACTIONS_BOT}); a sticky by anyone else is ignored",
    )
    return p


def parse_when(value: str, flag: str, *, end_of_day: bool) -> datetime:
    """A window bound: a date (its first or, for --until, last second) or an ISO time (UTC
    when it names no zone)."""
    text = value.strip()
    try:
        if len(text) == 10:
            day = datetime.strptime(text, "%Y-%m-%d").date()
            clock = time(23, 59, 59) if end_of_day else time(0, 0, 0)
            return datetime.combine(day, clock, tzinfo=UTC)
        stamp = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(f"{flag} {value[:40]!r}: not a date (YYYY-MM-DD) or an ISO time") from None
    return stamp if stamp.tzinfo else stamp.replace(tzinfo=UTC)


def window(since: str | None, until: str | None, now: datetime) -> tuple[datetime, datetime]:
    end = parse_when(until, "--until", end_of_day=True) if until else now.replace(microsecond=0)
    start = (
        parse_when(since, "--since", end_of_day=False)
        if since
        else end - timedelta(days=DEFAULT_DAYS)
    )
    if start > end:
        raise UsageError("--since is after --until: the window is empty")
    return start, end


def in_window(pull: ClosedPull, since: datetime, until: datetime) -> bool:
    """Merged (else closed) within the window."""
    when = pull.merged_at or pull.closed_at
    return when is not None and since <= when <= until


class Bar:
    """A progress bar on stderr, shown only for more than PROGRESS_OVER PRs: one line
    rewritten in place on a terminal, else a line every tenth of the way."""

    def __init__(self, err: TextIO, total: int) -> None:
        self.err, self.total = err, total
        isatty = getattr(err, "isatty", None)
        self.tty = bool(isatty and isatty())
        self.shown = total > PROGRESS_OVER

    def step(self, done: int) -> None:
        if not self.shown:
            return
        filled = done * 30 // self.total
        text = f"reviewcoord scorecard: [{'#' * filled}{'.' * (30 - filled)}] {done}/{self.total}"
        if self.tty:
            self.err.write(f"\r\x1b[K{text}" + ("\n" if done == self.total else ""))
        elif done == self.total or done * 10 // self.total != (done - 1) * 10 // self.total:
            self.err.write(text + "\n")
        self.err.flush()

    def abort(self) -> None:
        if self.shown and self.tty:
            self.err.write("\n")
            self.err.flush()


def _unjudged(number: int, login: str, found: StickyCandidates) -> str:
    others = sorted({c.author_login for c in found.comments})
    why = f"no sticky comment by {plain(login, 100)}"
    if others:
        why += f"; one by {plain(', '.join(others[:3]), 120)} is ignored (see --as)"
    if found.skipped_pages:
        why += " in its first and last page of comments (the pages between were not read)"
    return f"#{number}: unjudged: {why}"


def record_of(
    repo: str, number: int, sticky: RawComment | None, note: Callable[[str], None]
) -> PrRecord:
    """A merged PR and the record of our newest sticky (None: unjudged, with a note)."""
    if sticky is None:
        return PrRecord(number=number, merged=True, record=None)
    record, notice = decode(sticky.body, repo=repo, pr=number)
    if record is None:
        note(f"#{number}: unjudged: {notice or 'our sticky comment carries no record'}")
    return PrRecord(number=number, merged=True, record=record)


def sweep(
    gateway: Gateway, login: str, since: datetime, wanted: Sequence[int]
) -> dict[int, RawComment]:
    """Our newest sticky of each wanted PR, from the repository's comments newest update first.
    A sticky is last updated after its PR was opened, so `since` (the oldest wanted PR's
    creation) reaches every one. Read on past its first page only when the whole sweep has at
    most one page per SWEEP_SHARE wanted PRs (its first page says how many it has): then it
    costs at most that share of the per-PR reads it spares, and it stops once it has them all."""
    want = set(wanted)
    found: dict[int, RawComment] = {}
    limit = max(1, len(want) // SWEEP_SHARE)
    for number_of_page, page in enumerate(gateway.sweep_stickies(since), start=1):
        for number, comment in page.comments:
            if number in want and ours([comment], login):
                kept = found.get(number)
                if kept is None or comment.id > kept.id:
                    found[number] = comment
        if len(found) == len(want):
            break
        if number_of_page == 1 and (page.pages is None or page.pages > limit):
            break
    return found


def read_pulls(
    gateway: Gateway,
    repo: str,
    login: str,
    since: datetime,
    until: datetime,
    err: TextIO,
) -> list[PrRecord]:
    say = _say(err)
    closed = [p for p in gateway.list_closed_pulls(since) if in_window(p, since, until)]
    merged = sorted((p for p in closed if p.merged_at is not None), key=lambda p: p.number)
    say(f"{len(merged)} merged PRs in the window ({len(closed) - len(merged)} closed unmerged)")
    out = [PrRecord(number=p.number, merged=False, record=None) for p in closed if not p.merged_at]
    if not merged:
        return out
    opened = min((p.created_at or since for p in merged), default=since)
    swept = sweep(gateway, login, min(opened, since), [p.number for p in merged])
    say(f"{len(swept)} stickies found in the repository's comments; reading the other PRs")
    bar = Bar(err, len(merged))
    try:
        for done, pull in enumerate(merged, start=1):
            sticky = swept.get(pull.number)
            if sticky is None:
                found = gateway.sticky_candidates(pull.number)
                mine = ours(found.comments, login)
                sticky = mine[0] if mine else None
                if sticky is None:
                    say(_unjudged(pull.number, login, found))
            out.append(record_of(repo, pull.number, sticky, say))
            bar.step(done)
    except BaseException:
        bar.abort()  # the error (never a partial scorecard) goes on a line of its own
        raise
    return out


def _say(err: TextIO) -> Callable[[str], None]:
    def say(text: str) -> None:
        err.write(f"reviewcoord scorecard: {text}\n")
        err.flush()

    return say


def _cache_file(directory: str, repo: str) -> Path:
    return Path(directory) / f"scorecard-{repo.replace('/', '+')}.json"


def load_cache(gateway: Any, path: Path, say: Callable[[str], None]) -> None:
    """Reuse a cache file; a missing one starts empty, an unreadable one is ignored (noted)."""
    if not path.exists():
        return
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        say(f"cache {path} ignored: unreadable ({type(exc).__name__})")
        return
    say(f"cache: {gateway.reuse_pages(data)} pages from {path}")


def write_whole(path: Path, text: str) -> None:
    """`text` to `path` through a temporary file in the same directory: never half-written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def output_format(given: str | None, out_file: str | None, out: TextIO) -> str:
    """`--format`, else `--out`'s suffix, else table on a terminal and json elsewhere. With
    `--out`, its suffix must name a format and agree with `--format`, and its directory must
    exist: a chart never lands as JSON in `report.pdf`, nor in a folder made by a typo."""
    if out_file:
        path = Path(out_file)
        by_suffix = _SUFFIX_FORMAT.get(path.suffix.lower())
        suffixes = ", ".join(_SUFFIX_FORMAT)
        if by_suffix is None:
            raise UsageError(f"--out {out_file}: its suffix names no format; use one of {suffixes}")
        if given and given != by_suffix:
            raise UsageError(
                f"--out {out_file} is a {by_suffix} file name but --format is {given}: "
                "make them agree, or leave --format out"
            )
        if not path.parent.is_dir():
            raise UsageError(f"--out {out_file}: the directory {path.parent} does not exist")
        return by_suffix
    if given:
        return given
    isatty = getattr(out, "isatty", None)
    return "table" if isatty and isatty() else "json"


def run_scorecard(
    argv: Sequence[str],
    env: Mapping[str, str],
    out: TextIO,
    err: TextIO = sys.stderr,
    now: Callable[[], datetime] = lambda: datetime.now(UTC),
) -> int:
    from reviewcoord.live import _gateway, _repo

    args = _parser().parse_args(list(argv))
    repo = _repo(args.repo, env)
    since, until = window(args.since, args.until, now())
    fmt = output_format(args.format, args.out, out)
    say = _say(err)
    gateway = _gateway(repo, env)
    cache = _cache_file(args.cache, repo) if args.cache else None
    if cache is not None:
        load_cache(gateway, cache, say)
    login = args.login or gateway.whoami() or ACTIONS_BOT
    say(f"PRs of {repo} merged {since:%Y-%m-%d %H:%M} … {until:%Y-%m-%d %H:%M} UTC")
    try:
        pulls = read_pulls(gateway, repo, login, since, until, err)
    finally:
        # Kept even when a read failed (a rate limit spent, say): the next run pays nothing for
        # the pages read so far that did not change.
        if cache is not None:
            write_whole(cache, json.dumps(gateway.cached_pages(), separators=(",", ":")))
    text = RENDERERS[fmt](scorecard(repo, since, until, pulls))
    limited = getattr(gateway, "rate_limited_count", gateway.request_count)
    say(f"{gateway.request_count} API requests ({limited} rate-limited)")
    if args.out:
        write_whole(Path(args.out), text)
    else:
        out.write(text)
    return 0
