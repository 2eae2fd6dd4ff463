"""The check run a branch rule can require: in_progress while settling, then completed.

A run cancelled mid-settle leaves its check run in_progress (for 14 days,
docs/github-platform.md §3.6); the next run on the same head adopts that check run instead of
creating another — only one of ours (our App's), never another App's run of the same name.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from reviewcoord.github.gateway import (
    Annotation,
    CheckConclusion,
    CheckOutput,
    CheckRunRef,
    Gateway,
)
from reviewcoord.limits import annotation_batches

BOT_SUFFIX = "[bot]"


def pr_key(repo: str, pr: int) -> str:
    """The `external_id` of the check runs we create for `repo`#`pr`. Only the App that created
    a check run can set or change it, so it says which PR our run was made for: a commit judged
    on another PR first is not this PR's head from then (reviewcoord/arrival.py)."""
    return f"{repo}#{pr}"


class CheckRunCache:
    """The head's check runs: ours read once per run and head — the noop proof, the trusted copy
    of the record and the adoption share one `GET commits/{sha}/check-runs?check_name=` — and
    every app's (`listing`), read on each poll when a profile in play reads the reviewers' own
    checks (conditional: unchanged costs a 304); ours are then taken from that listing. A head's
    entry is forgotten once we write a check run on it.

    Ours means our name AND our App: `login()` is who we are (GitHub's word about our token,
    then the App of the check run this run created); a run of another App named like ours (a
    look-alike App, a fork's job named `review-coordinator`) is never ours. Without an App
    identity (a personal token, which cannot write check runs) nothing is ours."""

    def __init__(self, gateway: Gateway, name: str, login: Callable[[], str | None]) -> None:
        self.gateway = gateway
        self.name = name
        self.login = login
        self._runs: dict[str, list[CheckRunRef]] = {}

    @property
    def app(self) -> str | None:
        """Our App's slug (`github-actions` for GITHUB_TOKEN), or None (not an App)."""
        login = self.login() or ""
        return login.removesuffix(BOT_SUFFIX) if login.endswith(BOT_SUFFIX) else None

    def _ours(self, runs: Sequence[CheckRunRef]) -> list[CheckRunRef]:
        app = self.app
        return [r for r in runs if r.name == self.name and app is not None and r.app_slug == app]

    def on(self, sha: str) -> list[CheckRunRef]:
        """Our check runs on `sha`."""
        if sha not in self._runs:
            self._runs[sha] = self.gateway.list_check_runs(sha, self.name)
        return self._ours(self._runs[sha])

    def listing(self, sha: str) -> list[CheckRunRef]:
        """Every app's check runs on `sha`, read now (ours are kept from it)."""
        runs = self.gateway.list_check_runs(sha)
        self._runs[sha] = [r for r in runs if r.name == self.name]
        return runs

    def forget(self, sha: str) -> None:
        self._runs.pop(sha, None)


def start_check_ref(
    gateway: Gateway,
    name: str,
    sha: str,
    output: CheckOutput,
    known: Sequence[CheckRunRef],
    key: str,
) -> CheckRunRef:
    """Adopt the newest unfinished check run of ours on `sha` made for this PR (`key`: a
    cancelled run's; `known`: this run's read of our check runs there; one naming no PR is an
    older version's), else create one for it. The ref's `app_slug` tells who we are: the App of
    the check run we made or changed (an App token writes as `<slug>[bot]`)."""
    existing = [r for r in known if r.status != "completed" and r.external_id in (key, "", None)]
    if existing:
        ref = max(existing, key=lambda r: r.id)
        gateway.update_check_run(ref.id, "in_progress", output)
        return ref
    return gateway.create_check_run(name, sha, "in_progress", output, external_id=key)


def finish_check(
    gateway: Gateway,
    check_id: int,
    output: CheckOutput,
    annotations: Sequence[Annotation],
    conclusion: CheckConclusion,
) -> None:
    batches = [tuple(batch) for batch in annotation_batches(annotations)]
    # Annotation batches first, completion last: a run that dies half-way leaves the check
    # in_progress (to be adopted next time), never "completed" without all its annotations.
    for batch in batches[1:]:
        gateway.update_check_run(
            check_id, "in_progress", output.model_copy(update={"annotations": batch})
        )
    gateway.update_check_run(
        check_id, "completed", output.model_copy(update={"annotations": batches[0]}), conclusion
    )
