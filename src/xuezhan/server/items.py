"""Item cards at a web table (docs/rules.md §13): a seated player plays the cards it bought.

At a table whose room allows them (created with ``"items": true``), a seated player sends
``{"type": "item", "kind", "tile"?, "wanted"?, "suit"?, "version"}``:

- ``double`` and ``flush`` (its ``suit``, or its longest) before a hand is dealt: they are kept
  for the next deal and spent at it (a card the player no longer holds then is dropped);
- ``swap`` (``tile`` for ``wanted``) and ``random_swap`` (``tile``) on the seat's turn, ``seek``
  (``tile``) while the seat still plays: checked, spent, then used, in the hand's log;
- ``golden_finger`` (``version`` may be left out) any time the player sits at the table: spent
  once, it marks the seat's discards for everyone (``room.items.golden_fingers``) until the player
  leaves the seat (:meth:`xuezhan.match.Match.use_golden_finger`); a second one while it shows is
  ``item_used``.

Answers: ``ok`` and the effect (a swap shows in the seat's state; a seek answers the player
alone, ``{"type": "seek", "tile", "quarters"}``), or an error: ``items_not_allowed``,
``no_item``, ``item_used`` (one card of a kind per seat per hand, however many it holds),
``not_now``, ``not_seated``, ``stale``, ``bad_item`` and the engine's codes. Everyone sees that
a card was used and its kind (``state.items``), never its tiles, suit or seek answer
(:func:`xuezhan.match.items.items_seen`). Bots never play or buy cards.

Here: the message read, the cards asked for the next deal and their spending at it, the golden
fingers shown before a match, and what of them a restart keeps (the room's metadata,
:meth:`TableItems.pending_json`); the table
(:meth:`xuezhan.server.table.Table.on_item_message`) does the rest in its own order.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from .. import vocab
from ..errors import XuezhanError
from ..ids import ErrorCode
from ..match import ItemKind, Match
from ..match.items import BEFORE_DEAL, IN_HAND
from ..records import card_fields
from ..tiles import Tile
from ..vocab import Kind
from .conn import Conn
from .protocol import ProtocolError

Spend = Callable[[str, str, str], Awaitable[object]]
"""Spends one card: ``spend(player, kind, key)`` (:meth:`xuezhan.server.bank.Bank.spend_item`)."""

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
    try:
        kind = ItemKind(str(data.get("kind")))
    except ValueError:
        raise ProtocolError(ErrorCode.BAD_ITEM, f"no item card {str(data.get('kind'))[:40]!r}") from None
    if kind not in (*BEFORE_DEAL, *IN_HAND, ItemKind.GOLDEN_FINGER):
        raise ProtocolError(ErrorCode.BAD_ITEM, f"a {kind} card is not played at a table")
    version = data.get("version", 0 if kind is ItemKind.GOLDEN_FINGER else None)  # a marker answers no decision
    if not isinstance(version, int) or isinstance(version, bool):
        raise ProtocolError(ErrorCode.BAD_MESSAGE, "'version' (the table version the card answers) must be an integer")
    tile, wanted, suit = card_fields(data, lambda _key, message: ProtocolError(ErrorCode.BAD_ITEM, message))
    return ItemRequest(kind, tile, wanted, suit, version)


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
    """One table's item cards outside the hand: the cards of the deal asked for the next hand, and
    the golden fingers shown while the room waits for its match (a match holds its own,
    :attr:`xuezhan.match.Match.golden_fingers`)."""

    def __init__(self) -> None:
        self.next_deal: dict[str, dict[ItemKind, int | None]] = {}
        """By player: the cards of the deal it asked for (a flush card with its suit, or ``None``)."""
        self.golden: set[str] = set()
        """The players showing a golden finger before the room's first match."""

    def pending_json(self) -> list[dict[str, Any]]:
        """The cards asked for the next deal as the room's metadata keeps them for a restart:
        ``[{"player", "kind", "suit"}]`` (``suit`` 0-2 or ``None``), in the order asked."""
        return [{"player": player, "kind": str(kind), "suit": suit}
                for player, kinds in self.next_deal.items() for kind, suit in kinds.items()]

    def take_pending(self, pending: object, seated: list[str | None]) -> None:
        """Ask again, after a restart, for the cards of :meth:`pending_json` of the players who sit in
        ``seated`` (anything else in it is dropped: nothing was spent for it)."""
        for entry in pending if isinstance(pending, list) else ():
            if not isinstance(entry, dict) or entry.get("player") not in seated:
                continue
            try:
                kind = ItemKind(str(entry.get("kind")))
            except ValueError:
                continue
            suit = entry.get("suit")
            if kind in BEFORE_DEAL and (suit is None or suit in (0, 1, 2)) and not isinstance(suit, bool):
                self.next_deal.setdefault(str(entry["player"]), {})[kind] = suit if kind is ItemKind.FLUSH else None

    def deal_public(self, players: list[str | None]) -> list[dict[str, Any]]:
        """The cards asked for the next deal as everyone may see them: seat and kind."""
        return [{"seat": seat, "kind": str(kind)} for seat, player in enumerate(players) if player is not None
                for kind in self.next_deal.get(player, {})]

    def ask(self, player: str, req: ItemRequest) -> None:
        """Keep ``player``'s card of the deal (``req``) for the next deal."""
        self.next_deal.setdefault(player, {})[req.kind] = req.suit if req.kind is ItemKind.FLUSH else None

    async def deal_options(self, match: Match | None, match_key: str, spend: Spend) -> dict[str, Any]:
        """Spend (``spend(player, kind, key)``) the cards asked for the next deal of ``match`` by the
        players who sit in it, and give them as :meth:`xuezhan.match.Match.start_hand` takes them
        (a card no longer held is dropped: the deal goes on without it)."""
        asked, self.next_deal = self.next_deal, {}
        if match is None or not asked or not match.room.items_allowed:
            return {}
        hand_no = match.hands_played + 1
        double: list[str] = []
        flush: dict[str, int | None] = {}
        for player in match.seats:
            for kind, suit in asked.get(player or "", {}).items():
                assert player is not None
                try:
                    await spend(player, str(kind), spend_key(match_key, hand_no, player, kind))
                except XuezhanError:
                    continue
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


def golden_key(room: str, player: str) -> str:
    """The key a golden finger is spent under: each one shown is a card of its own (a player who
    leaves the seat and shows one again spends another), so the key is drawn afresh."""
    return f"item/{room}/golden_finger/{player}/{secrets.token_hex(8)}"


def spend_key(match_key: str, hand_no: int, player: str, kind: str) -> str:
    """The key a card used in a hand is spent under: one card of a kind per player per hand, once,
    whatever is retried."""
    return f"item/{match_key}/{hand_no}/{player}/{kind}"
