"""The engine's public surface: immutable legal actions, read-only accessors, one deal check,
and no code outside the engine reading the engine's private fields."""

from __future__ import annotations

import ast
import dataclasses
import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_engine_rules import build
from test_match import PEOPLE, make_deal, room

from xuezhan.engine.actions import Action, ActionType
from xuezhan.engine.deal import Deal, random_deal, validate_deal
from xuezhan.engine.game import ClaimWindow, Game, Phase, SeatState
from xuezhan.errors import DealError, IllegalActionError, RecordError, XuezhanError
from xuezhan.match import Match
from xuezhan.records import parse_record
from xuezhan.rules import Rules

SRC = Path(__file__).resolve().parent.parent / "src" / "xuezhan"
ENGINE = SRC / "engine"


# --- nothing outside the engine reads its private fields ------------------------------------------------


def private_reads(source: str) -> Iterator[tuple[int, str]]:
    """``(line, expression)`` for each ``x._name`` in ``source`` (``self``/``cls`` and dunders aside)."""
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Attribute) or not node.attr.startswith("_"):
            continue
        if node.attr.startswith("__") and node.attr.endswith("__"):
            continue
        if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
            continue
        yield node.lineno, ast.unparse(node)


def test_the_scan_finds_a_private_read() -> None:
    code = "def f(game):\n    self._ok = game.live\n    return game._seats[0], g.window._x, self.__dict__\n"
    assert sorted(expr for _, expr in private_reads(code)) == ["g.window._x", "game._seats"]


def test_no_code_outside_the_engine_reads_a_private_attribute() -> None:
    outside = [p for p in sorted(SRC.rglob("*.py")) if ENGINE not in p.parents]
    assert len(outside) > 20  # the scan sees the tree
    found = [f"{p.relative_to(SRC)}:{line}: {expr}"
             for p in outside for line, expr in private_reads(p.read_text(encoding="utf-8"))]
    assert found == []


# --- legal actions and read-only state ------------------------------------------------------------------


def test_legal_actions_are_a_tuple_of_frozen_actions() -> None:
    game = Game.new(Rules.preset("qq"), seed=3)
    for seat in range(4):
        legal = game.legal_actions(seat)
        assert isinstance(legal, tuple)
        assert legal is game.legal_actions(seat)  # cached: it cannot be changed by a caller
        for a in legal:
            with pytest.raises(dataclasses.FrozenInstanceError):
                a.seat = 3  # type: ignore[misc]
    assert Game.new(seed=3).legal_actions(0) == game.legal_actions(0)


@pytest.mark.parametrize("name", ["phase", "turn", "dealer", "drawn", "rules", "deal", "events", "event_owners",
                                  "actions", "action_count", "ledger", "winners", "kongs", "live_wall",
                                  "claim_window", "bystander_tiles", "live", "over"])
def test_public_state_is_read_only(name: str) -> None:
    game = Game.new(seed=1)
    with pytest.raises(AttributeError):
        setattr(game, name, None)


def _play_until(game: Game, stop: Phase) -> None:
    rng = random.Random(5)
    while not game.over and game.phase is not stop:
        seat = game.pending()[0]
        game.apply(rng.choice(game.legal_actions(seat)))


def test_live_wall_is_the_draw_order() -> None:
    game = Game.new(seed=11)
    wall = game.live_wall
    assert len(wall) == game.live and wall == game.deal.wall
    _play_until(game, Phase.TURN)
    n = game.action_count
    discard = next(a for a in game.legal_actions(game.turn) if a.type is ActionType.DISCARD)
    game.apply(discard)
    if game.phase is Phase.TURN:  # nobody could claim: the next seat drew the head of the wall
        assert game.drawn == wall[0] and game.live_wall == wall[1:]
    assert game.action_count == n + 1 and game.actions[-1] == discard
    assert sum(len(game.seat_state(s).hand) for s in range(4)) + game.live + 1 == 108


def test_claim_window_describes_the_open_window() -> None:
    seen = 0
    for seed in range(40):
        game = Game.new(seed=seed)
        rng = random.Random(seed)
        while not game.over and seen < 5:
            w = game.claim_window
            if game.phase is Phase.CLAIM:
                assert isinstance(w, ClaimWindow) and w.kind == "discard"
                assert w.seat == game.turn and game.events[-1] == {"type": "discard", "seat": w.seat, "tile": w.tile}
                assert w.waiting == tuple(sorted(game.pending())) and set(w.waiting) <= set(w.claimants)
                assert game.actions[w.opened_at - 1] == Action(w.seat, ActionType.DISCARD, tile=w.tile)
                with pytest.raises(dataclasses.FrozenInstanceError):
                    w.tile = 0  # type: ignore[misc]
                seen += 1
            elif game.phase is Phase.ROB:
                assert w is not None and w.kind == "rob_kong"
            else:
                assert w is None
            seat = game.pending()[0]
            game.apply(rng.choice(game.legal_actions(seat)))
    assert seen == 5


