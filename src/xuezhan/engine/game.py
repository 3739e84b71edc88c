"""One hand of blood-battle mahjong as a state machine (RULES.md sections 2-8).

:class:`Game` holds the whole state of a hand. Callers ask who must act
(:meth:`Game.pending`), what each seat may do (:meth:`Game.legal_actions`), and
:meth:`Game.apply` an action: an illegal one raises
:class:`~xuezhan.errors.IllegalActionError` and changes nothing. Every movement of
points is a :class:`LedgerEntry` recorded at the moment it happens, and every step
is an event; :meth:`Game.view` (a :class:`~xuezhan.engine.views.SeatView`) gives what
one seat may see.

The engine never prints, sleeps, reads a clock or uses global randomness; a seeded
``random.Random`` is used only to deal (and to pick a random 换三张 direction).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ..errors import IllegalActionError
from ..hand import (
    ALL_EVEN_KEYS,
    POW5,
    SETS_ONLY,
    SETS_PAIR,
    is_complete_keys,
    suit_keys,
    winning_tiles,
)
from ..rules import Rules
from ..scoring import Meld, MeldKind, Score, WinContext, score_win
from ..tiles import NUM_KINDS, Tile, tile_name, tiles_of
from .actions import (
    DISCARD_ACTIONS,
    GANG_ACTIONS,
    HU_ACTIONS,
    PASS_ACTIONS,
    PENG_ACTIONS,
    Action,
    ActionType,
    LedgerEntry,
)
from .deal import Deal, random_deal, throw_for_dealer

if TYPE_CHECKING:
    from .views import SeatView


class Phase(StrEnum):
    EXCHANGE = "exchange"
    DINGQUE = "dingque"
    TURN = "turn"  # the seat in ``turn`` holds 14 tile-equivalents and acts
    CLAIM = "claim"  # other seats answer a discard
    ROB = "rob"  # other seats may rob a bugang
    OVER = "over"


# hot-path aliases (module globals are cheaper than enum attribute lookups)
_TURN, _CLAIM, _ROB, _OVER = Phase.TURN, Phase.CLAIM, Phase.ROB, Phase.OVER
_DISCARD, _ESCAPE, _SWAP = ActionType.DISCARD, ActionType.ESCAPE, ActionType.SWAP
_ALL_KINDS = tuple(range(NUM_KINDS))
_OTHERS = tuple(tuple((seat + k) % 4 for k in (1, 2, 3)) for seat in range(4))  # in play order


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
    """The state of one seat. ``keys``/``sizes`` are the per-suit keys of the concealed tiles."""

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
class _Window:
    """An open claim window: the tile offered, by whom, and the answers so far."""

    tile: Tile
    source: int
    options: dict[int, list[Action]]
    answers: dict[int, Action]
    after_kong: bool = False
    last_tile: bool = False
    robbing: bool = False


class Game:
    """One hand. Build with :meth:`new` (seeded random deal) or :meth:`from_deal`."""

    def __init__(
        self, rules: Rules, deal: Deal, dealer: int, *, exchange_direction: int | None = None, bystanders: int = 0
    ) -> None:
        if len(deal.hands) != 4:
            raise IllegalActionError("bad_deal", "a deal needs four hands")
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
        self.wall = list(deal.wall)
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
        self.window: _Window | None = None
        self.pending_bugang: Tile | None = None
        self._bugang_late = False
        self.clean_start = True  # no claim and no kong yet (天胡/地胡)
        self.ledger: list[LedgerEntry] = []
        self.events: list[dict[str, Any]] = []
        self.private: list[int | None] = []  # per event: the only seat that sees it whole, if any
        self.winners: list[WinRecord] = []
        self.kongs: list[KongRecord] = []
        self.win_groups = 0
        self.exchange_direction = exchange_direction
        self._legal_cache: dict[int, list[Action]] = {}
        self.actions: list[Action] = []  # every action applied, in order (the record)
        if not 0 <= bystanders <= 4:
            raise IllegalActionError("bad_bystanders", "between 0 and 4 bystanders may bet at a table")
        # 叫马: each bystander takes the top tile of the last stack at the tail (secret)
        self.bystander_tiles: list[Tile] = []
        for _ in range(bystanders):
            self.tail -= 1
            self.bystander_tiles.append(self.wall[self.tail])
        self._emit({"type": "start", "dealer": dealer, "wall": self.live, "bystanders": bystanders})
        for i in range(4):
            self._emit({"type": "deal", "seat": i, "tiles": list(deal.hands[i])}, private=i)
        if rules.exchange_three != "none":
            self.phase = Phase.EXCHANGE
        elif rules.dingque:
            self.phase = Phase.DINGQUE
        else:
            self._start_play()

    # --- construction -------------------------------------------------------------------
    @classmethod
    def new(
        cls, rules: Rules | None = None, *, seed: int | None = None, rng: random.Random | None = None,
        dealer: int | None = None,
    ) -> Game:
        """A hand with a shuffled wall, dice and the deal of RULES 2; deterministic for a seed."""
        rules = rules or Rules.preset("qq")
        rng = rng or random.Random(seed)
        if dealer is None:
            dealer = throw_for_dealer(rng)
        deal = random_deal(rng, dealer)
        direction = None
        if rules.exchange_three == "random":
            direction = rng.choice((1, 2, 3))
        return cls(rules, deal, dealer, exchange_direction=direction)

    @classmethod
    def from_deal(cls, rules: Rules, deal: Deal, dealer: int, exchange_direction: int | None = None) -> Game:
        return cls(rules, deal, dealer, exchange_direction=exchange_direction)

    def copy(self) -> Game:
        """A cheap independent copy (for search): seats, wall position and window are copied."""
        g = Game.__new__(Game)
        g.__dict__.update(self.__dict__)
        g.seats = [s.copy() for s in self.seats]
        g.ledger = self.ledger[:]
        g.events = self.events[:]
        g.private = self.private[:]
        g.winners = self.winners[:]
        g.actions = self.actions[:]
        g.kongs = [KongRecord(k.seat, k.kind, k.tile, k.payments[:], k.transferred) for k in self.kongs]
        remap = {id(k): g.kongs[i] for i, k in enumerate(self.kongs)}
        g.turn_kongs = [remap[id(k)] for k in self.turn_kongs]
        g.wall = self.wall  # shared: never mutated in place (a swap replaces the list)
        g.bystander_tiles = self.bystander_tiles[:]
        if self.window is not None:
            w = self.window
            g.window = _Window(w.tile, w.source, {k: v[:] for k, v in w.options.items()}, dict(w.answers),
                               w.after_kong, w.last_tile, w.robbing)
        g._legal_cache = {}
        return g

    # --- basic queries --------------------------------------------------------------------
    @property
    def live(self) -> int:
        """Tiles left in the live wall."""
        return self.tail - self.head

    @property
    def over(self) -> bool:
        return self.phase is Phase.OVER

    def active(self, seat: int) -> bool:
        """Still in the hand: pays and is paid, draws and claims."""
        s = self.seats[seat]
        return not s.escaped and (not s.won or self.rules.blood_river)

    def contending(self, seat: int) -> bool:
        """Still playing for a first win (has not won, has not escaped)."""
        s = self.seats[seat]
        return not s.escaped and not s.won

    def next_active(self, seat: int) -> int | None:
        blood = self.rules.blood_river
        seats = self.seats
        for k in (1, 2, 3, 4):
            o = (seat + k) & 3
            s = seats[o]
            if not s.escaped and (blood or not s.won):
                return o
        return None

    def view(self, seat: int) -> SeatView:
        """What ``seat`` may see of this hand."""
        from .views import SeatView

        return SeatView(self, seat)

    def deltas(self) -> list[int]:
        d = [0, 0, 0, 0]
        for e in self.ledger:
            d[e.from_seat] -= e.points
            d[e.to_seat] += e.points
        return d

    def tile_total(self) -> int:
        """Every tile accounted for: live wall, hands, melds, rivers (claimed ones lie in melds), set aside,
        a declared bugang tile while others may rob it, and the bystanders' tiles (叫马)."""
        n = self.live + (self.pending_bugang is not None) + len(self.bystander_tiles)
        for s in self.seats:
            n += sum(s.counts) + sum(m.size for m in s.melds) + len(s.aside)
            n += sum(1 for st in s.river_state if st != RIVER_CLAIMED)
        return n

    def pending(self) -> list[int]:
        """The seats that must act now."""
        ph = self.phase
        if ph is Phase.TURN:
            return [self.turn]
        if ph is Phase.CLAIM or ph is Phase.ROB:
            assert self.window is not None
            return [s for s in self.window.options if s not in self.window.answers]
        if ph is Phase.EXCHANGE or ph is Phase.DINGQUE:
            return [i for i in range(4) if self.seats[i].choice is None and not self.seats[i].escaped]
        return []

    # --- events and ledger ------------------------------------------------------------------
    def _emit(self, event: dict[str, Any], private: int | None = None) -> None:
        self.events.append(event)
        self.private.append(private)

    def _pay(self, payer: int, payee: int, points: int, reason: str) -> None:
        if points <= 0 or payer == payee:
            return
        entry = LedgerEntry(payer, payee, points, reason)
        self.ledger.append(entry)
        self._emit({"type": "pay", "from": payer, "to": payee, "points": points, "reason": reason})

    # --- legal actions -------------------------------------------------------------------------
    def legal_actions(self, seat: int) -> list[Action]:
        """Everything ``seat`` may do now (empty when it need not act). Escape is always possible
        while the hand runs and is not listed; see :meth:`can_escape`."""
        cached = self._legal_cache.get(seat)
        if cached is not None:
            return cached
        acts = self._compute_legal(seat)
        self._legal_cache[seat] = acts
        return acts

    def _compute_legal(self, seat: int) -> list[Action]:
        ph = self.phase
        s = self.seats[seat]
        if ph is Phase.TURN:
            if seat != self.turn:
                return []
            return self._turn_actions(seat)
        if ph is Phase.CLAIM or ph is Phase.ROB:
            w = self.window
            assert w is not None
            if seat in w.answers:
                return []
            return w.options.get(seat, [])
        if ph is Phase.DINGQUE:
            if s.choice is not None or s.escaped:
                return []
            present = [suit for suit in range(3) if s.sizes[suit] > 0]
            if len(present) == 2:
                choices = [suit for suit in range(3) if suit not in present]
            elif len(present) == 1:
                choices = [suit for suit in range(3) if suit != present[0]]
            else:
                choices = [0, 1, 2]
            return [Action(seat, ActionType.DINGQUE, suit=c) for c in choices]
        if ph is Phase.EXCHANGE:
            if s.choice is not None or s.escaped:
                return []
            out = []
            for suit in range(3):
                if s.sizes[suit] < 3:
                    continue
                ranks = [r for r in range(9) for _ in range(s.counts[suit * 9 + r])]
                seen = set()
                n = len(ranks)
                for i in range(n):
                    for j in range(i + 1, n):
                        for k in range(j + 1, n):
                            combo = (suit * 9 + ranks[i], suit * 9 + ranks[j], suit * 9 + ranks[k])
                            if combo not in seen:
                                seen.add(combo)
                                out.append(Action(seat, ActionType.EXCHANGE, tiles=combo))
            return out
        return []

    def _turn_actions(self, seat: int) -> list[Action]:
        s = self.seats[seat]
        counts = s.counts
        out: list[Action] = []
        if s.won:  # blood_river: a winner keeps its hand; it may hu again or give up the drawn tile
            if s.is_complete():
                out.append(HU_ACTIONS[seat])
                if self.rules.must_hu_last_four and self.live <= 4:
                    return out
            if self.drawn is not None:
                out.append(DISCARD_ACTIONS[seat][self.drawn])
            return out
        if self.must_discard:
            return self._discards(seat)
        tsumo = self.tsumo
        if tsumo is None:
            tsumo = s.is_complete()
        if tsumo:
            out.append(HU_ACTIONS[seat])
            if self.rules.must_hu_last_four and self.live <= 4:
                return out
        if self.tail > self.head:
            void = s.void
            if 4 in counts:
                for t in range(NUM_KINDS):
                    if counts[t] == 4 and t // 9 != void:
                        out.append(GANG_ACTIONS[seat][t])
            for m in s.melds:
                if m.kind is MeldKind.PENG and counts[m.tile]:
                    out.append(GANG_ACTIONS[seat][m.tile])
        out.extend(self._discards(seat))
        return out

    def _discards(self, seat: int) -> list[Action]:
        s = self.seats[seat]
        counts = s.counts
        void = s.void
        acts = DISCARD_ACTIONS[seat]
        if void is not None and s.sizes[void]:
            lo = void * 9
            return [acts[t] for t in range(lo, lo + 9) if counts[t]]
        return [acts[t] for t in _ALL_KINDS if counts[t]]

    def can_escape(self, seat: int) -> bool:
        return self.phase is not Phase.OVER and not self.seats[seat].escaped

    # --- item cards (RULES 13) --------------------------------------------------------------------
    def wall_positions(self, t: Tile) -> list[int]:
        """Where copies of ``t`` lie in the live wall, as distances from the head (0 = next draw)."""
        return [i - self.head for i in range(self.head, self.tail) if self.wall[i] == t]

    def can_swap(self, seat: int, hand_tile: Tile, wanted: Tile) -> str | None:
        """``None`` if ``seat`` may swap ``hand_tile`` for ``wanted`` from the live wall now, else a code."""
        if self.phase is not Phase.TURN or self.turn != seat:
            return "not_your_turn"
        s = self.seats[seat]
        if s.won:
            return "already_won"
        if not 0 <= hand_tile < NUM_KINDS or s.counts[hand_tile] == 0:
            return "tile_not_in_hand"
        if not 0 <= wanted < NUM_KINDS or not self.wall_positions(wanted):
            return "tile_not_in_wall"
        if wanted == hand_tile:
            return "same_tile"
        return None

    def _swap(self, seat: int, hand_tile: Tile, wanted: Tile) -> None:
        """换牌卡: the wanted tile leaves the live wall and the hand tile takes its place (108 tiles)."""
        pos = self.head + self.wall_positions(wanted)[0]
        wall = list(self.wall)  # copy on write: copies of a game share the wall
        wall[pos] = hand_tile
        self.wall = wall
        s = self.seats[seat]
        s.remove(hand_tile)
        s.add(wanted)
        self.tsumo = None
        if self.drawn == hand_tile and s.counts[hand_tile] == 0:
            self.drawn = wanted
        self._emit({"type": "swap", "seat": seat, "tile": hand_tile, "tiles": [wanted]}, private=seat)

    # --- apply ----------------------------------------------------------------------------------
    def apply(self, action: Action) -> None:
        """Apply one legal action. Raises :class:`IllegalActionError` (and changes nothing) otherwise."""
        phase = self.phase
        if phase is _OVER:
            raise IllegalActionError("hand_over", f"the hand is over: {action}")
        kind = action.type
        seat = action.seat
        if kind is _ESCAPE or kind is _SWAP:
            self._apply_item_or_escape(action)
            return
        legal = self._legal_cache.get(seat)
        if legal is None:
            if not isinstance(seat, int) or not 0 <= seat <= 3:
                raise IllegalActionError("bad_seat", f"no seat {seat}")
            legal = self.legal_actions(seat)
        for a in legal:  # identity first: bots hand back the engine's own action values
            if a is action:
                break
        else:
            if action not in legal:
                raise IllegalActionError(self._why_illegal(action), f"illegal action: {action}")
        self._legal_cache.clear()
        self.actions.append(action)
        if phase is _TURN:
            if kind is _DISCARD:
                assert action.tile is not None
                self._discard(seat, action.tile)
            else:
                self._turn_action(action)
        elif phase is _CLAIM or phase is _ROB:
            w = self.window
            assert w is not None
            w.answers[seat] = action
            if len(w.answers) == len(w.options):
                self._resolve_window()
        else:
            self._choose(action)

    def _apply_item_or_escape(self, action: Action) -> None:
        seat = action.seat
        if not isinstance(seat, int) or not 0 <= seat <= 3:
            raise IllegalActionError("bad_seat", f"no seat {seat}")
        if action.type is ActionType.ESCAPE:
            if not self.can_escape(seat):
                raise IllegalActionError("already_escaped", f"seat {seat} has already left")
            self.actions.append(action)
            self._escape(seat)
            self._legal_cache.clear()
            return
        why = self.can_swap(seat, action.tile if action.tile is not None else -1,
                            action.tiles[0] if action.tiles else -1)
        if why is not None:
            raise IllegalActionError(why, f"illegal action: {action}")
        self._legal_cache.clear()
        self.actions.append(action)
        self._swap(seat, action.tile or 0, action.tiles[0])

    def _why_illegal(self, action: Action) -> str:
        """A stable code for why ``action`` is not legal now."""
        seat = action.seat
        if seat not in self.pending():
            return "not_your_turn"
        s = self.seats[seat]
        legal_types = {a.type for a in self.legal_actions(seat)}
        if action.type not in legal_types:
            if legal_types == {ActionType.HU}:  # a rule forces the win (最后四张必须胡): pass or discard alike
                return "must_hu"
            if action.type is ActionType.HU:
                w = self.window
                if w is not None and s.completes_with(w.tile) and (s.pass_hu_any or w.tile in s.pass_hu):
                    return "pass_hu_blocked"  # 过水不胡: it passed a win and has not drawn since
                return "cannot_hu"
            return "action_not_available"
        if action.type is ActionType.DISCARD:
            if action.tile is None or not 0 <= action.tile < NUM_KINDS or s.counts[action.tile] == 0:
                return "tile_not_in_hand"
            if s.holds_void():
                return "must_discard_void"
            return "must_discard_drawn"
        if action.type is ActionType.GANG:
            return "cannot_gang_tile"
        if action.type is ActionType.EXCHANGE:
            return "bad_exchange_tiles"
        if action.type is ActionType.DINGQUE:
            return "forced_dingque"
        return "illegal_action"

    # --- exchange and dingque -----------------------------------------------------------------------
    def _choose(self, action: Action) -> None:
        s = self.seats[action.seat]
        s.choice = action
        kind = "exchange_chosen" if self.phase is Phase.EXCHANGE else "dingque_chosen"
        self._emit({"type": kind, "seat": action.seat})
        if any(self.seats[i].choice is None and not self.seats[i].escaped for i in range(4)):
            return
        if self.phase is Phase.EXCHANGE:
            direction = self.exchange_direction or EXCHANGE_DIRECTIONS.get(self.rules.exchange_three, 1)
            self.exchange_direction = direction
            given: list[tuple[Tile, ...]] = []
            for seat in self.seats:
                given.append(seat.choice.tiles if seat.choice is not None else ())
            for i in range(4):
                for t in given[i]:
                    self.seats[i].remove(t)
            for i in range(4):
                to = (i + direction) % 4
                for t in given[i]:
                    self.seats[to].add(t)
                self._emit({"type": "exchange", "seat": i, "to": to, "tiles": list(given[i])}, private=i)
                self._emit({"type": "exchange_received", "seat": to, "tiles": list(given[i])}, private=to)
            # the dealer's 14th tile is whatever it now holds last: keep a held tile for autoplay
            if self.drawn is not None and self.seats[self.dealer].counts[self.drawn] == 0:
                self.drawn = None
            for seat in self.seats:
                seat.choice = None
            self._emit({"type": "exchange_done", "direction": direction})
            if self.rules.dingque:
                self.phase = Phase.DINGQUE
            else:
                self._start_play()
            return
        for i in range(4):
            choice = self.seats[i].choice
            self.seats[i].void = choice.suit if choice else None
            self.seats[i].wm = -1
            self.seats[i].choice = None
        self._emit({"type": "dingque", "voids": [self.seats[i].void for i in range(4)]})
        self._start_play()

    def _start_play(self) -> None:
        self.tsumo = None
        self.phase = Phase.TURN
        self.turn = self.dealer
        self.must_discard = False
        self.after_kong = False
        self._emit({"type": "turn", "seat": self.dealer})

    # --- turns ---------------------------------------------------------------------------------------
    def _draw(self, seat: int, replacement: bool = False) -> None:
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
        self.phase = Phase.TURN
        self.turn = seat
        self.drawn = t
        self.after_kong = replacement
        self.drew_last = self.tail == self.head
        self.must_discard = False
        if not replacement:
            self.turn_kongs = []
            self.zhigang_source = None
        self._emit({"type": "draw", "seat": seat, "tile": t, "replacement": replacement}, private=seat)

    def _next_draw(self, after: int) -> None:
        """The next active seat after ``after`` draws, or the hand ends when the wall is empty."""
        nxt = self.next_active(after)
        if nxt is None or self.live == 0:
            self._end_exhausted()
            return
        self._draw(nxt)

    def _turn_action(self, action: Action) -> None:
        seat = action.seat
        s = self.seats[seat]
        kind = action.type
        if kind is ActionType.HU:
            self._self_drawn_win(seat)
        elif kind is ActionType.DISCARD:
            assert action.tile is not None
            self._discard(seat, action.tile)
        elif kind is ActionType.GANG:
            assert action.tile is not None
            t = action.tile
            if s.counts[t] == 4:
                self._angang(seat, t)
            else:
                self._start_bugang(seat, t)

    def _discard(self, seat: int, t: Tile) -> None:
        seats = self.seats
        s = seats[seat]
        s.remove(t)
        s.river.append(t)
        s.river_state.append(RIVER_OPEN)
        self.events.append({"type": "discard", "seat": seat, "tile": t})
        self.private.append(None)
        self.drawn = None
        options: dict[int, list[Action]] = {}
        rules = self.rules
        blood = rules.blood_river
        for o in _OTHERS[seat]:
            so = seats[o]
            if so.escaped or (so.won and not blood):
                continue
            wm = so.wm
            if wm < 0:
                wm = so.wait_mask()
            if so.counts[t] < 2 and not wm >> t & 1:
                continue  # the common case: nothing to claim
            acts: list[Action] = []
            can_hu = bool(wm >> t & 1) and not (so.pass_hu_any or t in so.pass_hu)
            if can_hu:
                acts.append(HU_ACTIONS[o])
            if not so.won and t // 9 != so.void:
                c = so.counts[t]
                if c == 3 and self.live > 0:
                    acts.append(GANG_ACTIONS[o][t])
                if c >= 2:
                    acts.append(PENG_ACTIONS[o])
            if acts:
                if can_hu and rules.must_hu_last_four and self.tail - self.head <= 4:
                    acts = [HU_ACTIONS[o]]
                else:
                    acts.append(PASS_ACTIONS[o])
                options[o] = acts
        if not options:
            self._next_draw(seat)
            return
        self.window = _Window(t, seat, options, {}, after_kong=bool(self.turn_kongs), last_tile=self.drew_last)
        self.phase = Phase.CLAIM

    def _angang(self, seat: int, t: Tile) -> None:
        s = self.seats[seat]
        s.remove(t, 4)
        s.melds.append(Meld(MeldKind.ANGANG, t))
        s.meld_suits |= 1 << (t // 9)
        self.clean_start = False
        self._emit({"type": "angang", "seat": seat, "tile": t}, private=seat)  # laid face down
        kong = KongRecord(seat, "angang", t)
        pts = 2 * self.rules.base_score
        for o in range(4):
            if o != seat and self.active(o):
                self._pay(o, seat, pts, "angang")
                kong.payments.append((o, pts))
        self.kongs.append(kong)
        self.turn_kongs.append(kong)
        self._draw(seat, replacement=True)

    def _start_bugang(self, seat: int, t: Tile) -> None:
        s = self.seats[seat]
        late = self.drawn != t
        s.remove(t)
        self.clean_start = False
        self.pending_bugang = t
        self._bugang_late = late
        self._emit({"type": "bugang_declared", "seat": seat, "tile": t})
        options: dict[int, list[Action]] = {}
        force = self.rules.must_hu_last_four and self.live <= 4
        for k in range(1, 4):
            o = (seat + k) % 4
            if not self.active(o):
                continue
            so = self.seats[o]
            if so.completes_with(t) and not (so.pass_hu_any or t in so.pass_hu):
                acts = [HU_ACTIONS[o]]
                if not force:
                    acts.append(PASS_ACTIONS[o])
                options[o] = acts
        if options:
            self.window = _Window(t, seat, options, {}, robbing=True)
            self.phase = Phase.ROB
            return
        self._complete_bugang(seat, t)

    def _complete_bugang(self, seat: int, t: Tile) -> None:
        s = self.seats[seat]
        for i, m in enumerate(s.melds):
            if m.kind is MeldKind.PENG and m.tile == t:
                s.melds[i] = Meld(MeldKind.GANG, t)
                break
        self.pending_bugang = None
        self._emit({"type": "bugang", "seat": seat, "tile": t})
        kong = KongRecord(seat, "bugang", t)
        if self.rules.late_bugang_pays or not self._bugang_late:
            pts = self.rules.base_score
            for o in range(4):
                if o != seat and self.active(o):
                    self._pay(o, seat, pts, "bugang")
                    kong.payments.append((o, pts))
        self.kongs.append(kong)
        self.turn_kongs.append(kong)
        self._draw(seat, replacement=True)

    # --- claim windows ----------------------------------------------------------------------------------
    def _resolve_window(self) -> None:
        w = self.window
        assert w is not None
        self.window = None
        hu_seats = [o for o, a in w.answers.items() if a.type is ActionType.HU]
        for o, acts in w.options.items():
            if o not in hu_seats and any(a.type is ActionType.HU for a in acts):
                so = self.seats[o]
                if self.rules.pass_hu_scope == "any_tile":
                    so.pass_hu_any = True
                else:
                    so.pass_hu.add(w.tile)
                self._emit({"type": "pass_hu", "seat": o, "tile": w.tile}, private=o)
        if w.robbing:
            if hu_seats:
                konger = w.source
                ks = self.seats[konger]
                ks.river.append(w.tile)
                ks.river_state.append(RIVER_ROBBED)
                self.pending_bugang = None
                self._discard_wins(w, hu_seats)
            else:
                self._complete_bugang(w.source, w.tile)
            return
        if hu_seats:
            src = self.seats[w.source]
            src.river_state[-1] = RIVER_WON
            self._discard_wins(w, hu_seats)
            return
        for o, a in w.answers.items():
            if a.type is ActionType.GANG:
                self._zhigang(o, w)
                return
            if a.type is ActionType.PENG:
                self._peng(o, w)
                return
        if self.live == 0:
            self._end_exhausted()
            return
        self._next_draw(w.source)

    def _claim_tile(self, w: _Window) -> None:
        src = self.seats[w.source]
        src.river_state[-1] = RIVER_CLAIMED
        self.clean_start = False

    def _peng(self, seat: int, w: _Window) -> None:
        self._claim_tile(w)
        s = self.seats[seat]
        s.remove(w.tile, 2)
        s.melds.append(Meld(MeldKind.PENG, w.tile))
        s.meld_suits |= 1 << (w.tile // 9)
        self._emit({"type": "peng", "seat": seat, "tile": w.tile, "from": w.source})
        self.phase = Phase.TURN
        self.turn = seat
        self.drawn = None
        self.must_discard = True
        self.tsumo = None
        self.after_kong = False
        self.drew_last = False
        self.turn_kongs = []
        self.zhigang_source = None

    def _zhigang(self, seat: int, w: _Window) -> None:
        self._claim_tile(w)
        s = self.seats[seat]
        s.remove(w.tile, 3)
        s.melds.append(Meld(MeldKind.GANG, w.tile))
        s.meld_suits |= 1 << (w.tile // 9)
        self._emit({"type": "zhigang", "seat": seat, "tile": w.tile, "from": w.source})
        kong = KongRecord(seat, "zhigang", w.tile)
        base = self.rules.base_score
        self._pay(w.source, seat, 2 * base, "zhigang")
        kong.payments.append((w.source, 2 * base))
        if self.rules.zhigang_payment == "everyone":
            for o in range(4):
                if o not in (seat, w.source) and self.active(o):
                    self._pay(o, seat, base, "zhigang")
                    kong.payments.append((o, base))
        self.kongs.append(kong)
        self.turn_kongs = [kong]
        self.zhigang_source = w.source
        self._draw(seat, replacement=True)

    # --- wins -------------------------------------------------------------------------------------------
    def _visible_copies(self, seat: int, t: Tile) -> int:
        """Copies of ``t`` that ``seat`` can see: its own hand, the melds (others' concealed kongs
        lie face down), rivers, tiles set aside, and hands laid down by winners."""
        n = self.seats[seat].counts[t]
        for i, s in enumerate(self.seats):
            for m in s.melds:
                if m.tile == t and (m.kind is not MeldKind.ANGANG or i == seat or s.revealed):
                    n += m.size
            for tt, st in zip(s.river, s.river_state, strict=False):
                if tt == t and st != RIVER_CLAIMED:
                    n += 1
            n += s.aside.count(t)
            if i != seat and s.revealed:
                n += s.counts[t]
        return n

    def _score(self, seat: int, tile: Tile, ctx: WinContext, extra: bool) -> Score:
        s = self.seats[seat]
        tiles = s.tiles()
        if extra:
            tiles.append(tile)
        result = score_win(tiles, s.melds, tile, ctx, self.rules, s.void, check=False)
        assert isinstance(result, Score), result
        return result

    def _self_drawn_win(self, seat: int) -> None:
        s = self.seats[seat]
        tile = self.drawn if self.drawn is not None else max(t for t in range(NUM_KINDS) if s.counts[t])
        first_action = self.clean_start and not self.seats[seat].won
        tian = first_action and seat == self.dealer and s.draws == 0
        di = first_action and seat != self.dealer and s.draws == 1 and not self.after_kong
        # copies visible besides the winning tile itself
        last_copy = self._visible_copies(seat, tile) - 1 == 3
        ctx = WinContext(
            self_drawn=True,
            after_kong=self.after_kong,
            last_tile=self.drew_last,
            tian_hu=tian,
            di_hu=di,
            last_copy=last_copy,
        )
        score = self._score(seat, tile, ctx, extra=False)
        self.win_groups += 1
        rec = WinRecord(seat, None, tile, score, self.win_groups)
        self.winners.append(rec)
        self._emit({"type": "hu", "seat": seat, "from": None, "tile": tile, "fan": score.fan,
                    "multiple": score.multiple, "base": score.base, "extras": score.extras_dict})
        zhigang_pays = (
            self.after_kong and self.zhigang_source is not None and self.rules.dian_gang_hua == "discard"
            and self.turn_kongs and self.turn_kongs[-1].kind == "zhigang"
        )
        if zhigang_pays:
            assert self.zhigang_source is not None
            rec.from_seat = None
            self._pay(self.zhigang_source, seat, score.hand_points, "hu")
        else:
            for o in range(4):
                if o != seat and self.active(o):
                    self._pay(o, seat, score.points, "zimo")
        self._mark_won(seat, tile, self_drawn=True)
        self.clean_start = False
        if self._hand_finished():
            self._finish()
            return
        self._next_draw(seat)

    def _discard_wins(self, w: _Window, hu_seats: list[int]) -> None:
        order = sorted(hu_seats, key=lambda o: (o - w.source) % 4)
        self.win_groups += 1
        transfer = 0
        if self.rules.call_transfer and w.after_kong and not w.robbing:
            transfer_kongs = [k for k in self.turn_kongs if k.seat == w.source and not k.transferred]
            transfer = sum(k.earned for k in transfer_kongs)
        else:
            transfer_kongs = []
        for o in order:
            # the won tile already lies in the discarder's river (a robbed one in the konger's):
            # 绝张 when all four copies are now in sight
            last_copy = self._visible_copies(o, w.tile) == 4
            ctx = WinContext(
                after_kong=w.after_kong and not w.robbing,
                robbing_kong=w.robbing,
                last_tile=w.last_tile,
                last_copy=last_copy,
            )
            score = self._score(o, w.tile, ctx, extra=True)
            self.winners.append(WinRecord(o, w.source, w.tile, score, self.win_groups, robbed=w.robbing))
            self._emit({"type": "hu", "seat": o, "from": w.source, "tile": w.tile, "fan": score.fan,
                        "multiple": score.multiple, "base": score.base, "extras": score.extras_dict,
                        "robbing": w.robbing})
            self._pay(w.source, o, score.hand_points, "hu")
            if transfer:
                self._pay(w.source, o, transfer, "call_transfer")
        for k in transfer_kongs:
            k.transferred = True
        for o in order:
            self._mark_won(o, w.tile, self_drawn=False)
        self.clean_start = False
        if self._hand_finished():
            self._finish()
            return
        self._next_draw(order[-1])

    def _mark_won(self, seat: int, tile: Tile, self_drawn: bool) -> None:
        s = self.seats[seat]
        s.wins += 1
        s.won = True
        if not self.rules.blood_river:
            s.revealed = True  # the winner lays its hand down
        elif self_drawn:
            # blood_river: the winner keeps playing its 13 tiles; the winning tile is set aside
            # (a discard won on stays in the discarder's river)
            s.remove(tile)
            s.aside.append(tile)

    def _hand_finished(self) -> bool:
        if self.rules.end_on_first_win:
            return True
        if self.rules.blood_river:
            return False
        return sum(1 for i in range(4) if self.active(i)) <= 1

    # --- the end ----------------------------------------------------------------------------------------
    def is_ready(self, seat: int) -> bool:
        return bool(self.waits(seat))

    def waits(self, seat: int) -> list[Tile]:
        s = self.seats[seat]
        return winning_tiles(s.counts, len(s.melds), meld_suits=s.meld_suits, void=s.void, owned=s.owned())

    def is_hua_zhu(self, seat: int) -> bool:
        s = self.seats[seat]
        return s.suit_mask() == 7 or (self.rules.dingque and s.holds_void())

    def da_jiao(self, seat: int, pays: str | None = None) -> int:
        """The points of a ready seat's best (``max``) or lowest (``min``) discard win (大叫)."""
        pays = pays or self.rules.cha_jiao_pays
        values = [self._score(seat, t, WinContext(), extra=True).hand_points for t in self.waits(seat)]
        if not values:
            return 0
        return max(values) if pays == "max" else min(values)

    def _counts_as_ready(self, seat: int) -> bool:
        waits = self.waits(seat)
        if not waits:
            return False
        if self.rules.dead_wait_counts:
            return True
        return any(self._visible_copies(seat, t) < 4 for t in waits)

    def _end_exhausted(self) -> None:
        players = [i for i in range(4) if self.contending(i)]
        self._emit({"type": "wall_empty"})
        if len(players) >= 2:
            pigs = [i for i in players if self.is_hua_zhu(i)]
            ready = [i for i in players if i not in pigs and self._counts_as_ready(i)]
            for p in pigs:
                for o in players:
                    if o not in pigs:
                        self._pay(p, o, self.rules.hua_zhu_points, "hua_zhu")
            for p in players:
                if p in pigs or p in ready:
                    continue
                for r in ready:
                    self._pay(p, r, self.da_jiao(r), "cha_jiao")
            for p in players:
                if p in ready:
                    continue
                for k in self.kongs:
                    if k.seat != p or k.transferred:
                        continue
                    for payer, pts in k.payments:
                        if not self.seats[payer].escaped:
                            self._pay(p, payer, pts, "tui_shui")
        self._finish()

    def _finish(self) -> None:
        self.phase = Phase.OVER
        self.window = None
        for s in self.seats:
            s.revealed = True
        self._emit({"type": "end", "deltas": self.deltas(), "next_dealer": self.next_dealer()})

    # --- escapes ---------------------------------------------------------------------------------------
    def _escape(self, seat: int) -> None:
        s = self.seats[seat]
        was_contending = self.contending(seat)
        self._emit({"type": "escape", "seat": seat})
        if was_contending:
            others = [o for o in range(4) if o != seat and self.active(o)]
            penalty = 16 * self.rules.base_score
            for o in others:
                pts = penalty
                if self.live <= 4 and self.seats[o].won is False and self.is_ready(o):
                    pts = max(pts, self.da_jiao(o, "max"))
                self._pay(seat, o, pts, "escape")
            s.escaped = True
            self._finish()
            return
        # a seat that has won leaves: the hand goes on
        s.escaped = True
        if self.rules.escaped_winner_forfeits:
            for e in list(self.ledger):
                if e.to_seat == seat and e.reason in ("hu", "zimo", "call_transfer"):
                    self._pay(seat, e.from_seat, e.points, "escape")
        if self.phase is Phase.TURN and self.turn == seat:
            self._next_draw(seat)
        elif self.window is not None and seat in self.window.options:
            self.window.options.pop(seat)
            self.window.answers.pop(seat, None)
            if len(self.window.answers) == len(self.window.options):
                self._resolve_window()
        if self.phase is not Phase.OVER and self._hand_finished() and not self.rules.end_on_first_win:
            self._finish()

    # --- results ------------------------------------------------------------------------------------------
    def next_dealer(self) -> int | None:
        """The dealer of the next hand by ``dealer_rule`` (``None``: thrown by dice)."""
        rule = self.rules.dealer_rule
        if rule == "dice" or any(s.escaped for s in self.seats):
            return None
        if not self.winners:
            return self.dealer
        first = [w for w in self.winners if w.order == 1]
        if rule == "first_winner":
            if len(first) > 1 and first[0].from_seat is not None:
                return first[0].from_seat
            return first[0].seat
        # discarder
        if first[0].from_seat is not None:
            return first[0].from_seat
        return first[0].seat

    def result_json(self) -> dict[str, Any]:
        from .views import event_json

        return {
            "complete": self.over,
            "winners": [w.to_json() for w in self.winners],
            "ledger": [e.to_json() for e in self.ledger],
            "deltas": self.deltas(),
            "next_dealer": self.next_dealer() if self.over else None,
            "events": [event_json(e) for e in self.events],
        }
