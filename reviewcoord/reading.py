"""A reading: all the evidence of one PR head, read in one step (`read_comments`, `read_parts`).

Its parts are the three comment lists (always), and what the profiles of the bots in play ask
for (`BotProfile.reads`): the head's check runs of every app, its commit statuses, the PR's
reactions, the code-scanning alerts of its merge commit. Each part is read completely — every
page, conditional requests (an unchanged list costs a 304, no rate limit), failing closed like
every read: a part that could not be read raises GatewayError, except the alerts, whose failure
is itself evidence (`AlertRead.problem`: code scanning then could not review the head).

`None` for a part means nobody asked for it. Ingest asks the profiles what the parts mean
(reviewcoord/ingest.py); the snapshot keeps every part in GitHub's own shapes
(`parts_to_json` / `parts_from_json`), so a replay judges exactly what a live run read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from reviewcoord import rest
from reviewcoord.actions_io import Log
from reviewcoord.errors import GatewayError
from reviewcoord.github.gateway import CheckRunRef, CommitStatusRef, Gateway, PullInfo, Reaction
from reviewcoord.model import RawComment

# What a profile may ask to read beyond the comments (which every profile reads).
Kind = Literal["check_runs", "statuses", "reactions", "alerts"]
KINDS: tuple[Kind, ...] = ("check_runs", "statuses", "reactions", "alerts")
# Parts that only tell a bot's run state (never findings): read while a bot that declares them
# has not finished by its comments.
STATE_ONLY: frozenset[Kind] = frozenset({"check_runs", "statuses", "reactions"})


def merge_ref(pr: int) -> str:
    """The ref whose code-scanning alerts are the PR's: GitHub analyses the merge commit on
    `pull_request`; its docs: "To reference a pull request use `refs/pull/<number>/merge`"."""
    return f"refs/pull/{pr}/merge"


@dataclass(frozen=True)
class AlertRead:
    """One read of the PR's code-scanning alerts: every page of the open and the dismissed ones
    (`alerts`, GitHub's JSON, judged by reviewcoord/bots/code_scanning.py), or why they do not
    speak for the head (`problem`: not analysed yet, not readable)."""

    ref: str
    alerts: Sequence[Any] | None = None
    problem: str = ""
    pending: bool = False  # the problem is that the merge commit's analyses are not all in
    # The PR's author: an alert they dismissed themselves still counts.
    author: str = ""

    @property
    def complete(self) -> bool:
        return self.alerts is not None


@dataclass(frozen=True)
class Evidence:
    """The parts of one reading. `None`: not asked for (no profile in play reads it)."""

    comments: tuple[RawComment, ...] = ()
    check_runs: tuple[CheckRunRef, ...] | None = None
    statuses: tuple[CommitStatusRef, ...] | None = None
    reactions: tuple[Reaction, ...] | None = None
    alerts: AlertRead | None = None

    def joined(self, other: Evidence) -> Evidence:
        """This reading with the parts `other` read that this one did not."""
        return replace(
            self,
            check_runs=self.check_runs if self.check_runs is not None else other.check_runs,
            statuses=self.statuses if self.statuses is not None else other.statuses,
            reactions=self.reactions if self.reactions is not None else other.reactions,
            alerts=self.alerts if self.alerts is not None else other.alerts,
        )

    def has(self, kinds: Iterable[Kind]) -> bool:
        """Whether any of `kinds` was read."""
        return any(getattr(self, kind) is not None for kind in kinds)


def read_pull(gateway: Gateway, pr: int, log: Log) -> tuple[PullInfo, tuple[RawComment, ...]]:
    """The PR and its three comment lists, in one step (`Gateway.read_pull_state`: one GraphQL
    query where GitHub serves it, else REST); a fallback to REST is said in one log line."""
    state = gateway.read_pull_state(pr)
    if state.fallback:
        log.warning(state.fallback)
    return state.pull, state.comments


def read_comments(gateway: Gateway, pr: int) -> tuple[RawComment, ...]:
    return (
        *gateway.list_reviews(pr),
        *gateway.list_review_comments(pr),
        *gateway.list_issue_comments(pr),
    )


def read_parts(
    gateway: Gateway,
    pull: PullInfo,
    kinds: Iterable[Kind],
    comments: Sequence[RawComment],
    check_runs: Callable[[str], Sequence[CheckRunRef]] | None = None,
) -> Evidence:
    """The reading of `pull`'s head: `comments` (already read) and each part in `kinds`.
    `check_runs(sha)`: where the head's check runs come from (the run shares one listing with
    its own check run's cache); default, the gateway's."""
    wanted = set(kinds)
    list_runs = check_runs or (lambda sha: gateway.list_check_runs(sha))
    sha = pull.head_sha
    return Evidence(
        comments=tuple(comments),
        check_runs=tuple(list_runs(sha)) if "check_runs" in wanted else None,
        statuses=tuple(gateway.list_commit_statuses(sha)) if "statuses" in wanted else None,
        reactions=(
            tuple(gateway.list_issue_reactions(pull.number)) if "reactions" in wanted else None
        ),
        alerts=read_alerts(gateway, pull) if "alerts" in wanted else None,
    )


# GitHub's 404 message for a ref no analysis ran on ("List code scanning analyses").
NO_ANALYSIS = "no analysis found"
# Where a permission error sends the user (GitHub: "List code scanning alerts for a repository").
PERMISSION_HINT = "the workflow token needs `permissions: security-events: read`"


def analysis_kind(item: Any) -> str:
    """What an analysis covers, as a person reads it: its tool and category (`CodeQL
    /language:python`); GitHub keeps one latest analysis per tool and category."""
    tool = item.get("tool") if isinstance(item, dict) else None
    name = tool.get("name") if isinstance(tool, dict) else None
    category = item.get("category") if isinstance(item, dict) else None
    shown = [v.strip() for v in (name, category) if isinstance(v, str) and v.strip()]
    return " ".join(shown) or "an analysis"


def not_analysed(
    analyses: Sequence[Any], merge_sha: str | None, base: Sequence[Any] = ()
) -> str | None:
    """Why the alerts do not yet speak for the PR's current head, or None when the analyses of
    its merge commit (`GET code-scanning/analyses`: items whose `commit_sha` is the PR's
    `merge_commit_sha`) cover every tool and category of the base branch's latest analyses
    (`base`). An empty alert list means "nothing found" only then; before, code scanning is
    pending (CodeQL done for Python, JavaScript still running) and, at judgement, unreviewed."""
    if not merge_sha:
        return "code scanning pending: GitHub has not made the PR's merge commit yet"
    done = {
        analysis_kind(a)
        for a in analyses
        if isinstance(a, dict) and a.get("commit_sha") == merge_sha
    }
    if not done:
        return f"code scanning pending: no analysis of the PR's merge commit {merge_sha[:7]} yet"
    missing = sorted({analysis_kind(a) for a in base if isinstance(a, dict)} - done)
    if missing:
        names = ", ".join(missing[:5]) + (
            f" and {len(missing) - 5} more" if len(missing) > 5 else ""
        )
        return (
            f"code scanning pending: {names} not analysed on the PR's merge commit "
            f"{merge_sha[:7]} yet (the base branch's latest analyses have it)"
        )
    return None


def unreadable(exc: GatewayError) -> str:
    """Why the alerts could not be read, in words that say what to do."""
    said = exc.detail or ""
    if exc.status == 403:
        hint = f": {PERMISSION_HINT}" if "not accessible by integration" in said.casefold() else ""
        return f"code scanning alerts could not be read (403 {said or 'Forbidden'}){hint}"
    if exc.status == 404:
        return f"code scanning is not set up for this repository ({said or 'Not Found'})"
    return f"code scanning alerts could not be read ({exc})"


def read_alerts(gateway: Gateway, pull: PullInfo) -> AlertRead:
    """The alerts, once the analyses of the PR's current merge commit are all in (else
    pending: an empty list before they ran is not "nothing found"); a failed read is a
    problem. Open and dismissed: an alert its own PR's author dismissed still counts."""
    ref = merge_ref(pull.number)
    try:
        analyses = gateway.list_code_scanning_analyses(pull.number)
        pending = not_analysed(analyses, pull.merge_commit_sha, _base_analyses(gateway, pull))
        if pending:
            return AlertRead(ref, problem=pending, pending=True)
        alerts = [
            *gateway.list_code_scanning_alerts(pull.number),
            *gateway.list_code_scanning_alerts(pull.number, state="dismissed"),
        ]
        return AlertRead(ref, alerts=alerts, author=pull.author_login)
    except GatewayError as exc:
        if _nothing_analysed(exc):
            # GitHub's answer for a ref nothing has analysed yet: a new PR before CodeQL ran.
            problem = f"code scanning pending: no analysis of {ref} yet (GitHub: {exc.detail})"
            return AlertRead(ref, problem=problem, pending=True)
        return AlertRead(ref, problem=unreadable(exc))


