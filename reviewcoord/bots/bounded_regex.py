"""Regexes a repository writes (declared reviewers, reviewcoord/bots/declared.py), kept from
hanging a run.

Python's `re` has no timeout and backtracks: `(a+)+$` on 32 `a`s and a `b` runs for minutes.
Two defences:

* at config load, `problem` refuses a pattern that does not compile, matches the empty string,
  uses a backreference, or nests repeats the classic exponential way (a repeat inside a repeat:
  `(a+)+`, `(a*)*`, `(.*a)*`, `(\\w+\\s?)+`) — then it runs the pattern on a few adversarial
  strings under a short time bound, which catches what the static look misses (`(a|a)*b`);
* at match time, `within` bounds the CPU time of one piece of work. CPython's matcher checks
  for signals as it runs, so a SIGVTALRM from `setitimer(ITIMER_VIRTUAL)` whose handler raises
  stops a runaway match. The timer counts this process's own CPU time, not the clock on the
  wall: a runner busy with other work neither refuses a sound pattern nor turns a comment into
  an "out of time" finding (a runaway match burns CPU, so it is still caught). Signals are
  delivered to the main thread only: elsewhere the work runs unbounded (the static check and
  the `MAX_TEXT` cap are then all there is).
"""

from __future__ import annotations

import re
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType
from typing import TYPE_CHECKING, Any, TypeVar, cast

if TYPE_CHECKING:  # `re._parser` is `sre_parse` renamed (3.11); only the old name has stubs
    import sre_parse as _parser
else:
    from re import _parser

T = TypeVar("T")

MAX_TEXT = 65_536  # characters of a body a declared pattern is matched against
PROBE_SECONDS = 0.25  # all the adversarial strings of one pattern, at config load
_PROBE_LENGTH = 1_000  # long enough that exponential and cubic patterns blow up, quadratic not
_PROBE_CHARS = "aA0 \t\n_-.*#`!/<"
_MAX_PROBES = 40
_REPEATS = frozenset({_parser.MAX_REPEAT, _parser.MIN_REPEAT, _parser.POSSESSIVE_REPEAT})
_BACKREFS = frozenset({_parser.GROUPREF, _parser.GROUPREF_EXISTS})


@dataclass(frozen=True)
class OutOfTime:
    """What `within` returns when the work ran out of time."""

    seconds: float


class _Alarm(Exception):
    pass


def _raise_alarm(_signum: int, _frame: FrameType | None) -> None:
    raise _Alarm


def _can_bound() -> bool:
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


@contextmanager
def _alarm(seconds: float) -> Iterator[None]:
    """SIGVTALRM after `seconds` of this process's CPU time; the previous handler and timer are
    restored afterwards (a timer that was running resumes with what it had left, at least a
    moment)."""
    started = time.process_time()
    previous = signal.signal(signal.SIGVTALRM, _raise_alarm)
    old_delay, old_interval = signal.setitimer(signal.ITIMER_VIRTUAL, seconds)
    try:
        yield
    finally:
        try:  # nested: a late alarm raised here must not skip restoring the handler
            signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        finally:
            signal.signal(signal.SIGVTALRM, previous)
            if old_delay > 0:
                left = max(old_delay - (time.process_time() - started), 1e-3)
                signal.setitimer(signal.ITIMER_VIRTUAL, left, old_interval)


def within(seconds: float, work: Callable[[], T]) -> T | OutOfTime:
    """`work()`, or `OutOfTime` when it used more than `seconds` of CPU (main thread only)."""
    if not _can_bound():
        return work()
    try:
        with _alarm(seconds):
            return work()
    except _Alarm:
        return OutOfTime(seconds)


def _subpatterns(av: Any) -> Iterator[_parser.SubPattern]:
    """The sub-patterns inside one parsed item's argument (groups, branches, lookarounds)."""
    if isinstance(av, _parser.SubPattern):
        yield av
    elif isinstance(av, tuple | list):
        for item in av:
            yield from _subpatterns(item)


def _shape_problem(sub: _parser.SubPattern, outer: bool | None = None) -> str | None:
    """Why the parsed pattern can backtrack exponentially, if it can by its shape. `outer` is
    None outside any repeat of more than one, else whether such a repeat is unbounded."""
    for op, av in sub.data:
        if op in _BACKREFS:
            return "uses a backreference or a conditional group; they are not allowed"
        inner = outer
        if op in _REPEATS:
            low, high, _body = cast(tuple[int, int, Any], av)
            unbounded = high == _parser.MAXREPEAT
            if outer is not None and (unbounded or (outer and low != high and high > 1)):
                return (
                    "has a repeat inside a repeat (like `(a+)+` or `(.*a)*`), which can take "
                    "exponential time; write it without the nested repeat"
                )
            if high > 1:
                inner = bool(outer) or unbounded
        for child in _subpatterns(av):
            found = _shape_problem(child, inner)
            if found:
                return found
    return None


def _literals(sub: _parser.SubPattern) -> Iterator[str]:
    for op, av in sub.data:
        if op is _parser.LITERAL:
            yield chr(cast(int, av))
        for child in _subpatterns(av):
            yield from _literals(child)


def probes(sub: _parser.SubPattern) -> list[str]:
    """Adversarial strings: long runs of one character the pattern names (or a usual one),
    ended by one it cannot expect — where backtracking patterns spend their time."""
    chars = dict.fromkeys([*_literals(sub), *_PROBE_CHARS])
    return [c * _PROBE_LENGTH + "\x00" for c in list(chars)[:_MAX_PROBES]]


def problem(pattern: str, flags: int = 0) -> str | None:
    """Why `pattern` may not be used (one line), or None."""
    try:
        compiled = re.compile(pattern, flags)
        parsed = _parser.parse(pattern, flags)
    except (re.error, RecursionError, OverflowError) as exc:
        return f"does not compile: {exc}"
    shape = _shape_problem(parsed)
    if shape:
        return shape
    if parsed.getwidth()[0] == 0:
        return "matches the empty string, so it would match every comment"
    probed = within(PROBE_SECONDS, lambda: [compiled.search(s) for s in probes(parsed)])
    if isinstance(probed, OutOfTime):
        return (
            f"took longer than {PROBE_SECONDS * 1000:.0f} ms on a test string, so it can "
            "backtrack for a very long time; simplify it"
        )
    return None
