"""One hand of blood-battle mahjong as a state machine (docs/rules.md §2-8).

:class:`Game` holds the whole state of a hand. Callers ask who must act
(:meth:`Game.pending`), what each seat may do (:meth:`Game.legal_actions`), and
:meth:`Game.apply` an action: an illegal one raises
:class:`~xuezhan.errors.IllegalActionError` and changes nothing. Every movement of
points is a :class:`LedgerEntry` recorded at the moment it happens, and every step
is an event; :meth:`Game.view` (a :class:`~xuezhan.engine.views.SeatView`) gives what
one seat may see.

The engine never prints, sleeps, reads a clock or uses global randomness; a seeded
``random.Random`` is used only to deal (and to pick a random 换三张 direction).

The whole state of the hand is one :class:`~xuezhan.engine.state.HandState`, which the
game owns; the rules of one hand are functions over it, in layers that import only
downwards: what a hand is worth and sees in :mod:`~xuezhan.engine.worth`, the next draw and
the end of the hand with its settlement in :mod:`~xuezhan.engine.settlement`, kongs and their
payments in :mod:`~xuezhan.engine.kongs`, wins in :mod:`~xuezhan.engine.wins`, the claim
window in :mod:`~xuezhan.engine.claims`. :class:`Game` sits on top: it is the one public
class, and the only code that touches its own private fields. The amounts paid come from
:mod:`xuezhan.scoring`; the events are the typed dicts of :mod:`~xuezhan.engine.events`;
what any seat may see is decided in :mod:`~xuezhan.engine.visibility` (importable from
:mod:`~xuezhan.engine.views`, which also samples worlds for a search).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Final, cast

from ..errors import IllegalActionError
from ..ids import ErrorCode, EventKind, Reason
from ..rules import Rules
from ..scoring import escape_points
from ..tiles import NUM_KINDS, Tile
from .actions import Action, ActionType, LedgerEntry
from .claims import discard, resolve_window
from .deal import Deal, random_deal, throw_for_dealer, validate_deal
from .kongs import angang, start_bugang
from .legal import compute_legal, pending, why_illegal
from .settlement import finish, next_dealer, next_draw, result_json
from .state import (
    EXCHANGE_DIRECTIONS,
    RIVER_CLAIMED,
    RIVER_OPEN,
    RIVER_ROBBED,
    RIVER_WON,
    ClaimWindow,
    HandState,
    KongRecord,
    Phase,
    Seat,
    SeatState,
    WinRecord,
    completing_ranks,
)
from .visibility import SeatView
from .wins import self_drawn_win, winners_play_on
from .worth import da_jiao, hand_finished, is_hua_zhu, waits

__all__ = [
    "EXCHANGE_DIRECTIONS",
    "RIVER_CLAIMED",
    "RIVER_OPEN",
    "RIVER_ROBBED",
    "RIVER_WON",
    "ClaimWindow",
    "Game",
    "HandState",
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
_WIN_REASONS: Final = frozenset({Reason.HU, Reason.ZIMO, Reason.CALL_TRANSFER})


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
        self._st = st = HandState(rules, deal, dealer, exchange_direction)
        if not 0 <= bystanders <= 4:
            raise IllegalActionError(ErrorCode.BAD_BYSTANDERS, "between 0 and 4 bystanders may bet at a table")
        # 叫马: each bystander takes the top tile of the last stack at the tail (secret)
        for _ in range(bystanders):
            st.tail -= 1
            st.bystander_tiles.append(st.wall[st.tail])
        st.emit({"type": EventKind.START, "dealer": dealer, "wall": st.live, "bystanders": bystanders})
        for i in range(4):
            st.emit({"type": EventKind.DEAL, "seat": i, "tiles": list(deal.hands[i])}, private=i)
        if rules.exchange_three != "none":
            st.phase = Phase.EXCHANGE
        elif rules.dingque:
            st.phase = Phase.DINGQUE
        else:
            self._start_play()

    # --- construction -------------------------------------------------------------------
    @classmethod
    def new(
        cls, rules: Rules | None = None, *, seed: int | None = None, rng: random.Random | None = None,
        dealer: int | None = None,
    ) -> Game:
        """A hand with a shuffled wall, dice and the deal of docs/rules.md §2; deterministic for a seed."""
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

    @classmethod
    def from_state(cls, state: HandState) -> Game:
        """The game of ``state``, the engine's own record of a hand (a copy of one, for a search)."""
        g = cls.__new__(cls)
        g._st = state
        return g

    def copy(self) -> Game:
        """A cheap independent copy (for search): seats, wall position and window are copied."""
        return Game.from_state(self._st.copy())

    # --- public state, read-only ----------------------------------------------------------
    @property
    def rules(self) -> Rules:
        return self._st.rules

    @property
    def deal(self) -> Deal:
        """The deal this hand started from."""
        return self._st.deal

    @property
    def dealer(self) -> int:
        return self._st.dealer

    @property
    def phase(self) -> Phase:
        return self._st.phase

    @property
    def turn(self) -> int:
        """The seat whose turn it is (during a claim window: the discarder)."""
        return self._st.turn

    @property
    def drawn(self) -> Tile | None:
        """The tile the seat in turn drew (``None`` after a peng or when it is not known)."""
        return self._st.drawn

    @property
    def must_discard(self) -> bool:
        """The seat in turn has just claimed a peng and must discard (no draw, no kong, no hu)."""
        return self._st.must_discard

    @property
    def exchange_direction(self) -> int | None:
        """The 换三张 direction (see ``EXCHANGE_DIRECTIONS``), once known."""
        return self._st.exchange_direction

    @property
    def events(self) -> Sequence[dict[str, Any]]:
        """Every event so far, in order, whole (tiles as numbers): typed dicts of
        :mod:`xuezhan.engine.events`, read as plain ones. What a seat may see of them is
        :func:`xuezhan.engine.views.events_for`."""
        return cast("list[dict[str, Any]]", self._st.events)

    @property
    def event_owners(self) -> Sequence[int | None]:
        """Per event: the only seat that may see it whole (``None``: a public event)."""
        return self._st.owners

    @property
    def event_count(self) -> int:
        return len(self._st.events)

    @property
    def actions(self) -> Sequence[Action]:
        """Every action applied, in order: with the deal, the record of the hand."""
        return self._st.actions

    @property
    def action_count(self) -> int:
        """How many actions have been applied."""
        return len(self._st.actions)

    @property
    def ledger(self) -> Sequence[LedgerEntry]:
        """Every movement of points, in order."""
        return self._st.ledger

    @property
    def winners(self) -> Sequence[WinRecord]:
        """The wins so far, in order."""
        return self._st.winners

    @property
    def winners_play_on(self) -> bool:
        """A winner plays on after its win (血流成河): its hand at the end is not the one it won
        with. Else (血战到底) a winner's hand at the end, the self-drawn winning tile in it, is
        the one it won with."""
        return winners_play_on(self._st)

    @property
    def kongs(self) -> Sequence[KongRecord]:
        """The kongs so far, with what each earned."""
        return self._st.kongs

    @property
    def bystander_tiles(self) -> tuple[Tile, ...]:
        """叫马: the tile each bystander took from the tail (secret until the hand ends)."""
        return tuple(self._st.bystander_tiles)

    @property
    def live_wall(self) -> tuple[Tile, ...]:
        """The live wall's tiles in draw order (the next draw first; kong replacements come from
        the end when ``kong_draw_from_tail``). Secret: no seat's view shows it."""
        st = self._st
        return tuple(st.wall[st.head:st.tail])

    @property
    def claim_window(self) -> ClaimWindow | None:
        """The open claim window (a discard or a bugang tile offered), or ``None``."""
        w = self._st.window
        return w.public() if w is not None else None

    @property
    def pending_bugang(self) -> Tile | None:
        """A bugang tile declared while the other seats may still rob it."""
        return self._st.pending_bugang

    def seat_state(self, seat: int) -> SeatState:
        """``seat`` read-only: hand, melds, river, void, won, escaped, revealed (all of it: a view
        decides what another seat may see)."""
        return SeatState(self._st.seats[seat], seat)

    # --- the engine's own records, for the engine's modules and tests that set up positions -------
    @property
    def state(self) -> HandState:
        """The engine's own mutable record of the hand (internal: the engine's modules work on it,
        and tests set up positions through it; everything else reads the properties above)."""
        return self._st

    @property
    def seats(self) -> list[Seat]:
        """The engine's own seat records (internal: code outside the engine reads a seat through
        :meth:`seat_state`; tests build positions through these)."""
        return self._st.seats

    # --- basic queries --------------------------------------------------------------------
    @property
    def live(self) -> int:
        """Tiles left in the live wall."""
        st = self._st
        return st.tail - st.head

    @property
    def over(self) -> bool:
        return self._st.phase is _OVER

    def active(self, seat: int) -> bool:
        """Still in the hand: pays and is paid, draws and claims."""
        return self._st.active(seat)

    def contending(self, seat: int) -> bool:
        """Still playing for a first win (has not won, has not escaped)."""
        return self._st.contending(seat)

    def next_active(self, seat: int) -> int | None:
        return self._st.next_active(seat)

    def view(self, seat: int) -> SeatView:
        """What ``seat`` may see of this hand."""
        return SeatView(self, seat)

    def deltas(self) -> list[int]:
        return self._st.deltas()

    def tile_total(self) -> int:
        """Every tile accounted for: live wall, hands, melds, rivers (claimed ones lie in melds), set aside,
        a declared bugang tile while others may rob it, and the bystanders' tiles (叫马)."""
        st = self._st
        n = st.live + (st.pending_bugang is not None) + len(st.bystander_tiles)
        for s in st.seats:
            n += sum(s.counts) + sum(m.size for m in s.melds) + len(s.aside)
            n += sum(1 for state in s.river_state if state != RIVER_CLAIMED)
        return n

    def pending(self) -> list[int]:
        """The seats that must act now."""
        return pending(self._st)

    # --- legal actions -------------------------------------------------------------------------
    def legal_actions(self, seat: int) -> tuple[Action, ...]:
        """Everything ``seat`` may do now (empty when it need not act), as a tuple of frozen
        :class:`Action` values. Escape is always possible while the hand runs and is not listed;
        see :meth:`can_escape`."""
        cache = self._st.legal_cache
        cached = cache.get(seat)
        if cached is not None:
            return cached
        acts = compute_legal(self._st, seat)
        cache[seat] = acts
        return acts

    def can_escape(self, seat: int) -> bool:
        return self._st.phase is not _OVER and not self._st.seats[seat].escaped

    # --- item cards (docs/rules.md §13) --------------------------------------------------------------------
    def wall_positions(self, t: Tile) -> list[int]:
        """Where copies of ``t`` lie in the live wall, as distances from the head (0 = next draw)."""
        st = self._st
        return [i - st.head for i in range(st.head, st.tail) if st.wall[i] == t]

    def can_swap(self, seat: int, hand_tile: Tile, wanted: Tile) -> str | None:
        """``None`` if ``seat`` may swap ``hand_tile`` for ``wanted`` from the live wall now, else a code."""
        st = self._st
        if st.phase is not _TURN or st.turn != seat:
            return ErrorCode.NOT_YOUR_TURN
        s = st.seats[seat]
        if s.won:
            return ErrorCode.ALREADY_WON
        if not 0 <= hand_tile < NUM_KINDS or s.counts[hand_tile] == 0:
            return ErrorCode.TILE_NOT_IN_HAND
        if not 0 <= wanted < NUM_KINDS or not self.wall_positions(wanted):
            return ErrorCode.TILE_NOT_IN_WALL
        if wanted == hand_tile:
            return ErrorCode.SAME_TILE
        return None

    def _swap(self, seat: int, hand_tile: Tile, wanted: Tile) -> None:
        """换牌卡: the wanted tile leaves the live wall and the hand tile takes its place (108 tiles)."""
        st = self._st
        pos = st.head + self.wall_positions(wanted)[0]
        wall = list(st.wall)  # copy on write: copies of a game share the wall
        wall[pos] = hand_tile
        st.wall = wall
        s = st.seats[seat]
        s.remove(hand_tile)
        s.add(wanted)
        st.tsumo = None
        if st.drawn == hand_tile and s.counts[hand_tile] == 0:
            st.drawn = wanted
        st.emit({"type": EventKind.SWAP, "seat": seat, "tile": hand_tile, "tiles": [wanted]}, private=seat)

    # --- apply ----------------------------------------------------------------------------------
    def apply(self, action: Action) -> None:
        """Apply one legal action. Raises :class:`IllegalActionError` (and changes nothing) otherwise."""
        st = self._st
        phase = st.phase
        if phase is _OVER:
            raise IllegalActionError(ErrorCode.HAND_OVER, f"the hand is over: {action}")
        kind = action.type
        seat = action.seat
        if kind is _ESCAPE or kind is _SWAP:
            self._apply_item_or_escape(action)
            return
        legal = st.legal_cache.get(seat)
        if legal is None:
            if not isinstance(seat, int) or not 0 <= seat <= 3:
                raise IllegalActionError(ErrorCode.BAD_SEAT, f"no seat {seat}")
            legal = self.legal_actions(seat)
        for a in legal:  # identity first: bots hand back the engine's own action values
            if a is action:
                break
        else:
            if action not in legal:
                raise IllegalActionError(why_illegal(self._st, action, self.legal_actions), f"illegal action: {action}")
        st.legal_cache.clear()
        st.actions.append(action)
        if phase is _TURN:
            if kind is _DISCARD:
                assert action.tile is not None
                discard(st, seat, action.tile)
            else:
                self._turn_action(action)
        elif phase is _CLAIM or phase is _ROB:
            w = st.window
            assert w is not None
            w.answers[seat] = action
            if len(w.answers) == len(w.options):
                resolve_window(st)
        else:
            self._choose(action)

    def _apply_item_or_escape(self, action: Action) -> None:
        st = self._st
        seat = action.seat
        if not isinstance(seat, int) or not 0 <= seat <= 3:
            raise IllegalActionError(ErrorCode.BAD_SEAT, f"no seat {seat}")
        if action.type is ActionType.ESCAPE:
            if not self.can_escape(seat):
                raise IllegalActionError(ErrorCode.ALREADY_ESCAPED, f"seat {seat} has already left")
            st.actions.append(action)
            self._escape(seat)
            st.legal_cache.clear()
            return
        why = self.can_swap(seat, action.tile if action.tile is not None else -1,
                            action.tiles[0] if action.tiles else -1)
        if why is not None:
            raise IllegalActionError(why, f"illegal action: {action}")
        st.legal_cache.clear()
        st.actions.append(action)
        self._swap(seat, action.tile or 0, action.tiles[0])

    # --- exchange and dingque -----------------------------------------------------------------------
    def _choose(self, action: Action) -> None:
        st = self._st
        seats = st.seats
        seats[action.seat].choice = action
        if st.phase is Phase.EXCHANGE:
            st.emit({"type": EventKind.EXCHANGE_CHOSEN, "seat": action.seat})
        else:
            st.emit({"type": EventKind.DINGQUE_CHOSEN, "seat": action.seat})
        if any(seats[i].choice is None and not seats[i].escaped for i in range(4)):
            return
        if st.phase is Phase.EXCHANGE:
            direction = st.exchange_direction or EXCHANGE_DIRECTIONS.get(st.rules.exchange_three, 1)
            st.exchange_direction = direction
            given: list[tuple[Tile, ...]] = []
            for seat in seats:
                given.append(seat.choice.tiles if seat.choice is not None else ())
            for i in range(4):
                for t in given[i]:
                    seats[i].remove(t)
            for i in range(4):
                to = (i + direction) % 4
                for t in given[i]:
                    seats[to].add(t)
                st.emit({"type": EventKind.EXCHANGE, "seat": i, "to": to, "tiles": list(given[i])}, private=i)
                st.emit({"type": EventKind.EXCHANGE_RECEIVED, "seat": to, "tiles": list(given[i])}, private=to)
            # the dealer's 14th tile is whatever it now holds last: keep a held tile for autoplay
            if st.drawn is not None and seats[st.dealer].counts[st.drawn] == 0:
                st.drawn = None
            for seat in seats:
                seat.choice = None
            st.emit({"type": EventKind.EXCHANGE_DONE, "direction": direction})
            if st.rules.dingque:
                st.phase = Phase.DINGQUE
            else:
                self._start_play()
            return
        for seat in seats:
            choice = seat.choice
            seat.void = choice.suit if choice else None
            seat.wm = -1
            seat.choice = None
        st.emit({"type": EventKind.DINGQUE, "voids": [seat.void for seat in seats]})
        self._start_play()

    def _start_play(self) -> None:
        st = self._st
        st.tsumo = None
        st.phase = Phase.TURN
        st.turn = st.dealer
        st.must_discard = False
        st.after_kong = False
        st.emit({"type": EventKind.TURN, "seat": st.dealer})

    # --- turns ---------------------------------------------------------------------------------------
    def _turn_action(self, action: Action) -> None:
        st = self._st
        seat = action.seat
        kind = action.type
        if kind is ActionType.HU:
            self_drawn_win(st, seat)
        elif kind is ActionType.DISCARD:
            assert action.tile is not None
            discard(st, seat, action.tile)
        elif kind is ActionType.GANG:
            assert action.tile is not None
            t = action.tile
            if st.seats[seat].counts[t] == 4:
                angang(st, seat, t)
            else:
                start_bugang(st, seat, t)

    def _escape(self, seat: int) -> None:
        """``seat`` leaves (docs/rules.md §10): while contending it pays everyone and the hand ends; a winner
        may leave and the hand goes on."""
        st = self._st
        s = st.seats[seat]
        was_contending = st.contending(seat)
        st.emit({"type": EventKind.ESCAPE, "seat": seat})
        if was_contending:
            others = [o for o in range(4) if o != seat and st.active(o)]
            penalty = escape_points(st.rules)
            for o in others:
                pts = penalty
                if st.live <= 4 and st.seats[o].won is False and bool(waits(st, o)):
                    pts = max(pts, da_jiao(st, o, "max"))
                st.pay(seat, o, pts, Reason.ESCAPE)
            s.escaped = True
            finish(st)
            return
        # a seat that has won leaves: the hand goes on
        s.escaped = True
        if st.rules.escaped_winner_forfeits:
            for e in list(st.ledger):
                if e.to_seat == seat and e.reason in _WIN_REASONS:
                    st.pay(seat, e.from_seat, e.points, Reason.ESCAPE)
        w = st.window
        if st.phase is _TURN and st.turn == seat:
            next_draw(st, seat)
        elif w is not None and seat in w.options:
            w.options.pop(seat)
            w.answers.pop(seat, None)
            if len(w.answers) == len(w.options):
                resolve_window(st)
        if st.phase is not _OVER and hand_finished(st) and not st.rules.end_on_first_win:
            finish(st)

    # --- the end and the result (see :mod:`xuezhan.engine.settlement`) -----------------------------------
    def is_ready(self, seat: int) -> bool:
        """``seat`` waits on at least one tile (听牌)."""
        return bool(waits(self._st, seat))

    def waits(self, seat: int) -> list[Tile]:
        """The tiles that would complete ``seat``'s hand."""
        return waits(self._st, seat)

    def is_hua_zhu(self, seat: int) -> bool:
        """花猪: ``seat`` still holds three suits (or, with 定缺, a tile of its void suit)."""
        return is_hua_zhu(self._st, seat)

    def da_jiao(self, seat: int, pays: str | None = None) -> int:
        """The points of a ready seat's best (``max``) or lowest (``min``) discard win (大叫)."""
        return da_jiao(self._st, seat, pays)

    def next_dealer(self) -> int | None:
        """The dealer of the next hand by ``dealer_rule`` (``None``: thrown by dice)."""
        return next_dealer(self._st)

    def result_json(self) -> dict[str, Any]:
        """The hand's result: winners, ledger, deltas, next dealer and every event (whole)."""
        return result_json(self._st)
