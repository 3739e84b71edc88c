"""The expert: determinized Monte-Carlo search from the learned network's choice.

At every decision it takes the choice of the shipped network (:class:`~xuezhan.bots.learned.LearnedBot`,
``prior``; the heuristic's without numpy, as :class:`Expert04Bot` always does). At a decision that
matters (a peng or a kong on offer, a kong on its own turn, a discard of a hand at most one step
from ready, ``search_shanten``; a win on another's discard, ``search_wins``)
it then deals the tiles it cannot see afresh a number of times
(:func:`xuezhan.engine.views.sample_world`: voids, discards, claims and counts kept), each
opponent's concealed tiles in proportion to what the reading network makes of its river, melds
and void (:mod:`xuezhan.bots.reading`, ``read_worlds``; at a win, each opponent ready or not by
the readiness network's chance, ``ready_worlds``), plays each candidate in each of those
worlds to the end of the hand with the quick heuristic at every seat (or the compiled learned
network, ``learned_self`` and ``learned_others``, off by default), and compares the candidates'
points for its seat: the fan, kong payments, 查大叫 and 花猪, 呼叫转移, everything the hand's
settlement pays. Every candidate sees the same worlds, so their difference is measured, not
their luck; the first choice is left only for a candidate that beats it by more than
``margin`` standard errors (``search_margin``, 1.5). The other discards searched are those that
keep the hand as close to ready (``discard_candidates``, 3 in all), by their worth two draws
ahead (:class:`HandValue`).

The budget is a number of play-outs per decision (``playouts``, :data:`PLAYOUTS` by
default), never a clock, so that a decision is a function of the seed, the view and the
legal actions only. Where the compiled core is built the play-outs run in it
(:func:`xuezhan.native.play_outs`: the same bots and deltas, each play-out some hundred times
as fast) and the worlds are dealt there too, draw for draw as in Python (``core_worlds``,
:func:`xuezhan.native.search_worlds`); each sampled world is played under ``wall_orders`` orders
of its live wall (a play-out costs several times a world's dealing). The search's knobs that read the
table beyond the worlds (defence late in the wall, :meth:`ExpertBot.danger_cost`; kongs on
expected points, ``kong_margin``) are off in ``expert`` and on in :class:`ReadingExpertBot`;
:class:`Expert04Bot` keeps the expert of 0.4.0. In Python a play-out takes about 3 ms and is played by the
heuristic (the compiled network serves the compiled play-outs only), so without the core the default is
:data:`PYTHON_PLAYOUTS` (12, one order a world), within the 50 ms of one core; the decisions
then differ from an install with the core, each still a function of the seed, the view and the
legal actions. docs/bots.md has the figures.

A Python play-out runs on the match runtime's one decision loop
(:class:`~xuezhan.runtime.HandDriver`). The runtime sits above the bots, so the bots do not
import it: it hands the expert its loop when it is imported (:meth:`ExpertBot.use_play_out`).

Long: one search in one class, every knob a class attribute with its reason beside it, so that
``expert-0.4``, the reading expert and the yardsticks of ``benchmarks/`` are that class with other
values (what to search, the worlds, the play-outs, the choice), not copies of its parts."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..engine.actions import Action, ActionType
from ..engine.game import RIVER_OPEN, Game
from ..engine.views import SeatView, reshuffle_wall, sample_world, world_deal
from ..errors import XuezhanError
from ..hand import shanten, winning_tiles
from ..native import (
    HEURISTIC,
    HEURISTIC_QUICK,
    LEARNED,
    available,
    play_outs,
    playout_state,
    prepare_bots,
    search_worlds,
    use_learned_weights,
)
from ..scoring import suits_of_melds
from .base import Bot
from .heuristic import HeuristicBot, wait_points
from .learned import LearnedBot, shipped_weights
from .reading import BUILD_TRIES, built_ready_hand, hand_weights, passed_since, ready_probability

_MASK = (1 << 64) - 1
PLAYOUTS_0_4 = 384
"""Play-outs per searched decision where the compiled core is built, as released in 0.4.0
(:class:`Expert04Bot`; a sampled world about 0.1 ms, a play-out about 0.015 ms in the core,
on one core)."""
PLAYOUTS = PLAYOUTS_0_4
"""Play-outs per searched decision by default where the compiled core is built. The reading
expert of docs/bots.md used 768; with the learned network at every seat of the play-outs
(``learned_self``, ``learned_others``; a play-out then costs about 2.2 times as much) 256 keep
a decision within the 50 ms of one core at p99."""
PYTHON_PLAYOUTS = 12
"""Play-outs per searched decision by default without the compiled core (about 3 ms a
play-out in Python)."""

Chances = dict[int, tuple[float, set[int]]]
"""For a win searched with ``ready_worlds`` (:meth:`ExpertBot.ready_chances`): each opponent's
chance of being ready and the tiles its ready hand does not wait on."""

PlayOut = Callable[[Game, Sequence[Bot]], object]
"""Plays ``game`` to its end with one bot per seat: the decision loop of a Python play-out."""

_play_out: list[PlayOut] = []
"""The loop the match runtime gave (:meth:`ExpertBot.use_play_out`), once it is loaded."""


@dataclass(frozen=True)
class Evaluation:
    """One candidate's result over the sampled worlds: mean points for the seat, and the
    mean and standard error of its difference from the heuristic's choice."""

    action: Action
    mean: float
    diff: float
    stderr: float
    playouts: int


