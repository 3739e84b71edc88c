"""The expert: determinized Monte-Carlo search over the heuristic's policy.

At a decision that matters (a peng or a kong on offer, a kong on its own turn, a choice
between ready hands, push or fold against a ready-looking opponent) it deals the tiles it
cannot see afresh a number of times (:func:`xuezhan.engine.views.sample_world`: voids,
discards, claims and counts kept), plays each candidate in each of those worlds to the end
of the hand with the heuristic at every seat, and takes the candidate with the most points
for its seat: the fan, kong payments, 查大叫 and 花猪, 呼叫转移, everything the hand's
settlement pays. Every candidate sees the same worlds, so their difference is measured,
not their luck; the heuristic's own choice is left only for a candidate that beats it by
more than ``margin`` standard errors. Elsewhere it plays as the heuristic.

The budget is a number of play-outs per decision (``playouts``; the default keeps a decision
within about 50 ms on one core), never a clock, so that a decision is a function of the
seed, the view and the legal actions only.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..engine.actions import Action, ActionType
from ..engine.game import Game
from ..engine.views import SeatView, sample_world
from ..hand import shanten
from .heuristic import HeuristicBot

_MASK = (1 << 64) - 1
PLAYOUTS = 12
"""Play-outs per searched decision by default (about 3 ms each on one core)."""


@dataclass(frozen=True)
class Evaluation:
    """One candidate's result over the sampled worlds: mean points for the seat, and the
    mean and standard error of its difference from the heuristic's choice."""

    action: Action
    mean: float
    diff: float
    stderr: float
    playouts: int


def _mix(seed: int, step: int) -> int:
    z = (seed + (step + 1) * 0x9E3779B97F4A7C15) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


class ExpertBot:
    name = "expert"

    def __init__(self, rng: random.Random, *, playouts: int = PLAYOUTS, margin: float = 1.0) -> None:
        if playouts < 2:
            raise ValueError("the expert needs at least two play-outs per decision")
        self.rng = rng
        self.seed = rng.getrandbits(64)
        self.playouts = playouts
        self.margin = margin
        self.policy = HeuristicBot(rng)
        self._playout_bots = [HeuristicBot(rng, quick=True) for _ in range(4)]
        self._driver: Callable[[Game], object] | None = None

    def start_hand(self, seed: int) -> None:
        self.seed = seed & _MASK

    # --- what to search ----------------------------------------------------------------------------
    def candidates(self, view: SeatView, legal: Sequence[Action], choice: Action) -> list[Action]:
        """The actions worth comparing by search (the heuristic's ``choice`` first), or ``[choice]``."""
        kinds = {a.type for a in legal}
        if ActionType.HU in kinds or ActionType.DINGQUE in kinds or ActionType.EXCHANGE in kinds:
            return [choice]
        if view.phase != "turn":
            if ActionType.PENG in kinds or ActionType.GANG in kinds:
                return [choice, *[a for a in legal if a != choice]]
            return [choice]
        gangs = [a for a in legal if a.type is ActionType.GANG]
        discards = [a for a in legal if a.type is ActionType.DISCARD]
        if gangs:
            out = [choice, *[g for g in gangs if g != choice]]
            if choice.type is ActionType.GANG and discards:
                out.append(self.policy.choose(view, discards))
            return out
        if len(discards) < 2:
            return [choice]
        counts = view.counts
        melds = view.melds(view.seat)
        meld_suits = 0
        for m in melds:
            meld_suits |= 1 << (m.tile // 9)
        void = view.void
        if void is not None and any(counts[void * 9 : void * 9 + 9]):
            return [choice]  # void tiles go first: the heuristic's order is enough
        by_sh: dict[int, list[Action]] = {}
        for a in discards:
            t = a.tile or 0
            counts[t] -= 1
            by_sh.setdefault(shanten(counts, len(melds), meld_suits=meld_suits, void=void), []).append(a)
            counts[t] += 1
        best = min(by_sh)
        threats = self.policy.threats(view)
        top = max((p for _, p, _ in threats), default=0.0)
        if best == 0 and len(by_sh[0]) > 1:
            ready = [a for a in by_sh[0] if a != choice]
            return [choice, *ready[:2]]
        if best <= 1 and top >= 0.7:
            visible = view.visible_counts()
            safest = min(discards, key=lambda a: (self.policy.danger(view, a.tile or 0, threats, visible), a.tile))
            if safest != choice:
                return [choice, safest]
        return [choice]

    # --- search ------------------------------------------------------------------------------------
    def evaluate(self, view: SeatView, candidates: Sequence[Action], playouts: int | None = None) -> list[Evaluation]:
        """Each candidate's points for the seat over the same sampled worlds (``candidates[0]``
        is the reference of the differences)."""
        budget = self.playouts if playouts is None else playouts
        worlds = max(2, math.ceil(budget / len(candidates)))
        rng = random.Random(_mix(self.seed, view.step))
        seat = view.seat
        results: list[list[float]] = [[] for _ in candidates]
        for _ in range(worlds):
            world = sample_world(view, rng)
            for k, action in enumerate(candidates):
                results[k].append(self._playout(world.copy(), action, seat))
        out = []
        ref = results[0]
        for action, pts in zip(candidates, results, strict=True):
            n = len(pts)
            diffs = [p - r for p, r in zip(pts, ref, strict=True)]
            d = sum(diffs) / n
            var = sum((x - d) ** 2 for x in diffs) / (n - 1)
            out.append(Evaluation(action, sum(pts) / n, d, math.sqrt(var / n), n))
        return out

    def _playout(self, game: Game, action: Action, seat: int) -> float:
        game.apply(action)
        if not game.over:
            if self._driver is None:
                # the one decision loop plays the hand out; imported here, as the runtime imports the bots
                from ..runtime.driver import HandDriver
                from ..runtime.seats import Seat

                seats = [Seat.of_bot(b) for b in self._playout_bots]
                self._driver = lambda g: HandDriver(g, seats).run()
            self._driver(game)
        return float(game.deltas()[seat])

    def choose(self, view: SeatView, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        choice = self.policy.choose(view, legal)
        cands = self.candidates(view, legal, choice)
        if len(cands) < 2:
            return choice
        evals = self.evaluate(view, cands)
        best = max(evals[1:], key=lambda e: e.diff)
        if best.diff > 0 and best.diff > self.margin * best.stderr:
            return best.action
        return choice
