"""The one match controller: a :class:`~xuezhan.match.Match` and the seats that decide in it.

:class:`MatchRuntime` deals each hand of the match (hand ``k`` from the seed
``hand_seed(match seed, k)``, the same hand in ``simulate``, ``play``, ``serve`` and the
league), gives it a :class:`~xuezhan.runtime.driver.HandDriver` with the seats of the
people who sit there, and closes it into a :class:`~xuezhan.match.HandResult` (dealer
rotation, escapes, transfers ready for coins). A hand in progress can be rebuilt from
its seed and its logged actions (:meth:`MatchRuntime.resume_hand`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from ..engine.actions import Action
from ..errors import XuezhanError
from ..ids import ErrorCode
from ..match import Hand, HandResult, Match
from .driver import HandDriver
from .seats import Seat

SeatsFor = Callable[[Hand], Sequence[Seat]]
"""The four seats of a hand, in seat order (people move between hands)."""
HandListener = Callable[[Hand], None]
MatchActionListener = Callable[[Hand, int, Action], None]


def seats_by_player(seats: Mapping[str, Seat]) -> SeatsFor:
    """Seats looked up by the name of the player who sits there."""

    def seats_for(hand: Hand) -> Sequence[Seat]:
        return [seats[p] for p in hand.seating]

    return seats_for


class MatchRuntime:
    """Plays the hands of ``match`` with the seats ``seats`` gives for each hand.

    ``on_start`` is told of every hand dealt (before its first action), ``on_action`` of every
    action applied in it, numbered from 0 within the hand: together they are the hand's log.
    """

    def __init__(
        self,
        match: Match,
        seats: SeatsFor | Mapping[str, Seat],
        *,
        on_start: HandListener | None = None,
        on_action: MatchActionListener | None = None,
    ) -> None:
        self.match = match
        self.seats_for: SeatsFor = seats_by_player(seats) if isinstance(seats, Mapping) else seats
        self.on_start = on_start
        self.on_action = on_action
        self.hand: Hand | None = None
        self.driver: HandDriver | None = None

    # --- hands ------------------------------------------------------------------------------------
    def _drive(self, hand: Hand) -> HandDriver:
        listener = None
        if self.on_action is not None:
            on_action = self.on_action

            def listener(seq: int, action: Action) -> None:
                on_action(hand, seq, action)

        driver = HandDriver(hand.game, self.seats_for(hand), seed=hand.seed, on_action=listener)
        hand.applier = driver.apply  # item cards and escapes through the match layer are logged too
        self.hand = hand
        self.driver = driver
        return driver

    def start_hand(self, **options: Any) -> HandDriver:
        """Deal the match's next hand (``options`` as :meth:`Match.start_hand`) and drive it."""
        hand = self.match.start_hand(**options)
        if self.on_start is not None:
            self.on_start(hand)
        return self._drive(hand)

    def resume_hand(self, seed: int, actions: Sequence[Action], **options: Any) -> HandDriver:
        """Deal the match's next hand again and replay its logged ``actions``: the hand as it was
        after its last applied action. ``seed`` is the logged seed; a different one means the
        match state does not belong to this log (``log_mismatch``)."""
        hand = self.match.start_hand(**options)
        if hand.seed != seed:
            self.match.current = None
            raise XuezhanError(ErrorCode.LOG_MISMATCH, f"hand {hand.hand_no} was logged with another seed")
        driver = self._drive(hand)
        driver.replay(actions)
        return driver

    def finish_hand(self) -> HandResult:
        """Close the finished hand: transfers, running points, the next dealer, escapers leave."""
        if self.hand is None:
            raise XuezhanError(ErrorCode.NO_HAND, "no hand is being played")
        result = self.match.finish_hand(self.hand)
        self.hand = None
        self.driver = None
        return result

    def play_hand(self, **options: Any) -> HandResult:
        """Deal, play to the end (every seat automatic) and close one hand."""
        driver = self.start_hand(**options)
        if not driver.run():
            raise XuezhanError(ErrorCode.NOT_AUTOMATIC, "a person must decide: play_hand needs automatic seats")
        return self.finish_hand()

    def play(self) -> Iterator[HandResult]:
        """Play the match's remaining hands with automatic seats."""
        while not self.match.finished:
            yield self.play_hand()
