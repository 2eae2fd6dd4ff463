"""The Gateway over GitHub's REST API via PyGithub's requester (the only module importing github).

We use PyGithub for transport, auth and GHES URL handling, but not for retries, throttling or
pagination (docs/github-platform.md §1.4-§1.7):

* PyGithub's retry is disabled (`retry=None`) and replaced by our own loop, applied to every verb
  (PyGithub never retries PATCH, ignores 429 without Retry-After, and raises `RetryError`): 5xx,
  429, 403 secondary rate limits, connection resets/timeouts/truncated bodies are retried with
  Retry-After or exponential backoff (1, 2, 4 … s), up to `max_attempts`; a wait longer than
  `max_retry_wait` fails at once. Sleeping goes through the injected `sleep`.
* PyGithub's throttle is disabled. The first WRITE_BURST writes of a run go at once; every
  later one waits until `write_spacing` seconds after the previous write (injected clock).
* Lists are read page by page with `per_page=100`, following the `Link: rel="next"` URL verbatim
  (absolute, `/repositories/{id}/…`), every page or `GatewayError` — never a partial list.
* Conditional polling: every page seen is cached with its ETag and re-requested with
  `If-None-Match`; a 304 reuses the cached page and costs no rate limit. A cached *last* page that
  was full is always re-requested unconditionally, since a 304 on it would hide a new next page.

The token never appears in an exception message or a log line of ours.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NoReturn
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

import requests
from github import Auth, Github

from reviewcoord import rest
from reviewcoord.errors import GatewayError, WriteForbidden
from reviewcoord.github.gateway import (
    CheckConclusion,
    CheckOutput,
    CheckRunRef,
    CheckStatus,
    CompareResult,
    IssueComment,
    Permission,
    PullInfo,
    ReviewThread,
    StatusState,
)
from reviewcoord.model import Endpoint, RawComment

PER_PAGE = 100
# GitHub, "Best practices for using the REST API": "If you are making a large number of POST,
# PATCH, PUT, or DELETE requests for a single user or client ID, wait at least one second
# between each request." A run writes a handful (pending status + check run, sticky, final
# status + check run): those go at once, so the verdict is on GitHub within the round trips;
# only writes past the burst (many annotation batches, duplicate clean-up) are spaced.
WRITE_BURST = 5
MAX_ANNOTATIONS = 50
MAX_PAGES = 1000
SECONDARY_DEFAULT_WAIT = 60.0
MSG_NOT_ACCESSIBLE = "resource not accessible by integration"
_SECONDARY_HINTS = (
    "secondary rate limit",
    "retry your request again later",
    "wait a few minutes before you try again",
)
_NEXT_RE = re.compile(r'<([^>]*)>\s*;\s*rel="next"')
_TRANSIENT_ERRORS: tuple[type[Exception], ...] = (
    requests.exceptions.ConnectionError,
    requests.exceptions.Timeout,
    requests.exceptions.ChunkedEncodingError,
    requests.exceptions.ContentDecodingError,
)


# GraphQL (docs/github-platform.md §5): one connection, 100 threads/page, 1st comment's REST id.
REVIEW_THREADS_QUERY = (
    "query($owner: String!, $name: String!, $number: Int!, $after: String) { "
    "repository(owner: $owner, name: $name) { pullRequest(number: $number) { "
    "reviewThreads(first: 100, after: $after) { pageInfo { hasNextPage endCursor } "
    "nodes { isResolved isOutdated path comments(first: 1) { nodes { fullDatabaseId } } } "
    "} } } }"
)


@dataclass(frozen=True)
class _Response:
    status: int
    headers: dict[str, str]
    text: str


@dataclass(frozen=True)
class _Page:
    etag: str | None
    items: list[Any]
    next_url: str | None


@dataclass(frozen=True)
class _Cached:
    etag: str | None
    data: Any


class PyGithubGateway:
    """`Gateway` over GitHub REST. See the module docstring for retries, pagination, ETags."""

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
        timeout: float = 15,
        wall_clock: Callable[[], float] = time.time,
    ) -> None:
        owner, _, name = repo.partition("/")
        if not owner or not name or "/" in name:
            raise GatewayError(f"repository must be 'owner/name', got {repo!r}")
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        self.repo = repo
        self._token = token
        self._sleep = sleep
        self._clock = clock
        self._wall_clock = wall_clock
        self._write_spacing = write_spacing
        self._max_attempts = max_attempts
        self._max_retry_wait = max_retry_wait
        self._base_url = base_url.rstrip("/")
        base = urlsplit(self._base_url)
        self._origin = (base.scheme, base.hostname, base.port)
        self._gh = Github(
            auth=Auth.Token(token),
            base_url=self._base_url,
            per_page=PER_PAGE,
            retry=None,
            seconds_between_requests=None,
            seconds_between_writes=None,
            timeout=max(1, math.ceil(timeout)),
        )
        self._requester = self._gh.requester
        if timeout != math.ceil(timeout) and hasattr(self._requester, "_Requester__timeout"):
            # PyGithub insists on an int; sub-second timeouts are for tests.
            setattr(self._requester, "_Requester__timeout", timeout)  # noqa: B010
        self._prefix = f"/repos/{owner}/{name}"
        self._pages: dict[str, _Page] = {}
        self._objects: dict[str, _Cached] = {}
        self._request_count = 0
        self._rate_limited_count = 0
        self._last_write: float | None = None
        self._writes_sent = 0

    # ------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        self._gh.close()

    def __enter__(self) -> PyGithubGateway:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ accounting
    @property
    def request_count(self) -> int:
        """HTTP requests sent so far (every attempt, including retries and 304s)."""
        return self._request_count

    @property
    def rate_limited_count(self) -> int:
        """Attempts that cost primary rate limit (everything but 304 Not Modified)."""
        return self._rate_limited_count

    # ------------------------------------------------------------------ reads
    def get_pull(self, number: int) -> PullInfo:
        endpoint = f"pulls/{number}"
        data = self._get_object(endpoint, f"read {endpoint}")
        try:
            return rest.pull_info(data)
        except ValueError as exc:
            raise GatewayError(
                f"could not read {endpoint}: malformed response ({exc})", endpoint=endpoint
            ) from None

    def list_reviews(self, number: int) -> list[RawComment]:
        return self._comments(f"pulls/{number}/reviews", "review")

    def list_review_comments(self, number: int) -> list[RawComment]:
        return self._comments(f"pulls/{number}/comments", "review_comment")

    def list_issue_comments(self, number: int) -> list[RawComment]:
        return self._comments(f"issues/{number}/comments", "issue_comment")

    def recent_comment_authors(self) -> list[tuple[str, str]]:
        seen: dict[tuple[str, str], None] = {}
        params = {"sort": "created", "direction": "desc", "per_page": PER_PAGE}
        for endpoint in ("pulls/comments", "issues/comments"):
            resp = self._send(
                "GET",
                self._url(endpoint),
                endpoint=endpoint,
                what=f"read {endpoint}",
                params=params,
            )
            items = self._json(resp, endpoint, f"read {endpoint}")
            if not isinstance(items, list):
                self._malformed(endpoint, f"read {endpoint}", "expected a JSON list")
            for item in items:
                user = item.get("user") if isinstance(item, dict) else None
                login = user.get("login") if isinstance(user, dict) else None
                kind = user.get("type") if isinstance(user, dict) else None
                if isinstance(login, str) and login:
                    seen[(login, kind if isinstance(kind, str) else "User")] = None
        return list(seen)

    def get_commit_time(self, sha: str) -> datetime | None:
        endpoint = f"commits/{sha}"
        resp = self._send(
            "GET",
            self._url(endpoint),
            endpoint=endpoint,
            what=f"read {endpoint}",
            allow={404, 422},
        )
        if resp.status in (404, 422):
            return None
        data = self._json(resp, endpoint, f"read {endpoint}")
        stamp = data.get("commit", {}).get("committer", {}) if isinstance(data, dict) else None
        value = stamp.get("date") if isinstance(stamp, dict) else None
        if not isinstance(value, str):
            return None
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None

    def get_file(self, path: str, ref: str) -> str | None:
        endpoint = f"contents/{path.lstrip('/')}"
        resp = self._send(
            "GET",
            self._url(endpoint),
            endpoint=endpoint,
            what=f"read {endpoint}",
            params={"ref": ref},
            allow={404},
        )
        if resp.status == 404:
            return None
        data = self._json(resp, endpoint, f"read {endpoint}")
        if not isinstance(data, dict) or data.get("type", "file") != "file":
            self._malformed(endpoint, f"read {endpoint}", "not a file")
        content = data.get("content")
        if not isinstance(content, str) or data.get("encoding", "base64") != "base64":
            self._malformed(endpoint, f"read {endpoint}", "no base64 content")
        try:
            return base64.b64decode(content).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError) as exc:
            self._malformed(endpoint, f"read {endpoint}", f"undecodable content ({exc})")

    def whoami(self) -> str | None:
        resp = self._send("GET", "/user", endpoint="user", what="read user", allow={403, 404})
        if resp.status in (403, 404):
            return None
        data = self._json(resp, "user", "read user")
        login = data.get("login") if isinstance(data, dict) else None
        if not isinstance(login, str):
            self._malformed("user", "read user", "no login")
        return login

    def list_check_runs(self, sha: str, name: str) -> list[CheckRunRef]:
        endpoint = f"commits/{sha}/check-runs"
        items = self._list(endpoint, {"check_name": name, "filter": "all"}, key="check_runs")
        try:
            return [_check_run_ref(item) for item in items]
        except ValueError as exc:
            self._malformed(endpoint, f"read {endpoint}", str(exc))

    # ------------------------------------------------------------------ reads: review cycles
    def list_pull_files(self, number: int) -> list[str]:
        endpoint = f"pulls/{number}/files"
        items = self._list(endpoint, {})
        files = [item.get("filename") for item in items if isinstance(item, dict)]
        if len(files) != len(items) or not all(isinstance(f, str) for f in files):
            self._malformed(endpoint, f"read {endpoint}", "an item has no filename")
        return [f for f in files if isinstance(f, str)]

    def compare_commits(self, base: str, head: str) -> CompareResult:
        endpoint = f"compare/{base}...{head}"
        resp = self._send(
            "GET",
            self._url(endpoint),
            endpoint=endpoint,
            what=f"read {endpoint}",
            allow={404, 422},
        )
        if resp.status in (404, 422):
            return CompareResult(status="unreachable")
        data = self._json(resp, endpoint, f"read {endpoint}")
        status = data.get("status") if isinstance(data, dict) else None
        if status not in ("ahead", "identical", "behind", "diverged"):
            self._malformed(endpoint, f"read {endpoint}", f"unknown status {status!r}")
        raw = data.get("files") or []
        files = [f.get("filename") for f in raw if isinstance(f, dict)]
        names = tuple(f for f in files if isinstance(f, str))
        # GitHub lists at most 300 files in a comparison.
        return CompareResult(status=status, files=names, files_complete=len(raw) < 300)

    def get_permission(self, login: str) -> Permission:
        endpoint = f"collaborators/{login}/permission"
        resp = self._send(
            "GET", self._url(endpoint), endpoint=endpoint, what=f"read {endpoint}", allow={403, 404}
        )
        if resp.status in (403, 404):
            return "none"
        data = self._json(resp, endpoint, f"read {endpoint}")
        value = data.get("permission") if isinstance(data, dict) else None
        # `role_name` can be `maintain`/`triage`; `permission` folds them into write/read.
        role = data.get("role_name") if isinstance(data, dict) else None
        for candidate in (role, value):
            if candidate in ("admin", "maintain", "write", "triage", "read", "none"):
                return candidate  # type: ignore[no-any-return]
        return "none"

    def _graphql_url(self) -> str:
        base = self._base_url
        if base.endswith("/v3"):
            base = base[: -len("/v3")]
        return base + "/graphql"

    def list_review_threads(self, number: int) -> list[ReviewThread]:
        owner, _, name = self.repo.partition("/")
        threads: list[ReviewThread] = []
        after: str | None = None
        for _page in range(50):
            payload = {
                "query": REVIEW_THREADS_QUERY,
                "variables": {"owner": owner, "name": name, "number": number, "after": after},
            }
            resp = self._send(
                "POST",
                self._graphql_url(),
                endpoint="graphql",
                what="read review threads",
                body=payload,
            )
            data = self._json(resp, "graphql", "read review threads")
            if not isinstance(data, dict) or data.get("errors"):
                errors = data.get("errors") if isinstance(data, dict) else None
                self._malformed("graphql", "read review threads", f"errors: {str(errors)[:200]}")
            conn = (
                ((data.get("data") or {}).get("repository") or {}).get("pullRequest") or {}
            ).get("reviewThreads")
            if not isinstance(conn, dict):
                self._malformed("graphql", "read review threads", "no reviewThreads")
            for node in conn.get("nodes") or []:
                if not isinstance(node, dict):
                    continue
                first = ((node.get("comments") or {}).get("nodes") or [{}])[0] or {}
                raw_id = first.get("fullDatabaseId") or first.get("databaseId")
                try:
                    root = int(raw_id) if raw_id is not None else None
                except (TypeError, ValueError):
                    root = None
                threads.append(
                    ReviewThread(
                        root_comment_id=root,
                        is_resolved=bool(node.get("isResolved")),
                        is_outdated=bool(node.get("isOutdated")),
                        path=node.get("path") if isinstance(node.get("path"), str) else None,
                    )
                )
            info = conn.get("pageInfo") or {}
            if not info.get("hasNextPage"):
                return threads
            after = info.get("endCursor")
        raise GatewayError("could not read review threads: too many pages", endpoint="graphql")

    # ------------------------------------------------------------------ writes
    def create_issue_comment(self, number: int, body: str) -> IssueComment:
        endpoint = f"issues/{number}/comments"
        resp = self._write("POST", endpoint, {"body": body}, f"create a comment on #{number}")
        return self._issue_comment(resp, endpoint)

    def update_issue_comment(self, comment_id: int, body: str) -> IssueComment:
        endpoint = f"issues/comments/{comment_id}"
        resp = self._write("PATCH", endpoint, {"body": body}, f"update comment {comment_id}")
        return self._issue_comment(resp, endpoint)

    def delete_issue_comment(self, comment_id: int) -> None:
        endpoint = f"issues/comments/{comment_id}"
        self._write("DELETE", endpoint, None, f"delete comment {comment_id}")

    def create_status(
        self, sha: str, state: StatusState, description: str, context: str, target_url: str | None
    ) -> None:
        payload: dict[str, Any] = {"state": state, "description": description, "context": context}
        if target_url:
            payload["target_url"] = target_url
        self._write("POST", f"statuses/{sha}", payload, f"set status {context!r} on {sha[:12]}")

    def create_check_run(
        self,
        name: str,
        head_sha: str,
        status: CheckStatus,
        output: CheckOutput | None = None,
        conclusion: CheckConclusion | None = None,
    ) -> CheckRunRef:
        outputs = _outputs(output) if output is not None else []
        single = len(outputs) <= 1
        payload: dict[str, Any] = {
            "name": name,
            "head_sha": head_sha,
            "status": status if single else "in_progress",
        }
        if conclusion is not None and single:
            payload["conclusion"] = conclusion
        if outputs:
            payload["output"] = outputs[0]
        resp = self._write("POST", "check-runs", payload, f"create check run {name!r}")
        data = self._json(resp, "check-runs", "create check run")
        try:
            ref = _check_run_ref(data)
        except ValueError as exc:
            self._malformed("check-runs", "create check run", str(exc))
        if len(outputs) > 1:
            # More than 50 annotations: append the rest, completing with the last request.
            self._patch_check_run(ref.id, status, outputs[1:], conclusion)
            ref = ref.model_copy(update={"status": "completed" if conclusion else status})
        return ref

    def update_check_run(
        self,
        check_run_id: int,
        status: CheckStatus,
        output: CheckOutput | None = None,
        conclusion: CheckConclusion | None = None,
    ) -> None:
        outputs = _outputs(output) if output is not None else [None]
        self._patch_check_run(check_run_id, status, outputs, conclusion)

    def _patch_check_run(
        self,
        check_run_id: int,
        status: CheckStatus,
        outputs: list[dict[str, Any]] | list[None],
        conclusion: CheckConclusion | None,
    ) -> None:
        for index, out in enumerate(outputs):
            last = index == len(outputs) - 1
            payload: dict[str, Any] = {"status": status if last else "in_progress"}
            if conclusion is not None and last:
                payload["conclusion"] = conclusion
            if out is not None:
                payload["output"] = out
            self._write(
                "PATCH",
                f"check-runs/{check_run_id}",
                payload,
                f"update check run {check_run_id}",
            )

    # ------------------------------------------------------------------ helpers: shapes
    def _url(self, endpoint: str) -> str:
        return f"{self._prefix}/{endpoint}"

    def _comments(self, endpoint: str, kind: Endpoint) -> list[RawComment]:
        items = self._list(endpoint, {})
        try:
            return [rest.raw_comment(kind, item) for item in items]
        except ValueError as exc:
            self._malformed(endpoint, f"read {endpoint}", str(exc))

    def _issue_comment(self, resp: _Response, endpoint: str) -> IssueComment:
        data = self._json(resp, endpoint, f"write {endpoint}")
        try:
            return rest.issue_comment(data)
        except ValueError as exc:
            self._malformed(endpoint, f"write {endpoint}", str(exc))

    def _malformed(self, endpoint: str, what: str, detail: str) -> NoReturn:
        raise GatewayError(
            f"could not {what}: malformed response ({self._scrub(detail)})", endpoint=endpoint
        )

    def _json(self, resp: _Response, endpoint: str, what: str) -> Any:
        try:
            return json.loads(resp.text) if resp.text else None
        except ValueError:
            self._malformed(endpoint, what, f"HTTP {resp.status} body is not JSON")

    # ------------------------------------------------------------------ helpers: reads
    def _get_object(self, endpoint: str, what: str) -> Any:
        url = self._url(endpoint)
        cached = self._objects.get(url)
        headers = {"If-None-Match": cached.etag} if cached is not None and cached.etag else None
        resp = self._send("GET", url, endpoint=endpoint, what=what, headers=headers)
        if resp.status == 304 and cached is not None:
            return json.loads(json.dumps(cached.data))
        data = self._json(resp, endpoint, what)
        if resp.status != 200 or not isinstance(data, dict):
            self._malformed(endpoint, what, f"HTTP {resp.status}, expected a JSON object")
        self._objects[url] = _Cached(resp.headers.get("etag"), data)
        return json.loads(json.dumps(data))

    def _list(self, endpoint: str, params: dict[str, Any], key: str | None = None) -> list[Any]:
        """Every item of every page of a list endpoint, or GatewayError."""
        query = {**params, "per_page": PER_PAGE}
        url: str | None = f"{self._url(endpoint)}?{urlencode(query)}"
        items: list[Any] = []
        first_size = 0
        seen: set[str] = set()
        page_no = 0
        while url is not None:
            page_no += 1
            what = f"read {endpoint}" + (f" page {page_no}" if page_no > 1 else "")
            if url in seen or page_no > MAX_PAGES:
                raise GatewayError(f"could not {what}: pagination loops", endpoint=endpoint)
            seen.add(url)
            cached = self._pages.get(url)
            headers = None
            if cached is not None and cached.etag is not None:
                headers = {"If-None-Match": cached.etag}
            resp = self._send("GET", url, endpoint=endpoint, what=what, headers=headers)
            if resp.status == 304 and cached is not None:
                page = cached
                next_url = page.next_url
                if next_url is None and _looks_full(page, page_no, first_size):
                    # The page is unchanged, but being full it may have gained a successor
                    # that a 304 (no fresh Link header) cannot tell us about: ask for it.
                    next_url = _following_page(url, page_no)
            else:
                page = self._parse_page(resp, endpoint, what, key)
                self._pages[url] = page
                next_url = page.next_url
            if page_no == 1:
                first_size = len(page.items)
            items.extend(page.items)
            url = next_url
        return items

    def _parse_page(self, resp: _Response, endpoint: str, what: str, key: str | None) -> _Page:
        if resp.status != 200:
            self._malformed(endpoint, what, f"unexpected HTTP {resp.status}")
        data = self._json(resp, endpoint, what)
        if key is not None:
            data = data.get(key) if isinstance(data, dict) else None
        if not isinstance(data, list):
            self._malformed(endpoint, what, "expected a JSON list")
        next_url = None
        match = _NEXT_RE.search(resp.headers.get("link", ""))
        if match:
            next_url = self._checked_link(match.group(1), endpoint, what)
        return _Page(resp.headers.get("etag"), data, next_url)

    def _checked_link(self, link: str, endpoint: str, what: str) -> str:
        absolute = urljoin(self._base_url + "/", link)
        parts = urlsplit(absolute)
        if (parts.scheme, parts.hostname, parts.port) != self._origin:
            raise GatewayError(
                f"could not {what}: the next-page link points to another host "
                f"({parts.scheme}://{parts.hostname})",
                endpoint=endpoint,
            )
        return absolute

    # ------------------------------------------------------------------ helpers: HTTP
    def _write(self, verb: str, endpoint: str, payload: Any, what: str) -> _Response:
        return self._send(
            verb, self._url(endpoint), endpoint=endpoint, what=what, body=payload, write=True
        )

    def _scrub(self, text: str) -> str:
        return text.replace(self._token, "***") if self._token else text

    def _space_write(self) -> None:
        self._writes_sent += 1
        if self._writes_sent <= WRITE_BURST:
            return
        if self._last_write is None or self._write_spacing <= 0:
            return
        wait = self._last_write + self._write_spacing - self._clock()
        if wait > 0:
            self._sleep(wait)

    def _send(
        self,
        verb: str,
        url: str,
        *,
        endpoint: str,
        what: str,
        params: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        body: Any = None,
        write: bool = False,
        allow: frozenset[int] | set[int] = frozenset(),
    ) -> _Response:
        """One logical request with our retry policy. Returns 2xx/304 and `allow`ed statuses;
        raises WriteForbidden / GatewayError for the rest."""
        backoff = 1.0
        attempt = 0
        while True:
            attempt += 1
            if write:
                self._space_write()
            self._request_count += 1
            try:
                status, raw_headers, text = self._requester.requestJson(
                    verb, url, dict(params) if params else None, dict(headers or {}), body
                )
            except _TRANSIENT_ERRORS as exc:
                self._rate_limited_count += 1
                if write:
                    self._last_write = self._clock()
                reason = _describe_transport_error(exc)
                self._retry_or_fail(attempt, backoff, reason, endpoint, what, None)
                backoff *= 2
                continue
            except requests.exceptions.RequestException as exc:
                raise GatewayError(
                    f"could not {what}: {type(exc).__name__}", endpoint=endpoint
                ) from None
            if write:
                self._last_write = self._clock()
            if status != 304:
                self._rate_limited_count += 1
            resp = _Response(status, {k.lower(): str(v) for k, v in raw_headers.items()}, text)
            if status < 300 or status == 304:
                return resp
            message = self._error_message(resp)
            wait: float | None = None
            if status in (403, 429):
                wait = self._rate_limit_wait(resp, message, endpoint, what)
                if wait is None and status == 429:
                    wait = backoff
            elif status >= 500:
                wait = _retry_after(resp) or backoff
            if wait is not None:
                # A rate limit (403 or 429 from GitHub) is reported as 429 whatever GitHub
                # answered, so callers never mistake it for a permission 403.
                limited = 429 if status in (403, 429) else status
                self._retry_or_fail(attempt, wait, f"HTTP {status}", endpoint, what, limited)
                backoff *= 2
                continue
            if status in allow:
                return resp
            self._fail(status, message, endpoint, what, write)

    def _rate_limit_wait(
        self, resp: _Response, message: str, endpoint: str, what: str
    ) -> float | None:
        """Seconds to wait before retrying a 403/429, None when it is not a rate limit."""
        headers = resp.headers
        retry_after = _retry_after(resp)
        if headers.get("x-ratelimit-remaining") == "0":
            reset = _float(headers.get("x-ratelimit-reset"))
            wait = retry_after
            if wait is None and reset is not None:
                wait = max(0.0, reset - self._wall_clock()) + 1.0
            if wait is None or wait > self._max_retry_wait:
                when = (
                    time.strftime("%H:%M:%S UTC", time.gmtime(reset)) if reset else "unknown time"
                )
                raise GatewayError(
                    f"could not {what}: GitHub API rate limit exhausted "
                    f"(HTTP {resp.status}; resets at {when})",
                    endpoint=endpoint,
                    status=429,  # see _send: rate limits are never a permission 403
                )
            return wait
        if retry_after is not None:
            return retry_after
        lowered = message.lower()
        if resp.status == 403 and any(hint in lowered for hint in _SECONDARY_HINTS):
            return min(SECONDARY_DEFAULT_WAIT, self._max_retry_wait)
        return None

    def _retry_or_fail(
        self,
        attempt: int,
        wait: float,
        reason: str,
        endpoint: str,
        what: str,
        status: int | None,
    ) -> None:
        if attempt >= self._max_attempts:
            raise GatewayError(
                f"could not {what}: {reason} after {attempt} attempts",
                endpoint=endpoint,
                status=status,
            )
        if wait > self._max_retry_wait:
            raise GatewayError(
                f"could not {what}: {reason}; GitHub asks to wait {wait:g}s, "
                f"longer than the {self._max_retry_wait:g}s we allow",
                endpoint=endpoint,
                status=status,
            )
        self._sleep(wait)

    def _error_message(self, resp: _Response) -> str:
        try:
            data = json.loads(resp.text) if resp.text else None
        except ValueError:
            data = None
        if not isinstance(data, dict):
            return self._scrub(resp.text.strip()[:200])
        message = str(data.get("message") or "")
        details = [
            str(err.get("message") or err.get("code") or "")
            for err in data.get("errors") or []
            if isinstance(err, dict)
        ]
        details = [d for d in details if d]
        if details:
            message = f"{message}: {'; '.join(details)}" if message else "; ".join(details)
        return self._scrub(message)

    def _fail(self, status: int, message: str, endpoint: str, what: str, write: bool) -> NoReturn:
        if status == 401:
            raise GatewayError(
                f"could not {what}: bad credentials (HTTP 401)", endpoint=endpoint, status=401
            )
        if status == 403 and MSG_NOT_ACCESSIBLE in message.lower():
            cls = WriteForbidden if write else GatewayError
            raise cls(
                f"could not {what}: HTTP 403 {message} (the token may not write here; "
                "fork pull requests get a read-only token)",
                endpoint=endpoint,
                status=403,
            )
        if status == 404:
            raise GatewayError(
                f"could not {what}: not found (HTTP 404)", endpoint=endpoint, status=404
            )
        detail = f": {message}" if message else ""
        raise GatewayError(
            f"could not {what}: HTTP {status}{detail}", endpoint=endpoint, status=status
        )


# ---------------------------------------------------------------------- module helpers
def _looks_full(page: _Page, page_no: int, first_size: int) -> bool:
    """A last page holding a full page of items (per_page, or as many as page 1 when the
    server capped per_page lower)."""
    if not page.items:
        return False
    return len(page.items) >= PER_PAGE or (page_no > 1 and len(page.items) >= first_size)


def _following_page(url: str, page_no: int) -> str:
    """The URL of page `page_no + 1`, from page `page_no`'s URL (query `page` replaced)."""
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "page"]
    query.append(("page", str(page_no + 1)))
    return urlunsplit(parts._replace(query=urlencode(query)))


