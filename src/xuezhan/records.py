"""Game records: read strictly, replay exactly, write from a played hand (docs/interfaces.md §2.4).

A record fixes the start of one hand (rules, dealer, hands + wall, or dice + wall
layout) and the decisions taken in it. :func:`replay` rebuilds the hand; claim
windows take the claims listed right after the discard (or bugang) and every other
seat with an option passes; after the last action ``autoplay: "tsumogiri"`` decides.
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Final

from .engine.actions import Action, ActionType
from .engine.deal import Deal, deal_from_layout, validate_deal
from .engine.game import EXCHANGE_DIRECTIONS, Game, Phase
from .errors import DealError, IllegalActionError, RecordError, RulesError, XuezhanError
from .ids import ErrorCode
from .jsontext import has_surrogate, json_line
from .rules import Rules
from .tiles import SUITS, format_tiles, parse_tile, parse_tiles
from .vocab import Kind
from .vocab import find as find_term

_KEYS = {"rules", "dealer", "hands", "wall", "dice", "wall_layout", "actions", "autoplay",
         "exchange_direction", "bystanders", "result", "seed", "match", "items"}
_ITEM_KEYS: Final = frozenset({"seat", "kind", "at", "tile", "wanted", "suit", "quarters"})
_CLAIMS = (ActionType.HU, ActionType.PENG, ActionType.GANG, ActionType.PASS)
_DIRECTION_NAMES = {v: k for k, v in EXCHANGE_DIRECTIONS.items()}


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
MAX_DIGITS: Final = 4300
"""The longest integer JSON input may hold (Python's own limit on reading one from text)."""
_LONG_NUMBER = re.compile(rf"\d{{{MAX_DIGITS + 1},}}")


def _orjson() -> ModuleType | None:
    try:
        return importlib.import_module("orjson")
    except ImportError:  # a dependency of the package; the core itself needs only the standard library
        return None


_ORJSON: Final = _orjson()
_NOT_MARKS: Final = bytes(b for b in range(256) if b not in b'",:')


def record_line(record: Mapping[str, Any]) -> bytes:
    """``record`` as one line of a JSON-lines file, newline included: byte for byte
    ``json_line(record) + "\\n"`` in UTF-8, as ``simulate --out`` writes it, several times faster.

    orjson writes the record compactly and the separators get the standard library's spaces
    back (``", "``, ``": "``), where that gives the same text: plain ASCII with no escape, no
    comma or colon inside a string, integers within 64 bits. Anything else (a seed beyond 64
    bits, text from outside, no orjson installed) is written by :func:`json_line`, and so is
    anything with a decimal point: a record holds no float (orjson writes a float's text its
    own way; one without a point, ``1e+16`` or NaN, would not be noticed)."""
    raw = _compact(record)
    # with no escape the quotes pair up, and a string free of , and : leaves "" among the marks
    if (raw is not None and raw.isascii() and b"\\" not in raw and b"." not in raw
            and b'"' not in raw.translate(None, _NOT_MARKS).replace(b'""', b"")):
        return raw.replace(b",", b", ").replace(b":", b": ") + b"\n"
    return (json_line(record) + "\n").encode("utf-8")


def _compact(data: Any) -> bytes | None:
    """``data`` as compact JSON by orjson, or ``None`` (no orjson, or a value it refuses: an
    integer beyond 64 bits, a lone surrogate, a type it does not write)."""
    if _ORJSON is None:
        return None
    try:
        raw: bytes = _ORJSON.dumps(data)
    except TypeError:
        return None
    return raw


def _lone_surrogate(data: Any) -> str | None:
    """The first string (key or value) of decoded JSON ``data`` that holds a lone surrogate."""
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if has_surrogate(item):
                return item
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


def loads_text(text: str) -> Any:
    """Decode JSON ``text`` as the project reads outside input: as :func:`json.loads`, but an
    integer of more than :data:`MAX_DIGITS` digits and a string that is not Unicode text (a lone
    surrogate, ``"\\ud800"``) are refused like a syntax error (:class:`json.JSONDecodeError`),
    so that nothing read can fail to print or to be written as UTF-8 later."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        raise
    except ValueError:  # Python's limit on integer digits (ValueError, not a JSONDecodeError)
        long = _LONG_NUMBER.search(text)
        raise json.JSONDecodeError(f"a number has more than {MAX_DIGITS} digits", text,
                                   0 if long is None else long.start()) from None
    escape = _SURROGATE_ESCAPE.search(text)
    if escape is not None and _lone_surrogate(data) is not None:
        raise json.JSONDecodeError("a lone surrogate (\\ud800-\\udfff) is not Unicode text", text, escape.start())
    return data


@dataclass(frozen=True, slots=True)
class RecordItem:
    """An item card used in a hand (docs/rules.md §13), as its record keeps it (``items``): the
    seat, the card's ``kind`` (an item id of :mod:`xuezhan.vocab`), ``at`` (how many of the
    record's actions came before it; ``None``: before the deal, whose hands it shaped), and what
    it did: ``tile`` given up and ``wanted`` got (swaps), ``suit`` (flush), ``tile`` and
    ``quarters`` (seek: live copies in each quarter of the wall, head first). Information only:
    a swap's own action is in ``actions`` (``actions[at]``)."""

    seat: int
    kind: str
    at: int | None = None
    tile: int | None = None
    wanted: int | None = None
    suit: int | None = None
    quarters: tuple[int, ...] | None = None


def card_fields(data: Mapping[str, Any], error: Callable[[str, str], XuezhanError]) -> tuple[int | None, int | None,
                                                                                          int | None]:
    """An item card's ``tile``, ``wanted`` and ``suit`` (0-2), each ``None`` when absent, read alike
    from a record's ``items`` and a client's ``item`` message; a bad one raises
    ``error(field, message)`` (each reader its own error class and codes)."""
    tiles: list[int | None] = []
    for key in ("tile", "wanted"):
        raw = data.get(key)
        if raw is not None and not isinstance(raw, str):
            raise error(key, f"'{key}' must be a tile such as \"5m\"")
        try:
            tiles.append(None if raw is None else parse_tile(raw))
        except XuezhanError as exc:
            raise error(key, f"'{key}': {exc.message}") from None
    suit = data.get("suit")
    if suit is not None and (not isinstance(suit, str) or suit not in tuple(SUITS)):
        raise error("suit", "'suit' must be m, p or s")
    return tiles[0], tiles[1], None if suit is None else SUITS.index(suit)


def _record_item(i: int, data: Any) -> RecordItem:
    where = f"items[{i}]"
    if not isinstance(data, Mapping) or set(data) - _ITEM_KEYS:
        raise RecordError(ErrorCode.BAD_RECORD, f"{where} must be an object of {', '.join(sorted(_ITEM_KEYS))}")
    seat, kind, at = data.get("seat"), data.get("kind"), data.get("at")
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat <= 3:
        raise RecordError(ErrorCode.BAD_RECORD, f"{where}: 'seat' must be 0-3")
    if not isinstance(kind, str) or find_term(Kind.ITEM, kind) is None:
        raise RecordError(ErrorCode.BAD_ITEM, f"{where}: no item card {kind!r}")
    if at is not None and (not _whole(at) or at < 0):
        raise RecordError(ErrorCode.BAD_RECORD, f"{where}: 'at' must be a number of actions")
    tile, wanted, suit = card_fields(data, lambda key, message: RecordError(
        ErrorCode.BAD_RECORD if key == "suit" else ErrorCode.BAD_TILES, f"{where}: {message}"))
    quarters = data.get("quarters")
    if quarters is not None and (not isinstance(quarters, list) or len(quarters) != 4
                                 or not all(_whole(q) and 0 <= q <= 4 for q in quarters)):
        raise RecordError(ErrorCode.BAD_RECORD, f"{where}: 'quarters' must be four counts")
    return RecordItem(seat, kind, at, tile, wanted, suit, None if quarters is None else tuple(quarters))


@dataclass(frozen=True)
class Record:
    """A parsed record: everything needed to replay one hand."""

    rules: Rules
    dealer: int
    deal: Deal
    actions: tuple[Action, ...]
    autoplay: str | None
    exchange_direction: int | None
    bystanders: int = 0
    items: tuple[RecordItem, ...] = ()

    def new_game(self) -> Game:
        return Game(self.rules, self.deal, self.dealer, exchange_direction=self.exchange_direction,
                    bystanders=self.bystanders)


def _tiles(value: Any, what: str) -> list[int]:
    if not isinstance(value, str):
        raise RecordError(ErrorCode.BAD_RECORD, f"{what} must be a tile string")
    try:
        return parse_tiles(value)
    except XuezhanError as exc:
        raise RecordError(ErrorCode.BAD_TILES, f"{what}: {exc.message}") from None


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_place(data: Mapping[str, Any]) -> None:
    """``seed`` (the hand's) and ``match`` (``{"seed", "hand_no"}``, its place in a match) are
    information only, but a record that gives them gives them right."""
    if "seed" in data and not _whole(data["seed"]):
        raise RecordError(ErrorCode.BAD_RECORD, "'seed' must be an integer")
    if "match" in data:
        place = data["match"]
        if (not isinstance(place, Mapping) or set(place) != {"seed", "hand_no"} or not _whole(place["seed"])
                or not _whole(place["hand_no"]) or place["hand_no"] < 1):
            raise RecordError(ErrorCode.BAD_RECORD, "'match' must be {\"seed\": integer, \"hand_no\": integer from 1}")


def parse_record(data: Any) -> Record:
    """Read a record (already decoded JSON). Raises :class:`RecordError` with a stable code."""
    if not isinstance(data, Mapping):
        raise RecordError(ErrorCode.BAD_RECORD, "a record must be a JSON object")
    unknown = set(data) - _KEYS
    if unknown:
        raise RecordError(ErrorCode.UNKNOWN_FIELD, f"unknown record field(s): {', '.join(sorted(unknown))}")
    _check_place(data)
    raw_rules = data.get("rules", "qq")
    try:
        rules = Rules.preset(raw_rules) if isinstance(raw_rules, str) else Rules.from_mapping(raw_rules)
    except RulesError as exc:
        raise RecordError(ErrorCode.BAD_RULES, f"rules: {exc.message}") from None
    dealer = data.get("dealer", 0)
    if not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer <= 3:
        raise RecordError(ErrorCode.BAD_DEALER, "'dealer' must be a seat number 0-3")
    if "hands" in data or "wall" in data:
        if "dice" in data or "wall_layout" in data:
            raise RecordError(ErrorCode.BAD_RECORD, "give either hands + wall, or dice + wall_layout, not both")
        hands_raw = data.get("hands")
        if not isinstance(hands_raw, list) or len(hands_raw) != 4:
            raise RecordError(ErrorCode.BAD_HANDS, "'hands' must be a list of four tile strings")
        hands = [_tiles(h, f"hands[{i}]") for i, h in enumerate(hands_raw)]
        wall = _tiles(data.get("wall"), "wall")
        deal = Deal(tuple(tuple(h) for h in hands), tuple(wall))
        try:
            validate_deal(deal, dealer)
        except DealError as exc:
            raise RecordError(exc.problem, exc.message) from None
    elif "wall_layout" in data:
        dice = data.get("dice")
        if (not isinstance(dice, list) or len(dice) != 2
                or not all(isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in dice)):
            raise RecordError(ErrorCode.BAD_DICE, "'dice' must be two numbers from 1 to 6")
        layout = _tiles(data.get("wall_layout"), "wall_layout")
        if len(layout) != 108:
            raise RecordError(ErrorCode.NOT_108_TILES, f"'wall_layout' has {len(layout)} tiles, expected 108")
        deal = deal_from_layout(layout, (dice[0], dice[1]), dealer)
    else:
        raise RecordError(ErrorCode.BAD_RECORD, "a record needs hands + wall, or dice + wall_layout")
    actions_raw = data.get("actions", [])
    if not isinstance(actions_raw, list):
        raise RecordError(ErrorCode.BAD_RECORD, "'actions' must be a list")
    actions = []
    for i, a in enumerate(actions_raw):
        try:
            actions.append(Action.from_json(a))
        except RecordError as exc:
            raise RecordError(exc.code, f"actions[{i}]: {exc.message}") from None
    autoplay = data.get("autoplay")
    if autoplay not in (None, "tsumogiri"):
        raise RecordError(ErrorCode.BAD_AUTOPLAY, f"'autoplay' must be \"tsumogiri\" or absent, not {autoplay!r}")
    direction = None
    if "exchange_direction" in data:
        name = data["exchange_direction"]
        if not isinstance(name, str) or name not in EXCHANGE_DIRECTIONS:
            raise RecordError(ErrorCode.BAD_RECORD, "'exchange_direction' must be counter, opposite or clockwise")
        direction = EXCHANGE_DIRECTIONS[name]
    elif rules.exchange_three == "random":
        raise RecordError(ErrorCode.BAD_RECORD, "exchange_three = random needs the record's 'exchange_direction'")
    bystanders = data.get("bystanders", 0)
    if not isinstance(bystanders, int) or isinstance(bystanders, bool) or not 0 <= bystanders <= 4:
        raise RecordError(ErrorCode.BAD_RECORD, "'bystanders' must be a number from 0 to 4")
    items_raw = data.get("items", [])
    if not isinstance(items_raw, list):
        raise RecordError(ErrorCode.BAD_RECORD, "'items' must be a list")
    items = tuple(_record_item(i, item) for i, item in enumerate(items_raw))
    return Record(rules, dealer, deal, tuple(actions), autoplay, direction, bystanders, items)


def load_record(path: str | Path) -> Record:
    """Read and parse a record file (``bad_json`` / ``unreadable`` codes for broken files)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise RecordError(ErrorCode.UNREADABLE, f"cannot read {path}: {exc.strerror}") from None
    except UnicodeEncodeError:  # a name no file can have (a lone surrogate)
        raise RecordError(ErrorCode.UNREADABLE, f"cannot read {path}: not a file name") from None
    except UnicodeDecodeError:
        raise RecordError(ErrorCode.BAD_JSON, f"{path} is not UTF-8 text") from None
    try:
        data = loads_text(text)
    except json.JSONDecodeError as exc:
        raise RecordError(ErrorCode.BAD_JSON, f"{path} is not valid JSON: {exc}") from None
    except RecursionError:
        raise RecordError(ErrorCode.BAD_JSON, f"{path} is nested too deep") from None
    return parse_record(data)


# --- autoplay -----------------------------------------------------------------------------------


def tsumogiri(game: Game, seat: int) -> Action:
    """The record's ``autoplay: "tsumogiri"`` decision for ``seat`` (docs/interfaces.md §2.4).

    Void: the suit with fewest tiles (ties m < p < s). Exchange: three lowest tiles of the
    suit with fewest tiles among those holding three or more. Discards the drawn tile, or
    while holding void tiles the lowest void tile (with no drawn tile, after a peng, the
    highest tile). Never pengs or kongs; hus only when a rule forces it.
    """
    legal = game.legal_actions(seat)
    if not legal:
        raise IllegalActionError(ErrorCode.NOT_YOUR_TURN, f"seat {seat} has nothing to do")
    s = game.seat_state(seat)
    sizes = s.suit_sizes
    kinds = {a.type for a in legal}
    if game.phase is Phase.DINGQUE:
        return min(legal, key=lambda a: (sizes[a.suit or 0], a.suit))
    if game.phase is Phase.EXCHANGE:
        suit = min((x for x in range(3) if sizes[x] >= 3), key=lambda x: (sizes[x], x))
        tiles = tuple(t for t in range(suit * 9, suit * 9 + 9) for _ in range(s.counts[t]))[:3]
        return Action(seat, ActionType.EXCHANGE, tiles=tiles)
    if kinds == {ActionType.HU}:
        return legal[0]
    if game.phase is Phase.CLAIM or game.phase is Phase.ROB:
        return Action(seat, ActionType.PASS)
    discards = [a for a in legal if a.type is ActionType.DISCARD]
    if s.holds_void():
        return min(discards, key=lambda a: a.tile or 0)
    drawn = game.drawn
    for a in discards:
        if a.tile == drawn:
            return a
    return max(discards, key=lambda a: a.tile or 0)


# --- replay ---------------------------------------------------------------------------------------


def replay(record: Record, before: Callable[[int, Action, Game], None] | None = None) -> tuple[Game, bool]:
    """Replay a record. Returns the game and whether the hand is complete.

    ``before(index, action, game)`` is called with each action the record lists (not the passes
    of a window it closes, nor autoplay's), just before it is applied: the game as the seat
    decided (a review of the hand reads each decision there).
    Raises :class:`RecordError` (``illegal_action``) naming the index of an illegal action.
    """
    game = record.new_game()
    actions = record.actions
    i = 0

    def apply(action: Action, index: int | None) -> None:
        try:
            game.apply(action)
        except IllegalActionError as exc:
            where = f"actions[{index}]" if index is not None else "autoplay"
            raise RecordError(ErrorCode.ILLEGAL_ACTION, f"{where} ({action}): {exc.code}: {exc.message}") from None

    while not game.over:
        pending = game.pending()
        if not pending:  # cannot happen while the hand runs
            raise RecordError(ErrorCode.STUCK, "no seat can act")
        if i < len(actions):
            a = actions[i]
            in_window = game.phase is Phase.CLAIM or game.phase is Phase.ROB
            if in_window and not (a.type is ActionType.ESCAPE or (a.type in _CLAIMS and a.seat in pending)):
                # the window closes: every seat with an option that is not listed passes
                for seat in pending:
                    if game.over or seat not in game.pending():
                        continue
                    legal = game.legal_actions(seat)
                    choice = Action(seat, ActionType.PASS)
                    if choice not in legal:  # a rule forces the win
                        choice = Action(seat, ActionType.HU)
                    apply(choice, None)
                continue
            if before is not None:
                before(i, a, game)
            apply(a, i)
            i += 1
            continue
        if record.autoplay != "tsumogiri":
            return game, False
        apply(tsumogiri(game, pending[0]), None)
    if i < len(actions):
        raise RecordError(ErrorCode.ACTIONS_AFTER_END, f"actions[{i}] ({actions[i]}) comes after the end of the hand")
    return game, True


def record_json(game: Game, *, with_result: bool = True) -> dict[str, Any]:
    """The record of a played hand: its start, every action taken, and its result."""
    deal = game.deal
    out: dict[str, Any] = {"rules": game.rules.to_mapping(), "dealer": game.dealer}
    if deal.wall_layout is not None and deal.dice is not None:
        out["dice"] = list(deal.dice)
        out["wall_layout"] = format_tiles(deal.wall_layout, compact=False)
    else:
        out["hands"] = [format_tiles(h, compact=False) for h in deal.hands]
        out["wall"] = format_tiles(deal.wall, compact=False)
    if game.exchange_direction is not None and game.rules.exchange_three != "none":
        out["exchange_direction"] = _DIRECTION_NAMES[game.exchange_direction]
    if game.bystander_tiles:
        out["bystanders"] = len(game.bystander_tiles)
    out["actions"] = [a.to_json() for a in game.actions]
    if with_result:
        out["result"] = result_json(game, complete=game.over)
    return out


def result_json(game: Game, complete: bool) -> dict[str, Any]:
    res = game.result_json()
    res["complete"] = complete
    return res
