"""What the fuzz targets (tests/test_fuzz_*.py) share: how many examples, what a clear error is,
and strategies for the text and JSON that users and clients can send.

Each target runs ``XUEZHAN_FUZZ_EXAMPLES`` examples (2,000 by default, as in CI);
``scripts/fuzz.sh`` runs 100,000 each.
"""

from __future__ import annotations

import copy
import json
import os
import random
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from xuezhan import vocab
from xuezhan.engine.game import Game
from xuezhan.errors import XuezhanError
from xuezhan.records import record_json
from xuezhan.rules import Rules, option_names
from xuezhan.vocab import Kind

EXAMPLES = int(os.environ.get("XUEZHAN_FUZZ_EXAMPLES", "2000"))

FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)


def assert_clear_error(exc: BaseException) -> str:
    """A failure the user can act on: an :class:`XuezhanError` whose code the vocabulary names."""
    assert isinstance(exc, XuezhanError), f"{type(exc).__name__}: {exc}"
    assert isinstance(exc.code, str) and vocab.find(Kind.ERROR, exc.code) is not None, exc.code
    assert isinstance(exc.message, str) and exc.message.strip(), exc.code
    return exc.code


# --- text -------------------------------------------------------------------------------------------

# Characters a tile string is made of, the Chinese suffixes, honour letters, and a few that
# look like them (full-width digits, other scripts, control characters).
TILE_ALPHABET = "0123456789mpsMPS万筒饼条索 \t\nzhwdf东南西北中發白１５\x00\u200b٣"

tile_text = st.one_of(
    st.text(alphabet=TILE_ALPHABET, max_size=40),
    st.text(max_size=20),
    st.lists(st.sampled_from(["1", "5", "9", "123", "55", "m", "p", "s", "万", "条", " "]), max_size=20).map("".join),
)

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(-3, 200), st.floats(allow_nan=True), st.text(max_size=12),
    tile_text,
)
json_values: st.SearchStrategy[Any] = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=10), inner, max_size=5)),
    max_leaves=20,
)

# Rule options: the docs/rules.md §14 names (and some that are not), with values of every kind.
option_keys = st.one_of(st.sampled_from([*option_names(), "preset", "options", "fan"]), st.text(max_size=12))
FAN_IDS = [pid for pid, _ in Rules.preset("qq").fan]
fan_tables = st.dictionaries(st.one_of(st.sampled_from(FAN_IDS), st.text(max_size=8)),
                             st.one_of(st.integers(-2, 25), st.just("cap"), scalars), max_size=6)
option_values = st.one_of(
    scalars, st.sampled_from(["none", "cap", "max", "min", "base", "fan", "discard", "everyone", "self_draw",
                              "dice", "first_winner", "random", "clockwise", "roots", "pattern", "qq", "chengdu"]),
    st.integers(0, 2 ** 20), fan_tables,
)
rule_mappings = st.dictionaries(option_keys, option_values, max_size=6)


# --- bad text: what no reader may choke on ---------------------------------------------------------------

surrogates = st.integers(0xD800, 0xDFFF).map(chr)
"""A lone surrogate: a ``"\\ud800"`` escape read from JSON, a byte of a file name that is not UTF-8."""
odd_text = st.one_of(st.text(max_size=8), st.lists(st.one_of(surrogates, st.characters()), max_size=6).map("".join))
"""Text that may hold lone surrogates anywhere."""
not_utf8_names = st.binary(min_size=1, max_size=10).map(os.fsdecode)
"""Command-line arguments and file names as Python sees bytes that are not UTF-8 (surrogate escapes)."""
BAD = "\x00bad\x00"


@st.composite
def bad_literals(draw: st.DrawFn) -> str:
    """A JSON literal of bad text: a string with a lone surrogate escape, a number past 4,300 digits
    (or just under), or a string of odd text escaped as JSON escapes it."""
    shape = draw(st.sampled_from(["surrogate", "surrogate", "huge", "huge_negative", "just_under", "odd"]))
    if shape == "surrogate":
        return '"' + draw(st.text(alphabet="ab1m", max_size=3)) + f"\\u{draw(st.integers(0xD800, 0xDFFF)):04x}" + '"'
    if shape in ("huge", "huge_negative"):
        digits = "1" + "0" * draw(st.one_of(st.integers(4300, 4310), st.integers(4300, 9000)))
        return ("-" if shape == "huge_negative" else "") + digits
    if shape == "just_under":
        return "9" * 4300
    return json.dumps(draw(odd_text))


@st.composite
def with_bad_text(draw: st.DrawFn, base: Any) -> str:
    """JSON text of ``base`` with one shape of bad text put in: a value (or, for an object, a
    key) replaced by a :func:`bad_literals` literal; sometimes the whole text is one."""
    if not isinstance(base, dict | list) or draw(st.integers(0, 9)) == 0:
        return draw(bad_literals())
    data = copy.deepcopy(base)
    target: Any = data
    for _ in range(draw(st.integers(0, 2))):  # sometimes deeper
        inner = [v for v in (target.values() if isinstance(target, dict) else target) if isinstance(v, dict | list)]
        if not inner:
            break
        target = draw(st.sampled_from(inner))
    literal = draw(bad_literals())
    if isinstance(target, dict):
        key = draw(st.one_of(st.sampled_from(sorted(target) or ["x"]), st.just(BAD)))
        if key == BAD and literal.startswith('"'):
            target[BAD] = draw(scalars.filter(lambda v: not isinstance(v, float)))  # the key is the bad text
        else:
            target[key] = BAD
    elif target:
        target[draw(st.integers(0, len(target) - 1))] = BAD
    else:
        target.append(BAD)
    return json.dumps(data).replace(json.dumps(BAD), literal, 1)


# --- rules files ---


def _toml_value(v: Any) -> str | None:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v) if v == v and abs(v) != float("inf") else "nan"
    if isinstance(v, str):
        return json.dumps(v)
    return None


def toml_text(mapping: dict[str, Any]) -> str:
    """A TOML rendering of a rules mapping (nested tables for mapping values)."""
    lines, tables = [], []
    for k, v in mapping.items():
        if isinstance(v, dict):
            tables.append((k, v))
        elif (text := _toml_value(v)) is not None:
            lines.append(f"{json.dumps(k)} = {text}")
    for name, table in tables:
        lines.append(f"[{json.dumps(name)}]")
        lines += [f"{json.dumps(k)} = {t}" for k, v in table.items() if (t := _toml_value(v)) is not None]
    return "\n".join(lines) + "\n"


# --- records ----------------------------------------------------------------------------------------


def played_record(seed: int, rules: Rules, actions: int | None = None) -> dict[str, Any]:
    """The record of a hand played with seeded uniform choices among the legal actions (no bot),
    stopped after ``actions`` actions (``None``: to the end)."""
    rng = random.Random(seed)
    game = Game.new(rules, seed=seed)
    while not game.over and (actions is None or game.action_count < actions):
        seat = game.pending()[0]
        legal = game.legal_actions(seat)
        game.apply(legal[rng.randrange(len(legal))])
    return record_json(game)


BASE_RECORDS = [
    played_record(1, Rules.preset("qq")),
    played_record(2, Rules.preset("chengdu")),
    played_record(3, Rules.preset("qq").with_options({"exchange_three": "random", "blood_river": True})),
    played_record(4, Rules.preset("chengdu").with_options({"kong_draw_from_tail": True}), actions=30),
]
