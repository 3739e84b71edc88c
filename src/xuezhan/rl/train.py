"""Training the learned bot's network (``pip install 'xuezhan[train]'``): :func:`train`.

Two stages, both on hands played through the match runtime (:func:`~xuezhan.league.duplicate.play_deal`),
and a third, off by default:

1. **Imitation.** Four ``teacher`` seats (``expert-0.4`` by default, :data:`TEACHERS`) play
   ``imitation_hands`` hands; every decision with a choice gives its table summary and action
   rows (:func:`xuezhan.bots.learned.features`) and the action taken. The network learns to
   score the teacher's action highest (cross-entropy over the legal actions) and the value head
   the seat's points of the hand, in ×1 hands.
2. **Reinforcement.** ``rl_iterations`` rounds of clipped policy gradient (PPO, ``rl_epochs``
   passes a round). In each round ``rl_deals`` deals are each played ``rl_samples`` times by the
   current network, sampling its actions (softmax of the scores), at two seats against an
   opponent at the other two, taken in turn from the league of ``heuristic`` and the network's
   earlier versions (one kept every ``snapshot_every`` rounds). An action's advantage is its
   hand's points minus the seat's mean over the plays of the same deal, so the luck of the
   tiles cancels; an entropy bonus keeps exploring; the value head follows the points.
3. **Improvement by play-outs** (``improve_rounds``, 0 by default). The network plays
   ``improve_hands`` hands greedily at two seats against ``heuristic``; at a share
   (``improve_share``) of its decisions its best ``improve_candidates`` actions are each played
   to the end of the hand on ``improve_orders`` common orders of the wall (the real hidden
   tiles, heuristic seats after the decision), and the scorer learns to prefer the better ones
   (:func:`_improve`), held near where it started by ``improve_kl``. ``workers`` processes play
   the hands; with ``improve_core`` the compiled core plays the play-outs (the network at its own
   seats, the heuristic at the others), many times as many in the time. docs/bots.md has
   what it gained: nothing a confidence interval shows.

Everything is seeded from ``seed`` (the deals, the sampling, the initial weights); PyTorch runs
on one thread with deterministic algorithms, so the same configuration gives the same weights,
bit for bit, on the same machine. The expert's choices are those of an install with the compiled
core built (without it the expert searches fewer worlds, so the data and the weights differ).
:func:`save_weights` writes the ``.npz`` that
:class:`~xuezhan.bots.learned.LearnedBot` plays. ``scripts/train_learned.py`` is the command line.

Long: the three stages are one run, in one order, on one model and one generator; apart they
would pass those between modules and the bit-for-bit reproduction would hang on that handing on.
"""

from __future__ import annotations

import json
import math
import os
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np

from .. import native
from ..bots import make_bot
from ..bots.base import Bot
from ..bots.heuristic import HeuristicBot
from ..bots.learned import FORMAT, HIDDEN, NA, NT, SHAPES, LearnedBot, LearnedNet, features, load_weights
from ..engine.actions import Action
from ..engine.game import Game
from ..engine.views import SeatView, reshuffle_wall
from ..errors import XuezhanError
from ..extras import optional
from ..ids import ErrorCode
from ..league.duplicate import play_deal
from ..rules import Rules
from ..runtime import HandDriver, Seat
from ..scale import Shard, map_shards, shards
from ..scoring import hand_points


def _torch() -> Any:
    return optional("torch", "training needs PyTorch", "train")


