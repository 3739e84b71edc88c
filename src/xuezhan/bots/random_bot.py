"""A bot that picks uniformly among the legal actions."""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..engine.actions import Action
from ..engine.views import SeatView


class RandomBot:
    name = "random"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, view: SeatView, legal: Sequence[Action]) -> Action:
        n = len(legal)
        return legal[int(self.rng.random() * n)] if n > 1 else legal[0]