def _float(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        return None


def _retry_after(resp: _Response) -> float | None:
    value = _float(resp.headers.get("retry-after"))
    return max(0.0, value) if value is not None else None


def _describe_transport_error(exc: Exception) -> str:
    if isinstance(exc, requests.exceptions.Timeout):
        return "timed out"
    if isinstance(
        exc, requests.exceptions.ChunkedEncodingError | requests.exceptions.ContentDecodingError
    ):
        return "truncated response"
    return "connection error"


def _outputs(output: CheckOutput) -> list[dict[str, Any]]:
    """The `output` objects to send: GitHub takes ≤ 50 annotations per request and appends
    them, so the first request carries the first 50 and each further one the next 50."""
    base: dict[str, Any] = {"title": output.title, "summary": output.summary}
    if output.text is not None:
        base["text"] = output.text
    notes = [a.model_dump() for a in output.annotations]
    batches = [notes[i : i + MAX_ANNOTATIONS] for i in range(0, len(notes), MAX_ANNOTATIONS)]
    if not batches:
        return [base]
    return [{**base, "annotations": batch} for batch in batches]


def _check_run_ref(data: Any) -> CheckRunRef:
    if not isinstance(data, dict):
        raise ValueError("a check run must be a JSON object")
    run_id, name, status, head_sha = (data.get(k) for k in ("id", "name", "status", "head_sha"))
    if isinstance(run_id, bool) or not isinstance(run_id, int):
        raise ValueError("field 'id' must be an integer")
    for key, value in (("name", name), ("status", status), ("head_sha", head_sha)):
        if not isinstance(value, str):
            raise ValueError(f"field '{key}' must be a string")
    app = data.get("app")
    slug = app.get("slug") if isinstance(app, dict) else None
    html_url = data.get("html_url")
    return CheckRunRef(
        id=run_id,
        name=str(name),
        status=str(status),
        head_sha=str(head_sha),
        html_url=html_url if isinstance(html_url, str) else "",
        app_slug=slug if isinstance(slug, str) else None,
    )
