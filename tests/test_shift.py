"""Line ranges travel with the code (reviewcoord/judgement/shift.py): the hunk arithmetic, as
properties checked against difflib's own reading of two versions of a file, plus the cases the
issue names (insert 100 lines above 50–52, then edit 48–53)."""

from __future__ import annotations

import difflib

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from reviewcoord.judgement.shift import (
    MAX_BLOCKS,
    NOTHING,
    Blocks,
    Push,
    changes_lines,
    parse_patch,
    shift,
    travel,
)

# --- the issue's case, by hand ------------------------------------------------------------

INSERT_100_ABOVE = "@@ -10,0 +11,100 @@\n" + "+new\n" * 100
EDIT_48_53 = "@@ -48,6 +48,6 @@\n" + "-old\n" * 6 + "+new\n" * 6


def test_lines_inserted_above_move_the_finding_and_do_not_change_it() -> None:
    assert shift(parse_patch(INSERT_100_ABOVE), (50, 52)) == ((150, 152), False)


def test_an_edit_at_the_old_numbers_is_not_at_the_moved_finding() -> None:
    moved, changed = travel(
        (50, 52), False, "a.py", Push(frozenset({"a.py"}), {"a.py": parse_patch(INSERT_100_ABOVE)})
    )
    assert (moved, changed) == ((150, 152), False)
    edit = Push(frozenset({"a.py"}), {"a.py": parse_patch(EDIT_48_53)})
    assert travel(moved, changed, "a.py", edit) == ((150, 152), False)
    # Control: the same edit where the finding really is (148–153) changes it.
    at_it = parse_patch("@@ -148,6 +148,6 @@\n" + "-old\n" * 6 + "+new\n" * 6)
    assert travel(moved, changed, "a.py", Push(frozenset({"a.py"}), {"a.py": at_it})) == (
        (148, 153),
        True,
    )


def test_context_lines_are_not_changes() -> None:
    # GitHub's hunks carry 3 context lines: only the `-`/`+` lines change anything.
    patch = "@@ -47,7 +47,7 @@ def f():\n a\n b\n c\n-d\n+D\n e\n f\n g"
    assert parse_patch(patch) == ((50, 1, 50, 1),)
    assert not changes_lines(parse_patch(patch), 47, 49)
    assert changes_lines(parse_patch(patch), 49, 50)


def test_a_hunk_whose_body_does_not_add_up_is_taken_whole() -> None:
    assert parse_patch("@@ -150,10 +150,8 @@\n-a\n+b") == ((150, 10, 150, 8),)
    assert parse_patch("@@ -10,3 +10,4 @@ x\n-a\n?b") == ((10, 3, 10, 4),)
    assert parse_patch("no hunk here\n@@ not one @@") == ()
    assert parse_patch("@@ -1,1 +1,1 @@\n" * 20_000) == ((1, 1, 1, 1),) * MAX_BLOCKS


def test_insertions_count_only_strictly_inside_the_range() -> None:
    blocks = ((10, 3, 10, 3), (60, 0, 61, 2))
    assert changes_lines(blocks, 12, 12) and changes_lines(blocks, 5, 10)
    assert not changes_lines(blocks, 13, 20)  # changed above, not in it
    assert changes_lines(blocks, 59, 61)  # an insertion after 60, inside 59–61
    assert not changes_lines(blocks, 60, 60)  # an insertion after the range's last line


def test_travel_without_a_patch_knows_nothing() -> None:
    listed = Push(frozenset({"a.py"}), {})  # changed, but GitHub gave no patch (binary, huge)
    assert travel((5, 6), True, "a.py", listed) == (None, False)
    assert travel((5, 6), True, "a.py", Push.unknown()) == (None, False)  # a force-push
    cut = Push(frozenset({"b.py"}), {}, complete=False)  # GitHub's list was cut
    assert travel((5, 6), False, "a.py", cut) == (None, False)
    # Control: a file the complete list does not name did not change.
    assert travel((5, 6), True, "a.py", Push(frozenset({"b.py"}), {})) == ((5, 6), True)
    assert travel((5, 6), False, "a.py", NOTHING) == ((5, 6), False)
    assert travel(None, False, "a.py", NOTHING) == (None, False)


def test_a_range_removed_whole_collapses_to_the_line_before() -> None:
    assert shift(((49, 5, 48, 0),), (50, 52)) == ((48, 48), True)
    assert shift(((1, 5, 0, 0),), (2, 3)) == ((1, 1), True)


# --- properties against difflib -----------------------------------------------------------


def edit(draw: st.DrawFn, old: list[str], tag: str) -> list[str]:
    """An edited copy of `old`: lines kept, dropped, replaced or added after (new lines are
    named `tag` + a number, so every line stays unique)."""
    new: list[str] = []
    fresh = 0
    for line in old:
        op = draw(st.sampled_from(["keep", "keep", "keep", "drop", "swap", "add"]))
        if op in ("add", "swap"):
            for _ in range(draw(st.integers(1, 4))):
                new.append(f"{tag}{fresh}")
                fresh += 1
        if op in ("keep", "add"):
            new.append(line)
    if draw(st.booleans()):
        new.extend(f"{tag}t{i}" for i in range(draw(st.integers(1, 3))))
    return new


