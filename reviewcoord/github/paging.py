"""Complete lists and conditional reads: Link-following pagination and the ETag cache.

* Lists are read page by page with `per_page=100`, following the `Link: rel="next"` URL
  verbatim (absolute, `/repositories/{id}/…`, docs/github-platform.md §1.4), every page or
  `GatewayError` — never a partial list: a missing page could hide a blocker (fail closed).
* Every page and object seen is cached with its ETag and re-requested with `If-None-Match`; a
  304 reuses the cached copy and costs no primary rate limit (docs/github-platform.md §1.7). A
  cached *last* page that was full is re-requested unconditionally when it answers 304, since a
  304 carries no fresh Link header and would hide a new next page.
* `get_ends` reads only a list's first and last page, and `iter_pages` a list page by page as
  its caller asks (the scorecard's sticky look-ups), keeping only what their `keep` returns of
  each item: those pages, and only those, can be exported and imported (`--cache DIR`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
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
class _End:
    """A first or last page as `get_ends` keeps it: the kept items and, for a first page, the
    URL of the last page when there are more (its Link `rel="last"`)."""

    etag: str | None
    items: list[Any]
    next_url: str | None  # its Link `rel="next"` and `rel="last"`, when there are more pages
    last_url: str | None

    def pages(self) -> int | None:
        """How many pages the list had when this one was read (from `last`; None: unknown)."""
        if self.last_url is None:
            return None
        match = _PAGE_RE.search(self.last_url)
        return int(match.group(1)) if match else None


_REL_RE = {rel: re.compile(rf'<([^>]*)>\s*;\s*rel="{rel}"') for rel in ("last", "next")}
_PAGE_RE = re.compile(r"[?&]page=(\d+)")
ENDS_VERSION = 2


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
        self._ends: dict[str, _End] = {}

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
        self,
        url: str,
        endpoint: str,
        params: dict[str, Any],
        key: str | None = None,
        stop: Callable[[list[Any]], bool] | None = None,
    ) -> list[Any]:
        """Every item of every page of a list endpoint, or GatewayError. `key` names the list
        in an object response (`{"check_runs": [...]}`); `stop(page_items)` true ends the read
        after that page (a list sorted so that nothing further is wanted)."""
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
            if stop is not None and stop(page.items):
                break
        return items

    def iter_pages(
        self, url: str, endpoint: str, params: dict[str, Any], keep: Callable[[Any], Any | None]
    ) -> Iterator[tuple[list[Any], int | None]]:
        """A list endpoint page after page: each page's kept items as it arrives, and how many
        pages the list has (from the page's Link `last`; None past the first page or when it
        does not say). The caller may stop early. Pages are kept with their ETags like
        `get_ends`' (a 304 reuses the kept items and the links the page had)."""
        next_url: str | None = f"{url}?{urlencode({**params, 'per_page': PER_PAGE})}"
        seen: set[str] = set()
        while next_url is not None:
            what = f"read {endpoint}" + (f" page {len(seen) + 1}" if seen else "")
            if next_url in seen or len(seen) >= MAX_PAGES:
                raise GatewayError(f"could not {what}: pagination loops", endpoint=endpoint)
            first = not seen
            seen.add(next_url)
            page = self._end(next_url, endpoint, what, self._ends.get(next_url), keep)
            next_url = page.next_url
            total = None
            if first:  # a single page has no `last` link: it is the only one
                total = page.pages() if page.next_url is not None else 1
            yield list(page.items), total

    # ------------------------------------------------------------------ first and last page
    def get_ends(
        self, url: str, endpoint: str, keep: Callable[[Any], Any | None]
    ) -> tuple[list[Any], bool]:
        """(the kept items of the first and the last page, whether pages between them were
        skipped), in at most two requests. A cached first page that had successors is asked
        for unconditionally: a 304 carries no Link, and the last page may have moved."""
        first_url = f"{url}?{urlencode({'per_page': PER_PAGE})}"
        cached = self._ends.get(first_url)
        reuse = cached if cached is not None and cached.last_url is None else None
        first = self._end(first_url, endpoint, f"read {endpoint}", reuse, keep)
        if first.last_url is None:
            return list(first.items), False
        last_what = f"read {endpoint} (last page)"
        cached_last = self._ends.get(first.last_url)
        last = self._end(first.last_url, endpoint, last_what, cached_last, keep)
        pages = first.pages()
        return [*first.items, *last.items], pages is None or pages > 2

    def _end(
        self,
        page_url: str,
        endpoint: str,
        what: str,
        cached: _End | None,
        keep: Callable[[Any], Any | None],
    ) -> _End:
        """One page, conditionally when cached, its items kept by `keep`, with its links."""
        headers = {"If-None-Match": cached.etag} if cached is not None and cached.etag else None
        resp = self._http.send("GET", page_url, endpoint=endpoint, what=what, headers=headers)
        if resp.status == 304 and cached is not None:
            return cached
        page = self._parse_page(resp, endpoint, what, None)
        links: dict[str, str] = {}
        for rel, pattern in _REL_RE.items():
            match = pattern.search(resp.headers.get("link", ""))
            if match:
                links[rel] = self._checked_link(match.group(1), endpoint, what)
        kept = [k for k in (keep(item) for item in page.items) if k is not None]
        end = _End(page.etag, kept, links.get("next"), links.get("last"))
        self._ends[page_url] = end
        return end

    def export_ends(self) -> dict[str, Any]:
        """The first/last pages read so far, as JSON (for a cache across runs)."""
        pages = {
            u: {"etag": e.etag, "items": e.items, "next": e.next_url, "last": e.last_url}
            for u, e in self._ends.items()
            if e.etag
        }
        return {"v": ENDS_VERSION, "pages": pages}

    def import_ends(self, data: Any) -> int:
        """Pages exported by `export_ends` (another version, or a malformed entry: skipped).
        A page is only reused when GitHub answers 304 to its ETag, and a link in it only
        followed when it points back to this API (`_checked_link`)."""
        if not isinstance(data, dict) or data.get("v") != ENDS_VERSION:
            return 0
        pages = data.get("pages")
        loaded = 0
        for u, e in (pages if isinstance(pages, dict) else {}).items():
            if not isinstance(u, str) or not isinstance(e, dict):
                continue
            etag, items = e.get("etag"), e.get("items")
            links = [e.get("next"), e.get("last")]
            if not isinstance(etag, str) or not isinstance(items, list):
                continue
            if not all(x is None or (isinstance(x, str) and self._same_origin(x)) for x in links):
                continue
            if not self._same_origin(u):
                continue
            self._ends[u] = _End(etag, items, links[0], links[1])
            loaded += 1
        return loaded

    def _same_origin(self, url: str) -> bool:
        """A path under the API root (how first pages are keyed), or a URL of this API."""
        parts = urlsplit(url)
        if not parts.scheme and not parts.netloc:
            return url.startswith("/")
        return (parts.scheme, parts.hostname, parts.port) == self._http.origin

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
