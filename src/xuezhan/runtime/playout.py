"""The expert's Python play-outs on the one decision loop.

The expert (:mod:`xuezhan.bots.expert`) plays sampled worlds to their end to compare its
candidates. Where the compiled core holds the world it plays them there
(:func:`xuezhan.native.play_outs`); otherwise they run here, on :class:`HandDriver`, the loop
of every table. The bots sit below the runtime and never import it: the runtime gives the
expert this function when it is imported (:meth:`ExpertBot.use_play_out`).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..bots import Bot, ExpertBot
from ..engine.game import Game
from .driver import HandDriver
from .seats import Seat


def play_out(game: Game, bots: Sequence[Bot]) -> None:
    """Play ``game`` to its end with ``bots`` (one per seat, all automatic)."""
    HandDriver(game, [Seat.of_bot(b) for b in bots]).run()


ExpertBot.use_play_out(play_out)
