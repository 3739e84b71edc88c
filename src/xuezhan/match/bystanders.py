"""Bystander bets (叫马, docs/rules.md §12) for five to eight people at a table.

Who bets: the four seats are held by the people who sat down first (a vacated seat
goes to the bystander who has waited longest); everyone else at the table is a
bystander, and every bystander bets on every hand. A bystander is not "at the
table" for the dealer rule: a bystander coming or going does not make the dice
choose the dealer, only a change among the four seated players does.

The bet: after the deal, each bystander in turn (in the order they came to the table)
takes the top tile of the last stack at the tail (the engine's ``bystander_tiles``,
secret). Counting from the dealer in play order by the tile's rank, rank ``r`` binds
the bystander to seat ``(dealer + r − 1) mod 4``: ranks 1, 5, 9 the dealer; 2, 6 the
next seat; 3, 7 the opposite; 4, 8 the previous. The bystander then wins or loses
exactly what its seat does: every ledger entry of that seat (the hand's own entries
and the seat's double-card entries, docs/rules.md §13) is repeated with the bystander in the
seat's place, against the same counterparty, with reason ``jiao_ma``. Two bystanders
never pay each other, and entries already mirrored for a bystander are not mirrored
again.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from ..ids import Reason
from ..tiles import Tile, parse_tile, rank_of, tile_name
from .transfers import Transfer

JIAO_MA: Final = Reason.JIAO_MA


def jiao_ma_seat(tile: Tile, dealer: int) -> int:
    """The seat a bystander's tile binds it to: rank r → (dealer + r − 1) mod 4."""
    return (dealer + rank_of(tile) - 1) % 4


@dataclass(frozen=True, slots=True)
class BystanderBet:
    """A bystander, the tile it drew from the tail, and the seat that tile binds it to."""

    player: str
    tile: Tile
    seat: int

    def to_json(self) -> dict[str, Any]:
        return {"player": self.player, "tile": tile_name(self.tile), "seat": self.seat}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BystanderBet:
        return cls(str(data["player"]), parse_tile(str(data["tile"])), int(data["seat"]))


def mirror_for_bystanders(
    seat_transfers: Sequence[Transfer], seating: Sequence[str], bets: Iterable[BystanderBet]
) -> list[Transfer]:
    """The ``jiao_ma`` transfers: each bet repeats every transfer of its seat's player."""
    out: list[Transfer] = []
    for bet in bets:
        player = seating[bet.seat]
        for t in seat_transfers:
            if t.payer == player:
                out.append(Transfer(bet.player, t.payee, t.points, JIAO_MA, t.reason))
            elif t.payee == player:
                out.append(Transfer(t.payer, bet.player, t.points, JIAO_MA, t.reason))
    return out
