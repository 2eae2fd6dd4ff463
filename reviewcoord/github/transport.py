"""One HTTP request to GitHub with our retry policy, via PyGithub's requester.

PyGithub gives us transport, auth and GHES URL handling; its retries and throttle are off
(`retry=None`, `seconds_between_*=None`) because they fall short (docs/github-platform.md §1.5):
they never retry PATCH, ignore 429 without Retry-After and raise `RetryError` after 5xx. Instead:

* Every verb retries 5xx, 429, 403 secondary rate limits and connection resets, timeouts and
  truncated bodies, after Retry-After or an exponential backoff (1, 2, 4 … s), up to
  `max_attempts`; a wait longer than `max_retry_wait` fails at once. Sleeps go through the
  injected `sleep`.
* The first WRITE_BURST writes of a run go at once; every later one waits until `write_spacing`
  seconds after the previous write (injected clock).
* Failures become `GatewayError` / `WriteForbidden`; a rate limit is always reported as 429.

The token never appears in an exception message of ours (`scrub`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from email.utils import parsedate_to_datetime
from typing import Any, NoReturn
from urllib.parse import urlencode, urlsplit

import requests
from github import Auth, Github

from reviewcoord.errors import GatewayError, UsageError, WriteForbidden

# GitHub caps per_page at 100 on list endpoints (OAS: "(max 100)").
PER_PAGE = 100
# GitHub, "Best practices for using the REST API": "If you are making a large number of POST,
# PATCH, PUT, or DELETE requests for a single user or client ID, wait at least one second
# between each request." A run writes a handful (pending status + check run, sticky, final
# status + check run): those go at once, so the verdict is on GitHub within the round trips;
# only writes past the burst (many annotation batches, duplicate clean-up) are spaced.
WRITE_BURST = 5
# A secondary rate limit without Retry-After: wait a minute, as PyGithub's GithubRetry does
# (`secondary_rate_wait`, docs/github-platform.md §1.5).
SECONDARY_DEFAULT_WAIT = 60.0
# 403 for a token that may not do this, e.g. the read-only GITHUB_TOKEN of a fork PR.
MSG_NOT_ACCESSIBLE = "resource not accessible by integration"
# The 403 messages of a secondary rate limit (PyGithub `Requester.py:1001-1011`).
_SECONDARY_HINTS = (
    "secondary rate limit",
    "retry your request again later",
    "wait a few minutes before you try again",
)
_TRANSIENT_ERRORS: tuple[type[Exception], ...] = (
    requests.exceptions.ConnectionError,
    requests.exceptions.Timeout,
    requests.exceptions.ChunkedEncodingError,
    requests.exceptions.ContentDecodingError,
)


DEFAULT_API_URL = "https://api.github.com"


def api_url(env: Mapping[str, str]) -> str:
    """`GITHUB_API_URL` (the runner sets it; GitHub Enterprise Server: `https://HOST/api/v3`),
    default api.github.com: an http(s) URL with a host, or a UsageError naming the variable."""
    raw = env.get("GITHUB_API_URL", "").strip()
    if not raw:
        return DEFAULT_API_URL
    problem = ""
    try:
        parts = urlsplit(raw)
        parts.port  # noqa: B018  # a port that is not a number raises here
    except ValueError:
        problem = "it does not parse as a URL"
    else:
        if parts.scheme not in ("http", "https"):
            problem = "it has no http:// or https:// scheme"
        elif not parts.hostname:
            problem = "it names no host"
        elif parts.query or parts.fragment or any(c.isspace() for c in raw):
            problem = "it carries a query, a fragment or spaces"
    if problem:
        raise UsageError(
            f"GITHUB_API_URL {raw[:100]!r} is not GitHub's API URL: {problem} (expected "
            "https://api.github.com, or https://HOST/api/v3 for GitHub Enterprise Server)"
        )
    return raw.rstrip("/")


@dataclass(frozen=True)
class Response:
    status: int
    headers: dict[str, str]  # names lower-cased
    text: str


# The timeout for one attempt, by verb, URL and JSON body. A run uses one number (`timeout=`);
# tests give a short one only to the request the fake will stall, so a busy machine never turns
# a slow answer into a timeout and a retry (tests/fakegithub: `FakeGitHub.timeouts`).
Timeouts = Callable[[str, str, Any], float]


def _fixed(seconds: float) -> Timeouts:
    return lambda _verb, _url, _body: seconds


def _with_query(url: str, params: dict[str, Any] | None) -> str:
    if not params:
        return url
    return f"{url}{'&' if '?' in url else '?'}{urlencode(params)}"


class Transport:
    """Requests to one GitHub API root, retried, spaced and counted."""

    def __init__(
        self,
        token: str,
        *,
        base_url: str,
        sleep: Callable[[float], None],
        clock: Callable[[], float],
        wall_clock: Callable[[], float],
        write_spacing: float,
        max_attempts: int,
        max_retry_wait: float,
        timeout: float | Timeouts,
    ) -> None:
        self._token = token
        self._sleep = sleep
        self._clock = clock
        self._wall_clock = wall_clock
        self._write_spacing = write_spacing
        self._max_attempts = max_attempts
        self._max_retry_wait = max_retry_wait
        self.base_url = base_url.rstrip("/")
        base = urlsplit(self.base_url)
        # (scheme, host, port) of the API: links we follow must point back here.
        self.origin = (base.scheme, base.hostname, base.port)
        self._timeouts = timeout if callable(timeout) else _fixed(timeout)
        self._gh = Github(
            auth=Auth.Token(token),
            base_url=self.base_url,
            per_page=PER_PAGE,
            retry=None,
            seconds_between_requests=None,
            seconds_between_writes=None,
        )
        self._requester = self._gh.requester
        self.request_count = 0  # every attempt, including retries and 304s
        self.rate_limited_count = 0  # attempts that cost primary rate limit (all but 304)
        self._last_write: float | None = None
        self._writes_sent = 0
        # GitHub's clock: the `Date` of its latest reply (whole seconds), None before any.
        self.server_time: datetime | None = None

    def close(self) -> None:
        self._gh.close()

    # ------------------------------------------------------------------ responses
    def scrub(self, text: str) -> str:
        return text.replace(self._token, "***") if self._token else text

    def malformed(self, endpoint: str, what: str, detail: str) -> NoReturn:
        raise GatewayError(
            f"could not {what}: malformed response ({self.scrub(detail)})", endpoint=endpoint
        )

    def decode(self, resp: Response, endpoint: str, what: str) -> Any:
        """The response body as JSON (None when empty), or GatewayError."""
        try:
            return json.loads(resp.text) if resp.text else None
        except ValueError:
            self.malformed(endpoint, what, f"HTTP {resp.status} body is not JSON")

    # ------------------------------------------------------------------ requests
    def send(
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
    ) -> Response:
        """One logical request with our retry policy. Returns 2xx/304 and `allow`ed statuses;
        raises WriteForbidden / GatewayError for the rest."""
        backoff = 1.0
        attempt = 0
        while True:
            attempt += 1
            try:
                resp = self._attempt(verb, url, params, headers, body, write)
            except _TRANSIENT_ERRORS as exc:
                reason = _describe_transport_error(exc)
                self._retry_or_fail(attempt, backoff, reason, endpoint, what, None)
                backoff *= 2
                continue
            except requests.exceptions.RequestException as exc:
                raise GatewayError(
                    f"could not {what}: {type(exc).__name__}", endpoint=endpoint
                ) from None
            status = resp.status
            if status < 300 or status == 304:
                return resp
            message = self._error_message(resp)
            wait = self._retry_wait(resp, message, backoff, endpoint, what)
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

    def _attempt(
        self,
        verb: str,
        url: str,
        params: dict[str, Any] | None,
        headers: dict[str, str] | None,
        body: Any,
        write: bool,
    ) -> Response:
        """One HTTP exchange, spaced and counted; transport errors propagate."""
        if write:
            self._space_write()
        self.request_count += 1
        self._set_timeout(self._timeouts(verb, _with_query(url, params), body))
        try:
            status, raw_headers, text = self._requester.requestJson(
                verb, url, dict(params) if params else None, dict(headers or {}), body
            )
        except _TRANSIENT_ERRORS:
            # The request may have reached GitHub: count it and space the next write from it.
            self.rate_limited_count += 1
            if write:
                self._last_write = self._clock()
            raise
        if write:
            self._last_write = self._clock()
        if status != 304:
            self.rate_limited_count += 1
        resp = Response(status, {k.lower(): str(v) for k, v in raw_headers.items()}, text)
        self.server_time = _http_date(resp.headers.get("date")) or self.server_time
        return resp

    def _set_timeout(self, seconds: float) -> None:
        # PyGithub takes one int timeout when the client is built and copies it into the HTTP
        # connection it keeps: both are private, so set both (sub-second values are for tests).
        requester = self._requester
        setattr(requester, "_Requester__timeout", seconds)  # noqa: B010
        connection = getattr(requester, "_Requester__connection", None)
        if connection is not None:
            connection.timeout = seconds

    def _space_write(self) -> None:
        self._writes_sent += 1
        if self._writes_sent <= WRITE_BURST:
            return
        if self._last_write is None or self._write_spacing <= 0:
            return
        wait = self._last_write + self._write_spacing - self._clock()
        if wait > 0:
            self._sleep(wait)

    # ------------------------------------------------------------------ retries
    def _retry_wait(
        self, resp: Response, message: str, backoff: float, endpoint: str, what: str
    ) -> float | None:
        """Seconds to wait before retrying an error response, None when it is final."""
        if resp.status in (403, 429):
            wait = self._rate_limit_wait(resp, message, endpoint, what)
            if wait is None and resp.status == 429:
                wait = backoff
            return wait
        if resp.status >= 500:
            return _retry_after(resp) or backoff
        return None

    def _rate_limit_wait(
        self, resp: Response, message: str, endpoint: str, what: str
    ) -> float | None:
        """Seconds to wait before retrying a 403/429, None when it is not a rate limit."""
        headers = resp.headers
        retry_after = _retry_after(resp)
        if headers.get("x-ratelimit-remaining") == "0":
            # Primary limit exhausted: wait for the reset, unless that is too long.
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
                    status=429,  # see send: rate limits are never a permission 403
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

    # ------------------------------------------------------------------ failures
    def _error_message(self, resp: Response) -> str:
        """GitHub's `message` and its `errors[].message`/`code`, or the start of the body."""
        try:
            data = json.loads(resp.text) if resp.text else None
        except ValueError:
            data = None
        if not isinstance(data, dict):
            return self.scrub(resp.text.strip()[:200])
        message = str(data.get("message") or "")
        details = [
            str(err.get("message") or err.get("code") or "")
            for err in data.get("errors") or []
            if isinstance(err, dict)
        ]
        details = [d for d in details if d]
        if details:
            message = f"{message}: {'; '.join(details)}" if message else "; ".join(details)
        return self.scrub(message)

    def _fail(self, status: int, message: str, endpoint: str, what: str, write: bool) -> NoReturn:
        if status == 401:
            raise GatewayError(
                f"could not {what}: bad credentials (HTTP 401)", endpoint=endpoint, status=401
            )
        if status == 403 and MSG_NOT_ACCESSIBLE in message.lower():
            cls = WriteForbidden if write else GatewayError
            # A write refused is the fork case; a read refused is a missing permission.
            why = (
                "the token may not write here; fork pull requests get a read-only token"
                if write
                else "the token lacks a permission this read needs"
            )
            raise cls(
                f"could not {what}: HTTP 403 {message} ({why})",
                endpoint=endpoint,
                status=403,
                detail=message,
            )
        if status == 404:
            raise GatewayError(
                f"could not {what}: not found (HTTP 404)",
                endpoint=endpoint,
                status=404,
                detail=message,
            )
        detail = f": {message}" if message else ""
        raise GatewayError(
            f"could not {what}: HTTP {status}{detail}",
            endpoint=endpoint,
            status=status,
            detail=message,
        )


def _float(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        return None


def _http_date(value: str | None) -> datetime | None:
    """An HTTP `Date` header (RFC 9110 IMF-fixdate), or None when absent or malformed."""
    if not value:
        return None
    try:
        return parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None


def _retry_after(resp: Response) -> float | None:
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