class HandValue:
    """Expected points of a concealed hand for its owner, looking two draws ahead (expectimax
    over the copies the seat has not seen): a ready hand is worth its waits' points times the
    chance of drawing or being dealt one before the wall runs out; a hand one step from ready
    is worth, for every tile that makes it ready, the best ready hand that tile allows."""

    win_rate = 0.6
    """Wins per draw of a ready hand, per live copy of its waits over the unseen copies
    (other seats' discards add chances, other winners take some)."""
    step_rate = 0.9
    """Likewise the steps to ready of a hand one step away (pengs add chances)."""

    def __init__(self, view: SeatView) -> None:
        self.rules = view.rules
        self.void = view.void
        melds = view.melds(view.seat)
        self.melds = tuple(melds)
        self.n = len(melds)
        self.meld_suits = 0
        for m in melds:
            self.meld_suits |= 1 << (m.tile // 9)
        visible = view.visible_counts()
        self.unseen = [4 - v for v in visible]
        self.total = max(1, sum(self.unseen))
        active = sum(1 for o in range(4) if not view.won(o)) or 1
        self.draws = max(1.0, view.live / active)
        self.owned_melds = [0] * 27
        for m in melds:
            self.owned_melds[m.tile] += m.size

    def shanten(self, counts: list[int]) -> int:
        return shanten(counts, self.n, meld_suits=self.meld_suits, void=self.void)

    def ready(self, counts: list[int], draws: float) -> float:
        """A ready 13-equivalent hand: chance of a win within ``draws`` draws (other seats'
        discards count as chances too) times the points of the waits, weighted by live copies."""
        owned = [c + m for c, m in zip(counts, self.owned_melds, strict=True)]
        waits = winning_tiles(counts, self.n, meld_suits=self.meld_suits, void=self.void, owned=owned)
        live = 0
        points = 0.0
        key = tuple(counts)
        for w in waits:
            k = self.unseen[w]
            if k > 0:
                live += k
                points += k * wait_points(key, self.melds, w, self.rules, self.void)
        if live == 0:
            return 0.0
        p_win = 1.0 - math.exp(-self.win_rate * live * draws / self.total)
        return p_win * points / live

    def one_step(self, counts: list[int]) -> float:
        """A 13-equivalent hand one step from ready: the chance of a step before the wall runs
        out times the expected best ready hand (with the draws then left) a step gives."""
        steps: list[tuple[int, int]] = []  # (tile drawn, live copies)
        for u in range(27):
            k = self.unseen[u]
            if k == 0 or u // 9 == self.void:
                continue
            counts[u] += 1
            if self.shanten(counts) <= 0:
                steps.append((u, k))
            counts[u] -= 1
        improving = sum(k for _, k in steps)
        if improving == 0:
            return 0.0
        rate = self.step_rate * improving / self.total  # steps per draw
        p_reach = 1.0 - math.exp(-rate * self.draws)
        left = max(0.0, self.draws - 1.0 / rate)  # the ready hand has fewer draws left
        total = 0.0
        for u, k in steps:
            counts[u] += 1
            if self.shanten(counts) == -1:  # a win on the draw: self-drawn, every other seat pays
                counts[u] -= 1
                total += k * 2.5 * wait_points(tuple(counts), self.melds, u, self.rules, self.void)
                continue
            best = 0.0
            for d in range(27):
                if counts[d] == 0 or d == u:
                    continue
                counts[d] -= 1
                if self.shanten(counts) == 0:
                    best = max(best, self.ready(counts, left))
                counts[d] += 1
            counts[u] -= 1
            total += k * best
        return p_reach * total / improving

    def value(self, counts: list[int]) -> float:
        sh = self.shanten(counts)
        if sh == 0:
            return self.ready(counts, self.draws)
        if sh == 1:
            return self.one_step(counts)
        return 0.0


def _mix(seed: int, step: int) -> int:
    z = (seed + (step + 1) * 0x9E3779B97F4A7C15) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


class ExpertBot:
    name = "expert"
    core_playouts = PLAYOUTS
    """The default budget where the compiled core runs the play-outs."""
    danger_weight = 0.0
    """Points (in ×1 hands, :meth:`HeuristicBot.stake`) one unit of danger costs a discard that
    keeps the hand close, late in the wall (``defence_live``); 0 (the default): none."""
    defence_live = 20
    """Below this many live tiles a ready hand, or one a step from ready, weighs each discard's
    danger (``danger_weight``) in choosing which to keep and which to search; 0: never."""
    read_worlds = True
    """Deal the sampled worlds by what each opponent's river, melds and void say
    (:meth:`world_weights`, read as ``reading`` says) rather than uniformly."""
    reading = "network"
    """How the worlds read the table (``read_worlds``): ``network``, the reading network
    (:mod:`xuezhan.bots.reading`, shipped weights; uniform without numpy), or ``discards``, fixed
    weights for a suit discarded, a tile discarded and a tile let go by (``suit_decay``,
    ``own_discard``, ``passed_tile``)."""
    kong_margin: float | None = None
    """A kong, or the discard that declines one, is taken on expected points: it needs to beat
    the heuristic's choice by only this many standard errors (``margin`` elsewhere; ``None``:
    ``margin`` for kongs too)."""
    native_playouts = True
    """Play the play-outs on the compiled core where it is built and holds the world
    (:func:`xuezhan.native.play_outs`): the same heuristic, the same deltas, in C."""
    core_worlds = True
    """Deal the worlds in the compiled core too where it plays the play-outs (:meth:`core_search`): the
    same draws of the same generator, the same numbers, about 1.7 times the self-play speed; off, they
    are dealt in Python (:func:`~xuezhan.engine.views.sample_world`), the reference of the benchmarks."""
    quick_self = True
    """The seat's own play in the play-outs by the quick heuristic (no danger reading, no
    effective-tile count) rather than the full one."""
    quick_others = True
    """Likewise the other seats' play."""
    learned_self = False
    """The seat's own play in the compiled play-outs by the learned network
    (:data:`xuezhan.native.LEARNED`, the shipped weights) rather than the heuristic: the play-outs
    then follow the plan the network's first choice began (without numpy: the heuristic). Off by
    default: in the leagues of docs/bots.md the network at every seat made the expert no
    measurably stronger, at three times the self-play time."""
    learned_others = False
    """Likewise the other seats' play in the compiled play-outs."""
    search_shanten = 1
    """Search the discards of a hand at most this many steps from ready after its best discard."""
    search_wins = True
    """Search a win on another seat's discard (or a robbed kong) against letting it go, for a
    self-drawn or bigger win later (过水: the seat may not win on that tile again before it draws).
    On in ``expert``, with ``ready_worlds``: alone it gained nothing a confidence interval shows on
    chengdu head to head with the expert before it; with worlds whose opponents are ready as often as
    the readiness network says, it did (docs/bots.md)."""
    ready_worlds = True
    """At a win on another seat's discard (``search_wins``), deal each opponent a ready hand
    (:func:`~xuezhan.bots.reading.built_ready_hand`, waiting on none of the tiles it let go by since
    its last discard) with the probability the readiness network gives
    (:func:`~xuezhan.bots.reading.ready_probability`), and a hand that is not ready otherwise:
    whether to let a win go hangs on who else will win first. Worlds dealt by the reading network
    alone make the opponents ready far too seldom. Without numpy: the reading worlds."""
    discard_candidates = 3
    """Discards compared by search (the first choice among them)."""
    prior = "learned"
    """Whose choice the search starts from and keeps unless a candidate beats it by ``margin``
    standard errors: ``learned`` (the shipped network, :class:`~xuezhan.bots.learned.LearnedBot`;
    without numpy, the heuristic's) or ``heuristic`` (with :meth:`discard`'s worth two draws ahead)."""
    search_margin = 1.5
    """The default ``margin``: standard errors by which a candidate must beat the first choice."""
    wall_orders = 4
    """Play-outs of each sampled world, its live wall in another order each time (more play-outs for
    a little more than the one world's dealing)."""

    def __init__(self, rng: random.Random, *, playouts: int | None = None, margin: float | None = None) -> None:
        if playouts is None:  # the default budget: what one core does in well under 50 ms
            native = self.native_playouts and available()
            playouts = self.core_playouts if native else PYTHON_PLAYOUTS
            if not native:
                self.wall_orders = 1  # in Python a world costs little more than a play-out
        if playouts < 2:
            raise ValueError("the expert needs at least two play-outs per decision")
        self.rng = rng
        self.seed = rng.getrandbits(64)
        self.playouts = playouts
        self.margin = self.search_margin if margin is None else margin
        self.policy = HeuristicBot(rng)
        self.default: Bot = self.policy
        """Whose choice the search starts from (``prior``)."""
        if self.prior == "learned":
            try:
                self.default = LearnedBot(rng)
            except XuezhanError:  # numpy is missing: the heuristic's choice, as before
                self.default = self.policy
        self.worlds = 0
        """How many worlds the last decision searched (0: it searched none)."""
        self._playout_bots: dict[bool, Bot] | None = None
        self._learned_code = False
        """The compiled play-outs hold the shipped network (``learned_self``, ``learned_others``)."""
        if self.native_playouts:
            prepare_bots()  # the compiled play-outs' tables, before the first decision and its time limit
            if self.learned_self or self.learned_others:
                try:
                    self._learned_code = use_learned_weights(shipped_weights())
                except XuezhanError:  # numpy is missing: the heuristic plays the play-outs
                    self._learned_code = False

    @classmethod
    def use_play_out(cls, loop: PlayOut) -> None:
        """Play the Python play-outs with ``loop`` (the runtime gives its decision loop here)."""
        _play_out[:] = [loop]

    def start_hand(self, seed: int) -> None:
        self.seed = seed & _MASK

    # --- what to search ----------------------------------------------------------------------------
    def candidates(self, view: SeatView, legal: Sequence[Action], choice: Action) -> list[Action]:
        """The actions worth comparing by search (the heuristic's ``choice`` first), or ``[choice]``."""
        kinds = {a.type for a in legal}
        if ActionType.HU in kinds and self.search_wins and view.phase != "turn":
            return [choice, *[a for a in legal if a != choice]]  # the win, and every other answer to the discard
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
        void = view.void
        counts = view.counts
        if void is not None and any(counts[void * 9 : void * 9 + 9]):
            return [choice]  # void tiles go first: the heuristic's order is enough
        hv = HandValue(view)
        by_sh: dict[int, list[Action]] = {}
        for a in discards:
            t = a.tile or 0
            counts[t] -= 1
            by_sh.setdefault(hv.shanten(counts), []).append(a)
            counts[t] += 1
        best = min(by_sh)
        if best > self.search_shanten:
            return [choice]
        out = [choice]
        if best <= 1:
            # the discards that keep the hand closest, by their worth two draws ahead (less their
            # danger late in the wall)
            danger = self.danger_cost(view)

            def worth(a: Action) -> tuple[float, int]:
                t = a.tile or 0
                counts[t] -= 1
                v = hv.value(counts)
                counts[t] += 1
                return (danger(t) - v, t)

            ranked = sorted(by_sh[best], key=worth)
        else:  # further away: the safest first
            threats = self.policy.threats(view)
            visible = view.visible_counts()
            ranked = sorted(by_sh[best],
                            key=lambda a: (self.policy.danger(view, a.tile or 0, threats, visible), a.tile))
        for a in ranked:
            if len(out) >= self.discard_candidates:
                break
            if a not in out:
                out.append(a)
        return out

    def discard(self, view: SeatView, legal: Sequence[Action], choice: Action) -> Action:
        """Ready or one step from ready: the discard that leaves the hand worth most
        (:class:`HandValue`) less its danger; elsewhere the heuristic's ``choice``."""
        discards = [a for a in legal if a.type is ActionType.DISCARD]
        void = view.void
        counts = view.counts
        if len(discards) < 2 or any(a.type is ActionType.GANG for a in legal):
            return choice
        if void is not None and any(counts[void * 9 : void * 9 + 9]):
            return choice
        hv = HandValue(view)
        by_sh: dict[int, list[Action]] = {}
        for a in discards:
            t = a.tile or 0
            counts[t] -= 1
            by_sh.setdefault(hv.shanten(counts), []).append(a)
            counts[t] += 1
        best = min(by_sh)
        if best > 1:
            return choice
        finalists = by_sh[best]
        if choice not in finalists:
            return choice  # the heuristic folds or follows a plan: the search weighs that below
        danger = self.danger_cost(view)

        def worth(a: Action) -> float:
            t = a.tile or 0
            counts[t] -= 1
            v = hv.value(counts)
            counts[t] += 1
            return v - danger(t)

        scored = [(worth(a), a) for a in finalists]
        top = max(v for v, _ in scored)
        ref = next(v for v, a in scored if a == choice)
        if top <= ref + 1e-9:
            return choice
        return next(a for v, a in scored if v == top)

    def danger_cost(self, view: SeatView) -> Callable[[int], float]:
        """The points a discard of each tile is expected to cost in deal-ins, for a hand close
        to ready: ``danger_weight`` ×1 hands a unit of the heuristic's danger once fewer than
        ``defence_live`` tiles are left in the wall, nothing before."""
        if view.live >= self.defence_live or self.danger_weight <= 0:
            return lambda t: 0.0
        threats = self.policy.threats(view)
        visible = view.visible_counts()
        unit = self.danger_weight * self.policy.stake(view)
        return lambda t: unit * self.policy.danger(view, t, threats, visible)

    def world_weights(self, view: SeatView) -> list[list[float]] | None:
        """For each seat, a weight per tile kind for dealing its concealed tiles in a sampled
        world (:func:`~xuezhan.engine.views.sample_world`), or ``None`` (uniform, ``read_worlds``
        off). ``reading`` ``network``: the reading network's weights
        (:func:`xuezhan.bots.reading.hand_weights`). ``discards``: a seat is less likely to hold a
        suit it has been discarding (its void's discards excepted: those say nothing), still less
        a tile it discarded itself, and a seat that let a tile go by without a peng seldom holds a
        pair of it."""
        if not self.read_worlds:
            return None
        if self.reading == "network":
            try:
                weights = hand_weights(view)
            except XuezhanError:  # numpy is missing: uniform worlds
                return None
            # nothing read (no void known, as without 定缺): the uniform worlds, drawn as such
            return weights if any(w != 1.0 for row in weights for w in row) else None
        me = view.seat
        out: list[list[float]] = []
        passed = [0] * 27  # copies of each tile discarded and left in a river (nobody claimed it)
        for o in range(4):
            for t, st in zip(view.river(o), view.river_state(o), strict=True):
                if st == RIVER_OPEN:
                    passed[t] += 1
        for o in range(4):
            w = [1.0] * 27
            if o != me:
                void = view.voids()[o]
                river = view.river(o)
                by_suit = [0, 0, 0]
                for t in river:
                    if t // 9 != void:
                        by_suit[t // 9] += 1
                for t in range(27):
                    w[t] = self.suit_decay ** by_suit[t // 9]
                for t in set(river):
                    w[t] *= self.own_discard
                for t in range(27):
                    if passed[t] and t not in river:
                        w[t] *= self.passed_tile
            out.append(w)
        return out

    suit_decay = 0.9
    """A seat's weight for a suit, per tile of that suit it has discarded (its void's aside)."""
    own_discard = 0.5
    """The weight of a tile a seat has discarded (it kept none of it, as a rule)."""
    passed_tile = 0.8
    """The weight of a tile others discarded and a seat let go by."""

    # --- search ------------------------------------------------------------------------------------
    def evaluate(self, view: SeatView, candidates: Sequence[Action], playouts: int | None = None) -> list[Evaluation]:
        """Each candidate's points for the seat over the same sampled worlds (``candidates[0]``
        is the reference of the differences). Each world is played ``wall_orders`` times, its
        live wall in another order each time but the first; its result is the mean of those, and
        the standard errors are of the worlds' results (the orders of a world are not independent)."""
        budget = self.playouts if playouts is None else playouts
        orders = self.wall_orders
        worlds = max(2, math.ceil(budget / (len(candidates) * orders)))
        rng = random.Random(_mix(self.seed, view.step))
        bots = self.playout_codes(view.seat)
        visible = view.visible_counts()
        weights = self.world_weights(view)
        self.worlds = worlds
        chances = self.ready_chances(view, candidates)
        sums: Sequence[tuple[float, ...]] | None = self.core_search(view, candidates, rng, worlds, visible, weights,
                                                                     bots, chances)
        if sums is None:
            sums = [self.world_sums(view, candidates, rng, visible, weights, bots, chances) for _ in range(worlds)]
        results = [[row[k] / orders for row in sums] for k in range(len(candidates))]
        out = []
        ref = results[0]
        for action, pts in zip(candidates, results, strict=True):
            n = len(pts)
            diffs = [p - r for p, r in zip(pts, ref, strict=True)]
            d = sum(diffs) / n
            var = sum((x - d) ** 2 for x in diffs) / (n - 1)
            out.append(Evaluation(action, sum(pts) / n, d, math.sqrt(var / n), n * orders))
        return out

    def world_sums(self, view: SeatView, candidates: Sequence[Action], rng: random.Random, visible: Sequence[int],
                   weights: list[list[float]] | None, bots: tuple[int, int, int, int],
                   chances: Chances | None = None) -> tuple[float, ...]:
        """One world of :meth:`evaluate` dealt in Python (:meth:`world`, with the decision's ready
        ``chances``) and played ``wall_orders`` times (its live wall as dealt, then reshuffled), in the
        core where it holds the world: each candidate's points for the seat summed over the orders."""
        seat = view.seat
        world = self.world(view, rng, visible, weights, chances)
        state = playout_state(world) if self.native_playouts else None
        seeds = [rng.getrandbits(64) | 1 if r else 0 for r in range(self.wall_orders)]  # 0: the wall as dealt
        rows: list[float]
        if state is not None:
            rows = [d[seat] for d in play_outs(world, state, candidates, bots, seeds)]
        else:
            rows = [self._playout(world.copy(), a, seat, s) for s in seeds for a in candidates]
        n = len(candidates)
        return tuple(sum(rows[k::n]) for k in range(n))

    def core_search(self, view: SeatView, candidates: Sequence[Action], rng: random.Random, worlds: int,
                    visible: Sequence[int], weights: list[list[float]] | None,
                    bots: tuple[int, int, int, int], chances: Chances | None = None) -> list[tuple[int, ...]] | None:
        """The play-outs of :meth:`evaluate` (by the compiled ``bots``) with the worlds dealt in the compiled core too
        (:func:`xuezhan.native.search_worlds`; a win's ready worlds with their hands built here,
        :meth:`ready_hands`): for each world, each candidate's points summed over the wall orders, the
        very numbers of the Python loop (the same draws of the same generator, ``rng``, which it leaves
        as that loop would). ``None``, nothing drawn, where that loop is needed: ``core_worlds`` off,
        play-outs not in the core, :meth:`world` or :meth:`ready_world` overridden, a world the core does not deal
        (:func:`~xuezhan.engine.views.world_deal`) or play."""
        cls = type(self)
        if (not (self.core_worlds and self.native_playouts) or cls.world is not ExpertBot.world
                or cls.ready_world is not ExpertBot.ready_world or not available()):
            return None
        deal = world_deal(view, visible, weights)
        if deal is None:
            return None
        world, words, rates = deal
        state = playout_state(world)
        if state is None:
            return None
        orders = self.wall_orders
        if not chances:
            return search_worlds(world, state, words, rates, rng, worlds, orders, candidates, bots)
        rows: list[tuple[int, ...]] = []
        for _ in range(worlds):
            hands = self.ready_hands(view, rng, visible, chances)
            check = [o for o in chances if o not in hands]
            rows += search_worlds(world, state, words, rates, rng, 1, orders, candidates, bots, hands, check,
                                  BUILD_TRIES)
        return rows

    def ready_chances(self, view: SeatView, candidates: Sequence[Action]) -> Chances:
        """For a win on another's discard searched with ``ready_worlds``: each opponent's chance of
        being ready (the readiness network) and the tiles it let go by since its last discard
        (:func:`~xuezhan.bots.reading.passed_since`); empty elsewhere, before every void is known,
        or without numpy. Opponents whose hand the worlds cannot build (won, shown, a face-down
        kong) are left out."""
        if (not self.ready_worlds or view.phase == "turn" or None in view.voids()
                or not any(a.type is ActionType.HU for a in candidates)):
            return {}
        out: Chances = {}
        for o in range(4):
            if o == view.seat or view.won(o) or view.shown_counts(o) is not None or view.hidden_kongs(o):
                continue
            try:
                chance = ready_probability(view, o)
            except XuezhanError:  # numpy is missing: the reading worlds
                return {}
            out[o] = (chance, passed_since(view, o))
        return out

    def world(self, view: SeatView, rng: random.Random, visible: Sequence[int],
              weights: list[list[float]] | None, chances: Chances | None = None) -> Game:
        """One world of a search: every tile the seat cannot see dealt afresh
        (:func:`~xuezhan.engine.views.sample_world`, by ``weights`` when given; with ``chances``, the
        decision's :meth:`ready_chances` at a win searched with ``ready_worlds``, each of those
        opponents ready or not by its chance). The one place the search's worlds come from, so that a
        yardstick that knows more than a seat may (the oracles of ``benchmarks/oracle_worlds.py``) is
        the same search with other worlds."""
        if chances:
            world = self.ready_world(view, rng, visible, weights, chances)
            if world is not None:
                return world
        return sample_world(view, rng, visible) if weights is None else sample_world(view, rng, visible, weights)

    def ready_hands(self, view: SeatView, rng: random.Random, visible: Sequence[int],
                    chances: Chances) -> dict[int, list[int]]:
        """The hands of a ready world (:meth:`ready_world`): each opponent of ``chances`` ready with its
        chance, its hand built from the unseen copies waiting on none of its tiles to avoid."""
        unseen = [4 - v for v in visible]
        hands: dict[int, list[int]] = {}
        for o, (chance, avoid) in chances.items():
            if rng.random() >= chance:
                continue
            hand = built_ready_hand(unseen, view.concealed_count(o), view.voids()[o], len(view.melds(o)),
                                    suits_of_melds(view.melds(o)), rng, avoid)
            if hand is not None:
                hands[o] = hand
                unseen = [u - h for u, h in zip(unseen, hand, strict=True)]
        return hands

    def ready_world(self, view: SeatView, rng: random.Random, visible: Sequence[int],
                    weights: list[list[float]] | None, chances: Chances) -> Game | None:
        """A world in which each opponent of ``chances`` is ready with its chance (:meth:`ready_hands`)
        and not ready otherwise (:data:`~xuezhan.bots.reading.BUILD_TRIES` worlds tried; the last kept),
        the rest dealt by ``weights``; ``None`` when the built hands leave no room for the rest."""
        hands = self.ready_hands(view, rng, visible, chances)
        world: Game | None = None
        for _ in range(BUILD_TRIES):  # the others are not ready
            try:
                world = sample_world(view, rng, visible, weights, hands)
            except ValueError:  # the built hands leave no room for the rest
                return None
            if not any(world.is_ready(o) for o in chances if o not in hands):
                return world
        return world

    def expected_points(self, view: SeatView, legal: Sequence[Action], playouts: int | None = None) -> list[Evaluation]:
        """Every legal action's expected points for the seat of ``view``: each distinct action of
        ``legal``, in its order, played out over the same sampled worlds as :meth:`evaluate` plays
        its candidates (``playouts`` in all, the bot's budget by default; the first action is the
        reference of the differences). This is the search's own measure of a choice, for every
        choice rather than the few it searches before deciding; :meth:`choose` does not use it."""
        actions = list(dict.fromkeys(legal))
        if not actions:
            raise ValueError("no legal action to evaluate")
        return self.evaluate(view, actions, playouts)

    def playout_codes(self, seat: int) -> tuple[int, int, int, int]:
        """The compiled bots of a play-out by seat (:func:`xuezhan.native.play_outs`)."""
        mine = HEURISTIC_QUICK if self.quick_self else HEURISTIC
        theirs = HEURISTIC_QUICK if self.quick_others else HEURISTIC
        if self._learned_code:
            mine = LEARNED if self.learned_self else mine
            theirs = LEARNED if self.learned_others else theirs
        a, b, c, d = (mine if o == seat else theirs for o in range(4))
        return (a, b, c, d)

    def _playout(self, game: Game, action: Action, seat: int, wall_seed: int = 0) -> float:
        if wall_seed:
            reshuffle_wall(game, wall_seed)
        game.apply(action)
        if not game.over:
            if not _play_out:
                raise RuntimeError("the expert's Python play-outs need the decision loop of xuezhan.runtime, "
                                   "which gives it when it is loaded")
            loop = _play_out[0]
            if self._playout_bots is None:
                self._playout_bots = {q: HeuristicBot(self.rng, quick=q) for q in (False, True)}
            bots = self._playout_bots
            loop(game, [bots[self.quick_self if o == seat else self.quick_others] for o in range(4)])
        return float(game.deltas()[seat])

    def choose(self, view: SeatView, legal: Sequence[Action]) -> Action:
        self.worlds = 0
        if len(legal) == 1:
            return legal[0]
        choice = self.default.choose(view, legal)
        if self.default is self.policy and choice.type is ActionType.DISCARD and view.phase == "turn":
            choice = self.discard(view, legal, choice)
        cands = self.candidates(view, legal, choice)
        if len(cands) < 2:
            return choice
        evals = self.evaluate(view, cands)
        best = max(evals[1:], key=lambda e: e.diff)
        kong = any(a.type is ActionType.GANG for a in cands)
        margin = self.kong_margin if kong and self.kong_margin is not None else self.margin
        if best.diff > 0 and best.diff > margin * best.stderr:
            return best.action
        return choice


class Expert04Bot(ExpertBot):
    """The expert as released in 0.4.0, kept as a yardstick (``expert-0.4``): the same search
    with 0.4.0's knobs, uniform worlds, no defence, a kong on the common margin and 384
    play-outs a searched decision. Its decisions are pinned by a test."""

    name = "expert-0.4"
    core_playouts = PLAYOUTS_0_4
    prior = "heuristic"
    search_margin = 1.5
    learned_self = False
    learned_others = False
    search_shanten = 1
    discard_candidates = 3
    danger_weight = 0.0
    defence_live = 0
    read_worlds = False
    kong_margin = None
    search_wins = False
    ready_worlds = False


class ReadingExpertBot(ExpertBot):
    """The expert with every reading knob on: worlds dealt by the opponents' discards, defence late
    in the wall, kongs on expected points, 768 play-outs. Not yet the default (``expert``): in the
    leagues of docs/bots.md it dealt in less often from a ready hand late in the wall, but gained no
    points over ``expert-0.4`` that a confidence interval would show, at twice the time."""

    name = "expert-reading"
    core_playouts = 2 * PLAYOUTS_0_4
    prior = "heuristic"
    search_margin = 1.5
    learned_self = False
    learned_others = False
    search_shanten = 1
    discard_candidates = 3
    danger_weight = 3.0
    defence_live = 20
    read_worlds = True
    reading = "discards"
    kong_margin = 0.0
    search_wins = False
    ready_worlds = False
