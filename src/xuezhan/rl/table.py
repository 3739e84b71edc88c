"""One hand at a time, with learners in some seats and bots in the others, on either engine.

Each environment holds a table. :class:`LearningTable` plays on the match runtime: a
learner's seat is a person's seat of the runtime (:meth:`~xuezhan.runtime.Seat.of_person`),
the hand's :class:`~xuezhan.runtime.HandDriver` lets the bots play until a learner must
decide, and the learner's action goes in through
:meth:`~xuezhan.runtime.HandDriver.submit`, the same way a person's decision does at the
terminal or the web table. :class:`NativeTable` plays the same hands on the compiled core
(:func:`xuezhan.native.learning_table`): the learner's action goes in by its index, the
compiled bots answer in the core, and the core writes each observation and mask straight
into numpy arrays. For the same seeds, rules and actions both give the same observations,
masks, rewards and records (``tests/test_rl_native.py``). :func:`make_table` picks one.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from .. import native
from ..bots import make_bot
from ..encoding import OBS_SIZE, PHASES, ObservationCache, action_mask, encode_batch
from ..engine.actions import ACTION_SPACE_SIZE, Action, action_index
from ..engine.deal import Deal, validate_deal
from ..engine.game import Game
from ..engine.views import SeatView
from ..errors import IllegalActionError, XuezhanError
from ..ids import ErrorCode
from ..match import Match, RoomConfig, hand_seed
from ..records import record_json
from ..rules import Rules
from ..runtime import HandDriver, MatchRuntime, Seat, bot_seed
from ..tiles import format_tiles, tile_name

PLAYERS: Final = ("seat_0", "seat_1", "seat_2", "seat_3")
ENGINES: Final = ("auto", "python", "native")
"""``engine=`` of the environments: the compiled core when it plays the rules and bots (``auto``),
or one of the two for sure (``native`` refuses what the core cannot play)."""

Obs = dict[str, npt.NDArray[Any]]
"""One seat's observation: ``{"observation": float32 vector, "action_mask": int8 vector}``."""

_Legal = tuple[tuple[Action, ...], npt.NDArray[np.int8], dict[int, Action]]
"""A seat's legal actions, their mask and each one by its index in the action space."""


def load_rules(rules: str | Rules) -> Rules:
    """A rules value from a preset name, a TOML file name, or a :class:`Rules` value."""
    return rules if isinstance(rules, Rules) else Rules.load(rules)


def empty_observation() -> Obs:
    """The observation before the first hand: zeros, nothing legal."""
    return {"observation": np.zeros(OBS_SIZE, dtype=np.float32),
            "action_mask": np.zeros(ACTION_SPACE_SIZE, dtype=np.int8)}


def render_table(game: Game, seed: int, seat: int | None) -> str:
    """The table as text, as ``seat`` sees it (``None``: every hand, for a spectator of training)."""
    lines = [f"seed {seed}  phase {game.phase}  wall {game.live}  turn seat {game.turn}"]
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


class _Seats:
    """What both tables share: the rules, who learns, the bots, and each seat's owner."""

    engine = ""

    def __init__(self, rules: str | Rules, learners: Sequence[int], opponents: Mapping[int, str]) -> None:
        if sorted([*learners, *opponents]) != [0, 1, 2, 3]:
            raise XuezhanError(ErrorCode.BAD_SEAT, "every seat needs one learner or one bot")
        self.rules = load_rules(rules)
        self.learners = tuple(sorted(learners))
        self.opponents = dict(opponents)
        # the seats are kept from hand to hand (an outside program keeps running); a bot's
        # decisions depend on the seed it is given at each hand only. A learner's seat has the
        # runtime's stand-in bot, which decides for it when it gives an illegal action.
        self.seats = [
            Seat.of_bot(make_bot(self.opponents[s], random.Random(s))) if s in self.opponents
            else Seat.of_person(PLAYERS[s])
            for s in range(4)
        ]
        self.seed = 0
        self.by_seed = False
        """The hand now was dealt from :attr:`seed` (not from a prepared deal)."""

    def placed(self, record: dict[str, Any]) -> dict[str, Any]:
        """A hand's record with its seed and its place as hand 1 of a match seeded with :attr:`seed`
        (as ``xuezhan simulate --seed SEED --out`` writes it), when it was dealt from a seed."""
        if not self.by_seed:
            return record
        return {**record, "seed": hand_seed(self.seed, 1), "match": {"seed": self.seed, "hand_no": 1}}


