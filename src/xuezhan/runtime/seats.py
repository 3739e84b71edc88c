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

from dataclasses import dataclass
from enum import StrEnum

from ..bots import Bot, make_bot
from ..engine.game import Phase

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
        """A seat played by a person; ``stand_in`` plays it under 托管."""
        b = make_bot(stand_in) if isinstance(stand_in, str) else stand_in
        return cls(SeatKind.PERSON, b, name=name, limits=limits)

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
