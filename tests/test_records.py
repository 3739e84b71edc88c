"""Strict reading of record actions: every field must be one the action type carries."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from xuezhan import records
from xuezhan.engine.actions import Action, ActionType
from xuezhan.engine.game import Game
from xuezhan.errors import RecordError
from xuezhan.jsontext import json_line
from xuezhan.records import parse_record, record_json, record_line
from xuezhan.rules import Rules
from xuezhan.tiles import parse_tile


@pytest.mark.parametrize(
    "data",
    [
        {"seat": 0, "type": "pass", "foo": 1},
        {"seat": 0, "type": "discard", "tile": "5m", "suit": "m"},
        {"seat": 1, "type": "dingque", "suit": "p", "tile": "1p"},
        {"seat": 2, "type": "peng", "tile": "5m"},
        {"seat": 3, "type": "hu", "from": 0},
    ],
)
def test_an_unknown_field_in_an_action_is_bad_input(data: dict[str, object]) -> None:
    with pytest.raises(RecordError) as err:
        Action.from_json(data)
    assert err.value.code == "bad_action"


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({"seat": 0, "type": "discard", "tile": "5m"}, Action(0, ActionType.DISCARD, tile=parse_tile("5m"))),
        ({"seat": 1, "type": "gang", "tile": "9s"}, Action(1, ActionType.GANG, tile=parse_tile("9s"))),
        ({"seat": 2, "type": "dingque", "suit": "s"}, Action(2, ActionType.DINGQUE, suit=2)),
        ({"seat": 3, "type": "exchange", "tiles": "129m"}, Action(3, ActionType.EXCHANGE, tiles=(0, 1, 8))),
        ({"seat": 0, "type": "swap", "tile": "1m", "want": "2p"}, Action(0, ActionType.SWAP, tile=0, tiles=(10,))),
        ({"seat": 1, "type": "escape"}, Action(1, ActionType.ESCAPE)),
    ],
)
def test_actions_round_trip_through_json(data: dict[str, object], expected: Action) -> None:
    action = Action.from_json(data)
    assert action == expected
    assert action.to_json() == data


@pytest.mark.parametrize("place", [
    {"seed": "7"},
    {"match": 3},
    {"match": {"seed": 1}},
    {"match": {"seed": 1, "hand_no": 0}},
    {"match": {"seed": 1, "hand_no": True}},
    {"match": {"seed": 1.5, "hand_no": 2}},
    {"match": {"seed": 1, "hand_no": 2, "room": "x"}},
])
def test_a_records_place_in_a_match_is_checked(place: dict[str, object]) -> None:
    good = record_json(Game.new(Rules.preset("qq"), seed=3))
    parse_record({**good, "seed": 5, "match": {"seed": 9, "hand_no": 2}})  # as simulate writes them
    with pytest.raises(RecordError) as err:
        parse_record({**good, **place})
    assert err.value.code == "bad_record"


def test_a_json_line_splits_only_at_its_newline() -> None:
    import json

    data = {"name": "甲\x85乙\u2028丙\u2029丁", "tab": "\t", "nl": "\n"}
    line = json_line(data)
    assert line.splitlines() == [line]  # no character other readers take for a line end
    assert json.loads(line) == data and "甲" in line  # UTF-8 kept, the same data read back


# --- record_line: orjson where it writes json_line's bytes -----------------------------------------------------

_TEXT = st.text(alphabet=st.sampled_from(list('ab1m9p ,:"\\\t\n\x85\u2028甲\ud800')), max_size=6)
_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70) | _TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=12,
)


@given(st.dictionaries(_TEXT, _VALUES, max_size=5))
@settings(max_examples=300)
def test_record_line_writes_json_line_bytes(data: dict[str, Any]) -> None:
    assert record_line(data) == (json_line(data) + "\n").encode("utf-8")


@pytest.mark.parametrize("data", [
    {"seed": 2**64, "a": [1, 2]},  # beyond orjson's integers
    {"a": "x, y: z"},  # separators inside a string
    {"a": "\u2028", "b": "甲"},  # not ASCII
    {"a": 'say "hi"\\'},  # escapes
    {"a": "\ud800"},  # a lone surrogate
    {"a": 1.5, "b": [0.1, -2.0]},  # floats
    {"a": {}, "b": [], "c": [{}], "": ""},
])
def test_record_line_falls_back_where_orjson_would_differ(data: dict[str, Any]) -> None:
    assert record_line(data) == (json_line(data) + "\n").encode("utf-8")


def test_record_line_takes_orjson_for_a_played_record(monkeypatch: pytest.MonkeyPatch) -> None:
    game = Game.new(Rules.preset("chengdu"), seed=8)
    while not game.over:
        seat = game.pending()[0]
        game.apply(game.legal_actions(seat)[0])
    record = {**record_json(game), "seed": 3, "match": {"seed": 1, "hand_no": 2}}
    want = (json_line(record) + "\n").encode("utf-8")
    monkeypatch.setattr(records, "json_line", lambda data: pytest.fail("json_line used for a plain record"))
    assert record_line(record) == want
    monkeypatch.undo()
    monkeypatch.setattr(records, "_ORJSON", None)  # without orjson: the standard library's bytes
    assert record_line(record) == want
