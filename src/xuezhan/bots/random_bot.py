"""A bot that picks uniformly among the legal actions."""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..engine.actions import Action
from ..engine.views import SeatView

_MASK = (1 << 64) - 1


class RandomBot:
    name = "random"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.salt = rng.getrandbits(64)

    def start_hand(self, seed: int) -> None:
        self.salt = seed & _MASK

    def choose(self, view: SeatView, legal: Sequence[Action]) -> Action:
        n = len(legal)
        if n == 1:
            return legal[0]
        # a multiplicative hash of (salt, step): the same decision at the same point of a rebuilt hand
        z = ((self.salt + view.step) * 0x9E3779B97F4A7C15) & _MASK
        z = ((z ^ (z >> 29)) * 0xBF58476D1CE4E5B9) & _MASK
        return legal[((z >> 32) * n) >> 32]
