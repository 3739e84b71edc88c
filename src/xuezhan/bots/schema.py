"""The JSON Schemas of the bot protocol's messages (docs/bot-protocol.md), one per message.

:func:`schemas` builds them from the project's own tables (action types, meld kinds, ledger
reasons, event kinds), so they change when those do; the package ships them as files
(``xuezhan/bots/schemas/NAME.schema.json``, :func:`schema_path`), which
``tests/test_bot_protocol.py`` keeps equal to :func:`schemas` and checks real messages against.
Each file stands alone (it holds every definition it uses), so any JSON Schema validator
(draft 2020-12) reads it without a registry.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

from ..engine.state import RIVER_OPEN, RIVER_ROBBED, Phase
from ..ids import ActionKind, EventKind, Reason
from ..scoring import MeldKind
from .protocol import PROTOCOL_VERSION

MESSAGES: Final = ("start_hand", "request", "end_hand", "answer")
"""The messages: three that xuezhan sends a bot, and the bot's answer to a request."""

SCHEMA_DIR: Final = Path(__file__).with_name("schemas")
_DRAFT: Final = "https://json-schema.org/draft/2020-12/schema"
_TILE_TYPES: Final = (ActionKind.DISCARD, ActionKind.GANG)
"""Action types that name a tile."""


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/$defs/{name}"}


def _nullable(name: str) -> dict[str, Any]:
    return {"anyOf": [_ref(name), {"type": "null"}]}


def _obj(properties: dict[str, Any], required: tuple[str, ...] | None = None, *,
         closed: bool = True) -> dict[str, Any]:
    return {"type": "object", "properties": properties,
            "required": list(properties if required is None else required), "additionalProperties": not closed}


_INT: Final = {"type": "integer"}
_COUNT: Final = {"type": "integer", "minimum": 0}

_DEFS: Final[dict[str, Any]] = {
    "seat": {"type": "integer", "minimum": 0, "maximum": 3, "description": "a seat number, 0-3"},
    "tile": {"type": "string", "pattern": "^[1-9][mps]$", "description": "one tile: rank then suit, 5m"},
    "tiles": {"type": "string", "pattern": "^([1-9]+[mps])*$",
              "description": "tiles in the compact notation, 1258m46p779s (empty: none)"},
    "suit": {"enum": ["m", "p", "s"]},
    "action": {
        "description": "an action in the game-record format",
        "type": "object",
        "properties": {"seat": _ref("seat"), "type": {"enum": [str(k) for k in ActionKind]},
                       "tile": _ref("tile"), "suit": _ref("suit"), "tiles": _ref("tiles"), "want": _ref("tile")},
        "required": ["seat", "type"],
        "additionalProperties": False,
        "allOf": [
            {"if": {"properties": {"type": {"enum": [str(k) for k in _TILE_TYPES]}}},
             "then": {"required": ["tile"]}},
            {"if": {"properties": {"type": {"const": str(ActionKind.DINGQUE)}}}, "then": {"required": ["suit"]}},
            {"if": {"properties": {"type": {"const": str(ActionKind.EXCHANGE)}}}, "then": {"required": ["tiles"]}},
            {"if": {"properties": {"type": {"const": str(ActionKind.SWAP)}}},
             "then": {"required": ["tile", "want"]}},
        ],
    },
    "points": {"type": "array", "items": _INT, "minItems": 4, "maxItems": 4,
               "description": "one number for each seat, by seat"},
    "meld": _obj({"type": {"enum": [str(k) for k in MeldKind]}, "tile": _nullable("tile")}),
    "seat_entry": _obj({
        "seat": _ref("seat"),
        "concealed": _COUNT,
        "melds": {"type": "array", "items": _ref("meld")},
        "river": {"type": "array", "items": _ref("tile")},
        "river_state": {"type": "array", "items": {"type": "integer", "minimum": RIVER_OPEN,
                                                   "maximum": RIVER_ROBBED}},
        "aside": {"type": "array", "items": _ref("tile")},
        "void": _nullable("suit"),
        "won": {"type": "boolean"},
        "wins": _COUNT,
        "escaped": {"type": "boolean"},
        "hand": _ref("tiles"),
    }, ("seat", "concealed", "melds", "river", "river_state", "aside", "void", "won", "wins", "escaped")),
    "winner": _obj({
        "seat": _ref("seat"), "from": _nullable("seat"), "tile": _ref("tile"), "fan": _INT,
        "multiple": _INT, "order": {"type": "integer", "minimum": 1}, "base": {"type": "string"},
        "extras": {"type": "object", "additionalProperties": _INT}, "points": _INT,
    }),
    "wait": _obj({"tile": _ref("tile"), "left": _COUNT, "fan": _INT}),
    "view": _obj({
        "seat": _ref("seat"),
        "phase": {"enum": [str(p) for p in Phase]},
        "dealer": _ref("seat"),
        "turn": _ref("seat"),
        "wall": _COUNT,
        "hand": _ref("tiles"),
        "drawn": _nullable("tile"),
        "offered": _nullable("tile"),
        "seats": {"type": "array", "items": _ref("seat_entry"), "minItems": 4, "maxItems": 4},
        "winners": {"type": "array", "items": _ref("winner")},
        "deltas": _ref("points"),
        "legal": {"type": "array", "items": _ref("action")},
        "waits": {"type": "array", "items": _ref("wait")},
        "discard_waits": {"type": "object", "additionalProperties": {"type": "array", "items": _ref("wait")}},
        "step": _COUNT,
    }),
    "ledger_entry": _obj({"from": _ref("seat"), "to": _ref("seat"), "points": _INT,
                          "reason": {"enum": [str(r) for r in Reason]}}),
    "event": {
        "description": "an event of the hand as the seat may see it; its other fields depend on its type",
        "type": "object",
        "properties": {"type": {"enum": [str(k) for k in EventKind]}, "seat": _ref("seat"),
                       "tile": _nullable("tile"), "tiles": {"anyOf": [_ref("tiles"), {"type": "null"}]}},
        "required": ["type"],
        "additionalProperties": True,
    },
    "result": _obj({
        "complete": {"type": "boolean"},
        "winners": {"type": "array", "items": _ref("winner")},
        "ledger": {"type": "array", "items": _ref("ledger_entry")},
        "deltas": _ref("points"),
        "next_dealer": _nullable("seat"),
        "events": {"type": "array", "items": _ref("event")},
    }),
    "rules": {
        "description": "every option of the hand's rules by its docs/rules.md name, with the preset",
        "type": "object",
        "properties": {"preset": {"type": "string"},
                       "fan": {"type": "object", "additionalProperties": {"anyOf": [_INT, {"const": "cap"}]}}},
        "required": ["preset", "fan"],
        "additionalProperties": {"type": ["string", "integer", "number", "boolean", "null"]},
    },
}

