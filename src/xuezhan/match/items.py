"""Item cards (道具, docs/rules.md §13), for rooms that allow them (off by default).

Each card, its effect, and when it may be used (``ItemKind``):

- ``double`` 加倍卡, before the deal: the seat's result of this hand counts twice.
  Every entry of the hand's ledger that the seat pays or receives is repeated once
  more (reason ``double_card``). When both parties of an entry hold a double card
  the entry still counts twice, not four times: each side's result is doubled.
- ``flush`` 清一色卡, before the deal ("游戏开始后随机发出接近清一色的牌型"): the
  seat's dealt hand is brought close to one suit (the suit it names, or the suit it was
  dealt most of, ties by the hand's seeded generator) by swapping off-suit tiles
  of its hand, chosen at random, with tiles of that suit from random places of the
  live wall until all but two of its tiles are of the suit ("close to", not a
  finished 清一色). The tiles it gives up take the wall places of the tiles it gets;
  the bystanders' tiles at the tail are not touched.
- ``swap`` 换牌卡, on the seat's turn: one tile of the hand for a named tile of the
  live wall (the engine's ``SWAP`` action; the hand tile takes the wall place).
- ``random_swap`` 随机换牌卡, on the seat's turn: one tile of the hand for a random
  tile of the live wall (each live tile of another kind equally likely).
- ``seek`` 查找卡, while the seat still plays for a win: tells roughly where the live
  copies of a named tile lie: how many lie in each quarter of the live wall, from the
  head (drawn soon) to the tail. Copies in hands, melds, rivers or drawn by
  bystanders are not shown.
- ``golden_finger`` 金手指: cosmetic (the seat's discard marker), lasts as long as the
  player stays at the table.
- ``match_ticket`` 比赛卡: the entry to a tournament room (``ticket_required``); spent
  when the match starts (see the store).

Limits: only in rooms with ``items_allowed``; only seated players (not bystanders);
one card of each kind per seat per hand. Any tile an item brings into a hand comes
out of the live wall and the tile it replaces goes back in its place: 108 tiles,
always.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

from .. import vocab
from ..engine.deal import Deal
from ..engine.game import Game
from ..ids import ErrorCode, Reason
from ..tiles import Tile, parse_tile, tile_name
from ..vocab import Kind
from .errors import MatchError
from .transfers import Transfer


class ItemKind(StrEnum):
    DOUBLE = "double"  # 加倍卡
    FLUSH = "flush"  # 清一色卡
    SWAP = "swap"  # 换牌卡
    RANDOM_SWAP = "random_swap"  # 随机换牌卡
    SEEK = "seek"  # 查找卡
    GOLDEN_FINGER = "golden_finger"  # 金手指
    MATCH_TICKET = "match_ticket"  # 比赛卡


ITEM_NAMES_ZH: Final = {kind: vocab.name(Kind.ITEM, kind) for kind in ItemKind}
"""The cards' Chinese names, from :mod:`xuezhan.vocab`."""

DOUBLE_CARD: Final = Reason.DOUBLE_CARD
FLUSH_OFF_SUIT: Final = 2
"""Tiles a flush card leaves outside the chosen suit ("close to" one suit)."""


IN_HAND: Final = (ItemKind.SWAP, ItemKind.RANDOM_SWAP, ItemKind.SEEK)
"""The cards used while a hand is played (the others come before the deal, or are no card of a hand)."""
BEFORE_DEAL: Final = (ItemKind.DOUBLE, ItemKind.FLUSH)


