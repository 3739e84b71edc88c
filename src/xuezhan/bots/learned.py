"""The learned bot (``learned``): a small action-scoring network, shipped with the package.

The network never sees the raw observation. For every decision it reads a short summary of
the table (:data:`TABLE_FEATURES`: how far the hand is from ready, the wall, the phase, how
threatening the opponents look) and, for each legal action, what that action does
(:data:`ACTION_FEATURES`: the shanten after a discard, its live effective tiles, the worth of
the waits it keeps, its danger, whether it throws the void suit; what a peng or a kong costs;
...). The hand analysis is the engine's (:func:`~xuezhan.hand.shanten`,
:func:`~xuezhan.hand.winning_tiles`) and the table reading the heuristic's
(:meth:`~xuezhan.bots.heuristic.HeuristicBot.threats`, ``danger``, ``qing_suit``,
:func:`~xuezhan.bots.heuristic.wait_points`): one copy of each.

A two-layer network scores each ``[table, action]`` row; the bot plays the legal action with
the highest score (the first of equal ones: deterministic, no search). A value head reads the
table summary alone (the expected points of the hand, in units of one ×1 hand); training uses
it as its baseline. The weights are a numpy ``.npz`` file (:data:`WEIGHTS`, with its manifest
``learned-1.json``: the command, seed and data that made it, and its league figures);
inference needs numpy only (``pip install 'xuezhan[rl]'``), never PyTorch.
:mod:`xuezhan.rl.train` trains such weights.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from ..engine.actions import Action, ActionType
from ..engine.views import SeatView
from ..errors import XuezhanError
from ..extras import optional
from ..hand import shanten, winning_tiles
from ..ids import ErrorCode
from ..scoring import suits_of_melds
from .heuristic import HeuristicBot, wait_points

WEIGHTS: Final = Path(__file__).resolve().parent / "weights" / "learned-1.npz"
"""The shipped weights (their manifest: the same name with ``.json``)."""
FORMAT: Final = "xuezhan-learned-1"

TABLE_FEATURES: Final = (
    "shanten", "live", "melds", "void_held", "phase_turn", "phase_claim", "phase_rob", "phase_dingque",
    "phase_exchange", "threat_top", "threat_mean", "opponents_won", "points", "qing_plan", "one",
)
"""The table summary: the hand's shanten / 4, live wall / 55, melds / 4, void tiles held / 6, the
phase, the most and the mean readiness of the opponents, opponents won / 3, the seat's points
so far in ×1 hands / 8, a 清一色 plan, and a constant. The rules enter through what the scorer
says a hand is worth (the waits' worth, in ×1 hands)."""
ACTION_FEATURES: Final = (
    "discard", "gang", "peng", "hu", "pass", "dingque", "exchange", "other",
    "shanten_change", "after_0", "after_1", "after_2", "after_far", "void_tile", "effective", "ready_worth",
    "waits", "danger", "near", "edge", "off_plan", "copies", "seen", "concealed_kong", "added_kong",
    "exposed_kong", "pung_shape", "suit_size", "suit_shape", "drawn",
)
"""What one action does: its kind; for a discard, a kong, a peng or an exchange the shanten after it
(change, and one-hot 0 / 1 / 2 / more); for a discard: a void tile, live effective tiles / 20
(two steps or less from ready), the worth of the live waits in ×1 hands / 8 and their count / 8
(ready), the heuristic's danger, neighbours / 4, an edge rank, off a 清一色 plan, copies held / 4,
copies seen / 4, the tile just drawn; the kind of kong; pairs and melds (对对胡 shape); for 定缺
and 换三张 the suit's size / 14 and shape / 10."""
NT: Final = len(TABLE_FEATURES)
NA: Final = len(ACTION_FEATURES)
HIDDEN: Final = 64
_KINDS: Final = {ActionType.DISCARD: 0, ActionType.GANG: 1, ActionType.PENG: 2, ActionType.HU: 3, ActionType.PASS: 4,
                 ActionType.DINGQUE: 5, ActionType.EXCHANGE: 6}
_A: Final = {name: i for i, name in enumerate(ACTION_FEATURES)}
_T: Final = {name: i for i, name in enumerate(TABLE_FEATURES)}
_PHASES: Final = {"turn": "phase_turn", "claim": "phase_claim", "rob": "phase_rob"}

SHAPES: Final = {
    "s_w0": (NT + NA, HIDDEN), "s_b0": (HIDDEN,), "s_w1": (HIDDEN, HIDDEN), "s_b1": (HIDDEN,),
    "s_w2": (HIDDEN, 1), "s_b2": (1,),
    "v_w0": (NT, HIDDEN), "v_b0": (HIDDEN,), "v_w1": (HIDDEN, 1), "v_b1": (1,),
}
"""The arrays of a weights file and their shapes (``s_``: the action scorer, ``v_``: the value head)."""


def _numpy() -> Any:
    return optional("numpy", "the learned bot needs numpy", "rl")


def _suit_shape(counts: Sequence[int], suit: int) -> tuple[int, int]:
    c = counts[suit * 9 : suit * 9 + 9]
    pairs = sum(1 for x in c if x >= 2)
    links = sum(1 for r in range(8) if c[r] and c[r + 1]) + sum(1 for r in range(7) if c[r] and c[r + 2])
    return sum(c), pairs * 2 + links


def _after(row: list[float], now: int, after: int) -> None:
    row[_A["shanten_change"]] = float(max(-1, min(3, after - now)))
    row[_A["after_0"] + min(after, 3)] = 1.0


_READER = HeuristicBot(random.Random(0))
"""The heuristic's reading of the table (threats, danger, 清一色 plans); it holds no state of a hand."""


def features(view: SeatView, legal: Sequence[Action]) -> tuple[list[float], list[list[float]]]:
    """The table summary (:data:`TABLE_FEATURES`) and one row of :data:`ACTION_FEATURES` per action of ``legal``."""
    counts = view.counts
    me = view.seat
    melds = view.melds(me)
    n = len(melds)
    meld_suits = suits_of_melds(melds)
    void = view.void
    phase = view.phase
    stake = float(HeuristicBot.stake(view))
    in_play = phase in _PHASES
    now = shanten(counts, n, meld_suits=meld_suits, void=void) if in_play else 8
    threats = _READER.threats(view) if in_play else []
    visible = view.visible_counts()
    qing = _READER.qing_suit(view, counts, melds, now) if in_play and void is not None else None

    table = [0.0] * NT
    table[_T["shanten"]] = min(now, 8) / 4
    table[_T["live"]] = view.live / 55
    table[_T["melds"]] = n / 4
    table[_T["void_held"]] = (sum(counts[void * 9 : void * 9 + 9]) / 6) if void is not None else 0.0
    if phase in _PHASES:
        table[_T[_PHASES[phase]]] = 1.0
    elif legal and legal[0].type is ActionType.DINGQUE:
        table[_T["phase_dingque"]] = 1.0
    elif legal and legal[0].type is ActionType.EXCHANGE:
        table[_T["phase_exchange"]] = 1.0
    if threats:
        table[_T["threat_top"]] = max(p for _, p, _ in threats)
        table[_T["threat_mean"]] = sum(p for _, p, _ in threats) / len(threats)
    table[_T["opponents_won"]] = sum(1 for o in range(4) if o != me and view.won(o)) / 3
    table[_T["points"]] = max(-4.0, min(4.0, view.deltas()[me] / stake / 8))
    table[_T["qing_plan"]] = float(qing is not None)
    table[_T["one"]] = 1.0

    rows: list[list[float]] = []
    after_cache: dict[int, int] = {}
    for a in legal:
        row = [0.0] * NA
        row[_KINDS.get(a.type, 7)] = 1.0
        t = a.tile if a.type is not ActionType.PENG else view.offered_tile
        if a.type is ActionType.DISCARD and t is not None:
            after = after_cache.get(t)
            if after is None:
                counts[t] -= 1
                after = after_cache[t] = shanten(counts, n, meld_suits=meld_suits, void=void)
                counts[t] += 1
            _after(row, now, after)
            _discard(row, view, t, after, counts, melds, meld_suits, void, visible, threats, stake)
            if qing is not None and t // 9 != qing:
                row[_A["off_plan"]] = 1.0
            row[_A["drawn"]] = float(view.drawn == t)
        elif a.type is ActionType.GANG and t is not None:
            ms = meld_suits | 1 << (t // 9)
            held = counts[t]
            if phase == "claim":  # a kong on a discard: three from the hand
                counts[t] -= 3
                after = shanten(counts, n + 1, meld_suits=ms, void=void)
                counts[t] += 3
                row[_A["exposed_kong"]] = 1.0
            elif held == 4:
                counts[t] -= 4
                after = shanten(counts, n + 1, meld_suits=ms, void=void)
                counts[t] += 4
                row[_A["concealed_kong"]] = 1.0
            else:
                counts[t] -= 1
                after = shanten(counts, n, meld_suits=meld_suits, void=void)
                counts[t] += 1
                row[_A["added_kong"]] = 1.0
            _after(row, now, after)
            row[_A["void_tile"]] = float(t // 9 == void)
        elif a.type is ActionType.PENG and t is not None:
            ms = meld_suits | 1 << (t // 9)
            counts[t] -= 2
            best = 99
            for d in range(27):
                if counts[d]:
                    counts[d] -= 1
                    best = min(best, shanten(counts, n + 1, meld_suits=ms, void=void))
                    counts[d] += 1
            row[_A["pung_shape"]] = HeuristicBot.pung_shape(counts, n) / 7
            counts[t] += 2
            row[_A["void_tile"]] = float(t // 9 == void)
            _after(row, now, best)
            if qing is not None and t // 9 != qing:
                row[_A["off_plan"]] = 1.0
        elif a.type is ActionType.DINGQUE and a.suit is not None:
            size, shape = _suit_shape(counts, a.suit)
            row[_A["suit_size"]] = size / 14
            row[_A["suit_shape"]] = shape / 10
        elif a.type is ActionType.EXCHANGE and a.tiles:
            for x in a.tiles:
                counts[x] -= 1
            after = shanten(counts, 0)
            for x in a.tiles:
                counts[x] += 1
            size, shape = _suit_shape(counts, a.tiles[0] // 9)
            _after(row, 0, after)
            row[_A["suit_size"]] = size / 14
            row[_A["suit_shape"]] = shape / 10
        if t is not None:
            row[_A["copies"]] = counts[t] / 4
            row[_A["seen"]] = visible[t] / 4
        rows.append(row)
    return table, rows


def _discard(row: list[float], view: SeatView, t: int, after: int, counts: list[int], melds: list[Any],
             meld_suits: int, void: int | None, visible: Sequence[int], threats: Sequence[tuple[int, float, float]],
             stake: float) -> None:
    """The features of discarding ``t`` that need more than its shanten."""
    s, r = divmod(t, 9)
    n = len(melds)
    row[_A["void_tile"]] = float(s == void)
    row[_A["danger"]] = min(_READER.danger(view, t, threats, visible), 4.0)
    row[_A["near"]] = (sum(counts[s * 9 + x] for x in range(max(0, r - 2), min(8, r + 2) + 1)) - 1) / 4
    row[_A["edge"]] = float(r in (0, 8))
    counts[t] -= 1
    try:
        if after == 0:
            owned = counts[:]
            for m in melds:
                owned[m.tile] += m.size
            key = tuple(counts)
            meld_t = tuple(melds)
            worth = 0.0
            waits = 0
            for w in winning_tiles(counts, n, meld_suits=meld_suits, void=void, owned=owned):
                live = 4 - visible[w]
                if live > 0:
                    waits += live
                    worth += live * wait_points(key, meld_t, w, view.rules, void)
            row[_A["ready_worth"]] = min(worth / stake / 8, 4.0)
            row[_A["waits"]] = waits / 8
        elif after <= 2:
            effective = 0
            for u in range(27):
                if u // 9 == void or visible[u] >= 4:
                    continue
                counts[u] += 1
                if shanten(counts, n, meld_suits=meld_suits, void=void) < after:
                    effective += 4 - visible[u]
                counts[u] -= 1
            row[_A["effective"]] = effective / 20
    finally:
        counts[t] += 1


def load_arrays(path: str | Path, shapes: dict[str, tuple[int, ...]]) -> dict[str, Any]:
    """The arrays of an ``.npz`` weights file, as float32, each of ``shapes`` present with its shape
    and finite (``bad_policy`` otherwise; ``unreadable`` for a missing file)."""
    np = _numpy()
    try:
        with np.load(str(path), allow_pickle=False) as data:
            arrays = {k: np.asarray(data[k], dtype=np.float32) for k in data.files}
    except FileNotFoundError:
        raise XuezhanError(ErrorCode.UNREADABLE, f"no weights file {path}") from None
    except Exception as exc:  # numpy raises many kinds for a file that is not an .npz
        raise XuezhanError(ErrorCode.BAD_POLICY, f"{path} is not a weights file: {exc}") from None
    for name, shape in shapes.items():
        got = arrays.get(name)
        if got is None or tuple(got.shape) != shape:
            raise XuezhanError(ErrorCode.BAD_POLICY, f"{path}: {name} should have shape {shape}, not "
                                                     f"{None if got is None else tuple(got.shape)}")
        if not np.isfinite(got).all():
            raise XuezhanError(ErrorCode.BAD_POLICY, f"{path}: {name} holds values that are not finite")
    return arrays


def load_weights(path: str | Path = WEIGHTS) -> dict[str, Any]:
    """The arrays of a weights file (:data:`SHAPES`), as float32 (``bad_policy`` or ``unreadable`` if it is not one)."""
    return load_arrays(path, SHAPES)


@functools.cache
def shipped_weights() -> dict[str, Any]:
    """The arrays of :data:`WEIGHTS`, read once a process and shared, read-only (every ``learned``
    bot and every expert's first choice)."""
    arrays = load_weights(WEIGHTS)
    for a in arrays.values():
        a.setflags(write=False)
    return arrays


class LearnedNet:
    """The network of a weights file, scoring with numpy: :meth:`scores` and :meth:`value`."""

    def __init__(self, arrays: dict[str, Any]) -> None:
        self._np = _numpy()
        self.arrays = arrays

    def scores(self, table: Sequence[float], rows: Sequence[Sequence[float]]) -> list[float]:
        """One score per action row (higher: better)."""
        np, w = self._np, self.arrays
        x = np.empty((len(rows), NT + NA), dtype=np.float32)
        x[:, :NT] = table
        x[:, NT:] = rows
        h = np.maximum(x @ w["s_w0"] + w["s_b0"], 0.0)
        h = np.maximum(h @ w["s_w1"] + w["s_b1"], 0.0)
        out: list[float] = (h @ w["s_w2"] + w["s_b2"])[:, 0].tolist()
        return out

    def value(self, table: Sequence[float]) -> float:
        """The expected points of the rest of the hand, in ×1 hands."""
        np, w = self._np, self.arrays
        h = np.maximum(np.asarray(table, dtype=np.float32) @ w["v_w0"] + w["v_b0"], 0.0)
        return float((h @ w["v_w1"] + w["v_b1"])[0])


class LearnedBot:
    """Plays the legal action the shipped network scores highest (deterministic, no search)."""

    name = "learned"

    def __init__(self, rng: random.Random | None = None, *, path: str | Path | None = None,
                 arrays: dict[str, Any] | None = None) -> None:
        """The weights of ``path`` (the shipped ones by default, :func:`shipped_weights`), or
        ``arrays`` already in hand (a network being trained, :mod:`xuezhan.rl.train`)."""
        if arrays is None:
            arrays = shipped_weights() if path is None else load_weights(path)
        self.net = LearnedNet(arrays)

    def start_hand(self, seed: int) -> None:
        """Deterministic: nothing to seed."""

    def choose(self, view: SeatView, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        table, rows = features(view, legal)
        scores = self.net.scores(table, rows)
        best = 0
        for i in range(1, len(scores)):
            if scores[i] > scores[best]:
                best = i
        return legal[best]