@dataclass(frozen=True)
class TrainConfig:
    """What a training run does; the defaults made the shipped weights."""

    seed: int = 1
    rules: tuple[str, ...] = ("qq", "chengdu")
    """The presets the hands are played under, in turn."""
    teacher: str = "expert-0.4"
    """Whose choices the imitation learns (:data:`TEACHERS`): ``expert-0.4`` (the search over the
    heuristic that taught the shipped weights, then called ``expert``), ``expert`` or ``heuristic``."""
    imitation_hands: int = 2500
    imitation_epochs: int = 10
    rl_iterations: int = 200
    rl_deals: int = 60
    """Deals in each round of reinforcement (each played ``rl_samples`` times)."""
    rl_samples: int = 4
    """Plays of each deal with the same seats: the mean of a seat's results over them is its baseline."""
    rl_epochs: int = 3
    """Passes over each round's decisions."""
    clip: float = 0.2
    """How far one round may move an action's probability (PPO's clip)."""
    snapshot_every: int = 25
    batch: int = 256
    lr: float = 2e-3
    rl_lr: float = 3e-4
    entropy: float = 0.003
    value_weight: float = 0.5
    gae_lambda: float = 1.0
    """Credit for each decision: 1 (the shipped weights) gives every decision of a hand the hand's
    points less the seat's mean over the plays of its deal; below 1, the value head's estimates
    after each decision share the credit (generalised advantage estimation with this λ, the hand's
    points as the last value), so a decision answers mostly for what followed it soon."""
    init: str = ""
    """A weights file to start from instead of fresh weights (with ``imitation_hands`` 0: reinforcement only)."""
    improve_rounds: int = 0
    """Rounds of policy improvement by play-outs after the reinforcement (0: none)."""
    improve_hands: int = 3000
    """Hands played by the network (greedy, at two seats against ``heuristic``) in each round of improvement."""
    improve_share: float = 0.3
    """The share of the network's decisions with a choice that are played out."""
    improve_candidates: int = 4
    """The actions played out at such a decision: the network's best ones (and, three times in ten, one other)."""
    improve_orders: int = 8
    """Play-outs of each candidate, each with the live wall in another order (the same orders for every candidate)."""
    improve_epochs: int = 8
    improve_lr: float = 1e-3
    improve_kl: float = 0.02
    """The weight of the network's divergence from the round's starting point (KL) in the improvement's loss."""
    improve_core: bool = False
    """Play the improvement's play-outs on the compiled core (:func:`xuezhan.native.play_outs`): the
    network of the round at its own seats (the core's learned bot), the core's heuristic at the
    others; many times the play-outs a decision in the time (docs/bots.md). Off: the match runtime in Python."""


@dataclass
class Decision:
    """One decision with a choice: the table summary, the action rows, the action taken, its advantage."""

    table: list[float]
    rows: list[list[float]]
    taken: int
    seat: int
    ret: float = 0.0
    """The seat's points of the whole hand, in ×1 hands."""
    advantage: float = 0.0
    play: int = -1
    """Which play of a deal the decision was made in (its seat's decisions of one play, in order,
    make the sequence that :attr:`TrainConfig.gae_lambda` credits)."""


Picker = Callable[[SeatView, Sequence[Action], list[float], list[list[float]]], int]
"""Chooses the index of the action to take from the view, the legal actions and their features."""


class Recorder:
    """A seat that records its decisions with a choice; ``inner`` (a bot) or ``pick`` chooses."""

    def __init__(self, name: str, *, inner: Bot | None = None, pick: Picker | None = None) -> None:
        self.name = name
        self.inner = inner
        self.pick = pick
        self.decisions: list[Decision] = []

    def start_hand(self, seed: int) -> None:
        if self.inner is not None:
            self.inner.start_hand(seed)

    def choose(self, view: SeatView, legal: Sequence[Action]) -> Action:
        if self.inner is not None:
            chosen = self.inner.choose(view, legal)
            if len(legal) > 1:
                table, rows = features(view, legal)
                self.decisions.append(Decision(table, rows, legal.index(chosen), view.seat))
            return chosen
        if len(legal) == 1:
            return legal[0]
        assert self.pick is not None
        table, rows = features(view, legal)
        i = self.pick(view, legal, table, rows)
        self.decisions.append(Decision(table, rows, i, view.seat))
        return legal[i]


def _sampler(net: LearnedNet, rng: random.Random) -> Picker:
    def pick(view: SeatView, legal: Sequence[Action], table: list[float], rows: list[list[float]]) -> int:
        scores = net.scores(table, rows)
        top = max(scores)
        weights = [math.exp(s - top) for s in scores]
        return rng.choices(range(len(scores)), weights=weights)[0]

    return pick


def _play(seats: Sequence[Bot], recorders: Sequence[Recorder], match_seed: int, deal_no: int,
          rules: Rules) -> list[int]:
    """Play one deal; give the decisions it recorded their seat's points (``ret``, in ×1 hands); the deltas."""
    marks = [len(r.decisions) for r in recorders]
    game = play_deal(match_seed, deal_no, rules, [Seat.of_bot(b) for b in seats])
    deltas = list(game.deltas())
    stake = float(hand_points(rules, 1))
    for r, m in zip(recorders, marks, strict=True):
        for d in r.decisions[m:]:
            d.ret = deltas[d.seat] / stake
    return deltas


