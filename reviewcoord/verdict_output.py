"""The `verdict` output: the verdict JSON on one line, cut to fit GitHub's output limit.

`fromJSON(steps.<id>.outputs.verdict)` needs valid JSON, so a verdict too large for the output is
cut structurally (never mid-string): first the `sources` of every finding, then the tails of the
lists, the least important first (critical findings last), and as a last resort everything but
the scalar fields. A cut verdict says so: `"truncated": true`, `"truncated_reason"` (what was left
out and why), `"truncated_omitted"` (how many items per field) and `"full_verdict_file"` (the
uncut file, always written whole).
"""

from __future__ import annotations

import json
import re
from typing import Any, NamedTuple

# GitHub's limit: "Outputs can be a maximum of 1 MB per job. The total of all outputs in a workflow
# run can be a maximum of 50 MB. Size is approximated based on UTF-16 encoding." (GitHub Docs,
# workflow syntax, `jobs.<job_id>.outputs`; the text of docs' reusable output-limitations.md since
# github/docs#36846, March 2025). The runner does not check step outputs itself; the limit bites
# when a workflow maps `verdict` into `jobs.<id>.outputs` for another job. We read "1 MB" as the
# smaller 1,000,000 bytes and let `verdict` use at most half of it, so our other outputs and other
# steps' outputs of the same job still fit.
GITHUB_JOB_OUTPUT_LIMIT = 1_000_000  # bytes, UTF-16 estimate
VERDICT_OUTPUT_BUDGET = GITHUB_JOB_OUTPUT_LIMIT // 2

# The order lists are cut in, most expendable first: notes and cycle history, the advisory
# findings, any list not named here, the critical findings, and last the short bot lists that say
# which reviews the verdict rests on (a few bot keys each: they hardly ever need cutting).
_FIRST = ("parse_notes", "command_notes", "changes", "accepted", "advisory", "unknown_bots")
_LAST = ("critical", "expected_bots", "unreviewed", "pending", "settled_on")
_FINDING_LISTS = ("critical", "advisory")
# Strings kept in the last-resort verdict are clipped to this many characters.
_SCALAR_CLIP = 2000

_SURROGATE = re.compile("[\ud800-\udfff]")