@dataclass(frozen=True, slots=True)
class ItemUse:
    """One item card used in a hand, with what it did: ``tile`` given up and ``wanted`` got
    (swaps), ``suit`` (flush), ``tile`` and ``quarters`` (seek: live copies per quarter).
    ``at``: how many of the hand's engine actions came before it (a swap's own action is
    ``actions[at]``); ``None`` for the cards used before the deal."""

    player: str
    seat: int
    kind: ItemKind
    tile: Tile | None = None
    wanted: Tile | None = None
    suit: int | None = None
    quarters: tuple[int, ...] | None = None
    at: int | None = None

    def public_json(self) -> dict[str, Any]:
        """What everyone at the table may know of it: who used a card, and its kind (never its
        tiles, suit or seek answer)."""
        return {"seat": self.seat, "kind": str(self.kind)}

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"player": self.player, "seat": self.seat, "kind": str(self.kind)}
        if self.at is not None:
            out["at"] = self.at
        if self.tile is not None:
            out["tile"] = tile_name(self.tile)
        if self.wanted is not None:
            out["wanted"] = tile_name(self.wanted)
        if self.suit is not None:
            out["suit"] = "mps"[self.suit]
        if self.quarters is not None:
            out["quarters"] = list(self.quarters)
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ItemUse:
        return cls(
            str(data["player"]),
            int(data["seat"]),
            ItemKind(data["kind"]),
            tile=parse_tile(data["tile"]) if "tile" in data else None,
            wanted=parse_tile(data["wanted"]) if "wanted" in data else None,
            suit="mps".index(data["suit"]) if "suit" in data else None,
            quarters=tuple(int(q) for q in data["quarters"]) if "quarters" in data else None,
            at=int(data["at"]) if "at" in data else None,
        )


def items_seen(uses: Iterable[ItemUse], seat: int | None) -> list[dict[str, Any]]:
    """The item cards of a hand as ``seat`` may see them (``None``: a spectator): its own whole
    (:meth:`ItemUse.to_json`), everyone else's only as who used which kind. The one rule of
    what the table tells of item cards; the engine's own view hides a swap's tiles the same way."""
    return [u.to_json() if u.seat == seat else u.public_json() for u in uses]


def flush_deal(deal: Deal, seat: int, suit: int | None, rng: random.Random, *, reserved_tail: int = 0) -> tuple[
        Deal, int]:
    """The deal after a flush card for ``seat``, and the suit chosen.

    Off-suit tiles of the seat's hand (random ones) change places with tiles of ``suit``
    from random places of the live wall, leaving :data:`FLUSH_OFF_SUIT` tiles off-suit.
    The last ``reserved_tail`` wall tiles (the bystanders' tiles) stay where they are.
    The result has hands + wall only (no wall layout): it is what the record keeps.
    """
    hand = list(deal.hands[seat])
    wall = list(deal.wall)
    if suit is None:
        counts = [sum(1 for t in hand if t // 9 == x) for x in range(3)]
        best = max(counts)
        suit = rng.choice([x for x in range(3) if counts[x] == best])
    elif suit not in (0, 1, 2):
        raise MatchError(ErrorCode.BAD_ITEM, f"no suit {suit!r}")
    off = [i for i, t in enumerate(hand) if t // 9 != suit]
    need = max(0, len(off) - FLUSH_OFF_SUIT)
    rng.shuffle(off)
    places = [j for j in range(len(wall) - reserved_tail) if wall[j] // 9 == suit]
    rng.shuffle(places)
    for i, j in zip(off[:need], places, strict=False):
        hand[i], wall[j] = wall[j], hand[i]
    hands = list(deal.hands)
    hands[seat] = tuple(hand)
    return Deal(tuple(hands), tuple(wall), dice=deal.dice), suit


def seek_quarters(game: Game, tile: Tile) -> tuple[int, int, int, int]:
    """How many live copies of ``tile`` lie in each quarter of the live wall, head first."""
    live = game.live
    out = [0, 0, 0, 0]
    for pos in game.wall_positions(tile):
        out[min(3, 4 * pos // live)] += 1
    return out[0], out[1], out[2], out[3]


def random_swap_target(game: Game, hand_tile: Tile, rng: random.Random) -> Tile:
    """A random tile of the live wall of another kind than ``hand_tile`` (each live tile equally likely)."""
    live = [t for t in game.live_wall if t != hand_tile]
    if not live:
        raise MatchError(ErrorCode.TILE_NOT_IN_WALL, "the live wall holds no other tile to swap for")
    return rng.choice(live)


def double_card_transfers(transfers: Sequence[Transfer], doubled: Iterable[str]) -> list[Transfer]:
    """The ``double_card`` entries: every transfer touching a doubled player, once more."""
    players = set(doubled)
    return [
        Transfer(t.payer, t.payee, t.points, DOUBLE_CARD, t.reason)
        for t in transfers
        if t.payer in players or t.payee in players
    ]
