"""The heuristic bot's decisions in positions written as tile strings: each weakness of the
previous version (kongs declined, void tiles thrown into a ready hand, no 清一色) has its
position and the expected choice."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import cast

import pytest

from xuezhan.bots import HeuristicBot
from xuezhan.engine.actions import Action, ActionType
from xuezhan.engine.views import SeatView
from xuezhan.hand import shanten
from xuezhan.rules import Rules
from xuezhan.scoring import Meld, MeldKind
from xuezhan.tiles import parse_tile, parse_tiles, suit_index


@dataclass
class Position:
    """What seat 0 sees, as tile strings: the seat view's reading side (a test double of
    :class:`SeatView` with exactly the members a bot reads)."""

    hand: str
    void_suits: tuple[str, str, str, str] = ("s", "m", "m", "m")
    pengs: dict[int, str] = field(default_factory=dict)
    rivers: dict[int, str] = field(default_factory=dict)
    live: int = 50
    phase: str = "turn"
    offered: str | None = None
    preset: str = "qq"
    seat: int = 0

    def __post_init__(self) -> None:
        self.rules = Rules.preset(self.preset)

    @property
    def counts(self) -> list[int]:
        c = [0] * 27
        for t in parse_tiles(self.hand):
            c[t] += 1
        return c

    @property
    def void(self) -> int | None:
        return suit_index(self.void_suits[0])

    @property
    def offered_tile(self) -> int | None:
        return None if self.offered is None else parse_tile(self.offered)

    def voids(self) -> list[int | None]:
        return [suit_index(v) for v in self.void_suits]

    def melds(self, seat: int) -> list[Meld]:
        return [Meld(MeldKind.PENG, t) for t in dict.fromkeys(tiles(self.pengs.get(seat, "")))]

    def hidden_kongs(self, seat: int) -> int:
        return 0

    def river(self, seat: int) -> list[int]:
        return tiles(self.rivers.get(seat, ""))

    def won(self, seat: int) -> bool:
        return False

    def win_tiles(self, seat: int) -> list[int]:
        return []

    def visible_counts(self) -> list[int]:
        vis = self.counts
        for s in range(4):
            for m in self.melds(s):
                vis[m.tile] += 3
            for t in self.river(s):
                vis[t] += 1
        return vis

    def view(self) -> SeatView:
        return cast(SeatView, self)


def tiles(text: str) -> list[int]:
    return parse_tiles(text) if text else []


def bot() -> HeuristicBot:
    return HeuristicBot(random.Random(0))


def discards(hand: str, void: str | None = None) -> list[Action]:
    tiles = sorted(set(parse_tiles(hand)))
    if void is not None:
        held = [t for t in tiles if t // 9 == suit_index(void)]
        tiles = held or tiles
    return [Action(0, ActionType.DISCARD, tile=t) for t in tiles]


def test_kongs_while_a_void_tile_is_held() -> None:
    # 1111m concealed, 9s of the void suit still in hand: the kong costs nothing and pays at once
    pos = Position("1111m 234m 567p 89p 55p 9s")
    legal = [Action(0, ActionType.GANG, tile=parse_tile("1m")), *discards(pos.hand, "s")]
    assert bot().choose(pos.view(), legal) == Action(0, ActionType.GANG, tile=parse_tile("1m"))


def test_kongs_when_the_fourth_tile_sits_in_a_sequence_at_no_cost() -> None:
    # 4444m with 567m: the kong leaves 567m, and the hand as ready as before
    pos = Position("4444m 567m 123p 567p 9p", void_suits=("s", "m", "m", "m"))
    counts = pos.counts
    now = shanten(counts, 0, void=2)
    counts[parse_tile("4m")] -= 4
    assert shanten(counts, 1, meld_suits=1, void=2) <= now  # the position is what the test says
    legal = [Action(0, ActionType.GANG, tile=parse_tile("4m")), *discards(pos.hand)]
    assert bot().choose(pos.view(), legal).type is ActionType.GANG


def test_zhigang_on_a_discard_when_the_fourth_tile_sits_in_a_sequence() -> None:
    pos = Position("444m 567m 123p 567p 9p", phase="claim", offered="4m")
    legal = [Action(0, ActionType.GANG, tile=parse_tile("4m")), Action(0, ActionType.PENG),
             Action(0, ActionType.PASS)]
    assert bot().choose(pos.view(), legal).type is ActionType.GANG


def test_void_tiles_go_safest_first_against_three_pengs() -> None:
    # seat 1 has three pengs of p and is surely ready; 5p is in its suit's middle, 9p is an edge
    # tile it threw itself, with three copies in sight
    pos = Position("5p 9p 234m 567m 888m 2s 3s 4s", void_suits=("p", "m", "s", "s"),
                   pengs={1: "222p 666p 111p"}, rivers={1: "1m 3m 9m 9p", 2: "9p", 3: "8s"}, live=30)
    assert bot().choose(pos.view(), discards(pos.hand, "p")).tile == parse_tile("9p")


def test_void_tiles_most_dangerous_first_when_nobody_is_close() -> None:
    pos = Position("5p 1p 234m 567m 888m 2s 3s 4s", void_suits=("p", "m", "s", "s"), live=52)
    assert bot().choose(pos.view(), discards(pos.hand, "p")).tile == parse_tile("5p")


def test_goes_for_qing_yi_se_with_a_dominant_suit() -> None:
    # ten m tiles, a complete 345p: the one-suit hand is near, so the p tiles go first
    pos = Position("1123356799m 345p 7p", void_suits=("s", "m", "m", "m"), live=55)
    choice = bot().choose(pos.view(), discards(pos.hand))
    assert choice.tile is not None and choice.tile // 9 == 1
    # with the other suit shorter than the plan allows late in the hand, the mixed hand is kept
    late = Position("1123356799m 345p 7p", void_suits=("s", "m", "m", "m"), live=12)
    assert bot().qing_suit(late.view(), late.counts, [], 1) is None


def test_no_peng_outside_a_qing_yi_se_plan() -> None:
    pos = Position("112335679m 55p 9m", phase="claim", offered="5p", live=55)
    legal = [Action(0, ActionType.PENG), Action(0, ActionType.PASS)]
    assert bot().choose(pos.view(), legal).type is ActionType.PASS


def test_ready_hand_keeps_the_waits_worth_most() -> None:
    # discarding 9p keeps a one-suit hand ready on 1m/4m/7m (清一色); discarding a m tile leaves a mixed wait
    pos = Position("1112345678m 99m 9p 3m", void_suits=("s", "m", "m", "m"), live=40)
    counts = pos.counts
    counts[parse_tile("9p")] -= 1
    assert shanten(counts, 0, void=2) == 0
    assert bot().choose(pos.view(), discards(pos.hand)).tile == parse_tile("9p")


def test_folds_far_from_ready_against_a_ready_opponent() -> None:
    # two steps or more from ready; seat 1 (void in p) shows three pengs of s: any p tile is safe
    # against it, while the isolated s tiles an efficient discard would throw are its suit
    pos = Position("12345789p 9p 1s 3s 5s 9s 7s", void_suits=("m", "p", "s", "s"),
                   pengs={1: "222s 444s 666s"}, rivers={1: "1p 4p"}, live=24)
    assert shanten(pos.counts, 0, void=0) >= 2
    choice = bot().choose(pos.view(), discards(pos.hand))
    assert choice.tile is not None and choice.tile // 9 == 1
    # the same hand with nobody threatening plays on: an s tile goes
    calm = Position("12345789p 9p 1s 3s 5s 9s 7s", void_suits=("m", "p", "s", "s"), live=60)
    assert (bot().choose(calm.view(), discards(calm.hand)).tile or 0) // 9 == 2


@pytest.mark.parametrize("preset", ["qq", "chengdu"])
def test_always_wins(preset: str) -> None:
    pos = Position("123m 456m 789m 11p 22p 3p", preset=preset)
    legal: Sequence[Action] = [Action(0, ActionType.HU), *discards(pos.hand)]
    assert bot().choose(pos.view(), legal).type is ActionType.HU
