"""`dry-run`: every read goes to GitHub, every write is printed instead of sent."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

from reviewcoord.actions_io import Log
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
    Gateway,
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
from reviewcoord.github.pull_state import PullState
from reviewcoord.model import RawComment


class DryRunGateway:
    def __init__(self, inner: Gateway, log: Log, own_login: str) -> None:
        self.inner = inner
        self.log = log
        self.own_login = own_login
        self.writes: list[dict[str, Any]] = []
        self._next_id = 0

    def _print(self, action: str, payload: dict[str, Any]) -> None:
        self.writes.append({"action": action, **payload})
        self.log.info(f"[dry-run] would {action}: {json.dumps(payload, ensure_ascii=False)}")

    def _fake_id(self) -> int:
        self._next_id -= 1
        return self._next_id

    # reads
    def get_pull(self, number: int) -> PullInfo:
        return self.inner.get_pull(number)

    def list_reviews(self, number: int) -> list[RawComment]:
        return self.inner.list_reviews(number)

    def read_pull_state(self, number: int) -> PullState:
        return self.inner.read_pull_state(number)

    def list_review_comments(self, number: int) -> list[RawComment]:
        return self.inner.list_review_comments(number)

    def list_issue_comments(self, number: int) -> list[RawComment]:
        return self.inner.list_issue_comments(number)

    def list_open_pulls(self) -> list[PullInfo]:
        return self.inner.list_open_pulls()

    def recent_open_pulls(self, head_label: str | None = None) -> list[PullInfo]:
        return self.inner.recent_open_pulls(head_label)

    def list_closed_pulls(self, since: datetime) -> list[ClosedPull]:
        return self.inner.list_closed_pulls(since)

    def sticky_candidates(self, number: int) -> StickyCandidates:
        return self.inner.sticky_candidates(number)

    def sweep_stickies(self, since: datetime) -> Iterator[SweepPage]:
        return self.inner.sweep_stickies(since)

    def recent_comments(self) -> list[RawComment]:
        return self.inner.recent_comments()

    def list_check_suites(self, sha: str) -> list[CheckSuiteRef]:
        return self.inner.list_check_suites(sha)

    def list_timeline(self, number: int) -> list[TimelineEvent]:
        return self.inner.list_timeline(number)

    def get_file(self, path: str, ref: str) -> bytes | None:
        return self.inner.get_file(path, ref)

    def file_versions(self, path: str, ref: str, limit: int) -> list[str]:
        return self.inner.file_versions(path, ref, limit)

    def whoami(self) -> str | None:
        return self.inner.whoami()

    def token_login(self) -> str:
        return self.inner.token_login()

    def list_check_runs(self, sha: str, name: str | None = None) -> list[CheckRunRef]:
        return self.inner.list_check_runs(sha, name)

    def list_commit_statuses(self, sha: str) -> list[CommitStatusRef]:
        return self.inner.list_commit_statuses(sha)

    def list_issue_reactions(self, number: int) -> list[Reaction]:
        return self.inner.list_issue_reactions(number)

    def list_code_scanning_analyses(self, number: int) -> list[dict[str, Any]]:
        return self.inner.list_code_scanning_analyses(number)

    def list_code_scanning_alerts(self, number: int, state: str = "open") -> list[dict[str, Any]]:
        return self.inner.list_code_scanning_alerts(number, state)

    def list_latest_analyses(self, branch: str) -> list[dict[str, Any]]:
        return self.inner.list_latest_analyses(branch)

    def list_pull_files(self, number: int) -> list[str]:
        return self.inner.list_pull_files(number)

    def list_pull_commits(self, number: int) -> list[str]:
        return self.inner.list_pull_commits(number)

    def compare_commits(self, base: str, head: str) -> CompareResult:
        return self.inner.compare_commits(base, head)

    def get_permission(self, login: str) -> Permission:
        return self.inner.get_permission(login)

    def list_review_threads(self, number: int) -> list[ReviewThread]:
        return self.inner.list_review_threads(number)

    def list_comment_edits(self, node_ids: Sequence[str]) -> list[CommentEdits]:
        return self.inner.list_comment_edits(node_ids)

    # writes
    def create_issue_comment(self, number: int, body: str) -> IssueComment:
        self._print("POST issue comment", {"pr": number, "body": body})
        return IssueComment(
            id=self._fake_id(),
            body=body,
            author_login=self.own_login,
            html_url="(dry-run: not posted)",
            created_at=datetime.now(UTC),
        )

    def update_issue_comment(self, comment_id: int, body: str) -> IssueComment:
        self._print("PATCH issue comment", {"comment_id": comment_id, "body": body})
        return IssueComment(
            id=comment_id,
            body=body,
            author_login=self.own_login,
            html_url="(dry-run: not updated)",
        )

    def delete_issue_comment(self, comment_id: int) -> None:
        self._print("DELETE issue comment", {"comment_id": comment_id})

    def request_reviewers(self, number: int, logins: list[str]) -> datetime | None:
        self._print("POST requested reviewers", {"pr": number, "reviewers": logins})
        return datetime.now(UTC)

    def create_status(
        self, sha: str, state: StatusState, description: str, context: str, target_url: str | None
    ) -> None:
        self._print(
            "POST commit status",
            {
                "sha": sha,
                "state": state,
                "description": description,
                "context": context,
                "target_url": target_url,
            },
        )

    def dispatch_workflow(self, workflow: str, ref: str, inputs: dict[str, str]) -> None:
        self._print("POST workflow dispatch", {"workflow": workflow, "ref": ref, "inputs": inputs})

    def create_check_run(
        self,
        name: str,
        head_sha: str,
        status: CheckStatus,
        output: CheckOutput | None = None,
        conclusion: CheckConclusion | None = None,
        external_id: str | None = None,
    ) -> CheckRunRef:
        self._print(
            "POST check run",
            {
                "name": name,
                "head_sha": head_sha,
                "status": status,
                "conclusion": conclusion,
                "external_id": external_id,
                "output": output.model_dump() if output else None,
            },
        )
        return CheckRunRef(
            id=self._fake_id(),
            name=name,
            status=status,
            head_sha=head_sha,
            external_id=external_id,
        )

    def update_check_run(
        self,
        check_run_id: int,
        status: CheckStatus,
        output: CheckOutput | None = None,
        conclusion: CheckConclusion | None = None,
    ) -> None:
        self._print(
            "PATCH check run",
            {
                "id": check_run_id,
                "status": status,
                "conclusion": conclusion,
                "output": output.model_dump() if output else None,
            },
        )

    @property
    def request_count(self) -> int:
        return self.inner.request_count

    @property
    def server_time(self) -> datetime | None:
        return self.inner.server_time