def test_seat_state_is_a_read_only_copy() -> None:
    game = Game.new(seed=2, dealer=0)
    st = game.seat_state(1)
    assert isinstance(st, SeatState)
    assert st.hand == tuple(sorted(game.deal.hands[1])) and st.concealed == 13
    assert isinstance(st.counts, tuple) and sum(st.counts) == 13
    assert st.melds == () and st.river == () and not st.won and not st.escaped and st.void is None
    with pytest.raises(AttributeError):
        st.won = True  # type: ignore[misc]


# --- deals: one check, its own error ----------------------------------------------------------------------


def _good() -> Deal:
    return random_deal(random.Random(4), 0)


def _bad_deals() -> list[tuple[str, Deal, int, str]]:
    good = _good()
    h = [list(x) for x in good.hands]
    wall = list(good.wall)
    other = next(t for t in range(27) if t != wall[0])
    return [
        ("three_hands", Deal(good.hands[:3], good.wall), 0, "wrong_hand_count"),
        ("short_hand", Deal((good.hands[0], tuple(h[1][:-1]), good.hands[2], good.hands[3]), good.wall), 0,
         "wrong_tile_count"),
        ("long_hand", Deal((good.hands[0], (*h[1], wall[0]), good.hands[2], good.hands[3]), tuple(wall[1:])), 0,
         "wrong_tile_count"),
        ("other_dealer", good, 1, "wrong_tile_count"),
        ("not_a_tile", Deal(good.hands, (27, *wall[1:])), 0, "bad_tile"),
        ("negative_tile", Deal(good.hands, (-1, *wall[1:])), 0, "bad_tile"),
        ("short_wall", Deal(good.hands, tuple(wall[:-1])), 0, "not_108_tiles"),
        ("long_wall", Deal(good.hands, (*wall, wall[0])), 0, "not_108_tiles"),
        ("fifth_copy", Deal(good.hands, (other, *wall[1:])), 0, "not_108_tiles"),
        ("no_seat", good, 4, "bad_dealer"),
    ]


@pytest.mark.parametrize(("name", "deal", "dealer", "problem"), _bad_deals(), ids=[b[0] for b in _bad_deals()])
def test_each_bad_deal_is_refused_with_its_problem(name: str, deal: Deal, dealer: int, problem: str) -> None:
    with pytest.raises(DealError) as info:
        validate_deal(deal, dealer)
    assert info.value.code == "bad_deal" and info.value.problem == problem, name
    assert isinstance(info.value, XuezhanError) and not isinstance(info.value, IllegalActionError)
    with pytest.raises(DealError):  # the engine uses the same check
        Game(Rules.preset("qq"), deal, dealer)


def test_a_good_deal_passes() -> None:
    validate_deal(_good(), 0)
    assert Game.from_deal(Rules.preset("qq"), _good(), 0).live == 55


def test_a_match_refuses_a_bad_deal_with_the_same_error() -> None:
    m = Match(room("qq", hands=1), PEOPLE[:4], seed=8)
    dealer = m.next_hand_dealer()
    deal = make_deal(dealer, {}, seed=8)
    bad = Deal(deal.hands, deal.wall[:-1])
    with pytest.raises(DealError) as info:
        m.start_hand(deal=bad)
    assert info.value.code == "bad_deal" and info.value.problem == "not_108_tiles"


def test_records_report_a_bad_deal_by_its_problem() -> None:
    hands = ["5555p123456m1178s", "1357m2468p13579s", "24689m1379p2588s", "3799m1468p34679s"]
    record = build(hands, voids="spss", autoplay=False)
    parse_record(record)  # sound as built
    short = {**record, "wall": record["wall"][:-2]}
    with pytest.raises(RecordError) as info:
        parse_record(short)
    assert info.value.code == "not_108_tiles"
    moved = {**record, "hands": [hands[0], hands[1] + record["wall"][:2], *hands[2:]], "wall": record["wall"][2:]}
    with pytest.raises(RecordError) as info:
        parse_record(moved)
    assert info.value.code == "wrong_tile_count" and "hands[1]" in info.value.message
