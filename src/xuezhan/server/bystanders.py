"""叫马 at the web table (docs/rules.md §12): the fifth to eighth person bets on a seat.

A signed-in spectator asks between hands (``{"type": "jiao_ma"}``; before the first deal
too) and bets on the next hand only: one hand at a time, it asks again for the next. At
the deal those who asked join the match as its bystanders (:meth:`Match.join` with every
seat taken), in the order they asked, and the match layer does the rest: each takes its
tile from the tail, is bound to a seat by the tile's rank, and its points repeat that
seat's ledger entries (:mod:`xuezhan.match.bystanders`); the store settles them with no fee
(:meth:`xuezhan.store.Store.settle_hand`: the hand's coins sum to minus its fees, whoever bets)
and a wallet calls them ``jiao_ma`` (:meth:`xuezhan.store.Ledger.wallet`). When the hand is
settled they leave the match again.

Who is told what: the bystander alone gets ``{"type": "jiao_ma", "tile", "seat"}`` once
the deal is logged (and again whenever it connects during the hand); ``room.bystanders``
tells everyone the names only (of those who asked, then of the hand's bystanders) until
the hand ends; ``hand_end.bystanders`` then shows everyone each bet and its coins.

A restart mid-hand carries the bets on exactly: the hand's log names its bystanders
(:func:`xuezhan.server.journal.hand_start`), and :meth:`JiaoMa.resume` seats them back in
the match before the hand is dealt again from its seed. A request made between hands is
the table's until the deal, kept with the room's metadata (:meth:`JiaoMa.pending_json`): a
restart asks again for it (:meth:`JiaoMa.take_pending`); a person it asked for who has not come
back to the room by the deal bets on nothing.

Decisions where the contract is silent: a request is answered ``ok`` again when repeated;
a seated person (also in a second window that watches) is refused ``already_seated``; the
balance is checked when asked and again at the deal (a bystander short of the room's
minimum by then is told ``insufficient_balance`` and bets on nothing); a person whose last
connection to the room goes between hands takes its request back; a bet is settled in coins
with its hand and counts for no match standing (``match_end`` ranks the seats' points).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final, Protocol

from .. import i18n
from ..i18n import Lang
from ..ids import ErrorCode
from ..match import Hand, HandResult, Match
from ..match.room import MAX_PEOPLE
from ..tiles import tile_name
from .bank import Account, Bank, Settled, is_bot
from .conn import Conn
from .protocol import error_message
from .status import Status
from .words import display_name

MAX_BYSTANDERS: Final = MAX_PEOPLE - 4
"""Four at most: the people a match takes beyond its four seats (docs/rules.md §12)."""
ASKING: Final = frozenset({Status.WAITING, Status.BETWEEN, Status.FINISHED})
"""When a spectator may ask: whenever no hand is being played (a finished match may start again)."""
KIND: Final = "jiao_ma"
"""The client message's type, and the ``for`` of its answers."""


class JiaoMaTable(Protocol):
    """What 叫马 reads and uses of a table (:class:`xuezhan.server.play.TablePlay` has it all)."""

    status: Status
    bank: Bank
    players: list[str | None]
    names: dict[str, str]
    balances: dict[str, int]
    conns: set[Conn]

    @property
    def match(self) -> Match | None: ...
    @property
    def hand(self) -> Hand | None: ...
    async def keep_requests(self) -> None: ...


Write = Callable[..., Awaitable[Any]]
"""How the table runs a call of its bank (:meth:`xuezhan.server.play.TablePlay._write`)."""


