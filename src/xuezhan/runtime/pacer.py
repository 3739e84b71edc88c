"""The pacer: when each open decision of a hand is due, for every table that shows play to people.

The engine and the decision loop (:class:`~xuezhan.runtime.HandDriver`) never read a clock;
a table that people watch must still pace its bots (a short delay, so people can follow
the play) and give people a time limit (when it runs out, the seat's stand-in bot takes
the decision). :class:`Pacer` keeps those clocks for the decisions of the hand in
play and says, for a time its owner passes in, which seat must act now
(:meth:`Pacer.next_move`) and when to look again (:meth:`Pacer.next_due`). It reads no
clock and waits for nothing itself, so the web table (an asyncio task) and the terminal
(Textual timers) drive the same pacer, each with its own clock and its own :class:`Delays`.

A decision's clocks start when the pacer first sees it (:meth:`Pacer.refresh`): each seat
that must decide gets a deadline (its person's time limit for the phase,
:class:`~xuezhan.runtime.TimeLimits`; none without limits), a due time (when its bot, or its
person's stand-in under 托管, acts) and the table version the decision began at (an answer
older than that is stale). The same decision seen again keeps its clocks: a swap card used on
the seat's turn (the engine's ``swap``) changes the hand, not the decision, so the turn's clocks
run on (:func:`turn_began`).

A person whose time runs out loses that decision only: the seat's stand-in takes it. 托管 (the
stand-in takes every decision, after a bot's delay) starts when the person asks for it
(:meth:`Pacer.set_trustee`) or after :data:`EXPIRIES_TO_TRUSTEE` expired decisions in a row; a
decision the person answers (:meth:`Pacer.answered`) starts the count again. Whether the person
is there to see it (a web page that lost its connection) changes nothing: the clock is the rule.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from ..engine.actions import Action, ActionType
from ..engine.game import Phase
from .driver import HandDriver
from .seats import Seat

GRACE = 1.0
"""Seconds a person coming back from 托管 has at least for the decision in hand."""

EXPIRIES_TO_TRUSTEE = 2
"""Expired decisions in a row after which a person's seat goes into 托管."""


@dataclass(frozen=True, slots=True)
class Delays:
    """Seconds an automatic seat (a bot, or a person's stand-in under 托管) waits before it acts."""

    turn: float = 0.7
    """On its own turn (to discard), and when a person goes into 托管."""
    claim: float = 0.35
    """To answer a discard or a bugang."""
    choice: float = 0.7
    """For 换三张 and 定缺."""
    unwatched: float | None = None
    """The turn's delay once no person at the table is still in the hand (every person has won
    or left), when shorter than ``turn``; ``None``: ``turn`` still."""


def turn_began(actions: Sequence[Action]) -> int:
    """The actions of the hand before the turn in play began: a swap card's swaps (the engine's
    ``swap``, only ever on the seat's own turn) are the turn's, not a new decision."""
    n = len(actions)
    while n and actions[n - 1].type is ActionType.SWAP:
        n -= 1
    return n


class Move(NamedTuple):
    """A decision due now: the seat, and whether its person ran out of time (its stand-in takes it)."""

    seat: int
    timed_out: bool


