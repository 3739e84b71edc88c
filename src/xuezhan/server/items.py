"""Item cards at a web table (docs/rules.md §13): a seated player plays the cards it bought.

At a table whose room allows them (created with ``"items": true``), a seated player sends
``{"type": "item", "kind", "tile"?, "wanted"?, "suit"?, "version"}``:

- ``double`` and ``flush`` (its ``suit``, or its longest) before a hand is dealt: they are kept
  for the next deal and spent at it (a card the player no longer holds then is dropped);
- ``swap`` (``tile`` for ``wanted``) and ``random_swap`` (``tile``) on the seat's turn, ``seek``
  (``tile``) while the seat still plays: checked, spent, then used, in the hand's log.

Answers: ``ok`` and the effect (a swap shows in the seat's state; a seek answers the player
alone, ``{"type": "seek", "tile", "quarters"}``), or an error: ``items_not_allowed``,
``no_item``, ``item_used`` (one card of a kind per seat per hand, however many it holds),
``not_now``, ``not_seated``, ``stale``, ``bad_item`` and the engine's codes. Everyone sees that
a card was used and its kind (``state.items``), never its tiles, suit or seek answer
(:func:`xuezhan.match.items.items_seen`). Bots never play or buy cards.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from .. import vocab
from ..errors import XuezhanError
from ..ids import ErrorCode
from ..match import ItemKind
from ..match.items import BEFORE_DEAL, IN_HAND
from ..tiles import SUITS, Tile, parse_tile, tile_name
from ..vocab import Kind
from .conn import Conn
from .protocol import ProtocolError
from .status import Status

if TYPE_CHECKING:
    from .play import TablePlay

FIELDS: Final = frozenset({"type", "kind", "tile", "wanted", "suit", "version"})
"""The fields of a client's ``item`` message."""


@dataclass(frozen=True, slots=True)
class ItemRequest:
    """A client's ``item`` message, read: the card, its tiles or suit, the version it answers."""

    kind: ItemKind
    tile: Tile | None
    wanted: Tile | None
    suit: int | None
    version: int


def parse_item(data: dict[str, Any]) -> ItemRequest:
    """Read an ``item`` message; raises :class:`ProtocolError` (``bad_message``, ``bad_item``)."""
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise ProtocolError(ErrorCode.BAD_MESSAGE, "'version' (the table version the card answers) must be an integer")
    try:
        kind = ItemKind(str(data.get("kind")))
    except ValueError:
        raise ProtocolError(ErrorCode.BAD_ITEM, f"no item card {str(data.get('kind'))[:40]!r}") from None
    if kind not in (*BEFORE_DEAL, *IN_HAND):
        raise ProtocolError(ErrorCode.BAD_ITEM, f"a {kind} card is not played at a table")
    tiles: dict[str, Tile | None] = {}
    for key in ("tile", "wanted"):
        raw = data.get(key)
        if raw is not None and not isinstance(raw, str):
            raise ProtocolError(ErrorCode.BAD_ITEM, f"'{key}' must be a tile such as \"5m\"")
        try:
            tiles[key] = None if raw is None else parse_tile(raw)
        except XuezhanError as exc:
            raise ProtocolError(ErrorCode.BAD_ITEM, f"'{key}': {exc.message}") from None
    suit = data.get("suit")
    if suit is not None and (not isinstance(suit, str) or suit not in SUITS):
        raise ProtocolError(ErrorCode.BAD_ITEM, "'suit' must be m, p or s")
    return ItemRequest(kind, tiles["tile"], tiles["wanted"], None if suit is None else SUITS.index(suit), version)


def card_name(kind: str, conn: Conn) -> str:
    return vocab.name_or_id(Kind.ITEM, kind, conn.lang)


def dealt_with(start: dict[str, Any]) -> dict[str, Any]:
    """The item cards a logged hand was dealt with (its start's ``items``), as
    :meth:`xuezhan.match.Match.start_hand` takes them, to deal it again after a restart."""
    asked = start.get("items") or {}
    options: dict[str, Any] = {}
    if asked.get("double"):
        options["double"] = [str(p) for p in asked["double"]]
    if asked.get("flush"):
        options["flush"] = {str(p): None if s is None else int(s) for p, s in asked["flush"].items()}
    return options


