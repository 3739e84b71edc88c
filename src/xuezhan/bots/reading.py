"""Reading the opponents' hands: how likely each seat holds each tile kind, and how likely it is
ready (听牌), from what the table shows.

The expert's search deals the tiles it cannot see afresh in every world
(:func:`xuezhan.engine.views.sample_world`); dealt uniformly, an opponent that has thrown
bamboo all hand is as likely to hold bamboo as anything else. A small network, trained by the
project on self-play (:mod:`xuezhan.rl.reading`), reads for each opponent and each tile kind
what that seat's river, melds and void say (:data:`READ_FEATURES`) and gives a weight; the
opponent's concealed tiles are then dealt in proportion to the unseen copies of each kind times
its weight (:func:`hand_weights`). The weights ship with the package
(``weights/reading-1.npz``, its manifest ``reading-1.json``: the command, seed and data that made
them and how much better than uniform they predict the hands held). Inference needs numpy only.

A second small network reads whether an opponent is ready (:func:`ready_probability`, from the
same features of every tile kind and a summary of the table, :data:`READY_SUMMARY`; weights
``weights/ready-1.npz``). A weight per tile kind cannot make a world's hand ready; the expert's
search deals an opponent a ready hand (:func:`built_ready_hand`) with the probability it gives.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from ..engine.game import RIVER_OPEN, Game
from ..engine.views import SeatView
from ..engine.visibility import viewed_state
from ..extras import optional
from ..hand import winning_tiles
from ..ids import EventKind
from .learned import load_arrays

READING_WEIGHTS: Final = Path(__file__).resolve().parent / "weights" / "reading-1.npz"
"""The shipped weights of the reading network (its manifest: the same name with ``.json``)."""
READING_FORMAT: Final = "xuezhan-reading-1"

READ_FEATURES: Final = (
    "one", "discarded", "suit_discarded", "neighbours_discarded", "second_neighbours_discarded", "suit_early",
    "void_done", "void_held", "suit_melded", "passed", "terminal", "middle", "suit_recent", "suit_discarded_late",
)
"""What one seat's holding of one tile kind is read from: a constant; copies of the kind the seat
discarded; tiles of its suit the seat discarded (its void's aside) / 5; copies of the ranks one
and two away it discarded; its suit among the seat's first five discards / 3; the suit is the
seat's void and it has finished throwing it (its last discard is of another suit), or not yet;
the seat has a meld of the suit; copies others discarded that lie open (the seat let them go
by); a terminal rank (1 or 9), a middle one (4 to 6); the suit among the seat's last three
discards / 3; the suit's discards / 5 times the river's length / 12."""
NR: Final = len(READ_FEATURES)
READ_HIDDEN: Final = 32
READ_SHAPES: Final = {"r_w0": (NR, READ_HIDDEN), "r_b0": (READ_HIDDEN,), "r_w1": (READ_HIDDEN, 1), "r_b1": (1,)}
"""The arrays of a reading weights file: ``features → 32 → 1`` (ReLU), a log-weight per tile kind."""
LOG_CLIP: Final = 8.0
"""Log-weights are kept within ±this: no kind is ever dealt with certainty or never."""


def _numpy() -> Any:
    return optional("numpy", "reading the opponents' hands needs numpy", "rl")


def read_features(view: SeatView, seat: int) -> Any:
    """A ``(27, NR)`` float32 array: for each tile kind, :data:`READ_FEATURES` of ``seat``'s holding
    of it as ``view``'s seat sees the table."""
    np = _numpy()
    x = np.zeros((27, NR), dtype=np.float32)
    river = view.river(seat)
    void = view.voids()[seat]
    disc = [0] * 27
    for t in river:
        disc[t] += 1
    by_suit = [0, 0, 0]
    early = [0, 0, 0]
    recent = [0, 0, 0]
    for i, t in enumerate(river):
        if t // 9 != void:
            by_suit[t // 9] += 1
            if i < 5:
                early[t // 9] += 1
    for t in river[-3:]:
        recent[t // 9] += 1
    finished = bool(river) and void is not None and river[-1] // 9 != void
    melded = [0, 0, 0]
    for m in view.melds(seat):
        melded[m.tile // 9] = 1
    passed = [0] * 27
    for o in range(4):
        if o != seat:
            for t, st in zip(view.river(o), view.river_state(o), strict=True):
                if st == RIVER_OPEN:
                    passed[t] += 1
    length = len(river)
    for t in range(27):
        s, r = divmod(t, 9)
        row = x[t]
        row[0] = 1.0
        row[1] = disc[t]
        row[2] = by_suit[s] / 5
        row[3] = (disc[t - 1] if r > 0 else 0) + (disc[t + 1] if r < 8 else 0)
        row[4] = (disc[t - 2] if r > 1 else 0) + (disc[t + 2] if r < 7 else 0)
        row[5] = early[s] / 3
        row[6] = float(s == void and finished)
        row[7] = float(s == void and not finished)
        row[8] = melded[s]
        row[9] = passed[t]
        row[10] = float(r in (0, 8))
        row[11] = float(3 <= r <= 5)
        row[12] = recent[s] / 3
        row[13] = by_suit[s] / 5 * length / 12
    return x


def load_reading(path: str | Path = READING_WEIGHTS) -> dict[str, Any]:
    """The arrays of a reading weights file (:data:`READ_SHAPES`, float32; ``bad_policy`` or
    ``unreadable`` if it is not one)."""
    return load_arrays(path, READ_SHAPES)


def _read_only(arrays: dict[str, Any]) -> dict[str, Any]:
    for a in arrays.values():
        a.setflags(write=False)
    return arrays


def _two_layers(arrays: dict[str, Any], prefix: str, x: Any) -> Any:
    """``features → hidden (ReLU) → 1`` for each row of ``x``, by the arrays ``{prefix}_w0`` ..
    ``{prefix}_b1``, within ±:data:`LOG_CLIP`."""
    np = _numpy()
    h = np.maximum(x @ arrays[f"{prefix}_w0"] + arrays[f"{prefix}_b0"], 0.0)
    return np.clip((h @ arrays[f"{prefix}_w1"] + arrays[f"{prefix}_b1"])[:, 0], -LOG_CLIP, LOG_CLIP)


@functools.cache
def shipped_reading() -> dict[str, Any]:
    """The arrays of :data:`READING_WEIGHTS`, read once a process and shared, read-only."""
    return _read_only(load_reading(READING_WEIGHTS))


def log_weights(arrays: dict[str, Any], x: Any) -> Any:
    """The network's log-weight of each row of ``x`` (features, ``(27, NR)``), within ±:data:`LOG_CLIP`."""
    return _two_layers(arrays, "r", x)


def hand_weights(view: SeatView, arrays: dict[str, Any] | None = None) -> list[list[float]]:
    """For each seat, a weight per tile kind for dealing its concealed tiles in a sampled world
    (``sample_world(..., weights=)``): 1 for ``view``'s own seat and for a seat whose void is not
    yet known (before 定缺 nothing has been shown), the network's reading for the others
    (``arrays``: the shipped weights by default). A function of the view only."""
    np = _numpy()
    net = shipped_reading() if arrays is None else arrays
    voids = view.voids()
    out: list[list[float]] = []
    for o in range(4):
        if o == view.seat or voids[o] is None:
            out.append([1.0] * 27)
        else:
            out.append(np.exp(log_weights(net, read_features(view, o))).tolist())
    return out


READY_SUMMARY: Final = ("live", "live_squared", "river", "melds", "table_discards", "passed_since")
"""What the table says of one seat's readiness besides :data:`READ_FEATURES` of every tile kind: the
live wall / 55 and its square; the seat's discards / 20; its melds / 4; every seat's discards / 60;
the tiles others discarded since the seat's last discard (:func:`passed_since`) / 5."""
NQ: Final = 27 * NR + len(READY_SUMMARY)
READY_HIDDEN: Final = 32
READY_SHAPES: Final = {"q_w0": (NQ, READY_HIDDEN), "q_b0": (READY_HIDDEN,), "q_w1": (READY_HIDDEN, 1), "q_b1": (1,)}
"""The arrays of a readiness weights file: ``features → 32 → 1`` (ReLU), the log-odds the seat is ready."""
READY_WEIGHTS: Final = Path(__file__).resolve().parent / "weights" / "ready-1.npz"
"""The shipped weights of the readiness network (its manifest: the same name with ``.json``)."""
READY_FORMAT: Final = "xuezhan-ready-1"
BUILD_TRIES: Final = 30
"""Hands tried by :func:`built_ready_hand` before it settles for the best one or gives up."""


def passed_since(view: SeatView, seat: int) -> set[int]:
    """The tiles other seats discarded after ``seat``'s last discard, which ``seat`` let go by: a
    ready seat seldom waits on them (it would have won, unless it let a win go). Read from the
    hand's events, which every seat sees; in a claim window the tile on offer is left out (``seat``
    has not answered it yet)."""
    events = Game.from_state(viewed_state(view)).events
    discards = [(e["seat"], e["tile"]) for e in events if e["type"] == EventKind.DISCARD]
    if view.phase == "claim" and discards:
        discards.pop()
    last = max((i for i, (q, _) in enumerate(discards) if q == seat), default=-1)
    return {t for q, t in discards[last + 1:] if q != seat}


def ready_features(view: SeatView, seat: int) -> Any:
    """A ``(NQ,)`` float32 array: :func:`read_features` of every tile kind, then :data:`READY_SUMMARY`,
    of ``seat`` as ``view``'s seat sees the table."""
    np = _numpy()
    live = view.live / 55
    table = sum(len(view.river(o)) for o in range(4))
    summary = np.asarray([live, live * live, len(view.river(seat)) / 20, len(view.melds(seat)) / 4,
                          table / 60, len(passed_since(view, seat)) / 5], dtype=np.float32)
    return np.concatenate([read_features(view, seat).reshape(-1), summary])


def load_ready(path: str | Path = READY_WEIGHTS) -> dict[str, Any]:
    """The arrays of a readiness weights file (:data:`READY_SHAPES`, float32; ``bad_policy`` or
    ``unreadable`` if it is not one)."""
    return load_arrays(path, READY_SHAPES)


@functools.cache
def shipped_ready() -> dict[str, Any]:
    """The arrays of :data:`READY_WEIGHTS`, read once a process and shared, read-only."""
    return _read_only(load_ready(READY_WEIGHTS))


def ready_logit(arrays: dict[str, Any], x: Any) -> Any:
    """The readiness network's log-odds for each row of ``x`` (``(N, NQ)``), within ±:data:`LOG_CLIP`."""
    return _two_layers(arrays, "q", x)


def ready_probability(view: SeatView, seat: int, arrays: dict[str, Any] | None = None) -> float:
    """How likely ``seat`` is ready, as ``view``'s seat sees the table (``arrays``: the shipped
    weights by default). A function of the view only."""
    np = _numpy()
    net = shipped_ready() if arrays is None else arrays
    z = float(ready_logit(net, ready_features(view, seat)[None, :])[0])
    return float(1.0 / (1.0 + np.exp(-z)))


def built_ready_hand(unseen: Sequence[int], size: int, void: int | None, n_melds: int, meld_suits: int,
                     rng: random.Random, avoid: set[int], want: set[int] | None = None) -> list[int] | None:
    """A ready hand of ``size`` concealed tiles (counts per kind) from the copies ``unseen``: a pair
    and sets (runs three times as often as triplets), none of the ``void`` suit, less one tile at
    random; one that waits on none of ``avoid``, or ``None`` after :data:`BUILD_TRIES` tries. With
    ``want``, the hand's first group holds one of those tiles and that copy is the one taken off,
    and a hand that waits on exactly ``want`` is kept; failing one in :data:`BUILD_TRIES` tries, the
    one whose waits share most with ``want``."""
    sets = (size + 1 - 2) // 3
    best: tuple[float, list[int]] | None = None
    for _ in range(BUILD_TRIES):
        left = list(unseen)
        hand = [0] * 27
        groups = sets
        taken_off: int | None = None
        group: tuple[int, ...] = ()
        if want:
            w = rng.choice(sorted(want))
            firsts: list[tuple[int, ...]] = [(w, w)] if left[w] >= 2 else []
            if sets and left[w] >= 3:
                firsts.append((w, w, w))
            for a in (w - 2, w - 1, w):
                if sets and a >= 0 and a // 9 == w // 9 and a % 9 <= 6 and all(left[u] for u in (a, a + 1, a + 2)):
                    firsts.append((a, a + 1, a + 2))
            if not firsts:
                continue
            group = rng.choice(firsts)
            for u in group:
                left[u] -= 1
                hand[u] += 1
            taken_off = w
            if len(group) == 3:
                groups -= 1
        if not want or len(group) == 3:
            pairs = [t for t in range(27) if left[t] >= 2 and t // 9 != void]
            if not pairs:
                return best[1] if best else None
            p = rng.choice(pairs)
            left[p] -= 2
            hand[p] += 2
        for _ in range(groups):
            options: list[tuple[int, int]] = []  # (first tile, 0 a triplet / 1 a run)
            for t in range(27):
                if t // 9 == void:
                    continue
                if left[t] >= 3:
                    options.append((t, 0))
                if t % 9 <= 6 and left[t] and left[t + 1] and left[t + 2]:
                    options.extend([(t, 1)] * 3)
            if not options:
                break
            t, run = rng.choice(options)
            for u in (t, t + 1, t + 2) if run else (t, t, t):
                left[u] -= 1
                hand[u] += 1
        else:
            if taken_off is None:
                tiles = [t for t in range(27) for _ in range(hand[t])]
                hand[rng.choice(tiles)] -= 1
            else:
                hand[taken_off] -= 1
            waits = set(winning_tiles(hand, n_melds, meld_suits=meld_suits, void=void))
            if avoid & waits:
                continue
            if not want or waits == want:
                return hand
            score = len(waits & want) / len(waits | want)
            if best is None or score > best[0]:
                best = (score, hand)
    return best[1] if best else None
