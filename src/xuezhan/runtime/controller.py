"""The one match controller: a :class:`~xuezhan.match.Match` and the seats that decide in it.

:class:`MatchRuntime` deals each hand of the match (hand ``k`` from the seed
``hand_seed(match seed, k)``, the same hand in ``simulate``, ``play``, ``serve`` and the
league), gives it a :class:`~xuezhan.runtime.driver.HandDriver` with the seats of the
people who sit there, and closes it into a :class:`~xuezhan.match.HandResult` (dealer
rotation, escapes, transfers ready for coins). A hand in progress can be rebuilt from
its seed and its log (:meth:`MatchRuntime.resume_hand`).

A hand's log is its entries in order, numbered 0, 1, 2 ...: each engine action applied, and
each item card used during the hand (:class:`~xuezhan.match.ItemUse`, whose swap is applied to
the engine with it: one entry). A hand without item cards logs exactly its engine actions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from ..engine.actions import Action
from ..errors import XuezhanError
from ..ids import ErrorCode
from ..match import Hand, HandResult, ItemUse, Match
from .driver import HandDriver
from .seats import Seat

SeatsFor = Callable[[Hand], Sequence[Seat]]
"""The four seats of a hand, in seat order (people move between hands)."""
HandListener = Callable[[Hand], None]
MatchActionListener = Callable[[Hand, int, Action], None]
MatchItemListener = Callable[[Hand, int, ItemUse], None]
HandLogEntry = Action | ItemUse
"""One entry of a hand's log: an engine action, or an item card used during the hand."""


def seats_by_player(seats: Mapping[str, Seat]) -> SeatsFor:
    """Seats looked up by the name of the player who sits there."""

    def seats_for(hand: Hand) -> Sequence[Seat]:
        return [seats[p] for p in hand.seating]

    return seats_for


class MatchRuntime:
    """Plays the hands of ``match`` with the seats ``seats`` gives for each hand.

    ``on_start`` is told of every hand dealt (before its first action), ``on_action`` of every
    action applied in it and ``on_item`` of every item card used in it, numbered together from 0
    within the hand: together they are the hand's log.
    """

    def __init__(
        self,
        match: Match,
        seats: SeatsFor | Mapping[str, Seat],
        *,
        on_start: HandListener | None = None,
        on_action: MatchActionListener | None = None,
        on_item: MatchItemListener | None = None,
    ) -> None:
        self.match = match
        self.seats_for: SeatsFor = seats_by_player(seats) if isinstance(seats, Mapping) else seats
        self.on_start = on_start
        self.on_action = on_action
        self.on_item = on_item
        self.hand: Hand | None = None
        self.driver: HandDriver | None = None
        self.logged = 0
        """Entries of the hand's log so far (the number the next one gets)."""

    # --- hands ------------------------------------------------------------------------------------
    def _entry(self) -> int:
        n = self.logged
        self.logged += 1
        return n

    def _drive(self, hand: Hand) -> HandDriver:
        listener = None
        if self.on_action is not None:
            on_action = self.on_action

            def listener(seq: int, action: Action) -> None:
                on_action(hand, self._entry(), action)

        if self.on_item is not None:
            on_item = self.on_item

            def item_listener(use: ItemUse) -> None:
                on_item(hand, self._entry(), use)

            hand.on_item = item_listener
        driver = HandDriver(hand.game, self.seats_for(hand), seed=hand.seed, on_action=listener,
                            stand_in=hand.stand_in)
        hand.applier = driver.apply  # escapes through the match layer are logged too
        self.hand = hand
        self.driver = driver
        self.logged = 0
        return driver

    def start_hand(self, **options: Any) -> HandDriver:
        """Deal the match's next hand (``options`` as :meth:`Match.start_hand`) and drive it."""
        hand = self.match.start_hand(**options)
        if self.on_start is not None:
            self.on_start(hand)
        return self._drive(hand)

    def resume_hand(self, seed: int, entries: Sequence[HandLogEntry], *, stand_in: Sequence[int] = (),
                    **options: Any) -> HandDriver:
        """Deal the match's next hand again (``options`` as the hand was dealt with: its cards of the
        deal) and replay its logged ``entries``: each action to the engine, each item card to the
        hand (:meth:`Hand.redo`: its effect and its place in :attr:`Hand.items` again, a seek's
        answer and a random swap's tile checked), so the hand is as it was after its last entry,
        and a card used is used; ``stand_in``, the logged actions a person's stand-in took
        (:attr:`Hand.stand_in`). ``seed`` is the logged seed; a different one means the match
        state does not belong to this log (``log_mismatch``), as does an entry that does not fit."""
        hand = self.match.start_hand(**options)
        if hand.seed != seed:
            self.match.current = None
            raise XuezhanError(ErrorCode.LOG_MISMATCH, f"hand {hand.hand_no} was logged with another seed")
        driver = self._drive(hand)
        try:
            for entry in entries:
                if isinstance(entry, ItemUse):
                    hand.redo(entry)
                else:
                    driver.replay((entry,))
        except XuezhanError:
            self.match.current = None
            raise
        self.logged = len(entries)
        hand.stand_in.extend(stand_in)
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
