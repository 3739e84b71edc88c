"""The clocks of a table's open decisions.

For each seat that must decide: when a person's time runs out (then the seat's bot
takes the decision, 托管), when a bot (or a seat in 托管) acts (a short delay, so people
can follow the play), and the table version at which the decision began (an answer
older than that is stale). Time lives here and in the table, never in the engine.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..engine.game import Phase
from ..runtime import HandDriver


class Clocks:
    """Deadlines, due times and decision starts by seat, for the hand in play."""

    __slots__ = ("ctx", "deadline", "due", "since")

    def __init__(self) -> None:
        self.ctx: dict[int, tuple[Any, ...]] = {}
        """The decision each seat's clocks were started for."""
        self.deadline: dict[int, float] = {}
        self.due: dict[int, float] = {}
        self.since: dict[int, int] = {}

    def clear(self) -> None:
        self.ctx.clear()
        self.deadline.clear()
        self.due.clear()
        self.since.clear()

    def refresh(
        self,
        driver: HandDriver,
        now: float,
        version: int,
        timeout_for: Callable[[int], float],
        *,
        bot_delay: float,
        claim_delay: float,
    ) -> None:
        """Start the clocks of every seat that faces a new decision; forget seats that need not decide."""
        game = driver.game
        pending = game.pending()
        phase = game.phase
        window = game.claim_window
        if window is not None and (phase is Phase.CLAIM or phase is Phase.ROB):
            ctx: tuple[Any, ...] = ("claim", window.opened_at)
            delay = claim_delay
        elif phase is Phase.TURN:
            ctx = ("turn", driver.seq)
            delay = bot_delay
        else:
            ctx = (str(phase),)
            delay = bot_delay
        for seat in pending:
            if self.ctx.get(seat) != ctx:
                self.ctx[seat] = ctx
                self.deadline[seat] = now + timeout_for(seat)
                self.due[seat] = now + delay
                self.since[seat] = version
        for seat in list(self.ctx):
            if seat not in pending:
                del self.ctx[seat]

    def wake_time(self, seat: int, automatic: bool) -> float:
        """When the table must look at ``seat`` again: its bot's due time, or its person's deadline."""
        return self.due.get(seat, 0.0) if automatic else self.deadline.get(seat, 0.0)
