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
    lead,
    location,
    make_finding,
    marked_lines,
    noise,
    own_words,
    plain_text,
    stated_path_line,
)
from reviewcoord.bots.notices import unread
from reviewcoord.bots.profile import BotProfile, Tracker, plain_label
from reviewcoord.model import Finding, ParsedComment, RawComment

KEY = "claude"
LOGINS: frozenset[str] = frozenset({"claude[bot]"})

_MANAGED = ("🔴", "🟡", "🟣")
# Prompt-defined sections use any colour marker; ✅ / 🔍 / 🚫 headings are not severities
# (L_email_claude54 "### ✅ Good Practices", L_email_verificay3 "#### 🔍 Areas for Enhancement").
# ⚠️ opens a section of issues too (SkogAI/lore#47 "### ⚠️ Issues Found"; no level: medium).
_COLOURS = ("🔴", "🚨", "🟠", "🟡", "🟢", "🔵", "🟣", "⚠️")
# A section or bold lead named by a blocker word, without a colour ("### Critical Issues",
# "**Must fix:** …"): critical, like 🔴.
_CRITICAL_WORD = re.compile(r"(?:critical|blocking|blockers?|must[- ]fix)(?![\w-])", re.I)
_MANAGED_WORD = re.compile(r"\*\*(?:Important|Nit|Pre-existing)\*\*[ \t:—-]*", re.I)
# Notices are read from the comment's lead (its first line as Claude writes it), never from the
# body: a finding quoting "Code review skipped" stays a finding.
# `**Claude encountered an error after 7m 41s** —— [View job](…)` (claude-code-action's
# comment-logic.ts template; Rclaude without the duration).
_ERROR = re.compile(r"\*\*Claude encountered an error(?P<after>[^*\n]{0,80})\*\*")
# "⚠️ **Code review skipped** — your organization's overage spend limit has been reached."
_SKIPPED = re.compile(
    r"(?:⚠\ufe0f?[ \t]*)?\**Code review skipped\**[ \t]*[—–:-]*[ \t]*(?P<why>[^\n]{0,200})", re.I
)
_CHECKED = re.compile(r"^[ \t]*[-*][ \t]+\[[xX]\]", re.M)
# How a person asks Claude again (shown when it did not review the head).
REREQUEST = "re-request with `@claude review`"
_FINISHED = re.compile(r"^[ \t]*\*\*Claude finished\b[^\n]{0,2000}", re.M)
_WORKING = re.compile(
    r"\**Claude Code is working|#{1,4}[ \t]*Review in progress|I['’]ll analyze this and get back",
    re.I,
)
_LGTM = re.compile(r"^[ \t>*_]*LGTM\b", re.I)
_REVIEWISH = re.compile(
    r"\b(?:review|LGTM|approve[ds]?|approval|verdict|recommendation|request(?:ed)? changes)\b",
    re.I,
)
_HEADING = re.compile(r"^[ \t]{0,3}(?P<hashes>#{2,6})[ \t]+(?P<text>[^\n]{1,500}?)[ \t#]*$")
# `### 🔴 **Critical: Title**` (SkogAI/lore#45): the heading is itself one finding.
_LABELLED = re.compile(r"(?P<label>[A-Za-z][\w -]{0,30}?):[ \t]*(?P<title>\S[^\n]*)")
# `1. **Title** — `path:line`` at the top level of a colour section (L_email_claude54).
_ITEM = re.compile(
    r"^ ?(?:\d{1,3}[.)]|[-*])[ \t]+\*\*(?P<title>[^\n]{1,500}?)\*\*(?P<rest>[^\n]*)$"
)
# A plain top-level bullet of a *critical* section ("- The token is logged in plain text.").
_BULLET = re.compile(r"^ ?(?:\d{1,3}[.)]|[-*])[ \t]+(?P<text>\S[^\n]{0,1000})$")
# `#### 1. Title` under a section heading (`### 🔴 Critical Issues`): one item of it.
_NUMBERED = re.compile(r"(?:\d{1,3}[.)])[ \t]+(?P<title>\S[^\n]*)")
# A bold lead at the top level: `**🔴 Critical: Title**`, `**Must fix:** text`, also bulleted.
_BOLD_LEAD = re.compile(
    r"^ ?(?:(?:\d{1,3}[.)]|[-*])[ \t]+)?\*\*(?P<inner>[^*\n]{1,300})\*\*(?P<after>[^\n]*)$"
)
# "Critical: None" says there is none.
_NOTHING = re.compile(
    r"(?:none|n/?a|nothing|0|no (?:issues?|findings?|concerns?))(?:\b|$)[^\n]{0,40}$", re.I
)
# `path.ext:line` written in plain text (no code span), in an item's title.
_PLAIN_PATH_LINE = re.compile(
    r"(?<![\w./-])(?P<path>[\w./-]{1,200}\.[A-Za-z0-9]{1,10}):(?P<line>\d{1,7})(?![\d:])"
)
_LOCATION_LINE = re.compile(
    r"\bLocation:?\**:?|^[ \t]{0,4}(?:[-*][ \t]+)?\**(?:File|Path)\**:", re.I
)


