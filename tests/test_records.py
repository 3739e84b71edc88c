"""Strict reading of record actions: every field must be one the action type carries."""

from __future__ import annotations

import pytest

from xuezhan.engine.actions import Action, ActionType
from xuezhan.errors import RecordError
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
