"""The Qodo profile (reviewcoord/bots/qodo.py) on constructed comments (docs/bot-formats.md §14)."""

from __future__ import annotations

from reviewcoord.bots import bot_for_author, display_name, parse_comment, rerequest_hint
from reviewcoord.bots.registry import REGISTRY
from tests.bots_support import comment, finishes_within_cpu, graphql_bot

SHA = "b1305dd0e8bad5375edb9346ebce431394f5c7d7"
DIVIDER = (
    '<img src="https://www.qodo.ai/wp-content/uploads/2025/11/light-grey-line.svg" '
    'height="10%" alt="Grey Divider">'
)


def _badge(word: str, alt: str) -> str:
    return (
        f'<img src="https://img.shields.io/badge/{word}-634FD1?style=flat-square" '
        f'height="20px" alt="{alt}">'
    )


def _item(number: int, title: str, path: str, lines: str, status: str = "") -> str:
    return f"""<details>
<summary>  {number}.  {title} {status}<code>🐞 Bug</code> <code>☼ Reliability</code></summary>

<br/>

> <details open>
><summary>Description</summary>
><br/>
>
><pre>
>{title} happens here. More words follow.
></pre>
></details>

> <details>
><summary>Code</summary>
><br/>
>
><code>[{path}[{lines}]](https://github.com/o/r/pull/1/files#diff-abc)</code>
></details>

> <details>
><summary>Evidence</summary>
><br/>
> <code>[other/file.py[1-2]](https://github.com/o/r/blob/{SHA}/other/file.py/#L1-L2)</code>
></details>

<hr/>
</details>
"""


def _review(*parts: str, counts: str = "(2)") -> str:
    return "\n\n".join(
        [
            "<h3>Code Review by Qodo</h3>",
            f"<code>🐞 Bugs {counts}</code>  <code>📘 Rule violations (0)</code>",
            DIVIDER,
            *parts,
            DIVIDER,
            "<details><summary><strong>Context</strong></summary>\n"
            "<div>1. not a finding</div>\n</details>",
            "<!-- qodo-daily-tip:start -->\n<details>\n<summary> Tip of the day</summary>\n"
            "<pre>💡 tip</pre>\n</details>\n<!-- qodo-daily-tip:end -->",
            f"<!-- https://github.com/o/r/commit/{SHA} -->",
            '<a href="https://www.qodo.ai">'
            '<img src="https://www.qodo.ai/logo.svg" alt="Qodo Logo"></a>',
        ]
    )


def _parse(body: str):  # type: ignore[no-untyped-def]
    return parse_comment("qodo", comment(body, endpoint="issue_comment"))


def test_profile_registered() -> None:
    assert bot_for_author("qodo-code-review[bot]", "Bot") == "qodo"
    assert graphql_bot("qodo-code-review") == "qodo"
    assert display_name("qodo") == "Qodo"
    assert rerequest_hint("qodo") == "re-request with `/review`"
    assert "qodo" in REGISTRY.pack("fast")


def test_open_groups_give_open_findings_at_group_levels() -> None:
    body = _review(
        _badge("High", "Action required"),
        _item(1, "Non-atomic run creation", "internal/api/runs.go", "R74-79"),
        _badge("Medium", "Remediation recommended"),
        _item(2, "Closed one", "a.py", "R1-2", "<code>✓ Resolved</code> ").replace(
            "Closed one", "<s>Closed one</s>", 1
        ),
        _item(3, "Git diff executes repo config", "src/workspace.py", "R158"),
    )
    parsed = _parse(body)
    assert parsed.kind == "finding" and parsed.parse_note is None
    assert parsed.reviewed_commit == SHA
    got = [
        (f.title, f.severity_raw, f.severity, f.file, f.line, f.line_end) for f in parsed.findings
    ]
    assert got == [
        ("Non-atomic run creation", "High", "critical", "internal/api/runs.go", 74, 79),
        ("Git diff executes repo config", "Medium", "medium", "src/workspace.py", 158, None),
    ]
    assert parsed.findings[0].gist == "Non-atomic run creation happens here."
    assert all(f.reviewed_commit == SHA for f in parsed.findings)


def test_alt_text_decides_the_level_whatever_the_word() -> None:
    body = _review(
        _badge("Warning", "Action required"),
        _item(1, "Blocker", "a.py", "R1"),
        _badge("Critical", "Informational"),
        _item(2, "Note", "b.py", "R2"),
        _badge("Medium", "Review recommended"),
        _item(3, "Look", "c.py", "R3"),
    )
    levels = [(f.title, f.severity_raw, f.severity) for f in _parse(body).findings]
    assert levels == [
        ("Blocker", "Action required", "critical"),
        ("Note", "Informational", "low"),
        ("Look", "Medium", "medium"),
    ]


def test_all_closed_is_a_reviewed_done_signal() -> None:
    body = _review(
        _badge("High", "Action required"),
        _item(1, "<s>Gone</s>", "a.py", "R1", "<code>✓ Resolved</code> "),
        _item(2, "<s>Dropped</s>", "b.py", "R1", "<code>✗ Dismissed</code> "),
        counts="(0)",
    )
    parsed = _parse(body)
    assert parsed.kind == "reviewed" and not parsed.findings
    assert parsed.reviewed_commit == SHA


def test_header_counting_open_items_it_cannot_read_is_unreadable() -> None:
    parsed = _parse(_review("something new", counts="(3)"))
    assert parsed.unreadable and parsed.parse_note is not None and not parsed.findings


def test_pr_summary_is_noise() -> None:
    body = (
        "<h3>PR Summary by Qodo</h3>\n\nAdds a thing.\n\n"
        "<details><summary>  1.  x</summary></details>"
    )
    parsed = _parse(body)
    assert parsed.kind == "noise" and not parsed.findings


def test_huge_hostile_body_stays_fast() -> None:
    body = "<h3>Code Review by Qodo</h3>" + "<summary>  1. <img src=x " * 40_000
    body += "<code>[a[R1" * 40_000
    assert finishes_within_cpu(5, lambda: _parse(body[:1_000_000]))