class TableItems:
    """One table's item cards outside the hand: the cards of the deal asked for the next hand."""

    def __init__(self) -> None:
        self.next_deal: dict[str, dict[ItemKind, int | None]] = {}
        """By player: the cards of the deal it asked for (a flush card with its suit, or ``None``)."""

    def deal_public(self, players: list[str | None]) -> list[dict[str, Any]]:
        """The cards asked for the next deal as everyone may see them: seat and kind."""
        return [{"seat": seat, "kind": str(kind)} for seat, player in enumerate(players) if player is not None
                for kind in self.next_deal.get(player, {})]

    async def deal_options(self, table: TablePlay) -> dict[str, Any]:
        """Spend the cards asked for the next deal by the players who sit in it, and give them as
        :meth:`xuezhan.match.Match.start_hand` takes them (a card no longer held is dropped)."""
        match = table.match
        asked, self.next_deal = self.next_deal, {}
        if match is None or not asked or not table.room.items_allowed:
            return {}
        hand_no = match.hands_played + 1
        double: list[str] = []
        flush: dict[str, int | None] = {}
        for player in match.seats:
            for kind, suit in asked.get(player or "", {}).items():
                assert player is not None
                try:
                    await table._write(table.bank.spend_item, player, str(kind),
                                       f"item/{table.match_key}/{hand_no}/{player}/{kind}")
                except XuezhanError:
                    continue  # no such card any more: the deal goes on without it
                if kind is ItemKind.DOUBLE:
                    double.append(player)
                else:
                    flush[player] = suit
        options: dict[str, Any] = {}
        if double:
            options["double"] = double
        if flush:
            options["flush"] = flush
        return options


async def on_item(table: TablePlay, conn: Conn, data: dict[str, Any]) -> None:
    """A client's ``item`` message (see the module docstring): checked, spent, used, logged, shown."""
    try:
        req = parse_item(data)
    except ProtocolError as exc:
        table._refuse(conn, "item", exc.code, exc.message)
        return
    card = card_name(req.kind, conn)
    seat = conn.seat
    if seat is None:
        table._refuse(conn, "item", ErrorCode.NOT_SEATED, "spectators use no item cards")
        return
    if not table.room.items_allowed:
        table._refuse(conn, "item", ErrorCode.ITEMS_NOT_ALLOWED, "this room does not allow item cards", card=card)
        return
    player = conn.account.player
    if req.kind in BEFORE_DEAL:
        await _before_deal(table, conn, player, req, card)
    else:
        await _in_hand(table, conn, seat, player, req, card)


async def _holds(table: TablePlay, conn: Conn, player: str, kind: ItemKind, card: str) -> bool:
    owned: dict[str, int] = await table._write(table.bank.items, player)
    if owned.get(str(kind), 0) < 1:
        table._refuse(conn, "item", ErrorCode.NO_ITEM, f"you hold no {kind} card", card=card)
        return False
    return True


async def _before_deal(table: TablePlay, conn: Conn, player: str, req: ItemRequest, card: str) -> None:
    if table.status is Status.PLAYING or table.status is Status.CLOSED:
        table._refuse(conn, "item", ErrorCode.NOT_NOW, f"a {req.kind} card is used before a hand is dealt", card=card)
        return
    asked = table.items.next_deal.setdefault(player, {})
    if req.kind in asked:
        table._refuse(conn, "item", ErrorCode.ITEM_USED, f"a {req.kind} card is asked for this deal already",
                      card=card)
        return
    if not await _holds(table, conn, player, req.kind, card):
        return
    asked[req.kind] = req.suit if req.kind is ItemKind.FLUSH else None
    table._ok(conn, "item")
    table.out.broadcast_room()


async def _in_hand(table: TablePlay, conn: Conn, seat: int, player: str, req: ItemRequest, card: str) -> None:
    driver, hand = table.driver, table.runtime.hand if table.runtime is not None else None
    # never in a discard pause: a card used then would tell that its seat may claim the discard
    if table.status is not Status.PLAYING or driver is None or hand is None or driver.over \
            or table.pause is not None:
        table._refuse(conn, "item", ErrorCode.NOT_NOW, f"a {req.kind} card is used while a hand is played", card=card)
        return
    if seat in driver.game.pending() and req.version < table.pacer.since.get(seat, 0):
        table._refuse(conn, "item", ErrorCode.STALE, "the table has moved on since you chose that")
        return
    if table.log_failing:
        table._refuse(conn, "item", ErrorCode.DATABASE_ERROR, "the table waits for the database; try again soon")
        return
    try:
        hand.check_item(seat, req.kind, req.tile, req.wanted)
    except XuezhanError as exc:
        table._refuse(conn, "item", exc.code, exc.message, card=card)
        return
    try:
        await table._write(table.bank.spend_item, player, str(req.kind),
                           f"item/{table.match_key}/{hand.hand_no}/{player}/{req.kind}")
    except XuezhanError as exc:
        table._refuse(conn, "item", exc.code, exc.message, card=card)
        return
    use = hand.use_item(seat, req.kind, req.tile, req.wanted)  # checked above: it cannot fail now
    if not await table._flush():
        table._ok(conn, "item")  # used: shown when it is logged
        return
    table._ok(conn, "item")
    if use.kind is ItemKind.SEEK and use.tile is not None and use.quarters is not None:
        conn.send({"type": "seek", "tile": tile_name(use.tile), "quarters": list(use.quarters)})
    table._changed()  # everyone's state: a swap's effect for the seat, the card's kind for the others
