"""The seam between review-coordinator and GitHub.

Everything the pipeline and the publishers need from GitHub goes through `Gateway`, in our own
models; only `transport.py` (behind `pygithub_gateway.py`) imports PyGithub. Reads are *complete
or raise*: a list method returns every item of every page, or raises `GatewayError` naming the
endpoint — never a partial list, because a partial read could hide a blocker (fail closed).

Writes raise `WriteForbidden` for 403 "Resource not accessible by integration" (a read-only
token, e.g. on fork PRs) and `GatewayError` for anything else that failed after retries.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Any, Literal, Protocol

from pydantic import Field

from reviewcoord.github.pull_state import PullInfo as PullInfo
from reviewcoord.github.pull_state import PullState as PullState
from reviewcoord.github.scorecard_models import ClosedPull as ClosedPull
from reviewcoord.github.scorecard_models import StickyCandidates as StickyCandidates
from reviewcoord.github.scorecard_models import SweepPage as SweepPage
from reviewcoord.model import Frozen, RawComment

StatusState = Literal["pending", "success", "failure", "error"]
CheckStatus = Literal["queued", "in_progress", "completed"]
CheckConclusion = Literal["success", "failure", "neutral", "cancelled", "action_required"]


class CheckSuiteRef(Frozen):
    """One item of `GET commits/{sha}/check-suites`: GitHub makes a suite per App when a commit
    is pushed; `created_at` is GitHub's time of that push, `head_branch` the branch it went to."""

    id: int
    head_sha: str
    created_at: datetime | None = None
    head_branch: str | None = None
    app_slug: str | None = None


class TimelineEvent(Frozen):
    """One item of `GET issues/{n}/timeline` as far as arrival cares (reviewcoord/arrival.py):
    its `event` (`head_ref_force_pushed`, `committed`, …), GitHub's `created_at` (a `committed`
    event has none: its dates are the pusher's), and the commit it names (`commit_id`, or a
    `committed` event's `sha`)."""

    event: str
    created_at: datetime | None = None
    commit: str | None = None


class IssueComment(Frozen):
    """An issue comment as far as the sticky publisher cares."""

    id: int
    body: str
    author_login: str
    html_url: str
    created_at: datetime | None = None
    updated_at: datetime | None = None


# A check run's `output.summary` is kept to this many characters (GitHub allows 65,535): enough
# for a bot's one-paragraph status ("Greptile has reviewed the Pull Request. …"), no more.
CHECK_SUMMARY_CHARS = 2000
# Our record is at most HISTORY_LIMIT (20,000) characters; a longer text is not ours.
CHECK_TEXT_CHARS = 24_000


class CheckRunRef(Frozen):
    """A check run of `GET commits/{sha}/check-runs` (ours, or any App's), or of our writes."""

    id: int
    name: str
    status: str
    head_sha: str
    html_url: str = ""
    app_slug: str | None = None  # the App that made it (`app.slug`): who it is from
    conclusion: str | None = None  # set once completed
    completed_at: datetime | None = None  # GitHub's time; our sticky is written before it
    title: str | None = None  # `output.title`
    summary: str | None = None  # `output.summary`, cut to CHECK_SUMMARY_CHARS
    started_at: datetime | None = None
    # `output.text`, cut to CHECK_TEXT_CHARS: ours carries the trusted copy of the review record
    # (reviewcoord/trusted.py).
    text: str | None = None
    # `external_id`: set by the App that created the check run (only it can change it). Ours
    # names the PR the run was created for (reviewcoord/publish/check_run.py `pr_key`).
    external_id: str | None = None


class CommitStatusRef(Frozen):
    """One commit status of `GET commits/{sha}/statuses` (newest first there). Who set it is
    `creator` (login and type): a status is anyone's to set under any context, so it is matched
    by its creator, never by its context alone."""

    id: int
    state: str
    context: str
    creator_login: str | None = None
    target_url: str | None = None
    description: str | None = None
    creator_type: str | None = None  # `creator.type`: "Bot", "User", …
    updated_at: datetime | None = None


class Reaction(Frozen):
    """One reaction of `GET issues/{n}/reactions` (on a PR: the PR's conversation). A deleted
    account's reaction (`user` null) is `ghost`, a `User`."""

    id: int
    content: str  # "+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"
    user_login: str
    user_type: str
    created_at: datetime | None = None


class Annotation(Frozen):
    path: str
    start_line: int
    end_line: int
    annotation_level: Literal["notice", "warning", "failure"]
    title: str
    message: str


class CheckOutput(Frozen):
    title: str
    summary: str
    text: str | None = None
    annotations: tuple[Annotation, ...] = ()


class CompareResult(Frozen):
    """`GET compare/{base}...{head}`: how the recorded head relates to the current one.

    `unreachable`: 404/422 (the old commit is gone, e.g. after a force-push). `files` are the
    paths the range changed; `files_complete` is False when GitHub cut the list (300 files)."""

    status: Literal["ahead", "identical", "behind", "diverged", "unreachable"]
    files: tuple[str, ...] = ()
    files_complete: bool = True
    # path → the change blocks of its `patch` (reviewcoord/judgement/shift.py); a file GitHub
    # gave no patch for (binary, too large) is absent.
    hunks: dict[str, tuple[tuple[int, int, int, int], ...]] = Field(default_factory=dict)


