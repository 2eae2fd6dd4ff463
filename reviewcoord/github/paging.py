"""Complete lists and conditional reads: Link-following pagination and the ETag cache.

* Lists are read page by page with `per_page=100`, following the `Link: rel="next"` URL
  verbatim (absolute, `/repositories/{id}/…`, docs/github-platform.md §1.4), every page or
  `GatewayError` — never a partial list: a missing page could hide a blocker (fail closed).
* Every page and object seen is cached with its ETag and re-requested with `If-None-Match`; a
  304 reuses the cached copy and costs no primary rate limit (docs/github-platform.md §1.7). A
  cached *last* page that was full is re-requested unconditionally when it answers 304, since a
  304 carries no fresh Link header and would hide a new next page.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

from reviewcoord.errors import GatewayError
from reviewcoord.github.transport import PER_PAGE, Response, Transport

# More pages than this (100,000 items) means links that never end: fail instead of looping.
MAX_PAGES = 1000
_NEXT_RE = re.compile(r'<([^>]*)>\s*;\s*rel="next"')


@dataclass(frozen=True)
class _Page:
    etag: str | None
    items: list[Any]
    next_url: str | None


@dataclass(frozen=True)
class _Cached:
    etag: str | None
    data: Any


class PagedReader:
    """GETs of objects and of whole lists, each remembered with its ETag."""

    def __init__(self, http: Transport) -> None:
        self._http = http
        self._pages: dict[str, _Page] = {}
        self._objects: dict[str, _Cached] = {}

    def get_object(self, url: str, endpoint: str, what: str) -> Any:
        """A JSON object (a fresh copy the caller may change), or GatewayError."""
        cached = self._objects.get(url)
        headers = {"If-None-Match": cached.etag} if cached is not None and cached.etag else None
        resp = self._http.send("GET", url, endpoint=endpoint, what=what, headers=headers)
        if resp.status == 304 and cached is not None:
            return json.loads(json.dumps(cached.data))
        data = self._http.decode(resp, endpoint, what)
        if resp.status != 200 or not isinstance(data, dict):
            self._http.malformed(endpoint, what, f"HTTP {resp.status}, expected a JSON object")
        self._objects[url] = _Cached(resp.headers.get("etag"), data)
        return json.loads(json.dumps(data))

    def get_list(
        self, url: str, endpoint: str, params: dict[str, Any], key: str | None = None
    ) -> list[Any]:
        """Every item of every page of a list endpoint, or GatewayError. `key` names the list
        in an object response (`{"check_runs": [...]}`)."""
        query = {**params, "per_page": PER_PAGE}
        next_url: str | None = f"{url}?{urlencode(query)}"
        items: list[Any] = []
        first_size = 0
        seen: set[str] = set()
        page_no = 0
        while next_url is not None:
            page_url = next_url
            page_no += 1
            what = f"read {endpoint}" + (f" page {page_no}" if page_no > 1 else "")
            if page_url in seen or page_no > MAX_PAGES:
                raise GatewayError(f"could not {what}: pagination loops", endpoint=endpoint)
            seen.add(page_url)
            cached = self._pages.get(page_url)
            headers = None
            if cached is not None and cached.etag is not None:
                headers = {"If-None-Match": cached.etag}
            resp = self._http.send("GET", page_url, endpoint=endpoint, what=what, headers=headers)
            if resp.status == 304 and cached is not None:
                page = cached
                next_url = page.next_url
                if next_url is None and _looks_full(page, page_no, first_size):
                    # The page is unchanged, but being full it may have gained a successor
                    # that a 304 (no fresh Link header) cannot tell us about: ask for it.
                    next_url = _following_page(page_url, page_no)
            else:
                page = self._parse_page(resp, endpoint, what, key)
                self._pages[page_url] = page
                next_url = page.next_url
            if page_no == 1:
                first_size = len(page.items)
            items.extend(page.items)
        return items

    def _parse_page(self, resp: Response, endpoint: str, what: str, key: str | None) -> _Page:
        if resp.status != 200:
            self._http.malformed(endpoint, what, f"unexpected HTTP {resp.status}")
        data = self._http.decode(resp, endpoint, what)
        if key is not None:
            data = data.get(key) if isinstance(data, dict) else None
        if not isinstance(data, list):
            self._http.malformed(endpoint, what, "expected a JSON list")
        next_url = None
        match = _NEXT_RE.search(resp.headers.get("link", ""))
        if match:
            next_url = self._checked_link(match.group(1), endpoint, what)
        return _Page(resp.headers.get("etag"), data, next_url)

    def _checked_link(self, link: str, endpoint: str, what: str) -> str:
        """The next-page link made absolute; one to another host (where our token would
        go) is refused."""
        absolute = urljoin(self._http.base_url + "/", link)
        parts = urlsplit(absolute)
        if (parts.scheme, parts.hostname, parts.port) != self._http.origin:
            raise GatewayError(
                f"could not {what}: the next-page link points to another host "
                f"({parts.scheme}://{parts.hostname})",
                endpoint=endpoint,
            )
        return absolute


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
