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
from test_import_graph import GRAPH, cycles
from test_match import PEOPLE, make_deal, room

from xuezhan.engine.actions import Action, ActionType
from xuezhan.engine.deal import Deal, random_deal, validate_deal
from xuezhan.engine.game import ClaimWindow, Game, Phase, SeatState
from xuezhan.engine.state import HandState
from xuezhan.errors import DealError, IllegalActionError, RecordError, XuezhanError
from xuezhan.match import Match
from xuezhan.records import parse_record
from xuezhan.rules import Rules

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src" / "xuezhan"
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
        value = node.value  # super()._x is the object's own attribute, as self._x
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "super":
            continue
        yield node.lineno, ast.unparse(node)


def test_the_scan_finds_a_private_read() -> None:
    code = ("def f(game):\n    self._ok = game.live + super()._own()\n"
            "    return game._seats[0], g.window._x, self.__dict__, sup()._y\n")
    assert sorted(expr for _, expr in private_reads(code)) == ["g.window._x", "game._seats", "sup()._y"]


def test_no_code_outside_the_engine_reads_a_private_attribute() -> None:
    outside = [p for p in sorted(SRC.rglob("*.py")) if ENGINE not in p.parents]
    assert len(outside) > 20  # the scan sees the tree
    found = [f"{p.relative_to(SRC)}:{line}: {expr}"
             for p in outside for line, expr in private_reads(p.read_text(encoding="utf-8"))]
    assert found == []


# --- one internal surface: no private field of a Game outside engine/game.py -------------------------------


def game_private_names() -> set[str]:
    """The ``_``-prefixed names a :class:`Game` has: the methods and fields game.py defines, and
    the hand's fields under the private names they had before they moved to :class:`HandState`."""
    tree = ast.parse((ENGINE / "game.py").read_text(encoding="utf-8"))
    game = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Game")
    names = {f"_{field}" for field in HandState.__slots__}
    for node in ast.walk(game):
        if isinstance(node, ast.FunctionDef) and node.name.startswith("_") and not node.name.startswith("__"):
            names.add(node.name)
        elif isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            names.add(node.attr)
    return names


def test_the_private_names_of_a_game_are_found() -> None:
    names = game_private_names()
    assert {"_st", "_choose", "_escape", "_seats", "_events", "_ledger", "_winners", "_window"} <= names
    assert not [n for n in names if not n.startswith("_")]


def test_no_module_but_game_py_uses_a_private_game_attribute() -> None:
    names = game_private_names()
    files = [p for top in ("src", "tests", "benchmarks", "tools") for p in sorted((ROOT / top).rglob("*.py"))]
    files = [p for p in files if p != ENGINE / "game.py"]
    assert len(files) > 100 and ENGINE / "claims.py" in files  # the scan sees the tree, the engine included
    found = [f"{p.relative_to(ROOT)}:{line}: {expr}"
             for p in files for line, expr in private_reads(p.read_text(encoding="utf-8"))
             if expr.rsplit(".", 1)[-1] in names]
    assert found == []


# --- the engine's import graph has no circle ----------------------------------------------------------------


def engine_imports() -> dict[str, set[str]]:
    """For each module of the engine, the engine's modules it imports, wherever the import is
    (:data:`test_import_graph.GRAPH`; ``__init__`` stands for the package itself)."""

    def short(name: str) -> str:
        return "__init__" if name == "xuezhan.engine" else name.removeprefix("xuezhan.engine.")

    def in_engine(name: str) -> bool:
        return name == "xuezhan.engine" or name.startswith("xuezhan.engine.")

    return {short(m): {short(d) for d in deps if in_engine(d)} for m, deps in GRAPH.items() if in_engine(m)}


def test_the_engine_imports_without_a_circle() -> None:
    graph = engine_imports()
    assert {"game", "claims", "kongs", "wins", "settlement", "views", "state"} <= set(graph)
    assert "state" in graph["claims"] and "game" in graph["views"]  # the scan sees the imports
    assert cycles({m: frozenset(d) for m, d in graph.items()}) == []
    # the layers, bottom up: each rule module over the hand's state, the game above them all
    assert graph["state"] <= {"actions", "deal", "events"}
    assert "game" not in set().union(*(graph[m] for m in graph if m not in ("views", "packed", "__init__")))


LAYERS = (
    ("actions", "deal", "events"),  # values: actions and ledger entries, deals, event kinds
    ("state",),  # the hand's state and its records
    ("worth", "legal"),  # queries: what a hand is worth and sees, what each seat may do
    ("settlement",),  # the next draw, the end of the hand
    ("kongs",),
    ("wins",),
    ("claims",),  # the claim window resolves into a win, a kong, a peng or the next draw
    ("visibility",),  # what a seat may see
    ("game",),  # the public face of a hand
    ("views", "packed"),  # worlds for a search, the state for the compiled core
    ("__init__",),
)
"""The engine's modules, bottom up: a module imports only from the layers below its own."""


def test_each_engine_module_imports_only_from_below() -> None:
    graph = engine_imports()
    level = {m: i for i, layer in enumerate(LAYERS) for m in layer}
    assert set(level) == set(graph), "a module of the engine has no layer"
    upward = sorted(f"{m} -> {d}" for m, deps in graph.items() for d in deps if level[d] >= level[m])
    assert upward == []


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
                                  "claim_window", "bystander_tiles", "live", "over", "winners_play_on"])
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