@dataclass
class _Entry:
    label: str
    title: str
    head: str  # the rest of the item's first line, where `path:line` sits
    lines: list[str] = field(default_factory=list)


def _colour(text: str) -> str | None:
    return next((c for c in _COLOURS if text.startswith(c)), None)


def _section_label(text: str) -> str | None:
    """A heading's text as a severity section's label: it opens with a colour marker, or with
    a blocker word ("Critical Issues")."""
    if _colour(text) is not None or _CRITICAL_WORD.match(text):
        return text
    return None


def _labelled(text: str) -> tuple[str, str] | None:
    """(label, title) of `🔴 Critical: Title` / `Critical: Title` (colour or blocker word)."""
    colour = _colour(text)
    rest = text[len(colour) :].lstrip("\ufe0f ").strip() if colour else text
    match = _LABELLED.fullmatch(rest)
    if match is None:
        return None
    word = match.group("label").strip()
    if colour is None and not _CRITICAL_WORD.match(word):
        return None
    label = f"{colour} {word}" if colour else word
    return label, match.group("title").strip()


def _bold_lead(line: str) -> _Entry | None:
    """`**🔴 Critical: Title**` or `**Must fix:** the migration drops …` as one entry."""
    match = _BOLD_LEAD.match(line)
    if match is None:
        return None
    inner = match.group("inner").strip()
    raw_after = match.group("after").strip()
    after = raw_after.lstrip(":—–- ").strip()
    labelled = _labelled(inner)
    if labelled is None and (inner.endswith(":") or raw_after.startswith(":")) and after:
        # `**Must fix:** the migration …` / `**Critical**: the migration …`
        labelled, after = _labelled(f"{inner.rstrip(':')}: {after}"), ""
    if labelled is None:
        return None
    label, title = labelled
    if _NOTHING.match(title):
        return None
    return _Entry(label, title, after)


