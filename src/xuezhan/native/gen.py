"""The C header of the compiled core, written from the Python tables at build time.

The compiled core (``csrc/``) reads every id by the name this module gives it: action types,
ledger reasons, phases, meld kinds, river states, fan patterns and extras, the choices of
each rule option, the layout of the rules it is passed (:data:`xuezhan.native.layout.RULE_WORDS`, one name per
``Rules`` field it reads), the fixed action space, the observation layout, the heuristic
bot's tunables and the learned bot's features. ``setup.py`` runs :func:`write_header` before
compiling (the header lands in the build tree, never in the repository), so a base pattern, an action type or a reason
added in Python is one change: the next build picks its id up. The table of what the C
scorer implements stays in C (``xz_fan_implemented`` in ``csrc/xz_engine.c``); a pattern it
does not implement is refused by :func:`xuezhan.native.refusal` whenever the rules give it fan.

Run by hand: ``python -m xuezhan.native.gen OUT_DIR`` (writes ``OUT_DIR/xz_gen.h``).

Only the standard-library rules core is imported (tiles, rules, scoring, the engine's
enums); the observation layout and the heuristic's tunables are read from the sources of
:mod:`xuezhan.encoding` and :mod:`xuezhan.bots.heuristic` without importing them (the
encoder needs numpy, which a build does not have; the bots sit in a layer above this one).
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import sys
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

from .. import rules as _rules
from ..rules import MAX_FAN
from .layout import BOT_CODES, EVENT_CODES, RULE_WORDS, choices

HEADER: Final = "xz_gen.h"
"""The generated header's file name (``#include "xz_gen.h"``)."""

# --- the encoder's layout and the heuristic's tunables, read from their sources ---------------------
# Neither module is imported: the encoder needs numpy (a build has none), and the bots sit in a
# layer above this one.

def _assignments(body: list[ast.stmt]) -> dict[str, ast.expr]:
    """``NAME = value`` and ``NAME: T = value`` of a module or class body."""
    out: dict[str, ast.expr] = {}
    for node in body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            out[node.target.id] = node.value
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            out[node.targets[0].id] = node.value
    return out


