"""Who holds a seat and how it decides.

A :class:`Seat` is the one place that knows whether a seat is played by a person
(who answers later, through :meth:`HandDriver.submit`) or by a bot (which answers at
once; an outside program is a bot too, :mod:`xuezhan.bots.outside`). The time limits of a person's
decisions and 托管 (the seat's bot plays for a person who asked for it, or who let two
decisions in a row run out) are
properties of the seat, not of the surface that shows the table: the terminal, the
web table, self-play and the league all hand the runtime the same kind of seats.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from ..bots import Bot, make_bot
from ..engine.actions import Action, ActionType
from ..engine.game import Phase
from ..engine.views import SeatView

_MASK = (1 << 64) - 1


class SeatKind(StrEnum):
    PERSON = "person"
    BOT = "bot"


@dataclass(frozen=True, slots=True)
class TimeLimits:
    """Seconds a person has for each kind of decision before the seat's bot takes it (托管)."""

    turn: float = 25.0
    """To discard (or hu, or kong) on one's own turn."""
    claim: float = 8.0
    """To answer a discard or a bugang (hu / gang / peng / pass)."""
    choice: float = 30.0
    """For 换三张 and 定缺."""

    def for_phase(self, phase: Phase) -> float:
        if phase is Phase.TURN:
            return self.turn
        if phase is Phase.CLAIM or phase is Phase.ROB:
            return self.claim
        return self.choice


class StandIn:
    """A person's 托管 stand-in: ``bot``'s choices, except that a win on offer is always taken.
    Letting a win go for a self-drawn or bigger one later (the expert's search may) is the
    player's own choice to make, never one made for them while they are away."""

    __slots__ = ("bot", "name")

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.name = bot.name

    def start_hand(self, seed: int) -> None:
        self.bot.start_hand(seed)

    def choose(self, view: SeatView, legal: Sequence[Action]) -> Action:
        for a in legal:
            if a.type is ActionType.HU:
                return a
        return self.bot.choose(view, legal)

    def __getattr__(self, name: str) -> Any:
        """The rest is the bot's: ``end_hand``, an outside program's ``faults`` and ``close``."""
        if name == "bot":  # not set yet (a copy being made)
            raise AttributeError(name)
        return getattr(self.bot, name)


class Seat:
    """One seat's owner: a person or a bot, its bot (a bot's own, or a person's 托管 stand-in),
    whether 托管 is on, and a person's time limits (``None``: no limit, as in the terminal)."""

    __slots__ = ("bot", "expiries", "kind", "limits", "name", "trustee")

    def __init__(self, kind: SeatKind, bot: Bot, *, name: str = "", limits: TimeLimits | None = None) -> None:
        self.kind = kind
        self.bot = bot
        self.name = name or bot.name
        self.limits = limits
        self.trustee = False
        self.expiries = 0
        """A person's decisions in a row whose time ran out (the stand-in took them); an answer
        of the person's own sets it back to 0 (:meth:`xuezhan.runtime.Pacer.answered`)."""

    @classmethod
    def of_bot(cls, bot: Bot | str, *, name: str = "") -> Seat:
        """A seat played by ``bot`` (a bot or a bot name)."""
        b = make_bot(bot) if isinstance(bot, str) else bot
        return cls(SeatKind.BOT, b, name=name)

    @classmethod
    def of_person(cls, name: str, *, stand_in: Bot | str = "heuristic", limits: TimeLimits | None = None) -> Seat:
        """A seat played by a person; ``stand_in`` plays it under 托管 (as a :class:`StandIn`: every
        win on offer taken)."""
        b = make_bot(stand_in) if isinstance(stand_in, str) else stand_in
        return cls(SeatKind.PERSON, b if isinstance(b, StandIn) else StandIn(b), name=name, limits=limits)

    @property
    def is_person(self) -> bool:
        return self.kind is SeatKind.PERSON

    @property
    def automatic(self) -> bool:
        """The seat's decisions are taken by its bot now (a bot seat, or a person in 托管)."""
        return self.kind is SeatKind.BOT or self.trustee

    def __repr__(self) -> str:
        return f"Seat({self.kind!s}, {self.name!r}, trustee={self.trustee})"


def bot_seed(hand_seed: int, seat: int) -> int:
    """The seed a seat's bot gets at the start of a hand: a function of the hand's seed and the seat
    only (splitmix64's finalizer), so that a hand rebuilt from its log gets the same bot decisions."""
    z = (hand_seed + (seat + 1) * 0x9E3779B97F4A7C15) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)