class _Reader:
    """Walks a body's lines (fences kept out of the structure) into prompt-defined entries."""

    def __init__(self) -> None:
        self.entries: list[_Entry] = []
        self.section: str | None = None
        self.level = 0  # the section heading's depth
        self.sub_items = False  # the section's items are `#### 1.` headings (bullets: details)
        self.current: _Entry | None = None

    def add(self, entry: _Entry) -> None:
        self.current = entry
        self.entries.append(entry)

    def heading(self, level: int, text: str) -> None:
        if self.section is not None and level > self.level:
            numbered = _NUMBERED.fullmatch(text)
            if numbered:  # `#### 1. Title` under `### 🔴 Critical Issues`
                self.add(_Entry(self.section, numbered.group("title").strip(), ""))
                self.sub_items = True
                return
        labelled = _labelled(text)
        self.current, self.section, self.sub_items = None, None, False
        if labelled is not None:
            self.add(_Entry(*labelled, ""))
        elif _section_label(text) is not None:
            self.section, self.level = text, level

    def line(self, line: str) -> None:
        lead_entry = _bold_lead(line)
        listed = self.section is not None and not self.sub_items
        item = _ITEM.match(line) if listed else None
        bullet = _BULLET.match(line) if listed and self._critical() else None
        if lead_entry is not None:
            self.add(lead_entry)
        elif self.section and item:
            self.add(_Entry(self.section, item.group("title").strip(), item.group("rest")))
        elif self.section and bullet:
            self.add(_Entry(self.section, headline(bullet.group("text")), bullet.group("text")))
        elif self.current is not None:
            self.current.lines.append(line)

    def _critical(self) -> bool:
        section = self.section or ""
        return section.startswith(("🔴", "🚨")) or _CRITICAL_WORD.match(section) is not None


def _entries(body: str) -> list[_Entry]:
    """Prompt-defined findings: one per item of a severity section (numbered bold items, or
    `#### 1. Title` sub-headings; plain bullets too in a critical one), per labelled heading
    (`### 🔴 Critical: Title`) and per labelled bold lead (`**🔴 Critical: Title**`)."""
    reader = _Reader()
    for line, quoted in marked_lines(body):
        if quoted:
            if reader.current is not None:
                reader.current.lines.append(line)
            continue
        heading = _HEADING.match(line)
        if heading:
            text = heading.group("text").replace("**", "").strip()
            reader.heading(len(heading.group("hashes")), text)
        else:
            reader.line(line)
    return reader.entries


def _entry_location(entry: _Entry) -> tuple[str | None, int | None]:
    """Where the entry says it is: a `path:line` on its first line or in its title, else on
    a `Location:` / `File:` line of its text."""
    path, line = stated_path_line(entry.head)
    if path is None:
        # A title names its place only as a path with a directory or a line (a bare
        # `script.sh` in a title is what it is about, not where).
        titled, titled_line = stated_path_line(entry.title)
        plain = _PLAIN_PATH_LINE.search(entry.title)
        if titled is not None and ("/" in titled or titled_line is not None):
            path, line = titled, titled_line
        elif plain is not None:  # "Stray closing tag in entry.md:118" (SkogAI/lore#47)
            path, line = plain.group("path"), int(plain.group("line"))
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


def _announces_critical(text: str) -> bool:
    """A critical heading or bold lead that does not say there is none ("**Critical:** None")."""
    for match in _CRITICAL_LEAD.finditer(text):
        end = text.find("\n", match.start())
        line = text[match.start() : end if end >= 0 else len(text)]
        said = _BOLD_LEAD.match(line)
        inner = f"{said.group('inner')} {said.group('after')}" if said else line
        if not _NOTHING.match(inner.split(":", 1)[-1].strip(" *:")):
            return True
    return False


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
    if "Create PR" in header.group(0) or not _REVIEWISH.search(own_words(rest[:_SCAN_MAX])):
        if _CHECKED.search(rest) and not _open_tasks(rest):
            # "Claude finished …" over a fully ticked review checklist: a finished review.
            return ParsedComment(kind="clean", reason="claude-code-action checklist done")
        return noise("claude-code-action task report (not a review)")
    open_tasks = _open_tasks(rest[:_SCAN_MAX])
    if _announces_critical(rest[:_SCAN_MAX]):
        return fallback_finding(
            KEY,
            comment,
            "finished claude review announces critical issues in a layout we do not parse",
        )
    if open_tasks:
        # Finished with tasks left unticked ("- [ ] Post findings"): it did not complete its
        # review, so the review of this head did not happen. Never call that clean.
        return failed(
            f"finished with {open_tasks} task{'s' if open_tasks > 1 else ''} left open",
            "claude-code-action finished with open tasks",
        )
    return ParsedComment(kind="clean", reason="claude-code-action review without findings")