TEACHERS: Final = ("expert-0.4", "expert", "heuristic")
"""The bots whose choices the imitation may learn (by name, :data:`xuezhan.bots.BOTS`)."""


def _teacher(name: str, seed: int) -> Bot:
    if name not in TEACHERS:
        raise ValueError(f"unknown teacher {name!r}: one of {', '.join(TEACHERS)}")
    return make_bot(name, random.Random(seed))


class Model:
    """The torch twin of :class:`~xuezhan.bots.learned.LearnedNet` (same layers, same shapes)."""

    def __init__(self, torch: Any, seed: int) -> None:
        torch.manual_seed(seed)
        nn = torch.nn
        self.torch = torch
        self.scorer = nn.Sequential(nn.Linear(NT + NA, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, HIDDEN), nn.ReLU(),
                                    nn.Linear(HIDDEN, 1))
        self.value = nn.Sequential(nn.Linear(NT, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, 1))

    def parameters(self) -> list[Any]:
        return [*self.scorer.parameters(), *self.value.parameters()]

    def logits(self, tables: Any, rows: Any, mask: Any) -> Any:
        """``(N, K)`` scores, −inf where ``mask`` is false."""
        n, k, _ = rows.shape
        x = self.torch.cat([tables[:, None, :].expand(n, k, NT), rows], dim=2)
        out = self.scorer(x)[:, :, 0]
        return out.masked_fill(~mask, float("-inf"))

    def load(self, arrays: dict[str, Any]) -> None:
        """Take the weights of ``arrays`` (as :meth:`arrays` gives them)."""
        torch = self.torch
        s, v = self.scorer, self.value
        with torch.no_grad():
            for prefix, net, idx in (("s", s, (0, 2, 4)), ("v", v, (0, 2))):
                for k, i in enumerate(idx):
                    net[i].weight.copy_(torch.from_numpy(arrays[f"{prefix}_w{k}"].T.copy()))
                    net[i].bias.copy_(torch.from_numpy(arrays[f"{prefix}_b{k}"].copy()))

    def arrays(self) -> dict[str, Any]:
        """The weights as :data:`~xuezhan.bots.learned.SHAPES` arrays (float32)."""
        s, v = self.scorer, self.value
        layers = {"s_w0": s[0], "s_w1": s[2], "s_w2": s[4], "v_w0": v[0], "v_w1": v[2]}
        out: dict[str, Any] = {}
        for name, layer in layers.items():
            out[name] = layer.weight.detach().numpy().T.astype(np.float32).copy()
            out["s_b" + name[3:] if name[0] == "s" else "v_b" + name[3:]] = (
                layer.bias.detach().numpy().astype(np.float32).copy())
        assert {k: out[k].shape for k in SHAPES} == SHAPES
        return out


def _batch(torch: Any, decisions: Sequence[Decision]) -> tuple[Any, Any, Any, Any, Any]:
    k = max(len(d.rows) for d in decisions)
    n = len(decisions)
    tables = np.zeros((n, NT), dtype=np.float32)
    rows = np.zeros((n, k, NA), dtype=np.float32)
    mask = np.zeros((n, k), dtype=bool)
    for i, d in enumerate(decisions):
        tables[i] = d.table
        rows[i, : len(d.rows)] = d.rows
        mask[i, : len(d.rows)] = True
    taken = np.array([d.taken for d in decisions], dtype=np.int64)
    rets = np.array([d.ret for d in decisions], dtype=np.float32)
    return (torch.from_numpy(tables), torch.from_numpy(rows), torch.from_numpy(mask), torch.from_numpy(taken),
            torch.from_numpy(rets))


def _imitate(model: Model, decisions: list[Decision], cfg: TrainConfig, rng: random.Random,
             log: Callable[[str], None]) -> float:
    """Fit the scorer to the heuristic's choices and the value head to the points; the last epoch's top-1."""
    torch = model.torch
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    order = list(range(len(decisions)))
    acc = 0.0
    for epoch in range(cfg.imitation_epochs):
        rng.shuffle(order)
        hits = 0
        for at in range(0, len(order), cfg.batch):
            part = [decisions[i] for i in order[at : at + cfg.batch]]
            tables, rows, mask, taken, rets = _batch(torch, part)
            logits = model.logits(tables, rows, mask)
            loss = torch.nn.functional.cross_entropy(logits, taken)
            value = model.value(tables)[:, 0]
            loss = loss + cfg.value_weight * torch.nn.functional.smooth_l1_loss(value, rets)
            opt.zero_grad()
            loss.backward()
            opt.step()
            hits += int((logits.argmax(dim=1) == taken).sum())
        acc = hits / max(len(order), 1)
        log(f"imitation epoch {epoch + 1}: top-1 {acc:.3f}")
    return acc


