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

The rules of one hand live in this package by concern: the claim window in
:mod:`~xuezhan.engine.claims`, kongs and their payments in :mod:`~xuezhan.engine.kongs`,
wins in :mod:`~xuezhan.engine.wins`, the end of the hand and its settlement in
:mod:`~xuezhan.engine.settlement`, the state records in :mod:`~xuezhan.engine.state`.
:class:`Game` is the one public class; what any seat may see is decided in
:mod:`~xuezhan.engine.views`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..errors import IllegalActionError
from ..hand import suit_keys
from ..rules import Rules
from ..scoring import MeldKind
from ..tiles import NUM_KINDS, Tile
from . import settlement
from .actions import DISCARD_ACTIONS, GANG_ACTIONS, HU_ACTIONS, Action, ActionType, LedgerEntry
from .claims import discard, resolve_window
from .deal import Deal, random_deal, throw_for_dealer, validate_deal
from .kongs import angang, start_bugang
from .state import (
    EXCHANGE_DIRECTIONS,
    RIVER_CLAIMED,
    RIVER_OPEN,
    RIVER_ROBBED,
    RIVER_WON,
    ClaimWindow,
    KongRecord,
    Phase,
    Seat,
    SeatState,
    Window,
    WinRecord,
    completing_ranks,
)
from .wins import self_drawn_win

if TYPE_CHECKING:
    from .views import SeatView

__all__ = [
    "EXCHANGE_DIRECTIONS",
    "RIVER_CLAIMED",
    "RIVER_OPEN",
    "RIVER_ROBBED",
    "RIVER_WON",
    "ClaimWindow",
    "Game",
    "KongRecord",
    "Phase",
    "SeatState",
    "WinRecord",
    "completing_ranks",
]

# hot-path aliases (module globals are cheaper than enum attribute lookups)
_TURN, _CLAIM, _ROB, _OVER = Phase.TURN, Phase.CLAIM, Phase.ROB, Phase.OVER
_DISCARD, _ESCAPE, _SWAP = ActionType.DISCARD, ActionType.ESCAPE, ActionType.SWAP
_ALL_KINDS = tuple(range(NUM_KINDS))
_NO_ACTIONS: tuple[Action, ...] = ()