class Pacer:
    """The clocks of the open decisions of one hand at a time: deadlines, due times and decision
    starts by seat (``deadline``, ``due``, ``since``, read by the views that show the clocks)."""

    __slots__ = ("ctx", "deadline", "delays", "driver", "due", "not_before", "since")

    def __init__(self, delays: Delays | None = None) -> None:
        self.delays = delays or Delays()
        self.driver: HandDriver | None = None
        """The hand the clocks are of (another hand starts them all afresh)."""
        self.ctx: dict[int, tuple[Any, ...]] = {}
        """The decision each seat's clocks were started for."""
        self.deadline: dict[int, float] = {}
        self.due: dict[int, float] = {}
        self.since: dict[int, int] = {}
        self.not_before = -math.inf
        """No person's deadline falls before this time (a table carried on after a restart gives
        the people it waits for time to come back); kept across :meth:`clear`."""

    def clear(self) -> None:
        """Forget every clock (a new hand)."""
        self.driver = None
        self.ctx.clear()
        self.deadline.clear()
        self.due.clear()
        self.since.clear()

    @staticmethod
    def time_limit(seat: Seat, phase: Phase) -> float:
        """Seconds ``seat``'s person has for a decision in ``phase`` (infinite without limits)."""
        return seat.limits.for_phase(phase) if seat.limits is not None else math.inf

    def refresh(self, driver: HandDriver, now: float, version: int = 0) -> None:
        """Start the clocks of every seat that faces a new decision at ``now`` (the table's
        ``version`` then); forget seats that need not decide."""
        if driver is not self.driver:
            if self.driver is not None:
                self.clear()
            self.driver = driver
        game = driver.game
        pending = game.pending()
        phase = game.phase
        window = game.claim_window
        delays = self.delays
        if window is not None and (phase is Phase.CLAIM or phase is Phase.ROB):
            ctx: tuple[Any, ...] = ("claim", window.opened_at)
            delay = delays.claim
        elif phase is Phase.TURN:
            ctx = ("turn", turn_began(game.actions))
            delay = delays.turn
            if delays.unwatched is not None and not any(
                    seat.is_person and game.active(s) for s, seat in enumerate(driver.seats)):
                delay = min(delay, delays.unwatched)
        else:
            ctx = (str(phase),)
            delay = delays.choice
        for s in pending:
            if self.ctx.get(s) != ctx:
                self.ctx[s] = ctx
                self.deadline[s] = max(now + self.time_limit(driver.seats[s], phase), self.not_before)
                self.due[s] = now + delay
                self.since[s] = version
        for s in list(self.ctx):
            if s not in pending:
                del self.ctx[s]

    def next_move(self, driver: HandDriver, now: float) -> Move | None:
        """The first seat (in the engine's order) whose decision is due at ``now``: an automatic
        seat whose delay has passed, or a person whose time ran out (and the bot's delay too: an
        expired decision is taken when a bot would have taken it, never sooner): the stand-in takes that
        decision, and after :data:`EXPIRIES_TO_TRUSTEE` of them in a row the next ones too (托管,
        :meth:`set_trustee`). ``None``: nothing is due yet."""
        for s in driver.deciding():
            seat = driver.seats[s]
            if seat.automatic:
                if self.due.get(s, 0.0) <= now:
                    return Move(s, False)
            elif self.wake_time(seat, s) <= now:
                seat.expiries += 1
                if seat.expiries >= EXPIRIES_TO_TRUSTEE:
                    self.set_trustee(seat, s, True, now)
                return Move(s, True)
        return None

    @staticmethod
    def answered(seat: Seat) -> None:
        """The seat's person answered a decision: the count of expired decisions starts again."""
        seat.expiries = 0

    def next_due(self, driver: HandDriver) -> float | None:
        """When the owner must look again: the earliest due time of an automatic seat or deadline
        of a person among the seats that must decide (``None``: none; ``inf``: only people without
        a time limit)."""
        times = [self.wake_time(driver.seats[s], s) for s in driver.game.pending()]
        return min(times) if times else None

    def wake_time(self, seat: Seat, index: int) -> float:
        """When the seat at ``index`` must be looked at again: its bot's due time, or its person's deadline
        (the due time when that is later)."""
        due = self.due.get(index, 0.0)
        return due if seat.automatic else max(due, self.deadline.get(index, 0.0))

    def set_trustee(self, seat: Seat, index: int, on: bool, now: float, driver: HandDriver | None = None) -> bool:
        """托管 on or off for the person at ``index``; ``True`` when it changed. On: the stand-in acts
        when a bot would have acted on the decision in hand (at once if that time has passed), else
        after the turn's delay. Off, in the hand ``driver`` plays: the person gets at least
        :data:`GRACE` seconds for the decision in hand (a fresh time limit when less is left)."""
        if not seat.is_person or seat.trustee == on:
            return False
        seat.trustee = on
        seat.expiries = 0
        if on:
            # the stand-in answers when a bot would have answered this decision (its due time, kept
            # from when the decision began), so a shared decision's answers come in the seats' order
            # whenever the person asks; a seat with no decision clocked waits the turn's delay
            if index not in self.ctx:
                self.due[index] = now + self.delays.turn
        elif driver is not None and self.deadline.get(index, 0.0) < now + GRACE:
            self.deadline[index] = now + self.time_limit(seat, driver.game.phase)
        return True