@st.composite
def two_versions(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    """A file and an edited copy of it; every line unique, so contents identify lines."""
    old = [f"o{i}" for i in range(draw(st.integers(0, 40)))]
    return old, edit(draw, old, "n")


def diff(old: list[str], new: list[str], context: int) -> Blocks:
    text = "\n".join(difflib.unified_diff(old, new, "a", "b", n=context, lineterm=""))
    return parse_patch(text)


def a_range(data: st.DataObject, lines: list[str]) -> tuple[int, int]:
    """Some lines of a non-empty file: (first, last), 1-based."""
    assume(lines)
    first = data.draw(st.integers(1, len(lines)))
    return first, data.draw(st.integers(first, len(lines)))


def truth(old: list[str], new: list[str]) -> tuple[dict[int, int], set[int], set[int]]:
    """From difflib's opcodes: old line → new line for kept lines; old lines removed; old
    lines after which something was inserted (1-based)."""
    kept: dict[int, int] = {}
    removed: set[int] = set()
    inserted_after: set[int] = set()
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, _j2 in matcher.get_opcodes():
        if tag == "equal":
            kept.update({i1 + k + 1: j1 + k + 1 for k in range(i2 - i1)})
        elif tag == "insert":
            inserted_after.add(i1)
        else:
            removed.update(range(i1 + 1, i2 + 1))
            if tag == "replace":
                inserted_after.add(i1)  # counts like a change at i1 + 1, already removed
    return kept, removed, inserted_after


@settings(max_examples=300, deadline=None)
@given(two_versions(), st.integers(0, 3), st.data())
def test_changes_match_difflib(
    versions: tuple[list[str], list[str]], context: int, data: st.DataObject
) -> None:
    old, new = versions
    blocks = diff(old, new, context)
    first, last = a_range(data, old)
    _kept, removed, inserted_after = truth(old, new)
    expected = any(first <= x <= last for x in removed) or any(
        first <= x < last for x in inserted_after
    )
    assert changes_lines(blocks, first, last) == expected


@settings(max_examples=300, deadline=None)
@given(two_versions(), st.integers(0, 3), st.data())
def test_an_unchanged_range_points_at_the_same_lines(
    versions: tuple[list[str], list[str]], context: int, data: st.DataObject
) -> None:
    old, new = versions
    blocks = diff(old, new, context)
    first, last = a_range(data, old)
    (lo, hi), changed = shift(blocks, (first, last))
    assert 1 <= lo <= hi
    if not changed:
        assert new[lo - 1 : hi] == old[first - 1 : last]


@settings(max_examples=200, deadline=None)
@given(two_versions(), st.integers(0, 3))
def test_every_kept_line_maps_to_its_new_number(
    versions: tuple[list[str], list[str]], context: int
) -> None:
    old, new = versions
    blocks = diff(old, new, context)
    kept, _removed, _ins = truth(old, new)
    for line, target in kept.items():
        assert shift(blocks, (line, line)) == ((target, target), False)


@settings(max_examples=200, deadline=None)
@given(two_versions(), st.data())
def test_a_range_travels_through_two_compares(
    first_edit: tuple[list[str], list[str]], data: st.DataObject
) -> None:
    """Shifted through each compare between judged heads: a range no push changed still points
    at its own lines two heads later."""
    a, b = first_edit
    c = edit(data.draw, b, "m")
    first, last = a_range(data, a)
    push1 = Push(frozenset({"f"}), {"f": diff(a, b, 3)})
    push2 = Push(frozenset({"f"}), {"f": diff(b, c, 3)})
    span, changed = travel((first, last), False, "f", push1)
    span, changed = travel(span, changed, "f", push2)
    assert span is not None
    if not changed:
        assert c[span[0] - 1 : span[1]] == a[first - 1 : last]


@settings(max_examples=200, deadline=None)
@given(two_versions(), st.data())
def test_headers_alone_never_say_less_than_the_bodies(
    versions: tuple[list[str], list[str]], data: st.DataObject
) -> None:
    """A hunk taken whole (its body unreadable) is never narrower than the exact reading."""
    old, new = versions
    first, last = a_range(data, old)
    text = "\n".join(difflib.unified_diff(old, new, "a", "b", n=3, lineterm=""))
    headers = "\n".join(line for line in text.split("\n") if line.startswith("@@"))
    if changes_lines(parse_patch(text), first, last):
        assert changes_lines(parse_patch(headers), first, last)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400), st.integers(1, 50), st.integers(0, 50))
def test_any_text_is_read_without_error(text: str, first: int, extra: int) -> None:
    blocks = parse_patch(text)
    (lo, hi), _changed = shift(blocks, (first, first + extra))
    assert 1 <= lo <= hi
