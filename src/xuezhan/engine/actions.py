"""Actions and ledger entries of one hand.

An :class:`Action` is a small frozen value that round-trips through the JSON of a
game record (``{"seat": 0, "type": "discard", "tile": "5m"}``) and maps to a fixed
action space (:func:`action_index`) for learning agents.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Final

from ..errors import RecordError, XuezhanError
from ..ids import ActionKind, ErrorCode, Reason
from ..tiles import SUITS, Tile, format_tiles, parse_tile, parse_tiles, suit_index, tile_name

ActionType = ActionKind
"""The kinds of action (the vocabulary's :class:`~xuezhan.ids.ActionKind`, under the engine's name)."""


@dataclass(frozen=True, slots=True)
class Action:
    """One decision of one seat. ``tile`` for discard/gang, ``suit`` for dingque, ``tiles`` for exchange."""

    seat: int
    type: ActionType
    tile: Tile | None = None
    suit: int | None = None
    tiles: tuple[Tile, ...] = ()

    def __repr__(self) -> str:
        extra = ""
        if self.tile is not None:
            extra += f", tile={self.tile}"
        if self.suit is not None:
            extra += f", suit={self.suit}"
        if self.tiles:
            extra += f", tiles={self.tiles!r}"
        return f"Action({self.seat}, ActionType.{self.type.name}{extra})"

    def __str__(self) -> str:
        if self.type is ActionType.DISCARD or self.type is ActionType.GANG:
            return f"seat {self.seat} {self.type} {tile_name(self.tile or 0)}"
        if self.type is ActionType.DINGQUE:
            return f"seat {self.seat} dingque {SUITS[self.suit or 0]}"
        if self.type is ActionType.EXCHANGE:
            return f"seat {self.seat} exchange {format_tiles(self.tiles)}"
        if self.type is ActionType.SWAP:
            return f"seat {self.seat} swap {tile_name(self.tile or 0)} for {tile_name(self.tiles[0])}"
        return f"seat {self.seat} {self.type}"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"seat": self.seat, "type": str(self.type)}
        if self.tile is not None:
            out["tile"] = tile_name(self.tile)
        if self.suit is not None:
            out["suit"] = SUITS[self.suit]
        if self.type is ActionType.SWAP:
            out["want"] = tile_name(self.tiles[0])
        elif self.tiles:
            out["tiles"] = format_tiles(self.tiles)
        return out

    @classmethod
    def from_json(cls, data: Any) -> Action:
        """Read one record action; raises :class:`RecordError` (code ``bad_action``)."""
        if not isinstance(data, dict):
            raise RecordError(ErrorCode.BAD_ACTION, f"an action must be an object, not {data!r}")
        seat = data.get("seat")
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat <= 3:
            raise RecordError(ErrorCode.BAD_ACTION, f"action {data!r}: 'seat' must be 0-3")
        try:
            kind = ActionType(str(data.get("type")))
        except ValueError:
            raise RecordError(ErrorCode.UNKNOWN_ACTION, f"action {data!r}: unknown type {data.get('type')!r}") from None
        unknown = set(data) - {"seat", "type"} - _FIELDS[kind]
        if unknown:
            raise RecordError(ErrorCode.BAD_ACTION, f"action {data!r}: unknown field(s) {', '.join(sorted(unknown))}")
        try:
            if kind in (ActionType.DISCARD, ActionType.GANG):
                if not isinstance(data.get("tile"), str):
                    raise RecordError(ErrorCode.BAD_ACTION, f"action {data!r}: '{kind}' needs a 'tile'")
                return cls(seat, kind, tile=parse_tile(data["tile"]))
            if kind is ActionType.DINGQUE:
                if not isinstance(data.get("suit"), str):
                    raise RecordError(ErrorCode.BAD_ACTION, f"action {data!r}: 'dingque' needs a 'suit'")
                return cls(seat, kind, suit=suit_index(data["suit"]))
            if kind is ActionType.SWAP:
                if not isinstance(data.get("tile"), str) or not isinstance(data.get("want"), str):
                    raise RecordError(ErrorCode.BAD_ACTION, f"action {data!r}: 'swap' needs 'tile' and 'want'")
                return cls(seat, kind, tile=parse_tile(data["tile"]), tiles=(parse_tile(data["want"]),))
            if kind is ActionType.EXCHANGE:
                if not isinstance(data.get("tiles"), str):
                    raise RecordError(ErrorCode.BAD_ACTION, f"action {data!r}: 'exchange' needs 'tiles'")
                return cls(seat, kind, tiles=tuple(sorted(parse_tiles(data["tiles"]))))
        except RecordError:
            raise
        except XuezhanError as exc:
            raise RecordError(ErrorCode.BAD_ACTION, f"action {data!r}: {exc.message}") from None
        return cls(seat, kind)


_FIELDS: Final[dict[ActionType, frozenset[str]]] = {
    ActionType.DISCARD: frozenset({"tile"}),
    ActionType.GANG: frozenset({"tile"}),
    ActionType.DINGQUE: frozenset({"suit"}),
    ActionType.EXCHANGE: frozenset({"tiles"}),
    ActionType.SWAP: frozenset({"tile", "want"}),
    ActionType.PENG: frozenset(),
    ActionType.HU: frozenset(),
    ActionType.PASS: frozenset(),
    ActionType.ESCAPE: frozenset(),
}
"""The fields each action type may carry in a record, besides ``seat`` and ``type``."""


# --- shared action values -------------------------------------------------------------------
# Actions are frozen, so the engine hands out these shared instances: no allocation on the
# hot path, and legality checks hit identity first.
DISCARD_ACTIONS: Final = tuple(tuple(Action(s, ActionType.DISCARD, tile=t) for t in range(27)) for s in range(4))
GANG_ACTIONS: Final = tuple(tuple(Action(s, ActionType.GANG, tile=t) for t in range(27)) for s in range(4))
PENG_ACTIONS: Final = tuple(Action(s, ActionType.PENG) for s in range(4))
HU_ACTIONS: Final = tuple(Action(s, ActionType.HU) for s in range(4))
PASS_ACTIONS: Final = tuple(Action(s, ActionType.PASS) for s in range(4))


# --- the fixed action space ------------------------------------------------------------

_EXCHANGE_SETS: Final = tuple(
    tuple(s * 9 + r for r in combo)
    for s in range(3)
    for combo in itertools.combinations_with_replacement(range(9), 3)
)
_EXCHANGE_INDEX: Final = {t: i for i, t in enumerate(_EXCHANGE_SETS)}

DISCARD_BASE: Final = 0
GANG_BASE: Final = 27
PENG_INDEX: Final = 54
HU_INDEX: Final = 55
PASS_INDEX: Final = 56
DINGQUE_BASE: Final = 57
EXCHANGE_BASE: Final = 60
ESCAPE_INDEX: Final = EXCHANGE_BASE + len(_EXCHANGE_SETS)
ACTION_SPACE_SIZE: Final = ESCAPE_INDEX + 1
"""Size of the fixed action space: 27 discards, 27 gangs, peng, hu, pass, 3 dingque, 495 exchanges, escape."""


def action_index(action: Action) -> int:
    """The action's index in the fixed action space (the seat is not part of it)."""
    t = action.type
    if t is ActionType.DISCARD:
        return DISCARD_BASE + (action.tile or 0)
    if t is ActionType.GANG:
        return GANG_BASE + (action.tile or 0)
    if t is ActionType.PENG:
        return PENG_INDEX
    if t is ActionType.HU:
        return HU_INDEX
    if t is ActionType.PASS:
        return PASS_INDEX
    if t is ActionType.DINGQUE:
        return DINGQUE_BASE + (action.suit or 0)
    if t is ActionType.EXCHANGE:
        return EXCHANGE_BASE + _EXCHANGE_INDEX[tuple(sorted(action.tiles))]
    if t is ActionType.SWAP:
        raise ValueError("item-card swaps are not part of the fixed action space")
    return ESCAPE_INDEX