class Actor(Frozen):
    """A GraphQL `Actor`: `login` as GraphQL spells it (a Bot's without `[bot]`), `type` its
    `__typename` (`Bot`, `User`, …)."""

    login: str
    type: str


class CommentEdits(Frozen):
    """One comment's edit history (GraphQL `editor`, `userContentEdits`, `lastEditedAt`).
    `editors`: every revision's editor, newest first (None: a deleted account); `complete`:
    all of them were read."""

    node_id: str
    editor: Actor | None = None
    editors: tuple[Actor | None, ...] = ()
    complete: bool = True
    last_edited_at: str | None = None
    # When each revision of `editors` was made (`editedAt`, GitHub's clock), in the same order.
    edited_at: tuple[str | None, ...] = ()


class ReviewThread(Frozen):
    """One review thread from GraphQL `reviewThreads` (docs/github-platform.md §5)."""

    root_comment_id: int | None  # REST id of the thread's first comment
    is_resolved: bool
    is_outdated: bool
    path: str | None = None


Permission = Literal["admin", "maintain", "write", "triage", "read", "none"]


class Gateway(Protocol):
    """What review-coordinator asks of GitHub. Lists are complete or raise GatewayError."""

    # --- reads ---------------------------------------------------------------------------
    def get_pull(self, number: int) -> PullInfo: ...

    def list_reviews(self, number: int) -> list[RawComment]: ...

    def list_review_comments(self, number: int) -> list[RawComment]: ...

    def list_issue_comments(self, number: int) -> list[RawComment]: ...

    # The PR and the three lists above in one step (GraphQL, else REST): github/pull_state.py.
    def read_pull_state(self, number: int) -> PullState: ...

    def list_open_pulls(self) -> list[PullInfo]:
        """Every open pull request of the repository (`GET pulls?state=open`, every page)."""
        ...

    def recent_open_pulls(self, head_label: str | None = None) -> list[PullInfo]:
        """The first page of open pull requests, most recently updated first; with
        `head_label` (`owner:branch`) only those whose head is that branch. An event that
        names a head but no PR (a fork's) is resolved by it (reviewcoord/event.py)."""
        ...

    # --- reads for `reviewcoord scorecard` (reviewcoord/scorecard/live.py) -----------------
    def list_closed_pulls(self, since: datetime) -> list[ClosedPull]:
        """Every closed PR updated at or after `since` (`GET pulls?state=closed&sort=updated
        &direction=desc`, page after page until one reaches past `since`), newest update first.
        A PR merged or closed at or after `since` was updated then too, so none is missed."""
        ...

    def sweep_stickies(self, since: datetime) -> Iterator[SweepPage]:
        """The repository's conversation comments updated at or after `since`, newest update
        first (`GET issues/comments?sort=updated&direction=desc&since=…`), one page (100) at a
        time, the sticky-like ones only (cut as in `sticky_candidates`). The caller stops when it
        has what it needs; a failed page raises."""
        ...

    def sticky_candidates(self, number: int) -> StickyCandidates:
        """Our sticky's candidates in at most two requests: the first page of the PR's issue
        comments (oldest first, GitHub offers no other order) and, when there are more, the last
        page (the newest). Bodies are cut to their first two lines (marker and record)."""
        ...

    def recent_comments(self) -> list[RawComment]:
        """The repository's most recent review comments and issue comments (one page of each,
        newest first), bodies and authors: `expected-bots: auto` counts a bot seen here only
        from one its profile reads as a review (reviewcoord/resolve.py)."""
        ...

    def list_check_suites(self, sha: str) -> list[CheckSuiteRef]:
        """Every check suite of `sha` (`GET commits/{sha}/check-suites`, every page): when and
        to which branch it was pushed, by GitHub's clock (reviewcoord/arrival.py). Never the
        commit's own dates: the pusher writes those."""
        ...

    def list_timeline(self, number: int) -> list[TimelineEvent]:
        """Every event of the PR's timeline (`GET issues/{n}/timeline`, every page, oldest
        first): its force-pushes (GitHub's time) and its commits (reviewcoord/arrival.py)."""
        ...

    def get_file(self, path: str, ref: str) -> bytes | None:
        """A file's bytes at `ref` via the contents API, None when it does not exist (what
        they mean, text in which encoding, is the reader's: reviewcoord/config.py)."""
        ...

    def file_versions(self, path: str, ref: str, limit: int) -> list[str]:
        """The SHAs of the newest `limit` commits on `ref` that touched `path`, newest first
        (`GET commits?sha={ref}&path={path}`, one page): where an invalid config file's last
        valid version is looked for."""
        ...

    def whoami(self) -> str | None:
        """The token's login from `GET /user`, or None when the token may not ask (403:
        GITHUB_TOKEN and installation tokens)."""
        ...

    def token_login(self) -> str:
        """The token's login from GraphQL `viewer` (any token; an App's as `<slug>[bot]`), or
        GatewayError. Who we are, from GitHub's word about our own token."""
        ...

    def list_check_runs(self, sha: str, name: str | None = None) -> list[CheckRunRef]:
        """The check runs on `sha` (`GET commits/{sha}/check-runs?filter=all`, every page,
        newest first): those named `name` (`check_name=`), or with None every App's."""
        ...

    def list_commit_statuses(self, sha: str) -> list[CommitStatusRef]:
        """Every commit status on `sha` (`GET commits/{sha}/statuses`, every page, newest first),
        any context and creator: a bot's statuses, and ours on `merge_group` when the PR head's
        check runs cannot be read. Not the combined `/status`, which names no creator."""
        ...

    def list_issue_reactions(self, number: int) -> list[Reaction]:
        """Every reaction on the issue or PR `number` itself (`GET issues/{n}/reactions`, every
        page), not those on its comments."""
        ...

    def list_code_scanning_alerts(self, number: int, state: str = "open") -> list[dict[str, Any]]:
        """The PR's code-scanning alerts in `state` (open, dismissed), in GitHub's JSON
        (untrusted: judged by reviewcoord/bots/code_scanning.py): `GET code-scanning/alerts?
        ref=refs/pull/<n>/merge&state=…`, every page. 403 (no `security-events: read`) and 404
        (no analysis) raise GatewayError like any failed read."""
        ...

    def list_code_scanning_analyses(self, number: int) -> list[dict[str, Any]]:
        """The code-scanning analyses of the PR's merge ref, in GitHub's JSON (untrusted):
        `GET code-scanning/analyses?ref=refs/pull/<n>/merge`, every page. The alerts count
        only when they are for the PR's current `merge_commit_sha`."""
        ...

    def list_latest_analyses(self, branch: str) -> list[dict[str, Any]]:
        """The newest code-scanning analyses of `branch` (`GET code-scanning/analyses?ref=
        refs/heads/<branch>&per_page=100`, newest first, first page only): the tools and
        categories a PR's merge commit must be analysed for too (reviewcoord/reading.py)."""
        ...

    # --- reads for review cycles (reviewcoord/reconcile.py); once per run, only when needed --
    def list_pull_files(self, number: int) -> list[str]:
        """Paths the PR changes (`GET pulls/{n}/files`, every page)."""
        ...

    def list_pull_commits(self, number: int) -> list[str]:
        """The PR's commit SHAs, oldest first (`GET pulls/{n}/commits`; GitHub lists at most
        250): where our earlier check runs are, when our sticky cannot be trusted."""
        ...

    def compare_commits(self, base: str, head: str) -> CompareResult:
        """`GET compare/{base}...{head}`; 404/422 → status `unreachable`."""
        ...

    def get_permission(self, login: str) -> Permission:
        """`GET collaborators/{login}/permission`; 403/404 → `none`."""
        ...

    def list_review_threads(self, number: int) -> list[ReviewThread]:
        """Every review thread's resolved/outdated state (GraphQL `reviewThreads`)."""
        ...

    def list_comment_edits(self, node_ids: Sequence[str]) -> list[CommentEdits]:
        """The edit history of these comments (GraphQL `nodes(ids:)`, 100 a query)."""
        ...

    # --- writes --------------------------------------------------------------------------
    def create_issue_comment(self, number: int, body: str) -> IssueComment: ...

    def update_issue_comment(self, comment_id: int, body: str) -> IssueComment: ...

    def delete_issue_comment(self, comment_id: int) -> None: ...

    def request_reviewers(self, number: int, logins: list[str]) -> datetime | None:
        """`POST pulls/{n}/requested_reviewers` (a re-request, reviewcoord/rerequest.py): when
        GitHub says the PR was updated (its clock), None if the reply does not say."""
        ...

    def create_status(
        self, sha: str, state: StatusState, description: str, context: str, target_url: str | None
    ) -> None: ...

    def dispatch_workflow(self, workflow: str, ref: str, inputs: dict[str, str]) -> None:
        """`POST actions/workflows/{workflow}/dispatches` (the sweep, reviewcoord/sweep.py):
        GitHub starts `workflow` (a file name) on the branch `ref` with these inputs; needs
        `actions: write` (else WriteForbidden)."""
        ...

    def create_check_run(
        self,
        name: str,
        head_sha: str,
        status: CheckStatus,
        output: CheckOutput | None = None,
        conclusion: CheckConclusion | None = None,
        external_id: str | None = None,
    ) -> CheckRunRef: ...

    def update_check_run(
        self,
        check_run_id: int,
        status: CheckStatus,
        output: CheckOutput | None = None,
        conclusion: CheckConclusion | None = None,
    ) -> None: ...

    # --- accounting ----------------------------------------------------------------------
    @property
    def request_count(self) -> int:
        """HTTP requests sent so far (every attempt, including retries and 304s)."""
        ...

    @property
    def server_time(self) -> datetime | None:
        """GitHub's clock: the `Date` of its latest reply, None before any."""
        ...
