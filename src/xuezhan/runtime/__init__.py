"""The match runtime: one controller and one decision loop for every table.

- :class:`Seat`: who holds a seat (a person or a bot), its bot, 托管 and time limits.
- :class:`HandDriver`: the decision loop of one hand; every action goes through
  :meth:`HandDriver.apply`, where it is numbered and logged.
- :class:`MatchRuntime`: the match controller: hands dealt from the match seed, seats
  per hand, results; a hand rebuilt from its log.
- :class:`Pacer`: the clocks of a hand's open decisions for a table people watch: bots'
  delays, people's time limits, 托管 after a time-out; time is passed in, never read.
- :func:`play_out`: the expert's Python play-outs on the same loop (given to the expert
  when this package is imported, as the bots never import the runtime).

Self-play (:mod:`xuezhan.selfplay`), the terminal (:mod:`xuezhan.tui`) and the web
table (:mod:`xuezhan.server`) are seat owners and views on top of it.
"""

from .controller import HandLogEntry, MatchItemListener, MatchRuntime, SeatsFor, seats_by_player
from .driver import ActionListener, HandDriver, Interrupt
from .pacer import EXPIRIES_TO_TRUSTEE, GRACE, Delays, Move, Pacer
from .playout import play_out
from .seats import Seat, SeatKind, StandIn, TimeLimits, bot_seed

__all__ = [
    "EXPIRIES_TO_TRUSTEE",
    "GRACE",
    "ActionListener",
    "Delays",
    "HandDriver",
    "HandLogEntry",
    "Interrupt",
    "MatchItemListener",
    "MatchRuntime",
    "Move",
    "Pacer",
    "Seat",
    "SeatKind",
    "SeatsFor",
    "StandIn",
    "TimeLimits",
    "bot_seed",
    "play_out",
    "seats_by_player",
]
