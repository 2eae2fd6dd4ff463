"""Claude (`claude[bot]`): two products on one login; shapes are docs/bot-formats.md §4.

4a claude-code-action: a tracking issue comment edited in place ("Claude Code is working…" →
`**Claude finished @user's task …**` or `**Claude encountered an error …**`) whose final text
is free-form and prompt-defined; plus workflow-posted review comments with emoji-headed
sections of numbered findings. 4b the managed Claude Code Review: inline comments that start
with 🔴 / 🟡 / 🟣 alone (the emoji is the label; title = first sentence after it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from reviewcoord.bots.common import (
    clean_body,
    clip,
    failed,
    fallback_finding,
    first_sentence,
    found,
    headline,
    location,
    make_finding,
    noise,
    plain_text,
    stated_path_line,
)
from reviewcoord.bots.profile import BotProfile, plain_label
from reviewcoord.model import Finding, ParsedComment, RawComment

KEY = "claude"
LOGINS: frozenset[str] = frozenset({"claude[bot]"})

_MANAGED = ("🔴", "🟡", "🟣")
# Prompt-defined sections use any colour marker; ✅ / 🔍 / 🚫 headings are not severities
# (L_email_claude54 "### ✅ Good Practices", L_email_verificay3 "#### 🔍 Areas for Enhancement").
_COLOURS = ("🔴", "🟠", "🟡", "🟢", "🔵", "🟣")
_MANAGED_WORD = re.compile(r"\*\*(?:Important|Nit|Pre-existing)\*\*[ \t:—-]*", re.I)
# `**Claude encountered an error after 7m 41s** —— [View job](…)` (claude-code-action's
# comment-logic.ts template; Rclaude without the duration).
_ERROR = re.compile(r"\*\*Claude encountered an error(?P<after>[^*\n]{0,80})\*\*")
# "⚠️ **Code review skipped** — your organization's overage spend limit has been reached."
_SKIPPED_WHY = re.compile(r"Code review skipped\**[ \t]*[—–:-]*[ \t]*(?P<why>[^\n]{0,200})", re.I)
_CHECKED = re.compile(r"^[ \t]*[-*][ \t]+\[[xX]\]", re.M)
# How a person asks Claude again (shown when it did not review the head).
REREQUEST = "re-request with `@claude review`"
_FINISHED = re.compile(r"^[ \t]*\*\*Claude finished\b[^\n]{0,2000}", re.M)
_WORKING = re.compile(
    r"Claude Code is working|^#{1,4}[ \t]*Review in progress|I['’]ll analyze this and get back",
    re.I | re.M,
)
_UNCHECKED = re.compile(r"^[ \t]*[-*][ \t]+\[ \]", re.M)
_SKIPPED = re.compile(r"Code review skipped", re.I)
_LGTM = re.compile(r"^[ \t>*_]*LGTM\b", re.I)
_REVIEWISH = re.compile(
    r"\b(?:review|LGTM|approve[ds]?|approval|verdict|recommendation|request(?:ed)? changes)\b",
    re.I,
)
_HEADING = re.compile(r"^[ \t]{0,3}#{2,6}[ \t]+(?P<text>[^\n]{1,500}?)[ \t#]*$")
# `### 🔴 **Critical: Title**` (SkogAI/lore#45): the heading is itself one finding.
_LABELLED = re.compile(r"(?P<label>[A-Za-z][\w -]{0,30}?):[ \t]*(?P<title>\S[^\n]*)")
# `1. **Title** — `path:line`` at the top level of a colour section (L_email_claude54).
_ITEM = re.compile(
    r"^ ?(?:\d{1,3}[.)]|[-*])[ \t]+\*\*(?P<title>[^\n]{1,500}?)\*\*(?P<rest>[^\n]*)$"
)
_LOCATION_LINE = re.compile(r"\bLocation:?\**:?", re.I)
_FENCE = re.compile(r"^[ \t]{0,3}(?:```|~~~)")


@dataclass
class _Entry:
    label: str
    title: str
    head: str  # the rest of the item's first line, where `path:line` sits
    lines: list[str] = field(default_factory=list)


def _colour(text: str) -> str | None:
    return next((c for c in _COLOURS if text.startswith(c)), None)


def _entries(body: str) -> list[_Entry]:
    """Prompt-defined findings: one per numbered item of a colour section, or per colour heading
    of the `Label: title` form."""
    entries: list[_Entry] = []
    section: str | None = None
    current: _Entry | None = None
    in_fence = False
    for line in body.split("\n"):
        if _FENCE.match(line):
            in_fence = not in_fence
        if in_fence or _FENCE.match(line):
            if current is not None:
                current.lines.append(line)
            continue
        heading = _HEADING.match(line)
        if heading:
            text = heading.group("text").replace("**", "").strip()
            colour = _colour(text)
            current, section = None, None
            if colour is None:
                continue
            rest = text[len(colour) :].lstrip("\ufe0f ").strip()
            labelled = _LABELLED.fullmatch(rest)
            if labelled:
                label = f"{colour} {labelled.group('label').strip()}"
                current = _Entry(label, labelled.group("title").strip(), "")
                entries.append(current)
            else:
                section = text
            continue
        item = _ITEM.match(line) if section else None
        if section and item:
            current = _Entry(section, item.group("title").strip(), item.group("rest"))
            entries.append(current)
        elif current is not None:
            current.lines.append(line)
    return entries


def _entry_location(entry: _Entry) -> tuple[str | None, int | None]:
    path, line = stated_path_line(entry.head)
    if path is None:
        for text in entry.lines:
            if _LOCATION_LINE.search(text):
                path, line = stated_path_line(text)
                break
    return path, line


def _prompt_findings(comment: RawComment, body: str) -> list[Finding]:
    findings = []
    for entry in _entries(body):
        path, stated_line = _entry_location(entry)
        file, line, line_end = location(comment, path, stated_line)
        findings.append(
            make_finding(
                KEY,
                comment,
                title=entry.title.rstrip(":").strip() or entry.label,
                severity_raw=entry.label,
                file=file,
                line=line,
                line_end=line_end,
                gist=first_sentence("\n".join(entry.lines)),
            )
        )
    return findings


def _managed(comment: RawComment, text: str) -> ParsedComment:
    emoji = next(e for e in _MANAGED if text.startswith(e))
    rest = _MANAGED_WORD.sub("", text[len(emoji) :].lstrip("\ufe0f \t"), count=1)
    rest = rest.split("<details", 1)[0]
    file, line, line_end = location(comment)
    finding = make_finding(
        KEY,
        comment,
        title=headline(rest) or emoji,
        severity_raw=emoji,
        file=file,
        line=line,
        line_end=line_end,
        gist=first_sentence(rest),
    )
    return found([finding], "claude code review inline finding")


_SCAN_MAX = 100_000

# A heading or bold lead that announces blockers ("### 🔴 Critical Issues", "**Must fix**") in a
# layout `_entries` does not parse: never call such a review clean (a blocker could hide there).
_CRITICAL_LEAD = re.compile(
    r"^[ \t]{0,3}(?:#{1,6}[ \t]*|\*\*)[ \t]*"
    r"(?:🔴|🚨|(?:critical|blocking|blockers?|must[- ]fix)\b)",
    re.IGNORECASE | re.MULTILINE,
)


_TASK = re.compile(r"^[-*][ \t]+\[(?P<mark>[ xX])\]")


def _open_tasks(text: str) -> int:
    """Unticked boxes in the tracker's own task list: the first run of unindented checkbox
    lines. Indented or later checklists are review content (L_email_verificay3 suggests a PR
    template with `   - [ ] Lint passes`), not Claude's tasks."""
    count, started = 0, False
    for line in text.splitlines():
        task = _TASK.match(line)
        if task is None:
            if started:
                break
            continue
        started = True
        count += task.group("mark") == " "
    return count