def action_from_index(seat: int, index: int) -> Action:
    """The inverse of :func:`action_index` for ``seat``."""
    if DISCARD_BASE <= index < GANG_BASE:
        return Action(seat, ActionType.DISCARD, tile=index - DISCARD_BASE)
    if GANG_BASE <= index < PENG_INDEX:
        return Action(seat, ActionType.GANG, tile=index - GANG_BASE)
    if index == PENG_INDEX:
        return Action(seat, ActionType.PENG)
    if index == HU_INDEX:
        return Action(seat, ActionType.HU)
    if index == PASS_INDEX:
        return Action(seat, ActionType.PASS)
    if DINGQUE_BASE <= index < EXCHANGE_BASE:
        return Action(seat, ActionType.DINGQUE, suit=index - DINGQUE_BASE)
    if EXCHANGE_BASE <= index < ESCAPE_INDEX:
        return Action(seat, ActionType.EXCHANGE, tiles=_EXCHANGE_SETS[index - EXCHANGE_BASE])
    if index == ESCAPE_INDEX:
        return Action(seat, ActionType.ESCAPE)
    raise ValueError(f"no action with index {index}")


# --- ledger -------------------------------------------------------------------------------

REASONS: Final[tuple[Reason, ...]] = (
    Reason.HU,
    Reason.ZIMO,
    Reason.ANGANG,
    Reason.BUGANG,
    Reason.ZHIGANG,
    Reason.CALL_TRANSFER,
    Reason.HUA_ZHU,
    Reason.CHA_JIAO,
    Reason.TUI_SHUI,
    Reason.ESCAPE,
)
"""The reasons a hand itself records (the match layer adds its own), in the compiled core's order."""


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    """One movement of points: ``from_seat`` pays ``to_seat`` for ``reason`` (a :class:`~xuezhan.ids.Reason`
    from the engine; read back from JSON, the reason's text, which compares equal)."""

    from_seat: int
    to_seat: int
    points: int
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"from": self.from_seat, "to": self.to_seat, "points": self.points, "reason": self.reason}


def parse_ledger_entry(data: dict[str, Any]) -> LedgerEntry:
    return LedgerEntry(int(data["from"]), int(data["to"]), int(data["points"]), str(data["reason"]))
