"""Evidence beyond comments, as a profile declares it: a reviewer's own check runs and commit
statuses, its reactions on the PR, a source's list (code scanning's alerts).

A profile says what it reads (`BotProfile.reads`, kinds of reviewcoord/reading.py) and gives
one function, `BotProfile.evidence`, from the reading to what it says (`FromEvidence`). For the
usual case — a check run or status the bot's app keeps on the head — it declares `Check`s and
uses `from_checks`: identity is the app (a check run's `app.slug`, a status's creator login and
type), never the name alone, since any workflow can name a check anything.

What a check says is a run state (interface §5) the comments may overrule (ingest combines
them: a comment's notice wins; comments decide findings):

* `working` — queued or in progress: settle waits for it, within its timeouts;
* `reviewed` — done with nothing to say (Bugbot's success, Greptile's "0 comments added");
* `finishing` — done with something to say, its comments not read yet: waited for like a
  tracker's Completed (`finishing-grace`), so a go never outruns the review it announces;
* `failed` / `skipped` — its own words (a quota or usage limit, a skip).

A check made by an app anyone's workflow runs as (`github-actions`) can only ever say
`working`: it may make us wait, never count as a review or a failure.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from reviewcoord.binding import HeadFacts, Signal, binds_to_head
from reviewcoord.github.gateway import CheckRunRef, CommitStatusRef, Reaction
from reviewcoord.model import BotKey, Finding, ParseNote
from reviewcoord.reading import Evidence, Kind

SaidState = Literal["working", "reviewed", "finishing", "failed", "skipped"]
# Apps whose check runs any workflow of the repository (or of a PR's branch) can create.
SHARED_APPS = frozenset({"github-actions"})


@dataclass(frozen=True)
class Said:
    """What one piece of evidence says about a bot's run on the head."""

    state: SaidState
    detail: str
    url: str = ""
    when: datetime | None = None


@dataclass(frozen=True)
class FromEvidence:
    """What a profile reads from the parts of a reading beyond its comments."""

    said: Said | None = None
    # None: its comments' findings stand. A list: they are the bot's findings instead (a source
    # read completely, code scanning).
    findings: list[Finding] | None = None
    notes: tuple[ParseNote, ...] = ()
    seen: int = 0
    # `said` is the bot's state whatever its comments signal (a source's own read).
    decides: bool = False


@dataclass(frozen=True)
class EvidenceContext:
    """What a profile's `evidence` function is given besides the reading."""

    logins: frozenset[str]
    findings: Sequence[Finding] = ()  # the bot's findings from its comments
    bot: BotKey = ""
    # What binds a signal to the head (reviewcoord/binding.py); None: nothing that names no
    # commit binds.
    facts: HeadFacts | None = None


EvidenceReader = Callable[[Evidence, EvidenceContext], FromEvidence]


@dataclass(frozen=True)
class CheckView:
    """A check run or a commit status, in one shape."""

    status: Literal["queued", "in_progress", "completed"]
    conclusion: str  # success, failure, neutral, cancelled, …; "" until completed
    title: str
    summary: str
    url: str
    when: datetime | None


@dataclass(frozen=True)
class Check:
    """One check run (or commit status: `status=True`) a reviewer's app keeps on the head."""

    name: str  # the check run's name / the status's context
    app: str  # the check run's app slug / the status creator's login
    meaning: Callable[[CheckView], Said | None]
    status: bool = False


def _run_view(run: CheckRunRef) -> CheckView:
    status = run.status if run.status in ("queued", "in_progress") else "completed"
    return CheckView(
        status=status,  # type: ignore[arg-type]  # narrowed above
        conclusion=(run.conclusion or "") if status == "completed" else "",
        title=run.title or "",
        summary=run.summary or "",
        url=run.html_url,
        when=run.completed_at or run.started_at,
    )


def _status_view(status: CommitStatusRef) -> CheckView:
    pending = status.state == "pending"
    return CheckView(
        status="in_progress" if pending else "completed",
        conclusion="" if pending else status.state,
        title=status.description or "",
        summary="",
        url=status.target_url or "",
        when=status.updated_at,
    )


