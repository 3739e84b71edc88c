"""The bot protocol."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ..engine.actions import Action
from ..engine.views import SeatView


class Bot(Protocol):
    """Chooses one of ``legal`` for the seat of ``view``. Must not keep state between hands
    that would make a replay differ; randomness comes from the ``rng`` it was built with."""

    name: str

    def choose(self, view: SeatView, legal: Sequence[Action]) -> Action: ...
