"""The fake's files: their bytes at a ref (`GET contents/{path}?ref=`), and the commits of a
branch that touched a path, newest first (`GET commits?sha={branch}&path={path}`), in GitHub's
list shape (REST "List commits": `sha`, `commit.message`, `commit.committer.date`)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Files:
    _at: dict[tuple[str, str], bytes] = field(default_factory=dict)  # (path, ref) → bytes
    _log: dict[tuple[str, str], list[dict[str, Any]]] = field(default_factory=dict)

    def put(self, path: str, ref: str, content: str | bytes) -> None:
        raw = content.encode("utf-8") if isinstance(content, str) else content
        self._at[(path.strip("/"), ref)] = raw

    def commit(self, path: str, branch: str, content: str | bytes | None, when: str) -> str:
        """A commit on `branch` setting `path` to `content` (None: deleting it); its SHA."""
        path = path.strip("/")
        history = self._log.setdefault((path, branch), [])
        sha = hashlib.sha1(f"{branch}:{path}:{len(history)}:{content!r}".encode()).hexdigest()
        if content is None:
            self._at.pop((path, branch), None)
        else:
            self.put(path, branch, content)
            self.put(path, sha, content)
        history.insert(
            0,
            {
                "sha": sha,
                "commit": {
                    "message": f"edit {path}",
                    "committer": {"name": "octocat", "date": when},
                },
            },
        )
        return sha

    def at(self, path: str, ref: str) -> bytes | None:
        return self._at.get((path.strip("/"), ref))

    def log(self, path: str, branch: str) -> list[dict[str, Any]]:
        return list(self._log.get((path.strip("/"), branch), []))