class LearningTable(_Seats):
    """Hands played one by one on the Python engine: ``learners`` decide through :meth:`step`, the
    other seats are played by the bots named in ``opponents`` (seat -> bot name)."""

    engine = "python"

    def __init__(self, rules: str | Rules, learners: Sequence[int], opponents: Mapping[int, str]) -> None:
        super().__init__(rules, learners, opponents)
        self.driver: HandDriver | None = None
        self._last = [0, 0, 0, 0]
        self._masks: list[_Legal | None] = [None] * 4
        self.observations = ObservationCache()
        """Each seat's observation, kept up to date from hand to hand."""

    # --- hands ---------------------------------------------------------------------------------------
    def deal(self, seed: int) -> None:
        """Deal a new hand from ``seed`` (hand 1 of a match seeded with ``seed``) and let the bots
        play until a learner must decide."""
        self.seed = seed
        self.by_seed = True
        seats = self.seats
        match = Match(RoomConfig(rules=self.rules, hands=1), PLAYERS, seed=seed, records=False)
        runtime = MatchRuntime(match, lambda hand: seats)
        self.driver = runtime.start_hand()
        self._last = [0, 0, 0, 0]
        self.driver.run()

    def start(self, deal: Deal, dealer: int, exchange_direction: int | None = None) -> None:
        """A hand from a prepared deal, as ``Game(rules, deal, dealer, exchange_direction=...)`` starts
        it (to replay a hand played elsewhere); the bots play until a learner must decide."""
        if exchange_direction not in (None, 1, 2, 3):
            raise XuezhanError(ErrorCode.BAD_INPUT, f"no exchange direction {exchange_direction!r}")
        game = Game(self.rules, deal, dealer, exchange_direction=exchange_direction)
        self.by_seed = False
        self.driver = HandDriver(game, self.seats, seed=0)  # the bots seeded as the compiled core seeds them
        self._last = [0, 0, 0, 0]
        self.driver.run()

    @property
    def dealt(self) -> bool:
        return self.driver is not None

    @property
    def game(self) -> Game:
        if self.driver is None:
            raise XuezhanError(ErrorCode.NO_HAND, "no hand is being played: reset the environment first")
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

    def is_legal(self, seat: int, index: int) -> bool:
        """Whether the action of ``index`` is legal for ``seat`` now."""
        return self.driver is not None and index in self._known(seat)[2]

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

    def observation(self, seat: int) -> Obs:
        """The observation and the action mask of ``seat`` now (new arrays, the caller may keep them)."""
        if self.driver is None:
            return empty_observation()
        return {"observation": self.observations.observe(self.driver.game, seat), "action_mask": self.mask(seat)}

    def observe_into(self, seat: int, observation: npt.NDArray[np.float32] | None,
                     mask: npt.NDArray[np.int8] | None) -> int:
        """Write the observation of ``seat`` (``OBS_SIZE`` float32) and its action mask
        (``ACTION_SPACE_SIZE`` int8) into the given arrays, either may be ``None`` (a row of a
        batch, for instance); returns how many actions are legal."""
        known = self._known(seat)
        if observation is not None:
            observation[:] = self.observations.observe(self.game, seat)
        if mask is not None:
            mask[:] = known[1]
        return len(known[0])

    @property
    def phase(self) -> str:
        """The phase of the hand now (``exchange`` .. ``over``)."""
        return str(self.game.phase)

    def state(self) -> npt.NDArray[np.float32]:
        """Every seat's observation side by side: ``(4, OBS_SIZE)``."""
        return encode_batch([self.view(s) for s in range(4)])

    def view(self, seat: int) -> SeatView:
        return SeatView(self.game, seat)

    def step(self, seat: int, index: int) -> int | None:
        """``seat`` takes the action of ``index`` in the fixed action space; the bots then play
        until a learner must decide or the hand is over. Returns the learner that decides next
        (:meth:`first_deciding`). An index that is not legal now raises
        :class:`IllegalActionError` and changes nothing."""
        driver = self.driver
        if driver is None or driver.over:
            raise IllegalActionError(ErrorCode.HAND_OVER, "the hand is over: reset the environment")
        action = self._known(seat)[2].get(index)
        if action is None:
            raise IllegalActionError(ErrorCode.ILLEGAL_ACTION, f"seat {seat} may not take action {index} now")
        driver.submit(action)
        driver.run()
        return self.first_deciding()

    def stand_in(self, seat: int) -> None:
        """The stand-in bot of the learner's seat decides for it (as for a person out of time); the
        bots then play on."""
        driver = self.driver
        if driver is None or driver.over:
            raise IllegalActionError(ErrorCode.HAND_OVER, "the hand is over: reset the environment")
        driver.act(seat)
        driver.run()

    def rewards(self) -> list[float]:
        """Points each seat gained since the last call (the hand's points, paid as they happen)."""
        now = self.game.deltas()
        out = [float(now[s] - self._last[s]) for s in range(4)]
        self._last = now
        return out

    def deltas(self) -> list[int]:
        """Each seat's points in this hand so far."""
        return self.game.deltas()

    def record(self) -> dict[str, Any]:
        """The game record of the hand so far (:func:`xuezhan.records.record_json`, :meth:`placed`)."""
        return self.placed(record_json(self.game))

    def render(self, seat: int | None) -> str:
        """The table as text, as ``seat`` sees it (``None``: every hand, for a spectator of training)."""
        return render_table(self.game, self.seed, seat)