def _finished(comment: RawComment, body: str, header: re.Match[str]) -> ParsedComment:
    rest = body[header.end() :]
    findings = _prompt_findings(comment, rest)
    if findings:
        return found(findings, "claude-code-action review findings")
    # "Create PR ➔" or no review wording: a task report, not a review (L_flashinfer177).
    if "Create PR" in header.group(0) or not _REVIEWISH.search(rest):
        if _CHECKED.search(rest) and not _open_tasks(rest):
            # "Claude finished …" over a fully ticked review checklist: a finished review.
            return ParsedComment(kind="clean", reason="claude-code-action checklist done")
        return noise("claude-code-action task report (not a review)")
    open_tasks = _open_tasks(rest[:_SCAN_MAX])
    if _CRITICAL_LEAD.search(rest[:_SCAN_MAX]):
        return fallback_finding(
            KEY,
            comment,
            "finished claude review announces critical issues in a layout we do not parse",
            finished_review=True,
        )
    if open_tasks:
        # Finished with tasks left unticked ("- [ ] Post findings"): it did not complete its
        # review, so the review of this head did not happen. Never call that clean.
        return failed(
            f"finished with {open_tasks} task{'s' if open_tasks > 1 else ''} left open",
            "claude-code-action finished with open tasks",
        )
    return ParsedComment(kind="clean", reason="claude-code-action review without findings")


