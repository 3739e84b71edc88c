"""Illegal actions (docs/rules.md §3-4): rejected with a stable code, and nothing changes.

Positions are built from game records (hands + a wall in draw order, replayed with no
autoplay), then actions are applied to the game directly. Every rejection is checked
against a snapshot of the whole state: the four seat views, ledger, events, actions,
who must act and the wall.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest

from xuezhan.engine.actions import Action, ActionType
from xuezhan.engine.game import Game, Phase
from xuezhan.engine.views import SeatView, events_for
from xuezhan.errors import IllegalActionError
from xuezhan.records import parse_record, replay, tsumogiri
from xuezhan.tiles import counts_of, format_tiles, parse_tile, parse_tiles

A = ActionType


def record(
    hands: Sequence[str],
    *,
    head: str = "",
    tail: str = "",
    actions: Sequence[dict[str, Any]] = (),
    rules: Any = "qq",
    dealer: int = 0,
    **extra: Any,
) -> dict[str, Any]:
    """A record: ``hands`` by seat; the wall starts with ``head``, ends with ``tail``, and holds
    every other tile in between (m, p, then s tiles, rank ascending)."""
    fixed = [t for h in hands for t in parse_tiles(h)]
    fixed += (parse_tiles(head) if head else []) + (parse_tiles(tail) if tail else [])
    used = counts_of(fixed)
    assert all(c <= 4 for c in used), f"more than four of {format_tiles([t for t in range(27) if used[t] > 4])}"
    rest = [t for t in range(27) for _ in range(4 - used[t])]
    wall = (head + " " if head else "") + format_tiles(rest, compact=False) + (" " + tail if tail else "")
    return {"rules": rules, "dealer": dealer, "hands": list(hands), "wall": wall, "actions": list(actions), **extra}


def position(rec: dict[str, Any]) -> Game:
    game, complete = replay(parse_record(rec))
    assert not complete
    assert game.tile_total() == 108
    return game


def snapshot(game: Game) -> str:
    return json.dumps({
        "views": [SeatView(game, s).to_json() for s in range(4)],
        "events": [events_for(game, s) for s in range(4)],
        "n_events": len(game.events),
        "ledger": [e.to_json() for e in game.ledger],
        "actions": [a.to_json() for a in game.actions],
        "pending": game.pending(),
        "legal": [[a.to_json() for a in game.legal_actions(s)] for s in range(4)],
        "phase": str(game.phase),
        "live": game.live,
        "turn": game.turn,
        "tiles": game.tile_total(),
    }, sort_keys=True)


def rejected(game: Game, action: Action, code: str) -> None:
    """``action`` raises IllegalActionError with ``code`` and leaves ``game`` as it was."""
    before = snapshot(game)
    with pytest.raises(IllegalActionError) as info:
        game.apply(action)
    assert info.value.code == code, (action, info.value.code, info.value.message)
    assert info.value.message  # a message for people
    assert snapshot(game) == before
    # the code is stable: asking again gives the same answer
    with pytest.raises(IllegalActionError) as again:
        game.apply(action)
    assert again.value.code == code
    assert snapshot(game) == before


def act(seat: int, kind: ActionType, tile: str | None = None, *, suit: str | None = None,
        tiles: str | None = None) -> Action:
    return Action(
        seat,
        kind,
        tile=None if tile is None else parse_tile(tile),
        suit=None if suit is None else "mps".index(suit),
        tiles=() if tiles is None else tuple(sorted(parse_tiles(tiles))),
    )


def dq(seat: int, suit: str) -> dict[str, Any]:
    return {"seat": seat, "type": "dingque", "suit": suit}


# --- the opening: 定缺, the dealer's first turn ------------------------------------------------------------

# seat 0 (dealer): three suits, chooses void s and still holds 5555s; a concealed kong 1111m.
# seat 1: m and p only, so its void is forced (天缺): s.
OPENING = [
    "1111m 23456m 9p 5555s",
    "789m 123p 456p 789p 5m",
    "234m 234p 234s 678s 9s",
    "567m 567p 678s 6s 11s 9m",
]


def test_dingque_phase() -> None:
    game = position(record(OPENING))
    assert game.phase is Phase.DINGQUE
    rejected(game, act(1, A.DINGQUE, suit="m"), "forced_dingque")  # holds m and p: the void is s
    rejected(game, act(1, A.DINGQUE, suit="p"), "forced_dingque")
    rejected(game, act(0, A.DISCARD, "1m"), "action_not_available")  # nobody plays before all have picked
    rejected(game, act(0, A.EXCHANGE, tiles="234m"), "action_not_available")
    rejected(game, act(2, A.PASS), "action_not_available")
    game.apply(act(0, A.DINGQUE, suit="s"))
    rejected(game, act(0, A.DINGQUE, suit="s"), "not_your_turn")  # a second dingque
    rejected(game, act(0, A.DINGQUE, suit="p"), "not_your_turn")
    assert game.pending() == [1, 2, 3]
    # the picks are secret until all four have picked, so a rejection must not reveal them either
    assert all(SeatView(game, v).to_json()["seats"][0]["void"] is None for v in (1, 2, 3))


def test_dealer_first_turn() -> None:
    game = position(record(OPENING, actions=[dq(0, "s"), dq(1, "s"), dq(2, "m"), dq(3, "m")]))
    assert game.phase is Phase.TURN and game.pending() == [0]
    rejected(game, act(1, A.DISCARD, "5m"), "not_your_turn")  # out of turn
    rejected(game, act(3, A.GANG, "9m"), "not_your_turn")
    rejected(game, act(2, A.HU), "not_your_turn")
    rejected(game, act(0, A.DISCARD, "8m"), "tile_not_in_hand")
    rejected(game, act(0, A.DISCARD, "1s"), "tile_not_in_hand")
    rejected(game, act(0, A.DISCARD), "tile_not_in_hand")  # no tile at all
    rejected(game, act(0, A.DISCARD, "1m"), "must_discard_void")  # holds void tiles (5555s)
    rejected(game, act(0, A.DISCARD, "9p"), "must_discard_void")
    rejected(game, act(0, A.GANG, "5s"), "cannot_gang_tile")  # a kong of the void suit
    rejected(game, act(0, A.GANG, "2m"), "cannot_gang_tile")  # one tile, no kong
    rejected(game, act(0, A.HU), "cannot_hu")  # not a winning hand
    rejected(game, act(0, A.PENG), "action_not_available")  # nothing to peng on one's own turn
    rejected(game, act(0, A.PASS), "action_not_available")
    rejected(game, act(0, A.DINGQUE, suit="m"), "action_not_available")  # a second dingque
    rejected(game, act(0, A.EXCHANGE, tiles="234m"), "action_not_available")
    rejected(game, Action(4, A.DISCARD, tile=parse_tile("5s")), "bad_seat")
    rejected(game, Action(-1, A.PASS), "bad_seat")
    game.apply(act(0, A.GANG, "1m"))  # the legal kong still works after all that
    assert game.seats[0].melds and game.tile_total() == 108


# --- 换三张 -------------------------------------------------------------------------------------------------


def test_exchange_three() -> None:
    rules = {"preset": "qq", "options": {"exchange_three": "clockwise"}}
    game = position(record(OPENING, rules=rules))
    assert game.phase is Phase.EXCHANGE
    rejected(game, act(0, A.EXCHANGE, tiles="1m 2m 9p"), "bad_exchange_tiles")  # two suits
    rejected(game, act(0, A.EXCHANGE, tiles="1m 9p 5s"), "bad_exchange_tiles")  # three suits
    rejected(game, act(0, A.EXCHANGE, tiles="789m"), "bad_exchange_tiles")  # not held
    rejected(game, act(0, A.EXCHANGE, tiles="2m 2m 3m"), "bad_exchange_tiles")  # only one 2m held
    rejected(game, act(0, A.EXCHANGE, tiles="12m"), "bad_exchange_tiles")  # two tiles
    rejected(game, act(0, A.EXCHANGE, tiles="1234m"), "bad_exchange_tiles")  # four tiles
    rejected(game, act(1, A.EXCHANGE, tiles="9p 8p 5m"), "bad_exchange_tiles")
    rejected(game, act(0, A.DINGQUE, suit="s"), "action_not_available")  # 换三张 comes first
    rejected(game, act(0, A.DISCARD, "1m"), "action_not_available")
    game.apply(act(0, A.EXCHANGE, tiles="555s"))
    rejected(game, act(0, A.EXCHANGE, tiles="123m"), "not_your_turn")  # a second exchange
    rejected(game, act(0, A.EXCHANGE, tiles="555s"), "not_your_turn")
    assert game.seats[0].counts[parse_tile("5s")] == 4  # the tiles move only once all four have chosen


# --- claims on a discard ----------------------------------------------------------------------------------

# seat 0 discards 5p. seat 1 waits on 5p or 1p (55p 11p): hu, peng or pass. seat 2 holds one 5p:
# nothing to claim. seat 3 holds 55s and 999s in its void suit s.
CLAIMS = [
    "123456789m 5p 678p 9p",
    "123m 456m 789m 55p 11p",
    "123m 456m 789m 2p 4p 5p 9p",
    "9m 1p 2p 3p 4p 6p 7p 8p 55s 999s",
]
CLAIMS_DQ = [dq(0, "s"), dq(1, "s"), dq(2, "s"), dq(3, "s")]


def test_peng_gang_hu_without_the_tiles() -> None:
    game = position(record(CLAIMS, actions=[*CLAIMS_DQ, {"seat": 0, "type": "discard", "tile": "5p"}]))
    assert game.phase is Phase.CLAIM and game.pending() == [1]
    assert {a.type for a in game.legal_actions(1)} == {A.HU, A.PENG, A.PASS}
    rejected(game, act(2, A.PENG), "not_your_turn")  # one 5p: no peng, not in the window at all
    rejected(game, act(2, A.GANG, "5p"), "not_your_turn")
    rejected(game, act(2, A.HU), "not_your_turn")
    rejected(game, act(3, A.PASS), "not_your_turn")
    rejected(game, act(0, A.HU), "not_your_turn")  # the discarder cannot claim its own tile
    rejected(game, act(0, A.DISCARD, "9s"), "not_your_turn")  # nor play on before the window closes
    rejected(game, act(1, A.GANG, "5p"), "action_not_available")  # two 5p: peng, not gang
    rejected(game, act(1, A.GANG, "1p"), "action_not_available")
    rejected(game, act(1, A.DISCARD, "1p"), "action_not_available")
    game.apply(act(1, A.PENG))
    assert game.turn == 1 and game.must_discard
    rejected(game, act(1, A.HU), "cannot_hu")  # after a peng: discard, no win, no draw
    rejected(game, act(1, A.GANG, "5p"), "action_not_available")


def test_peng_and_gang_of_a_void_suit_tile() -> None:
    # seat 3 holds 55s and 999s, its void suit is s: seat 0 discards 5s, then (another hand) 9s.
    # A seat cannot claim a tile of its void suit, so no claim window opens for it at all.
    hands = ["123456789m 5p 678p 5s", CLAIMS[1], CLAIMS[2], CLAIMS[3]]
    game = position(record(hands, actions=[*CLAIMS_DQ, {"seat": 0, "type": "discard", "tile": "5s"}]))
    # the 5s found no claim at all: seat 1 has drawn
    assert game.phase is Phase.TURN and game.turn == 1
    assert game.seats[3].counts[parse_tile("5s")] == 2
    rejected(game, act(3, A.PENG), "not_your_turn")
    rejected(game, act(3, A.GANG, "5s"), "not_your_turn")
    # three of a void-suit tile and the fourth discarded: no zhigang, no peng either
    game = position(record(["123456789m 5p 678p 9s", *hands[1:3], CLAIMS[3]], actions=[*CLAIMS_DQ]))
    game.apply(act(0, A.DISCARD, "9s"))
    assert game.phase is Phase.TURN and game.turn == 1  # 999s + the discard: no zhigang of a void tile
    rejected(game, act(3, A.GANG, "9s"), "not_your_turn")
    rejected(game, act(3, A.PENG), "not_your_turn")


def test_angang_of_a_void_suit_tile_on_ones_turn() -> None:
    game = position(record(OPENING, actions=[dq(0, "s"), dq(1, "s"), dq(2, "m"), dq(3, "m")]))
    assert Action(0, A.GANG, tile=parse_tile("1m")) in game.legal_actions(0)
    rejected(game, act(0, A.GANG, "5s"), "cannot_gang_tile")


# --- 过水不胡 -------------------------------------------------------------------------------------------------

# seat 2 waits on 5m or 2m (55m 22m); seat 3 and then seat 0 discard 5m before seat 2 draws again.
PASS_HU = [
    "1346m 7m 1346p 2p 789p 9s",
    "555p 99p 11s 22s 33s 6s 7s",
    "55m 22m 123p 456p 678p",
    "789m 123s 456s 789s 9m",
]


def pass_hu_position(rules: Any = "qq") -> Game:
    # draws: seat 1 wall[0], seat 2 wall[1], seat 3 wall[2] = 5m, seat 0 wall[3] = 5m
    return position(record(
        PASS_HU,
        rules=rules,
        head="4s 8s 5m 5m",
        actions=[dq(0, "s"), dq(1, "m"), dq(2, "s"), dq(3, "p"),
                 {"seat": 0, "type": "discard", "tile": "9s"},
                 {"seat": 1, "type": "discard", "tile": "9p"},
                 {"seat": 2, "type": "discard", "tile": "8s"},
                 {"seat": 3, "type": "discard", "tile": "5m"}],
    ))


def test_hu_blocked_after_passing_a_win() -> None:
    game = pass_hu_position()
    assert game.phase is Phase.CLAIM and game.pending() == [2]
    assert {a.type for a in game.legal_actions(2)} == {A.HU, A.PENG, A.PASS}
    game.apply(act(2, A.PASS))  # 过水: seat 2 passes a win on 5m
    assert game.turn == 0 and game.drawn == parse_tile("5m")
    game.apply(act(0, A.DISCARD, "5m"))
    assert game.phase is Phase.CLAIM and game.pending() == [2]
    assert {a.type for a in game.legal_actions(2)} == {A.PENG, A.PASS}
    rejected(game, act(2, A.HU), "pass_hu_blocked")  # the same tile before its own next draw: no win


def test_hu_blocked_on_any_tile_with_pass_hu_scope_any() -> None:
    game = pass_hu_position({"preset": "qq", "options": {"pass_hu_scope": "any_tile"}})
    game.apply(act(2, A.PASS))
    game.apply(act(0, A.DISCARD, "5m"))
    rejected(game, act(2, A.HU), "pass_hu_blocked")


# --- the end of the wall ------------------------------------------------------------------------------------

# Every seat holds m and p only, so every void is s: drawn s tiles are thrown at once and claimed by
# nobody. seat 2 waits on 5m; seat 3 holds 9999m; seat 1 holds 999p; the last tile (drawn by seat 3)
# is the last 9p.
ENDGAME = [
    "1234m 678m 1234p 67p 5p",
    "999p 11m 77p 88m 2p 55p 8p",
    "46m 22m 123p 456p 678p",
    "9999m 77m 33m 44p 33p 6p",
]
ENDGAME_DQ = [dq(0, "s"), dq(1, "s"), dq(2, "s"), dq(3, "s")]


def play_tsumogiri(game: Game, until: Any) -> None:
    """Autoplay (the record's ``tsumogiri``) until ``until(game)`` holds."""
    for _ in range(500):
        if until(game):
            return
        assert not game.over
        game.apply(tsumogiri(game, game.pending()[0]))
    raise AssertionError("the position never came")


def test_kong_with_an_empty_wall() -> None:
    game = position(record(ENDGAME, tail="9p", actions=ENDGAME_DQ))
    play_tsumogiri(game, lambda g: g.live == 0 and g.phase is Phase.TURN)
    assert game.turn == 3 and game.drawn == parse_tile("9p")
    assert game.seats[3].counts[parse_tile("9m")] == 4
    rejected(game, act(3, A.GANG, "9m"), "action_not_available")  # no replacement tile: no angang
    game.apply(act(3, A.DISCARD, "9p"))
    assert game.phase is Phase.CLAIM and game.pending() == [1]
    assert {a.type for a in game.legal_actions(1)} == {A.PENG, A.PASS}
    rejected(game, act(1, A.GANG, "9p"), "action_not_available")  # no zhigang either
    game.apply(act(1, A.PASS))
    assert game.over


def test_bugang_with_an_empty_wall() -> None:
    # seat 1 pengs seat 3's 9p; the fourth 9p is the last tile of the wall, and seat 1 draws it
    hands = [ENDGAME[0], "99p 11m 77p 88m 2p 55p 8p 3m", ENDGAME[2], "9999m 77m 33m 44p 33p 9p"]
    game = position(record(hands, head="1s 2s 7m", tail="9p", actions=[
        *ENDGAME_DQ,
        {"seat": 0, "type": "discard", "tile": "5p"},  # seat 1 could peng: it passes
        {"seat": 1, "type": "discard", "tile": "1s"},
        {"seat": 2, "type": "discard", "tile": "2s"},
        {"seat": 3, "type": "discard", "tile": "9p"},
        {"seat": 1, "type": "peng"},
        {"seat": 1, "type": "discard", "tile": "3m"},
    ]))
    play_tsumogiri(game, lambda g: g.live == 0 and g.phase is Phase.TURN)
    assert game.turn == 1 and game.drawn == parse_tile("9p")
    rejected(game, act(1, A.GANG, "9p"), "action_not_available")  # no replacement tile: no bugang
    game.apply(act(1, A.DISCARD, "9p"))
    assert game.over


def test_pass_or_discard_when_a_rule_forces_the_win() -> None:
    # chengdu: 最后四张必须胡. wall[51] = 5m is drawn by seat 0 with 3 tiles left and thrown
    rules = {"preset": "chengdu", "options": {}}
    game = position(record(ENDGAME, rules=rules, tail="5m 1s 2s 3s", actions=ENDGAME_DQ))
    play_tsumogiri(game, lambda g: g.phase is Phase.CLAIM and g.claim_window is not None and g.live == 3)
    assert game.pending() == [2]
    assert game.legal_actions(2) == (Action(2, A.HU),)
    rejected(game, act(2, A.PASS), "must_hu")
    rejected(game, act(2, A.PENG), "must_hu")
    game.apply(act(2, A.HU))
    assert [w.seat for w in game.winners] == [2]


def test_discard_when_a_rule_forces_a_self_drawn_win() -> None:
    # chengdu: seat 2 draws its 5m as wall[53], one tile left
    rules = {"preset": "chengdu", "options": {}}
    game = position(record(ENDGAME, rules=rules, tail="1s 2s 5m 3s", actions=ENDGAME_DQ))
    play_tsumogiri(game, lambda g: g.phase is Phase.TURN and g.turn == 2 and g.live == 1)
    assert game.drawn == parse_tile("5m")
    assert game.legal_actions(2) == (Action(2, A.HU),)
    rejected(game, act(2, A.DISCARD, "5m"), "must_hu")
    rejected(game, act(2, A.DISCARD, "2m"), "must_hu")
    game.apply(act(2, A.HU))
    # qq (no forced win): the same draw may be thrown
    game = position(record(ENDGAME, tail="1s 2s 5m 3s", actions=ENDGAME_DQ))
    play_tsumogiri(game, lambda g: g.phase is Phase.TURN and g.turn == 2 and g.live == 1)
    assert {a.type for a in game.legal_actions(2)} == {A.HU, A.DISCARD}


# --- winners, escapes and the end ---------------------------------------------------------------------------


def test_a_winner_acts_no_more() -> None:
    game = position(record(CLAIMS, actions=[*CLAIMS_DQ, {"seat": 0, "type": "discard", "tile": "5p"},
                                            {"seat": 1, "type": "hu"}]))
    assert [w.seat for w in game.winners] == [1]
    assert game.turn == 2
    rejected(game, act(1, A.DISCARD, "1p"), "not_your_turn")
    rejected(game, act(1, A.HU), "not_your_turn")
    game.apply(Action(1, A.ESCAPE))  # a winner may leave; the hand goes on
    assert not game.over
    rejected(game, Action(1, A.ESCAPE), "already_escaped")
    rejected(game, act(1, A.PASS), "not_your_turn")


def test_blood_river_winner_throws_only_its_draw() -> None:
    rules = {"preset": "qq", "options": {"blood_river": True}}
    game = position(record(CLAIMS, rules=rules, head="1s 2s 3s 1m",
                           actions=[*CLAIMS_DQ, {"seat": 0, "type": "discard", "tile": "5p"},
                                    {"seat": 1, "type": "hu"}]))
    play_tsumogiri(game, lambda g: g.phase is Phase.TURN and g.turn == 1)
    assert game.seats[1].won and game.drawn == parse_tile("1m")
    assert game.legal_actions(1) == (Action(1, A.DISCARD, tile=parse_tile("1m")),)
    rejected(game, act(1, A.DISCARD, "1p"), "must_discard_drawn")  # its hand is fixed
    rejected(game, act(1, A.DISCARD, "6s"), "tile_not_in_hand")
    rejected(game, act(1, A.HU), "cannot_hu")


def test_any_action_after_the_hand_is_over() -> None:
    game = position(record(ENDGAME, tail="9p", actions=ENDGAME_DQ))
    play_tsumogiri(game, lambda g: g.over)
    assert game.pending() == []
    for action in (act(0, A.DISCARD, "1m"), act(1, A.PASS), act(2, A.HU), act(3, A.GANG, "9m"), act(1, A.PENG),
                   act(0, A.DINGQUE, suit="s"), act(0, A.EXCHANGE, tiles="123m"), Action(0, A.ESCAPE),
                   Action(7, A.PASS)):
        rejected(game, action, "hand_over")


def test_escape_ends_the_hand_then_nothing_more() -> None:
    game = position(record(OPENING, actions=[dq(0, "s"), dq(1, "s"), dq(2, "m"), dq(3, "m")]))
    game.apply(Action(2, A.ESCAPE))
    assert game.over
    assert sum(game.deltas()) == 0 and game.deltas()[2] < 0
    rejected(game, Action(2, A.ESCAPE), "hand_over")
    rejected(game, act(0, A.DISCARD, "5s"), "hand_over")


@pytest.mark.parametrize("seat", [-1, 4, 5, 100])
def test_bad_seat_number(seat: int) -> None:
    game = position(record(OPENING, actions=[dq(0, "s"), dq(1, "s"), dq(2, "m"), dq(3, "m")]))
    for kind in (A.DISCARD, A.PASS, A.HU, A.PENG, A.GANG, A.ESCAPE):
        rejected(game, Action(seat, kind, tile=parse_tile("5s")), "bad_seat")


def test_replay_names_the_illegal_action() -> None:
    """An illegal action in a record stops the replay with its index (the engine's code inside)."""
    from xuezhan.errors import RecordError

    rec = record(OPENING, actions=[dq(0, "s"), dq(1, "s"), dq(2, "m"), dq(3, "m"),
                                   {"seat": 0, "type": "discard", "tile": "1m"}])
    with pytest.raises(RecordError) as info:
        replay(parse_record(rec))
    assert info.value.code == "illegal_action"
    assert "actions[4]" in info.value.message and "must_discard_void" in info.value.message