def _reinforce(model: Model, decisions: list[Decision], cfg: TrainConfig, opt: Any, rng: random.Random) -> None:
    """Clipped policy-gradient steps (PPO) on one round's decisions; the value head follows the points."""
    torch = model.torch
    with torch.no_grad():
        tables, rows, mask, taken, _ = _batch(torch, decisions)
        old = torch.log_softmax(model.logits(tables, rows, mask), dim=1).gather(1, taken[:, None])[:, 0]
        if cfg.gae_lambda < 1.0:
            _credit(decisions, model.value(tables)[:, 0].tolist(), cfg.gae_lambda)
    advantages = torch.tensor([d.advantage for d in decisions], dtype=torch.float32)
    advantages = advantages / (advantages.std() + 1e-6)
    order = list(range(len(decisions)))
    for _ in range(cfg.rl_epochs):
        rng.shuffle(order)
        for at in range(0, len(order), cfg.batch):
            part = order[at : at + cfg.batch]
            tables, rows, mask, taken, rets = _batch(torch, [decisions[i] for i in part])
            logp = torch.log_softmax(model.logits(tables, rows, mask), dim=1)
            ratio = torch.exp(logp.gather(1, taken[:, None])[:, 0] - old[part])
            adv = advantages[part]
            policy = -torch.min(ratio * adv, ratio.clamp(1 - cfg.clip, 1 + cfg.clip) * adv).mean()
            entropy = -(logp.exp() * logp.masked_fill(~mask, 0.0)).sum(dim=1).mean()
            value = model.value(tables)[:, 0]
            loss = policy - cfg.entropy * entropy + cfg.value_weight * torch.nn.functional.smooth_l1_loss(value, rets)
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()


def _credit(decisions: Sequence[Decision], values: Sequence[float], lam: float) -> None:
    """Set each decision's advantage by generalised advantage estimation over its seat's decisions
    of one play: the value head's estimate after a decision less the one before it, discounted by
    ``lam`` a decision, the hand's points standing for the value after the last one."""
    seqs: dict[tuple[int, int], list[int]] = {}
    for i, d in enumerate(decisions):
        seqs.setdefault((d.play, d.seat), []).append(i)
    for idx in seqs.values():
        acc = 0.0
        after = decisions[idx[-1]].ret
        for i in reversed(idx):
            acc = after - values[i] + lam * acc
            decisions[i].advantage = acc
            after = values[i]


@dataclass
class Label:
    """A decision played out: the table summary, the action rows, the candidates (indices of
    ``rows``) and each one's mean points for the seat over the play-outs, in ×1 hands."""

    table: list[float]
    rows: list[list[float]]
    candidates: list[int]
    points: list[float]


IMPROVE_SHARD: Final = 50
"""Hands per shard of a round of improvement: the labels never depend on the workers."""