_MESSAGES: Final[dict[str, tuple[str, dict[str, Any]]]] = {
    "start_hand": ("A hand begins: the seat the bot plays and the rules.", _obj({
        "type": {"const": "start_hand"}, "protocol": {"const": PROTOCOL_VERSION}, "seat": _ref("seat"),
        "rules": _ref("rules")})),
    "request": ("The seat must decide: what it sees, and the actions it may take.", _obj({
        "type": {"const": "request"}, "view": _ref("view"),
        "legal": {"type": "array", "items": _ref("action"), "minItems": 2}})),
    "end_hand": ("The hand is over: its result, with the events as the seat may see them.", _obj({
        "type": {"const": "end_hand"}, "result": _ref("result")})),
    "answer": ("The bot's answer to a request: one of its legal actions (other fields are ignored).",
               _obj({"action": _ref("action")}, closed=False)),
}


def _uses(node: Any, found: set[str]) -> set[str]:
    """The definitions ``node`` refers to, and those they refer to."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/") and ref[8:] not in found:
            found.add(ref[8:])
            _uses(_DEFS[ref[8:]], found)
        for value in node.values():
            _uses(value, found)
    elif isinstance(node, list):
        for value in node:
            _uses(value, found)
    return found


def schemas() -> dict[str, dict[str, Any]]:
    """The JSON Schema of each message of :data:`MESSAGES`, by name."""
    out: dict[str, dict[str, Any]] = {}
    for name in MESSAGES:
        description, body = _MESSAGES[name]
        out[name] = {"$schema": _DRAFT, "$id": f"{name}.schema.json",
                     "title": f"xuezhan bot protocol {PROTOCOL_VERSION}: {name}", "description": description,
                     **body, "$defs": {d: _DEFS[d] for d in sorted(_uses(body, set()))}}
    return out


def schema_path(name: str) -> Path:
    """The shipped file of the schema of message ``name``."""
    return SCHEMA_DIR / f"{name}.schema.json"


def schema_text(schema: dict[str, Any]) -> str:
    """A schema as its file holds it."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def write_schemas(folder: Path = SCHEMA_DIR) -> list[Path]:
    """Write every schema's file into ``folder`` (after a table they are built from changes)."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, schema in schemas().items():
        path = folder / f"{name}.schema.json"
        path.write_text(schema_text(schema), encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    for p in write_schemas():
        print(p)
