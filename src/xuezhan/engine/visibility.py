"""What one seat may see: the one place that decides visibility.

A view never holds another seat's concealed tiles (until that hand is laid down at a
win or at the end), another seat's concealed kong face up, the secret that a seat passed
on a win, who else may claim a discard, or the order of the wall. The server and the
terminal only call :func:`visible_events`, :func:`events_for`, :func:`seat_view_json`,
:func:`table_views`, :func:`after_discard`, :func:`after_bugang`, :func:`window_hidden` and
:class:`SeatView` (all importable from
:mod:`xuezhan.engine.views`), and serialize what they return.

This module reads the :class:`~xuezhan.engine.state.HandState` of a hand; it sits below
:mod:`~xuezhan.engine.game` (whose :meth:`~xuezhan.engine.game.Game.view` builds a
:class:`SeatView`), and takes a game as anything with a ``state`` and ``legal_actions``
(:class:`HasHand`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Final, Protocol, cast

from ..hand import shanten, winning_tiles
from ..ids import EventKind
from ..scoring import MeldKind, Score, WinContext, score_win
from ..tiles import SUITS, format_counts, tile_name
from .actions import Action, ActionType
from .claims import discard_shown
from .events import event_json
from .kongs import bugang_shown
from .settlement import result_json
from .state import RIVER_CLAIMED, HandState, Phase

if TYPE_CHECKING:
    from ..rules import Rules


class HasHand(Protocol):
    """A hand as the views read it (a :class:`~xuezhan.engine.game.Game`): its state and what
    each seat may do."""

    @property
    def state(self) -> HandState: ...

    def legal_actions(self, seat: int) -> tuple[Action, ...]: ...


_HIDDEN_FIELDS: Final = frozenset({"tile", "tiles"})
_SECRET_EVENTS: Final = frozenset({EventKind.PASS_HU})
"""Private events whose mere existence is secret: that a seat passed on a win tells others its wait."""


def visible_events(game: HasHand, seat: int | None, start: int = 0) -> list[dict[str, Any]]:
    """The events from index ``start`` on as ``seat`` may see them (``None``: a spectator), tiles
    as numbers: another seat's private event (its deal, draws, exchange, concealed kong) comes
    without its tiles, and a secret one (that a seat passed on a win) is left out."""
    out: list[dict[str, Any]] = []
    st = game.state
    events = cast("list[dict[str, Any]]", st.events)  # typed dicts, read as plain ones
    owners = st.owners
    for i in range(start, len(events)):
        owner = owners[i]
        ev = events[i]
        if owner is None or owner == seat:
            out.append(ev)
        elif ev.get("type") not in _SECRET_EVENTS:
            out.append({k: v for k, v in ev.items() if k not in _HIDDEN_FIELDS})
    return out


def events_for(game: HasHand, seat: int | None, start: int = 0) -> list[dict[str, Any]]:
    """:func:`visible_events` as JSON (tiles as text): what a client of ``seat`` is sent."""
    return [event_json(ev) for ev in visible_events(game, seat, start)]


_NAMES: Final = tuple(tile_name(t) for t in range(27))
"""Each tile's name by number (the engine's tiles are always in range)."""


def _seat_entry(st: HandState, i: int, viewer: int | None, voids_public: bool,
                public: dict[str, Any] | None = None) -> dict[str, Any]:
    """Seat ``i`` as ``viewer`` sees it: its concealed hand only to itself or once laid down, a
    concealed kong face down (no tile) likewise, its void once all four have chosen.

    ``public``, the entry of seat ``i`` as a spectator sees it, is reused: the seat itself sees
    the same table, with its own hand, concealed kongs and void added."""
    s = st.seats[i]
    shown = i == viewer or s.revealed
    if public is not None:
        entry = dict(public)
        if not s.revealed:
            entry["melds"] = [{"type": str(m.kind), "tile": _NAMES[m.tile]} for m in s.melds]
            entry["hand"] = format_counts(s.counts)
        if s.void is not None:
            entry["void"] = SUITS[s.void]
        return entry
    names = _NAMES
    entry = {
        "seat": i,
        "concealed": sum(s.counts),
        "melds": [
            {"type": str(m.kind), "tile": None if m.kind is MeldKind.ANGANG and not shown else names[m.tile]}
            for m in s.melds
        ],
        "river": [names[t] for t in s.river],
        "river_state": list(s.river_state),
        "aside": [names[t] for t in s.aside],
        "void": SUITS[s.void] if (s.void is not None and (voids_public or i == viewer)) else None,
        "won": s.won,
        "wins": s.wins,
        "escaped": s.escaped,
    }
    if shown:
        entry["hand"] = format_counts(s.counts)
    return entry


def _visible_counts(st: HandState, seat: int) -> list[int]:
    """Copies of each tile ``seat`` can see (see :meth:`SeatView.visible_counts`)."""
    me = st.seats[seat]
    vis = me.counts[:]
    for i, s in enumerate(st.seats):
        for m in s.melds:
            if m.kind is MeldKind.ANGANG and i != seat and not s.revealed:
                continue  # face down
            vis[m.tile] += m.size
        for t, state in zip(s.river, s.river_state, strict=False):
            if state != RIVER_CLAIMED:
                vis[t] += 1
        for t in s.aside:
            vis[t] += 1
        if s is not me and s.revealed:
            for t in range(27):
                vis[t] += s.counts[t]
    if st.pending_bugang is not None:
        vis[st.pending_bugang] += 1  # an added kong declared, open to robbing: out of the hand, face up
    return vis


WaitList = list[dict[str, Any]]
"""Waits as a view gives them: ``[{"tile", "left", "fan"}]``."""
_WaitKey = tuple[tuple[int, ...], tuple[Any, ...], int | None, "Rules"]
_WAITS_CACHE: dict[_WaitKey, list[tuple[int, int]]] = {}
"""Each ready hand's waits and their fan, by concealed counts, melds, void and rules: views are
built on every change of a table, and a hand changes far less often than the table."""
_WAITS_CACHE_SIZE: Final = 4096


def _waits_of(st: HandState, seat: int, counts: list[int]) -> list[tuple[int, int]]:
    """The waits of ``seat`` holding ``counts`` (13-tile equivalent) with its melds and void, each
    with the fan of a discard win on it as the hand stands."""
    s = st.seats[seat]
    if shanten(counts, len(s.melds), two_suits=False) > 0:
        return []  # not ready even with every suit and copy to be had: no wait to look for
    key: _WaitKey = (tuple(counts), tuple(s.melds), s.void, st.rules)
    hit = _WAITS_CACHE.get(key)
    if hit is not None:
        return hit
    owned = s.owned()
    for t in range(27):
        owned[t] += counts[t] - s.counts[t]
    tiles = [t for t in range(27) for _ in range(counts[t])]
    found: list[tuple[int, int]] = []
    for t in winning_tiles(counts, len(s.melds), meld_suits=s.meld_suits, void=s.void, owned=owned):
        score = score_win([*tiles, t], s.melds, t, WinContext(), st.rules, s.void, check=False)
        found.append((t, score.fan if isinstance(score, Score) else 0))
    if len(_WAITS_CACHE) >= _WAITS_CACHE_SIZE:
        _WAITS_CACHE.clear()
    _WAITS_CACHE[key] = found
    return found


def seat_waits(st: HandState, seat: int, discards: Iterable[int] = ()) -> tuple[WaitList, dict[str, WaitList]]:
    """听牌提示 for ``seat``, from what it may see: its waits when its concealed hand is ready
    (``[{"tile", "left", "fan"}]``, ``left`` the copies it cannot see, ``fan`` that of a
    discard win on the tile as things stand), and, on its own discard decision (``discards``:
    the tiles it may discard), the waits each discard would leave, by the discarded tile's name."""
    s = st.seats[seat]
    n = sum(s.counts)
    if n % 3 == 0 or (s.won and not st.rules.blood_river) or s.escaped:
        return [], {}
    vis: list[int] | None = None

    def entries(found: list[tuple[int, int]]) -> list[dict[str, Any]]:
        # A discarded tile stays in sight (in the river): the copies seen are the same either way.
        nonlocal vis
        if vis is None:
            vis = _visible_counts(st, seat)
        return [{"tile": _NAMES[t], "left": max(0, 4 - vis[t]), "fan": fan} for t, fan in found]

    if n % 3 == 1:
        found = _waits_of(st, seat, s.counts)
        return (entries(found) if found else []), {}
    by_discard: dict[str, list[dict[str, Any]]] = {}
    if shanten(s.counts, len(s.melds), two_suits=False) > 0:
        return [], by_discard  # no discard leaves the hand ready, whatever the suits and copies
    counts = s.counts[:]
    for d in sorted(set(discards)):
        if not counts[d]:
            continue
        counts[d] -= 1
        found = _waits_of(st, seat, counts)
        counts[d] += 1
        if found:
            by_discard[_NAMES[d]] = entries(found)
    return [], by_discard


