"""The verdict as plain text for a terminal: no HTML marker, no Markdown escapes.

Rendered from `templates/plain.txt.j2` in a Jinja2 environment of its own (the Markdown one's
filters escape for GitHub, which a terminal would show literally). Every bot-derived value goes
through a filter here that removes control characters (ESC included: a bot must never move the
cursor, recolour or retitle the reader's terminal), format characters and line breaks, via
`safe.clean`. The only escape sequences in the output are ours, from `colour`, and only when
the caller asks for colour.
"""

from __future__ import annotations

from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, pass_context
from jinja2.runtime import Context

import reviewcoord.render.safe as safe
from reviewcoord.bots import REGISTRY
from reviewcoord.model import Verdict
from reviewcoord.render.rows import bot_rows

# Our styles, SGR codes only (https://en.wikipedia.org/wiki/ANSI_escape_code#SGR).
STYLES = {
    "bold": "1",
    "dim": "2",
    "red": "31",
    "green": "32",
    "yellow": "33",
    "cyan": "36",
    "block": "1;31",
    "go": "1;32",
}
RESET = "\x1b[0m"
# Findings listed per section; the rest are counted ("--format json" lists every one).
MAX_LISTED = 50


@pass_context
def _colour(ctx: Context, text: str, style: str) -> str:
    """`text` wrapped in the SGR code for `style` when the render has colour on, else as is."""
    if not ctx.get("colour") or not text:
        return text
    return f"\x1b[{STYLES[style]}m{text}{RESET}"


def _text(value: object, limit: int | None = 200) -> str:
    return safe.clean(None if value is None else str(value), limit)


def _bot(name: str | None) -> str:
    if name is not None and REGISTRY.get(name) is not None:
        return REGISTRY.display(name)
    return safe.clean(name, 60) or "unknown"


def _bots(names: list[str], limit: int = 20) -> str:
    if not names:
        return "none"
    shown = ", ".join(_bot(n) for n in names[:limit])
    hidden = len(names) - limit
    return f"{shown} and {hidden:,} more" if hidden > 0 else shown


def _url(url: str | None) -> str:
    """A plain https URL, or "" (a hostile or odd URL is not printed at all)."""
    return safe.safe_url(url) or ""


def _location(file: str | None, line: int | None, line_end: int | None = None) -> str:
    if not file:
        return ""
    where = safe.clean(file, 300)
    if line is not None:
        where += f":{line}"
        if line_end is not None and line_end > line:
            where += f"-{line_end}"
    return where


_ENV = Environment(
    loader=PackageLoader("reviewcoord", "render/templates"),
    undefined=StrictUndefined,
    autoescape=False,  # plain text: each value is cleaned by a filter below instead
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
)
_ENV.filters.update(
    text=_text,
    bot=_bot,
    label=safe.shown_label,
    bots=_bots,
    url=_url,
    sha=safe.short_sha,
    colour=_colour,
)
_ENV.globals.update(location=_location)


def plain_text(verdict: Verdict, *, colour: bool = False) -> str:
    """The verdict for a person at a terminal; ANSI colour only when `colour` is true."""
    context: dict[str, Any] = {
        "verdict": verdict,
        "rows": bot_rows(verdict),
        "critical": verdict.critical[:MAX_LISTED],
        "advisory": verdict.advisory[:MAX_LISTED],
        "colour": colour,
    }
    return _ENV.get_template("plain.txt.j2").render(context)
