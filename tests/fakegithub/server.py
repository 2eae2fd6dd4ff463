"""A stateful fake of the GitHub REST API on 127.0.0.1, for tests and benchmarks.

It serves the endpoints review-coordinator uses, with GitHub's response shapes (copied from the
OpenAPI examples in tests/fixtures/api-examples/), GitHub's pagination (`Link` headers whose
page 2+ URLs switch to `/repositories/{id}/…`), weak ETags with `If-None-Match` → 304 (free: not
counted in `rate_limit_used`), rate-limit headers, token identities (GITHUB_TOKEN-like app token,
PATs, App installation tokens, read-only fork tokens) and injectable faults (HTTP errors, connection
resets, read timeouts, truncated bodies).

    with FakeGitHub() as gh:
        gh.add_pull(7, head_sha="a" * 40)
        gh.add_review_comment(7, login="coderabbitai[bot]", body="…", path="a.py", line=3)
        gh.add_bot_check_run("a" * 40, "Cursor Bugbot", app_slug="cursor", app_id=1210556)
        gh.add_status("a" * 40, "CodeRabbit", "pending", creator_login="coderabbitai[bot]")
        gh.add_reaction(7, "eyes", login="chatgpt-codex-connector[bot]")
        ... PyGithub / requests against gh.base_url with token "app-token" ...

Everything is served under the API root (`/repos/o/r/…`, `/repositories/{id}/…`, `/user`) and also
under a GHES-style `/api/v3` prefix. State changes and reads take one re-entrant lock; request
hooks (`on_request`) run after the response was sent, outside the lock.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import math
import re
import socket
import struct
import sys
import threading
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit

from tests.fakegithub import graphql_reading
from tests.fakegithub.code_scanning import DOC as CS_DOC
from tests.fakegithub.code_scanning import (
    MSG_NO_ANALYSIS,
    CodeScanningState,
    alert_json,
    analysis_json,
)
from tests.fakegithub.code_scanning import PYTHON as CS_PYTHON
from tests.fakegithub.code_scanning import merge_ref as cs_merge_ref
from tests.fakegithub.evidence import app_json, reaction_json, status_json
from tests.fakegithub.files import Files
from tests.fakegithub.timeline import committed_json, force_pushed_json

APP_TOKEN = "app-token"
ACTIONS_LOGIN = "github-actions[bot]"
COPILOT_REVIEWER_LOGIN = "copilot-pull-request-reviewer[bot]"
ACTIONS_APP = {"id": 15368, "slug": "github-actions", "name": "GitHub Actions"}
GHES_PREFIX = "/api/v3"
# How long `will_stall` waits for a stalled attempt to reach the server: a bound only, never a
# figure (the wait ends as soon as the server thread takes the request).
STALL_WAIT = 60.0
DOCS = "https://docs.github.com/rest"
EPOCH = datetime(2026, 1, 5, 9, 0, 0, tzinfo=UTC)

MSG_NOT_ACCESSIBLE = "Resource not accessible by integration"
MSG_SECONDARY = (
    "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
)
SECONDARY_BODY = {
    "documentation_url": "https://docs.github.com/en/free-pro-team@latest/rest/overview/"
    "resources-in-the-rest-api#secondary-rate-limits",
    "message": MSG_SECONDARY,
}


def iso(t: datetime) -> str:
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the fake saw it and answered it."""

    method: str
    path: str  # as sent, with the query string (and the /api/v3 prefix if used)
    status: int  # 0 when the connection was reset / timed out / truncated
    headers: dict[str, str]  # request headers, lower-case names
    body: Any  # parsed JSON request body, or None
    response_etag: str | None
    login: str | None = None  # the token's identity, None when unknown/absent
    action: str | None = None  # fault action applied ("reset", "timeout", "truncate")

    @property
    def route(self) -> str:
        """The path without query string and without the /api/v3 prefix."""
        path = urlsplit(self.path).path
        return path[len(GHES_PREFIX) :] if path.startswith(GHES_PREFIX + "/") else path


@dataclass
class Identity:
    login: str
    user_endpoint: bool  # PATs may call GET /user; GITHUB_TOKEN / installation tokens get 403
    read_only: bool = False

    @property
    def type(self) -> str:
        return "Bot" if self.login.endswith("[bot]") else "User"

    @property
    def app(self) -> dict[str, Any] | None:
        if self.user_endpoint:
            return None
        if self.login == ACTIONS_LOGIN:
            return dict(ACTIONS_APP)
        slug = self.login.removesuffix("[bot]")
        return {"id": zlib.crc32(slug.encode()) % 900_000 + 1000, "slug": slug, "name": slug}


@dataclass
class Fault:
    method: str
    pattern: re.Pattern[str]
    status: int | None
    times: int
    headers: dict[str, str]
    body: dict[str, Any] | str | None
    action: str | None
    exhausted: bool = False  # answer as a used-up primary rate limit (remaining 0)
    query_contains: str | None = None  # GraphQL only: the query must hold this text


@dataclass
class Reply:
    status: int
    body: Any = None  # JSON-serialisable, or None for no body
    headers: dict[str, str] = field(default_factory=dict)
    action: str | None = None
    counted: bool = True  # costs primary rate limit
    login: str | None = None
    exhausted: bool = False  # rate headers say the primary limit is used up


