"""What GitHub's Markdown shows outside code, for the tests that check mentions and HTML."""

from __future__ import annotations

import re

_TICKS = re.compile(r"`+")


def outside_code(text: str) -> str:
    """`text` without its code spans and `<code>` elements (where GitHub neither links mentions
    nor parses HTML), scanned as CommonMark does: a backslash outside code escapes the next
    backtick, but inside a code span a backslash is literal (so `` `@x\\` `` is a code span);
    a run of backticks is closed by the next run of the same length on the same line."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        if text.startswith("<code>", i):
            end = text.find("</code>", i)
            if end >= 0:
                i = end + len("</code>")
                continue
        char = text[i]
        if char == "\\" and i + 1 < n and text[i + 1] in "\\`":
            out.append("  ")
            i += 2
            continue
        if char != "`":
            out.append(char)
            i += 1
            continue
        run = _TICKS.match(text, i)
        assert run is not None
        line_end = text.find("\n", run.end())
        line_end = n if line_end < 0 else line_end
        closer = next(
            (
                m
                for m in _TICKS.finditer(text, run.end(), line_end)
                if len(m.group()) == len(run.group())
            ),
            None,
        )
        if closer is None:
            out.append(run.group())
            i = run.end()
        else:
            i = closer.end()
    return "".join(out)
