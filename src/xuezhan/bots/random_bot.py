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
        # splitmix64 of (salt, step): the same decision at the same point of a rebuilt hand
        z = (self.salt + (view.step + 1) * 0x9E3779B97F4A7C15) & _MASK
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        z ^= z >> 31
        return legal[((z >> 11) * n) >> 53]
