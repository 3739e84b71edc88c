"""What one seat may see: the one place that decides visibility, and the JSON form of events.

A view never holds another seat's concealed tiles (until that hand is laid down at a
win or at the end), another seat's concealed kong face up, the secret that a seat passed
on a win, who else may claim a discard, or the order of the wall. The server and the
terminal only call :func:`visible_events`, :func:`events_for`, :func:`seat_view_json`,
:func:`table_views` and :class:`SeatView`, and serialize what they return.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Final

from ..tiles import SUITS, format_tiles, tile_name
from .state import RIVER_CLAIMED, Phase

if TYPE_CHECKING:
    from ..rules import Rules
    from .game import Game


def _tile_field(value: Any) -> Any:
    if isinstance(value, int):
        return tile_name(value)
    return value


def event_json(event: dict[str, Any]) -> dict[str, Any]:
    """An engine event with tiles written as text (``"5m"``, ``"123m"``)."""
    out = dict(event)
    if "tile" in out and out["tile"] is not None:
        out["tile"] = tile_name(out["tile"])
    if "tiles" in out:
        out["tiles"] = format_tiles(out["tiles"])
    if "voids" in out:
        out["voids"] = [None if v is None else SUITS[v] for v in out["voids"]]
    return out


_HIDDEN_FIELDS: Final = frozenset({"tile", "tiles"})
_SECRET_EVENTS: Final = frozenset({"pass_hu"})
"""Private events whose mere existence is secret: that a seat passed on a win tells others its wait."""


def visible_events(game: Game, seat: int | None, start: int = 0) -> list[dict[str, Any]]:
    """The events from index ``start`` on as ``seat`` may see them (``None``: a spectator), tiles
    as numbers: another seat's private event (its deal, draws, exchange, concealed kong) comes
    without its tiles, and a secret one (that a seat passed on a win) is left out."""
    out: list[dict[str, Any]] = []
    events = game.events
    owners = game.event_owners
    for i in range(start, len(events)):
        owner = owners[i]
        ev = events[i]
        if owner is None or owner == seat:
            out.append(ev)
        elif ev.get("type") not in _SECRET_EVENTS:
            out.append({k: v for k, v in ev.items() if k not in _HIDDEN_FIELDS})
    return out


def events_for(game: Game, seat: int | None, start: int = 0) -> list[dict[str, Any]]:
    """:func:`visible_events` as JSON (tiles as text): what a client of ``seat`` is sent."""
    return [event_json(ev) for ev in visible_events(game, seat, start)]


_NAMES: Final = tuple(tile_name(t) for t in range(27))
"""Each tile's name by number (the engine's tiles are always in range)."""


def _seat_entry(game: Game, i: int, viewer: int | None, voids_public: bool,
                public: dict[str, Any] | None = None) -> dict[str, Any]:
    """Seat ``i`` as ``viewer`` sees it: its concealed hand only to itself or once laid down, a
    concealed kong face down (no tile) likewise, its void once all four have chosen.

    ``public``, the entry of seat ``i`` as a spectator sees it, is reused: the seat itself sees
    the same table, with its own hand, concealed kongs and void added."""
    s = game.seat_state(i)
    shown = i == viewer or s.revealed
    if public is not None:
        entry = dict(public)
        if not s.revealed:
            entry["melds"] = [{"type": str(m.kind), "tile": _NAMES[m.tile]} for m in s.melds]
            entry["hand"] = format_tiles(s.hand)
        if s.void is not None:
            entry["void"] = SUITS[s.void]
        return entry
    names = _NAMES
    entry = {
        "seat": i,
        "concealed": s.concealed,
        "melds": [
            {"type": str(m.kind), "tile": None if m.kind == "angang" and not shown else names[m.tile]}
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
        entry["hand"] = format_tiles(s.hand)
    return entry


def table_views(game: Game, seats: Iterable[int | None]) -> dict[int | None, dict[str, Any]]:
    """The view JSON of each of ``seats`` (``None``: a spectator) at once, sharing the public part.

    A seat sees its own hand, drawn tile, void and legal actions; of the others only what lies
    on the table. A spectator sees no concealed tile at all (and no legal actions). The views
    share the entries of the seats they see alike (the same dict objects): treat them as
    read-only.
    """
    wanted = list(dict.fromkeys(seats))
    if not wanted:
        return {}
    phase = game.phase
    voids_public = phase not in ("exchange", "dingque")
    public = [_seat_entry(game, i, None, voids_public) for i in range(4)]
    w = game.claim_window
    offered = _NAMES[w.tile] if w is not None else None
    winners = [w.to_json() for w in game.winners]
    deltas = game.deltas()
    drawn_tile = game.drawn if phase == "turn" else None
    out: dict[int | None, dict[str, Any]] = {}
    for seat in wanted:
        if seat is None:
            hand: str | None = None
            drawn: str | None = None
            entries = public
            legal: list[dict[str, Any]] = []
        else:
            entries = list(public)
            own = entries[seat] = _seat_entry(game, seat, seat, voids_public, public[seat])
            hand = own["hand"]
            drawn = _NAMES[drawn_tile] if drawn_tile is not None and game.turn == seat else None
            legal = [a.to_json() for a in game.legal_actions(seat)]
        out[seat] = {
            "seat": seat,
            "phase": str(phase),
            "dealer": game.dealer,
            "turn": game.turn,
            "wall": game.live,
            "hand": hand,
            "drawn": drawn,
            "offered": offered,
            "seats": entries,
            "winners": winners if len(out) == 0 else list(winners),
            "deltas": list(deltas),
            "legal": legal,
        }
    return out


def seat_view_json(game: Game, seat: int | None) -> dict[str, Any]:
    """What ``seat`` sees of the table as JSON (``None``: a spectator, who sees no concealed tile)."""
    return table_views(game, (seat,))[seat]


class SeatView:
    """What ``seat`` may see of ``game``. Cheap to build; read through properties or :meth:`to_json`."""

    __slots__ = ("_game", "seat")

    def __init__(self, game: Game, seat: int) -> None:
        self._game = game
        self.seat = seat

    @property
    def rules(self) -> Rules:
        return self._game._rules

    @property
    def counts(self) -> list[int]:
        """My concealed tiles as 27 counts (a copy)."""
        return self._game._seats[self.seat].counts[:]

    @property
    def hand(self) -> list[int]:
        return self._game._seats[self.seat].tiles()

    @property
    def drawn(self) -> int | None:
        g = self._game
        return g._drawn if g._turn == self.seat and g._phase is Phase.TURN else None

    @property
    def void(self) -> int | None:
        return self._game._seats[self.seat].void

    def voids(self) -> list[int | None]:
        """Every seat's void suit once revealed (all four have chosen)."""
        return [s.void for s in self._game._seats]

    def melds(self, seat: int) -> list[Any]:
        """The melds of ``seat`` this seat can see: another seat's concealed kongs (暗杠) lie
        face down until its hand is laid down (see :meth:`hidden_kongs`)."""
        s = self._game._seats[seat]
        if seat == self.seat or s.revealed:
            return list(s.melds)
        return [m for m in s.melds if m.kind != "angang"]

    def hidden_kongs(self, seat: int) -> int:
        """How many face-down concealed kongs ``seat`` has, as this seat sees it."""
        s = self._game._seats[seat]
        if seat == self.seat or s.revealed:
            return 0
        return sum(1 for m in s.melds if m.kind == "angang")

    def river(self, seat: int) -> list[int]:
        return list(self._game._seats[seat].river)

    def river_state(self, seat: int) -> list[int]:
        """The state of each tile of :meth:`river` (open, claimed into a meld, won on, robbed)."""
        return list(self._game._seats[seat].river_state)

    def aside(self, seat: int) -> list[int]:
        """Tiles ``seat`` won on and set aside (血流成河), face up."""
        return list(self._game._seats[seat].aside)

    def shown_counts(self, seat: int) -> list[int] | None:
        """The concealed tiles of ``seat`` as 27 counts when this seat may see them (its own, or a
        hand laid down), else ``None``."""
        s = self._game._seats[seat]
        return s.counts[:] if seat == self.seat or s.revealed else None

    def wins(self, seat: int) -> int:
        """How many times ``seat`` has won in this hand (public)."""
        return self._game._seats[seat].wins

    def escaped(self, seat: int) -> bool:
        return self._game._seats[seat].escaped

    def concealed_count(self, seat: int) -> int:
        return sum(self._game._seats[seat].counts)

    def won(self, seat: int) -> bool:
        return self._game._seats[seat].won

    def win_tiles(self, seat: int) -> list[int]:
        """The tiles ``seat`` has won on so far (public)."""
        return [w.tile for w in self._game.winners if w.seat == seat]

    @property
    def live(self) -> int:
        return self._game._tail - self._game._head

    @property
    def step(self) -> int:
        """How many actions have been applied in this hand (public: everyone saw them happen)."""
        return len(self._game._actions)

    @property
    def phase(self) -> str:
        return str(self._game.phase)

    @property
    def turn(self) -> int:
        return self._game.turn

    @property
    def dealer(self) -> int:
        return self._game.dealer

    @property
    def offered_tile(self) -> int | None:
        """The tile of the open claim window (a discard or a bugang tile)."""
        w = self._game._window
        return w.tile if w is not None else None

    def visible_counts(self) -> list[int]:
        """Copies of each tile this seat can see: its hand, the melds (others' concealed kongs lie
        face down), rivers, tiles set aside, hands laid down, an added kong's tile open to robbing."""
        g = self._game
        vis = g._seats[self.seat].counts[:]
        for i, s in enumerate(g._seats):
            for m in s.melds:
                if m.kind == "angang" and i != self.seat and not s.revealed:
                    continue  # face down
                vis[m.tile] += m.size
            for t, st in zip(s.river, s.river_state, strict=False):
                if st != RIVER_CLAIMED:
                    vis[t] += 1
            for t in s.aside:
                vis[t] += 1
            if s is not g._seats[self.seat] and s.revealed:
                for t in range(27):
                    vis[t] += s.counts[t]
        if g._pending_bugang is not None:
            vis[g._pending_bugang] += 1  # an added kong declared, open to robbing: out of the hand, face up
        return vis

    def deltas(self) -> list[int]:
        return self._game.deltas()

    def to_json(self) -> dict[str, Any]:
        """This seat's view as JSON (see :func:`seat_view_json`)."""
        return seat_view_json(self._game, self.seat)

    def result_json(self) -> dict[str, Any]:
        """The hand's result as ``replay --json`` gives it, its events as this seat may see them."""
        return {**self._game.result_json(), "events": events_for(self._game, self.seat)}

