"""Bots play the hands of a match, with online-play events at random: escapes and item cards.

For simulations and property tests of the match layer: each step, with probability
``escape_rate`` a random seat still at the table leaves (逃跑); on a seat's turn, with
probability ``item_rate`` (rooms with ``items_allowed`` only) it tries an item card it
has not used this hand (swap, random swap or seek) before its bot acts. Everything
random comes from ``rng``, so a seed gives the same match.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..bots import Bot
from ..engine.game import Phase
from ..errors import XuezhanError
from ..match import Hand, ItemKind
from .driver import HandDriver
from .seats import Seat

_TURN_ITEMS = (ItemKind.SWAP, ItemKind.RANDOM_SWAP, ItemKind.SEEK)


def try_item(hand: Hand, seat: int, rng: random.Random) -> ItemKind | None:
    """The seat tries one in-hand item card it has not used this hand; returns the kind used, if any."""
    unused = [k for k in _TURN_ITEMS if not any(u.seat == seat and u.kind is k for u in hand.items)]
    if not unused:
        return None
    kind = rng.choice(unused)
    game = hand.game
    held = list(game.seat_state(seat).hand)
    try:
        if kind is ItemKind.SEEK:
            hand.seek(seat, rng.randrange(27))
        elif kind is ItemKind.RANDOM_SWAP:
            hand.random_swap(seat, rng.choice(held))
        else:
            tile = rng.choice(held)
            live = sorted(set(game.live_wall) - {tile})
            if not live:
                return None
            hand.swap(seat, tile, rng.choice(live))
    except XuezhanError:
        return None
    return kind


def play_match_hand(
    hand: Hand,
    bots: Sequence[Bot],
    rng: random.Random | None = None,
    *,
    escape_rate: float = 0.0,
    item_rate: float = 0.0,
) -> Hand:
    """Play ``hand`` to its end with ``bots`` (one per seat), escapes and items at the given rates,
    on the match runtime's decision loop (the incidents come in before a seat decides)."""
    game = hand.game
    rng = rng or random.Random(0)
    items = hand.match.room.items_allowed and item_rate > 0
    driver = HandDriver(game, [Seat.of_bot(b) for b in bots], seed=hand.seed)

    def incident(seat: int) -> bool:
        if escape_rate and rng.random() < escape_rate:
            leaver = rng.randrange(4)
            if driver.escape(leaver):
                return True
        if items and game.phase is Phase.TURN and rng.random() < item_rate:
            try_item(hand, seat, rng)  # the seat's turn goes on: it still decides
        return False

    while not driver.run(incident):
        pass  # every seat here is a bot: run only stops when the hand is over
    return hand