def _runs_of(check: Check, runs: Sequence[CheckRunRef]) -> list[CheckRunRef]:
    return [r for r in runs if r.name == check.name and r.app_slug == check.app]


def _statuses_of(check: Check, statuses: Sequence[CommitStatusRef]) -> list[CommitStatusRef]:
    login = check.app if check.app.endswith("[bot]") else f"{check.app}[bot]"
    return [
        s
        for s in statuses
        if s.context == check.name
        and s.creator_login == login
        and (s.creator_type or "").casefold() == "bot"
    ]


def said_by_check(check: Check, evidence: Evidence) -> Said | None:
    """What `check` says on the head: its newest run (or status), read by its meaning."""
    if check.status:
        # GitHub lists statuses newest first.
        statuses = _statuses_of(check, evidence.statuses or ())
        views = [_status_view(s) for s in statuses[:1]]
    else:
        runs = sorted(_runs_of(check, evidence.check_runs or ()), key=lambda r: r.id)
        if check.app in SHARED_APPS:
            # Anyone's workflow can make this one: any run still going makes us wait; a
            # completed one says nothing (the bot's own review decides).
            going = [r for r in runs if _run_view(r).status != "completed"]
            return _working(check, _run_view(going[-1])) if going else None
        views = [_run_view(r) for r in runs[-1:]]
    if not views:
        return None
    view = views[0]
    if view.status != "completed":
        return _working(check, view)
    return check.meaning(view)


def _working(check: Check, view: CheckView) -> Said:
    what = "commit status" if check.status else "check run"
    return Said(
        "working", f"its {what} `{check.name}` is {view.status.replace('_', ' ')}", view.url
    )


@dataclass(frozen=True)
class CheckReader:
    """A profile's `evidence` from its checks: the first one that says something (a check run
    before the legacy status, as the profile orders them). The checks stay readable: the
    workflow's trigger logic starts a run when one of their apps completes a check run
    (`Registry.check_apps`, scripts/generated.py)."""

    checks: tuple[Check, ...]

    def __call__(self, evidence: Evidence, context: EvidenceContext) -> FromEvidence:
        for check in self.checks:
            said = said_by_check(check, evidence)
            if said is not None:
                return FromEvidence(said=said)
        return FromEvidence()


def from_checks(*checks: Check) -> EvidenceReader:
    """A profile's `evidence` from its checks (`CheckReader`)."""
    return CheckReader(checks)


def kinds_of(*checks: Check) -> frozenset[Kind]:
    """What a profile with these checks reads."""
    return frozenset("statuses" if c.status else "check_runs" for c in checks)


def reactions_by(evidence: Evidence, context: EvidenceContext) -> list[Reaction]:
    """The bot's own reactions on the PR that speak for the head, oldest first. Identity is
    login and type, as for comments; a reaction names no commit, so it binds by GitHub's clock
    and what proves the bot works on this head (reviewcoord/binding.py `binds_to_head`)."""
    facts = context.facts
    if facts is None:
        return []
    mine = [
        r
        for r in evidence.reactions or ()
        if r.user_login in context.logins
        and r.user_type.casefold() == "bot"
        and binds_to_head(Signal(context.bot, "reaction", when=r.created_at), facts)
    ]
    return sorted(mine, key=lambda r: (r.created_at or datetime.min.replace(tzinfo=UTC), r.id))


def finishing_or_failed(view: CheckView, what: str = "check") -> Said:
    """A completed check that does not say more: `success`/`neutral` — its review and comments
    follow (finishing); any other conclusion — it could not review (`failed`), in its words."""
    said = (view.title or view.summary).strip()[:200]
    if view.conclusion in ("success", "neutral"):
        return Said("finishing", f"its {what} says {said or view.conclusion}", view.url)
    why = f": {said}" if said else ""
    return Said("failed", f"its {what} ended {view.conclusion}{why}", view.url, view.when)