def reshuffle_wall(game: Game, seed: int) -> None:
    """Put ``game``'s live wall in the order ``random.Random(seed).shuffle`` gives it (the compiled
    core's ``play_out`` with a ``wall_seed`` does the same): another world of a search, the same
    hands, another draw."""
    head, tail = game._head, game._tail
    live = game._wall[head:tail]
    random.Random(seed).shuffle(live)
    game._wall = [*game._wall[:head], *live, *game._wall[tail:]]  # a new list: copies share the old


def sample_world(view: SeatView, rng: random.Random, visible: Sequence[int] | None = None) -> Game:
    """A copy of the game in which every tile ``view``'s seat cannot see is dealt afresh:
    one world the seat cannot tell from the real one (determinization, for search).

    What the seat sees stays: its hand, every meld shown, the rivers, the tiles set aside,
    hands laid down, how many tiles each seat holds, the live wall's length, the voids.
    What it cannot see is drawn from the copies it has not seen, in an order fixed by what
    it sees and ``rng`` only (so two games that look the same to the seat give the same
    worlds): each face-down concealed kong of another seat becomes four copies of a tile
    nobody has seen, outside that seat's void; each other concealed hand gets its number of
    tiles, with none of its void suit once its last discard was outside that suit (it would
    have had to throw them first); the rest is the live wall, in a fresh order, and the
    bystanders' tiles. Secret state of the others (a passed win, a pending choice, answers
    given in an open claim window) is reset, and the window's claimants are worked out
    again from the dealt hands. ``visible`` is ``view.visible_counts()`` when the caller has it
    already (a search samples many worlds of one view)."""
    from ..hand import suit_keys
    from ..scoring import Meld, MeldKind
    from .claims import claim_options
    from .kongs import rob_options

    game = view._game
    me = view.seat
    g = game.copy()
    unseen = [4 - v for v in (view.visible_counts() if visible is None else visible)]
    pool = [t for t in range(27) for _ in range(unseen[t])]
    seats = g._seats
    hidden = [o for o in range(4) if o != me and not seats[o].revealed]
    # face-down kongs: four copies of a tile nobody has seen, outside the seat's void
    for o in hidden:
        s = seats[o]
        melds = s.melds
        for i, m in enumerate(melds):
            if m.kind is not MeldKind.ANGANG:
                continue
            kinds = [t for t in range(27) if unseen[t] == 4 and t // 9 != s.void]
            if not kinds:
                # the kinds left outside this seat's void went to earlier kongs: any kind with four
                # unseen copies keeps the counts (there are at least as many as face-down kongs)
                kinds = [t for t in range(27) if unseen[t] == 4]
            t = rng.choice(kinds)
            unseen[t] = 0
            for _ in range(4):
                pool.remove(t)
            for k in g._kongs:
                if k.seat == o and k.kind == "angang" and k.tile == m.tile:
                    k.tile = t
                    break
            melds[i] = Meld(MeldKind.ANGANG, t)
        s.meld_suits = 0
        for m in melds:
            s.meld_suits |= 1 << (m.tile // 9)
    rng.shuffle(pool)
    for o in hidden:
        s = seats[o]
        n = sum(s.counts)
        void = s.void
        no_void = void is not None and bool(s.river) and s.river[-1] // 9 != void
        take: list[int] = []
        rest: list[int] = []
        if not no_void:
            take, rest = pool[:n], pool[n:]
        else:
            for t in pool:
                if len(take) < n and t // 9 != void:
                    take.append(t)
                else:
                    rest.append(t)
            if len(take) < n:  # not enough tiles outside the void: fill up with any
                extra = rest[: n - len(take)]
                take.extend(extra)
                rest = rest[len(extra) :]
        pool = rest
        counts = [0] * 27
        for t in take:
            counts[t] += 1
        s.counts = counts
        s.keys = list(suit_keys(counts))
        s.sizes = [sum(counts[0:9]), sum(counts[9:18]), sum(counts[18:27])]
        s.wm = -1
        s.pass_hu = set()
        s.pass_hu_any = False
        s.choice = None
    n_by = len(g._bystander_tiles)
    g._bystander_tiles = pool[:n_by]
    live = pool[n_by:]
    head, tail = g._head, g._tail
    if len(live) != tail - head:
        raise AssertionError(f"sample_world: {len(live)} unseen tiles for a live wall of {tail - head}")
    g._wall = [*game._wall[:head], *live, *game._wall[tail:]]
    if g._turn != me:
        g._tsumo = None
    w = g._window
    if w is not None:
        options = rob_options(g, w.source, w.tile) if w.robbing else claim_options(g, w.source, w.tile)
        if me in w.options:
            options[me] = w.options[me]
        w.options = {o: options[o] for o in sorted(options, key=lambda o: (o - w.source) % 4)}
        w.answers = {o: a for o, a in w.answers.items() if o == me}
    g._legal_cache = {}
    return g
