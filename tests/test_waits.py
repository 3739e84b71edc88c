"""听牌提示 in the views: each seat's waits and the waits each discard would leave, from what it sees."""

from __future__ import annotations

from typing import Any

from test_engine_rules import build

from xuezhan.engine import ActionType, Game
from xuezhan.engine.actions import Action
from xuezhan.engine.views import seat_view_json, table_views
from xuezhan.records import parse_record, replay
from xuezhan.tiles import parse_tile

HANDS = ["123456789m1123p7p", "123456789s4456p", "456m999p3456789s", "123456s789p1123m"]
"""Seat 0 (dealer, to discard): 7p, 1p or 2p leave it ready; seat 1 waits on 4p and 7p; seat 2 is
far from ready; seat 3 holds tiles of its void suit (p)."""


def _game() -> Game:
    game, _ = replay(parse_record(build(HANDS, voids="smpp", autoplay=False)))
    return game


def _waits(view: dict[str, Any]) -> list[tuple[str, int, int]]:
    return [(w["tile"], w["left"], w["fan"]) for w in view["waits"]]


def test_a_ready_seat_sees_its_waits_with_the_copies_it_cannot_see() -> None:
    view = seat_view_json(_game(), 1)
    # 4p: seat 1 holds two; 7p: none in its sight; a plain hand (平胡) is one fan
    assert _waits(view) == [("4p", 2, 1), ("7p", 4, 1)]
    assert view["discard_waits"] == {}  # not its discard decision


def test_a_hand_not_ready_or_holding_its_void_suit_has_no_waits() -> None:
    views = table_views(_game(), (2, 3))
    assert views[2]["waits"] == [] and views[2]["discard_waits"] == {}
    # 123456s 789p 1123m would wait on 1m and 4m, but p is seat 3's void: no wait at all
    assert views[3]["waits"] == [] and views[3]["discard_waits"] == {}


def test_the_discard_decision_lists_each_discard_that_leaves_the_hand_ready() -> None:
    view = seat_view_json(_game(), 0)
    assert view["waits"] == []  # 14 tiles: ready only after a discard
    found = {d: [(w["tile"], w["left"], w["fan"]) for w in ws] for d, ws in view["discard_waits"].items()}
    # 7p leaves 1123p (1p or 4p); 1p leaves 123p 7p (a single wait on 7p, one of which it holds)
    assert found == {"1p": [("7p", 3, 1)], "7p": [("1p", 2, 1), ("4p", 4, 1)]}


def test_a_discard_in_a_river_is_one_copy_fewer_left() -> None:
    game = _game()
    game.apply(Action(0, ActionType.DISCARD, tile=parse_tile("7p")))
    views = table_views(game, (0, 1))
    assert _waits(views[1]) == [("4p", 2, 1), ("7p", 3, 1)]
    assert _waits(views[0]) == [("1p", 2, 1), ("4p", 4, 1)] and views[0]["discard_waits"] == {}


def test_no_seat_sees_another_seats_waits_and_a_spectator_sees_none() -> None:
    views = table_views(_game(), (0, 1, 2, 3, None))
    assert views[None]["waits"] == [] and views[None]["discard_waits"] == {}
    for seat in (0, 2, 3):
        assert "4456p" not in str(views[seat]) and views[seat]["waits"] != views[1]["waits"]
    assert views[1]["discard_waits"] == {} and views[2]["waits"] == []


def test_after_a_peng_the_waits_count_the_meld() -> None:
    hands = ["123456789m1123p5s", "55s123456789s12p", "456m999p2346789s", "1123m789p123469s"]
    game, _ = replay(parse_record(build(hands, voids="smmp", autoplay=False)))
    game.apply(Action(0, ActionType.DISCARD, tile=parse_tile("5s")))
    # 123 456 789s 55s 12p: ready on 3p (the copy seat 0 holds is out of its sight)
    assert _waits(seat_view_json(game, 1)) == [("3p", 4, 1)]
    game.apply(Action(1, ActionType.PENG))
    view = seat_view_json(game, 1)
    assert view["waits"] == []
    found = {d: [(w["tile"], w["left"], w["fan"]) for w in ws] for d, ws in view["discard_waits"].items()}
    # 123456789s + a single wait: 2p (one held by seat 0, unseen) or 1p; the peng of 5s and the
    # fourth 5s in the hand make a 根: two fan
    assert found == {"1p": [("2p", 3, 2)], "2p": [("1p", 3, 2)]}
