"""One hand at a time on the match runtime, with learners in some seats and bots in the others.

Each environment holds a :class:`LearningTable`. A learner's seat is a person's seat of
the runtime (:meth:`~xuezhan.runtime.Seat.of_person`): the hand's
:class:`~xuezhan.runtime.HandDriver` lets the bots play until a learner must decide,
the learner's action goes in through :meth:`~xuezhan.runtime.HandDriver.submit`, the
same way a person's decision does at the terminal or the web table.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt

from ..bots import make_bot
from ..engine.actions import Action, action_index
from ..engine.game import Game
from ..engine.views import SeatView
from ..errors import IllegalActionError, XuezhanError
from ..match import Match, RoomConfig
from ..rules import Rules
from ..runtime import HandDriver, MatchRuntime, Seat
from ..tiles import format_tiles, tile_name
from .encoding import ObservationCache, action_mask

PLAYERS = ("seat_0", "seat_1", "seat_2", "seat_3")

_Legal = tuple[tuple[Action, ...], npt.NDArray[np.int8], dict[int, Action]]
"""A seat's legal actions, their mask and each one by its index in the action space."""


def load_rules(rules: str | Rules) -> Rules:
    """A rules value from a preset name, a TOML file name, or a :class:`Rules` value."""
    return rules if isinstance(rules, Rules) else Rules.load(rules)


class LearningTable:
    """Hands played one by one: ``learners`` decide through :meth:`step`, the other seats are
    played by the bots named in ``opponents`` (seat -> bot name)."""

    def __init__(self, rules: str | Rules, learners: Sequence[int], opponents: Mapping[int, str]) -> None:
        if sorted([*learners, *opponents]) != [0, 1, 2, 3]:
            raise XuezhanError("bad_seat", "every seat needs one learner or one bot")
        self.rules = load_rules(rules)
        self.learners = tuple(sorted(learners))
        self.opponents = dict(opponents)
        # the seats are kept from hand to hand (an outside program keeps running); a bot's
        # decisions depend on the seed it is given at each hand only
        self.seats = [
            Seat.of_bot(make_bot(self.opponents[s], random.Random(s))) if s in self.opponents
            else Seat.of_person(PLAYERS[s])
            for s in range(4)
        ]
        self.driver: HandDriver | None = None
        self.seed = 0
        self._last = [0, 0, 0, 0]
        self._masks: list[_Legal | None] = [None] * 4
        self.observations = ObservationCache()
        """Each seat's observation, kept up to date from hand to hand."""

    # --- hands ---------------------------------------------------------------------------------------
    def deal(self, seed: int) -> None:
        """Deal a new hand from ``seed`` (hand 1 of a match seeded with ``seed``) and let the bots
        play until a learner must decide."""
        self.seed = seed
        seats = self.seats
        match = Match(RoomConfig(rules=self.rules, hands=1), PLAYERS, seed=seed, records=False)
        runtime = MatchRuntime(match, lambda hand: seats)
        self.driver = runtime.start_hand()
        self._last = [0, 0, 0, 0]
        self.driver.run()

    @property
    def game(self) -> Game:
        if self.driver is None:
            raise XuezhanError("no_hand", "no hand is being played: reset the environment first")
        return self.driver.game

    @property
    def over(self) -> bool:
        return self.game.over

    def deciding(self) -> list[int]:
        """The learners that must decide now, in the engine's order."""
        if self.driver is None:
            return []
        return [s for s in self.driver.deciding() if s in self.learners]

    def first_deciding(self) -> int | None:
        """The first of :meth:`deciding` (``None`` when no learner must decide), without the list."""
        driver = self.driver
        if driver is None:
            return None
        game = driver.game
        if game.over:
            return None
        learners = self.learners
        for s in game.pending():
            if s in learners and game.legal_actions(s):
                return s
        return None

    def legal(self, seat: int) -> tuple[Action, ...]:
        return self.game.legal_actions(seat)

    def _known(self, seat: int) -> _Legal:
        """The legal actions of ``seat`` now with their mask and their indices, built once for each
        tuple of legal actions the engine hands out."""
        legal = self.game.legal_actions(seat)
        known = self._masks[seat]
        if known is None or known[0] is not legal:
            known = self._masks[seat] = (legal, action_mask(legal), {action_index(a): a for a in legal})
        return known

    def mask(self, seat: int) -> npt.NDArray[np.int8]:
        """The action mask of ``seat`` now (a new array)."""
        return self._known(seat)[1].copy()

    def view(self, seat: int) -> SeatView:
        return SeatView(self.game, seat)

    def step(self, seat: int, index: int) -> None:
        """``seat`` takes the action of ``index`` in the fixed action space; the bots then play
        until a learner must decide or the hand is over. An index that is not legal now raises
        :class:`IllegalActionError` and changes nothing."""
        driver = self.driver
        if driver is None or driver.over:
            raise IllegalActionError("hand_over", "the hand is over: reset the environment")
        action = self._known(seat)[2].get(index)
        if action is not None:
            driver.submit(action)
            driver.run()
            return
        raise IllegalActionError("illegal_action", f"seat {seat} may not take action {index} now")

    def rewards(self) -> list[int]:
        """Points each seat gained since the last call (the hand's points, paid as they happen)."""
        now = self.game.deltas()
        out = [now[s] - self._last[s] for s in range(4)]
        self._last = now
        return out

    # --- text ----------------------------------------------------------------------------------------
    def render(self, seat: int | None) -> str:
        """The table as text, as ``seat`` sees it (``None``: every hand, for a spectator of training)."""
        game = self.game
        lines = [f"seed {self.seed}  phase {game.phase}  wall {game.live}  turn seat {game.turn}"]
        window = game.claim_window
        if window is not None:
            lines.append(f"offered {tile_name(window.tile)}")
        for s in range(4):
            view = SeatView(game, s if seat is None else seat)
            shown = view.shown_counts(s)
            hand = "?" * view.concealed_count(s) if shown is None else format_tiles(
                [t for t in range(27) for _ in range(shown[t])])
            melds = " ".join(f"{m.kind}:{tile_name(m.tile)}" for m in view.melds(s))
            river = format_tiles(view.river(s), compact=False) if view.river(s) else "-"
            voids = view.voids()
            void = "?" if voids[s] is None else "mps"[voids[s] or 0]
            flags = " won" * view.won(s) + " escaped" * view.escaped(s)
            lines.append(f"seat {s} void {void} points {game.deltas()[s]:+d}{flags}: {hand} | {melds} | river {river}")
        return "\n".join(lines)
