"""Small builders for findings and comments used by the pure-stage tests."""

from __future__ import annotations

from reviewcoord.model import BotKey, Finding, Level, RawComment, stable_finding_id
from reviewcoord.normalize import level_for


def finding(
    bot: BotKey,
    file: str | None,
    line: int | None,
    title: str,
    raw: str | None = None,
    *,
    line_end: int | None = None,
    native_id: str | None = None,
    comment_id: int = 1,
    severity: Level | None = None,
) -> Finding:
    return Finding(
        bot=bot,
        stable_id=stable_finding_id(bot, file, title, native_id),
        native_id=native_id,
        title=title,
        severity_raw=raw,
        severity=severity or level_for(bot, raw),
        file=file,
        line=line,
        line_end=line_end,
        url=f"https://github.com/octo/app/pull/12#discussion_r{comment_id}",
        endpoint="review_comment",
        comment_id=comment_id,
    )


def comment(
    login: str,
    body: str,
    *,
    endpoint: str = "review_comment",
    id: int = 1,
    path: str | None = None,
    line: int | None = None,
    commit: str | None = None,
    author_type: str = "Bot",
) -> RawComment:
    return RawComment.model_validate(
        {
            "endpoint": endpoint,
            "id": id,
            "author_login": login,
            "author_type": author_type,
            "body": body,
            "path": path,
            "line": line,
            "original_line": line,
            "commit_id": commit,
            "original_commit_id": commit,
            "html_url": f"https://github.com/octo/app/pull/12#c{id}",
        }
    )
