"""Error codes, reasons and event kinds are used by reference (``ErrorCode.BAD_TILE``), never
written out as text where the code raises, refuses or compares them (docs/architecture.md)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from xuezhan.ids import ErrorCode, EventKind, Reason

SRC = Path(__file__).resolve().parent.parent / "src" / "xuezhan"
CODES = frozenset(ErrorCode)
REASONS = frozenset(Reason)
EVENT_KINDS = frozenset(EventKind)

TAKES_A_CODE = frozenset({"error_message", "error_text", "error_response", "json_object", "_refuse", "_error",
                          "emit_error", "ApiError"})
"""Functions whose code argument is an error code (besides every ``...Error`` class)."""

EVENT_NAMES = frozenset({"e", "ev", "event", "last"})
"""What the sources call an event of the engine's log (a meld's or a message's ``type`` is no event kind)."""


def _name(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def bare_ids(source: str) -> Iterator[tuple[int, str]]:
    """``(line, text)`` for each id written as text where the code uses it as an id: the code of an
    error raised or refused, a reason or an event kind compared with ``==``/``!=``/``in``."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            name = _name(node.func)
            if name.endswith("Error") or name in TAKES_A_CODE:
                for arg in [*node.args[:3], *(k.value for k in node.keywords if k.arg == "code")]:
                    if isinstance(arg, ast.Constant) and arg.value in CODES:
                        yield node.lineno, f"{name}({arg.value!r})"
        elif isinstance(node, ast.Compare):
            left = ast.unparse(node.left)
            if not (left.endswith(".reason") or (left.split("[")[0].split(".")[0] in EVENT_NAMES
                    and (left.endswith("['type']") or left.endswith(".get('type')")))):
                continue
            ids = REASONS if left.endswith(".reason") else EVENT_KINDS
            for right in node.comparators:
                texts = right.elts if isinstance(right, ast.Tuple | ast.Set | ast.List) else [right]
                for t in texts:
                    if isinstance(t, ast.Constant) and t.value in ids:
                        yield node.lineno, f"{left} … {t.value!r}"


def test_the_scan_finds_bare_ids() -> None:
    code = ("raise XuezhanError('bad_tile', 'x')\n"
            "raise XuezhanError(ErrorCode.BAD_TILE, 'x')\n"
            "_refuse(conn, kind, 'stale', 'y')\n"
            "if e.reason == 'hu' or ev['type'] in ('draw', 'hu'): pass\n"
            "if msg['type'] == 'state' or m['type'] == 'peng': pass\n")
    assert [text for _, text in bare_ids(code)] == [
        "XuezhanError('bad_tile')", "_refuse('stale')", "e.reason … 'hu'", "ev['type'] … 'draw'",
        "ev['type'] … 'hu'",
    ]


def test_the_sources_use_ids_by_reference() -> None:
    files = sorted(SRC.rglob("*.py"))
    assert len(files) > 50
    found = [f"{p.relative_to(SRC)}:{line}: {text}"
             for p in files for line, text in bare_ids(p.read_text(encoding="utf-8"))]
    assert found == []
