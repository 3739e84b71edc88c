"""Bots behind one protocol: a seat view and the legal actions in, one action out."""

from __future__ import annotations

import random
from collections.abc import Callable

from ..errors import XuezhanError
from .base import Bot
from .expert import ExpertBot
from .heuristic import HeuristicBot
from .random_bot import RandomBot

BOTS: dict[str, Callable[[random.Random], Bot]] = {
    "random": RandomBot,
    "heuristic": HeuristicBot,
    "expert": ExpertBot,
}


def make_bot(name: str, rng: random.Random | None = None) -> Bot:
    """A bot by name (``random``, ``heuristic``, ``expert``)."""
    factory = BOTS.get(name)
    if factory is None:
        raise XuezhanError("unknown_bot", f"unknown bot {name!r}: choose from {', '.join(sorted(BOTS))}")
    return factory(rng or random.Random(0))


__all__ = ["BOTS", "Bot", "ExpertBot", "HeuristicBot", "RandomBot", "make_bot"]
