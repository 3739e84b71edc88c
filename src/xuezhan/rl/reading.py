"""Training the reading network (:mod:`xuezhan.bots.reading`) from self-play.

Four seats, each drawn from ``heuristic``, ``learned`` (twice as often) and ``expert-0.4``, play
hands of qq and chengdu in turn through the match runtime. At about one in seven of the seats'
turns and claims, once every void is known, each opponent's holding is read
(:func:`~xuezhan.bots.reading.read_features`) beside what it really holds and the copies the
reading seat has not seen. The network then learns the likelihood of the held tiles: a seat's
concealed tiles drawn from the unseen copies, each kind in proportion to its copies times the
exponential of the network's output (full-batch Adam). Everything is seeded: the same
configuration gives the same weights, bit for bit. ``pip install 'xuezhan[train]'``.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..bots import make_bot
from ..bots.base import Bot
from ..bots.reading import NQ, NR, READ_HIDDEN, READ_SHAPES, READY_HIDDEN, READY_SHAPES, read_features, ready_features
from ..engine.actions import Action
from ..engine.game import Game
from ..engine.views import SeatView
from ..engine.visibility import viewed_state
from ..extras import optional
from ..league.duplicate import play_deal
from ..rules import Rules
from ..runtime import Seat


@dataclass(frozen=True)
class ReadingConfig:
    """What a reading training run does; the defaults made the shipped weights."""

    seed: int = 1
    hands: int = 2400
    """Hands of self-play read (qq and chengdu in turn)."""
    share: float = 0.15
    """The share of the seats' turns and claims at which the opponents' holdings are read."""
    epochs: int = 300
    lr: float = 0.02
    test_share: float = 0.2
    """The last share of the examples, held out to report how well the network predicts."""


@dataclass
class Examples:
    """Read holdings: features ``(N, 27, NR)``, the reader's unseen copies and the held counts ``(N, 27)``;
    for the readiness network, the same holdings' :func:`~xuezhan.bots.reading.ready_features` and
    whether each was ready (1) or not (0)."""

    features: list[Any]
    unseen: list[list[int]]
    held: list[list[int]]
    ready_features: list[Any] = field(default_factory=list)
    ready: list[int] = field(default_factory=list)


class _Reader:
    """A seat that plays as ``inner`` and, now and then, writes down what it could read of each opponent."""

    def __init__(self, inner: Bot, rng: random.Random, share: float, out: Examples) -> None:
        self.inner = inner
        self.name = inner.name
        self.rng = rng
        self.share = share
        self.out = out

    def start_hand(self, seed: int) -> None:
        self.inner.start_hand(seed)

    def choose(self, view: SeatView, legal: Sequence[Action]) -> Action:
        if (view.phase in ("turn", "claim") and self.rng.random() < self.share
                and all(v is not None for v in view.voids())):
            state = viewed_state(view)
            game = Game.from_state(state)
            unseen = [4 - v for v in view.visible_counts()]
            for o in range(4):
                s = state.seats[o]
                if o == view.seat or view.won(o) or s.revealed or view.hidden_kongs(o):
                    continue  # a face-down kong's tiles are not among the unseen copies it counts
                self.out.features.append(read_features(view, o))
                self.out.unseen.append(unseen)
                self.out.held.append(list(s.counts))
                self.out.ready_features.append(ready_features(view, o))
                self.out.ready.append(int(game.is_ready(o)))
        return self.inner.choose(view, legal)


def gather(cfg: ReadingConfig, log: Callable[[str], None] = lambda s: None) -> Examples:
    """Play ``cfg.hands`` hands of self-play and read the opponents' holdings along the way."""
    rng = random.Random(cfg.seed)
    out = Examples([], [], [])
    presets = [Rules.preset("qq"), Rules.preset("chengdu")]
    for deal in range(cfg.hands):
        names = [rng.choice(["heuristic", "learned", "learned", "expert-0.4"]) for _ in range(4)]
        seats = [Seat.of_bot(_Reader(make_bot(n, random.Random(rng.getrandbits(32))), rng, cfg.share, out))
                 for n in names]
        play_deal(cfg.seed, deal, presets[deal % 2], seats)
        if (deal + 1) % 400 == 0:
            log(f"{deal + 1} hands, {len(out.held)} holdings read")
    return out


def _arrays(model: Any, prefix: str) -> dict[str, Any]:
    """The float32 arrays ``{prefix}_w0`` .. ``{prefix}_b1`` of a ``Linear, ReLU, Linear`` model."""
    return {f"{prefix}_w0": model[0].weight.detach().numpy().T.astype(np.float32).copy(),
            f"{prefix}_b0": model[0].bias.detach().numpy().astype(np.float32).copy(),
            f"{prefix}_w1": model[2].weight.detach().numpy().T.astype(np.float32).copy(),
            f"{prefix}_b1": model[2].bias.detach().numpy().astype(np.float32).copy()}