class _Labeller:
    """A seat of the network that plays its best action and, at a share of its decisions, plays
    each candidate to the end of the hand over the same wall orders: the hand's other seats as
    they sit (the network's greedy, the heuristic's), the hidden tiles as they really lie. With
    ``improve_core`` the compiled core plays them (``core_bots``: its learned bot with the round's
    weights, whose sums run in another order than numpy's, and its heuristic, the Python one's
    twin), in Python where the core cannot play the hand on."""

    name = "learned"

    def __init__(self, net: LearnedNet, cfg: TrainConfig, rng: random.Random, game: Game, mine: tuple[int, ...],
                 opponent: Bot, stake: float) -> None:
        self.net, self.cfg, self.rng, self.game, self.mine = net, cfg, rng, game, mine
        self.stake = stake
        self.greedy: Bot = LearnedBot(arrays=net.arrays)
        self.opponent = opponent
        self.labels: list[Label] = []
        self.core_bots: tuple[int, ...] | None = None
        if cfg.improve_core:
            if not native.use_learned_weights(net.arrays):
                raise XuezhanError(ErrorCode.NATIVE_UNAVAILABLE, "improve_core needs the compiled core")
            self.core_bots = tuple(native.LEARNED if o in mine else native.HEURISTIC for o in range(4))

    def start_hand(self, seed: int) -> None:
        pass

    def _play_out(self, action: Action, seat: int, wall_seed: int) -> float:
        g = self.game.copy()
        reshuffle_wall(g, wall_seed)
        g.apply(action)
        if not g.over:
            HandDriver(g, [Seat.of_bot(self.greedy if o in self.mine else self.opponent) for o in range(4)]).run()
        return g.deltas()[seat] / self.stake

    def choose(self, view: SeatView, legal: Sequence[Action]) -> Action:
        table, rows = features(view, legal)
        scores = self.net.scores(table, rows)
        best = max(range(len(scores)), key=scores.__getitem__)
        cfg, rng = self.cfg, self.rng
        if rng.random() < cfg.improve_share:
            order = sorted(range(len(scores)), key=lambda i: -scores[i])
            cands = order[: cfg.improve_candidates]
            if len(order) > len(cands) and rng.random() < 0.3:
                cands.append(rng.choice(order[len(cands):]))
            points = [0.0] * len(cands)
            seeds = [rng.getrandbits(64) | 1 for _ in range(cfg.improve_orders)]
            bots = self.core_bots
            state = None if bots is None else native.playout_state(self.game)
            if bots is not None and state is not None:
                deltas = native.play_outs(self.game, state, [legal[i] for i in cands], bots, seeds)
                for k, row in enumerate(deltas):
                    points[k % len(cands)] += row[view.seat] / self.stake
            else:
                for wall_seed in seeds:
                    for j, i in enumerate(cands):
                        points[j] += self._play_out(legal[i], view.seat, wall_seed)
            self.labels.append(Label(table, rows, cands, [p / cfg.improve_orders for p in points]))
        return legal[best]


@dataclass(frozen=True)
class _LabelShard:
    """Plays the hands of one shard of an improvement round (picklable: it may run in another process)."""

    arrays: dict[str, Any]
    cfg: TrainConfig
    round: int

    def __call__(self, shard: Shard) -> list[Label]:
        net = LearnedNet(self.arrays)
        presets = [Rules.preset(name) for name in self.cfg.rules]
        opponent = HeuristicBot(random.Random(0))
        labels: list[Label] = []
        for hand in shard:
            seed = ((self.cfg.seed * 1_000_003 + self.round) * 1_000_003 + hand) & (2**63 - 1)
            rules = presets[hand % len(presets)]
            game = Game.new(rules, seed=seed)
            mine = (0, 2) if hand // len(presets) % 2 == 0 else (1, 3)
            seat = _Labeller(net, self.cfg, random.Random(seed), game, mine, opponent,
                             float(hand_points(rules, 1)))
            HandDriver(game, [Seat.of_bot(seat if o in mine else opponent) for o in range(4)]).run()
            labels.extend(seat.labels)
        return labels


