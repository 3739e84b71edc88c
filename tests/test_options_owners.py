"""Each rule option is read by the modules that own it (STYLE 4: every option is read in one place).

The scan walks every module of ``src/xuezhan`` with :mod:`ast` and collects the reads of each
:class:`~xuezhan.rules.Rules` field: ``<x>.<field>`` where ``<x>`` is a ``Rules`` value (a name or
attribute called ``rules`` or ``_rules``, a parameter annotated ``Rules``, or a local name bound to
one of these), and ``getattr(<x>, ...)``. (The page's script, ``server/static/app.js``, reads
what the server sends, not :class:`Rules`.) A new read of an option outside its owners fails here:
ask the owner (a function of scoring, the engine or :mod:`xuezhan.match.room`) instead, or add the
module to the table with its reason.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import pytest

from xuezhan.rules import Rules

SRC: Final = Path(__file__).resolve().parent.parent / "src" / "xuezhan"

EVERY: Final = "*"
"""A dynamic read (``getattr(rules, name)``): the module reads every option."""

DERIVED: Final = {"hua_zhu_points": "hua_zhu_multiple", "fan_of": "fan"}
"""Accessors of :class:`Rules` that read an option for the caller."""

NATIVE: Final = {"native": "the marshaller that passes the rules to the C core"}
OWNERS: Final[dict[str, dict[str, str]]] = {
    "preset_name": {
        "bots.protocol": "the bot protocol's rules object names its preset",
        "server.table": "a table's summary names its preset",
        "server.routes.queue": "people queue for a preset: its name is part of the queue's key",
        "tui.app": "the status line names the preset",
        "tui.replay": "the replay's status line names the preset",
    },
    "base_score": {
        "scoring": "every payment's amount: a hand's points, kongs, 花猪, an escape (docs/rules.md §6-§10)",
        "match.room": "the room's 底分 and the settlement's bound (worst_case_*)",
        "server.config": "the server's limit on a room's base score",
        **NATIVE,
    },
    "cap_multiple": {
        "scoring": "the cap on a hand's multiple (docs/rules.md §6)",
        "match.room": "the largest multiple of a hand, for the settlement's bound",
        "match.tiers": "a tier's rooms need a cap, their loss bounded",
        "server.config": "the server's limit on a room's cap",
        "bots.heuristic": "a plan for 清一色 is worth less under a low cap (mirrored by the C heuristic)",
        **NATIVE,
    },
    "dingque": {
        "scoring": "a void-suit tile blocks a win",
        "engine.game": "the 定缺 phase",
        "engine.worth": "a void-suit tile makes a flower pig",
        "cli.analysis": "the analysis ignores the void without 定缺",
        **NATIVE,
    },
    "self_draw_bonus": {"scoring": "the self-draw bonus of a win", **NATIVE},
    "zhigang_payment": {"engine.kongs": "who pays a zhigang", **NATIVE},
    "late_bugang_pays": {"engine.kongs": "whether a late bugang pays", **NATIVE},
    "call_transfer": {"engine.kongs": "呼叫转移 of a kong's payments", **NATIVE},
    "dian_gang_hua": {"engine.wins": "how a win on a zhigang's replacement is paid", **NATIVE},
    "pass_hu_scope": {"engine.claims": "what passing a win forbids", **NATIVE},
    "must_hu_last_four": {
        "engine.claims": "a win may not be passed near the end",
        "engine.legal": "a self-drawn win may not be passed near the end",
        "engine.kongs": "robbing a kong may not be passed near the end",
        **NATIVE,
    },
    "hua_zhu_multiple": {
        "scoring": "what a flower pig pays (through Rules.hua_zhu_points)",
        "match.room": "what a flower pig pays, for the settlement's bound",
        "server.config": "the server's limit on a room's flower-pig multiple",
        **NATIVE,
    },
    "cha_jiao_pays": {
        "engine.worth": "which wait 查大叫 charges",
        "explain": "the sentence says whether the best or the lowest wait was charged",
        **NATIVE,
    },
    "dead_wait_counts": {"engine.worth": "whether a dead wait is ready for 查大叫", **NATIVE},
    "long_qi_dui_mode": {"scoring": "龙七对 as a pattern or as roots", **NATIVE},
    "dealer_rule": {"engine.settlement": "the next dealer", **NATIVE},
    "end_on_first_win": {
        "engine.game": "the hand ends at the first win",
        "engine.worth": "a hand is finished at the first win",
        **NATIVE,
    },
    "escaped_winner_forfeits": {"engine.game": "a winner who escapes gives back its wins"},
    "kong_draw_from_tail": {"engine.state": "where a kong's replacement is drawn", **NATIVE},
    "exchange_three": {
        "engine.game": "the 换三张 phase and its direction",
        "match.match": "a match deals as Game.new does: the random direction is drawn in the same order",
        "records": "a record of a random exchange names its direction",
        **NATIVE,
    },
    "blood_river": {
        "engine.claims": "a winner may claim again",
        "engine.state": "a winner stays active",
        "engine.wins": "a winner plays on",
        "engine.worth": "under 血流成河 a win never finishes the hand",
        "engine.visibility": "a seat that has won shows no waits, but under 血流成河",
        "match.room": "a seat may pay at every moment a tile is won, for the settlement's bound",
        "match.tiers": "a tier's rooms play without blood river, their loss bounded",
        "bots.heuristic": "a winner is still a threat (mirrored by the C heuristic)",
        "tui.app": "the prompt of a seat that has won",
        **NATIVE,
    },
    "fan": {
        "scoring": "the fan of each pattern and extra",
        "match.room": "the most fan of the table, for the settlement's bound",
        **NATIVE,
    },
}
"""Option → the modules (under ``xuezhan``) that read it → why."""

EVERY_OPTION: Final = {
    "rules": "defines, validates and writes the options",
    "bots.protocol": "the bot protocol sends every option to an outside program (docs/interfaces.md §4)",
    "native": "refusal() checks every option the core does not play is at its default",
    "native.layout": "the marshaller's layout passes every option the core plays, by name (RULE_WORDS)",
}
"""Modules that read every option by name."""

FIELDS: Final = tuple(f.name for f in dataclasses.fields(Rules))


def _module(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_rules_annotation(node: ast.expr | None) -> bool:
    return node is not None and ast.unparse(node).replace('"', "").replace("'", "") in ("Rules", "Rules | None")


class _Reads(ast.NodeVisitor):
    """Every read of a Rules field in one module, as (field, line)."""

    def __init__(self) -> None:
        self.reads: list[tuple[str, int]] = []
        self.aliases: list[set[str]] = [set()]

    def is_rules(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Name):
            return node.id in ("rules", "_rules") or node.id in self.aliases[-1]
        if isinstance(node, ast.Attribute):
            return node.attr in ("rules", "_rules")
        return False

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        args = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
        self.aliases.append({a.arg for a in args if _is_rules_annotation(a.annotation)})
        self.generic_visit(node)
        self.aliases.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Assign(self, node: ast.Assign) -> None:
        if self.is_rules(node.value):
            self.aliases[-1].update(t.id for t in node.targets if isinstance(t, ast.Name))
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if isinstance(node.target, ast.Name) and (
            _is_rules_annotation(node.annotation) or (node.value is not None and self.is_rules(node.value))
        ):
            self.aliases[-1].add(node.target.id)
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if self.is_rules(node.value):
            field = DERIVED.get(node.attr, node.attr)
            if field in FIELDS:
                self.reads.append((field, node.lineno))
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, ast.Name) and node.func.id == "getattr" and node.args and self.is_rules(node.args[0]):
            name = node.args[1] if len(node.args) > 1 else None
            if isinstance(name, ast.Constant) and isinstance(name.value, str):
                self.reads.append((DERIVED.get(name.value, name.value), node.lineno))
            else:
                self.reads.append((EVERY, node.lineno))
        self.generic_visit(node)


def _scan(source: str) -> list[tuple[str, int]]:
    visitor = _Reads()
    visitor.visit(ast.parse(source))
    return visitor.reads


def _all_reads() -> Iterator[tuple[str, str, int]]:
    for path in sorted(SRC.rglob("*.py")):
        module = _module(path)
        for field, line in _scan(path.read_text(encoding="utf-8")):
            yield module, field, line


READS: Final = list(_all_reads())


def test_the_table_names_every_option_and_a_reason_for_each_owner() -> None:
    assert set(OWNERS) == set(FIELDS)
    for field, owners in OWNERS.items():
        for module, why in owners.items():
            assert why.strip(), (field, module)
            assert (SRC / module.replace(".", "/")).with_suffix(".py").exists() or (
                SRC / module.replace(".", "/") / "__init__.py").exists(), (field, module)


@pytest.mark.parametrize("field", FIELDS)
def test_each_option_is_read_only_by_its_owners(field: str) -> None:
    owners = set(OWNERS[field]) | set(EVERY_OPTION)
    stray = sorted(f"{module}:{line}" for module, f, line in READS if f == field and module not in owners)
    assert not stray, f"{field} is read outside its owners ({', '.join(sorted(owners))}): {', '.join(stray)}"


@pytest.mark.parametrize("field", FIELDS)
def test_each_owner_still_reads_its_option(field: str) -> None:
    """The table stays true: an owner that no longer reads an option leaves it."""
    readers = {module for module, f, _ in READS if f in (field, EVERY)}
    idle = sorted(set(OWNERS[field]) - readers)
    assert not idle, f"{field} is no longer read by {', '.join(idle)}: take them out of OWNERS"


def test_only_the_listed_modules_read_every_option() -> None:
    assert {module for module, f, _ in READS if f == EVERY} == set(EVERY_OPTION)


def test_the_scan_finds_each_kind_of_read() -> None:
    source = '''
def f(game, room, r: Rules, other):
    a = game._rules.base_score
    b = room.rules.cap_multiple
    c = r.blood_river
    alias = game.rules
    d = alias.dingque
    e = rules.hua_zhu_points
    g = getattr(rules, "fan_of")
    h = getattr(game.rules, name)
    i = other.base_score          # not a Rules value
    j = score.fan                 # nor this
'''
    assert _scan(source) == [("base_score", 3), ("cap_multiple", 4), ("blood_river", 5), ("dingque", 7),
                             ("hua_zhu_multiple", 8), ("fan", 9), (EVERY, 10)]
