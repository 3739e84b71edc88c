"""The bot protocol."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ..engine.actions import Action
from ..engine.views import SeatView


class Bot(Protocol):
    """Chooses one of ``legal`` for the seat of ``view``.

    A decision is a function of the seed given at :meth:`start_hand`, the view and the legal
    actions only: a hand rebuilt from its log (a restarted server) gets the same decisions.

    A bot may also define ``end_hand(view: SeatView) -> None``: the hand's driver calls it once
    when the hand is over, with the seat's view of the finished hand (an outside program,
    :class:`~xuezhan.bots.outside.OutsideBot`, is sent the result then).
    """

    name: str

    def start_hand(self, seed: int) -> None:
        """A new hand begins; ``seed`` is the seat's seed for this hand."""

    def choose(self, view: SeatView, legal: Sequence[Action]) -> Action: ...