def _source_values(module: str, names: typing.Iterable[str], cls: str | None = None) -> dict[str, Any]:
    """The values of ``names`` assigned in the source of ``xuezhan.<module>`` (in its class ``cls``
    when given): literals, which may name the module's literal constants."""
    path = Path(__file__).resolve().parent.parent.joinpath(*module.split(".")).with_suffix(".py")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    consts: dict[str, Any] = {}
    for name, value in _assignments(tree.body).items():
        with contextlib.suppress(ValueError):
            consts[name] = ast.literal_eval(value)
    body = tree.body
    if cls is not None:
        body = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls).body

    class _Names(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.expr:
            return ast.copy_location(ast.Constant(consts[node.id]), node)

    found = _assignments(body)
    return {name: ast.literal_eval(_Names().visit(found[name])) for name in names}


def _encoding_rows() -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """``_GLOBAL`` and ``_PER_SEAT`` of :mod:`xuezhan.encoding` as (name, size) rows."""
    tables = _source_values("encoding", ("_GLOBAL", "_PER_SEAT"))
    return ([(str(r[0]), int(r[1])) for r in tables["_GLOBAL"]],
            [(str(r[0]), int(r[1])) for r in tables["_PER_SEAT"]])


# --- the header ------------------------------------------------------------------------------------

def _c(name: str) -> str:
    return name.upper()


def _enum(prefix: str, names: typing.Iterable[str], comment: str) -> Iterator[str]:
    names = list(names)
    yield f"/* {comment} */"
    for i, n in enumerate(names):
        yield f"#define {prefix}{_c(n)} {i}"
    yield f"#define {prefix}COUNT {len(names)}"
    yield ""


def _floats(values: typing.Iterable[float]) -> str:
    return "{" + ", ".join(repr(float(v)) for v in values) + "}"


def body() -> str:
    """The header without its digest line."""
    from ..engine.actions import (
        ACTION_SPACE_SIZE,
        DINGQUE_BASE,
        DISCARD_BASE,
        EXCHANGE_BASE,
        GANG_BASE,
        HU_INDEX,
        PASS_INDEX,
        PENG_INDEX,
        REASONS,
        ActionType,
    )
    from ..engine.state import EXCHANGE_DIRECTIONS, RIVER_CLAIMED, RIVER_OPEN, RIVER_ROBBED, RIVER_WON, Phase
    from ..scoring import MeldKind

    lines = [
        "/* Generated by xuezhan.native.gen from the Python tables: do not edit, do not commit. */",
        "#ifndef XZ_GEN_H",
        "#define XZ_GEN_H",
        "",
        "#include <stdint.h>",
        "",
    ]
    lines += _enum("XZ_ACTION_", [t.value for t in ActionType], "action types (xuezhan.engine.actions.ActionType)")
    lines += _enum("XZ_REASON_", REASONS, "ledger reasons (xuezhan.engine.actions.REASONS)")
    lines += _enum("XZ_PHASE_", [p.value for p in Phase], "phases (xuezhan.engine.state.Phase)")
    lines += _enum("XZ_MELD_", [m.value for m in MeldKind], "meld kinds (xuezhan.scoring.MeldKind)")
    rivers = {"open": RIVER_OPEN, "claimed": RIVER_CLAIMED, "won": RIVER_WON, "robbed": RIVER_ROBBED}
    lines.append("/* river states (xuezhan.engine.state.RIVER_*) */")
    lines += [f"#define XZ_RIVER_{_c(k)} {v}" for k, v in rivers.items()]
    lines.append("")
    lines.append("/* 换三张 directions (xuezhan.engine.state.EXCHANGE_DIRECTIONS) */")
    lines += [f"#define XZ_DIRECTION_{_c(k)} {v}" for k, v in EXCHANGE_DIRECTIONS.items()]
    lines.append("")
    lines += _enum("XZ_EVENT_", EVENT_CODES, "the core's event stream (xuezhan.native.layout.EVENT_CODES)")
    lines += _enum("XZ_BOT_", BOT_CODES, "compiled bots (xuezhan.native.layout.BOT_CODES)")
    base, extras = _rules.BASE_PATTERNS, _rules.EXTRAS  # read now: a test may add one
    lines.append("/* fan ids: base patterns (xuezhan.rules.BASE_PATTERNS), then extras (EXTRAS) */")
    lines += [f"#define XZ_PAT_{_c(p)} {i}" for i, p in enumerate(base)]
    lines += [f"#define XZ_EXTRA_{_c(p)} {len(base) + i}" for i, p in enumerate(extras)]
    lines += [
        f"#define XZ_PAT_COUNT {len(base)}",
        "#define XZ_EXTRA_FIRST XZ_PAT_COUNT",
        f"#define XZ_FAN_COUNT {len(base) + len(extras)}",
        "#define XZ_FAN_NAMES {" + ", ".join(f'"{p}"' for p in (*base, *extras)) + "}",
        "#define XZ_FAN_CAP (-1)",
        f"#define XZ_MAX_FAN {MAX_FAN}",
        "",
    ]
    # the rules: each option's values, the struct and the order of the words
    lines.append("/* rule options with a fixed set of values (xuezhan.rules) */")
    for word in RULE_WORDS:
        values = choices(word.name)
        if values is not None:
            lines += [f"#define XZ_{_c(word.name)}_{_c(v)} {i}" for i, v in enumerate(values)]
    values = choices("exchange_three") or ()
    lines.append("/* the direction each exchange_three value fixes (0: none or drawn at random) */")
    lines.append("#define XZ_EXCHANGE_THREE_DIRECTIONS {"
                 + ", ".join(str(EXCHANGE_DIRECTIONS.get(v, 0)) for v in values) + "}")
    lines.append("")
    lines.append("/* the rules as the core reads them (xuezhan.native.marshal_rules) */")
    for i, word in enumerate(RULE_WORDS):
        lines.append(f"#define XZ_RULE_{_c(word.name)} {i}")
    lines += [f"#define XZ_RULE_FAN {len(RULE_WORDS)}",
              f"#define XZ_RULE_WORDS {len(RULE_WORDS) + len(base) + len(extras)}", ""]
    lines.append("typedef struct {")
    for word in RULE_WORDS:
        lines.append(f"    {'int64_t' if word.wide else 'int'} {word.name};")
    lines += ["    int fan[XZ_FAN_COUNT]; /* XZ_FAN_CAP for \"cap\" */", "} XzRules;", ""]
    lines.append("/* the words to the struct, within the bounds of xuezhan.rules: 0, or -1 for a value out of them */")
    lines.append("static inline int xz_rules_from_words(const long long *v, XzRules *R) {")
    for word in RULE_WORDS:
        values = choices(word.name)
        hi = len(values) - 1 if values is not None else word.hi
        at = f"v[XZ_RULE_{_c(word.name)}]"
        lines.append(f"    if ({at} < {word.lo} || {at} > {hi}LL) return -1;")
        lines.append(f"    R->{word.name} = {'' if word.wide else '(int)'}{at};")
    lines += [
        "    for (int i = 0; i < XZ_FAN_COUNT; i++) R->fan[i] = (int)v[XZ_RULE_FAN + i];",
        "    return 0;",
        "}",
        "",
    ]
    # the fixed action space and the observation layout
    lines += [
        "/* the fixed action space (xuezhan.engine.actions.action_index) */",
        f"#define XZ_INDEX_DISCARD {DISCARD_BASE}",
        f"#define XZ_INDEX_GANG {GANG_BASE}",
        f"#define XZ_INDEX_PENG {PENG_INDEX}",
        f"#define XZ_INDEX_HU {HU_INDEX}",
        f"#define XZ_INDEX_PASS {PASS_INDEX}",
        f"#define XZ_INDEX_DINGQUE {DINGQUE_BASE}",
        f"#define XZ_INDEX_EXCHANGE {EXCHANGE_BASE}",
        f"#define XZ_ACTION_SPACE {ACTION_SPACE_SIZE}",
        "",
    ]
    glob, seat = _encoding_rows()
    lines.append("/* the observation layout (xuezhan.encoding._GLOBAL, then one _PER_SEAT block per seat) */")
    offset = 0
    for name, n in glob:
        lines += [f"#define XZ_OBS_{_c(name)} {offset}", f"#define XZ_OBS_{_c(name)}_SIZE {n}"]
        offset += n
    lines.append(f"#define XZ_OBS_SEAT0 {offset}")
    block = 0
    for name, n in seat:
        lines += [f"#define XZ_SEAT_{_c(name)} {block}", f"#define XZ_SEAT_{_c(name)}_SIZE {n}"]
        block += n
    lines += [f"#define XZ_SEAT_SIZE {block}", f"#define XZ_OBS_SIZE {offset + 4 * block}", ""]
    lines += list(_heuristic())
    lines += list(_learned())
    lines += ["#endif", ""]
    return "\n".join(lines)


def _heuristic() -> Iterator[str]:
    """The tunables of :class:`xuezhan.bots.heuristic.HeuristicBot` the compiled one plays."""
    tables = _source_values("bots.heuristic", ("_RANK_WEIGHT", "_READY_BY_MELDS"))
    bot = _source_values("bots.heuristic", ("fold_at", "danger_weight", "void_safe_at", "qing_slack", "far_kong",
                                            "pung_plan"), cls="HeuristicBot")
    yield "/* the heuristic bot's tunables (xuezhan.bots.heuristic: HeuristicBot and its tables) */"
    yield f"#define XZ_H_RANK_WEIGHT {_floats(tables['_RANK_WEIGHT'])}"
    yield f"#define XZ_H_READY_BY_MELDS {_floats(tables['_READY_BY_MELDS'])}"
    yield f"#define XZ_H_FOLD_AT {float(bot['fold_at'])!r}"
    yield f"#define XZ_H_DANGER_WEIGHT {float(bot['danger_weight'])!r}"
    yield f"#define XZ_H_VOID_SAFE_AT {float(bot['void_safe_at'])!r}"
    yield "#define XZ_H_QING_SLACK {" + ", ".join(str(int(x)) for x in bot["qing_slack"]) + "}"
    yield f"#define XZ_H_FAR_KONG {int(bot['far_kong'])}"
    yield f"#define XZ_H_PUNG_PLAN {int(bot['pung_plan'])}"
    yield ""


def _learned() -> Iterator[str]:
    """The layout of :mod:`xuezhan.bots.learned`'s network the compiled learned bot plays: its
    features by name (``XZ_LT_*`` of the table, ``XZ_LA_*`` of an action) and the hidden width."""
    src = _source_values("bots.learned", ("TABLE_FEATURES", "ACTION_FEATURES", "HIDDEN"))
    table, action = src["TABLE_FEATURES"], src["ACTION_FEATURES"]
    yield "/* the learned bot's features and network (xuezhan.bots.learned) */"
    yield f"#define XZ_L_NT {len(table)}"
    yield f"#define XZ_L_NA {len(action)}"
    yield f"#define XZ_L_HIDDEN {int(src['HIDDEN'])}"
    for i, name in enumerate(table):
        yield f"#define XZ_LT_{_c(name)} {i}"
    for i, name in enumerate(action):
        yield f"#define XZ_LA_{_c(name)} {i}"
    yield ""


def digest(text: str) -> str:
    """What the core built from ``text`` (a header body) reports as ``GEN_DIGEST``."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def header() -> str:
    """The whole header: :func:`body` and its digest (``XZ_GEN_DIGEST``)."""
    text = body()
    return text.replace("#define XZ_GEN_H\n", f'#define XZ_GEN_H\n#define XZ_GEN_DIGEST "{digest(text)}"\n', 1)


def write_header(out_dir: str | Path) -> Path:
    """Write ``xz_gen.h`` into ``out_dir`` (made if missing; left untouched when already current,
    so that nothing is rebuilt for nothing) and return its path."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / HEADER
    text = header()
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m xuezhan.native.gen OUT_DIR", file=sys.stderr)
        return 2
    print(write_header(args[0]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
