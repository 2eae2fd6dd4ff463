"""What a reviewer *is*: one typed profile per bot, the only place a bot is defined.

A profile names the bot (key, display name, every login spelling), reads its comments (`parse`:
one comment → findings and a run-state signal), maps its raw labels onto our scale (`severity`,
keyed by `canonical_label`), says how long settle waits for it (`pack`; `none` for a source
that is read once, not waited for), how a person asks it
again (`rerequest`), its quirks (`skips_bot_prs`, `repeats_findings`), and what it reads
beyond its comments (`reads`: its own check runs, statuses, reactions, a source's list) with
what that means (`evidence`, reviewcoord/bots/checks.py). Everything else — the
registry, the packs, the display names, the default severity table, every "all known bots"
message — is derived from the registered profiles (reviewcoord/bots/registry.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from reviewcoord.bots.checks import EvidenceReader
from reviewcoord.model import Level, ParsedComment, RawComment
from reviewcoord.reading import Kind

# The account a reviewer posts from: a GitHub App (`type: Bot`, REST login `name[bot]`) or, for
# a declared reviewer that really runs as a person's account, a user (`type: User`).
Account = Literal["bot", "user"]
ACCOUNT_TYPES: dict[Account, str] = {"bot": "Bot", "user": "User"}


def graphql_spelling(login: str) -> str:
    """How GraphQL spells a REST login: an App's `name[bot]` without its suffix."""
    return login.removesuffix("[bot]")


# How long settle waits for a reviewer; `none`: a source that is read, not waited for (code
# scanning: never in a pack, never expected, never pending).
ReviewerPack = Literal["fast", "slow"]
Pack = Literal[ReviewerPack, "none"]

_STRIP = re.compile(r"[*_`]+")
_SEVERITY_WORD = re.compile(r"\s+(severity|priority)$")


def plain_label(raw: str) -> str:
    """The usual canonical form of a raw label: `**High Severity**` → `high`."""
    text = _STRIP.sub("", raw.strip()).strip().casefold()
    return _SEVERITY_WORD.sub("", text)


_EMPHASIS_EDGES = "*_` \t"
SHOWN_LABEL_MAX = 40


def plain_shown_label(raw: str) -> str:
    """How a raw label is shown in a spread: as written, without the Markdown emphasis around
    it (`_🔴 Critical_` → `🔴 Critical`, `**High Severity**` → `High Severity`)."""
    shown = " ".join(raw.strip(_EMPHASIS_EDGES).split())
    return shown[:SHOWN_LABEL_MAX] or raw.strip()[:SHOWN_LABEL_MAX]


@dataclass(frozen=True)
class Tracker:
    """A comment the bot edits in place while it works (Claude's task list, Codex's status
    table, CodeRabbit's summary under review). The workflow's trigger logic starts no run for
    such a comment of the bot while it reads as working: it holds a `working` marker and no
    `done` one (scripts/generated.py writes them into .github/workflows/judge.yml).
    Markers are the bot's own framing, read only in comments by its logins; its finished body
    must hold no `working` marker (or hold a `done` one), or its last edit would start no run."""

    working: tuple[str, ...]
    done: tuple[str, ...] = ()


@dataclass(frozen=True)
class BotProfile:
    key: str  # what users write in `expected-bots`: lowercase letters, digits, '-'
    display: str  # how the verdict names it
    # The logins REST returns for it (`name[bot]`, Copilot's `Copilot`), on an account of type
    # `account`: identity is login *and* type (GraphQL's suffix-less spellings are derived).
    logins: frozenset[str]
    parse: Callable[[RawComment], ParsedComment]
    # Canonical raw label → level (docs/severity.md); a label not in it, or none, is `medium`.
    severity: Mapping[str, Level] = field(default_factory=dict)
    canonical_label: Callable[[str], str] = plain_label
    # The raw label as a person reads it in the spread (`Gemini:high`, not its badge markup);
    # the verdict JSON keeps `severity_raw` exactly as written.
    shown_label: Callable[[str], str] = plain_shown_label
    pack: Pack = "fast"
    rerequest: str = ""  # "re-request with `@codex review`"
    # How `rerequest: true` asks it again (reviewcoord/rerequest.py), as its own documentation
    # says (docs/bot-formats.md § Re-requesting): the comment to post, or the login to request a
    # review from. Both empty: it is never asked automatically.
    trigger: str = ""
    review_login: str = ""
    skips_bot_prs: str | None = None  # why it never reviews a PR opened by a bot, if it does not
    account: Account = "bot"
    # Each of its reviews covers the whole PR and repeats every finding still present, so a
    # finding missing from its review of a new head is evidence of a fix (judgement/evidence.py
    # `re-review`). Declared only with a source, written in docs/bot-formats.md § Repeats
    # findings; False (the default) for an incremental reviewer such as CodeRabbit.
    repeats_findings: bool = False
    # The parts of a reading it needs beyond its comments (reviewcoord/reading.py), and what
    # they say about its run on the head (and, for a source, its findings): checks.py.
    reads: frozenset[Kind] = frozenset()
    evidence: EvidenceReader | None = None
    # The comment it edits in place while it works, if it keeps one (`Tracker`).
    tracker: Tracker | None = None