class JiaoMa:
    """A table's 叫马: who asked for the next hand; the bets of the hand in play are its hand's.
    ``write`` runs a call of the bank as the table does; ``min_balance`` is the balance a seat
    there needs, and a bet too."""

    def __init__(self, table: JiaoMaTable, write: Write, min_balance: Callable[[], int]) -> None:
        self.table = table
        self.write = write
        self.min_balance = min_balance
        self.asked: list[str] = []
        """The players who asked to bet on the next hand, in the order they asked."""
        self.running: dict[str, int | None] = {}
        """The match points each bystander of the hand in play had before it (``None``: none, it
        never sat in this match): a bet is settled by the hand, it counts for no match standing."""
        self.restored: set[str] = set()
        """Those of :attr:`asked` a restart asked again for: each bets only if it is back by the deal."""

    # --- who bets -------------------------------------------------------------------------------------
    def players(self) -> list[str]:
        """The bystanders of the hand being played, or (between hands) those who asked for the next."""
        t = self.table
        hand = t.hand
        if t.status is Status.PLAYING and hand is not None:
            return [b.player for b in hand.bets]
        return [p for p in self.asked if p not in t.players]

    def names(self, lang: Lang) -> list[str]:
        """``room.bystanders``: the shown names of :meth:`players`, never a tile or a seat."""
        return [display_name(p, self.table.names, lang) for p in self.players()]

    async def ask(self, conn: Conn) -> bool:
        """A spectator asks to 叫马 in the next hand: answered ``ok`` or refused (``already_seated``,
        ``not_between_hands``, ``too_many_bystanders``, ``insufficient_balance``). ``True`` when the
        room's list of bystanders changed."""
        t = self.table
        player = conn.account.player
        if conn.seat is not None or player in t.players:
            _refuse(conn, ErrorCode.ALREADY_SEATED)
            return False
        if t.status not in ASKING:
            _refuse(conn, ErrorCode.NOT_BETWEEN_HANDS)
            return False
        if player in self.asked:
            conn.send({"type": "ok", "for": KIND})
            return False
        if len(self.players()) >= MAX_BYSTANDERS:
            _refuse(conn, ErrorCode.TOO_MANY_BYSTANDERS, count=MAX_BYSTANDERS)
            return False
        balance = await self._balance(player)
        if balance < self.min_balance():
            self._refuse_short(conn, balance)
            return False
        self.asked.append(player)
        t.names.setdefault(player, conn.account.nickname)
        await t.keep_requests()  # kept for a restart before it is answered
        conn.send({"type": "ok", "for": KIND})
        return True

    def pending_json(self) -> list[str]:
        """The requests for the next hand as the room's metadata keeps them for a restart."""
        return list(self.asked)

    def take_pending(self, pending: object, accounts: Mapping[str, Account]) -> None:
        """Ask again, after a restart, for the players of :meth:`pending_json` who hold no seat; each
        bets only if it has come back to the room by the deal (its balance is read then; ``accounts``
        names those it holds)."""
        t = self.table
        for player in pending if isinstance(pending, list) else ():
            if not isinstance(player, str) or not player or is_bot(player) or player in t.players \
                    or player in self.asked or len(self.asked) >= MAX_BYSTANDERS:
                continue
            self.asked.append(player)
            self.restored.add(player)
            account = accounts.get(player)
            if account is not None:
                t.names[player] = account.nickname

    def gone(self, conn: Conn) -> None:
        """A connection left: between hands, its player's request goes with its last connection."""
        t = self.table
        player = conn.account.player
        if t.status is Status.PLAYING or player not in self.asked:
            return
        if not any(c.account.player == player for c in t.conns if c is not conn):
            self.asked.remove(player)
            self.restored.discard(player)

    # --- the hand -------------------------------------------------------------------------------------
    async def deal(self) -> None:
        """Just before the next hand is dealt (every seat taken): those who asked and may still bet
        join the match as its bystanders; their requests are spent."""
        t = self.table
        match = t.match
        asked, self.asked = self.asked, []
        restored, self.restored = self.restored, set()
        if match is None:
            return
        for player in asked:
            if player in match.people:
                continue  # sat down meanwhile
            if player in restored and not any(c.account.player == player for c in t.conns):
                continue  # asked before a restart and not back since
            balance = await self._balance(player)
            if balance < self.min_balance():
                for conn in t.conns:
                    if conn.account.player == player:
                        self._refuse_short(conn, balance)
                continue
            self.running[player] = match.running.get(player)
            match.join(player)

    def dealt(self) -> None:
        """The deal is logged: each bystander (each of its connections) is told its tile and seat."""
        for conn in self.table.conns:
            self.tell(conn)

    def tell(self, conn: Conn) -> None:
        """``conn``'s own bet in the hand being played, if its player has one (a connection that
        comes back during the hand is told again)."""
        t = self.table
        hand = t.hand
        if t.status is not Status.PLAYING or hand is None or conn.seat is not None:
            return
        for bet in hand.bets:
            if bet.player == conn.account.player:
                conn.send({"type": KIND, "tile": tile_name(bet.tile), "seat": bet.seat})

    def hand_over(self, result: HandResult) -> None:
        """The hand is closed (:meth:`Match.finish_hand`): its bystanders leave the match, so the next
        hand has only those who ask again. Any bystander the match seated in an escaper's place
        leaves too; the table fills such a seat with a bot. Their points of the hand leave the match's
        running points (its standings are the seats'): the bet was settled in coins."""
        match = self.table.match
        if match is None:
            return
        for bet in result.bets:
            if bet.player in match.people:
                match.leave(bet.player)
            before = self.running.pop(bet.player, None)
            if before is None:
                match.running.pop(bet.player, None)
            else:
                match.running[bet.player] = before

    def resume(self, start: Mapping[str, Any], accounts: Mapping[str, Account]) -> None:
        """After a restart, before the hand in play is dealt again: its bystanders, as its log names
        them (``start["bystanders"]``), join the match in their order, so the deal gives them the
        same tiles and seats."""
        t = self.table
        match = t.match
        assert match is not None
        for player in start.get("bystanders") or ():
            name = str(player)
            self.running[name] = match.running.get(name)
            match.join(name)
            account = accounts.get(name)
            if account is not None:
                t.names[name] = account.nickname
                t.balances[name] = account.balance

    # --- helpers --------------------------------------------------------------------------------------
    async def _balance(self, player: str) -> int:
        """The player's balance now (coins may have moved at another table); the one the table
        knows if the bank cannot say."""
        t = self.table
        try:
            account = await self.write(t.bank.account, player)
        except Exception:
            account = None
        if account is not None:
            t.balances[player] = account.balance
        return t.balances.get(player, 0)

    def _refuse_short(self, conn: Conn, balance: int) -> None:
        need = self.min_balance()
        text = i18n.t("server.jiao_ma.short", conn.lang, min_balance=need, coins=balance, count=balance)
        conn.send({**error_message(ErrorCode.INSUFFICIENT_BALANCE, text), "for": KIND})


def _refuse(conn: Conn, code: ErrorCode, **params: Any) -> None:
    """Answer the request with the error ``code`` and its sentence (``server.jiao_ma.<code>``)."""
    conn.send({**error_message(code, i18n.t(f"server.jiao_ma.{code}", conn.lang, **params)), "for": KIND})


def bets_json(result: HandResult, people: Mapping[str, str], settled: Settled | None,
              lang: Lang) -> list[dict[str, Any]]:
    """``hand_end.bystanders``: each bet of the hand (``name``, ``tile``, ``seat``) and the coins it
    moved (``coins``; ``None`` when the hand's coins could not be recorded)."""
    out = []
    for i, bet in enumerate(result.bets):
        k = len(result.seating) + i  # participants: the seats, then the bystanders
        coins = settled.changes[k] if settled is not None and k < len(settled.changes) else None
        out.append({"name": display_name(bet.player, people, lang), "tile": tile_name(bet.tile), "seat": bet.seat,
                    "coins": coins})
    return out