def scrub(value: Any) -> Any:
    """`value` with lone surrogates (not encodable as UTF-8) replaced by U+FFFD, at any depth."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value) if not value.isascii() else value
    if isinstance(value, list):
        return [scrub(v) for v in value]
    if isinstance(value, dict):
        return {scrub(k): scrub(v) for k, v in value.items()}
    return value


def one_line(data: Any) -> str:
    """Compact JSON, ASCII only: every newline, control, U+2028/U+2029 and non-ASCII character is a
    `\\uXXXX` escape, so the value is one line whichever line breaks a reader splits on, and no
    value line can equal a heredoc delimiter (it starts with `{`)."""
    return json.dumps(data, ensure_ascii=True, separators=(",", ":"))


def output_size(value: str) -> int:
    """Bytes as GitHub estimates an output: UTF-16."""
    return len(value.encode("utf-16-le", "surrogatepass"))


class VerdictLine(NamedTuple):
    text: str  # one line of JSON
    truncated: bool  # cut to fit: the text says what is missing


def verdict_output(
    data: dict[str, Any], *, full_file: str, budget: int = VERDICT_OUTPUT_BUDGET
) -> VerdictLine:
    """`data` (a verdict or gate-error object) as one line of JSON within `budget` bytes."""
    data = scrub(data)
    line = one_line(data)
    size = output_size(line)
    if size <= budget:
        return VerdictLine(line, False)
    return VerdictLine(_Cut(data, full_file=full_file, size=size, budget=budget).run(), True)


class _Cut:
    def __init__(self, data: dict[str, Any], *, full_file: str, size: int, budget: int) -> None:
        self.data = data
        self.full_file = full_file
        self.size = size
        self.budget = budget

    def _marked(self, candidate: dict[str, Any], omitted: dict[str, int], steps: list[str]) -> str:
        reason = (
            f"the verdict JSON is {self.size} bytes (UTF-16, as GitHub counts outputs), over this "
            f"output's budget of {self.budget}: {'; '.join(steps) or 'cut'}. The whole verdict is "
            "in full_verdict_file."
        )
        marked = {
            **candidate,
            "truncated": True,
            "truncated_reason": reason,
            "truncated_omitted": omitted,
            "full_verdict_file": self.full_file,
        }
        return one_line(marked)

    def _fits(self, line: str) -> bool:
        return output_size(line) <= self.budget

    def run(self) -> str:
        current: dict[str, Any] = dict(self.data)
        omitted: dict[str, int] = {}
        steps: list[str] = []

        # 1. The sources of every finding (bot, raw label, URL): the findings themselves stay.
        dropped = 0
        for key in _FINDING_LISTS:
            findings = current.get(key)
            if isinstance(findings, list):
                stripped = []
                for f in findings:
                    if isinstance(f, dict) and f.get("sources"):
                        dropped += len(f["sources"]) if isinstance(f["sources"], list) else 1
                        f = {**f, "sources": []}
                    stripped.append(f)
                current[key] = stripped
        if dropped:
            omitted["sources"] = dropped
            steps.append(f"left out the sources of every finding ({dropped})")
        line = self._marked(current, omitted, steps)
        if self._fits(line):
            return line

        # 2. The tails of the lists, the most expendable first.
        lists = [k for k, v in current.items() if isinstance(v, list) and v]
        order = [k for k in _FIRST if k in lists]
        order += [k for k in lists if k not in _FIRST and k not in _LAST]
        order += [k for k in _LAST if k in lists]
        for key in order:
            items: list[Any] = current[key]
            keep = self._longest_prefix(current, key, items, omitted, steps)
            if keep == len(items):
                continue
            current[key] = items[:keep]
            omitted[key] = len(items) - keep
            steps.append(_kept(key, keep, len(items)))
            line = self._marked(current, omitted, steps)
            if self._fits(line):
                return line

        # 3. Last resort: the scalar fields (strings clipped), every list and object emptied.
        minimal: dict[str, Any] = {}
        for key, value in self.data.items():
            if isinstance(value, str):
                minimal[key] = value[:_SCALAR_CLIP]
            elif isinstance(value, list):
                minimal[key] = []
                if value:
                    omitted[key] = len(value)
            elif isinstance(value, dict):
                minimal[key] = {}
            else:
                minimal[key] = value
        steps = [f"kept only the scalar fields (strings clipped to {_SCALAR_CLIP} characters)"]
        line = self._marked(minimal, omitted, steps)
        if self._fits(line):
            return line
        # Unreachable with the verdict's few scalar fields and a budget of any sensible size; still
        # valid JSON that says why.
        return one_line(
            {
                "gate": str(self.data.get("gate", "error"))[:16],
                "truncated": True,
                "truncated_reason": "the verdict does not fit this output",
                "full_verdict_file": self.full_file[:_SCALAR_CLIP],
            }
        )

    def _longest_prefix(
        self,
        current: dict[str, Any],
        key: str,
        items: list[Any],
        omitted: dict[str, int],
        steps: list[str],
    ) -> int:
        """The most items of `current[key]` that fit (binary search; 0 if none does)."""

        def fits(n: int) -> bool:
            trial_omitted = {**omitted, key: len(items) - n} if n < len(items) else omitted
            trial_steps = [*steps, _kept(key, n, len(items))] if n < len(items) else steps
            return self._fits(self._marked({**current, key: items[:n]}, trial_omitted, trial_steps))

        if fits(len(items)):
            return len(items)
        lo, hi = 0, len(items) - 1  # the answer is in [lo, hi]; fits(lo) is not yet known
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if fits(mid):
                lo = mid
            else:
                hi = mid - 1
        while lo > 0 and not fits(lo):  # the reason's digits can make the size non-monotonic
            lo -= 1
        return lo


def _kept(key: str, kept: int, total: int) -> str:
    return f"kept the first {kept} of {total} {key}"