def _notice(body: str, opening: str) -> ParsedComment | None:
    """A notice by its framing only: the lead Claude writes (error header, skip notice)."""
    error = _ERROR.match(opening)
    if error:
        after = plain_text(error.group("after"))
        return failed(f"encountered an error {after}".strip(), "claude-code-action error")
    skip = _SKIPPED.match(opening)
    if skip:
        # A billing/spend limit, not a choice: Claude could not review (L_qoax_skipped).
        why = clip(plain_text(skip.group("why")), 160)
        return failed(
            f"code review skipped: {why}" if why else "code review skipped",
            "claude code review skipped (notice)",
            no_budget=True,
        )
    return None


def _working(comment: RawComment, body: str) -> ParsedComment:
    """The tracker framed as working. Should it also carry findings (it never does), they are
    kept, loudly: ambiguity keeps the finding."""
    findings = _prompt_findings(comment, body)
    if findings:
        return ParsedComment(
            kind="in_progress",
            findings=tuple(findings),
            reason="claude-code-action working",
            parse_note="a working tracker that carries findings; kept",
        )
    return ParsedComment(kind="in_progress", reason="claude-code-action working")


def parse(comment: RawComment) -> ParsedComment:
    body = clean_body(comment.body)
    text = body.strip()
    if not text:
        return noise("empty claude comment")
    thread = comment.endpoint == "review_comment"
    if thread and text.startswith(_MANAGED):
        return _managed(comment, text)
    opening = lead(body)
    notice = _notice(body, opening)
    if notice is not None:
        kept = _prompt_findings(comment, body)
        if kept:  # an error after a partial review: the run failed, its findings stand
            return notice.model_copy(
                update={"findings": tuple(kept), "parse_note": f"{notice.detail}; findings kept"}
            )
        return notice
    header = _FINISHED.search(body)
    if header and _FINISHED.match(opening):
        return _finished(comment, body, header)
    if _WORKING.match(opening):
        if thread:
            return noise("claude-code-action stub reply in a review thread")
        return _working(comment, body)
    findings = _prompt_findings(comment, body)
    if findings:
        return found(findings, "claude prompt-defined review findings")
    if _LGTM.match(text):
        return ParsedComment(kind="clean", reason="claude LGTM")
    if _TASK.match(opening) and _open_tasks(body) and not thread:
        return ParsedComment(kind="in_progress", reason="claude-code-action checklist open")
    if comment.in_reply_to_id is not None:
        return noise("claude thread reply")
    return unread(KEY, comment, "unrecognised claude comment")


# The colour markers; the first one in a label decides (prompt-defined headings such as
# "🟡 Warnings (Should Fix)" carry the emoji first).
_LABEL_EMOJI = ("🔴", "🚨", "🟡", "🟣", "🟢", "🔵")


def canonical_label(raw: str) -> str:
    """`🟡 Warnings (Should Fix)` → `🟡`; "Critical: title", "Warnings (…)" → their first word,
    singular."""
    text = raw.strip()
    for emoji in _LABEL_EMOJI:
        if text.startswith(emoji):
            return emoji
    if _CRITICAL_WORD.match(plain_label(text)):
        return "critical"  # "Critical Issues", "Must fix", "Blockers"
    word = re.split(r"[\s:(]", plain_label(text), maxsplit=1)[0]
    return word[:-1] if word in {"warnings", "suggestions", "nits"} else word


PROFILE = BotProfile(
    key=KEY,
    display="Claude",
    logins=LOGINS,
    parse=parse,
    severity={
        "🔴": "critical",
        "🚨": "critical",
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
    # claude-code-action's tracking comment, edited in place until it finishes or fails.
    tracker=Tracker(
        working=("Claude Code is working", "analyze this and get back"),
        done=("Claude finished", "Claude encountered an error", "Code review skipped"),
    ),
)