def fit(examples: Examples, cfg: ReadingConfig,
        log: Callable[[str], None] = lambda s: None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The reading network fitted to ``examples``: its arrays (:data:`READ_SHAPES`) and a summary
    (the held-out examples' mean log-loss a held tile, uniform against the network's)."""
    torch = optional("torch", "training needs PyTorch", "train")
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    torch.manual_seed(cfg.seed)
    x = torch.from_numpy(np.asarray(examples.features, dtype=np.float32))
    u = torch.from_numpy(np.asarray(examples.unseen, dtype=np.float32))
    c = torch.from_numpy(np.asarray(examples.held, dtype=np.float32))
    n = len(c)
    cut = max(1, int(n * (1 - cfg.test_share)))
    nn = torch.nn
    model = nn.Sequential(nn.Linear(NR, READ_HIDDEN), nn.ReLU(), nn.Linear(READ_HIDDEN, 1))

    def loss(lo: int, hi: int, uniform: bool = False) -> Any:
        f = torch.zeros(hi - lo, 27) if uniform else model(x[lo:hi])[:, :, 0]
        us = u[lo:hi]
        logit = f + torch.log(us.clamp(min=1e-6)) + torch.where(us > 0, 0.0, -1e9)
        return -(c[lo:hi] * torch.log_softmax(logit, dim=1)).sum() / c[lo:hi].sum().clamp(min=1.0)

    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    for epoch in range(cfg.epochs):
        opt.zero_grad()
        train_loss = loss(0, cut)
        train_loss.backward()
        opt.step()
        if (epoch + 1) % 100 == 0:
            log(f"epoch {epoch + 1}: log-loss {float(train_loss.detach()):.4f} a held tile")
    with torch.no_grad():
        summary = {"examples": n, "held_out": n - cut,
                   "uniform_log_loss": round(float(loss(cut, n, uniform=True)), 4),
                   "log_loss": round(float(loss(cut, n)), 4)}
    arrays = _arrays(model, "r")
    assert {k: v.shape for k, v in arrays.items()} == READ_SHAPES
    return arrays, summary


def fit_ready(examples: Examples, cfg: ReadingConfig,
              log: Callable[[str], None] = lambda s: None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The readiness network fitted to ``examples`` (full-batch Adam on the log-loss of ready or
    not): its arrays (:data:`READY_SHAPES`) and a summary (the held-out examples' share ready, the
    log-loss of that share for everyone against the network's, and the network's calibration:
    the share ready among the held-out examples it gives under 0.1, 0.1 to 0.5, 0.5 to 0.9, 0.9 and
    more)."""
    torch = optional("torch", "training needs PyTorch", "train")
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    torch.manual_seed(cfg.seed)
    x = torch.from_numpy(np.asarray(examples.ready_features, dtype=np.float32).reshape(-1, NQ))
    y = torch.tensor(examples.ready, dtype=torch.float32)
    n = len(y)
    cut = max(1, int(n * (1 - cfg.test_share)))
    nn = torch.nn
    model = nn.Sequential(nn.Linear(NQ, READY_HIDDEN), nn.ReLU(), nn.Linear(READY_HIDDEN, 1))
    bce = nn.BCEWithLogitsLoss()
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    for epoch in range(cfg.epochs):
        opt.zero_grad()
        train_loss = bce(model(x[:cut])[:, 0], y[:cut])
        train_loss.backward()
        opt.step()
        if (epoch + 1) % 100 == 0:
            log(f"epoch {epoch + 1}: log-loss {float(train_loss.detach()):.4f}")
    with torch.no_grad():
        held = y[cut:]
        rate = float(held.mean()) if n > cut else 0.0
        p = torch.sigmoid(model(x[cut:])[:, 0])
        base = torch.full_like(held, min(max(rate, 1e-6), 1 - 1e-6))
        bins = {}
        for lo, hi in ((0.0, 0.1), (0.1, 0.5), (0.5, 0.9), (0.9, 1.01)):
            k = (p >= lo) & (p < hi)
            bins[f"{lo:g}-{min(hi, 1.0):g}"] = {"examples": int(k.sum()),
                                                "predicted": round(float(p[k].mean()), 4) if k.any() else None,
                                                "ready": round(float(held[k].mean()), 4) if k.any() else None}
        def log_loss(q: Any) -> float | None:
            return round(float(nn.functional.binary_cross_entropy(q, held)), 4) if n > cut else None

        summary = {"examples": n, "held_out": n - cut, "ready_share": round(rate, 4),
                   "base_log_loss": log_loss(base), "log_loss": log_loss(p), "calibration": bins}
    arrays = _arrays(model, "q")
    assert {k: v.shape for k, v in arrays.items()} == READY_SHAPES
    return arrays, summary


def train_ready(cfg: ReadingConfig,
                log: Callable[[str], None] = lambda s: None) -> tuple[dict[str, Any], dict[str, Any]]:
    """Gather self-play holdings as :func:`train_reading` does and fit the readiness network: its
    arrays and a summary."""
    started = time.process_time()
    examples = gather(cfg, log)
    arrays, summary = fit_ready(examples, cfg, log)
    summary["cpu_seconds"] = round(time.process_time() - started, 1)
    return arrays, summary


def train_reading(cfg: ReadingConfig,
                  log: Callable[[str], None] = lambda s: None) -> tuple[dict[str, Any], dict[str, Any]]:
    """Gather self-play holdings and fit the reading network: its arrays and a summary."""
    started = time.process_time()
    examples = gather(cfg, log)
    arrays, summary = fit(examples, cfg, log)
    summary["cpu_seconds"] = round(time.process_time() - started, 1)
    return arrays, summary
