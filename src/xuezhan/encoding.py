"""The observation tensor and the action mask of one seat, as numpy arrays.

The observation is built only from a :class:`~xuezhan.engine.views.SeatView`, the one
place that decides what a seat may see: never another seat's concealed tiles (until that
hand is laid down), another seat's concealed kong face up, or the order of the wall.

Seats are relative: block ``k`` describes the seat ``k`` places after the observer
(0 itself, 1 the next to play, 2 across, 3 the one before). Tiles are indexed 0-26
(1m-9m, 1p-9p, 1s-9s). The observation is one ``float32`` vector of :data:`OBS_SIZE`
values, the concatenation of these fields (:data:`OBS_FIELDS` gives each one's offset):

========================  =====  ==========================================================
field                     size   meaning
========================  =====  ==========================================================
``hand``                  27     my concealed tiles as counts (0-4)
``drawn``                 27     one-hot: the tile I just drew (on my turn)
``offered``               27     one-hot: the tile of the open claim window (a discard or a
                                 bugang that may be robbed), the pending claim
``phase``                 6      one-hot: exchange, dingque, turn, claim, rob, over
``wall``                  1      tiles left in the live wall
``dealer``                4      one-hot, relative seat of the dealer
``turn``                  4      one-hot, relative seat whose turn it is
``unseen``                27     copies of each tile I cannot see (4 minus the visible ones)
per relative seat k, 4x:
``s{k}_peng``             27     its pungs (1 per pung, on the pung's tile)
``s{k}_gang``             27     its exposed kongs (zhigang, bugang)
``s{k}_angang``           27     its concealed kongs that I may see (my own; laid-down hands)
``s{k}_hidden_kongs``     1      how many concealed kongs it holds face down
``s{k}_river``            27     tiles lying in its river (claimed ones excluded), counts
``s{k}_river_order``      60     its river in order, oldest first: tile + 1; a tile claimed
                                 into someone's meld as -(tile + 1); 0 = no tile yet
``s{k}_won_on``           27     the tiles it has won on so far (counts)
``s{k}_shown``            27     its concealed tiles when I may see them (mine; a hand laid
                                 down), else 0
``s{k}_concealed``        1      how many concealed tiles it holds
``s{k}_void``             4      one-hot: void suit m, p, s, or not known yet
``s{k}_won``              1      1 once it has won
``s{k}_wins``             1      how many times it has won (血流成河: several)
``s{k}_escaped``          1      1 if it left the hand
``s{k}_points``           1      its points so far in this hand
========================  =====  ==========================================================

60 river places are enough for any hand: a seat discards at most once after each of its
draws (at most the 55 tiles of the live wall) and each of its pungs (at most 4), plus the
dealer's first discard.
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

import numpy as np
import numpy.typing as npt

from .engine.actions import ACTION_SPACE_SIZE, Action, action_index
from .engine.state import RIVER_CLAIMED
from .engine.views import SeatView, visible_events
from .ids import EventKind

if TYPE_CHECKING:
    from .engine.game import Game

ENCODING_VERSION: Final = 2
"""The version of this observation and action encoding and of the dataset rows built on them
(:mod:`xuezhan.rl.dataset`): it changes whenever a field, a column, its size, its order or its
meaning does (a dataset's manifest records the one it was written with). 2: the rows carry
``reward``, ``done`` and ``next_row``."""
RIVER_PLACES: Final = 60
PHASES: Final = ("exchange", "dingque", "turn", "claim", "rob", "over")
MAX_POINTS: Final = 1_000_000.0
"""Bound of the ``points`` fields in the observation space (far beyond any hand's points)."""

_GLOBAL: Final = (
    ("hand", 27, 0.0, 4.0),
    ("drawn", 27, 0.0, 1.0),
    ("offered", 27, 0.0, 1.0),
    ("phase", 6, 0.0, 1.0),
    ("wall", 1, 0.0, 108.0),
    ("dealer", 4, 0.0, 1.0),
    ("turn", 4, 0.0, 1.0),
    ("unseen", 27, 0.0, 4.0),
)
_PER_SEAT: Final = (
    ("peng", 27, 0.0, 1.0),
    ("gang", 27, 0.0, 1.0),
    ("angang", 27, 0.0, 1.0),
    ("hidden_kongs", 1, 0.0, 4.0),
    ("river", 27, 0.0, 4.0),
    ("river_order", RIVER_PLACES, -27.0, 27.0),
    ("won_on", 27, 0.0, 108.0),
    ("shown", 27, 0.0, 4.0),
    ("concealed", 1, 0.0, 14.0),
    ("void", 4, 0.0, 1.0),
    ("won", 1, 0.0, 1.0),
    ("wins", 1, 0.0, 108.0),
    ("escaped", 1, 0.0, 1.0),
    ("points", 1, -MAX_POINTS, MAX_POINTS),
)


def _layout() -> tuple[dict[str, tuple[int, int]], list[float], list[float]]:
    fields: dict[str, tuple[int, int]] = {}
    low: list[float] = []
    high: list[float] = []
    at = 0
    rows = [(name, n, lo, hi) for name, n, lo, hi in _GLOBAL]
    rows += [(f"s{k}_{name}", n, lo, hi) for k in range(4) for name, n, lo, hi in _PER_SEAT]
    for name, n, lo, hi in rows:
        fields[name] = (at, n)
        low += [lo] * n
        high += [hi] * n
        at += n
    return fields, low, high


_FIELDS, _LOW, _HIGH = _layout()
OBS_FIELDS: Final[dict[str, tuple[int, int]]] = _FIELDS
"""Each field's ``(offset, size)`` in the observation vector."""
OBS_SIZE: Final = sum(n for _, n in OBS_FIELDS.values())
OBS_LOW: Final = np.array(_LOW, dtype=np.float32)
OBS_HIGH: Final = np.array(_HIGH, dtype=np.float32)

_SEAT_BLOCK: Final = sum(n for _, n, _, _ in _PER_SEAT)
_SEAT0: Final = OBS_FIELDS["s0_peng"][0]
_OFF = {name: OBS_FIELDS[f"s0_{name}"][0] - _SEAT0 for name, _, _, _ in _PER_SEAT}
_HAND, _DRAWN, _OFFERED, _PHASE, _WALL, _DEALER, _TURN, _UNSEEN = (
    OBS_FIELDS[name][0] for name, _, _, _ in _GLOBAL
)
_PHASE_INDEX: Final = {p: i for i, p in enumerate(PHASES)}


_ZEROS: Final = array("f", bytes(4 * OBS_SIZE))


_GLOBAL_ZEROS: Final = array("f", bytes(4 * _SEAT0))
_BLOCK_ZEROS: Final = array("f", bytes(4 * _SEAT_BLOCK))
_TABLE_EVENTS: Final = frozenset({EventKind.START, EventKind.WALL_EMPTY, EventKind.END})
"""Events that may change every seat's block (voids revealed, hands laid down at the end)."""


def _fill_global(buf: array[float], view: SeatView, public: list[int] | None = None) -> None:
    """Write the fields before the seat blocks (``hand`` .. ``unseen``) of ``view`` into ``buf``;
    ``public``, when given, holds the copies of each tile the seat sees outside its own hand."""
    me = view.seat
    buf[:_SEAT0] = _GLOBAL_ZEROS
    counts = view.counts
    buf[_HAND : _HAND + 27] = array("f", counts)
    drawn = view.drawn
    if drawn is not None:
        buf[_DRAWN + drawn] = 1.0
    offered = view.offered_tile
    if offered is not None:
        buf[_OFFERED + offered] = 1.0
    buf[_PHASE + _PHASE_INDEX[view.phase]] = 1.0
    buf[_WALL] = view.live
    buf[_DEALER + (view.dealer - me) % 4] = 1.0
    buf[_TURN + (view.turn - me) % 4] = 1.0
    if public is None:
        buf[_UNSEEN : _UNSEEN + 27] = array("f", [4 - c for c in view.visible_counts()])
    else:
        buf[_UNSEEN : _UNSEEN + 27] = array("f", [4 - c - p for c, p in zip(counts, public, strict=True)])


def _fill_seat(buf: array[float], view: SeatView, k: int) -> None:
    """Write the block of relative seat ``k`` as ``view`` sees it into ``buf``, ``points`` and
    ``concealed`` excepted (:func:`_fill_counters` writes those)."""
    seat = (view.seat + k) % 4
    base = _SEAT0 + k * _SEAT_BLOCK
    buf[base : base + _SEAT_BLOCK] = _BLOCK_ZEROS
    for m in view.melds(seat):
        buf[base + _OFF[m.kind] + m.tile] = 1.0
    buf[base + _OFF["hidden_kongs"]] = view.hidden_kongs(seat)
    river = view.river(seat)
    if river:
        states = view.river_state(seat)
        order = base + _OFF["river_order"]
        buf[order : order + len(river)] = array("f", [
            -(t + 1) if st == RIVER_CLAIMED else t + 1 for t, st in zip(river, states, strict=True)
        ])
        at = base + _OFF["river"]
        for t, st in zip(river, states, strict=True):
            if st != RIVER_CLAIMED:
                buf[at + t] += 1
    won_tiles = view.win_tiles(seat)
    if won_tiles:
        at = base + _OFF["won_on"]
        for t in won_tiles:
            buf[at + t] += 1
    shown = view.shown_counts(seat)
    if shown is not None:
        at = base + _OFF["shown"]
        buf[at : at + 27] = array("f", shown)
    void = view.voids()[seat]
    buf[base + _OFF["void"] + (3 if void is None else void)] = 1.0
    if view.won(seat):
        buf[base + _OFF["won"]] = 1.0
    buf[base + _OFF["wins"]] = view.wins(seat)
    if view.escaped(seat):
        buf[base + _OFF["escaped"]] = 1.0


_CONCEALED: Final = _SEAT0 + _OFF["concealed"]
_POINTS: Final = _SEAT0 + _OFF["points"]


def _fill_counters(buf: array[float], view: SeatView, points: bool = True) -> None:
    """Write every seat's ``concealed`` and, unless ``points`` is false, ``points`` into ``buf``."""
    me = view.seat
    for k in range(4):
        buf[_CONCEALED + k * _SEAT_BLOCK] = view.concealed_count((me + k) % 4)
    if points:
        deltas = view.deltas()
        for k in range(4):
            buf[_POINTS + k * _SEAT_BLOCK] = deltas[(me + k) % 4]


def _fill(view: SeatView) -> array[float]:
    """The observation of ``view`` in a fresh ``array('f')`` (layout in the module docstring)."""
    buf = array("f", _ZEROS)
    _fill_global(buf, view)
    for k in range(4):
        _fill_seat(buf, view, k)
    _fill_counters(buf, view)
    return buf


_QUIET_EVENTS: Final = frozenset({
    EventKind.DRAW, EventKind.TURN, EventKind.EXCHANGE_CHOSEN, EventKind.DINGQUE_CHOSEN, EventKind.EXCHANGE,
    EventKind.EXCHANGE_RECEIVED, EventKind.SWAP, EventKind.PASS_HU, EventKind.EXCHANGE_DONE,
})
"""Events that change no seat block but the ``concealed`` and ``shown`` fields, which
:meth:`ObservationCache.observe` writes again at every call."""
_RIVER: Final = _SEAT0 + _OFF["river"]
_RIVER_ORDER: Final = _SEAT0 + _OFF["river_order"]
_PENG: Final = _SEAT0 + _OFF["peng"]
_SHOWN: Final = _SEAT0 + _OFF["shown"]
_VOID: Final = _SEAT0 + _OFF["void"]
_VOID_ONE_HOT: Final = tuple(array("f", [float(i == v) for i in range(4)]) for v in range(4))


class ObservationCache:
    """The observations of the four seats of one hand, kept up to date as the hand goes on.

    Each seat's observation lives in a buffer. At each :meth:`observe`, the events this seat
    may see (:func:`~xuezhan.engine.views.visible_events`) since its last observation update
    it: a discard adds a tile to a river, a peng lays a meld and marks the river tile it took;
    the rarer events (a kong, a win, an escape, the voids, the end) rebuild the blocks of the
    seats they name, a payment writes the points. The fields before the seat blocks and every
    seat's ``concealed`` and ``shown`` are written again each time. The result equals :func:`encode`
    of the same view.
    """

    __slots__ = ("_bufs", "_game", "_public", "_rivers", "_seen")

    def __init__(self) -> None:
        self._game: Game | None = None
        self._bufs: list[array[float] | None] = [None, None, None, None]
        self._rivers = [[0, 0, 0, 0] for _ in range(4)]  # per observer: river length per seat
        self._seen = [0, 0, 0, 0]
        # per observer: copies of each tile it sees outside its own hand
        self._public = [[0] * 27 for _ in range(4)]

    def observe(self, game: Game, seat: int) -> npt.NDArray[np.float32]:
        """The observation of ``seat`` in ``game`` now (a new array, the caller may keep it)."""
        if game is not self._game:
            self._game = game
            self._bufs = [None, None, None, None]
        view = SeatView(game, seat)
        buf = self._bufs[seat]
        rivers = self._rivers[seat]
        public = self._public[seat]
        if buf is None:
            buf = self._bufs[seat] = _fill(view)
            rivers[:] = [len(view.river(s)) for s in range(4)]
            public[:] = [v - c for v, c in zip(view.visible_counts(), view.counts, strict=True)]
        else:
            self._update(buf, view, rivers, public, visible_events(game, seat, self._seen[seat]))
        self._seen[seat] = len(game.events)
        return np.frombuffer(array("f", buf), dtype=np.float32)

    @staticmethod
    def _update(buf: array[float], view: SeatView, rivers: list[int], public: list[int],
                events: Sequence[Mapping[str, Any]]) -> None:
        me = view.seat
        rebuild: set[int] = set()
        paid = False
        # the kinds compared below, bound once (a member's lookup costs more than the comparison)
        pay, discard, peng, dingque = EventKind.PAY, EventKind.DISCARD, EventKind.PENG, EventKind.DINGQUE
        for ev in events:
            kind = ev["type"]
            if kind in _QUIET_EVENTS:
                continue
            if kind == pay:  # the only change of the points
                paid = True
            elif kind == discard:
                s = ev["seat"]
                t = ev["tile"]
                base = ((s - me) % 4) * _SEAT_BLOCK
                buf[_RIVER_ORDER + base + rivers[s]] = t + 1
                buf[_RIVER + base + t] += 1
                rivers[s] += 1
                public[t] += 1
            elif kind == peng:
                src = ev["from"]
                t = ev["tile"]
                base = ((src - me) % 4) * _SEAT_BLOCK
                buf[_RIVER_ORDER + base + rivers[src] - 1] = -(t + 1)  # the claimed tile: the last discard
                buf[_RIVER + base + t] -= 1
                buf[_PENG + ((ev["seat"] - me) % 4) * _SEAT_BLOCK + t] = 1.0
                public[t] += 2  # the river tile goes into the meld, with two from the hand
            elif kind == dingque:  # every seat's void, shown at once
                for s, void in enumerate(ev["voids"]):
                    at = _VOID + ((s - me) % 4) * _SEAT_BLOCK
                    buf[at : at + 4] = _VOID_ONE_HOT[3 if void is None else void]
            elif kind in _TABLE_EVENTS:
                rebuild.update(range(4))
            else:
                named = [s for s in (ev.get("seat"), ev.get("from"), ev.get("to")) if type(s) is int]
                rebuild.update(named or range(4))  # an event that names no seat may change any
        for s in rebuild:
            _fill_seat(buf, view, (s - me) % 4)
            rivers[s] = len(view.river(s))
        laid_down = False  # another seat's hand lies face up: its draws change what this seat sees
        for k in range(4):
            shown = view.shown_counts((me + k) % 4)
            if shown is not None:
                laid_down = laid_down or k != 0
                at = _SHOWN + k * _SEAT_BLOCK
                buf[at : at + 27] = array("f", shown)
        if rebuild or laid_down:
            public[:] = [v - c for v, c in zip(view.visible_counts(), view.counts, strict=True)]
        _fill_global(buf, view, public)
        _fill_counters(buf, view, paid or bool(rebuild))


def observation_list(view: SeatView) -> list[float]:
    """The observation of ``view`` as a Python list (see the module docstring for the layout)."""
    return _fill(view).tolist()


def encode(view: SeatView) -> npt.NDArray[np.float32]:
    """The observation of one seat's view: a ``float32`` vector of :data:`OBS_SIZE` values."""
    return np.frombuffer(_fill(view), dtype=np.float32)


def encode_batch(views: Sequence[SeatView]) -> npt.NDArray[np.float32]:
    """The observations of many views at once: a ``(len(views), OBS_SIZE)`` ``float32`` array."""
    if not views:
        return np.zeros((0, OBS_SIZE), dtype=np.float32)
    joined = bytearray(b"".join(_fill(v).tobytes() for v in views))  # writable, as training loops expect
    return np.frombuffer(joined, dtype=np.float32).reshape(len(views), OBS_SIZE)


def action_mask(legal: Sequence[Action]) -> npt.NDArray[np.int8]:
    """1 at the index (:func:`~xuezhan.engine.actions.action_index`) of each legal action, else 0."""
    mask = np.zeros(ACTION_SPACE_SIZE, dtype=np.int8)
    for a in legal:
        mask[action_index(a)] = 1
    return mask


def mask_batch(legals: Sequence[Sequence[Action]]) -> npt.NDArray[np.int8]:
    """The action masks of many decisions at once: ``(len(legals), ACTION_SPACE_SIZE)`` ``int8``."""
    out = np.zeros((len(legals), ACTION_SPACE_SIZE), dtype=np.int8)
    for i, legal in enumerate(legals):
        for a in legal:
            out[i, action_index(a)] = 1
    return out
