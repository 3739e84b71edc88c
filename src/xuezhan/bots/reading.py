"""Reading the opponents' hands: how likely each seat holds each tile kind, from what the table shows.

The expert's search deals the tiles it cannot see afresh in every world
(:func:`xuezhan.engine.views.sample_world`); dealt uniformly, an opponent that has thrown
bamboo all hand is as likely to hold bamboo as anything else. A small network, trained by the
project on self-play (:mod:`xuezhan.rl.reading`), reads for each opponent and each tile kind
what that seat's river, melds and void say (:data:`READ_FEATURES`) and gives a weight; the
opponent's concealed tiles are then dealt in proportion to the unseen copies of each kind times
its weight (:func:`hand_weights`). The weights ship with the package
(``weights/reading-1.npz``, its manifest ``reading-1.json``: the command, seed and data that made
them and how much better than uniform they predict the hands held). Inference needs numpy only.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, Final

from ..engine.game import RIVER_OPEN
from ..engine.views import SeatView
from ..extras import optional
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


@functools.cache
def shipped_reading() -> dict[str, Any]:
    """The arrays of :data:`READING_WEIGHTS`, read once a process and shared, read-only."""
    arrays = load_reading(READING_WEIGHTS)
    for a in arrays.values():
        a.setflags(write=False)
    return arrays


def log_weights(arrays: dict[str, Any], x: Any) -> Any:
    """The network's log-weight of each row of ``x`` (features, ``(27, NR)``), within ±:data:`LOG_CLIP`."""
    np = _numpy()
    h = np.maximum(x @ arrays["r_w0"] + arrays["r_b0"], 0.0)
    out = (h @ arrays["r_w1"] + arrays["r_b1"])[:, 0]
    return np.clip(out, -LOG_CLIP, LOG_CLIP)


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