class NativeTable(_Seats):
    """The same hands as :class:`LearningTable`, played on the compiled core.

    Each step is one call into the core: the learner's action by its index, then the compiled
    bots of the other seats until a learner must decide. Observations and masks are written by
    the core into new numpy arrays. What needs a Python :class:`Game` (the stand-in bot's
    decision, :meth:`render`, :meth:`view`) replays the hand's actions on the Python engine.
    """

    engine = "native"

    def __init__(self, rules: str | Rules, learners: Sequence[int], opponents: Mapping[int, str]) -> None:
        super().__init__(rules, learners, opponents)
        self._core = native.learning_table(self.rules, [self.opponents.get(s) for s in range(4)])
        self._take = self._core.take
        self._observe = self._core.observe
        self._game: native.NativeGame | None = None
        self._prepared: tuple[Deal, int, int | None] | None = None
        self._replica: Game | None = None

    # --- hands ---------------------------------------------------------------------------------------
    def deal(self, seed: int) -> None:
        """Deal the hand :meth:`LearningTable.deal` deals from ``seed`` and let the bots play until a
        learner must decide."""
        self.seed = seed
        self.by_seed = True
        hs = hand_seed(seed, 1)
        for s in self.learners:  # the stand-in bots, seeded as the runtime seeds every seat's bot
            self.seats[s].bot.start_hand(bot_seed(hs, s))
        self._core.deal(hs)
        self._game = native.NativeGame.of_table(self._core, self.rules)
        self._prepared = None
        self._replica = None

    def start(self, deal: Deal, dealer: int, exchange_direction: int | None = None) -> None:
        """A hand from a prepared deal, as ``Game(rules, deal, dealer, exchange_direction=...)`` starts
        it (to replay a hand played elsewhere); the bots play until a learner must decide."""
        validate_deal(deal, dealer)
        if exchange_direction not in (None, 1, 2, 3):
            raise XuezhanError(ErrorCode.BAD_INPUT, f"no exchange direction {exchange_direction!r}")
        tiles = bytes([t for hand in deal.hands for t in hand] + list(deal.wall))
        for s in self.learners:
            self.seats[s].bot.start_hand(bot_seed(0, s))
        self._core.deal_from(tiles, dealer, exchange_direction or 0)
        self.by_seed = False
        self._game = native.NativeGame.of_table(self._core, self.rules)
        self._prepared = (deal, dealer, exchange_direction)
        self._replica = None

    @property
    def dealt(self) -> bool:
        return self._game is not None

    @property
    def game(self) -> native.NativeGame:
        if self._game is None:
            raise XuezhanError(ErrorCode.NO_HAND, "no hand is being played: reset the environment first")
        return self._game

    @property
    def over(self) -> bool:
        return bool(self.game.over)

    def deciding(self) -> list[int]:
        return self._core.deciding() if self._game is not None else []

    def first_deciding(self) -> int | None:
        if self._game is None:
            return None
        first = self._core.first()
        return None if first < 0 else first

    def legal(self, seat: int) -> tuple[Action, ...]:
        return self.game.legal_actions(seat)

    def is_legal(self, seat: int, index: int) -> bool:
        return self._game is not None and self._core.is_legal(seat, index)

    def mask(self, seat: int) -> npt.NDArray[np.int8]:
        out = np.zeros(ACTION_SPACE_SIZE, dtype=np.int8)
        if self._game is not None:
            self._observe(seat, None, out)
        return out

    def observation(self, seat: int) -> Obs:
        if self._game is None:
            return empty_observation()
        obs = np.empty(OBS_SIZE, dtype=np.float32)
        mask = np.empty(ACTION_SPACE_SIZE, dtype=np.int8)
        self._observe(seat, obs, mask)
        return {"observation": obs, "action_mask": mask}

    def observe_into(self, seat: int, observation: npt.NDArray[np.float32] | None,
                     mask: npt.NDArray[np.int8] | None) -> int:
        """Write the observation of ``seat`` (``OBS_SIZE`` float32) and its action mask
        (``ACTION_SPACE_SIZE`` int8) into the given contiguous arrays, either may be ``None``
        (a row of a batch, for instance); returns how many actions are legal."""
        if self._game is None:
            raise XuezhanError(ErrorCode.NO_HAND, "no hand is being played: reset the environment first")
        return int(self._observe(seat, observation, mask))

    @property
    def phase(self) -> str:
        """The phase of the hand now (``exchange`` .. ``over``)."""
        return PHASES[self._core.phase]

    def state(self) -> npt.NDArray[np.float32]:
        out = np.zeros((4, OBS_SIZE), dtype=np.float32)
        if self._game is not None:
            for s in range(4):
                self._observe(s, out[s], None)
        return out

    def step(self, seat: int, index: int) -> int | None:
        if self._game is None:
            raise IllegalActionError(ErrorCode.HAND_OVER, "the hand is over: reset the environment")
        first = self._take(seat, index)
        if first >= -1:
            return None if first < 0 else first
        if first == -2:
            raise IllegalActionError(ErrorCode.ILLEGAL_ACTION, f"seat {seat} may not take action {index} now")
        raise IllegalActionError(ErrorCode.HAND_OVER, "the hand is over: reset the environment")

    def stand_in(self, seat: int) -> None:
        if self._game is None or self._game.over:
            raise IllegalActionError(ErrorCode.HAND_OVER, "the hand is over: reset the environment")
        action = HandDriver(self.replica(), self.seats).choose(seat)
        self.step(seat, action_index(action))

    def rewards(self) -> list[float]:
        return list(self._core.rewards())

    def deltas(self) -> list[int]:
        return list(self._core.deltas())

    def record(self) -> dict[str, Any]:
        return self.placed(self.game.record())

    # --- the hand on the Python engine ------------------------------------------------------------------
    def replica(self) -> Game:
        """The hand so far on the Python engine: the same deal, the actions taken so far."""
        game = self.game
        replica = self._replica
        if replica is None:
            if self._prepared is None:
                replica = Game.new(self.rules, rng=random.Random(game.seed))
            else:
                deal, dealer, direction = self._prepared
                replica = Game(self.rules, deal, dealer, exchange_direction=direction)
            self._replica = replica
        for action in game.actions()[len(replica.actions):]:
            replica.apply(action)
        return replica

    def view(self, seat: int) -> SeatView:
        return SeatView(self.replica(), seat)

    def render(self, seat: int | None) -> str:
        return render_table(self.replica(), self.seed, seat)


Table = LearningTable | NativeTable


def make_table(rules: str | Rules, learners: Sequence[int], opponents: Mapping[int, str],
               engine: str = "auto") -> Table:
    """The table of an environment: on the compiled core when ``engine`` is ``native`` (refused
    with ``native_unavailable`` or ``native_refused`` where it cannot play the rules and bots) or
    ``auto`` and it can; on the Python engine when ``engine`` is ``python`` or the core cannot."""
    if engine not in ENGINES:
        raise XuezhanError(ErrorCode.BAD_INPUT, f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    if engine == "python":
        return LearningTable(rules, learners, opponents)
    try:
        return NativeTable(rules, learners, opponents)
    except XuezhanError as exc:
        if engine == "native" or exc.code not in (ErrorCode.NATIVE_UNAVAILABLE, ErrorCode.NATIVE_REFUSED):
            raise
    return LearningTable(rules, learners, opponents)