def _nothing_analysed(exc: GatewayError) -> bool:
    return exc.status == 404 and NO_ANALYSIS in (exc.detail or "").casefold()


def _base_analyses(gateway: Gateway, pull: PullInfo) -> list[dict[str, Any]]:
    """The base branch's newest analyses (one page): the tools and categories the merge
    commit must have too. A base branch nothing analysed requires none."""
    if not pull.base_ref:
        return []
    try:
        return gateway.list_latest_analyses(pull.base_ref)
    except GatewayError as exc:
        if _nothing_analysed(exc):
            return []
        raise


# --------------------------------------------------------------------------- snapshot parts

# The snapshot keys of the parts beyond the comments, in GitHub's own shapes.
SNAPSHOT_KEYS = ("check_runs", "statuses", "reactions", "code_scanning_alerts")


def parts_to_json(evidence: Evidence) -> dict[str, Any]:
    """The parts a snapshot keeps, each as GitHub lists it (only those that were read)."""
    out: dict[str, Any] = {}
    if evidence.check_runs is not None:
        out["check_runs"] = [rest.check_run_to_rest(r) for r in evidence.check_runs]
    if evidence.statuses is not None:
        out["statuses"] = [rest.commit_status_to_rest(s) for s in evidence.statuses]
    if evidence.reactions is not None:
        out["reactions"] = [rest.reaction_to_rest(r) for r in evidence.reactions]
    if evidence.alerts is not None and evidence.alerts.complete:
        out["code_scanning_alerts"] = list(evidence.alerts.alerts or ())
    return out


