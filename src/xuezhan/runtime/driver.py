"""The one decision loop: who must decide now, ask them, apply, tell the log.

Every table (self-play, the terminal, the web, the league) plays a hand through a
:class:`HandDriver`. It asks whoever holds a seat (:class:`~xuezhan.runtime.seats.Seat`)
for a decision and applies it to the engine at one choke point, :meth:`HandDriver.apply`,
which numbers the action and hands it to ``on_action`` (the web table appends it to the
database there, so a hand can be rebuilt by replaying its log: :meth:`HandDriver.replay`).
There too it notes, in :attr:`HandDriver.stand_in`, the decisions a person's seat did not take
itself: its stand-in's, under 托管 or when the person's time ran out.

Bots decide at once (:meth:`HandDriver.run` lets every automatic seat act until a
person must decide or the hand is over); a person's decision arrives later through
:meth:`HandDriver.submit`. The driver never reads a clock: a surface with time limits
calls :meth:`HandDriver.act` for a seat whose bot is due or whose person ran out of time.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence

from ..engine.actions import Action, ActionType
from ..engine.game import Game
from ..engine.views import SeatView
from ..errors import IllegalActionError
from ..ids import ErrorCode
from ..tiles import NUM_KINDS
from .seats import Seat, SeatKind, bot_seed

log = logging.getLogger("xuezhan.runtime")

ActionListener = Callable[[int, Action], None]
"""Called after every applied action with its number in the hand (0, 1, 2 ...) and the action."""

Interrupt = Callable[[int], bool]
"""Called before an automatic seat decides; returns ``True`` when it changed the hand itself
(an escape, an item card), so the driver looks again at who must decide."""


def _malformed(action: Action) -> str | None:
    """Why ``action`` is not a well-formed action value at all (a tile, suit or tile list out of
    range), or ``None``. The engine judges only well-formed actions: it names them in its errors."""
    if not isinstance(action.type, ActionType):
        return f"no action type {action.type!r}"
    if action.tile is not None and not (isinstance(action.tile, int) and 0 <= action.tile < NUM_KINDS):
        return f"no tile {action.tile!r}"
    if action.suit is not None and not (isinstance(action.suit, int) and 0 <= action.suit < 3):
        return f"no suit {action.suit!r}"
    if not all(isinstance(t, int) and 0 <= t < NUM_KINDS for t in action.tiles):
        return f"no tiles {action.tiles!r}"
    if action.type is ActionType.SWAP and len(action.tiles) != 1:
        return "a swap names one wanted tile"
    return None


class HandDriver:
    """Drives one hand of the engine with one :class:`Seat` per seat."""

    __slots__ = ("ended", "game", "on_action", "seats", "seed", "stand_in")

    def __init__(
        self,
        game: Game,
        seats: Sequence[Seat],
        *,
        seed: int | None = None,
        on_action: ActionListener | None = None,
        stand_in: list[int] | None = None,
    ) -> None:
        if len(seats) != 4:
            raise ValueError("a hand needs four seats")
        self.game = game
        self.seats = tuple(seats)
        self.seed = seed
        self.on_action = on_action
        self.stand_in: list[int] = [] if stand_in is None else stand_in
        """The actions (by their number in the hand) that a person's stand-in took for that person's
        seat, where the person had a choice; noted before ``on_action`` is told of the action. The
        match runtime gives the hand's own list (:attr:`~xuezhan.match.Hand.stand_in`)."""
        self.ended = game.over
        if seed is not None:
            for s, seat in enumerate(self.seats):
                seat.bot.start_hand(bot_seed(seed, s))

    # --- who decides ------------------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.game.over

    def deciding(self) -> list[int]:
        """The seats that must decide now (they have legal actions), in the engine's order."""
        game = self.game
        if game.over:
            return []
        return [s for s in game.pending() if game.legal_actions(s)]

    def legal(self, seat: int) -> tuple[Action, ...]:
        return self.game.legal_actions(seat)

    def view(self, seat: int) -> SeatView:
        return SeatView(self.game, seat)

    def waiting_for_person(self) -> bool:
        """A person must decide and no automatic seat can move the hand on."""
        return any(not self.seats[s].automatic for s in self.deciding())

    # --- deciding ---------------------------------------------------------------------------
    def apply(self, action: Action, *, by_bot: bool = False) -> None:
        """Apply ``action`` (raises :class:`IllegalActionError`, changing nothing, if it is not legal),
        number it and tell ``on_action``. Every change to the hand goes through here. ``by_bot``: the
        seat's bot decided it; for a person's seat with more than one legal action that is its
        stand-in's decision (:attr:`stand_in`)."""
        game = self.game
        chosen_for = by_bot and self.seats[action.seat].is_person and len(game.legal_actions(action.seat)) > 1
        game.apply(action)
        if chosen_for:
            self.stand_in.append(len(game.actions) - 1)
        if self.on_action is not None:
            self.on_action(len(game.actions) - 1, action)
        if game.over:
            self.end_hand()

    def end_hand(self) -> None:
        """Once the hand is over, tell each seat's bot that listens for it (``end_hand(view)``, an
        outside program that is sent the result) with the seat's view of the finished hand."""
        if self.ended or not self.game.over:
            return
        self.ended = True
        for s, seat in enumerate(self.seats):
            listener = getattr(seat.bot, "end_hand", None)
            if listener is not None:
                listener(SeatView(self.game, s))

    def choose(self, seat: int) -> Action:
        """What the seat's bot would do now (for a bot, for 托管, for a hint)."""
        game = self.game
        legal = game.legal_actions(seat)
        if not legal:
            raise IllegalActionError(ErrorCode.NOT_YOUR_TURN, f"seat {seat} has nothing to decide now")
        if len(legal) == 1:
            return legal[0]
        bot = self.seats[seat].bot
        try:
            action = bot.choose(SeatView(game, seat), legal)
        except Exception:  # a broken bot must not stop the hand
            log.exception("bot %s failed at seat %d; its first legal action is taken", bot.name, seat)
            return legal[0]
        if action not in legal:
            log.warning("bot %s chose %r at seat %d, which is not legal; its first legal action is taken",
                        bot.name, action, seat)
            return legal[0]
        return action

    def act(self, seat: int) -> Action:
        """The seat's bot decides and its decision is applied (a bot's move, 托管, a timeout)."""
        action = self.choose(seat)
        self.apply(action, by_bot=True)
        return action

    def submit(self, action: Action) -> None:
        """A person's decision (the seat is ``action.seat``); illegal ones raise and change nothing."""
        if self.game.over:
            raise IllegalActionError(ErrorCode.HAND_OVER, "the hand is over")
        why = _malformed(action)
        if why is not None:
            raise IllegalActionError(ErrorCode.BAD_ACTION, f"seat {action.seat!r}: {why}")
        self.apply(action)

    def escape(self, seat: int) -> bool:
        """The seat's player leaves the hand (逃跑, docs/rules.md §10); ``False`` if it cannot (any more)."""
        if not self.game.can_escape(seat):
            return False
        self.apply(Action(seat, ActionType.ESCAPE))
        return True

    def run(self, interrupt: Interrupt | None = None) -> bool:
        """Let every automatic seat decide until a person must, or the hand is over.

        Returns ``True`` when the hand is over. This is the loop of every table: self-play runs it
        to the end of the hand, a table with people runs it after each of their decisions. It is
        the fast path and trusts the seats' bots; :meth:`act` guards against a broken one.
        """
        game = self.game
        apply = game.apply if self.on_action is None else self.apply
        # who is automatic and how each seat chooses do not change while the loop runs
        automatic = tuple(seat.kind is SeatKind.BOT or seat.trustee for seat in self.seats)
        person = tuple(seat.is_person for seat in self.seats)  # under 托管: its stand-in decides
        choose = tuple(seat.bot.choose for seat in self.seats)
        pending = game.pending
        legal_actions = game.legal_actions
        while True:
            seats = pending()
            if not seats:  # nobody has to decide: the hand is over
                self.end_hand()
                return game.over
            moved = False
            for s in seats:
                if not automatic[s]:
                    continue  # a person decides
                if interrupt is not None and interrupt(s):
                    moved = True
                    break
                legal = legal_actions(s)  # after the interrupt: an item card may have changed the hand
                if not legal:
                    continue  # nothing to decide any more (the window closed, the hand ended)
                action = choose[s](SeatView(game, s), legal) if len(legal) > 1 else legal[0]
                if person[s]:
                    self.apply(action, by_bot=True)
                else:
                    apply(action)
                moved = True
            if not moved:
                return game.over

    # --- rebuilding ---------------------------------------------------------------------------
    def replay(self, actions: Iterable[Action]) -> None:
        """Apply logged actions without telling ``on_action`` (they are in the log already):
        the hand as it was after its last logged action."""
        for action in actions:
            self.game.apply(action)
        self.ended = self.game.over  # a finished hand was told so when it was played

    @property
    def seq(self) -> int:
        """The number the next applied action gets (actions applied so far)."""
        return len(self.game.actions)