def parse(comment: RawComment) -> ParsedComment:
    body = clean_body(comment.body)
    text = body.strip()
    if not text:
        return noise("empty claude comment")
    error = _ERROR.search(body[:4000])
    if error:
        after = plain_text(error.group("after"))
        return failed(f"encountered an error {after}".strip(), "claude-code-action error")
    if _SKIPPED.search(body[:2000]):
        # A billing/spend limit, not a choice: Claude could not review (L_qoax_skipped).
        skip = _SKIPPED_WHY.search(body[:2000])
        why = clip(plain_text(skip.group("why")), 160) if skip else ""
        return failed(
            f"code review skipped: {why}" if why else "code review skipped",
            "claude code review skipped (notice)",
        )
    if comment.endpoint == "review_comment" and text.startswith(_MANAGED):
        return _managed(comment, text)
    header = _FINISHED.search(body)
    if header:
        return _finished(comment, body, header)
    thread = comment.endpoint == "review_comment"
    if _WORKING.search(body):
        if thread:
            return noise("claude-code-action stub reply in a review thread")
        return ParsedComment(kind="in_progress", reason="claude-code-action working")
    findings = _prompt_findings(comment, body)
    if findings:
        return found(findings, "claude prompt-defined review findings")
    if _LGTM.match(text):
        return ParsedComment(kind="clean", reason="claude LGTM")
    if _UNCHECKED.search(body) and not thread:
        return ParsedComment(kind="in_progress", reason="claude-code-action checklist open")
    if comment.in_reply_to_id is not None:
        return noise("claude thread reply")
    return fallback_finding(KEY, comment, "unrecognised claude comment")


# The colour markers; the first one in a label decides (prompt-defined headings such as
# "🟡 Warnings (Should Fix)" carry the emoji first).
_LABEL_EMOJI = ("🔴", "🟡", "🟣", "🟢", "🔵")


def canonical_label(raw: str) -> str:
    """`🟡 Warnings (Should Fix)` → `🟡`; "Critical: title", "Warnings (…)" → their first word,
    singular."""
    text = raw.strip()
    for emoji in _LABEL_EMOJI:
        if text.startswith(emoji):
            return emoji
    word = re.split(r"[\s:(]", plain_label(text), maxsplit=1)[0]
    return word[:-1] if word in {"warnings", "suggestions", "nits"} else word


PROFILE = BotProfile(
    key=KEY,
    display="Claude",
    logins=LOGINS,
    parse=parse,
    severity={
        "🔴": "critical",
        "important": "critical",
        "critical": "critical",
        "🟡": "medium",
        "nit": "medium",
        "medium": "medium",
        "warning": "medium",
        "🟣": "low",
        "pre-existing": "low",
        "🟢": "low",
        "🔵": "low",
        "low": "low",
        "suggestion": "low",
    },
    canonical_label=canonical_label,
    rerequest=REREQUEST,
)
