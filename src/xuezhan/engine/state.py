"""The state of one hand: :class:`HandState` and its records (phases, seats, the claim window,
wins and kongs).

:class:`HandState`, :class:`Seat` and :class:`Window` are the engine's own mutable records;
code outside the engine reads a hand through :class:`~xuezhan.engine.game.Game`, a seat
through :class:`SeatState` and a claim window through :class:`ClaimWindow`, all read-only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache
from typing import Any, Final

from ..hand import ALL_EVEN_KEYS, POW5, SETS_ONLY, SETS_PAIR, is_complete_keys, suit_keys
from ..ids import EventKind, Reason
from ..rules import Rules
from ..scoring import Meld, Score
from ..tiles import NUM_KINDS, Tile, tile_name, tiles_of
from .actions import Action, LedgerEntry
from .deal import Deal
from .events import Event


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
    kind: Reason  # Reason.ANGANG, Reason.BUGANG or Reason.ZHIGANG
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


class HandState:
    """The whole mutable state of one hand: the one surface the engine's rule modules share.

    :class:`~xuezhan.engine.game.Game` owns one and is the public face of the hand; the rule
    modules (:mod:`~xuezhan.engine.settlement`, :mod:`~xuezhan.engine.kongs`,
    :mod:`~xuezhan.engine.wins`, :mod:`~xuezhan.engine.claims`) are functions over it, and
    :mod:`~xuezhan.engine.views` reads it. Its fields are public to the engine; code outside
    the engine reads a hand through :class:`Game`'s properties (tests may set up positions
    through :attr:`Game.state`).
    """

    __slots__ = (
        "actions",
        "after_kong",
        "bugang_late",
        "bystander_tiles",
        "clean_start",
        "deal",
        "dealer",
        "drawn",
        "drew_last",
        "events",
        "exchange_direction",
        "head",
        "kongs",
        "ledger",
        "legal_cache",
        "must_discard",
        "owners",
        "pending_bugang",
        "phase",
        "rules",
        "seats",
        "tail",
        "tsumo",
        "turn",
        "turn_kongs",
        "wall",
        "win_groups",
        "window",
        "winners",
        "zhigang_source",
    )

    def __init__(self, rules: Rules, deal: Deal, dealer: int, exchange_direction: int | None) -> None:
        """The state of a hand dealt from ``deal``, before any event: hands, wall, the dealer in turn."""
        self.rules = rules
        self.dealer = dealer
        self.deal = deal
        self.seats = [Seat() for _ in range(4)]
        for i, hand in enumerate(deal.hands):
            seat = self.seats[i]
            counts = seat.counts
            for t in hand:
                counts[t] += 1
            seat.keys = list(suit_keys(counts))
            seat.sizes = [sum(counts[0:9]), sum(counts[9:18]), sum(counts[18:27])]
        self.wall = list(deal.wall)  # never changed in place (a swap replaces the list): copies share it
        self.head = 0
        self.tail = len(self.wall)
        self.phase = Phase.EXCHANGE
        self.turn = dealer
        self.drawn: Tile | None = deal.hands[dealer][-1] if deal.hands[dealer] else None
        self.after_kong = False  # the tile in hand came from a kong replacement
        self.drew_last = False  # the current seat drew the last tile of the wall
        self.must_discard = False  # after a peng
        self.tsumo: bool | None = None  # the drawn tile completes the hand (None: not known yet)
        self.turn_kongs: list[KongRecord] = []  # kongs declared in the current turn
        self.zhigang_source: int | None = None  # whose discard the turn's zhigang took
        self.window: Window | None = None
        self.pending_bugang: Tile | None = None
        self.bugang_late = False
        self.clean_start = True  # no claim and no kong yet (天胡/地胡)
        self.ledger: list[LedgerEntry] = []
        self.events: list[Event] = []
        self.owners: list[int | None] = []  # per event: the only seat that sees it whole, if any
        self.winners: list[WinRecord] = []
        self.kongs: list[KongRecord] = []
        self.win_groups = 0
        self.exchange_direction = exchange_direction
        self.legal_cache: dict[int, tuple[Action, ...]] = {}
        self.actions: list[Action] = []  # every action applied, in order (the record)
        self.bystander_tiles: list[Tile] = []

    def copy(self) -> HandState:
        """A cheap independent copy (for search): seats, records and window are copied, the wall shared."""
        h = HandState.__new__(HandState)
        for name in HandState.__slots__:
            setattr(h, name, getattr(self, name))
        h.seats = [s.copy() for s in self.seats]
        h.ledger = self.ledger[:]
        h.events = self.events[:]
        h.owners = self.owners[:]
        h.winners = self.winners[:]
        h.actions = self.actions[:]
        h.kongs = [KongRecord(k.seat, k.kind, k.tile, k.payments[:], k.transferred) for k in self.kongs]
        remap = {id(k): h.kongs[i] for i, k in enumerate(self.kongs)}
        h.turn_kongs = [remap[id(k)] for k in self.turn_kongs]
        h.bystander_tiles = self.bystander_tiles[:]
        w = self.window
        if w is not None:
            h.window = Window(w.tile, w.source, dict(w.options), dict(w.answers),
                              w.after_kong, w.last_tile, w.robbing, w.opened_at)
        h.legal_cache = {}
        return h

    # --- queries ------------------------------------------------------------------------------------
    @property
    def live(self) -> int:
        """Tiles left in the live wall."""
        return self.tail - self.head

    def active(self, seat: int) -> bool:
        """Still in the hand: pays and is paid, draws and claims."""
        s = self.seats[seat]
        return not s.escaped and (not s.won or self.rules.blood_river)

    def contending(self, seat: int) -> bool:
        """Still playing for a first win (has not won, has not escaped)."""
        s = self.seats[seat]
        return not s.escaped and not s.won

    def next_active(self, seat: int) -> int | None:
        """The next seat after ``seat`` in play order still in the hand (``seat`` itself last)."""
        blood = self.rules.blood_river
        seats = self.seats
        for k in (1, 2, 3, 4):
            o = (seat + k) & 3
            s = seats[o]
            if not s.escaped and (blood or not s.won):
                return o
        return None

    def deltas(self) -> list[int]:
        """Each seat's points won (or lost, negative) so far."""
        d = [0, 0, 0, 0]
        for e in self.ledger:
            d[e.from_seat] -= e.points
            d[e.to_seat] += e.points
        return d

    # --- events, payments, draws --------------------------------------------------------------------
    def emit(self, event: Event, private: int | None = None) -> None:
        """Log ``event``; ``private``: the only seat that may see it whole."""
        self.events.append(event)
        self.owners.append(private)

    def pay(self, payer: int, payee: int, points: int, reason: Reason) -> None:
        """``payer`` pays ``payee``: a ledger entry and its event (nothing for no points or to oneself)."""
        if points <= 0 or payer == payee:
            return
        self.ledger.append(LedgerEntry(payer, payee, points, reason))
        self.events.append({"type": _PAY, "from": payer, "to": payee, "points": points, "reason": reason})
        self.owners.append(None)

    def draw(self, seat: int, replacement: bool = False) -> None:
        """``seat`` draws the next tile (a kong's replacement from the tail with ``kong_draw_from_tail``)
        and its turn begins."""
        if replacement and self.rules.kong_draw_from_tail:
            self.tail -= 1
            t = self.wall[self.tail]
        else:
            t = self.wall[self.head]
            self.head += 1
        s = self.seats[seat]
        # can it hu now? the wait mask of its 13 tiles (usually cached by the last discards) says
        wm = s.wm if s.wm >= 0 else s.wait_mask()
        self.tsumo = bool(wm >> t & 1)
        s.add(t)
        s.draws += 1
        if s.pass_hu:
            s.pass_hu.clear()
        s.pass_hu_any = False
        self.phase = _TURN
        self.turn = seat
        self.drawn = t
        self.after_kong = replacement
        self.drew_last = self.tail == self.head
        self.must_discard = False
        if not replacement:
            self.turn_kongs = []
            self.zhigang_source = None
        self.events.append({"type": _DRAW, "seat": seat, "tile": t, "replacement": replacement})
        self.owners.append(seat)

    def claim_tile(self, w: Window) -> None:
        """The tile offered in ``w`` is taken into a meld (peng or zhigang) from the discarder's river."""
        self.seats[w.source].river_state[-1] = RIVER_CLAIMED
        self.clean_start = False


_TURN: Final = Phase.TURN
_PAY: Final = EventKind.PAY
_DRAW: Final = EventKind.DRAW