class Game:
    """One hand. Build with :meth:`new` (seeded random deal) or :meth:`from_deal`."""

    def __init__(
        self, rules: Rules, deal: Deal, dealer: int, *, exchange_direction: int | None = None, bystanders: int = 0,
        validate: bool = True,
    ) -> None:
        """A hand from ``deal``, checked by :func:`~xuezhan.engine.deal.validate_deal` (a
        :class:`~xuezhan.errors.DealError` if it cannot start a hand) unless ``validate`` is false."""
        if validate:
            validate_deal(deal, dealer)
        self._rules = rules
        self._dealer = dealer
        self._deal = deal
        self._seats = [Seat() for _ in range(4)]
        for i, hand in enumerate(deal.hands):
            seat = self._seats[i]
            counts = seat.counts
            for t in hand:
                counts[t] += 1
            seat.keys = list(suit_keys(counts))
            seat.sizes = [sum(counts[0:9]), sum(counts[9:18]), sum(counts[18:27])]
        self._wall = list(deal.wall)
        self._head = 0
        self._tail = len(self._wall)
        self._phase = Phase.EXCHANGE
        self._turn = dealer
        self._drawn: Tile | None = deal.hands[dealer][-1] if deal.hands[dealer] else None
        self._after_kong = False  # the tile in hand came from a kong replacement
        self._drew_last = False  # the current seat drew the last tile of the wall
        self._must_discard = False  # after a peng
        self._tsumo: bool | None = None  # the drawn tile completes the hand (None: not known yet)
        self._turn_kongs: list[KongRecord] = []  # kongs declared in the current turn
        self._zhigang_source: int | None = None  # whose discard the turn's zhigang took
        self._window: Window | None = None
        self._pending_bugang: Tile | None = None
        self._bugang_late = False
        self._clean_start = True  # no claim and no kong yet (天胡/地胡)
        self._ledger: list[LedgerEntry] = []
        self._events: list[dict[str, Any]] = []
        self._owners: list[int | None] = []  # per event: the only seat that sees it whole, if any
        self._winners: list[WinRecord] = []
        self._kongs: list[KongRecord] = []
        self._win_groups = 0
        self._exchange_direction = exchange_direction
        self._legal_cache: dict[int, tuple[Action, ...]] = {}
        self._actions: list[Action] = []  # every action applied, in order (the record)
        if not 0 <= bystanders <= 4:
            raise IllegalActionError("bad_bystanders", "between 0 and 4 bystanders may bet at a table")
        # 叫马: each bystander takes the top tile of the last stack at the tail (secret)
        self._bystander_tiles: list[Tile] = []
        for _ in range(bystanders):
            self._tail -= 1
            self._bystander_tiles.append(self._wall[self._tail])
        self._emit({"type": "start", "dealer": dealer, "wall": self.live, "bystanders": bystanders})
        for i in range(4):
            self._emit({"type": "deal", "seat": i, "tiles": list(deal.hands[i])}, private=i)
        if rules.exchange_three != "none":
            self._phase = Phase.EXCHANGE
        elif rules.dingque:
            self._phase = Phase.DINGQUE
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
        return cls(rules, deal, dealer, exchange_direction=direction, validate=False)  # a shuffled deal is sound

    @classmethod
    def from_deal(cls, rules: Rules, deal: Deal, dealer: int, exchange_direction: int | None = None) -> Game:
        return cls(rules, deal, dealer, exchange_direction=exchange_direction)

    def copy(self) -> Game:
        """A cheap independent copy (for search): seats, wall position and window are copied."""
        g = Game.__new__(Game)
        g.__dict__.update(self.__dict__)
        g._seats = [s.copy() for s in self._seats]
        g._ledger = self._ledger[:]
        g._events = self._events[:]
        g._owners = self._owners[:]
        g._winners = self._winners[:]
        g._actions = self._actions[:]
        g._kongs = [KongRecord(k.seat, k.kind, k.tile, k.payments[:], k.transferred) for k in self._kongs]
        remap = {id(k): g._kongs[i] for i, k in enumerate(self._kongs)}
        g._turn_kongs = [remap[id(k)] for k in self._turn_kongs]
        g._wall = self._wall  # shared: never mutated in place (a swap replaces the list)
        g._bystander_tiles = self._bystander_tiles[:]
        if self._window is not None:
            w = self._window
            g._window = Window(w.tile, w.source, dict(w.options), dict(w.answers),
                               w.after_kong, w.last_tile, w.robbing, w.opened_at)
        g._legal_cache = {}
        return g

    # --- public state, read-only ----------------------------------------------------------
    @property
    def rules(self) -> Rules:
        return self._rules

    @property
    def deal(self) -> Deal:
        """The deal this hand started from."""
        return self._deal

    @property
    def dealer(self) -> int:
        return self._dealer

    @property
    def phase(self) -> Phase:
        return self._phase

    @property
    def turn(self) -> int:
        """The seat whose turn it is (during a claim window: the discarder)."""
        return self._turn

    @property
    def drawn(self) -> Tile | None:
        """The tile the seat in turn drew (``None`` after a peng or when it is not known)."""
        return self._drawn

    @property
    def must_discard(self) -> bool:
        """The seat in turn has just claimed a peng and must discard (no draw, no kong, no hu)."""
        return self._must_discard

    @property
    def exchange_direction(self) -> int | None:
        """The 换三张 direction (see ``EXCHANGE_DIRECTIONS``), once known."""
        return self._exchange_direction

    @property
    def events(self) -> Sequence[dict[str, Any]]:
        """Every event so far, in order, whole (tiles as numbers). What a seat may see of them is
        :func:`xuezhan.engine.views.events_for`."""
        return self._events

    @property
    def event_owners(self) -> Sequence[int | None]:
        """Per event: the only seat that may see it whole (``None``: a public event)."""
        return self._owners

    @property
    def event_count(self) -> int:
        return len(self._events)

    @property
    def actions(self) -> Sequence[Action]:
        """Every action applied, in order: with the deal, the record of the hand."""
        return self._actions

    @property
    def action_count(self) -> int:
        """How many actions have been applied."""
        return len(self._actions)

    @property
    def ledger(self) -> Sequence[LedgerEntry]:
        """Every movement of points, in order."""
        return self._ledger

    @property
    def winners(self) -> Sequence[WinRecord]:
        """The wins so far, in order."""
        return self._winners

    @property
    def kongs(self) -> Sequence[KongRecord]:
        """The kongs so far, with what each earned."""
        return self._kongs

    @property
    def bystander_tiles(self) -> tuple[Tile, ...]:
        """叫马: the tile each bystander took from the tail (secret until the hand ends)."""
        return tuple(self._bystander_tiles)

    @property
    def live_wall(self) -> tuple[Tile, ...]:
        """The live wall's tiles in draw order (the next draw first; kong replacements come from
        the end when ``kong_draw_from_tail``). Secret: no seat's view shows it."""
        return tuple(self._wall[self._head:self._tail])

    @property
    def claim_window(self) -> ClaimWindow | None:
        """The open claim window (a discard or a bugang tile offered), or ``None``."""
        w = self._window
        return w.public() if w is not None else None

    @property
    def pending_bugang(self) -> Tile | None:
        """A bugang tile declared while the other seats may still rob it."""
        return self._pending_bugang

    def seat_state(self, seat: int) -> SeatState:
        """``seat`` read-only: hand, melds, river, void, won, escaped, revealed (all of it: a view
        decides what another seat may see)."""
        return SeatState(self._seats[seat], seat)

    # --- the engine's own records, for tests that set up positions -------------------------
    @property
    def seats(self) -> list[Seat]:
        """The engine's own seat records (internal: code outside the engine reads a seat through
        :meth:`seat_state`; tests build positions through these)."""
        return self._seats

    # --- basic queries --------------------------------------------------------------------
    @property
    def live(self) -> int:
        """Tiles left in the live wall."""
        return self._tail - self._head

    @property
    def over(self) -> bool:
        return self._phase is Phase.OVER

    def active(self, seat: int) -> bool:
        """Still in the hand: pays and is paid, draws and claims."""
        s = self._seats[seat]
        return not s.escaped and (not s.won or self._rules.blood_river)

    def contending(self, seat: int) -> bool:
        """Still playing for a first win (has not won, has not escaped)."""
        s = self._seats[seat]
        return not s.escaped and not s.won

    def next_active(self, seat: int) -> int | None:
        blood = self._rules.blood_river
        seats = self._seats
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
        for e in self._ledger:
            d[e.from_seat] -= e.points
            d[e.to_seat] += e.points
        return d

    def tile_total(self) -> int:
        """Every tile accounted for: live wall, hands, melds, rivers (claimed ones lie in melds), set aside,
        a declared bugang tile while others may rob it, and the bystanders' tiles (叫马)."""
        n = self.live + (self._pending_bugang is not None) + len(self._bystander_tiles)
        for s in self._seats:
            n += sum(s.counts) + sum(m.size for m in s.melds) + len(s.aside)
            n += sum(1 for st in s.river_state if st != RIVER_CLAIMED)
        return n

    def pending(self) -> list[int]:
        """The seats that must act now."""
        ph = self._phase
        if ph is Phase.TURN:
            return [self._turn]
        if ph is Phase.CLAIM or ph is Phase.ROB:
            assert self._window is not None
            return [s for s in self._window.options if s not in self._window.answers]
        if ph is Phase.EXCHANGE or ph is Phase.DINGQUE:
            return [i for i in range(4) if self._seats[i].choice is None and not self._seats[i].escaped]
        return []

    # --- events and ledger ------------------------------------------------------------------
    def _emit(self, event: dict[str, Any], private: int | None = None) -> None:
        self._events.append(event)
        self._owners.append(private)

    def _pay(self, payer: int, payee: int, points: int, reason: str) -> None:
        if points <= 0 or payer == payee:
            return
        entry = LedgerEntry(payer, payee, points, reason)
        self._ledger.append(entry)
        self._emit({"type": "pay", "from": payer, "to": payee, "points": points, "reason": reason})

    # --- legal actions -------------------------------------------------------------------------
    def legal_actions(self, seat: int) -> tuple[Action, ...]:
        """Everything ``seat`` may do now (empty when it need not act), as a tuple of frozen
        :class:`Action` values. Escape is always possible while the hand runs and is not listed;
        see :meth:`can_escape`."""
        cached = self._legal_cache.get(seat)
        if cached is not None:
            return cached
        acts = self._compute_legal(seat)
        self._legal_cache[seat] = acts
        return acts

    def _compute_legal(self, seat: int) -> tuple[Action, ...]:
        ph = self._phase
        s = self._seats[seat]
        if ph is Phase.TURN:
            if seat != self._turn:
                return _NO_ACTIONS
            return tuple(self._turn_actions(seat))
        if ph is Phase.CLAIM or ph is Phase.ROB:
            w = self._window
            assert w is not None
            if seat in w.answers:
                return _NO_ACTIONS
            return w.options.get(seat, _NO_ACTIONS)
        if ph is Phase.DINGQUE:
            if s.choice is not None or s.escaped:
                return _NO_ACTIONS
            present = [suit for suit in range(3) if s.sizes[suit] > 0]
            if len(present) == 2:
                choices = [suit for suit in range(3) if suit not in present]
            elif len(present) == 1:
                choices = [suit for suit in range(3) if suit != present[0]]
            else:
                choices = [0, 1, 2]
            return tuple([Action(seat, ActionType.DINGQUE, suit=c) for c in choices])
        if ph is Phase.EXCHANGE:
            if s.choice is not None or s.escaped:
                return _NO_ACTIONS
            out: list[Action] = []
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
            return tuple(out)
        return _NO_ACTIONS

    def _turn_actions(self, seat: int) -> list[Action]:
        s = self._seats[seat]
        counts = s.counts
        out: list[Action] = []
        if s.won:  # blood_river: a winner keeps its hand; it may hu again or give up the drawn tile
            if s.is_complete():
                out.append(HU_ACTIONS[seat])
                if self._rules.must_hu_last_four and self.live <= 4:
                    return out
            if self._drawn is not None:
                out.append(DISCARD_ACTIONS[seat][self._drawn])
            return out
        if self._must_discard:
            return self._discards(seat)
        tsumo = self._tsumo
        if tsumo is None:
            tsumo = s.is_complete()
        if tsumo:
            out.append(HU_ACTIONS[seat])
            if self._rules.must_hu_last_four and self.live <= 4:
                return out
        if self._tail > self._head:
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
        s = self._seats[seat]
        counts = s.counts
        void = s.void
        acts = DISCARD_ACTIONS[seat]
        if void is not None and s.sizes[void]:
            lo = void * 9
            return [acts[t] for t in range(lo, lo + 9) if counts[t]]
        return [acts[t] for t in _ALL_KINDS if counts[t]]

    def can_escape(self, seat: int) -> bool:
        return self._phase is not Phase.OVER and not self._seats[seat].escaped

    # --- item cards (RULES 13) --------------------------------------------------------------------
    def wall_positions(self, t: Tile) -> list[int]:
        """Where copies of ``t`` lie in the live wall, as distances from the head (0 = next draw)."""
        return [i - self._head for i in range(self._head, self._tail) if self._wall[i] == t]

    def can_swap(self, seat: int, hand_tile: Tile, wanted: Tile) -> str | None:
        """``None`` if ``seat`` may swap ``hand_tile`` for ``wanted`` from the live wall now, else a code."""
        if self._phase is not Phase.TURN or self._turn != seat:
            return "not_your_turn"
        s = self._seats[seat]
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
        pos = self._head + self.wall_positions(wanted)[0]
        wall = list(self._wall)  # copy on write: copies of a game share the wall
        wall[pos] = hand_tile
        self._wall = wall
        s = self._seats[seat]
        s.remove(hand_tile)
        s.add(wanted)
        self._tsumo = None
        if self._drawn == hand_tile and s.counts[hand_tile] == 0:
            self._drawn = wanted
        self._emit({"type": "swap", "seat": seat, "tile": hand_tile, "tiles": [wanted]}, private=seat)

    # --- apply ----------------------------------------------------------------------------------
    def apply(self, action: Action) -> None:
        """Apply one legal action. Raises :class:`IllegalActionError` (and changes nothing) otherwise."""
        phase = self._phase
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
        self._actions.append(action)
        if phase is _TURN:
            if kind is _DISCARD:
                assert action.tile is not None
                discard(self, seat, action.tile)
            else:
                self._turn_action(action)
        elif phase is _CLAIM or phase is _ROB:
            w = self._window
            assert w is not None
            w.answers[seat] = action
            if len(w.answers) == len(w.options):
                resolve_window(self)
        else:
            self._choose(action)

    def _apply_item_or_escape(self, action: Action) -> None:
        seat = action.seat
        if not isinstance(seat, int) or not 0 <= seat <= 3:
            raise IllegalActionError("bad_seat", f"no seat {seat}")
        if action.type is ActionType.ESCAPE:
            if not self.can_escape(seat):
                raise IllegalActionError("already_escaped", f"seat {seat} has already left")
            self._actions.append(action)
            settlement.escape(self, seat)
            self._legal_cache.clear()
            return
        why = self.can_swap(seat, action.tile if action.tile is not None else -1,
                            action.tiles[0] if action.tiles else -1)
        if why is not None:
            raise IllegalActionError(why, f"illegal action: {action}")
        self._legal_cache.clear()
        self._actions.append(action)
        self._swap(seat, action.tile or 0, action.tiles[0])

    def _why_illegal(self, action: Action) -> str:
        """A stable code for why ``action`` is not legal now."""
        seat = action.seat
        if seat not in self.pending():
            return "not_your_turn"
        s = self._seats[seat]
        legal_types = {a.type for a in self.legal_actions(seat)}
        if action.type not in legal_types:
            if legal_types == {ActionType.HU}:  # a rule forces the win (最后四张必须胡): pass or discard alike
                return "must_hu"
            if action.type is ActionType.HU:
                w = self._window
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
        s = self._seats[action.seat]
        s.choice = action
        kind = "exchange_chosen" if self._phase is Phase.EXCHANGE else "dingque_chosen"
        self._emit({"type": kind, "seat": action.seat})
        if any(self._seats[i].choice is None and not self._seats[i].escaped for i in range(4)):
            return
        if self._phase is Phase.EXCHANGE:
            direction = self._exchange_direction or EXCHANGE_DIRECTIONS.get(self._rules.exchange_three, 1)
            self._exchange_direction = direction
            given: list[tuple[Tile, ...]] = []
            for seat in self._seats:
                given.append(seat.choice.tiles if seat.choice is not None else ())
            for i in range(4):
                for t in given[i]:
                    self._seats[i].remove(t)
            for i in range(4):
                to = (i + direction) % 4
                for t in given[i]:
                    self._seats[to].add(t)
                self._emit({"type": "exchange", "seat": i, "to": to, "tiles": list(given[i])}, private=i)
                self._emit({"type": "exchange_received", "seat": to, "tiles": list(given[i])}, private=to)
            # the dealer's 14th tile is whatever it now holds last: keep a held tile for autoplay
            if self._drawn is not None and self._seats[self._dealer].counts[self._drawn] == 0:
                self._drawn = None
            for seat in self._seats:
                seat.choice = None
            self._emit({"type": "exchange_done", "direction": direction})
            if self._rules.dingque:
                self._phase = Phase.DINGQUE
            else:
                self._start_play()
            return
        for i in range(4):
            choice = self._seats[i].choice
            self._seats[i].void = choice.suit if choice else None
            self._seats[i].wm = -1
            self._seats[i].choice = None
        self._emit({"type": "dingque", "voids": [self._seats[i].void for i in range(4)]})
        self._start_play()

    def _start_play(self) -> None:
        self._tsumo = None
        self._phase = Phase.TURN
        self._turn = self._dealer
        self._must_discard = False
        self._after_kong = False
        self._emit({"type": "turn", "seat": self._dealer})

    # --- turns ---------------------------------------------------------------------------------------
    def _draw(self, seat: int, replacement: bool = False) -> None:
        if replacement and self._rules.kong_draw_from_tail:
            self._tail -= 1
            t = self._wall[self._tail]
        else:
            t = self._wall[self._head]
            self._head += 1
        s = self._seats[seat]
        # can it hu now? the wait mask of its 13 tiles (usually cached by the last discards) says
        wm = s.wm if s.wm >= 0 else s.wait_mask()
        self._tsumo = bool(wm >> t & 1)
        s.add(t)
        s.draws += 1
        if s.pass_hu:
            s.pass_hu.clear()
        s.pass_hu_any = False
        self._phase = Phase.TURN
        self._turn = seat
        self._drawn = t
        self._after_kong = replacement
        self._drew_last = self._tail == self._head
        self._must_discard = False
        if not replacement:
            self._turn_kongs = []
            self._zhigang_source = None
        self._emit({"type": "draw", "seat": seat, "tile": t, "replacement": replacement}, private=seat)

    def _next_draw(self, after: int) -> None:
        """The next active seat after ``after`` draws, or the hand ends when the wall is empty."""
        nxt = self.next_active(after)
        if nxt is None or self._tail == self._head:
            settlement.end_exhausted(self)
            return
        self._draw(nxt)

    def _turn_action(self, action: Action) -> None:
        seat = action.seat
        s = self._seats[seat]
        kind = action.type
        if kind is ActionType.HU:
            self_drawn_win(self, seat)
        elif kind is ActionType.DISCARD:
            assert action.tile is not None
            discard(self, seat, action.tile)
        elif kind is ActionType.GANG:
            assert action.tile is not None
            t = action.tile
            if s.counts[t] == 4:
                angang(self, seat, t)
            else:
                start_bugang(self, seat, t)

    # --- the end and the result (see :mod:`xuezhan.engine.settlement`) -----------------------------------
    def is_ready(self, seat: int) -> bool:
        """``seat`` waits on at least one tile (听牌)."""
        return bool(settlement.waits(self, seat))

    def waits(self, seat: int) -> list[Tile]:
        """The tiles that would complete ``seat``'s hand."""
        return settlement.waits(self, seat)

    def is_hua_zhu(self, seat: int) -> bool:
        """花猪: ``seat`` still holds three suits (or, with 定缺, a tile of its void suit)."""
        return settlement.is_hua_zhu(self, seat)

    def da_jiao(self, seat: int, pays: str | None = None) -> int:
        """The points of a ready seat's best (``max``) or lowest (``min``) discard win (大叫)."""
        return settlement.da_jiao(self, seat, pays)

    def next_dealer(self) -> int | None:
        """The dealer of the next hand by ``dealer_rule`` (``None``: thrown by dice)."""
        return settlement.next_dealer(self)

    def result_json(self) -> dict[str, Any]:
        """The hand's result: winners, ledger, deltas, next dealer and every event (whole)."""
        return settlement.result_json(self)
