"""The REST reads of `Gateway`: GitHub's JSON turned into our models, or GatewayError.

Lists and the pull request go through `PagedReader` (every page, ETags); one-off reads are plain
requests, with the statuses that mean "absent" (404, 422, 403) answered as such.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any, TypeVar

from reviewcoord import rest
from reviewcoord.errors import GatewayError
from reviewcoord.github.gateway import (
    CheckRunRef,
    CheckSuiteRef,
    ClosedPull,
    CommitStatusRef,
    CompareResult,
    Permission,
    PullInfo,
    Reaction,
    StickyCandidates,
    SweepPage,
    TimelineEvent,
)
from reviewcoord.github.paging import PagedReader
from reviewcoord.github.transport import PER_PAGE, Response, Transport
from reviewcoord.judgement.shift import patch_blocks
from reviewcoord.limits import MARKER
from reviewcoord.model import Endpoint, RawComment

# GitHub lists at most 300 files in a comparison (REST "Compare two commits").
COMPARE_FILES_LIMIT = 300
_PERMISSIONS = ("admin", "maintain", "write", "triage", "read", "none")
_T = TypeVar("_T")


class Reads:
    """Reads under one repository's `/repos/{owner}/{name}/`."""

    def __init__(self, http: Transport, pages: PagedReader, prefix: str) -> None:
        self._http = http
        self._pages = pages
        self._prefix = prefix

    def _url(self, endpoint: str) -> str:
        return f"{self._prefix}/{endpoint}"

    def _get(self, endpoint: str, **kwargs: Any) -> Response:
        """`send` a GET of `endpoint` described as "read {endpoint}"."""
        return self._http.send(
            "GET", self._url(endpoint), endpoint=endpoint, what=f"read {endpoint}", **kwargs
        )

    # ------------------------------------------------------------------ pull and comments
    def get_pull(self, number: int) -> PullInfo:
        endpoint = f"pulls/{number}"
        data = self._pages.get_object(self._url(endpoint), endpoint, f"read {endpoint}")
        try:
            return rest.pull_info(data)
        except ValueError as exc:
            raise GatewayError(
                f"could not read {endpoint}: malformed response ({exc})", endpoint=endpoint
            ) from None

    def list_open_pulls(self) -> list[PullInfo]:
        return self._list("pulls", {"state": "open"}, rest.pull_info)

    def recent_open_pulls(self, head_label: str | None = None) -> list[PullInfo]:
        endpoint = "pulls"
        params = {"state": "open", "sort": "updated", "direction": "desc"}
        if head_label is not None:
            params["head"] = head_label
        try:
            items = self._pages.get_list(self._url(endpoint), endpoint, params, stop=lambda _: True)
            return [rest.pull_info(item) for item in items]
        except ValueError as exc:
            self._http.malformed(endpoint, "read pulls", str(exc))

    def list_closed_pulls(self, since: datetime) -> list[ClosedPull]:
        endpoint = "pulls"
        params = {"state": "closed", "sort": "updated", "direction": "desc"}

        def past(page: list[Any]) -> bool:
            # Sorted by update, newest first: once a PR was last updated before `since`, so
            # were all the following ones (and none of them merged or closed since).
            last = rest.closed_pull(page[-1]) if page else None
            return last is None or last.updated_at < since

        try:
            items = self._pages.get_list(self._url(endpoint), endpoint, params, stop=past)
            pulls = [rest.closed_pull(item) for item in items]
        except ValueError as exc:
            self._http.malformed(endpoint, "read pulls", str(exc))
        return [p for p in pulls if p.updated_at >= since]

    def sweep_stickies(self, since: datetime) -> Iterator[SweepPage]:
        endpoint = "issues/comments"
        stamp = since.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        params = {"sort": "updated", "direction": "desc", "since": stamp}
        pages = self._pages.iter_pages(self._url(endpoint), endpoint, params, _sticky_head)
        for kept, total in pages:
            try:
                found = [(_issue_number(i), rest.raw_comment("issue_comment", i)) for i in kept]
            except ValueError as exc:
                self._http.malformed(endpoint, f"read {endpoint}", str(exc))
            yield SweepPage(comments=tuple(found), pages=total)

    def sticky_candidates(self, number: int) -> StickyCandidates:
        endpoint = f"issues/{number}/comments"
        items, skipped = self._pages.get_ends(self._url(endpoint), endpoint, _sticky_head)
        try:
            comments = tuple(rest.raw_comment("issue_comment", item) for item in items)
        except ValueError as exc:
            self._http.malformed(endpoint, f"read {endpoint}", str(exc))
        return StickyCandidates(comments=comments, skipped_pages=skipped)

    def list_comments(self, endpoint: str, kind: Endpoint) -> list[RawComment]:
        return self._list(endpoint, {}, lambda item: rest.raw_comment(kind, item))

    def recent_comments(self) -> list[RawComment]:
        # One page of each, newest first: recent enough to find the bots that review here.
        out: list[RawComment] = []
        params = {"sort": "created", "direction": "desc", "per_page": PER_PAGE}
        kinds: dict[str, Endpoint] = {
            "pulls/comments": "review_comment",
            "issues/comments": "issue_comment",
        }
        for endpoint, kind in kinds.items():
            resp = self._get(endpoint, params=params)
            items = self._http.decode(resp, endpoint, f"read {endpoint}")
            if not isinstance(items, list):
                self._http.malformed(endpoint, f"read {endpoint}", "expected a JSON list")
            try:
                out.extend(rest.raw_comment(kind, item) for item in items)
            except ValueError as exc:  # as every other read: a malformed item fails it
                self._http.malformed(endpoint, f"read {endpoint}", str(exc))
        return out

    def list_code_scanning_alerts(self, number: int, state: str = "open") -> list[dict[str, Any]]:
        endpoint = "code-scanning/alerts"
        # GitHub analyses a PR's merge commit; its docs: "To reference a pull request use
        # `refs/pull/<number>/merge`" (docs/github-platform.md § Code scanning alerts).
        params = {"ref": f"refs/pull/{number}/merge", "state": state}
        items = self._pages.get_list(self._url(endpoint), endpoint, params)
        if not all(isinstance(item, dict) for item in items):
            self._http.malformed(endpoint, f"read {endpoint}", "an alert is not a JSON object")
        return items

    def list_code_scanning_analyses(self, number: int) -> list[dict[str, Any]]:
        endpoint = "code-scanning/analyses"
        params = {"ref": f"refs/pull/{number}/merge"}
        items = self._pages.get_list(self._url(endpoint), endpoint, params)
        if not all(isinstance(item, dict) for item in items):
            self._http.malformed(endpoint, f"read {endpoint}", "an analysis is not a JSON object")
        return items

    def list_latest_analyses(self, branch: str) -> list[dict[str, Any]]:
        endpoint = "code-scanning/analyses"
        params = {"ref": f"refs/heads/{branch}"}
        # Newest first: the first page holds the latest analysis of each tool and category
        # the branch runs (a category not run in the last 100 analyses is not required).
        items = self._pages.get_list(self._url(endpoint), endpoint, params, stop=lambda _p: True)
        if not all(isinstance(item, dict) for item in items):
            self._http.malformed(endpoint, f"read {endpoint}", "an analysis is not a JSON object")
        return items

    # ------------------------------------------------------------------ commits and files
    def list_check_suites(self, sha: str) -> list[CheckSuiteRef]:
        endpoint = f"commits/{sha}/check-suites"
        suites = self._list(endpoint, {}, rest.check_suite, key="check_suites")
        return [s for s in suites if s.head_sha == sha]

    def list_timeline(self, number: int) -> list[TimelineEvent]:
        return self._list(f"issues/{number}/timeline", {}, rest.timeline_event)

    def get_file(self, path: str, ref: str) -> bytes | None:
        endpoint = f"contents/{path.lstrip('/')}"
        what = f"read {endpoint}"
        resp = self._get(endpoint, params={"ref": ref}, allow={404})
        if resp.status == 404:
            return None
        data = self._http.decode(resp, endpoint, what)
        if not isinstance(data, dict) or data.get("type", "file") != "file":
            self._http.malformed(endpoint, what, "not a file")
        content = data.get("content")
        if not isinstance(content, str) or data.get("encoding", "base64") != "base64":
            self._http.malformed(endpoint, what, "no base64 content")
        try:
            return base64.b64decode(content)
        except binascii.Error as exc:
            self._http.malformed(endpoint, what, f"undecodable content ({exc})")

    def file_versions(self, path: str, ref: str, limit: int) -> list[str]:
        endpoint = "commits"
        what = f"read the history of {path}"
        params = {"sha": ref, "path": path.lstrip("/"), "per_page": max(1, min(limit, 100))}
        data = self._http.decode(self._get(endpoint, params=params), endpoint, what)
        shas = [item.get("sha") for item in data] if isinstance(data, list) else None
        if shas is None or not all(isinstance(s, str) and s for s in shas):
            self._http.malformed(endpoint, what, "not a list of commits")
        return [s for s in shas if isinstance(s, str)][:limit]

    def list_pull_files(self, number: int) -> list[str]:
        endpoint = f"pulls/{number}/files"
        items = self._pages.get_list(self._url(endpoint), endpoint, {})
        files = [item.get("filename") for item in items if isinstance(item, dict)]
        if len(files) != len(items) or not all(isinstance(f, str) for f in files):
            self._http.malformed(endpoint, f"read {endpoint}", "an item has no filename")
        return [f for f in files if isinstance(f, str)]

    def list_pull_commits(self, number: int) -> list[str]:
        endpoint = f"pulls/{number}/commits"
        items = self._pages.get_list(self._url(endpoint), endpoint, {})
        shas = [item.get("sha") for item in items if isinstance(item, dict)]
        if len(shas) != len(items) or not all(isinstance(sha, str) for sha in shas):
            self._http.malformed(endpoint, f"read {endpoint}", "an item has no sha")
        return [sha for sha in shas if isinstance(sha, str)]

    def compare_commits(self, base: str, head: str) -> CompareResult:
        endpoint = f"compare/{base}...{head}"
        resp = self._get(endpoint, allow={404, 422})
        if resp.status in (404, 422):
            return CompareResult(status="unreachable")
        data = self._http.decode(resp, endpoint, f"read {endpoint}")
        status = data.get("status") if isinstance(data, dict) else None
        if status not in ("ahead", "identical", "behind", "diverged"):
            self._http.malformed(endpoint, f"read {endpoint}", f"unknown status {status!r}")
        raw = data.get("files") or []
        if not isinstance(raw, list):
            self._http.malformed(endpoint, f"read {endpoint}", "'files' is not a list")
        files = [f.get("filename") for f in raw if isinstance(f, dict)]
        names = tuple(f for f in files if isinstance(f, str))
        patches = [
            (f["filename"], f.get("patch") if isinstance(f.get("patch"), str) else None)
            for f in raw
            if isinstance(f, dict) and isinstance(f.get("filename"), str)
        ]
        return CompareResult(
            status=status,
            files=names,
            files_complete=len(raw) < COMPARE_FILES_LIMIT,
            hunks=patch_blocks(patches),
        )

    # ------------------------------------------------------------------ identity and checks
    def whoami(self) -> str | None:
        # Not under the repository; 403 for GITHUB_TOKEN and installation tokens.
        resp = self._http.send("GET", "/user", endpoint="user", what="read user", allow={403, 404})
        if resp.status in (403, 404):
            return None
        data = self._http.decode(resp, "user", "read user")
        login = data.get("login") if isinstance(data, dict) else None
        if not isinstance(login, str):
            self._http.malformed("user", "read user", "no login")
        return login

    def get_permission(self, login: str) -> Permission:
        endpoint = f"collaborators/{login}/permission"
        resp = self._get(endpoint, allow={403, 404})
        if resp.status in (403, 404):
            return "none"
        data = self._http.decode(resp, endpoint, f"read {endpoint}")
        value = data.get("permission") if isinstance(data, dict) else None
        # `role_name` can be `maintain`/`triage`; `permission` folds them into write/read.
        role = data.get("role_name") if isinstance(data, dict) else None
        for candidate in (role, value):
            if candidate in _PERMISSIONS:
                return candidate  # type: ignore[no-any-return]
        return "none"

    def list_check_runs(self, sha: str, name: str | None = None) -> list[CheckRunRef]:
        endpoint = f"commits/{sha}/check-runs"
        # `filter=all`: every run, not only the newest of each name (GitHub's default `latest`).
        params = {"filter": "all"} if name is None else {"check_name": name, "filter": "all"}
        return self._list(endpoint, params, rest.check_run_ref, key="check_runs")

    def list_commit_statuses(self, sha: str) -> list[CommitStatusRef]:
        return self._list(f"commits/{sha}/statuses", {}, rest.commit_status_ref)

    def list_issue_reactions(self, number: int) -> list[Reaction]:
        return self._list(f"issues/{number}/reactions", {}, rest.reaction)

    def _list(
        self,
        endpoint: str,
        params: dict[str, Any],
        parse: Callable[[Any], _T],
        key: str | None = None,
    ) -> list[_T]:
        """Every item of every page of `endpoint`, each through `parse`; a malformed item
        (ValueError) fails the whole read."""
        items = self._pages.get_list(self._url(endpoint), endpoint, params, key=key)
        try:
            return [parse(item) for item in items]
        except ValueError as exc:
            self._http.malformed(endpoint, f"read {endpoint}", str(exc))


