"""The websocket protocol: JSON messages with a ``"type"`` field, checked strictly.

Client to server (every field other than those listed is refused):

- ``{"type": "action", "action": {"type": "discard", "tile": "5m"}, "version": 17}``: one
  engine action for the connection's own seat (the seat is never read from the client);
  ``version`` (required) is the table version the client saw, so a stale click is refused.
- ``{"type": "sit", "seat": 2, "accept_risk": true}``: take a seat (``seat`` optional: any free
  one; ``accept_risk`` after the player confirmed a ``stake_warning``).
- ``{"type": "leave"}``: leave the seat; during a hand this is an escape (逃跑, docs/rules.md §10).
- ``{"type": "start"}``: start the match (bots fill empty seats), or a new match after the last.
- ``{"type": "ready"}``: ready for the next hand.
- ``{"type": "trustee", "on": false}``: hand the seat to the bot (托管) or take it back.
- ``{"type": "jiao_ma"}``: a spectator bets on the next hand (叫马, :mod:`xuezhan.server.bystanders`).
- ``{"type": "ping"}``.

Server to client: ``hello``, ``room``, ``state``, ``hand_end``, ``match_end``, ``error``,
``pong`` (see :mod:`xuezhan.server.table`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final

from ..engine.actions import Action, ActionType
from ..errors import XuezhanError
from ..ids import ErrorCode
from ..records import loads_text

CLIENT_TYPES: Final[dict[str, frozenset[str]]] = {
    "action": frozenset({"type", "action", "version"}),
    "sit": frozenset({"type", "seat", "accept_risk"}),
    "leave": frozenset({"type"}),
    "start": frozenset({"type"}),
    "ready": frozenset({"type"}),
    "trustee": frozenset({"type", "on"}),
    "ping": frozenset({"type"}),
    "hint": frozenset({"type", "version"}),
    "jiao_ma": frozenset({"type"}),
    "item": frozenset({"type", "kind", "tile", "wanted", "suit", "version"}),  # read by xuezhan.server.items
}
_ACTION_FIELDS: Final = frozenset({"type", "tile", "suit", "tiles"})
_PLAYABLE: Final = frozenset(
    {ActionType.EXCHANGE, ActionType.DINGQUE, ActionType.DISCARD, ActionType.PENG, ActionType.GANG,
     ActionType.HU, ActionType.PASS}
)


class ProtocolError(XuezhanError):
    """A client message that is not one the protocol knows; nothing was changed."""


@dataclass(frozen=True, slots=True)
class ClientMessage:
    type: str
    data: dict[str, Any]


def parse_client_message(text: str, max_bytes: int) -> ClientMessage:
    """Read one client message; raises :class:`ProtocolError` with a stable code."""
    if len(text.encode("utf-8", "surrogatepass")) > max_bytes:
        raise ProtocolError(ErrorCode.MESSAGE_TOO_LARGE, f"messages are limited to {max_bytes} bytes")
    try:
        data = loads_text(text)  # numbers of more than 4,300 digits and lone surrogates are refused too
    except (json.JSONDecodeError, RecursionError):
        raise ProtocolError(ErrorCode.BAD_JSON, "a message must be one JSON object of Unicode text") from None
    if not isinstance(data, dict):
        raise ProtocolError(ErrorCode.BAD_MESSAGE, "a message must be a JSON object")
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in CLIENT_TYPES:
        raise ProtocolError(ErrorCode.UNKNOWN_TYPE, f"unknown message type {str(kind)[:40]!r}")
    extra = set(data) - CLIENT_TYPES[kind]
    if extra:
        raise ProtocolError(ErrorCode.BAD_MESSAGE, f"unknown field(s) in {kind!r}: {', '.join(sorted(extra))[:80]}")
    if kind == "action":
        if not isinstance(data.get("action"), dict):
            raise ProtocolError(ErrorCode.BAD_MESSAGE, "'action' needs an 'action' object")
        version = data.get("version")
        if not isinstance(version, int) or isinstance(version, bool):
            raise ProtocolError(ErrorCode.BAD_MESSAGE,
                                "'version' (the table version the action answers) must be an integer")
    elif kind == "sit":
        seat = data.get("seat")
        if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat <= 3):
            raise ProtocolError(ErrorCode.BAD_MESSAGE, "'seat' must be 0-3")
        if "accept_risk" in data and not isinstance(data["accept_risk"], bool):
            raise ProtocolError(ErrorCode.BAD_MESSAGE, "'accept_risk' must be true or false")
    elif kind == "trustee" and not isinstance(data.get("on"), bool):
        raise ProtocolError(ErrorCode.BAD_MESSAGE, "'on' must be true or false")
    return ClientMessage(kind, data)


def parse_action(data: dict[str, Any], seat: int) -> Action:
    """The engine action a client asks for, for its own seat."""
    extra = set(data) - _ACTION_FIELDS
    if extra:
        raise ProtocolError(ErrorCode.BAD_ACTION, f"unknown action field(s): {', '.join(sorted(extra))[:80]}")
    try:
        action = Action.from_json({**data, "seat": seat})
    except XuezhanError as exc:
        raise ProtocolError(exc.code, exc.message) from None
    if action.type not in _PLAYABLE:
        raise ProtocolError(ErrorCode.ACTION_NOT_AVAILABLE, f"{action.type} is not played through 'action'")
    return action


def error_message(code: ErrorCode | str, message: str) -> dict[str, Any]:
    return {"type": "error", "code": code, "message": message}
