"""What one seat may see (per-seat views) and the JSON form of events.

A view never holds another seat's concealed tiles (until that hand is laid down at a
win or at the end) or the order of the wall.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..tiles import SUITS, format_tiles, tile_name

if TYPE_CHECKING:
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


_HIDDEN_FIELDS = {"tile", "tiles"}
_SECRET_EVENTS = {"pass_hu"}
"""Private events whose mere existence is secret: that a seat passed on a win tells others its wait."""


def events_for(game: Game, seat: int | None) -> list[dict[str, Any]]:
    """The events ``seat`` may see (``None``: a spectator), tiles as text."""
    out = []
    for ev, private in zip(game.events, game.private, strict=False):
        if private is None or private == seat:
            out.append(event_json(ev))
        elif ev.get("type") in _SECRET_EVENTS:
            continue
        else:
            out.append({k: v for k, v in event_json(ev).items() if k not in _HIDDEN_FIELDS})
    return out


class SeatView:
    """What ``seat`` may see of ``game``. Cheap to build; read through properties or :meth:`to_json`."""

    __slots__ = ("_game", "seat")

    def __init__(self, game: Game, seat: int) -> None:
        self._game = game
        self.seat = seat

    @property
    def rules(self) -> Any:
        return self._game.rules

    @property
    def counts(self) -> list[int]:
        """My concealed tiles as 27 counts (a copy)."""
        return self._game.seats[self.seat].counts[:]

    @property
    def hand(self) -> list[int]:
        return self._game.seats[self.seat].tiles()

    @property
    def drawn(self) -> int | None:
        g = self._game
        return g.drawn if g.turn == self.seat and g.phase == "turn" else None

    @property
    def void(self) -> int | None:
        return self._game.seats[self.seat].void

    def voids(self) -> list[int | None]:
        """Every seat's void suit once revealed (all four have chosen)."""
        return [s.void for s in self._game.seats]

    def melds(self, seat: int) -> list[Any]:
        """The melds of ``seat`` this seat can see: another seat's concealed kongs (暗杠) lie
        face down until its hand is laid down (see :meth:`hidden_kongs`)."""
        s = self._game.seats[seat]
        if seat == self.seat or s.revealed:
            return list(s.melds)
        return [m for m in s.melds if m.kind != "angang"]

    def hidden_kongs(self, seat: int) -> int:
        """How many face-down concealed kongs ``seat`` has, as this seat sees it."""
        s = self._game.seats[seat]
        if seat == self.seat or s.revealed:
            return 0
        return sum(1 for m in s.melds if m.kind == "angang")

    def river(self, seat: int) -> list[int]:
        return list(self._game.seats[seat].river)

    def concealed_count(self, seat: int) -> int:
        return sum(self._game.seats[seat].counts)

    def won(self, seat: int) -> bool:
        return self._game.seats[seat].won

    def win_tiles(self, seat: int) -> list[int]:
        """The tiles ``seat`` has won on so far (public)."""
        return [w.tile for w in self._game.winners if w.seat == seat]

    @property
    def live(self) -> int:
        return self._game.live

    @property
    def step(self) -> int:
        """How many actions have been applied in this hand (public: everyone saw them happen)."""
        return len(self._game.actions)

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
        w = self._game.window
        return w.tile if w is not None else None

    def visible_counts(self) -> list[int]:
        """Copies of each tile this seat can see: its hand, the melds (others' concealed kongs lie
        face down), rivers, tiles set aside, hands laid down."""
        g = self._game
        from .game import RIVER_CLAIMED

        vis = g.seats[self.seat].counts[:]
        for i, s in enumerate(g.seats):
            for m in s.melds:
                if m.kind == "angang" and i != self.seat and not s.revealed:
                    continue  # face down
                vis[m.tile] += m.size
            for t, st in zip(s.river, s.river_state, strict=False):
                if st != RIVER_CLAIMED:
                    vis[t] += 1
            for t in s.aside:
                vis[t] += 1
            if s is not g.seats[self.seat] and s.revealed:
                for t in range(27):
                    vis[t] += s.counts[t]
        return vis

    def deltas(self) -> list[int]:
        return self._game.deltas()

    def to_json(self) -> dict[str, Any]:
        g = self._game
        me = g.seats[self.seat]
        seats = []
        voids_public = g.phase not in ("exchange", "dingque")
        for i, s in enumerate(g.seats):
            entry: dict[str, Any] = {
                "seat": i,
                "concealed": sum(s.counts),
                "melds": [
                    {"type": str(m.kind),
                     "tile": None if m.kind == "angang" and i != self.seat and not s.revealed else tile_name(m.tile)}
                    for m in s.melds
                ],
                "river": [tile_name(t) for t in s.river],
                "river_state": list(s.river_state),
                "aside": [tile_name(t) for t in s.aside],
                "void": SUITS[s.void] if (s.void is not None and (voids_public or i == self.seat)) else None,
                "won": s.won,
                "wins": s.wins,
                "escaped": s.escaped,
            }
            if i == self.seat or s.revealed:
                entry["hand"] = format_tiles(s.tiles())
            seats.append(entry)
        return {
            "seat": self.seat,
            "phase": str(g.phase),
            "dealer": g.dealer,
            "turn": g.turn,
            "wall": g.live,
            "hand": format_tiles(me.tiles()),
            "drawn": tile_name(self.drawn) if self.drawn is not None else None,
            "offered": tile_name(self.offered_tile) if self.offered_tile is not None else None,
            "seats": seats,
            "winners": [w.to_json() for w in g.winners],
            "deltas": g.deltas(),
            "legal": [a.to_json() for a in g.legal_actions(self.seat)],
        }
