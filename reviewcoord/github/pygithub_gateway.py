"""The Gateway over GitHub's REST (and, for review threads, GraphQL) API via PyGithub.

`PyGithubGateway` is the one class the rest of review-coordinator uses; the work is split by job:

* `transport.py`: one request with our retries (5xx, 429, 403 secondary rate limits, resets,
  timeouts), Retry-After, write spacing after a burst, errors; the only module importing PyGithub.
* `paging.py`: complete lists (Link-following pagination, never a partial list) and the ETag cache.
* `reads.py`, `review_threads.py`, `writes.py`: GitHub's JSON to and from our models.

The token never appears in an exception message or a log line of ours.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from typing import Any

from reviewcoord.errors import GatewayError
from reviewcoord.github.comment_edits import list_comment_edits
from reviewcoord.github.gateway import (
    CheckConclusion,
    CheckOutput,
    CheckRunRef,
    CheckStatus,
    CheckSuiteRef,
    ClosedPull,
    CommentEdits,
    CommitStatusRef,
    CompareResult,
    IssueComment,
    Permission,
    PullInfo,
    Reaction,
    ReviewThread,
    StatusState,
    StickyCandidates,
    SweepPage,
    TimelineEvent,
)
from reviewcoord.github.graphql_reading import read_pull_state
from reviewcoord.github.paging import PagedReader
from reviewcoord.github.pull_state import PullState
from reviewcoord.github.reads import Reads
from reviewcoord.github.review_threads import list_review_threads
from reviewcoord.github.transport import WRITE_BURST, Timeouts, Transport
from reviewcoord.github.viewer import viewer_login
from reviewcoord.github.writes import Writes
from reviewcoord.model import RawComment

__all__ = ["WRITE_BURST", "PyGithubGateway"]


class PyGithubGateway:
    """`Gateway` over GitHub REST. See transport.py for retries, paging.py for pages and ETags."""

    def __init__(
        self,
        repo: str,
        token: str,
        *,
        base_url: str,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        write_spacing: float = 1.0,
        max_attempts: int = 5,
        max_retry_wait: float = 60.0,
        timeout: float | Timeouts = 15,
        wall_clock: Callable[[], float] = time.time,
        one_read: bool = False,
    ) -> None:
        owner, _, name = repo.partition("/")
        if not owner or not name or "/" in name:
            raise GatewayError(f"repository must be 'owner/name', got {repo!r}")
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        self.repo = repo
        self._http = Transport(
            token,
            base_url=base_url,
            sleep=sleep,
            clock=clock,
            wall_clock=wall_clock,
            write_spacing=write_spacing,
            max_attempts=max_attempts,
            max_retry_wait=max_retry_wait,
            timeout=timeout,
        )
        prefix = f"/repos/{owner}/{name}"
        self._pages = PagedReader(self._http)
        self._reads = Reads(self._http, self._pages, prefix)
        self._writes = Writes(self._http, prefix)
        # `read_pull_state` over GraphQL (one query) until it fails once, then over REST for
        # the rest of the run: off by default until the whole suite runs with it (§5.6).
        self.one_read = one_read
        self.graphql_points = 0  # GitHub's cost (`rateLimit { cost }`) of those reads

    # ------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> PyGithubGateway:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ accounting
    @property
    def request_count(self) -> int:
        """HTTP requests sent so far (every attempt, including retries and 304s)."""
        return self._http.request_count

    @property
    def server_time(self) -> datetime | None:
        """GitHub's clock: the `Date` of its latest reply."""
        return self._http.server_time

    @property
    def rate_limited_count(self) -> int:
        """Attempts that cost primary rate limit (everything but 304 Not Modified)."""
        return self._http.rate_limited_count

    # ------------------------------------------------------------------ reads
    def get_pull(self, number: int) -> PullInfo:
        return self._reads.get_pull(number)

    def list_reviews(self, number: int) -> list[RawComment]:
        return self._reads.list_comments(f"pulls/{number}/reviews", "review")

    def list_review_comments(self, number: int) -> list[RawComment]:
        return self._reads.list_comments(f"pulls/{number}/comments", "review_comment")

    def list_issue_comments(self, number: int) -> list[RawComment]:
        return self._reads.list_comments(f"issues/{number}/comments", "issue_comment")

    def read_pull_state(self, number: int) -> PullState:
        """One GraphQL query (docs/github-platform.md §5.6); when it fails (an error, a field
        an older GHES lacks, a secondary limit), the same reading over REST, saying why."""
        fallback = ""
        if self.one_read:
            try:
                state = read_pull_state(self._http, self.repo, number)
                self.graphql_points += state.points
                return state
            except GatewayError as exc:
                self.one_read = False  # one failure a run: the next reads go straight to REST
                fallback = f"GraphQL read failed ({exc}): read over REST"
        pull = self.get_pull(number)
        comments = (
            *self.list_reviews(number),
            *self.list_review_comments(number),
            *self.list_issue_comments(number),
        )
        return PullState(pull=pull, comments=comments, fallback=fallback)

    def list_open_pulls(self) -> list[PullInfo]:
        return self._reads.list_open_pulls()

    def recent_open_pulls(self, head_label: str | None = None) -> list[PullInfo]:
        return self._reads.recent_open_pulls(head_label)

    def list_closed_pulls(self, since: datetime) -> list[ClosedPull]:
        return self._reads.list_closed_pulls(since)

    def sticky_candidates(self, number: int) -> StickyCandidates:
        return self._reads.sticky_candidates(number)

    def sweep_stickies(self, since: datetime) -> Iterator[SweepPage]:
        return self._reads.sweep_stickies(since)

    def recent_comments(self) -> list[RawComment]:
        return self._reads.recent_comments()

    # ------------------------------------------------------------------ the ETag cache
    def cached_pages(self) -> dict[str, Any]:
        """The cache worth keeping across runs (`reviewcoord scorecard --cache`), as JSON."""
        return self._pages.export_ends()

    def reuse_pages(self, data: Any) -> int:
        """Load what `cached_pages` exported; malformed entries are skipped. How many loaded."""
        return self._pages.import_ends(data)

    def list_check_suites(self, sha: str) -> list[CheckSuiteRef]:
        return self._reads.list_check_suites(sha)

    def list_timeline(self, number: int) -> list[TimelineEvent]:
        return self._reads.list_timeline(number)

    def get_file(self, path: str, ref: str) -> bytes | None:
        return self._reads.get_file(path, ref)

    def file_versions(self, path: str, ref: str, limit: int) -> list[str]:
        return self._reads.file_versions(path, ref, limit)

    def whoami(self) -> str | None:
        return self._reads.whoami()

    def token_login(self) -> str:
        return viewer_login(self._http)

    def list_check_runs(self, sha: str, name: str | None = None) -> list[CheckRunRef]:
        return self._reads.list_check_runs(sha, name)

    def list_commit_statuses(self, sha: str) -> list[CommitStatusRef]:
        return self._reads.list_commit_statuses(sha)

    def list_issue_reactions(self, number: int) -> list[Reaction]:
        return self._reads.list_issue_reactions(number)

    def list_code_scanning_analyses(self, number: int) -> list[dict[str, Any]]:
        return self._reads.list_code_scanning_analyses(number)

    def list_code_scanning_alerts(self, number: int, state: str = "open") -> list[dict[str, Any]]:
        return self._reads.list_code_scanning_alerts(number, state)

    def list_latest_analyses(self, branch: str) -> list[dict[str, Any]]:
        return self._reads.list_latest_analyses(branch)

    # ------------------------------------------------------------------ reads: review cycles
    def list_pull_files(self, number: int) -> list[str]:
        return self._reads.list_pull_files(number)

    def list_pull_commits(self, number: int) -> list[str]:
        return self._reads.list_pull_commits(number)

    def compare_commits(self, base: str, head: str) -> CompareResult:
        return self._reads.compare_commits(base, head)

    def get_permission(self, login: str) -> Permission:
        return self._reads.get_permission(login)

    def list_review_threads(self, number: int) -> list[ReviewThread]:
        return list_review_threads(self._http, self.repo, number)

    def list_comment_edits(self, node_ids: Sequence[str]) -> list[CommentEdits]:
        return list_comment_edits(self._http, node_ids)

    # ------------------------------------------------------------------ writes
    def create_issue_comment(self, number: int, body: str) -> IssueComment:
        return self._writes.create_issue_comment(number, body)

    def update_issue_comment(self, comment_id: int, body: str) -> IssueComment:
        return self._writes.update_issue_comment(comment_id, body)

    def delete_issue_comment(self, comment_id: int) -> None:
        self._writes.delete_issue_comment(comment_id)

    def request_reviewers(self, number: int, logins: list[str]) -> datetime | None:
        return self._writes.request_reviewers(number, logins)

    def create_status(
        self, sha: str, state: StatusState, description: str, context: str, target_url: str | None
    ) -> None:
        self._writes.create_status(sha, state, description, context, target_url)

    def dispatch_workflow(self, workflow: str, ref: str, inputs: dict[str, str]) -> None:
        self._writes.dispatch_workflow(workflow, ref, inputs)

    def create_check_run(
        self,
        name: str,
        head_sha: str,
        status: CheckStatus,
        output: CheckOutput | None = None,
        conclusion: CheckConclusion | None = None,
        external_id: str | None = None,
    ) -> CheckRunRef:
        return self._writes.create_check_run(
            name, head_sha, status, output, conclusion, external_id
        )

    def update_check_run(
        self,
        check_run_id: int,
        status: CheckStatus,
        output: CheckOutput | None = None,
        conclusion: CheckConclusion | None = None,
    ) -> None:
        self._writes.update_check_run(check_run_id, status, output, conclusion)