def table_views(game: HasHand, seats: Iterable[int | None]) -> dict[int | None, dict[str, Any]]:
    """The view JSON of each of ``seats`` (``None``: a spectator) at once, sharing the public part.

    A seat sees its own hand, drawn tile, void and legal actions; of the others only what lies
    on the table. A spectator sees no concealed tile at all (and no legal actions). The views
    share the entries of the seats they see alike (the same dict objects): treat them as
    read-only.
    """
    wanted = list(dict.fromkeys(seats))
    if not wanted:
        return {}
    st = game.state
    phase = st.phase
    voids_public = phase is not Phase.EXCHANGE and phase is not Phase.DINGQUE
    public = [_seat_entry(st, i, None, voids_public) for i in range(4)]
    w = st.window
    offered = _NAMES[w.tile] if w is not None else None
    winners = [w.to_json() for w in st.winners]
    deltas = st.deltas()
    drawn_tile = st.drawn if phase is Phase.TURN else None
    out: dict[int | None, dict[str, Any]] = {}
    for seat in wanted:
        if seat is None:
            hand: str | None = None
            drawn: str | None = None
            entries = public
            legal: list[dict[str, Any]] = []
            waits: list[dict[str, Any]] = []
            discard_waits: dict[str, list[dict[str, Any]]] = {}
        else:
            entries = list(public)
            own = entries[seat] = _seat_entry(st, seat, seat, voids_public, public[seat])
            hand = own["hand"]
            drawn = _NAMES[drawn_tile] if drawn_tile is not None and st.turn == seat else None
            actions = game.legal_actions(seat)
            legal = [a.to_json() for a in actions]
            waits, discard_waits = seat_waits(
                st, seat, [a.tile for a in actions if a.type is ActionType.DISCARD and a.tile is not None])
        out[seat] = {
            "seat": seat,
            "phase": str(phase),
            "dealer": st.dealer,
            "turn": st.turn,
            "wall": st.tail - st.head,
            "hand": hand,
            "drawn": drawn,
            "offered": offered,
            "seats": entries,
            "winners": winners if len(out) == 0 else list(winners),
            "deltas": list(deltas),
            "legal": legal,
            "waits": waits,
            "discard_waits": discard_waits,
        }
    return out


