"""Structural guarantees of `reviewcoord/`, read from its source with `ast` (nothing imported,
nothing run): no import cycle, no function over 80 lines, the two big modules at most 400
lines, code-scanning alerts named in few places, and each bot's check-run name only under
`reviewcoord/bots/`. Each rule is a function of a source tree ({path: text}); each has a
control, a small fake tree that breaks it, so a rule that stopped seeing anything would fail."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Mapping
from graphlib import CycleError, TopologicalSorter
from itertools import pairwise
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "reviewcoord"
MAX_FUNCTION_LINES = 80
MAX_MODULE_LINES = 400
SIZED_MODULES = ("reviewcoord/runner.py", "reviewcoord/merge_queue.py")
# The places that know about code-scanning alerts (besides bots/ and github/), at most three.
ALERT_MODULES = frozenset(
    {"reviewcoord/reading.py", "reviewcoord/config.py", "reviewcoord/model.py"}
)
MAX_ALERT_MODULES = 3
ALERT_FREE = ("reviewcoord/bots/", "reviewcoord/github/")
ALERT = re.compile("alert", re.IGNORECASE)  # also inside names: `CodeScanningAlert`, `alerts=`
# Each bot's own check-run name (any string containing it), and CodeRabbit's check context.
BOT_CHECK_NAMES = ("copilot-pull-request-reviewer", "Cursor Bugbot", "Greptile Review")
BOT_CHECK_LITERALS = frozenset({"CodeRabbit"})
BOTS_DIR = "reviewcoord/bots/"

Tree = Mapping[str, str]  # "reviewcoord/x.py" -> its source


def package_tree() -> dict[str, str]:
    return {
        p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted((ROOT / PACKAGE).rglob("*.py"))
    }


def module_name(path: str) -> str:
    name = path.removesuffix(".py").replace("/", ".")
    return name.removesuffix(".__init__")


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_time_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements run when the module is imported: not function bodies, not the body of
    `if TYPE_CHECKING:` (its `else` runs)."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        if isinstance(stmt, ast.If) and _is_type_checking(stmt.test):
            yield from _import_time_statements(stmt.orelse)
            continue
        for field in ("body", "orelse", "finalbody"):
            yield from _import_time_statements(getattr(stmt, field, []))
        for handler in getattr(stmt, "handlers", []):
            yield from _import_time_statements(handler.body)
        for case in getattr(stmt, "cases", []):
            yield from _import_time_statements(case.body)


def _imported(node: ast.Import | ast.ImportFrom, importer: str, is_package: bool) -> list[str]:
    """The module names an import statement loads by name: `import a.b` -> a.b;
    `from a import b` -> a, and a.b too (when it is a module, the check is the caller's);
    relative forms resolved against `importer`."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        package = importer.split(".")
        if not is_package:
            package = package[:-1]
        package = package[: len(package) - (node.level - 1)]
        base = ".".join([*package, *([base] if base else [])])
    return [base, *(f"{base}.{alias.name}" for alias in node.names)]


def import_graph(tree: Tree) -> dict[str, dict[str, int]]:
    """module -> {module it imports at import time: the line}, within the tree."""
    modules = {module_name(path): path for path in tree}
    graph: dict[str, dict[str, int]] = {}
    for name, path in modules.items():
        edges = graph.setdefault(name, {})
        body = ast.parse(tree[path], filename=path).body
        for stmt in _import_time_statements(body):
            if not isinstance(stmt, ast.Import | ast.ImportFrom):
                continue
            for target in _imported(stmt, name, path.endswith("__init__.py")):
                if target in modules and target != name:
                    edges.setdefault(target, stmt.lineno)
    return graph


def import_cycle(tree: Tree) -> list[str]:
    """One import cycle as `path:line imports module` steps, or [] when there is none."""
    graph = import_graph(tree)
    try:
        TopologicalSorter(graph).prepare()
    except CycleError as exc:
        # graphlib lists [a, ..., a], each node a dependency of the next: reversed, each
        # module imports the next.
        cycle: list[str] = exc.args[1][::-1]
        paths = {module_name(path): path for path in tree}
        return [f"{paths[a]}:{graph[a][b]} imports {b}" for a, b in pairwise(cycle)]
    return []


def long_functions(tree: Tree, limit: int = MAX_FUNCTION_LINES) -> list[str]:
    """`path:line name (n lines)` for every function or method longer than `limit` lines
    (from its `def` line to its last line; nested functions count on their own too)."""
    found = []
    for path, source in tree.items():
        for node in ast.walk(ast.parse(source, filename=path)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > limit:
                    found.append(f"{path}:{node.lineno} {node.name} ({length} lines)")
    return found


def long_modules(tree: Tree, paths: tuple[str, ...], limit: int = MAX_MODULE_LINES) -> list[str]:
    lengths = {path: len(tree[path].splitlines()) for path in paths}
    return [f"{path} ({n} lines)" for path, n in lengths.items() if n > limit]


def alert_modules(tree: Tree) -> dict[str, int]:
    """Modules outside bots/ and github/ that mention alerts: path -> first line that does."""
    found = {}
    for path, source in tree.items():
        if path.startswith(ALERT_FREE):
            continue
        for number, line in enumerate(source.splitlines(), start=1):
            if ALERT.search(line):
                found[path] = number
                break
    return found


def _docstrings(module: ast.Module) -> set[int]:
    """The ids of the docstring nodes: prose about a bot is not its check name in use."""
    ids = set()
    for node in ast.walk(module):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                ids.add(id(first.value))
    return ids


def bot_name_literals(tree: Tree) -> list[str]:
    """`path:line 'literal'` for every string literal outside bots/ holding a bot's check name."""
    found = []
    for path, source in tree.items():
        if path.startswith(BOTS_DIR):
            continue
        module = ast.parse(source, filename=path)
        docstrings = _docstrings(module)
        for node in ast.walk(module):
            if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
                continue
            text = node.value
            named = any(name.casefold() in text.casefold() for name in BOT_CHECK_NAMES)
            if id(node) not in docstrings and (named or text in BOT_CHECK_LITERALS):
                found.append((node.lineno, node.col_offset, f"{path}:{node.lineno} {text[:60]!r}"))
    return [line for *_, line in sorted(found)]


# The package itself.


def report(problem: str, places: list[str], fix: str) -> str:
    """A failure message: what is wrong, where, and what to do about it."""
    return "\n  ".join([f"{problem}:", *places]) + f"\n{fix}"


def test_no_import_cycle_among_reviewcoord_modules() -> None:
    cycle = import_cycle(package_tree())
    assert not cycle, report(
        "import cycle among reviewcoord modules",
        cycle,
        "Break it: have the submodule import the sibling module it needs "
        "(`import reviewcoord.pkg.mod as mod`), not its package's __init__; or move the shared "
        "piece into a lower module both can import.",
    )


def test_no_function_longer_than_80_lines() -> None:
    found = long_functions(package_tree())
    assert not found, report(
        f"functions longer than {MAX_FUNCTION_LINES} lines",
        found,
        "Split each into named steps (helpers with one job each); do not raise the limit.",
    )


def test_runner_and_merge_queue_stay_at_most_400_lines() -> None:
    found = long_modules(package_tree(), SIZED_MODULES)
    assert not found, report(
        f"modules over {MAX_MODULE_LINES} lines",
        found,
        "Move a self-contained piece (one job) into its own small module, as merge_decision.py "
        "is merge_queue.py's rule; do not cram lines.",
    )


def test_code_scanning_alerts_are_named_in_few_modules() -> None:
    found = alert_modules(package_tree())
    allowed = not set(found) - ALERT_MODULES and len(found) <= MAX_ALERT_MODULES
    assert allowed, report(
        f"{len(found)} modules outside reviewcoord/bots/ and reviewcoord/github/ mention alerts; "
        f"at most {MAX_ALERT_MODULES} may, of {sorted(ALERT_MODULES)}",
        [
            f"{path}:{line}{'' if path in ALERT_MODULES else '  (not allowed)'}"
            for path, line in sorted(found.items())
        ],
        "Move what they do with code-scanning alerts behind bots/code_scanning.py and "
        "reviewcoord/reading.py, and hand the others findings or a generic source read.",
    )


def test_bot_check_names_live_under_bots() -> None:
    found = bot_name_literals(package_tree())
    assert not found, report(
        "a bot's check-run name outside reviewcoord/bots/",
        found,
        "Read it from the bot's profile (reviewcoord/bots/<bot>.py, via the registry) instead "
        "of repeating the name.",
    )


def test_the_package_is_what_the_rules_read() -> None:
    """Against a vacuous pass: the rules above really read the package."""
    tree = package_tree()
    graph = import_graph(tree)
    assert len(tree) > 50 and "reviewcoord/runner.py" in tree
    assert "reviewcoord.render.surfaces" in graph["reviewcoord.render"]
    assert "reviewcoord.bots.copilot" in graph["reviewcoord.bots"]
    assert long_functions(tree, limit=40)
    assert "reviewcoord/bots/copilot.py" not in alert_modules(tree)


# Controls: a fake tree that breaks each rule, and what the rule must not count.


def test_control_a_cycle_through_a_package_init_is_found() -> None:
    tree = {
        "reviewcoord/__init__.py": "",
        "reviewcoord/pkg/__init__.py": "from reviewcoord.pkg.sub import f\n",
        "reviewcoord/pkg/sub.py": "from reviewcoord.pkg import helper\n\ndef f(): ...\n",
        "reviewcoord/pkg/helper.py": "",
    }
    cycle = import_cycle(tree)
    assert "reviewcoord/pkg/sub.py:1 imports reviewcoord.pkg" in cycle, cycle
    # The fix the first test proposes: the submodule imports its sibling, not the package.
    fixed = {**tree, "reviewcoord/pkg/sub.py": "import reviewcoord.pkg.helper as helper\n"}
    assert import_cycle(fixed) == []


def test_control_from_package_import_submodule_and_relative_forms_are_edges() -> None:
    tree = {
        "reviewcoord/__init__.py": "",
        "reviewcoord/a.py": "from reviewcoord import b\n",
        "reviewcoord/b.py": "from . import c\n",
        "reviewcoord/c.py": "try:\n    from .a import x\nexcept ImportError:\n    pass\n",
    }
    assert len(import_cycle(tree)) == 3


def test_control_function_and_type_checking_imports_are_no_cycle() -> None:
    tree = {
        "reviewcoord/a.py": "from reviewcoord.b import y\n",
        "reviewcoord/b.py": (
            "from typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n    from reviewcoord.a import x\n"
            "def f():\n    from reviewcoord.a import x\n"
        ),
    }
    assert import_cycle(tree) == []
    broken = {**tree, "reviewcoord/b.py": tree["reviewcoord/b.py"] + "import reviewcoord.a\n"}
    assert import_cycle(broken) != []


def test_control_a_long_method_is_found() -> None:
    body = "".join(f"        x{i} = {i}\n" for i in range(MAX_FUNCTION_LINES - 1))
    ok = f"    def ok(self):\n{body}"  # 80 lines: at the limit
    long = f"    def long(self):\n{body}        return 0\n"  # 81
    tree = {"reviewcoord/m.py": f"class C:\n{ok}\n{long}"}
    assert long_functions(tree) == [f"reviewcoord/m.py:{MAX_FUNCTION_LINES + 3} long (81 lines)"]


def test_control_a_long_module_is_found() -> None:
    tree = {
        "reviewcoord/runner.py": "x = 1\n" * (MAX_MODULE_LINES + 1),
        "reviewcoord/merge_queue.py": "x = 1\n" * MAX_MODULE_LINES,
    }
    assert long_modules(tree, SIZED_MODULES) == ["reviewcoord/runner.py (401 lines)"]


def test_control_alerts_outside_bots_and_github_are_found() -> None:
    tree = {
        "reviewcoord/bots/code_scanning.py": "alerts = []\n",
        "reviewcoord/github/gateway.py": "def list_code_scanning_alerts(): ...\n",
        "reviewcoord/model.py": "class CodeScanningAlert: ...\n",
        "reviewcoord/runner.py": "x = 1\n# the Alerts read\n",
        "reviewcoord/plain.py": "x = 1\n",
    }
    assert alert_modules(tree) == {"reviewcoord/model.py": 1, "reviewcoord/runner.py": 2}


def test_control_bot_check_names_outside_bots_are_found() -> None:
    tree = {
        "reviewcoord/bots/cursor.py": 'NAME = "Cursor Bugbot"\n',
        "reviewcoord/settle.py": (
            '"""Waits for Cursor Bugbot (a docstring: prose, not a check name)."""\n'
            'CHECKS = ("Greptile Review", f"{x} copilot-pull-request-reviewer")\n'
            'RABBIT = "CodeRabbit"\n'
            'PROSE = "CodeRabbit is a reviewer"  # not exactly the check context\n'
            "# Cursor Bugbot in a comment\n"
        ),
    }
    assert bot_name_literals(tree) == [
        "reviewcoord/settle.py:2 'Greptile Review'",
        "reviewcoord/settle.py:2 ' copilot-pull-request-reviewer'",
        "reviewcoord/settle.py:3 'CodeRabbit'",
    ]
