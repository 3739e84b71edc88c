"""Strict reading of record actions: every field must be one the action type carries."""

from __future__ import annotations

import pytest

from xuezhan.engine.actions import Action, ActionType
from xuezhan.engine.game import Game
from xuezhan.errors import RecordError
from xuezhan.records import parse_record, record_json
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

    from xuezhan.records import json_line

    data = {"name": "甲\x85乙\u2028丙\u2029丁", "tab": "\t", "nl": "\n"}
    line = json_line(data)
    assert line.splitlines() == [line]  # no character other readers take for a line end
    assert json.loads(line) == data and "甲" in line  # UTF-8 kept, the same data read back