class AfterDiscard:
    """A hand as it stands just after a discard (or an added kong), before anyone is told who may
    claim (or rob) it: nobody may act in it (see :func:`after_discard`, :func:`after_bugang`)."""

    __slots__ = ("state",)

    def __init__(self, state: HandState) -> None:
        self.state = state

    def legal_actions(self, seat: int) -> tuple[Action, ...]:
        return ()


def after_discard(game: HasHand, seat: int, tile: int) -> AfterDiscard:
    """The table just after ``seat`` discards ``tile`` in ``game`` (taken before the discard is
    applied, and left as it is), as it is shown to every seat that may not claim the tile and to
    spectators during the discard pause: the tile in the river, the discard the last event, the
    turn still the discarder's; no claim window, no tile drawn, nobody to act, so nothing tells
    whether another seat may claim it. Its views are :func:`table_views` of it (waits count the
    discard as seen)."""
    st = game.state.copy()
    discard_shown(st, seat, tile)
    return AfterDiscard(st)


def window_hidden(game: HasHand) -> AfterDiscard:
    """``game`` with its open claim (or robbing) window as the seats outside it see it: the table
    just after the discard (or the added kong) that opened it, as :func:`after_discard` gives it
    (for a hand carried on after a restart, where the window is open already)."""
    st = game.state.copy()
    st.window = None
    st.phase = Phase.TURN
    st.drawn = None
    return AfterDiscard(st)


def after_bugang(game: HasHand, seat: int, tile: int) -> AfterDiscard:
    """The table just after ``seat`` declares an added kong (补杠) of ``tile`` in ``game`` (taken
    before it is applied, and left as it is), as :func:`after_discard` for a discard: the tile out
    of the hand and declared (the last event), the turn the konger's with no tile drawn; no robbing
    window, no replacement tile, nobody to act."""
    st = game.state.copy()
    bugang_shown(st, seat, tile)
    st.drawn = None
    return AfterDiscard(st)


def seat_view_json(game: HasHand, seat: int | None) -> dict[str, Any]:
    """What ``seat`` sees of the table as JSON (``None``: a spectator, who sees no concealed tile)."""
    return table_views(game, (seat,))[seat]


