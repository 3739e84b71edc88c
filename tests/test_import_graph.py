"""The import graph of ``xuezhan``: no circle, and no import that runs back up a layer.

Every ``import`` counts: at the top of a module, inside a function (a lazy import) and under
``TYPE_CHECKING``. The layers are those of docs/architecture.md, lowest first; a package may
import its own modules and any package of a lower layer, never one of its own layer or above.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src" / "xuezhan"

LAYERS: tuple[tuple[str, ...], ...] = (
    ("xuezhan", "xuezhan.ids"),
    ("xuezhan.errors",),
    ("xuezhan.vocab", "xuezhan.tiles", "xuezhan.extras", "xuezhan.jsontext"),
    ("xuezhan.hand", "xuezhan.i18n", "xuezhan.scale"),
    ("xuezhan.rules",),
    ("xuezhan.scoring",),
    ("xuezhan.engine",),
    ("xuezhan.records", "xuezhan.native", "xuezhan.coins"),
    ("xuezhan.explain", "xuezhan.encoding"),
    ("xuezhan.bots", "xuezhan.match", "xuezhan.words"),
    ("xuezhan.hints", "xuezhan.runtime", "xuezhan.store"),
    ("xuezhan.selfplay", "xuezhan.league", "xuezhan.review"),
    ("xuezhan.rl",),
    ("xuezhan.server", "xuezhan.tui"),
    ("xuezhan.cli",),
    ("xuezhan.__main__",),
)
"""Packages and top-level modules by layer; a layer imports only the layers before it."""

RANK: Mapping[str, int] = {name: i for i, layer in enumerate(LAYERS) for name in layer}

LONG_MODULE = 600
"""Lines over which a module says at its top why it is that long (a ``Long:`` line in its docstring)."""


def module_name(path: Path, top: Path = SRC) -> str:
    parts = list(path.relative_to(top.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules_of(top: Path) -> dict[str, Path]:
    """Every module of the package in folder ``top``, by its dotted name."""
    return {module_name(p, top): p for p in sorted(top.rglob("*.py"))}


MODULES: Mapping[str, Path] = modules_of(SRC)


def imports(name: str, modules: Mapping[str, Path] = MODULES) -> Iterator[tuple[int, str]]:
    """``(line, module)`` for every module of ``modules`` that ``name`` imports, wherever the
    import is: at the top, in a function, under ``TYPE_CHECKING``."""
    path = modules[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                if sub in modules:
                    yield node.lineno, sub
                elif target in modules:
                    yield node.lineno, target
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in modules:
                    yield node.lineno, alias.name


def graph_of(modules: Mapping[str, Path]) -> dict[str, frozenset[str]]:
    """Each module of ``modules`` → the modules of ``modules`` it imports."""
    return {name: frozenset(t for _, t in imports(name, modules) if t != name) for name in modules}


GRAPH: Mapping[str, frozenset[str]] = graph_of(MODULES)


def unit(name: str) -> str:
    """The package or top-level module ``name`` belongs to (``xuezhan.engine.game`` → ``xuezhan.engine``)."""
    return ".".join(name.split(".")[:2])


def cycles(graph: Mapping[str, frozenset[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.append(top)
                    if top == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_scan_reads_every_kind_of_import() -> None:
    assert "xuezhan.engine.game" in GRAPH["xuezhan.engine"]  # from .game import Game (a package's __init__)
    assert GRAPH["xuezhan.cli"]  # the command line imports something
    assert cycles({"a": frozenset({"b"}), "b": frozenset({"c"}), "c": frozenset({"a"}), "d": frozenset({"a"})}) == [
        ["a", "b", "c"]
    ]
    assert cycles({"a": frozenset({"b"}), "b": frozenset()}) == []


def test_the_scan_sees_lazy_and_type_checking_imports(tmp_path: Path) -> None:
    top = tmp_path / "pkg"
    top.mkdir()
    (top / "__init__.py").write_text("from .a import A\n")
    (top / "a.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import B\nA = 1\n")
    (top / "b.py").write_text("import pkg.c\ndef f():\n    from . import a\n")
    (top / "c.py").write_text("from pkg import a\n")
    graph = graph_of(modules_of(top))
    assert graph == {"pkg": {"pkg.a"}, "pkg.a": {"pkg.b"}, "pkg.b": {"pkg.a", "pkg.c"}, "pkg.c": {"pkg.a"}}
    assert cycles(graph) == [["pkg.a", "pkg.b", "pkg.c"]]  # a → b → a, and a → b → c → a


def test_every_package_has_a_layer() -> None:
    assert sorted({unit(m) for m in MODULES} - set(RANK)) == []


def test_no_module_imports_itself_back_in_a_circle() -> None:
    assert cycles(GRAPH) == []


def test_no_package_imports_its_own_layer_or_one_above() -> None:
    bad = [
        f"{MODULES[name].relative_to(SRC.parent)}:{line}: {unit(name)} imports {target}"
        for name in MODULES
        for line, target in imports(name)
        if unit(target) != unit(name) and RANK[unit(target)] >= RANK[unit(name)]
    ]
    assert bad == []


@pytest.mark.parametrize("name", sorted(MODULES))
def test_a_long_module_says_why(name: str) -> None:
    source = MODULES[name].read_text(encoding="utf-8")
    if source.count("\n") <= LONG_MODULE:
        return
    doc = ast.get_docstring(ast.parse(source)) or ""
    assert any(line.startswith("Long:") for line in doc.splitlines()), (
        f"{name} has {source.count(chr(10))} lines: split it, or say why at its top (a 'Long:' line)"
    )
