"""A tiny, safe evaluator of the GitHub Actions expression subset our workflow uses, so tests and
bench/lifecycle.py evaluate the REAL `if:` and `concurrency.group` of
.github/workflows/review-coordinator.yml against real event payloads.

Supported (GitHub docs, "Evaluate expressions in workflows and actions"): literals `null`,
`true`, `false`, numbers, '…' strings ('' escapes a quote); property access `a.b.c`,
`a['b']` and `a[0]` (a missing property or element is null); `!`, `<`, `<=`, `>`, `>=`, `==`,
`!=`, `&&`, `||`, parentheses; functions `contains`, `startsWith`, `endsWith`, `format` (`{0}`
placeholders, `{{`/`}}` escapes) and `fromJSON`. As on GitHub:
`&&` / `||` return one of their operands (so `a || b || c` picks the first truthy value); falsy are
`false`, `0`, `''`, `null`; `==` coerces mismatched types to numbers and compares strings
case-insensitively; the three functions ignore case. Anything else (another function, `*`
filters) raises ValueError rather than guess. Nothing is executed: no eval, no attribute
access on Python objects, only dict/list lookups.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from typing import Any

_TOKEN = re.compile(
    r"\s*(?:(?P<num>0x[0-9a-fA-F]+|[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)"
    r"|(?P<str>'(?:[^']|'')*')"
    r"|(?P<op>&&|\|\||==|!=|<=|>=|[!<>()\[\].,])"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_-]*))"
)
_COMPARE = ("==", "!=", "<", "<=", ">", ">=")


def tokenize(text: str) -> list[tuple[str, str]]:
    tokens: list[tuple[str, str]] = []
    pos = 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise ValueError(f"unexpected character at {pos}: {text[pos : pos + 20]!r}")
        kind = m.lastgroup
        assert kind is not None
        tokens.append((kind, m.group(kind)))
        pos = m.end()
    return tokens


def _to_number(v: Any) -> float:
    if v is None:
        return 0.0
    if isinstance(v, bool):
        return 1.0 if v else 0.0
    if isinstance(v, int | float):
        return float(v)
    if isinstance(v, str):
        s = v.strip()
        if s == "":
            return 0.0
        try:
            return float(int(s, 16)) if s.lower().startswith("0x") else float(s)
        except ValueError:
            return math.nan
    return math.nan


def to_string(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    if isinstance(v, int | float | str):
        return str(v)
    return "Object" if isinstance(v, dict) else "Array"


def truthy(v: Any) -> bool:
    if v is None or v is False:
        return False
    if isinstance(v, int | float) and not isinstance(v, bool):
        return not (v == 0 or math.isnan(v))
    if isinstance(v, str):
        return v != ""
    return True


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, dict | list) or isinstance(b, dict | list):
        return a is b
    if isinstance(a, str) and isinstance(b, str):
        return a.casefold() == b.casefold()
    if type(a) is type(b) and not isinstance(a, int | float):
        return bool(a == b)
    return _to_number(a) == _to_number(b)


def _compare(op: str, a: Any, b: Any) -> bool:
    if op == "==":
        return _equal(a, b)
    if op == "!=":
        return not _equal(a, b)
    if isinstance(a, str) and isinstance(b, str):
        x: Any = a.casefold()
        y: Any = b.casefold()
    else:
        x, y = _to_number(a), _to_number(b)
        if math.isnan(x) or math.isnan(y):
            return False
    return bool({"<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y}[op])


def _contains(search: Any, item: Any) -> bool:
    if isinstance(search, list):
        return any(_equal(e, item) for e in search)
    return to_string(item).casefold() in to_string(search).casefold()


def _format(template: Any, *args: Any) -> str:
    """`format('{0}-{1}', a, b)`: `{N}` is argument N as a string; `{{` and `}}` are braces."""
    text = to_string(template)

    def one(m: re.Match[str]) -> str:
        if m.group(0) in ("{{", "}}"):
            return m.group(0)[0]
        index = int(m.group(1))
        if index >= len(args):
            raise ValueError(f"format: no argument {index}")
        return to_string(args[index])

    return re.sub(r"\{\{|\}\}|\{(\d+)\}", one, text)


def _from_json(text: Any) -> Any:
    try:
        return json.loads(to_string(text))
    except ValueError as exc:
        raise ValueError(f"fromJSON: not JSON: {exc}") from None


FUNCTIONS: dict[str, tuple[Callable[..., Any], range]] = {
    "contains": (_contains, range(2, 3)),
    "startswith": (
        lambda s, p: to_string(s).casefold().startswith(to_string(p).casefold()),
        range(2, 3),
    ),
    "endswith": (
        lambda s, p: to_string(s).casefold().endswith(to_string(p).casefold()),
        range(2, 3),
    ),
    "format": (_format, range(1, 100)),
    "fromjson": (_from_json, range(1, 2)),
}


class _Parser:
    def __init__(self, text: str, context: Mapping[str, Any]) -> None:
        self.tokens = tokenize(text)
        self.i = 0
        self.context = context

    def peek(self) -> str | None:
        return self.tokens[self.i][1] if self.i < len(self.tokens) else None

    def take(self, expected: str | None = None) -> tuple[str, str]:
        if self.i >= len(self.tokens):
            raise ValueError("unexpected end of expression")
        tok = self.tokens[self.i]
        if expected is not None and tok[1] != expected:
            raise ValueError(f"expected {expected!r}, got {tok[1]!r}")
        self.i += 1
        return tok

    def parse(self) -> Any:
        value = self.or_()
        if self.i != len(self.tokens):
            raise ValueError(f"unexpected {self.tokens[self.i][1]!r}")
        return value

    def or_(self) -> Any:
        left = self.and_()
        while self.peek() == "||":
            self.take()
            right = self.and_()
            left = left if truthy(left) else right
        return left

    def and_(self) -> Any:
        left = self.compare()
        while self.peek() == "&&":
            self.take()
            right = self.compare()
            left = right if truthy(left) else left
        return left

    def compare(self) -> Any:
        left = self.unary()
        while self.peek() in _COMPARE:
            op = self.take()[1]
            left = _compare(op, left, self.unary())
        return left

    def unary(self) -> Any:
        if self.peek() == "!":
            self.take()
            return not truthy(self.unary())
        return self.postfix(self.primary())

    def primary(self) -> Any:
        kind, text = self.take()
        if text == "(" and kind == "op":
            value = self.or_()
            self.take(")")
            return value
        if kind == "num":
            return _to_number(text)
        if kind == "str":
            return text[1:-1].replace("''", "'")
        if kind != "name":
            raise ValueError(f"unexpected {text!r}")
        lowered = text.lower()
        if lowered in ("true", "false", "null"):
            return {"true": True, "false": False, "null": None}[lowered]
        if self.peek() == "(":
            return self.call(lowered)
        return self.context.get(text)

    def call(self, name: str) -> Any:
        if name not in FUNCTIONS:
            raise ValueError(f"function {name!r} is not supported here")
        self.take("(")
        args = [self.or_()]
        while self.peek() == ",":
            self.take()
            args.append(self.or_())
        self.take(")")
        function, arity = FUNCTIONS[name]
        if len(args) not in arity:
            raise ValueError(f"{name} takes {arity.start}–{arity.stop - 1} arguments")
        return function(*args)

    def postfix(self, value: Any) -> Any:
        while self.peek() in (".", "["):
            if self.take()[1] == ".":
                kind, key = self.take()
                if kind != "name":
                    raise ValueError(f"bad property name {key!r}")
            else:
                index = self.or_()
                self.take("]")
                if isinstance(value, list) and type(index) in (int, float):
                    # An array element by its number (`pull_requests[0]`); out of range: null.
                    n = int(index)
                    value = value[n] if index == n and 0 <= n < len(value) else None
                    continue
                key = to_string(index)
            value = value.get(key) if isinstance(value, dict) else None
        return value


def evaluate(expression: str, context: Mapping[str, Any]) -> Any:
    """The value of one expression (with or without its `${{ }}`)."""
    text = expression.strip()
    if text.startswith("${{") and text.endswith("}}"):
        text = text[3:-2]
    return _Parser(text, context).parse()


def interpolate(template: str, context: Mapping[str, Any]) -> str:
    """A string with `${{ … }}` parts, as in `concurrency.group`."""
    return re.sub(r"\$\{\{(.*?)\}\}", lambda m: to_string(evaluate(m.group(1), context)), template)


def event_context(
    event_name: str,
    payload: Mapping[str, Any],
    *,
    run_id: int = 1,
    inputs: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The `github` and `inputs` contexts a run of `event_name` with `payload` sees: `actor` is
    the event's sender; `inputs` are the workflow's own (a reusable workflow's, as its caller
    passes them), by default a dispatch's inputs."""
    repository = payload.get("repository")
    sender = payload.get("sender")
    github = {
        "event_name": event_name,
        "event": dict(payload),
        "run_id": run_id,
        "repository": repository.get("full_name") if isinstance(repository, dict) else None,
        "actor": sender.get("login") if isinstance(sender, dict) else None,
    }
    if inputs is None:
        dispatched = payload.get("inputs") if event_name == "workflow_dispatch" else None
        inputs = dispatched if isinstance(dispatched, dict) else {}
    return {"github": github, "inputs": dict(inputs)}