class SeatView:
    """What ``seat`` may see of ``game``. Cheap to build; read through properties or :meth:`to_json`."""

    __slots__ = ("_game", "_state", "seat")

    def __init__(self, game: HasHand, seat: int) -> None:
        self._game = game
        self._state = game.state
        self.seat = seat

    @property
    def rules(self) -> Rules:
        return self._state.rules

    @property
    def counts(self) -> list[int]:
        """My concealed tiles as 27 counts (a copy)."""
        return self._state.seats[self.seat].counts[:]

    @property
    def hand(self) -> list[int]:
        return self._state.seats[self.seat].tiles()

    @property
    def drawn(self) -> int | None:
        g = self._state
        return g.drawn if g.turn == self.seat and g.phase is Phase.TURN else None

    @property
    def void(self) -> int | None:
        return self._state.seats[self.seat].void

    def voids(self) -> list[int | None]:
        """Every seat's void suit once revealed (all four have chosen)."""
        return [s.void for s in self._state.seats]

    def melds(self, seat: int) -> list[Any]:
        """The melds of ``seat`` this seat can see: another seat's concealed kongs (暗杠) lie
        face down until its hand is laid down (see :meth:`hidden_kongs`)."""
        s = self._state.seats[seat]
        if seat == self.seat or s.revealed:
            return list(s.melds)
        return [m for m in s.melds if m.kind is not MeldKind.ANGANG]

    def hidden_kongs(self, seat: int) -> int:
        """How many face-down concealed kongs ``seat`` has, as this seat sees it."""
        s = self._state.seats[seat]
        if seat == self.seat or s.revealed:
            return 0
        return sum(1 for m in s.melds if m.kind is MeldKind.ANGANG)

    def river(self, seat: int) -> list[int]:
        return list(self._state.seats[seat].river)

    def river_state(self, seat: int) -> list[int]:
        """The state of each tile of :meth:`river` (open, claimed into a meld, won on, robbed)."""
        return list(self._state.seats[seat].river_state)

    def aside(self, seat: int) -> list[int]:
        """Tiles ``seat`` won on and set aside (血流成河), face up."""
        return list(self._state.seats[seat].aside)

    def shown_counts(self, seat: int) -> list[int] | None:
        """The concealed tiles of ``seat`` as 27 counts when this seat may see them (its own, or a
        hand laid down), else ``None``."""
        s = self._state.seats[seat]
        return s.counts[:] if seat == self.seat or s.revealed else None

    def wins(self, seat: int) -> int:
        """How many times ``seat`` has won in this hand (public)."""
        return self._state.seats[seat].wins

    def escaped(self, seat: int) -> bool:
        return self._state.seats[seat].escaped

    def concealed_count(self, seat: int) -> int:
        return sum(self._state.seats[seat].counts)

    def won(self, seat: int) -> bool:
        return self._state.seats[seat].won

    def win_tiles(self, seat: int) -> list[int]:
        """The tiles ``seat`` has won on so far (public)."""
        return [w.tile for w in self._state.winners if w.seat == seat]

    @property
    def live(self) -> int:
        return self._state.tail - self._state.head

    @property
    def step(self) -> int:
        """How many actions have been applied in this hand (public: everyone saw them happen)."""
        return len(self._state.actions)

    @property
    def phase(self) -> str:
        return str(self._state.phase)

    @property
    def turn(self) -> int:
        return self._state.turn

    @property
    def dealer(self) -> int:
        return self._state.dealer

    @property
    def offered_tile(self) -> int | None:
        """The tile of the open claim window (a discard or a bugang tile)."""
        w = self._state.window
        return w.tile if w is not None else None

    def visible_counts(self) -> list[int]:
        """Copies of each tile this seat can see: its hand, the melds (others' concealed kongs lie
        face down), rivers, tiles set aside, hands laid down, an added kong's tile open to robbing."""
        return _visible_counts(self._state, self.seat)

    def deltas(self) -> list[int]:
        return self._state.deltas()

    def to_json(self) -> dict[str, Any]:
        """This seat's view as JSON (see :func:`seat_view_json`)."""
        return seat_view_json(self._game, self.seat)

    def result_json(self) -> dict[str, Any]:
        """The hand's result as ``replay --json`` gives it, its events as this seat may see them."""
        return {**result_json(self._state), "events": events_for(self._game, self.seat)}


def viewed_state(view: SeatView) -> HandState:
    """The whole state of the hand ``view`` looks at, secrets included: for the engine's own search
    helpers (:func:`xuezhan.engine.views.sample_world`), never for a seat's decisions."""
    return view._state
