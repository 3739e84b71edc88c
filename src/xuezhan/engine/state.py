"""The state records of one hand: phases, seats, the claim window, wins and kongs.

:class:`Seat` and :class:`Window` are the engine's own mutable records; code outside
the engine reads a seat through :class:`SeatState` and a claim window through
:class:`ClaimWindow`, both read-only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache
from typing import Any

from ..hand import ALL_EVEN_KEYS, POW5, SETS_ONLY, SETS_PAIR, is_complete_keys
from ..scoring import Meld, Score
from ..tiles import NUM_KINDS, Tile, tile_name, tiles_of
from .actions import Action


class Phase(StrEnum):
    EXCHANGE = "exchange"
    DINGQUE = "dingque"
    TURN = "turn"  # the seat in ``turn`` holds 14 tile-equivalents and acts
    CLAIM = "claim"  # other seats answer a discard
    ROB = "rob"  # other seats may rob a bugang
    OVER = "over"




# river entry states
RIVER_OPEN = 0
RIVER_CLAIMED = 1  # taken into a peng or zhigang (the tile now lies in the meld)
RIVER_WON = 2  # won on (one or several winners); the tile stays in the river
RIVER_ROBBED = 3  # a robbed bugang tile, laid in the konger's river

EXCHANGE_DIRECTIONS = {"counter": 1, "opposite": 2, "clockwise": 3}
"""换三张 directions: the seat receiving from seat i is (i + d) mod 4 (``counter`` = to the next seat)."""


@dataclass(slots=True)
class WinRecord:
    """A win: who, from whom (``None`` if self-drawn), on which tile, scored how, and its order."""

    seat: int
    from_seat: int | None
    tile: Tile
    score: Score
    order: int
    robbed: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "from": self.from_seat,
            "tile": tile_name(self.tile),
            "fan": self.score.fan,
            "multiple": self.score.multiple,
            "order": self.order,
            "base": self.score.base,
            "extras": self.score.extras_dict,
            "points": self.score.points if self.from_seat is None else self.score.hand_points,
        }


@dataclass(slots=True)
class KongRecord:
    """A kong and what it earned (payer, points), for call transfer and 退税."""

    seat: int
    kind: str  # "angang", "bugang", "zhigang"
    tile: Tile
    payments: list[tuple[int, int]] = field(default_factory=list)
    transferred: bool = False

    @property
    def earned(self) -> int:
        return sum(p for _, p in self.payments)


@lru_cache(maxsize=1 << 16)
def completing_ranks(key: int, with_pair: bool) -> tuple[int, ...]:
    """Ranks whose tile, added to the suit of ``key``, leaves sets plus a pair (or sets only)."""
    table = SETS_PAIR if with_pair else SETS_ONLY
    return tuple(r for r in range(9) if (key // POW5[r]) % 5 < 4 and key + POW5[r] in table)


class Seat:
    """The state of one seat, engine-internal (outside the engine read :class:`SeatState`).
    ``keys``/``sizes`` are the per-suit keys of the concealed tiles."""

    __slots__ = (
        "aside",
        "choice",
        "counts",
        "draws",
        "escaped",
        "keys",
        "meld_suits",
        "melds",
        "pass_hu",
        "pass_hu_any",
        "revealed",
        "river",
        "river_state",
        "sizes",
        "void",
        "wins",
        "wm",
        "won",
    )

    def __init__(self) -> None:
        self.counts = [0] * NUM_KINDS
        self.keys = [0, 0, 0]
        self.sizes = [0, 0, 0]
        self.melds: list[Meld] = []
        self.meld_suits = 0
        self.void: int | None = None
        self.won = False
        self.wins = 0
        self.escaped = False
        self.river: list[Tile] = []
        self.river_state: list[int] = []
        self.aside: list[Tile] = []  # blood_river: winning tiles set aside
        self.pass_hu: set[Tile] = set()
        self.pass_hu_any = False
        self.draws = 0
        self.choice: Action | None = None  # a pending exchange / dingque choice
        self.revealed = False
        self.wm = -1  # cached wait mask, -1 when the hand changed

    def copy(self) -> Seat:
        s = Seat.__new__(Seat)
        s.counts = self.counts[:]
        s.keys = self.keys[:]
        s.sizes = self.sizes[:]
        s.melds = self.melds[:]
        s.meld_suits = self.meld_suits
        s.void = self.void
        s.won = self.won
        s.wins = self.wins
        s.escaped = self.escaped
        s.river = self.river[:]
        s.river_state = self.river_state[:]
        s.aside = self.aside[:]
        s.pass_hu = set(self.pass_hu)
        s.pass_hu_any = self.pass_hu_any
        s.draws = self.draws
        s.choice = self.choice
        s.revealed = self.revealed
        s.wm = self.wm
        return s

    # --- tiles in and out -----------------------------------------------------------------
    def add(self, t: Tile) -> None:
        self.wm = -1
        self.counts[t] += 1
        s = t // 9
        self.keys[s] += POW5[t - s * 9]
        self.sizes[s] += 1

    def remove(self, t: Tile, n: int = 1) -> None:
        self.wm = -1
        self.counts[t] -= n
        s = t // 9
        self.keys[s] -= n * POW5[t - s * 9]
        self.sizes[s] -= n

    def tiles(self) -> list[Tile]:
        return tiles_of(self.counts)

    def suit_mask(self) -> int:
        sz = self.sizes
        return (sz[0] > 0) | ((sz[1] > 0) << 1) | ((sz[2] > 0) << 2) | self.meld_suits

    def holds_void(self) -> bool:
        return self.void is not None and self.sizes[self.void] > 0

    def owned(self) -> list[int]:
        owned = self.counts[:]
        for m in self.melds:
            owned[m.tile] += m.size
        return owned

    def is_complete(self) -> bool:
        """14 tile-equivalents held now form a winning shape under the suit rules."""
        mask = self.suit_mask()
        if mask == 7 or (self.void is not None and mask >> self.void & 1):
            return False
        keys = self.keys
        return is_complete_keys(keys[0], keys[1], keys[2], not self.melds)

    def completes_with(self, t: Tile) -> bool:
        """Whether tile ``t`` added to the 13 tile-equivalents would make a winning hand."""
        wm = self.wm
        if wm < 0:
            wm = self.wait_mask()
        return bool(wm >> t & 1)

    def wait_mask(self) -> int:
        """Bit t set when tile t completes the hand under the suit rules (cached until the hand changes)."""
        wm = 0
        sizes = self.sizes
        keys = self.keys
        n0, n1, n2 = sizes
        if n0 + n1 + n2 + 3 * len(self.melds) == 13:
            r0, r1, r2 = n0 % 3, n1 % 3, n2 % 3
            # four sets and a pair: either one suit is a tile short of sets + pair (rems 1,0,0),
            # or two suits hold a pair each and the tile turns one of them into sets (rems 2,2,0)
            if r0 + r1 + r2 == 1:
                a = 0 if r0 else (1 if r1 else 2)
                b, c = (a + 1) % 3, (a + 2) % 3
                if keys[b] in SETS_ONLY and keys[c] in SETS_ONLY:
                    for r in completing_ranks(keys[a], True):
                        wm |= 1 << (a * 9 + r)
            elif r0 + r1 + r2 == 4 and 1 not in (r0, r1, r2):
                c = 0 if r0 == 0 else (1 if r1 == 0 else 2)
                a, b = (c + 1) % 3, (c + 2) % 3
                if keys[c] in SETS_ONLY:
                    if keys[b] in SETS_PAIR:
                        for r in completing_ranks(keys[a], False):
                            wm |= 1 << (a * 9 + r)
                    if keys[a] in SETS_PAIR:
                        for r in completing_ranks(keys[b], False):
                            wm |= 1 << (b * 9 + r)
            if not self.melds:
                # seven pairs: two suits all even, the third with exactly one odd count
                odd_suits = [x for x in range(3) if keys[x] not in ALL_EVEN_KEYS]
                if len(odd_suits) == 1:
                    x = odd_suits[0]
                    odd = [t for t in range(x * 9, x * 9 + 9) if self.counts[t] & 1]
                    if len(odd) == 1:
                        wm |= 1 << odd[0]
            if wm:
                mask = self.suit_mask()
                void = self.void
                for suit in range(3):
                    m2 = mask | (1 << suit)
                    if m2 == 7 or (void is not None and m2 >> void & 1):
                        wm &= ~(0x1FF << (suit * 9))
        self.wm = wm
        return wm


@dataclass(slots=True)
class Window:
    """An open claim window (engine-internal): the tile offered, by whom, and the answers so far."""

    tile: Tile
    source: int
    options: dict[int, tuple[Action, ...]]
    answers: dict[int, Action]
    after_kong: bool = False
    last_tile: bool = False
    robbing: bool = False
    opened_at: int = 0  # how many actions had been applied when it opened

    def public(self) -> ClaimWindow:
        return ClaimWindow(
            seat=self.source,
            tile=self.tile,
            kind="rob_kong" if self.robbing else "discard",
            claimants=tuple(sorted(self.options)),
            waiting=tuple(s for s in sorted(self.options) if s not in self.answers),
            opened_at=self.opened_at,
        )


@dataclass(frozen=True, slots=True)
class ClaimWindow:
    """An open claim window, read-only: ``seat`` discarded ``tile`` (``kind == "discard"``) or is
    adding it to a peng (``kind == "rob_kong"``: the others may rob the kong).

    ``claimants`` are the seats offered a claim and ``waiting`` those that have not answered
    yet; both are secret to the other seats (a view shows a seat only whether it is asked).
    ``opened_at`` is :attr:`Game.action_count` when the window opened: it tells one window
    from the next.
    """

    seat: int
    tile: Tile
    kind: str
    claimants: tuple[int, ...]
    waiting: tuple[int, ...]
    opened_at: int


class SeatState:
    """One seat of a hand, read-only: its concealed tiles, melds, river and standing.

    This is the engine's whole knowledge of the seat, concealed hand included; what another
    seat may see of it is decided by :mod:`xuezhan.engine.views`.
    """

    __slots__ = ("_s", "seat")

    def __init__(self, record: Seat, seat: int) -> None:
        self._s = record
        self.seat = seat

    @property
    def hand(self) -> tuple[Tile, ...]:
        """The concealed tiles, sorted."""
        return tuple(self._s.tiles())

    @property
    def counts(self) -> tuple[int, ...]:
        """The concealed tiles as 27 counts."""
        return tuple(self._s.counts)

    @property
    def concealed(self) -> int:
        """How many concealed tiles the seat holds."""
        return sum(self._s.counts)

    @property
    def suit_sizes(self) -> tuple[int, int, int]:
        """Concealed tiles per suit (m, p, s)."""
        a, b, c = self._s.sizes
        return a, b, c

    @property
    def melds(self) -> tuple[Meld, ...]:
        return tuple(self._s.melds)

    @property
    def river(self) -> tuple[Tile, ...]:
        return tuple(self._s.river)

    @property
    def river_state(self) -> tuple[int, ...]:
        """Per river tile: ``RIVER_OPEN``, ``RIVER_CLAIMED``, ``RIVER_WON`` or ``RIVER_ROBBED``."""
        return tuple(self._s.river_state)

    @property
    def aside(self) -> tuple[Tile, ...]:
        """blood_river: the self-drawn winning tiles set aside."""
        return tuple(self._s.aside)

    @property
    def void(self) -> int | None:
        """The void suit (定缺), once chosen."""
        return self._s.void

    def holds_void(self) -> bool:
        """Still holds a tile of its void suit (it must discard those first)."""
        return self._s.holds_void()

    @property
    def won(self) -> bool:
        return self._s.won

    @property
    def wins(self) -> int:
        return self._s.wins

    @property
    def escaped(self) -> bool:
        return self._s.escaped

    @property
    def revealed(self) -> bool:
        """The hand is laid down (a win outside blood_river, or the end of the hand)."""
        return self._s.revealed

    @property
    def draws(self) -> int:
        return self._s.draws

    def __repr__(self) -> str:
        return f"<SeatState {self.seat}: {self._s.tiles()!r}>"
