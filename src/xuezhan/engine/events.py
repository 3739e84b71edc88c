"""The events of one hand: one typed dict per :class:`~xuezhan.ids.EventKind`, and their JSON form.

An event is a plain ``dict`` (records, the golden corpus and the web protocol hash and send
it as JSON, unchanged); its ``"type"`` is an :class:`EventKind` member, which is the kind's
id as text. Tiles are numbers in the engine's log; :func:`event_json` writes them as text
(``"5m"``, ``"123m"``). What a seat may see of an event is decided in
:mod:`xuezhan.engine.views`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, NotRequired, TypedDict

from ..ids import EventKind, Reason
from ..tiles import SUITS, Tile, format_tiles, tile_name

__all__ = [
    "AngangEvent",
    "BugangDeclaredEvent",
    "BugangEvent",
    "DealEvent",
    "DingqueChosenEvent",
    "DingqueEvent",
    "DiscardEvent",
    "DrawEvent",
    "EndEvent",
    "EscapeEvent",
    "Event",
    "EventKind",
    "ExchangeChosenEvent",
    "ExchangeDoneEvent",
    "ExchangeEvent",
    "ExchangeReceivedEvent",
    "HuEvent",
    "PassHuEvent",
    "PayEvent",
    "PengEvent",
    "StartEvent",
    "SwapEvent",
    "TurnEvent",
    "WallEmptyEvent",
    "ZhigangEvent",
    "event_json",
]


class StartEvent(TypedDict):
    type: Literal[EventKind.START]
    dealer: int
    wall: int  # tiles in the live wall
    bystanders: int


class DealEvent(TypedDict):  # private to ``seat``
    type: Literal[EventKind.DEAL]
    seat: int
    tiles: list[Tile]


class ExchangeChosenEvent(TypedDict):
    type: Literal[EventKind.EXCHANGE_CHOSEN]
    seat: int


class ExchangeEvent(TypedDict):  # private to ``seat``: the three tiles it passed ``to``
    type: Literal[EventKind.EXCHANGE]
    seat: int
    to: int
    tiles: list[Tile]


class ExchangeReceivedEvent(TypedDict):  # private to ``seat``
    type: Literal[EventKind.EXCHANGE_RECEIVED]
    seat: int
    tiles: list[Tile]


class ExchangeDoneEvent(TypedDict):
    type: Literal[EventKind.EXCHANGE_DONE]
    direction: int


class DingqueChosenEvent(TypedDict):
    type: Literal[EventKind.DINGQUE_CHOSEN]
    seat: int


class DingqueEvent(TypedDict):
    type: Literal[EventKind.DINGQUE]
    voids: list[int | None]


class TurnEvent(TypedDict):
    type: Literal[EventKind.TURN]
    seat: int


class DrawEvent(TypedDict):  # private to ``seat``
    type: Literal[EventKind.DRAW]
    seat: int
    tile: Tile
    replacement: bool


class DiscardEvent(TypedDict):
    type: Literal[EventKind.DISCARD]
    seat: int
    tile: Tile


PengEvent = TypedDict(
    "PengEvent", {"type": Literal[EventKind.PENG], "seat": int, "tile": Tile, "from": int}
)
ZhigangEvent = TypedDict(
    "ZhigangEvent", {"type": Literal[EventKind.ZHIGANG], "seat": int, "tile": Tile, "from": int}
)


class AngangEvent(TypedDict):  # private to ``seat``: laid face down
    type: Literal[EventKind.ANGANG]
    seat: int
    tile: Tile


class BugangDeclaredEvent(TypedDict):
    type: Literal[EventKind.BUGANG_DECLARED]
    seat: int
    tile: Tile


class BugangEvent(TypedDict):
    type: Literal[EventKind.BUGANG]
    seat: int
    tile: Tile


class PassHuEvent(TypedDict):  # private to ``seat``, and secret: its mere existence tells a wait
    type: Literal[EventKind.PASS_HU]
    seat: int
    tile: Tile


HuEvent = TypedDict(  # ``from`` is None for a self-drawn win; ``robbing`` only on a discard win
    "HuEvent",
    {
        "type": Literal[EventKind.HU],
        "seat": int,
        "from": int | None,
        "tile": Tile,
        "fan": int,
        "multiple": int,
        "base": str,
        "extras": dict[str, int],
        "robbing": NotRequired[bool],
    },
)
PayEvent = TypedDict(
    "PayEvent", {"type": Literal[EventKind.PAY], "from": int, "to": int, "points": int, "reason": Reason}
)


class SwapEvent(TypedDict):  # private to ``seat``: an item card's swap of ``tile`` for ``tiles[0]``
    type: Literal[EventKind.SWAP]
    seat: int
    tile: Tile
    tiles: list[Tile]


class WallEmptyEvent(TypedDict):
    type: Literal[EventKind.WALL_EMPTY]


class EscapeEvent(TypedDict):
    type: Literal[EventKind.ESCAPE]
    seat: int


class EndEvent(TypedDict):
    type: Literal[EventKind.END]
    deltas: list[int]
    next_dealer: int | None


Event = (
    StartEvent | DealEvent | ExchangeChosenEvent | ExchangeEvent | ExchangeReceivedEvent | ExchangeDoneEvent
    | DingqueChosenEvent | DingqueEvent | TurnEvent | DrawEvent | DiscardEvent | PengEvent | ZhigangEvent
    | AngangEvent | BugangDeclaredEvent | BugangEvent | PassHuEvent | HuEvent | PayEvent | SwapEvent
    | WallEmptyEvent | EscapeEvent | EndEvent
)
"""Any event of the log (the union of the kinds' typed dicts)."""


def event_json(event: Mapping[str, Any]) -> dict[str, Any]:
    """An engine event with tiles written as text (``"5m"``, ``"123m"``)."""
    out = dict(event)
    if "tile" in out and out["tile"] is not None:
        out["tile"] = tile_name(out["tile"])
    if "tiles" in out:
        out["tiles"] = format_tiles(out["tiles"])
    if "voids" in out:
        out["voids"] = [None if v is None else SUITS[v] for v in out["voids"]]
    return out