def _improve(model: Model, labels: Sequence[Label], cfg: TrainConfig, rng: random.Random,
             log: Callable[[str], None]) -> float:
    """Move the network towards the candidates that played out best: maximise the expected gain
    of its choice among each decision's candidates (linear in the play-outs' noisy means), less
    ``improve_kl`` times its divergence from where the round started. The last epoch's gain of
    its greedy choice over the candidates' mean, in ×1 hands."""
    torch = model.torch
    n = len(labels)
    k = max(len(x.rows) for x in labels)
    kc = max(len(x.candidates) for x in labels)
    tables = np.zeros((n, NT), dtype=np.float32)
    rows = np.zeros((n, k, NA), dtype=np.float32)
    mask = np.zeros((n, k), dtype=bool)
    cands = np.zeros((n, kc), dtype=np.int64)
    cmask = np.zeros((n, kc), dtype=bool)
    gains = np.zeros((n, kc), dtype=np.float32)
    for i, x in enumerate(labels):
        tables[i] = x.table
        rows[i, : len(x.rows)] = x.rows
        mask[i, : len(x.rows)] = True
        mean = sum(x.points) / len(x.points)
        for j, (c, p) in enumerate(zip(x.candidates, x.points, strict=True)):
            cands[i, j] = c
            cmask[i, j] = True
            gains[i, j] = max(-20.0, min(20.0, p - mean))
    t, r, m, c, cm, a = (torch.from_numpy(v) for v in (tables, rows, mask, cands, cmask, gains))
    with torch.no_grad():
        old = torch.log_softmax(model.logits(t, r, m), dim=1)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.improve_lr)
    order = list(range(n))
    gain = 0.0
    for epoch in range(cfg.improve_epochs):
        rng.shuffle(order)
        for at in range(0, n, cfg.batch):
            b = torch.tensor(order[at : at + cfg.batch])
            logits = model.logits(t[b], r[b], m[b])
            logp = torch.log_softmax(logits, dim=1)
            within = logits.gather(1, c[b]).masked_fill(~cm[b], float("-inf"))
            expected = (torch.softmax(within, dim=1) * a[b]).sum(dim=1).mean()
            kl = (old[b].exp() * (old[b] - logp).masked_fill(~m[b], 0.0)).sum(dim=1).mean()
            loss = -expected + cfg.improve_kl * kl
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
        with torch.no_grad():
            within = model.logits(t, r, m).gather(1, c).masked_fill(~cm, float("-inf"))
            gain = float(a.gather(1, within.argmax(dim=1)[:, None]).mean())
        log(f"improvement epoch {epoch + 1}: greedy gain {gain:+.4f} ×1 hands a decision")
    return gain


def train(cfg: TrainConfig, log: Callable[[str], None] = lambda s: None,
          checkpoint: Callable[[str, dict[str, Any]], None] | None = None,
          workers: int = 1) -> tuple[dict[str, Any], dict[str, Any]]:
    """Train a network by ``cfg``: its weights (:data:`~xuezhan.bots.learned.SHAPES` arrays) and a summary.
    ``checkpoint``, when given, receives the weights after the imitation (``"imitation"``), at
    each snapshot (``"round-N"``) and after each round of improvement (``"improve-N"``).
    ``workers`` processes play the improvement's hands (the weights do not depend on how many).
    The summary's ``cpu_seconds`` are this process's (not the workers'); ``wall_seconds`` the whole run's."""
    if cfg.improve_rounds and cfg.improve_core and not native.available():  # before hours of training
        raise XuezhanError(ErrorCode.NATIVE_UNAVAILABLE,
                           f"improve_core needs the compiled core ({native.why_unavailable()})")
    torch = _torch()
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    rng = random.Random(cfg.seed)
    presets = [Rules.preset(name) for name in cfg.rules]
    model = Model(torch, cfg.seed)
    if cfg.init:
        model.load(load_weights(cfg.init))
    started = time.process_time()
    wall = time.perf_counter()
    # imitation: the deals of match seed*1000, the teacher at every seat
    imitators = [Recorder(cfg.teacher, inner=_teacher(cfg.teacher, cfg.seed * 10 + s)) for s in range(4)]
    for deal in range(cfg.imitation_hands):
        _play(imitators, imitators, cfg.seed * 1000, deal, presets[deal % len(presets)])
        if (deal + 1) % 250 == 0:
            log(f"imitation: {deal + 1} hands ({time.process_time() - started:.0f} s)")
    decisions = [d for r in imitators for d in r.decisions]
    log(f"imitation: {cfg.imitation_hands} hands, {len(decisions)} decisions ({time.process_time() - started:.0f} s)")
    top1 = _imitate(model, decisions, cfg, rng, log) if decisions else 0.0
    if checkpoint is not None:
        checkpoint("imitation", model.arrays())
    # reinforcement: the network at seats 0 and 2 (or 1 and 3) against the league, each deal played
    # rl_samples times with the same seats: a seat's baseline is its mean over those plays
    opt = torch.optim.Adam(model.parameters(), lr=cfg.rl_lr)
    league: list[Bot] = [HeuristicBot(random.Random(0))]
    deal = 0
    rl_points: list[float] = []
    for it in range(cfg.rl_iterations):
        net = LearnedNet(model.arrays())
        learner = Recorder("learner", pick=_sampler(net, random.Random(rng.getrandbits(64))))
        total = 0.0
        seat_hands = 0
        for k in range(cfg.rl_deals):
            opponent = league[k % len(league)]
            seats: list[Bot] = [learner, opponent, learner, opponent] if deal % 2 == 0 else \
                [opponent, learner, opponent, learner]
            mine = [s for s in range(4) if seats[s] is learner]
            rules = presets[deal % len(presets)]
            first = len(learner.decisions)
            results = {s: 0.0 for s in mine}
            for sample in range(cfg.rl_samples):
                mark = len(learner.decisions)
                deltas = _play(seats, [learner], cfg.seed * 1000 + 1, deal, rules)
                for d in learner.decisions[mark:]:
                    d.play = deal * cfg.rl_samples + sample
                stake = float(hand_points(rules, 1))
                for s in mine:
                    results[s] += deltas[s] / stake / cfg.rl_samples
                    total += deltas[s] / stake
                seat_hands += len(mine)
            for d in learner.decisions[first:]:
                d.advantage = d.ret - results[d.seat]
            deal += 1
        _reinforce(model, learner.decisions, cfg, opt, rng)
        rl_points.append(total / max(seat_hands, 1))
        log(f"round {it + 1}: {len(learner.decisions)} decisions, {rl_points[-1]:+.3f} ×1 hands a seat-hand "
            f"({time.process_time() - started:.0f} s)")
        if cfg.snapshot_every and (it + 1) % cfg.snapshot_every == 0:
            league.append(LearnedBot(arrays=model.arrays()))  # an earlier version, playing greedily
            if checkpoint is not None:
                checkpoint(f"round-{it + 1}", model.arrays())
    # improvement: the network's decisions played out, candidate by candidate, on the same walls
    improve_labels: list[int] = []
    improve_gains: list[float] = []
    for it in range(cfg.improve_rounds):
        job = _LabelShard(model.arrays(), cfg, it)
        labels = [x for part in map_shards(job, shards(cfg.improve_hands, IMPROVE_SHARD), workers=workers)
                  for x in part]
        log(f"improvement round {it + 1}: {cfg.improve_hands} hands, {len(labels)} decisions played out "
            f"({time.perf_counter() - wall:.0f} s)")
        improve_labels.append(len(labels))
        improve_gains.append(round(_improve(model, labels, cfg, rng, log), 4) if labels else 0.0)
        if checkpoint is not None:
            checkpoint(f"improve-{it + 1}", model.arrays())
    summary = {"imitation_decisions": len(decisions), "imitation_top1": round(top1, 4),
               "rl_points_per_round": [round(p, 4) for p in rl_points],
               "improve_decisions": improve_labels, "improve_greedy_gain": improve_gains,
               "cpu_seconds": round(time.process_time() - started, 1),
               "wall_seconds": round(time.perf_counter() - wall, 1)}
    return model.arrays(), summary


