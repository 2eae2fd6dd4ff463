"""What the pushes of a PR changed, read at the edge for the cycle context: the compares between
heads and the PR's files, each read at most once per run, handed to the judge as plain data
(`judgement.shift.Push`, the files per reviewer).

Two questions use them. Where did a recorded finding's lines go (the compare from the record's
last head to this one: judgement/shift.py)? And in convergence mode, which push could have
caused a reviewer's finding: the range since the last head *that reviewer* reviewed
(judgement/converge.py) — the record's last head's compare when it is that head, one more
compare otherwise, the PR's files when it reviewed no earlier head or the compare cannot say.
"""

from __future__ import annotations

from reviewcoord.actions_io import Log
from reviewcoord.github.gateway import Gateway
from reviewcoord.history import History
from reviewcoord.judgement.converge import reviewed_before
from reviewcoord.judgement.shift import Push
from reviewcoord.model import BotKey


class Pushes:
    """The compares and PR files of one run, each read once (`compare`, `pr_files`)."""

    def __init__(self, gateway: Gateway, pr: int, log: Log) -> None:
        self.gateway = gateway
        self.pr = pr
        self.log = log
        self._compares: dict[tuple[str, str], Push] = {}
        self._pr_files: frozenset[str] | None = None

    def compare(self, base: str, head: str) -> Push:
        """`GET compare/{base}...{head}` as plain data; a base not reachable from the head (a
        force-push: `diverged`, 404/422) changed unknown files."""
        key = (base, head)
        if key not in self._compares:
            result = self.gateway.compare_commits(base, head)
            if result.status in ("ahead", "identical"):
                push = Push(
                    files=frozenset(result.files),
                    blocks=dict(result.hunks),
                    complete=result.files_complete,
                )
            else:
                self.log.info(f"compare {base[:7]}...{head[:7]}: {result.status}")
                push = Push.unknown()
            self._compares[key] = push
        return self._compares[key]

    def pr_files(self) -> frozenset[str]:
        """Every file the PR changes (`GET pulls/{n}/files`)."""
        if self._pr_files is None:
            self._pr_files = frozenset(self.gateway.list_pull_files(self.pr))
        return self._pr_files

    def since_review(self, record: History | None, bot: BotKey, head: str) -> frozenset[str]:
        """The files changed since the last head `bot` reviewed before `head` (module
        docstring)."""
        base = reviewed_before(record, bot, head)
        if base is None:
            return self.pr_files()
        push = self.compare(base, head)
        if push.files is None or not push.complete:
            return self.pr_files()
        return push.files