def _sticky_head(item: Any) -> dict[str, Any] | None:
    """A marker-first issue comment cut to what the scorecard reads (id, author, link, times and
    the body's first two lines: the marker and the record); any other comment, None."""
    if not isinstance(item, dict):
        return item  # type: ignore[no-any-return]  # rest.raw_comment refuses it
    body = item.get("body")
    if not isinstance(body, str) or not body.lstrip().startswith(MARKER):
        return None
    keys = ("id", "user", "html_url", "issue_url", "created_at", "updated_at")
    head = "\n".join(body.replace("\r\n", "\n").lstrip().split("\n", 2)[:2])
    user = item.get("user")
    slim_user = {k: user.get(k) for k in ("login", "type")} if isinstance(user, dict) else user
    return {**{k: item.get(k) for k in keys}, "user": slim_user, "body": head + "\n"}


def _issue_number(item: Any) -> int:
    """The issue (or PR) a comment of the repository-wide list belongs to, from its
    `issue_url` (`…/repos/{o}/{r}/issues/{n}`), or ValueError."""
    url = item.get("issue_url") if isinstance(item, dict) else None
    tail = url.rstrip("/").rsplit("/", 2) if isinstance(url, str) else []
    if len(tail) != 3 or tail[1] != "issues" or not tail[2].isdigit():
        raise ValueError("field 'issue_url' does not name an issue")
    return int(tail[2])


def _get_str(item: Any, key: str) -> str | None:
    value = item.get(key) if isinstance(item, dict) else None
    return value if isinstance(value, str) else None