def check_writable(folder: str | Path) -> None:
    """``folder`` is, or can be made, a folder this process may write in (``unwritable`` otherwise):
    a training script asks before it trains, not after."""
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise XuezhanError(ErrorCode.UNWRITABLE, f"cannot write in {folder}: {exc.strerror or exc}") from None
    if not os.access(folder, os.W_OK):
        raise XuezhanError(ErrorCode.UNWRITABLE, f"cannot write in {folder}")


def save_arrays(arrays: dict[str, Any], path: str | Path, shapes: dict[str, tuple[int, ...]],
                manifest: dict[str, Any] | None = None) -> None:
    """Write the arrays named by ``shapes``, in its order, as a weights file (``.npz``) and, given one,
    its manifest beside it (``.json``); ``unwritable`` if either cannot be written. The reader is
    :func:`xuezhan.bots.learned.load_arrays`."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as fh:
            np.savez(fh, **{k: arrays[k] for k in shapes})
        if manifest is not None:
            path.with_suffix(".json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n",
                                                 encoding="utf-8")
    except OSError as exc:
        raise XuezhanError(ErrorCode.UNWRITABLE, f"cannot write {path}: {exc.strerror or exc}") from None


def save_weights(arrays: dict[str, Any], path: str | Path, manifest: dict[str, Any] | None = None) -> None:
    """Write ``arrays`` as a learned weights file (``.npz``) and, given one, its manifest beside it (``.json``)."""
    save_arrays(arrays, path, SHAPES, None if manifest is None else {"format": FORMAT, **manifest})


def config_json(cfg: TrainConfig) -> dict[str, Any]:
    """``cfg`` as JSON."""
    out = asdict(cfg)
    out["rules"] = list(cfg.rules)
    return out