class HttpError(Exception):
    def __init__(self, status: int, message: str, *, doc: str = DOCS, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.body: dict[str, Any] = {"message": message, "documentation_url": doc, **extra}
        self.body.setdefault("status", str(status))


def _validation(resource: str, fieldname: str, message: str, doc: str, code: str) -> HttpError:
    return HttpError(
        422,
        "Validation Failed",
        doc=doc,
        errors=[{"resource": resource, "code": code, "field": fieldname, "message": message}],
    )


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def date_time_string(self, timestamp: float | None = None) -> str:
        """The `Date` header by the fake's clock (GitHub's time, as `advance` moves it)."""
        return formatdate(self.server.fake.clock_now().timestamp(), usegmt=True)

    def setup(self) -> None:
        super().setup()
        # Headers and body go out as two writes; without TCP_NODELAY, Nagle + the client's
        # delayed ACK hold the body back ~40 ms on every keep-alive response.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def _serve(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length > 0 else b""
        headers = {k.lower(): v for k, v in self.headers.items()}
        fake = self.server.fake
        fake._before(self.command, self.path)
        reply, recorded = fake._handle(self.command, self.path, headers, raw)
        try:
            self._send(reply)
        finally:
            fake._after(recorded)

    def _hold(self, seconds: float) -> None:
        """Answer nothing until the client gives up and closes, or `seconds` pass."""
        self.connection.settimeout(seconds)
        with contextlib.suppress(OSError):  # TimeoutError included
            self.connection.recv(1)

    def _send(self, reply: Reply) -> None:
        if reply.action == "reset":
            self.close_connection = True
            # SO_LINGER 0: close with an RST instead of a FIN
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            return
        if reply.action == "timeout":
            self._hold(self.server.fake.fault_timeout_seconds)
            self.close_connection = True
            return
        if isinstance(reply.body, _RawText):
            payload = reply.body.encode()
            ctype = "text/html; charset=utf-8"
        else:
            payload = b"" if reply.body is None else _dump(reply.body)
            ctype = "application/json; charset=utf-8"
        self.send_response(reply.status)
        for name, value in reply.headers.items():
            self.send_header(name, value)
        if reply.body is not None:
            self.send_header("Content-Type", ctype)
        if reply.action == "truncate":
            self.send_header("Content-Length", str(len(payload) + 512))
            self.end_headers()
            self.wfile.write(payload[: max(1, len(payload) // 2)])
            self.wfile.flush()
            self.close_connection = True
            return
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if payload:
            self.wfile.write(payload)

    do_GET = _serve
    do_POST = _serve
    do_PATCH = _serve
    do_PUT = _serve
    do_DELETE = _serve
    do_HEAD = _serve


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    fake: FakeGitHub

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away mid-request (a run killed by its concurrency group) is
        not the fake's error: nothing to print. Anything else is, as before."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def _dump(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


def _etag(payload: bytes) -> str:
    return 'W/"' + hashlib.sha256(payload).hexdigest()[:40] + '"'


class FakeGitHub:
    """A fake GitHub REST API for one repository. See the module docstring."""

    def __init__(
        self,
        repo: str = "octo/app",
        repo_id: int = 4242,
        per_page_max: int = 100,
        *,
        port: int = 0,
        fault_timeout_seconds: float = 2.0,
        rate_limit: int = 5000,
    ) -> None:
        owner, _, name = repo.partition("/")
        if not owner or not name:
            raise ValueError("repo must be 'owner/name'")
        self.repo = repo
        self.repo_id = repo_id
        self.per_page_max = per_page_max
        self.fault_timeout_seconds = fault_timeout_seconds
        self._port = port
        self._lock = threading.RLock()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self.base_url = ""
        self._tokens: dict[str, Identity] = {
            APP_TOKEN: Identity(ACTIONS_LOGIN, user_endpoint=False),
        }
        self._pulls: dict[int, dict[str, Any]] = {}
        self._issues: set[int] = set()
        self._reviews: list[dict[str, Any]] = []
        self._review_comments: list[dict[str, Any]] = []
        self._issue_comments: list[dict[str, Any]] = []
        self._statuses: list[dict[str, Any]] = []
        self._check_runs: list[dict[str, Any]] = []
        self._reactions: list[dict[str, Any]] = []  # on issues and PRs themselves, oldest first
        self._files = Files()
        self._commit_times: dict[str, str] = {}
        # When a head commit arrived on GitHub (the pusher cannot set it): the created_at of the
        # check suite GitHub makes for it on push (`GET commits/{sha}/check-suites`).
        self._arrivals: dict[str, str] = {}
        self._arrival_branch: dict[str, str] = {}  # the branch the commit was first pushed to
        self._timelines: dict[int, list[dict[str, Any]]] = {}  # `GET issues/{n}/timeline`
        self._faults: list[Fault] = []
        self._stalls: list[Fault] = []  # "timeout" faults promised to attempts not yet received
        self._stalled = threading.Condition(self._lock)
        self._code_scanning = CodeScanningState()
        self._hooks: list[Callable[[FakeGitHub, RecordedRequest], None]] = []
        self._before_hooks: list[Callable[[str, str], None]] = []
        self.requests: list[RecordedRequest] = []
        self.review_requests: list[tuple[int, list[str]]] = []  # (PR, logins actually requested)
        # `POST actions/workflows/{file}/dispatches`: the workflows that take one (file → their
        # `workflow_dispatch` inputs), whether the tokens have `actions: write`, what was asked.
        self.workflows: dict[str, frozenset[str]] = {"review-coordinator.yml": frozenset({"pr"})}
        self.actions_write = True
        self.dispatches: list[dict[str, Any]] = []  # {"workflow", "ref", "inputs", "login"}
        self.rate_limit_used = 0
        self._rate_limit = rate_limit
        self._rate_remaining = rate_limit
        self._rate_reset = int(time.time()) + 3600
        self._ids: dict[str, int] = {
            "review": 80_000,
            "review_comment": 1_200_000,
            "issue_comment": 3_300_000,
            "status": 5_000,
            "check_run": 40_000,
            "check_suite": 6_000,
            "reaction": 180_000_000,
            "event": 9_100_000_000,
        }
        self._tick = 0
        # The reading queries (tests/fakegithub/graphql_reading.py): nodes a page, points spent.
        self.graphql_page_max = 100
        self.graphql_points = 0

    # ---------------------------------------------------------------- lifecycle
    def start(self) -> FakeGitHub:
        if self._server is not None:
            return self
        server = _Server(("127.0.0.1", self._port), _Handler)
        server.fake = self
        self._server = server
        host, port = server.server_address[:2]
        self.base_url = f"http://{host}:{port}"
        self._thread = threading.Thread(
            target=server.serve_forever, args=(0.05,), name="fakegithub", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is None:
            return
        server.shutdown()
        server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FakeGitHub:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        return int(self.base_url.rsplit(":", 1)[1]) if self.base_url else self._port

    # ---------------------------------------------------------------- identities
    def add_token(
        self, token: str, login: str, *, user_endpoint: bool, read_only: bool = False
    ) -> None:
        """A PAT (`user_endpoint=True`: GET /user answers) or a GitHub App installation token
        (`user_endpoint=False`, login like "my-app[bot]"; GET /user → 403). `read_only` tokens get
        403 "Resource not accessible by integration" on every write (fork PR GITHUB_TOKEN)."""
        with self._lock:
            self._tokens[token] = Identity(login, user_endpoint=user_endpoint, read_only=read_only)

    # ---------------------------------------------------------------- state setup
    def _next_id(self, kind: str) -> int:
        self._ids[kind] += 1
        return self._ids[kind]

    def clock_now(self) -> datetime:
        """The fake's time now, without moving it (its `Date` header)."""
        with self._lock:
            return EPOCH + timedelta(seconds=self._tick)

    def advance(self, seconds: float) -> None:
        """Move the fake's clock on (time passing on GitHub: a timeout, a schedule)."""
        with self._lock:
            self._tick += int(seconds)

    def _now(self) -> str:
        """A deterministic clock: every call is one second after the previous one."""
        self._tick += 1
        return iso(EPOCH + timedelta(seconds=self._tick))

    def _user(self, login: str, user_type: str | None = None) -> dict[str, Any]:
        kind = user_type or ("Bot" if login.endswith("[bot]") else "User")
        uid = zlib.crc32(login.encode()) % 90_000_000 + 1000
        html = (
            f"https://github.com/apps/{login.removesuffix('[bot]')}"
            if login.endswith("[bot]")
            else f"https://github.com/{login}"
        )
        return {
            "login": login,
            "id": uid,
            "node_id": base64.b64encode(f"04:{kind}{uid}".encode()).decode(),
            "avatar_url": f"https://avatars.githubusercontent.com/u/{uid}?v=4",
            "gravatar_id": "",
            "url": f"https://api.github.com/users/{quote(login)}",
            "html_url": html,
            "type": kind,
            "site_admin": False,
        }

    def _repo_obj(self, full_name: str | None = None) -> dict[str, Any]:
        full = full_name or self.repo
        owner, _, name = full.partition("/")
        rid = self.repo_id if full == self.repo else zlib.crc32(full.encode()) % 9_000_000 + 10
        return {
            "id": rid,
            "node_id": base64.b64encode(f"010:Repository{rid}".encode()).decode(),
            "name": name,
            "full_name": full,
            "owner": self._user(owner, "Organization"),
            "private": False,
            "html_url": f"https://github.com/{full}",
            "fork": full != self.repo,
            "url": f"https://api.github.com/repos/{full}",
            "default_branch": "main",
        }

    def _web(self, path: str) -> str:
        return f"https://github.com/{self.repo}/{path}"

    def _api(self, path: str) -> str:
        return f"https://api.github.com/repos/{self.repo}/{path}"

    def add_pull(
        self,
        number: int,
        *,
        head_sha: str,
        base_ref: str = "main",
        author: str = "octocat",
        author_type: str = "User",
        title: str = "Amazing new feature",
        head_repo: str | None = None,
    ) -> dict[str, Any]:
        with self._lock:
            created = self._now()
            head_ref = f"feature-{number}"
            self._commit_times.setdefault(head_sha, created)
            self._arrivals.setdefault(head_sha, created)
            self._arrival_branch.setdefault(head_sha, head_ref)
            self._timelines[number] = [committed_json(self.repo, head_sha)]
            head_full = head_repo or self.repo
            head_owner = head_full.partition("/")[0]
            base_owner = self.repo.partition("/")[0]
            pull = {
                "url": self._api(f"pulls/{number}"),
                "id": 10_000_000 + number,
                "node_id": base64.b64encode(f"011:PullRequest{number}".encode()).decode(),
                "html_url": self._web(f"pull/{number}"),
                "diff_url": self._web(f"pull/{number}.diff"),
                "patch_url": self._web(f"pull/{number}.patch"),
                "issue_url": self._api(f"issues/{number}"),
                "number": number,
                "state": "open",
                "locked": False,
                "title": title,
                "user": self._user(author, author_type),
                "body": "",
                "labels": [],
                "created_at": created,
                "updated_at": created,
                "closed_at": None,
                "merged_at": None,
                "merge_commit_sha": _merge_sha(head_sha),
                "draft": False,
                "head": {
                    "label": f"{head_owner}:{head_ref}",
                    "ref": head_ref,
                    "sha": head_sha,
                    "user": self._user(head_owner, "User"),
                    "repo": self._repo_obj(head_full),
                },
                "base": {
                    "label": f"{base_owner}:{base_ref}",
                    "ref": base_ref,
                    "sha": hashlib.sha1(f"{self.repo}:{base_ref}".encode()).hexdigest(),
                    "user": self._user(base_owner, "Organization"),
                    "repo": self._repo_obj(),
                },
                "author_association": "CONTRIBUTOR",
                "merged": False,
                "mergeable": True,
                "mergeable_state": "clean",
                "comments": 0,
                "review_comments": 0,
                "commits": 1,
                "additions": 1,
                "deletions": 0,
                "changed_files": 1,
            }
            self._pulls[number] = pull
            return json.loads(json.dumps(pull))

    def set_head(self, number: int, head_sha: str, *, force: bool = False) -> None:
        """`head_sha` becomes the PR's head, pushed now (`force`: force-pushed, which the PR's
        timeline records). A commit GitHub has seen before keeps its first check suite (and
        the branch it was first pushed to): GitHub makes one per commit and App."""
        with self._lock:
            pull = self._pulls[number]
            pull["head"]["sha"] = head_sha
            pull["merge_commit_sha"] = _merge_sha(head_sha)
            now = self._now()
            pull["updated_at"] = now
            self._commit_times.setdefault(head_sha, now)
            self._arrivals.setdefault(head_sha, now)
            self._arrival_branch.setdefault(head_sha, pull["head"]["ref"])
            timeline = self._timelines.setdefault(number, [])
            if force:
                eid = self._next_id("event")
                timeline.append(force_pushed_json(self.repo, eid, self._user("octocat"), now))
            timeline.append(committed_json(self.repo, head_sha))

    def set_commit_date(self, sha: str, when: str) -> None:
        """The commit's committer and author date, as the pusher wrote it (any time at all)."""
        with self._lock:
            self._commit_times[sha] = when

    def forget_arrival(self, sha: str) -> None:
        """No check suite on `sha` (e.g. no App with checks permission saw the push)."""
        with self._lock:
            self._arrivals.pop(sha, None)

    def close_pull(self, number: int, *, merged: bool = False) -> None:
        with self._lock:
            pull = self._pulls[number]
            now = self._now()
            pull.update(state="closed", closed_at=now, updated_at=now, merged=merged)
            if merged:
                pull["merged_at"] = now

    def add_issue(self, number: int) -> None:
        with self._lock:
            self._issues.add(number)

    def add_review(
        self,
        pr: int,
        *,
        login: str,
        body: str,
        state: str = "COMMENTED",
        commit_id: str | None = None,
        user_type: str = "Bot",
        submitted_at: str | None = None,
        commit_found: bool = True,
    ) -> dict[str, Any]:
        """A review of `commit_id` (default: the head). `commit_found=False`: GitHub could not
        find the commit it was made on (deleted after a force-push): its `commit_id` is null."""
        with self._lock:
            pull = self._pulls[pr]
            rid = self._next_id("review")
            review = {
                "id": rid,
                "node_id": base64.b64encode(f"017:PullRequestReview{rid}".encode()).decode(),
                "user": self._user(login, user_type),
                "body": body,
                "state": state,
                "html_url": self._web(f"pull/{pr}#pullrequestreview-{rid}"),
                "pull_request_url": self._api(f"pulls/{pr}"),
                "author_association": "NONE",
                "_links": {
                    "html": {"href": self._web(f"pull/{pr}#pullrequestreview-{rid}")},
                    "pull_request": {"href": self._api(f"pulls/{pr}")},
                },
                "submitted_at": submitted_at or self._now(),
                "commit_id": (commit_id or pull["head"]["sha"]) if commit_found else None,
                "_pr": pr,
            }
            self._reviews.append(review)
            return _public(review)

    def add_review_comment(
        self,
        pr: int,
        *,
        login: str,
        body: str,
        path: str,
        line: int | None,
        original_line: int | None = None,
        commit_id: str | None = None,
        original_commit_id: str | None = None,
        in_reply_to_id: int | None = None,
        user_type: str = "Bot",
        review_id: int | None = None,
        created_at: str | None = None,
        start_line: int | None = None,
    ) -> dict[str, Any]:
        """`start_line`: a multi-line comment's first line (`line` its last)."""
        with self._lock:
            pull = self._pulls[pr]
            cid = self._next_id("review_comment")
            created = created_at or self._now()
            commit = commit_id or pull["head"]["sha"]
            html = self._web(f"pull/{pr}#discussion_r{cid}")
            comment: dict[str, Any] = {
                "url": self._api(f"pulls/comments/{cid}"),
                "pull_request_review_id": review_id,
                "id": cid,
                "node_id": base64.b64encode(f"024:PullRequestReviewComment{cid}".encode()).decode(),
                "diff_hunk": "@@ -1,3 +1,4 @@",
                "path": path,
                "position": line,
                "original_position": original_line if original_line is not None else line,
                "commit_id": commit,
                "original_commit_id": original_commit_id or commit,
                "user": self._user(login, user_type),
                "body": body,
                "created_at": created,
                "updated_at": created,
                "html_url": html,
                "pull_request_url": self._api(f"pulls/{pr}"),
                "author_association": "NONE",
                "_links": {
                    "self": {"href": self._api(f"pulls/comments/{cid}")},
                    "html": {"href": html},
                    "pull_request": {"href": self._api(f"pulls/{pr}")},
                },
                "start_line": start_line,
                "original_start_line": start_line,
                "start_side": "RIGHT" if start_line is not None else None,
                "line": line,
                "original_line": original_line if original_line is not None else line,
                "side": "RIGHT",
                "subject_type": "line",
                "_pr": pr,
            }
            if in_reply_to_id is not None:
                comment["in_reply_to_id"] = in_reply_to_id
            self._review_comments.append(comment)
            return _public(comment)

    def _make_issue_comment(
        self, number: int, login: str, body: str, user_type: str | None, created_at: str | None
    ) -> dict[str, Any]:
        cid = self._next_id("issue_comment")
        created = created_at or self._now()
        kind = "pull" if number in self._pulls else "issues"
        comment = {
            "id": cid,
            "node_id": base64.b64encode(f"012:IssueComment{cid}".encode()).decode(),
            "url": self._api(f"issues/comments/{cid}"),
            "html_url": self._web(f"{kind}/{number}#issuecomment-{cid}"),
            "body": body,
            "user": self._user(login, user_type),
            "created_at": created,
            "updated_at": created,
            "issue_url": self._api(f"issues/{number}"),
            "author_association": "NONE",
            "performed_via_github_app": None,
            "_issue": number,
        }
        self._issue_comments.append(comment)
        return comment

    def add_issue_comment(
        self,
        number: int,
        *,
        login: str,
        body: str,
        user_type: str = "Bot",
        created_at: str | None = None,
    ) -> dict[str, Any]:
        with self._lock:
            if number not in self._pulls and number not in self._issues:
                raise KeyError(f"no pull request or issue #{number}")
            return _public(self._make_issue_comment(number, login, body, user_type, created_at))

    def edit_issue_comment(
        self,
        comment_id: int,
        body: str,
        updated_at: str | None = None,
        *,
        editor: str | None = None,
        editor_type: str | None = None,
    ) -> None:
        """Edit a PR comment as `editor` (default: its author), as anyone with write access can;
        the edit history (GraphQL `userContentEdits`) names the editor, REST does not."""
        with self._lock:
            comment = self._find(self._issue_comments, comment_id)
            if comment is None:
                raise KeyError(comment_id)
            self._edit(comment, body, updated_at, editor, editor_type)

    def edit_review_comment(
        self,
        comment_id: int,
        body: str,
        *,
        editor: str | None = None,
        editor_type: str | None = None,
    ) -> None:
        with self._lock:
            comment = self._find(self._review_comments, comment_id)
            if comment is None:
                raise KeyError(comment_id)
            self._edit(comment, body, None, editor, editor_type)

    def edit_review(
        self,
        review_id: int,
        body: str,
        *,
        editor: str | None = None,
        editor_type: str | None = None,
    ) -> None:
        """Edit a review's body as `editor` (default: its author), as anyone with write access
        can: REST still shows only its `submitted_at` (a review has no `updated_at`); GraphQL's
        edit history (`PullRequestReview` is a `Comment`) names the editor."""
        with self._lock:
            review = self._find(self._reviews, review_id)
            if review is None:
                raise KeyError(review_id)
            author = review["user"]
            login = editor or author["login"]
            kind = editor_type or (author["type"] if editor is None else self._user(login)["type"])
            review["body"] = body
            review.setdefault("_edits", []).append((login, kind, self._now()))

    def delete_comment(self, comment_id: int) -> None:
        """Someone with write access deletes a PR comment (a conversation or an inline one):
        it is gone from every list, and nothing says who deleted it."""
        with self._lock:
            for items in (self._issue_comments, self._review_comments):
                comment = self._find(items, comment_id)
                if comment is not None:
                    items.remove(comment)
                    return
            raise KeyError(comment_id)

    def _edit(
        self,
        comment: dict[str, Any],
        body: str,
        updated_at: str | None,
        editor: str | None,
        editor_type: str | None,
    ) -> None:
        author = comment["user"]
        login = editor or author["login"]
        kind = editor_type or (author["type"] if editor is None else None)
        comment["body"] = body
        comment["updated_at"] = updated_at or self._now()
        edit = (login, kind or self._user(login)["type"], comment["updated_at"])
        comment.setdefault("_edits", []).append(edit)

    def add_code_scanning_alert(
        self,
        pr: int,
        *,
        number: int | None = None,
        state: str = "open",
        rule_id: str = "js/zipslip",
        description: str = "Arbitrary file write during zip extraction",
        severity: str = "error",
        security_severity_level: str | None = None,
        path: str = "src/a.py",
        start_line: int = 1,
        end_line: int | None = None,
        message: str = "This path depends on a user-provided value.",
        tool: str = "CodeQL",
    ) -> dict[str, Any]:
        """A code-scanning alert on the PR's merge ref (`refs/pull/<pr>/merge`) in GitHub's
        shape (tests/fakegithub/code_scanning.py); `state` open, dismissed or fixed."""
        with self._lock:
            cs = self._code_scanning
            cs.next_number += 1
            ref = cs_merge_ref(pr)
            alert = alert_json(
                self.repo,
                number if number is not None else cs.next_number,
                ref=ref,
                state=state,
                rule_id=rule_id,
                description=description,
                severity=severity,
                security_severity_level=security_severity_level,
                path=path,
                start_line=start_line,
                end_line=end_line,
                message=message,
                tool=tool,
            )
            cs.alerts.append(alert)
            cs.analysed.add(ref)
            self._analyse(pr)
            return json.loads(json.dumps(alert))

    def set_code_scanning_alert_state(
        self, number: int, state: str, *, dismissed_by: str | None = None
    ) -> None:
        """Someone dismissed (`dismissed_by`, a login), a push fixed, or reopened alert
        `number`."""
        with self._lock:
            for alert in self._code_scanning.alerts:
                if alert["number"] == number:
                    alert["state"] = alert["most_recent_instance"]["state"] = state
                    who = self._user(dismissed_by) if dismissed_by else None
                    alert["dismissed_by"] = who if state == "dismissed" else None

    def add_code_scanning_analysis(
        self, pr: int, *, category: str = CS_PYTHON, tool: str = "CodeQL"
    ) -> None:
        """An analysis of the PR's merge ref (one tool and category) that found nothing
        (alerts list `[]`, not 404)."""
        with self._lock:
            self._code_scanning.analysed.add(cs_merge_ref(pr))
            self._analyse(pr, category, tool)

    def add_base_analysis(
        self, category: str = CS_PYTHON, *, tool: str = "CodeQL", branch: str = "main"
    ) -> None:
        """An analysis of the base branch's latest commit, for one tool and category: a PR's
        merge commit must be analysed for it too."""
        with self._lock:
            cs = self._code_scanning
            aid = 9_000 + len(cs.analyses)
            sha = hashlib.sha1(f"{self.repo}:{branch}".encode()).hexdigest()
            ref = f"refs/heads/{branch}"
            item = analysis_json(self.repo, aid, ref, sha, self._now(), category, tool)
            cs.analyses.insert(0, item)

    def _analyse(self, pr: int, category: str = CS_PYTHON, tool: str = "CodeQL") -> None:
        """An analysis of the PR's current merge commit for one tool and category, as `GET
        code-scanning/analyses` lists it (the fields of GitHub's "List code scanning analyses
        for a repository")."""
        cs = self._code_scanning
        sha = self._pulls[pr]["merge_commit_sha"] if pr in self._pulls else None
        if sha is None or any(
            a["commit_sha"] == sha and a["category"] == category and a["tool"]["name"] == tool
            for a in cs.analyses
        ):
            return
        aid = 9_000 + len(cs.analyses)
        item = analysis_json(self.repo, aid, cs_merge_ref(pr), sha, self._now(), category, tool)
        cs.analyses.insert(0, item)

    def forget_code_scanning_analyses(self) -> None:
        """No analysis of any merge commit yet (the analysis workflow has not finished)."""
        with self._lock:
            self._code_scanning.analyses.clear()

    def fail_code_scanning(self, kind: str, *, page: int | None = None, times: int = 100) -> None:
        """Make `GET code-scanning/alerts` fail as GitHub does, for the next `times` requests
        (by default: from now on, every retry): "forbidden" (403 Resource not accessible by
        integration: no `security-events: read`), "no_analysis" (404 no analysis found) or
        "unavailable" (503, Retry-After 0); `page`: only that page's requests."""
        bodies: dict[str, tuple[int, dict[str, Any] | None]] = {
            "forbidden": (403, {"message": MSG_NOT_ACCESSIBLE, "documentation_url": CS_DOC}),
            "no_analysis": (404, {"message": MSG_NO_ANALYSIS, "documentation_url": CS_DOC}),
            "unavailable": (503, None),
        }
        status, body = bodies[kind]
        where = r"/code-scanning/(?:alerts|analyses)\?" + (
            rf"(?:.*&)?page={page}(?:&|$)" if page else ""
        )
        retries = {"Retry-After": "0"} if status >= 500 else {}
        self.inject("GET", where, status=status, body=body, headers=retries, times=times)

    def set_file(self, path: str, ref: str, text: str | bytes) -> None:
        with self._lock:
            self._files.put(path, ref, text)

    def merge_commit(self, pr: int) -> str:
        """The test merge commit of PR `pr` (`merge_commit_sha`): where its merged files are."""
        with self._lock:
            return str(self._pulls[pr]["merge_commit_sha"])

    def commit_file(self, path: str, branch: str, content: str | bytes | None) -> str:
        """A commit on `branch` that sets `path` to `content` (None: deletes it), listed by
        `GET commits?sha={branch}&path={path}` newest first; the file is readable at its SHA.
        Its SHA."""
        with self._lock:
            return self._files.commit(path, branch, content, self._now())

    # ---------------------------------------------------------------- others' evidence
    # Check runs of other GitHub Apps, commit statuses anyone set, reactions on a PR: in
    # GitHub's shapes (tests/fakegithub/evidence.py), listed like everything else.
    def add_bot_check_run(
        self,
        sha: str,
        name: str,
        *,
        app_slug: str,
        app_id: int,
        status: str = "completed",
        conclusion: str | None = "success",
        title: str | None = None,
        summary: str | None = None,
        started_at: str | None = None,
        completed_at: str | None = None,
        app_name: str | None = None,
    ) -> int:
        """A check run another GitHub App made on `sha` (e.g. `cursor` 1210556 "Cursor
        Bugbot", `greptile-apps` 867647 "Greptile Review", `github-actions` 15368
        "copilot-pull-request-reviewer"), listed by `GET commits/{sha}/check-runs` as GitHub
        lists any run. `conclusion` only counts when `status` is completed. Its id."""
        with self._lock:
            org = "github" if app_id == ACTIONS_APP["id"] else app_slug
            owner = self._user(org, "Organization")
            app = app_json(app_id, app_slug, app_name or app_slug, owner)
            run = self._new_run(name, sha, app, started_at, None)
            run["status"] = status
            if status == "completed":
                run["conclusion"] = conclusion
                run["completed_at"] = completed_at or self._now()
            run["output"].update(title=title, summary=summary)
            self._check_runs.append(run)
            return int(run["id"])

    def set_bot_check_run(
        self,
        run_id: int,
        *,
        status: str | None = None,
        conclusion: str | None = None,
        title: str | None = None,
        summary: str | None = None,
        completed_at: str | None = None,
    ) -> None:
        """The App moves its run (e.g. in_progress → completed with a conclusion, which sets
        `completed_at`; back to in_progress clears both). None leaves a field as it is."""
        with self._lock:
            run = self._find(self._check_runs, run_id)
            if run is None:
                raise KeyError(run_id)
            change = {k: v for k, v in (("status", status), ("conclusion", conclusion)) if v}
            self._apply_status(run, change, f"{DOCS}/checks/runs#update-a-check-run")
            if completed_at is not None and run["status"] == "completed":
                run["completed_at"] = completed_at
            for key, value in (("title", title), ("summary", summary)):
                if value is not None:
                    run["output"][key] = value

    def add_status(
        self,
        sha: str,
        context: str,
        state: str,
        *,
        creator_login: str,
        creator_type: str = "Bot",
        description: str | None = None,
        target_url: str | None = None,
    ) -> int:
        """A commit status someone else set on `sha` (e.g. `coderabbitai[bot]`, context
        "CodeRabbit", "Review in progress"): listed by `GET commits/{sha}/statuses` with its
        `creator`, and counted in the combined `GET commits/{sha}/status`. Its id."""
        if state not in ("error", "failure", "pending", "success"):
            raise ValueError(f"unknown commit status state {state!r}")
        with self._lock:
            creator = self._user(creator_login, creator_type)
            status = self._make_status(
                sha, context, state, description, target_url, creator, creator["avatar_url"]
            )
            return int(status["id"])

    def add_reaction(
        self,
        pr: int,
        content: str,
        *,
        login: str,
        user_type: str = "Bot",
        created_at: str | None = None,
    ) -> int:
        """`login` reacts with `content` ("+1", "eyes", …) to issue or PR `pr` itself, as
        `chatgpt-codex-connector[bot]` does: listed by `GET issues/{pr}/reactions`. Reacting
        again with the same content adds nothing (GitHub answers with the existing one). Its
        id."""
        with self._lock:
            if pr not in self._pulls and pr not in self._issues:
                raise KeyError(f"no pull request or issue #{pr}")
            for r in self._reactions:
                if r["_issue"] == pr and r["content"] == content and r["user"]["login"] == login:
                    return int(r["id"])
            user = self._user(login, user_type)
            rid = self._next_id("reaction")
            reaction = reaction_json(
                rid, user=user, content=content, created=created_at or self._now()
            )
            self._reactions.append({**reaction, "_issue": pr})
            return rid

    def remove_reaction(self, reaction_id: int) -> None:
        """The reaction is taken back (e.g. Codex's `eyes` once it has reviewed)."""
        with self._lock:
            reaction = self._find(self._reactions, reaction_id)
            if reaction is None:
                raise KeyError(reaction_id)
            self._reactions.remove(reaction)

    # ---------------------------------------------------------------- observation
    def request_log(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self.requests)

    def issue_comments(self, pr: int) -> list[dict[str, Any]]:
        with self._lock:
            return [_public(c) for c in self._issue_comments if c["_issue"] == pr]

    def review_comments(self, pr: int) -> list[dict[str, Any]]:
        with self._lock:
            return [_public(c) for c in self._review_comments if c["_pr"] == pr]

    def statuses(self, sha: str) -> list[dict[str, Any]]:
        with self._lock:
            return [_public(s) for s in self._statuses if s["_sha"] == sha]

    def reactions(self, number: int) -> list[dict[str, Any]]:
        with self._lock:
            return [_public(r) for r in self._reactions if r["_issue"] == number]

    def check_runs(self, sha: str | None = None) -> list[dict[str, Any]]:
        """Check runs (oldest first) with `annotations`: every annotation ever sent."""
        with self._lock:
            out = []
            for run in self._check_runs:
                if sha is None or run["head_sha"] == sha:
                    item = _public(run)
                    item["annotations"] = json.loads(json.dumps(run["_annotations"]))
                    out.append(item)
            return out

    @property
    def rate_limit_remaining(self) -> int:
        with self._lock:
            return self._rate_remaining

    @property
    def rate_limit_reset(self) -> int:
        """The epoch second `x-ratelimit-reset` names."""
        with self._lock:
            return self._rate_reset

    # ---------------------------------------------------------------- faults, hooks
    def inject(
        self,
        method: str,
        path_regex: str,
        *,
        status: int | None = None,
        times: int = 1,
        headers: dict[str, str] | None = None,
        body: dict[str, Any] | str | None = None,
        action: str | None = None,
        exhausted: bool = False,
        query_contains: str | None = None,
    ) -> None:
        """The next `times` requests with this method ("*" = any) whose path (with query)
        matches `path_regex` (re.search) — and, with `query_contains`, whose GraphQL query holds
        that text (`userContentEdits`: the edit-history read, not `viewer`) — fail: with
        `status` (GitHub-shaped error JSON unless
        `body`; extra `headers` such as Retry-After) or with `action` "reset" (connection closed
        with RST, no answer), "timeout" (no answer for `fault_timeout_seconds`, then closed) or
        "truncate" (200 headers with a Content-Length larger than the body, then closed).
        `exhausted` (with status 403 or 429): a primary rate limit used up on this endpoint only:
        GitHub's "API rate limit exceeded" message, `x-ratelimit-remaining: 0` and the reset
        time an hour ahead (unlike `set_rate_limit_remaining`, which starves every endpoint)."""
        if exhausted and status not in (403, 429):
            raise ValueError("exhausted= needs status=403 or status=429")
        if (status is None) == (action is None):
            raise ValueError("give exactly one of status= or action=")
        if action not in (None, "reset", "timeout", "truncate"):
            raise ValueError(f"unknown action {action!r}")
        with self._lock:
            self._faults.append(
                Fault(
                    method.upper(),
                    re.compile(path_regex),
                    status,
                    times,
                    dict(headers or {}),
                    body,
                    action,
                    exhausted,
                    query_contains=query_contains,
                )
            )

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.clear()

    def on_request(self, callback: Callable[[FakeGitHub, RecordedRequest], None]) -> None:
        with self._lock:
            self._hooks.append(callback)

    def before_request(self, callback: Callable[[str, str], None]) -> None:
        """`callback(method, path)` runs in the server thread before a request is handled,
        outside the lock; it may block (e.g. on a barrier) to force an interleaving of clients."""
        with self._lock:
            self._before_hooks.append(callback)

    def _before(self, method: str, path: str) -> None:
        with self._lock:
            hooks = list(self._before_hooks)
        for hook in hooks:
            hook(method, path)

    def will_stall(self, method: str, url: str, body: Any = None) -> bool:
        """Whether the request about to be sent, `method url` with JSON `body`, meets an injected
        "timeout" fault: the first fault it matches, as the fake will take it. A yes reserves
        that fault for this very attempt (the stall is spent when asked, not when the server
        thread gets to it), so a retry is never told to stall for it again. Before answering it
        waits (bounded) until every stall promised to an earlier attempt has reached the fake:
        a late server thread can then never hand this attempt the stall meant for the last one,
        and the answer does not depend on thread scheduling."""
        split = urlsplit(url)
        raw_path = split.path + (f"?{split.query}" if split.query else "")
        with self._stalled:
            if not self._stalled.wait_for(lambda: not self._stalls, timeout=STALL_WAIT):
                self._stalls.clear()  # never sent: nothing will take them
            fault = self._matching_fault(method.upper(), raw_path, body)
            if fault is None or fault.action != "timeout":
                return False
            self._spend(fault)
            self._stalls.append(fault)
            return True

    def timeouts(
        self, stalled: float = 0.1, answered: float = 60.0
    ) -> Callable[[str, str, Any], float]:
        """A gateway's per-request timeout (`PyGithubGateway(timeout=fake.timeouts())`): short
        only for a request this fake will stall (`will_stall`), generous for every other one, so
        that a loaded machine never turns a slow answer into a timeout, a retry and a different
        count."""

        def pick(method: str, url: str, body: Any = None) -> float:
            return stalled if self.will_stall(method, url, body) else answered

        return pick

    def set_rate_limit_remaining(self, n: int, *, reset_in: float = 3600.0) -> None:
        """Primary rate limit: at 0 every request gets 403 "API rate limit exceeded …" with
        `x-ratelimit-remaining: 0`, until `x-ratelimit-reset` (wall clock) has passed."""
        with self._lock:
            self._rate_remaining = max(0, n)
            self._rate_reset = int(time.time() + reset_in)

    # ---------------------------------------------------------------- request handling
    def _after(self, recorded: RecordedRequest) -> None:
        with self._lock:
            hooks = list(self._hooks)
        for hook in hooks:
            hook(self, recorded)

    def _handle(
        self, method: str, raw_path: str, headers: dict[str, str], raw: bytes
    ) -> tuple[Reply, RecordedRequest]:
        body: Any = None
        bad_json = False
        if raw:
            try:
                body = json.loads(raw)
            except ValueError:
                bad_json = True
        with self._lock:
            try:
                reply = self._dispatch(method, raw_path, headers, body, bad_json)
            except HttpError as err:
                reply = Reply(err.status, err.body)
            if reply.counted:
                self.rate_limit_used += 1
                self._rate_remaining = max(0, self._rate_remaining - 1)
            reply.headers.update(self._rate_headers())
            if reply.exhausted:
                reply.headers["x-ratelimit-remaining"] = "0"
                reply.headers["x-ratelimit-used"] = str(self._rate_limit)
            reply.headers.setdefault("X-GitHub-Request-Id", f"FAKE:{len(self.requests) + 1:06d}")
            etag = reply.headers.get("ETag")
            recorded = RecordedRequest(
                method=method,
                path=raw_path,
                status=0 if reply.action else reply.status,
                headers=dict(headers),
                body=body,
                response_etag=etag,
                login=reply.login,
                action=reply.action,
            )
            self.requests.append(recorded)
            return reply, recorded

    def _rate_headers(self) -> dict[str, str]:
        return {
            "x-ratelimit-limit": str(self._rate_limit),
            "x-ratelimit-remaining": str(self._rate_remaining),
            "x-ratelimit-used": str(self._rate_limit - self._rate_remaining),
            "x-ratelimit-reset": str(self._rate_reset),
            "x-ratelimit-resource": "core",
        }

    @staticmethod
    def _matches(fault: Fault, method: str, raw_path: str, body: Any) -> bool:
        query = str(body.get("query", "")) if isinstance(body, dict) else ""
        if fault.query_contains is not None and fault.query_contains not in query:
            return False
        return fault.method in ("*", method) and bool(fault.pattern.search(raw_path))

    def _matching_fault(self, method: str, raw_path: str, body: Any) -> Fault | None:
        return next((f for f in self._faults if self._matches(f, method, raw_path, body)), None)

    def _spend(self, fault: Fault) -> None:
        fault.times -= 1
        if fault.times <= 0:
            self._faults.remove(fault)

    def _take_fault(self, method: str, raw_path: str, body: Any = None) -> Fault | None:
        for fault in self._stalls:  # reserved by `will_stall` for a request already sent
            if self._matches(fault, method, raw_path, body):
                self._stalls.remove(fault)
                self._stalled.notify_all()
                return fault
        fault = self._matching_fault(method, raw_path, body)
        if fault is not None:
            self._spend(fault)
        return fault

    def _fault_reply(self, fault: Fault) -> Reply:
        if fault.action is not None:
            if fault.action == "truncate":
                return Reply(200, [{"id": 1, "body": "x" * 64}], action="truncate")
            return Reply(0, action=fault.action)
        status = fault.status or 500
        body: Any = fault.body
        if body is None and fault.exhausted:
            body = {
                "message": f"API rate limit exceeded for installation ID {self.repo_id}.",
                "documentation_url": "https://docs.github.com/rest/overview/"
                "rate-limits-for-the-rest-api",
            }
        if body is None:
            body = _default_error(status)
        if isinstance(body, str):
            body = _RawText(body)
        return Reply(status, body, headers=dict(fault.headers), exhausted=fault.exhausted)

    def _dispatch(
        self, method: str, raw_path: str, headers: dict[str, str], body: Any, bad_json: bool
    ) -> Reply:
        fault = self._take_fault(method, raw_path, body)
        if fault is not None:
            return self._fault_reply(fault)
        split = urlsplit(raw_path)
        path = split.path
        prefix = ""
        if path.startswith(GHES_PREFIX + "/"):
            prefix, path = GHES_PREFIX, path[len(GHES_PREFIX) :]
        query = parse_qsl(split.query, keep_blank_values=True)
        identity = self._authenticate(headers)
        login = identity.login
        if self._rate_remaining <= 0:
            if time.time() >= self._rate_reset:
                self._rate_remaining = self._rate_limit
                self._rate_reset = int(time.time()) + 3600
            elif path != "/rate_limit":
                raise HttpError(
                    403,
                    f"API rate limit exceeded for installation ID {self.repo_id}. "
                    "If you reach out to GitHub Support for help, please include the request ID.",
                    doc="https://docs.github.com/rest/overview/rate-limits-for-the-rest-api",
                )
        if bad_json:
            raise HttpError(400, "Problems parsing JSON")
        ctx = _Ctx(
            method=method,
            root=f"http://{headers.get('host', self.base_url.removeprefix('http://'))}{prefix}",
            query=query,
            identity=identity,
            body=body,
        )
        reply = self._route(ctx, path)
        reply.login = login
        if method == "GET" and reply.status == 200:
            payload = _dump(reply.body)
            etag = _etag(payload)
            reply.headers["ETag"] = etag
            reply.headers.setdefault("Cache-Control", "private, max-age=60, s-maxage=60")
            reply.headers["Vary"] = "Accept, Authorization, Cookie, X-GitHub-OTP"
            inm = headers.get("if-none-match")
            if inm and etag in [tag.strip() for tag in inm.split(",")]:
                reply.status = 304
                reply.body = None
                reply.headers.pop("Link", None)
                reply.counted = False
        return reply

    def _authenticate(self, headers: dict[str, str]) -> Identity:
        auth = headers.get("authorization", "")
        scheme, _, token = auth.partition(" ")
        identity = (
            self._tokens.get(token.strip()) if scheme.lower() in ("token", "bearer") else None
        )
        if identity is None:
            if not auth:
                raise HttpError(401, "Requires authentication")
            raise HttpError(401, "Bad credentials")
        return identity

    # ---------------------------------------------------------------- routes
    def _route(self, ctx: _Ctx, path: str) -> Reply:
        parts = [unquote(p) for p in path.strip("/").split("/")] if path.strip("/") else []
        m = ctx.method
        if parts == ["user"] and m == "GET":
            if not ctx.identity.user_endpoint:
                raise HttpError(
                    403, MSG_NOT_ACCESSIBLE, doc=f"{DOCS}/users/users#get-the-authenticated-user"
                )
            return Reply(200, self._user(ctx.identity.login))
        if parts == ["rate_limit"] and m == "GET":
            core = {
                "limit": self._rate_limit,
                "remaining": self._rate_remaining,
                "used": self._rate_limit - self._rate_remaining,
                "reset": self._rate_reset,
            }
            return Reply(200, {"resources": {"core": core}, "rate": core}, counted=False)
        if parts == ["graphql"] and m == "POST" and (self._cycles().graphql or _always_served(ctx)):
            # Edit history and the viewer are always served (GitHub always has them); review
            # threads on request.
            return self._graphql(ctx)
        if parts == ["graphql"]:
            raise HttpError(404, "Not Found")
        rest: list[str] | None = None
        if len(parts) >= 3 and parts[0] == "repos":
            if f"{parts[1]}/{parts[2]}".lower() == self.repo.lower():
                rest = parts[3:]
        elif len(parts) >= 2 and parts[0] == "repositories" and parts[1] == str(self.repo_id):
            rest = parts[2:]
        if rest is None:
            raise HttpError(404, "Not Found")
        ctx.rest_path = "/".join(quote(p, safe="") for p in rest)
        return self._repo_route(ctx, rest)

    def _require_write(self, ctx: _Ctx, doc: str) -> None:
        if ctx.identity.read_only:
            raise HttpError(403, MSG_NOT_ACCESSIBLE, doc=doc)

    def _repo_route(self, ctx: _Ctx, rest: list[str]) -> Reply:
        m = ctx.method
        n = len(rest)
        if n == 0 and m == "GET":
            return Reply(200, self._repo_obj())
        head = rest[0]
        if head == "pulls":
            if n == 1 and m == "GET":
                return self._list_pulls(ctx)
            if n == 2 and rest[1].isdigit() and m == "GET":
                return Reply(200, self._pull(int(rest[1])))
            if n == 3 and rest[1].isdigit() and rest[2] == "reviews" and m == "GET":
                pr = int(rest[1])
                self._pull(pr)
                return self._paginate(ctx, [r for r in self._reviews if r["_pr"] == pr])
            if n == 3 and rest[1].isdigit() and rest[2] == "comments" and m == "GET":
                pr = int(rest[1])
                self._pull(pr)
                items = [c for c in self._review_comments if c["_pr"] == pr]
                return self._paginate(ctx, self._sorted(ctx, items))
            if n == 2 and rest[1] == "comments" and m == "GET":
                return self._paginate(ctx, self._sorted(ctx, list(self._review_comments)))
            if n == 3 and rest[1].isdigit() and rest[2] == "requested_reviewers" and m == "POST":
                return self._request_reviewers(ctx, int(rest[1]))
        if head == "issues":
            if n == 3 and rest[1].isdigit() and rest[2] == "comments":
                number = int(rest[1])
                if number not in self._pulls and number not in self._issues:
                    raise HttpError(404, "Not Found", doc=f"{DOCS}/issues/comments")
                if m == "GET":
                    items = [c for c in self._issue_comments if c["_issue"] == number]
                    return self._paginate(ctx, items)
                if m == "POST":
                    return self._create_issue_comment(ctx, number)
            if n == 3 and rest[1].isdigit() and rest[2] == "timeline" and m == "GET":
                number = int(rest[1])
                if number not in self._pulls and number not in self._issues:
                    raise HttpError(404, "Not Found", doc=f"{DOCS}/issues/timeline")
                return self._paginate(ctx, list(self._timelines.get(number, [])))
            if n == 3 and rest[1].isdigit() and rest[2] == "reactions" and m == "GET":
                number = int(rest[1])
                if number not in self._pulls and number not in self._issues:
                    raise HttpError(404, "Not Found", doc=f"{DOCS}/reactions/reactions")
                content = dict(ctx.query).get("content")
                items = [
                    r
                    for r in self._reactions
                    if r["_issue"] == number and content in (None, r["content"])
                ]
                return self._paginate(ctx, items)
            if n == 2 and rest[1] == "comments" and m == "GET":
                since = dict(ctx.query).get("since")  # updated at or after (ISO 8601, Z)
                items = [c for c in self._issue_comments if not since or c["updated_at"] >= since]
                return self._paginate(ctx, self._sorted(ctx, items))
            if n == 3 and rest[1] == "comments" and rest[2].isdigit():
                return self._issue_comment_by_id(ctx, int(rest[2]))
        if head == "statuses" and n == 2 and m == "POST":
            return self._create_status(ctx, rest[1])
        dispatches = n == 4 and rest[1] == "workflows" and rest[3] == "dispatches"
        if head == "actions" and dispatches and m == "POST":
            return self._dispatch_workflow(ctx, rest[2])
        if head == "commits" and n == 1 and m == "GET":
            q = dict(ctx.query)
            return self._paginate(ctx, self._files.log(q.get("path", ""), q.get("sha", "main")))
        if head == "commits" and n == 2 and m == "GET":
            return Reply(200, self._commit(rest[1]))
        if head == "commits" and n == 3 and m == "GET":
            if rest[2] == "status":
                return Reply(200, self._combined_status(rest[1]))
            if rest[2] == "statuses":
                items = [s for s in reversed(self._statuses) if s["_sha"] == rest[1]]
                return self._paginate(ctx, items)
            if rest[2] == "check-runs":
                return self._list_check_runs(ctx, rest[1])
            if rest[2] == "check-suites":
                return self._paginate(ctx, self._check_suites(rest[1]), wrap="check_suites")
        if head == "check-runs":
            if n == 1 and m == "POST":
                return self._create_check_run(ctx)
            if n == 2 and rest[1].isdigit():
                run = self._find(self._check_runs, int(rest[1]))
                if run is None:
                    raise HttpError(404, "Not Found", doc=f"{DOCS}/checks/runs")
                if m == "GET":
                    return Reply(200, _public(run))
                if m == "PATCH":
                    return self._update_check_run(ctx, run)
        if head == "contents" and n >= 2 and m == "GET":
            return self._contents(ctx, "/".join(rest[1:]))
        if rest == ["code-scanning", "analyses"] and m == "GET":
            ref = dict(ctx.query).get("ref")
            if not self._code_scanning.analyses:  # GitHub: 404 until any analysis exists
                raise HttpError(404, MSG_NO_ANALYSIS, doc=CS_DOC)
            items = [a for a in self._code_scanning.analyses if ref is None or a["ref"] == ref]
            return self._paginate(ctx, items)
        if rest == ["code-scanning", "alerts"] and m == "GET":
            listed = self._code_scanning.listed(dict(ctx.query))
            if listed is None:
                raise HttpError(404, MSG_NO_ANALYSIS, doc=CS_DOC)
            return self._paginate(ctx, listed)
        cycles_reply = self._cycles_route(ctx, rest)
        if cycles_reply is not None:
            return cycles_reply
        raise HttpError(404, "Not Found")

    # ---------------------------------------------------------------- route helpers
    @staticmethod
    def _find(items: list[dict[str, Any]], item_id: int) -> dict[str, Any] | None:
        for item in items:
            if item["id"] == item_id:
                return item
        return None

    def _commit(self, sha: str) -> dict[str, Any]:
        """`GET commits/{sha}`, reduced to what a head commit needs: its committer date (the
        time the fake made it the head)."""
        when = self._commit_times.get(sha)
        if when is None:
            raise HttpError(422, f"No commit found for SHA: {sha}", doc=f"{DOCS}/commits")
        person = {"name": "Octo Cat", "email": "octocat@github.com", "date": when}
        return {
            "sha": sha,
            "url": self._api(f"commits/{sha}"),
            "html_url": self._web(f"commit/{sha}"),
            "commit": {"author": person, "committer": person, "message": "change"},
        }

    def _check_suites(self, sha: str) -> list[dict[str, Any]]:
        """`GET commits/{sha}/check-suites`: the suite GitHub Actions got when the commit was
        pushed (created then), and one per App that created a check run on it later."""
        if sha not in self._commit_times and sha not in self._arrivals:
            raise HttpError(422, f"No commit found for SHA: {sha}", doc=f"{DOCS}/checks/suites")
        suites: list[dict[str, Any]] = []
        branch = self._arrival_branch.get(sha)
        if sha in self._arrivals:
            suites.append(self._suite(sha, ACTIONS_APP, self._arrivals[sha], 0, branch))
        for run in self._check_runs:
            if run["head_sha"] == sha:
                suites.append(self._suite(sha, run["app"], run["started_at"], run["id"], branch))
        return suites

    def _suite(
        self, sha: str, app: dict[str, Any], created: str, key: int, branch: str | None
    ) -> dict[str, Any]:
        sid = 7_000_000 + zlib.crc32(f"{sha}:{app.get('id')}:{key}".encode()) % 1_000_000
        return {
            "id": sid,
            "head_branch": branch,
            "head_sha": sha,
            "status": "queued",
            "conclusion": None,
            "app": {"id": app.get("id"), "slug": app.get("slug")},
            "created_at": created,
            "updated_at": created,
        }

    def _list_pulls(self, ctx: _Ctx) -> Reply:
        """`GET pulls`: `state` open (default), closed or all; `sort` created (default) or
        updated; newest first (GitHub's default `direction=desc`); items in the list shape (no
        merge or size fields; `merged_at` is there)."""
        q = dict(ctx.query)
        state = q.get("state", "open")
        if state not in ("open", "closed", "all"):
            raise _validation("PullRequest", "state", "state is invalid", DOCS, "invalid")
        sort = q.get("sort", "created")
        if sort not in ("created", "updated"):
            raise _validation("PullRequest", "sort", "sort is invalid", DOCS, "invalid")
        pulls = [p for p in self._pulls.values() if state in ("all", p["state"])]
        if "head" in q:  # `user:ref-name` (GitHub's filter: "user or organization name and branch")
            pulls = [p for p in pulls if p["head"]["label"] == q["head"]]
        desc = q.get("direction", "desc") == "desc"
        key = f"{sort}_at"
        pulls.sort(key=lambda p: (p[key], p["number"]), reverse=desc)
        items = [{k: v for k, v in p.items() if k not in _DETAIL_ONLY} for p in pulls]
        return self._paginate(ctx, items)

    def _pull(self, number: int) -> dict[str, Any]:
        pull = self._pulls.get(number)
        if pull is None:
            raise HttpError(404, "Not Found", doc=f"{DOCS}/pulls/pulls#get-a-pull-request")
        return json.loads(json.dumps(pull))

    @staticmethod
    def _sorted(ctx: _Ctx, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        q = dict(ctx.query)
        sort = q.get("sort")
        if sort not in ("created", "updated"):
            return sorted(items, key=lambda c: c["id"])
        key = "created_at" if sort == "created" else "updated_at"
        desc = q.get("direction", "desc" if sort else "asc") == "desc"
        return sorted(items, key=lambda c: (c[key], c["id"]), reverse=desc)

    def _paginate(self, ctx: _Ctx, items: list[dict[str, Any]], wrap: str | None = None) -> Reply:
        q = dict(ctx.query)
        try:
            per_page = int(q.get("per_page", "30"))
        except ValueError:
            per_page = 30
        per_page = max(1, min(per_page, self.per_page_max))
        try:
            page = max(1, int(q.get("page", "1")))
        except ValueError:
            page = 1
        last = max(1, math.ceil(len(items) / per_page))
        chunk = [_public(i) for i in items[(page - 1) * per_page : page * per_page]]
        keep = [(k, v) for k, v in ctx.query if k != "page"]

        def url(p: int) -> str:
            query = urlencode([*keep, ("page", str(p))])
            return f"{ctx.root}/repositories/{self.repo_id}/{ctx.rest_path}?{query}"

        rels: list[tuple[int, str]] = []
        if page > 1:
            rels.append((page - 1, "prev"))
        if page < last:
            rels += [(page + 1, "next"), (last, "last")]
        if page > 1:
            rels.append((1, "first"))
        headers = {}
        if last > 1 or page > 1:
            headers["Link"] = ", ".join(f'<{url(p)}>; rel="{rel}"' for p, rel in rels)
        body: Any = chunk if wrap is None else {"total_count": len(items), wrap: chunk}
        return Reply(200, body, headers=headers)

    def _request_reviewers(self, ctx: _Ctx, number: int) -> Reply:
        """`POST pulls/{n}/requested_reviewers` as GitHub answers it: 201 and the pull request
        with `requested_reviewers`. Copilot's reviewer is `copilot-pull-request-reviewer[bot]`;
        `Copilot` is accepted and requests nothing (GitHub's silent 200), the login without
        `[bot]` — or anyone who is not a collaborator — is a 422."""
        doc = f"{DOCS}/pulls/review-requests#request-reviewers-for-a-pull-request"
        self._require_write(ctx, doc)
        self._pull(number)  # 404 for an unknown PR
        pull = self._pulls[number]
        wanted = ctx.body.get("reviewers") if isinstance(ctx.body, dict) else None
        if not isinstance(wanted, list) or not all(isinstance(w, str) for w in wanted):
            raise _validation(
                "PullRequest", "reviewers", "reviewers wasn't supplied", doc, "invalid"
            )
        added = []
        for login in wanted:
            if login == "Copilot":
                continue
            if login != COPILOT_REVIEWER_LOGIN and login not in self._cycles().permissions:
                raise HttpError(
                    422,
                    "Reviews may only be requested from collaborators. One or more of the users "
                    f"or teams you specified is not a collaborator of the {self.repo} repository.",
                    doc=doc,
                )
            added.append(self._user(login, "Bot" if login.endswith("[bot]") else "User"))
        with self._lock:
            requested = pull.setdefault("requested_reviewers", [])
            requested.extend(u for u in added if u["login"] not in {r["login"] for r in requested})
            pull["updated_at"] = self._now()
            self.review_requests.append((number, [u["login"] for u in added]))
            return Reply(201, json.loads(json.dumps(pull)))

    def _create_issue_comment(self, ctx: _Ctx, number: int) -> Reply:
        doc = f"{DOCS}/issues/comments#create-an-issue-comment"
        self._require_write(ctx, doc)
        text = _body_str(ctx.body, "body", "IssueComment", doc)
        if len(text) > 65536:
            raise _validation(
                "IssueComment",
                "data",
                "Body is too long (maximum is 65536 characters)",
                doc,
                "unprocessable",
            )
        comment = self._make_issue_comment(number, ctx.identity.login, text, None, None)
        comment["performed_via_github_app"] = ctx.identity.app
        return Reply(201, _public(comment), headers={"Location": comment["url"]})

    def _issue_comment_by_id(self, ctx: _Ctx, comment_id: int) -> Reply:
        comment = self._find(self._issue_comments, comment_id)
        if comment is None:
            raise HttpError(404, "Not Found", doc=f"{DOCS}/issues/comments")
        if ctx.method == "GET":
            return Reply(200, _public(comment))
        if ctx.method == "PATCH":
            doc = f"{DOCS}/issues/comments#update-an-issue-comment"
            self._require_write(ctx, doc)
            text = _body_str(ctx.body, "body", "IssueComment", doc)
            if len(text) > 65536:
                raise _validation(
                    "IssueComment",
                    "data",
                    "Body is too long (maximum is 65536 characters)",
                    doc,
                    "unprocessable",
                )
            comment["body"] = text
            comment["updated_at"] = self._now()
            comment.setdefault("_edited_by", []).append(ctx.identity.login)
            edit = (ctx.identity.login, ctx.identity.type, comment["updated_at"])
            comment.setdefault("_edits", []).append(edit)
            return Reply(200, _public(comment))
        if ctx.method == "DELETE":
            self._require_write(ctx, f"{DOCS}/issues/comments#delete-an-issue-comment")
            self._issue_comments.remove(comment)
            return Reply(204, None)
        raise HttpError(404, "Not Found")

    def _dispatch_workflow(self, ctx: _Ctx, workflow: str) -> Reply:
        """As GitHub answers it: 403 "Resource not accessible by integration" without `actions:
        write`, 404 for a workflow that is not there, 422 without `ref` or with an input the
        workflow does not take; else 204, no body, and the run is GitHub's to start."""
        doc = f"{DOCS}/actions/workflows#create-a-workflow-dispatch-event"
        if ctx.identity.read_only or not self.actions_write:
            raise HttpError(403, MSG_NOT_ACCESSIBLE, doc=doc)
        if workflow not in self.workflows:
            raise HttpError(404, "Not Found", doc=doc)
        data = ctx.body if isinstance(ctx.body, dict) else {}
        ref, inputs = data.get("ref"), data.get("inputs") or {}
        if not isinstance(ref, str) or not ref:
            raise HttpError(422, 'Invalid request.\n\n"ref" wasn\'t supplied.', doc=doc)
        unexpected = sorted(set(inputs) - self.workflows[workflow])
        if unexpected:
            raise HttpError(422, f"Unexpected inputs provided: {json.dumps(unexpected)}", doc=doc)
        self.dispatches.append(
            {"workflow": workflow, "ref": ref, "inputs": dict(inputs), "login": ctx.identity.login}
        )
        return Reply(204, None)

    def _create_status(self, ctx: _Ctx, sha: str) -> Reply:
        doc = f"{DOCS}/commits/statuses#create-a-commit-status"
        self._require_write(ctx, doc)
        data = ctx.body if isinstance(ctx.body, dict) else {}
        state = data.get("state")
        if state not in ("error", "failure", "pending", "success"):
            raise _validation("Status", "state", "state is not included in the list", doc, "custom")
        description = data.get("description")
        if isinstance(description, str) and len(description) > 140:
            raise HttpError(
                422,
                "Validation Failed",
                doc=doc,
                errors=[
                    {
                        "resource": "Status",
                        "code": "custom",
                        "field": "description",
                        "message": "description is too long (maximum is 140 characters)",
                    }
                ],
            )
        status = self._make_status(
            sha,
            data.get("context") or "default",
            state,
            description,
            data.get("target_url"),
            self._user(ctx.identity.login),
            "https://avatars.githubusercontent.com/in/15368?v=4",
        )
        return Reply(201, _public(status))

    def _make_status(
        self,
        sha: str,
        context: str,
        state: str,
        description: str | None,
        target_url: str | None,
        creator: dict[str, Any],
        avatar_url: str,
    ) -> dict[str, Any]:
        status = status_json(
            url=self._api(f"statuses/{sha}"),
            status_id=self._next_id("status"),
            state=state,
            context=context,
            description=description,
            target_url=target_url,
            created=self._now(),
            creator=creator,
            avatar_url=avatar_url,
        )
        status["_sha"] = sha
        self._statuses.append(status)
        return status

    def _combined_status(self, ref: str) -> dict[str, Any]:
        latest: dict[str, dict[str, Any]] = {}
        for s in self._statuses:
            if s["_sha"] == ref:
                latest[s["context"].lower()] = s
        statuses = [_public(s) for s in latest.values()]
        for s in statuses:
            s.pop("creator", None)
        states = {s["state"] for s in statuses}
        if states & {"error", "failure"}:
            state = "failure"
        elif not statuses or "pending" in states:
            state = "pending"
        else:
            state = "success"
        return {
            "state": state,
            "statuses": statuses,
            "sha": ref,
            "total_count": len(statuses),
            "repository": self._repo_obj(),
            "commit_url": self._api(f"commits/{ref}"),
            "url": self._api(f"commits/{ref}/status"),
        }

    def _list_check_runs(self, ctx: _Ctx, ref: str) -> Reply:
        q = dict(ctx.query)
        runs = [r for r in self._check_runs if r["head_sha"] == ref]
        if "check_name" in q:
            runs = [r for r in runs if r["name"] == q["check_name"]]
        if "status" in q:
            runs = [r for r in runs if r["status"] == q["status"]]
        if "app_id" in q:
            runs = [r for r in runs if str((r.get("app") or {}).get("id")) == q["app_id"]]
        if q.get("filter", "latest") == "latest":
            newest: dict[tuple[str, Any], dict[str, Any]] = {}
            for r in runs:
                newest[(r["name"], (r.get("app") or {}).get("id"))] = r
            runs = list(newest.values())
        runs = sorted(runs, key=lambda r: r["id"], reverse=True)
        return self._paginate(ctx, runs, wrap="check_runs")

    def _check_output(
        self, ctx: _Ctx, run: dict[str, Any], output: Any, doc: str, *, creating: bool
    ) -> None:
        if output is None:
            return
        if not isinstance(output, dict):
            raise _validation("CheckRun", "output", "output is not an object", doc, "invalid")
        if creating and not output.get("title"):
            raise _validation("CheckRun", "title", "title wasn't supplied", doc, "missing_field")
        if "summary" not in output:
            raise _validation(
                "CheckRun", "summary", "summary wasn't supplied", doc, "missing_field"
            )
        for key in ("summary", "text"):
            value = output.get(key)
            if isinstance(value, str) and len(value) > 65535:
                raise _validation(
                    "CheckRun",
                    key,
                    f"{key} is too long (maximum is 65535 characters)",
                    doc,
                    "custom",
                )
        annotations = output.get("annotations") or []
        if not isinstance(annotations, list) or len(annotations) > 50:
            raise HttpError(
                422,
                "Invalid request.\n\nOnly 50 annotations are allowed per request.",
                doc=doc,
            )
        for a in annotations:
            if not isinstance(a, dict) or not all(
                k in a for k in ("path", "start_line", "end_line", "annotation_level", "message")
            ):
                raise _validation(
                    "CheckRun", "annotations", "annotation is missing fields", doc, "invalid"
                )
        run["_annotations"].extend(annotations)
        run["output"] = {
            "title": output.get("title", run["output"].get("title")),
            "summary": output.get("summary"),
            "text": output.get("text"),
            "annotations_count": len(run["_annotations"]),
            "annotations_url": self._api(f"check-runs/{run['id']}/annotations"),
        }

    def _apply_status(self, run: dict[str, Any], data: dict[str, Any], doc: str) -> None:
        status = data.get("status")
        conclusion = data.get("conclusion")
        allowed_status = ("queued", "in_progress", "completed")
        allowed_conclusions = (
            "action_required",
            "cancelled",
            "failure",
            "neutral",
            "success",
            "skipped",
            "timed_out",
        )
        if status is not None and status not in allowed_status:
            raise _validation("CheckRun", "status", "status is not included in the list", doc, "x")
        if conclusion is not None and conclusion not in allowed_conclusions:
            raise _validation("CheckRun", "conclusion", "conclusion is invalid", doc, "invalid")
        if status == "completed" and conclusion is None and run.get("conclusion") is None:
            raise _validation(
                "CheckRun", "conclusion", "conclusion wasn't supplied", doc, "missing_field"
            )
        if conclusion is not None:
            run["status"] = "completed"
            run["conclusion"] = conclusion
            run["completed_at"] = self._now()
        elif status is not None:
            run["status"] = status
            if status != "completed":
                run["conclusion"] = None
                run["completed_at"] = None

    def _create_check_run(self, ctx: _Ctx) -> Reply:
        doc = f"{DOCS}/checks/runs#create-a-check-run"
        self._require_write(ctx, doc)
        if ctx.identity.user_endpoint:
            raise HttpError(403, "You must authenticate via a GitHub App.", doc=doc)
        data = ctx.body if isinstance(ctx.body, dict) else {}
        name, head_sha = data.get("name"), data.get("head_sha")
        if not isinstance(name, str) or not name:
            raise _validation("CheckRun", "name", "name wasn't supplied", doc, "missing_field")
        if not isinstance(head_sha, str) or not head_sha:
            raise _validation("CheckRun", "head_sha", "head_sha wasn't supplied", doc, "missing")
        app = ctx.identity.app or dict(ACTIONS_APP)
        app = {
            **app,
            "node_id": base64.b64encode(f"03:Integration{app['id']}".encode()).decode(),
            "owner": self._user(self.repo.partition("/")[0], "Organization"),
            "html_url": f"https://github.com/apps/{app['slug']}",
        }
        details = data.get("details_url") if app["id"] != ACTIONS_APP["id"] else None
        run = self._new_run(name, head_sha, app, data.get("started_at"), details)
        run["external_id"] = data.get("external_id") or ""
        self._check_output(ctx, run, data.get("output"), doc, creating=True)
        self._apply_status(run, data, doc)
        self._check_runs.append(run)
        return Reply(201, _public(run))

    def _new_run(
        self,
        name: str,
        head_sha: str,
        app: dict[str, Any],
        started_at: str | None,
        details_url: str | None,
    ) -> dict[str, Any]:
        """A queued check run as GitHub makes it (not yet listed)."""
        rid = self._next_id("check_run")
        now = self._now()
        return {
            "id": rid,
            "head_sha": head_sha,
            "node_id": base64.b64encode(f"08:CheckRun{rid}".encode()).decode(),
            "external_id": "",
            "url": self._api(f"check-runs/{rid}"),
            "html_url": self._web(f"runs/{rid}"),
            "details_url": details_url or self._web(f"runs/{rid}"),
            "status": "queued",
            "conclusion": None,
            "started_at": started_at or now,
            "completed_at": None,
            "output": {
                "title": None,
                "summary": None,
                "text": None,
                "annotations_count": 0,
                "annotations_url": self._api(f"check-runs/{rid}/annotations"),
            },
            "name": name,
            "check_suite": {"id": self._next_id("check_suite")},
            "app": app,
            "pull_requests": [],
            "_annotations": [],
        }

    def _update_check_run(self, ctx: _Ctx, run: dict[str, Any]) -> Reply:
        doc = f"{DOCS}/checks/runs#update-a-check-run"
        self._require_write(ctx, doc)
        if ctx.identity.user_endpoint:
            raise HttpError(403, "You must authenticate via a GitHub App.", doc=doc)
        mine = ctx.identity.app or dict(ACTIONS_APP)
        if (run.get("app") or {}).get("id") != mine["id"]:
            # Only the GitHub App that created a check run may change it.
            raise HttpError(403, MSG_NOT_ACCESSIBLE, doc=doc)
        data = ctx.body if isinstance(ctx.body, dict) else {}
        updated = json.loads(json.dumps(run))
        self._check_output(ctx, updated, data.get("output"), doc, creating=False)
        self._apply_status(updated, data, doc)
        if isinstance(data.get("name"), str) and data["name"]:
            updated["name"] = data["name"]
        run.clear()
        run.update(updated)
        return Reply(200, _public(run))

    def _contents(self, ctx: _Ctx, path: str) -> Reply:
        ref = dict(ctx.query).get("ref") or "main"
        raw = self._files.at(path, ref)
        if raw is None:
            raise HttpError(404, "Not Found", doc=f"{DOCS}/repos/contents#get-repository-content")
        encoded = base64.b64encode(raw).decode()
        content = "\n".join(encoded[i : i + 60] for i in range(0, len(encoded), 60)) + "\n"
        sha = hashlib.sha1(b"blob %d\0" % len(raw) + raw).hexdigest()
        name = path.rsplit("/", 1)[-1]
        return Reply(
            200,
            {
                "type": "file",
                "encoding": "base64",
                "size": len(raw),
                "name": name,
                "path": path,
                "content": content,
                "sha": sha,
                "url": self._api(f"contents/{path}?ref={ref}"),
                "git_url": self._api(f"git/blobs/{sha}"),
                "html_url": self._web(f"blob/{ref}/{path}"),
                "download_url": f"https://raw.githubusercontent.com/{self.repo}/{ref}/{path}",
            },
        )

    # ---------------------------------------------------------------- review cycles
    # Commit history (for compare and pulls/N/files), collaborator permissions and GraphQL
    # review threads. GraphQL answers only after `enable_graphql()` (404 otherwise, as before).
    def _cycles(self) -> _CyclesState:
        state = self.__dict__.get("_cycles_state")
        if state is None:
            state = _CyclesState()
            self.__dict__["_cycles_state"] = state
        return state

    def set_commit_files(self, sha: str, files: list[str], parent: str | None = None) -> None:
        """Record that commit `sha` (child of `parent`) changed `files`."""
        with self._lock:
            st = self._cycles()
            st.files[sha] = list(files)
            st.parents[sha] = parent

    def push(self, pr: int, sha: str, files: list[str], *, force: bool = False) -> None:
        """A new head commit on the PR changing `files`. `force`: it does not descend from the
        old head (a force-push); the old head then compares as `diverged`."""
        with self._lock:
            old = self._pulls[pr]["head"]["sha"]
            st = self._cycles()
            if old not in st.parents:
                st.parents[old] = None
                st.files.setdefault(old, [])
            self.set_commit_files(sha, files, None if force else old)
            if force:
                st.roots[pr] = sha
            self.set_head(pr, sha, force=force)

    def set_patch(self, sha: str, path: str, patch: str) -> None:
        """The unified-diff `patch` of `path` in commit `sha`, as compare lists it (a compare
        over several commits lists the newest commit's patch of the file)."""
        with self._lock:
            self._cycles().patches[(sha, path)] = patch

    def outdate_review_comment(self, comment_id: int) -> None:
        """GitHub marks an inline comment outdated: its lines changed, `line` is null."""
        with self._lock:
            comment = self._find(self._review_comments, comment_id)
            assert comment is not None
            comment["line"] = None
            comment["start_line"] = None

    def forget_commit(self, sha: str) -> None:
        """The commit is gone (garbage-collected after a force-push): compare → 404."""
        with self._lock:
            self._cycles().gone.add(sha)

    def set_permission(self, login: str, permission: str) -> None:
        with self._lock:
            self._cycles().permissions[login] = permission

    def enable_graphql(self) -> None:
        with self._lock:
            self._cycles().graphql = True

    def set_thread_state(
        self, root_comment_id: int, *, resolved: bool = False, outdated: bool = False
    ) -> None:
        with self._lock:
            self._cycles().threads[root_comment_id] = (resolved, outdated)

    def _chain(self, sha: str) -> list[str]:
        st = self._cycles()
        out: list[str] = []
        cur: str | None = sha
        while cur is not None and cur not in out:
            out.append(cur)
            cur = st.parents.get(cur)
        return out

    def _cycles_route(self, ctx: _Ctx, rest: list[str]) -> Reply | None:
        m = ctx.method
        n = len(rest)
        st = self._cycles()
        if (
            rest[0] == "pulls"
            and n == 3
            and rest[1].isdigit()
            and rest[2] == "files"
            and m == "GET"
        ):
            pull = self._pull(int(rest[1]))
            names: list[str] = []
            for sha in reversed(self._chain(pull["head"]["sha"])):
                for name in st.files.get(sha, []):
                    if name not in names:
                        names.append(name)
            items = [
                {"sha": hashlib.sha1(f.encode()).hexdigest(), "filename": f, "status": "modified"}
                for f in names
            ]
            return self._paginate(ctx, items)
        if rest[0] == "pulls" and n == 3 and rest[1].isdigit() and rest[2:] == ["commits"]:
            if m != "GET":
                raise HttpError(404, "Not Found")
            pull = self._pull(int(rest[1]))
            chain = list(reversed(self._chain(pull["head"]["sha"])))  # oldest first, as GitHub
            items = [{"sha": sha, "commit": {"message": "c"}, "parents": []} for sha in chain]
            return self._paginate(ctx, items[:250])
        if rest[0] == "compare" and n == 2 and m == "GET":
            base, sep, head = rest[1].partition("...")
            if not sep:
                base, _, head = rest[1].partition("..")
            known = set(st.parents) | set(self._commit_times)
            if base in st.gone or base not in known or head not in known:
                raise HttpError(404, "Not Found", doc=f"{DOCS}/commits/commits#compare-two-commits")
            chain = self._chain(head)
            if base == head:
                status, between = "identical", []
            elif base in chain:
                status, between = "ahead", chain[: chain.index(base)]
            else:
                status, between = "diverged", chain
            files: list[str] = []
            patch: dict[str, str] = {}
            for sha in reversed(between):
                for name in st.files.get(sha, []):
                    if name not in files:
                        files.append(name)
                    if (sha, name) in st.patches:
                        patch[name] = st.patches[(sha, name)]
            return Reply(
                200,
                {
                    "status": status,
                    "ahead_by": len(between),
                    "behind_by": 0 if status != "diverged" else 1,
                    "total_commits": len(between),
                    "commits": [],
                    "files": [
                        {"filename": f, "status": "modified"}
                        | ({"patch": patch[f]} if f in patch else {})
                        for f in files
                    ],
                },
            )
        if rest[0] == "collaborators" and n == 3 and rest[2] == "permission" and m == "GET":
            perm = st.permissions.get(rest[1])
            if perm is None:
                raise HttpError(404, "Not Found", doc=f"{DOCS}/collaborators/collaborators")
            legacy = {"maintain": "write", "triage": "read"}.get(perm, perm)
            return Reply(
                200, {"permission": legacy, "role_name": perm, "user": self._user(rest[1])}
            )
        return None

    def _graphql_edits(self, variables: dict[str, Any]) -> Reply:
        """`nodes(ids:)` with each comment's `editor`, `lastEditedAt` and `userContentEdits`, in
        GitHub's shape: newest edit first, the original text as the last entry (edited by its
        author), an empty list for a comment never edited; an unknown id is `null` plus an
        error (GitHub's NOT_FOUND)."""
        ids = variables.get("ids") or []
        if len(ids) > 100:
            return Reply(200, {"errors": [{"message": "too many ids (max 100)"}]})
        by_node = {c["node_id"]: (c, "IssueComment") for c in self._issue_comments}
        by_node.update(
            (c["node_id"], (c, "PullRequestReviewComment")) for c in self._review_comments
        )
        by_node.update((r["node_id"], (r, "PullRequestReview")) for r in self._reviews)
        nodes: list[dict[str, Any] | None] = []
        errors = []
        for node_id in ids:
            c, typename = by_node.get(node_id, (None, ""))
            if c is None:
                nodes.append(None)
                errors.append(
                    {
                        "type": "NOT_FOUND",
                        "message": f"Could not resolve to a node with the global id of '{node_id}'",
                    }
                )
                continue
            edits = c.get("_edits") or []
            author = c["user"]
            original = (author["login"], author["type"], c.get("created_at") or c["submitted_at"])
            history = [*reversed(edits), original] if edits else []
            nodes.append(
                {
                    "__typename": typename,
                    "id": node_id,
                    "lastEditedAt": edits[-1][2] if edits else None,
                    "editor": _actor(*edits[-1][:2]) if edits else None,
                    "userContentEdits": {
                        "totalCount": len(history),
                        "nodes": [
                            {"editedAt": at, "editor": _actor(login, kind)}
                            for login, kind, at in history[:100]
                        ],
                    },
                }
            )
        out: dict[str, Any] = {"data": {"nodes": nodes}}
        if errors:
            out["errors"] = errors
        return Reply(200, out)

    def _graphql(self, ctx: _Ctx) -> Reply:
        body = ctx.body if isinstance(ctx.body, dict) else {}
        query = str(body.get("query", ""))
        variables = body.get("variables") or {}
        if graphql_reading.operation(query):
            return Reply(200, graphql_reading.resolve(self, query, variables))
        if "userContentEdits" in query:
            return self._graphql_edits(variables)
        if "viewer" in query:
            # Any token: a PAT's user, an App installation's `<slug>[bot]` (GitHub spells the
            # viewer's login with the suffix, unlike an actor's elsewhere in GraphQL).
            return Reply(200, {"data": {"viewer": {"login": ctx.identity.login}}})
        if "reviewThreads" not in query:
            return Reply(200, {"errors": [{"message": "unsupported query in the fake"}]})
        pr = int(variables.get("number", 0))
        st = self._cycles()
        nodes = []
        for c in sorted(self._review_comments, key=lambda c: c["id"]):
            if c["_pr"] != pr or c.get("in_reply_to_id") is not None:
                continue
            resolved, outdated = st.threads.get(c["id"], (False, False))
            nodes.append(
                {
                    "isResolved": resolved,
                    "isOutdated": outdated,
                    "path": c["path"],
                    "comments": {"nodes": [{"fullDatabaseId": str(c["id"])}]},
                }
            )
        conn = {"pageInfo": {"hasNextPage": False, "endCursor": None}, "nodes": nodes}
        data = {"repository": {"pullRequest": {"reviewThreads": conn}}}
        return Reply(200, {"data": data})


def _always_served(ctx: _Ctx) -> bool:
    body = ctx.body if isinstance(ctx.body, dict) else {}
    query = str(body.get("query", ""))
    reading = graphql_reading.operation(query) is not None
    return reading or "userContentEdits" in query or "viewer" in query


def _actor(login: str, kind: str) -> dict[str, Any]:
    """GraphQL's `Actor`: a Bot's login has no `[bot]` suffix there (unlike REST)."""
    bot = kind == "Bot"
    return {
        "__typename": "Bot" if bot else "User",
        "login": login.removesuffix("[bot]") if bot else login,
    }


@dataclass
class _CyclesState:
    graphql: bool = False
    files: dict[str, list[str]] = field(default_factory=dict)
    parents: dict[str, str | None] = field(default_factory=dict)
    roots: dict[int, str] = field(default_factory=dict)
    gone: set[str] = field(default_factory=set)
    permissions: dict[str, str] = field(default_factory=dict)
    threads: dict[int, tuple[bool, bool]] = field(default_factory=dict)
    patches: dict[tuple[str, str], str] = field(default_factory=dict)  # (sha, path) → patch


@dataclass
class _Ctx:
    method: str
    root: str  # scheme://host[:port][/api/v3]
    query: list[tuple[str, str]]
    identity: Identity
    body: Any
    rest_path: str = ""


# Fields of `GET pulls/{n}` that the list (`GET pulls`) does not carry.
_DETAIL_ONLY = frozenset(
    {
        "merged",
        "mergeable",
        "rebaseable",
        "mergeable_state",
        "merged_by",
        "comments",
        "review_comments",
        "maintainer_can_modify",
        "commits",
        "additions",
        "deletions",
        "changed_files",
    }
)


class _RawText(str):
    """A non-JSON error body (e.g. an HTML 502 page)."""


def _merge_sha(head_sha: str) -> str:
    """The test merge commit GitHub makes for a PR head (`merge_commit_sha`)."""
    return hashlib.sha1(f"merge:{head_sha}".encode()).hexdigest()


def _public(item: dict[str, Any]) -> dict[str, Any]:
    """A deep copy without the fake's private `_keys`."""
    return {k: json.loads(json.dumps(v)) for k, v in item.items() if not k.startswith("_")}


def _body_str(body: Any, key: str, resource: str, doc: str) -> str:
    value = body.get(key) if isinstance(body, dict) else None
    if not isinstance(value, str):
        raise _validation(resource, key, f"{key} wasn't supplied", doc, "missing_field")
    return value


def _default_error(status: int) -> dict[str, Any]:
    if status == 401:
        return {"message": "Bad credentials", "documentation_url": DOCS, "status": "401"}
    if status in (403, 429):
        return dict(SECONDARY_BODY)
    if status == 404:
        return {"message": "Not Found", "documentation_url": DOCS, "status": "404"}
    if status == 422:
        return {"message": "Validation Failed", "documentation_url": DOCS, "status": "422"}
    if status == 504:
        return {"message": "We couldn't respond to your request in time. Sorry about that."}
    return {"message": "Server Error"}