def parts_from_json(
    data: Mapping[str, Any], pr: int, comments: Sequence[RawComment], author: str = ""
) -> tuple[Evidence, str | None]:
    """A snapshot's parts → the reading (untrusted JSON), or the first problem ("key[i]: why")."""
    convert: dict[str, Callable[[Any], Any]] = {
        "check_runs": rest.check_run_ref,
        "statuses": rest.commit_status_ref,
        "reactions": rest.reaction,
    }
    parts: dict[str, Any] = {}
    for key, make in convert.items():
        if key not in data:
            continue
        items: list[Any] = []
        for index, item in enumerate(data[key]):
            try:
                items.append(make(item))
            except ValueError as exc:
                return Evidence(comments=tuple(comments)), f"'{key}[{index}]': {exc}"
        parts[key] = tuple(items)
    alerts = data.get("code_scanning_alerts")
    return (
        Evidence(
            comments=tuple(comments),
            check_runs=parts.get("check_runs"),
            statuses=parts.get("statuses"),
            reactions=parts.get("reactions"),
            alerts=None
            if alerts is None
            else AlertRead(merge_ref(pr), alerts=alerts, author=author),
        ),
        None,
    )


def for_replay(evidence: Evidence, pr: int, *, code_scanning: bool) -> Evidence:
    """A saved reading as a replay judges it: with `code-scanning` on and no alerts saved,
    they count as unread (the gate is never go on alerts nobody read)."""
    if not code_scanning or evidence.alerts is not None:
        return evidence
    problem = "the snapshot holds no code scanning alerts"
    return replace(evidence, alerts=AlertRead(merge_ref(pr), problem=problem))


def read_everything(gateway: Gateway, pull: PullInfo) -> tuple[Evidence, str]:
    """Every part of the PR's reading, for a snapshot; a part that could not be read is left
    out, and its problem returned."""
    comments = read_comments(gateway, pull.number)
    evidence = read_parts(gateway, pull, KINDS, comments)
    alerts = evidence.alerts
    if alerts is not None and not alerts.complete:
        return replace(evidence, alerts=None), f"code scanning alerts not saved: {alerts.problem}"
    return evidence, ""
