"""Rebuild examples/*.json from real bot comment bodies in tests/fixtures/bots/corpus.jsonl.

The bodies are real; ids, anchors (path/line), commits and times are assigned here so the snapshot
reads like one PR, and the commit a body says it reviewed (Codex "Reviewed commit", Bugbot "for
commit") is pointed at the sample's head, as the bots would write it for that PR.

    python scripts/build_examples.py [path/to/corpus.jsonl]
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAD = "9f1c2e4b7a0d3c5e8f6a1b2c3d4e5f60718293a4"
OLD = "1111111111111111111111111111111111111111"
LOGIN_TYPE = "Bot"


REVIEWED = re.compile(r"(\*\*Reviewed commit:\*\* `)[0-9a-f]{7,40}(`)")
FOR_COMMIT = re.compile(
    r"(for commit \[?`?)([0-9a-f]{7,40})(`?\]?(?:\([^)]*/commit/)?)([0-9a-f]{40})?"
)


def on_head(body: str) -> str:
    body = REVIEWED.sub(lambda m: m.group(1) + HEAD[:10] + m.group(2), body)

    def bugbot(m: re.Match[str]) -> str:
        short = HEAD[: len(m.group(2))]
        return m.group(1) + short + m.group(3) + (HEAD if m.group(4) else "")

    return FOR_COMMIT.sub(bugbot, body)


def rest_login(login: str) -> str:
    """The login REST shows for a corpus author: the corpus keeps GraphQL's suffix-less App
    spellings as their source showed them (`chatgpt-codex-connector`); REST always adds `[bot]`."""
    if login.endswith("[bot]") or login == "Copilot":
        return login
    return f"{login}[bot]"


def corpus(path: Path) -> dict[str, dict[str, object]]:
    entries = [json.loads(line) for line in path.read_text().splitlines()]
    for e in entries:
        e["body"] = on_head(str(e["body"]))
        e["bot_login"] = rest_login(str(e["bot_login"]))
    return {str(e["corpus_id"]): e for e in entries}


def pull(number: int, title: str) -> dict[str, object]:
    return {
        "number": number,
        "state": "open",
        "title": title,
        "html_url": f"https://github.com/octo/app/pull/{number}",
        "user": {"login": "octocat", "type": "User"},
        "head": {"sha": HEAD, "ref": "feature", "repo": {"full_name": "octo/app"}},
        "base": {"sha": OLD, "ref": "main", "repo": {"full_name": "octo/app"}},
    }


class Builder:
    def __init__(self, c: dict[str, dict[str, object]], number: int) -> None:
        self.c, self.number, self.next_id = c, number, 1000
        self.reviews: list[dict[str, object]] = []
        self.review_comments: list[dict[str, object]] = []
        self.issue_comments: list[dict[str, object]] = []

    def _id(self) -> int:
        self.next_id += 1
        return self.next_id

    def review(self, cid: str, login: str | None = None) -> None:
        e, i = self.c[cid], self._id()
        self.reviews.append(
            {
                "id": i,
                "user": {"login": login or e["bot_login"], "type": LOGIN_TYPE},
                "body": e["body"],
                "state": "COMMENTED",
                "commit_id": HEAD,
                "submitted_at": "2026-11-20T10:05:00Z",
                "html_url": f"https://github.com/octo/app/pull/{self.number}#pullrequestreview-{i}",
            }
        )

    def inline(self, cid: str, path: str, line: int | None, login: str | None = None) -> None:
        e, i = self.c[cid], self._id()
        self.review_comments.append(
            {
                "id": i,
                "user": {"login": login or e["bot_login"], "type": LOGIN_TYPE},
                "body": e["body"],
                "path": path,
                "line": line,
                "original_line": line,
                "commit_id": HEAD,
                "original_commit_id": HEAD,
                "created_at": "2026-11-20T10:04:00Z",
                "updated_at": "2026-11-20T10:04:00Z",
                "html_url": f"https://github.com/octo/app/pull/{self.number}#discussion_r{i}",
            }
        )

    def issue(self, cid: str) -> None:
        e, i = self.c[cid], self._id()
        self.issue_comments.append(
            {
                "id": i,
                "user": {"login": e["bot_login"], "type": LOGIN_TYPE},
                "body": e["body"],
                "created_at": "2026-11-20T10:06:00Z",
                "updated_at": "2026-11-20T10:06:00Z",
                "html_url": f"https://github.com/octo/app/pull/{self.number}#issuecomment-{i}",
            }
        )

    def dump(self, title: str) -> dict[str, object]:
        return {
            "format": 1,
            "repo": "octo/app",
            "pull": pull(self.number, title),
            "reviews": self.reviews,
            "review_comments": self.review_comments,
            "issue_comments": self.issue_comments,
        }


def main() -> None:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "tests/fixtures/bots/corpus.jsonl"
    c = corpus(path)

    block = Builder(c, 12)
    block.review("C_jdx12718_review")
    for cid, line in (
        ("C_jdx12718_aur228", 228),
        ("C_jdx12718_aur201", 201),
        ("C_jdx12718_aur85", 85),
    ):
        block.inline(cid, "src/system/packages/aur.rs", line)
    block.inline("C_jdx12718_lock156", "mise.lock", 156)
    block.review("Z35")
    block.inline("Z25", "src/system/packages/aur.rs", 231)  # Codex P1 beside Cursor's 228
    block.inline("X_markus_p2", "src/system/packages/aur.rs", 90)
    block.review("Z28")
    block.inline("Z1", "src/system/packages/aur.rs", 226, login="Copilot")
    block.inline("Z59", ".github/workflows/rust.yml", 10)
    block.review("U_augment_review")
    out = ROOT / "examples/pr-block.json"
    out.write_text(
        json.dumps(block.dump("Install AUR packages"), indent=2, ensure_ascii=False) + "\n"
    )

    go = Builder(c, 34)
    go.issue("X_clean_swish")
    go.review("C_grok_clean")
    go.review("Z12")
    go.inline("Z59", ".github/workflows/rust.yml", 10)
    go.inline("L_bun_nit", "test/js/bun/net/socket.test.ts", 120)
    go.inline("X_ja_p3", "src/components/layouts/DefaultLayoutWithVerticalNav.vue", 33)
    out = ROOT / "examples/pr-go.json"
    out.write_text(json.dumps(go.dump("Tidy CI workflow"), indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
