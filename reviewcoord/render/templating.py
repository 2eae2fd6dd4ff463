"""The Jinja2 environment every Markdown body is rendered in, and how a body gets its template.

Autoescape is off (the output is Markdown, not HTML); every untrusted value goes through an
explicit filter from `reviewcoord.render.safe` instead.
"""

from __future__ import annotations

from collections.abc import Callable

from jinja2 import Environment, PackageLoader, StrictUndefined, Template

import reviewcoord.render.safe as safe

_ENV = Environment(
    loader=PackageLoader("reviewcoord", "render/templates"),
    undefined=StrictUndefined,
    # Markdown, not HTML: escaping is done per value by the filters below, on purpose.
    autoescape=False,
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
)
_ENV.filters.update(
    text=safe.md_text,
    plain=safe.plain,
    code=safe.code,
    link=safe.link,
    bot=safe.bot,
    label=safe.label,
    bots=safe.bots,
    logins=safe.logins,
    sha=safe.short_sha,
)
_ENV.globals.update(location=safe.location)


def load_template(name: str) -> Template:
    """The named template from `templates/`."""
    return _ENV.get_template(name)


# A seam: tests swap it to prove the sticky's marker check bites, so every body goes through
# `template`, which looks it up at call time.
source: Callable[[str], Template] = load_template


def template(name: str) -> Template:
    """The named template (through `source`)."""
    return source(name)
