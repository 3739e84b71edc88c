"""The open tables of one server, by code: created from the lobby (or by the queue,
:mod:`xuezhan.server.matchmaking`), carried on after a restart, closed when their match ends.

Codes: a friends' room (private, made from the lobby) has six digits, easy to read out and
type, unique among the open rooms; every other table an unguessable :data:`CODE_LENGTH`
characters.

Limits: an account has at most ``[server] max_open_rooms_per_account`` rooms of its making open
(:meth:`Lobby.open_rooms`; one more is ``too_many_open_rooms``), and the server at most
``max_rooms`` tables (``too_many_rooms``, the last resort); on a cluster, counted over every node.
A room nobody comes to closes by itself (:meth:`xuezhan.server.table.Table._idle_timeout`), and
stays closed after a restart."""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Callable, Collection, Sequence
from contextlib import suppress
from typing import Any, Final, Protocol

from ..errors import XuezhanError
from ..ids import ErrorCode
from ..match import RoomConfig, Tier
from .bank import Account, Bank, is_bot
from .config import ServerConfig
from .journal import LogWriter
from .matchmaking import Matchmaker
from .queue_table import QueueTable
from .table import Status, Table
from .tournaments import TournamentDirector, TournamentTable

log = logging.getLogger("xuezhan.server")

CODE_ALPHABET: Final = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
CODE_LENGTH: Final = 10  # 32**10 = 2**50 codes
SHORT_CODE_LENGTH: Final = 6
"""The digits of a friends' room's code."""
CODE_TRIES: Final = 50
"""Codes drawn for a friends' room before the lobby gives up (``too_many_rooms``): a code names
one room for good in the database, so one used by a closed room is drawn again."""


def new_code() -> str:
    """An unguessable room code (secrets module)."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def new_short_code() -> str:
    """A friends' room's code: six random digits (secrets module)."""
    return f"{secrets.randbelow(10**SHORT_CODE_LENGTH):0{SHORT_CODE_LENGTH}d}"


class Cluster(Protocol):
    """This server as a node of a cluster, as the routes ask it (:class:`xuezhan.server.nodes.Node`);
    each method but the name blocks (database I/O)."""

    name: str

    def where(self, code: str) -> tuple[str | None, bool] | None:
        """The node running room ``code`` and whether its lease is live; ``None``: no open room."""
        ...

    def summary(self, code: str) -> dict[str, Any] | None:
        """What the lobby shows of room ``code``, wherever it runs."""
        ...

    def listing(self) -> list[dict[str, Any]]:
        """The public rooms of every node."""
        ...

    def counts(self, owner: str) -> tuple[int, int]:
        """The rooms open on every node, and those on the other nodes counting against ``owner``."""
        ...

    def quick_room(self, owner: str) -> dict[str, Any] | None:
        """The newest of ``owner``'s quick tables counting against their open rooms, on another node."""
        ...

    def leads_now(self, task: str) -> bool:
        """Whether this node runs the cluster's ``task`` (``tournaments``, ``queue``) now (not blocking)."""
        ...

    def leader(self, task: str) -> str | None:
        """The node that runs the cluster's ``task`` now, if any."""
        ...


class Lobby:
    """The open tables, by code."""

    def __init__(self, bank: Bank, config: ServerConfig, writer: LogWriter | None = None) -> None:
        self.bank = bank
        self.config = config
        self.tables: dict[str, Table] = {}
        self.writer = writer or LogWriter(bank)  # one group commit for the hand logs of every table
        self.queue = Matchmaker(self)
        """People waiting to be seated together (``/api/queue``)."""
        self.tournaments = TournamentDirector(self, bank)
        """The server's tournaments (``/api/tournaments``), over tables of this lobby."""
        self._making: dict[str, int] = {}
        """Rooms being made, by owner (written to the database): they count already."""
        self.node: Cluster | None = None
        """This server as a node of a cluster (:mod:`xuezhan.server.nodes`), if it is one."""
        self.on_closed: list[Callable[[Table], None]] = []
        """Told of every table that closed."""

    def get(self, code: str) -> Table | None:
        table = self.tables.get(code.upper()[:CODE_LENGTH]) if isinstance(code, str) else None
        return table if table is not None and table.status is not Status.CLOSED else None

    def open_rooms(self, player: str) -> list[Table]:
        """The rooms ``player`` made that count against ``max_open_rooms_per_account``, oldest first:
        each waiting for its match (whoever sits in it), or with its match being played and
        ``player`` still in it. A room they left (escaping, or between hands), one whose match is
        over and one that closed no longer count; queue tables are the server's and never do."""
        return [t for t in self.tables.values() if t.owner == player and counts_against_owner(t)]

    def quick_table_of(self, player: str) -> Table | None:
        """The newest quick table of ``player``'s (:func:`is_quick`) among their open rooms: where
        quick start sends a player who has as many rooms open as they may, instead of refusing."""
        return next((t for t in reversed(self.open_rooms(player)) if is_quick(t)), None)

    async def create(self, owner: Account, room: RoomConfig, name: str, *, public: bool, autostart: bool,
                     tier: Tier | None = None, short_code: bool = False, people: Sequence[Account] = (),
                     kind: type[Table] = Table, setup: Callable[[Table], None] | None = None) -> Table:
        """A new table of ``kind`` with ``owner`` at seat 0 and ``people`` at the next seats, recorded
        in the database under a new code (``short_code``: six digits) and started; ``setup`` sees it
        first (before its room is recorded). Refused with ``too_many_open_rooms`` when ``owner`` has as
        many rooms open as they may (not for a table the server opens), then ``too_many_rooms`` when
        the server has."""
        player = owner.player
        counted = not kind.by_server
        rooms, elsewhere = len(self.tables), 0
        if self.node is not None:  # a cluster's limits: the rooms of every node
            everywhere, elsewhere = await asyncio.to_thread(self.node.counts, player)
            rooms = max(rooms, everywhere)
        if counted:
            held = len(self.open_rooms(player)) + self._making.get(player, 0) + elsewhere
            limit = self.config.max_open_rooms_per_account
            if held >= limit:
                raise XuezhanError(ErrorCode.TOO_MANY_OPEN_ROOMS,
                                   f"you have {held} rooms open, as many as an account may ({limit}); finish or "
                                   "leave one first")
        if rooms >= self.config.max_rooms:
            raise XuezhanError(ErrorCode.TOO_MANY_ROOMS, "the server has as many rooms open as it takes; try later")
        if counted:
            self._making[player] = self._making.get(player, 0) + 1
        try:
            return await self._make(owner, room, name, public=public, autostart=autostart, tier=tier,
                                    short_code=short_code, people=people, kind=kind, setup=setup)
        finally:
            if counted:
                left = self._making.pop(player) - 1
                if left:
                    self._making[player] = left

    async def _make(self, owner: Account, room: RoomConfig, name: str, *, public: bool, autostart: bool,
                    tier: Tier | None, short_code: bool, people: Sequence[Account], kind: type[Table],
                    setup: Callable[[Table], None] | None = None) -> Table:
        for _ in range(CODE_TRIES if short_code else 1):
            code = new_short_code() if short_code else new_code()
            while code in self.tables:
                code = new_short_code() if short_code else new_code()
            table = kind(code, name, room, owner, self.bank, self.config, public=public, autostart=autostart,
                         on_close=self._closed, writer=self.writer, tier=tier)
            for seat, account in enumerate(people[:3], start=1):
                table.players[seat] = account.player
                table.names[account.player] = account.nickname
                table.balances[account.player] = account.balance
            if setup is not None:
                setup(table)
            try:
                await asyncio.to_thread(self.bank.open_room, code, room, table.meta())
            except XuezhanError as exc:
                if exc.code != ErrorCode.ROOM_EXISTS:
                    raise
                continue  # a closed room's code
            if code in self.tables:  # taken while the database wrote
                continue
            self.tables[code] = table
            table.start_task()
            return table
        raise XuezhanError(ErrorCode.TOO_MANY_ROOMS, "no free room code was found; try again")

    async def restore(self, rooms: Collection[str] | None = None) -> int:
        """Carry on every match the database says is running (after a restart), and open again every
        room waiting for its match; of ``rooms`` only, when given (a node taking rooms over, the
        same way); how many tables."""
        running = await asyncio.to_thread(self.bank.running_matches, *(() if rooms is None else (rooms,)))
        restored = 0
        for rm in running:
            try:
                people = [p for p in rm.match.people if not is_bot(p)]
                accounts = {}
                for p in people:
                    account = await asyncio.to_thread(self.bank.account, p)
                    if account is not None:
                        accounts[p] = account
                meta = rm.meta or {}
                kind = QueueTable if meta.get("queue") else TournamentTable if meta.get("tournament") else Table
                table = kind.restore(rm, self.bank, self.config, accounts, on_close=self._closed,
                                     writer=self.writer)
            except Exception:
                log.exception("match %s in room %s cannot be carried on; it is ended", rm.key, rm.room_code)
                with suppress(Exception):
                    await asyncio.to_thread(self.bank.end_match, rm.key, "abandoned")
                continue
            if table.code in self.tables:
                continue
            self.tables[table.code] = table
            table.start_task()
            restored += 1
        restored += await self._restore_waiting(rooms)
        if rooms is None:  # at start: the tournaments too (a node's take-over of rooms is only rooms)
            await self.tournaments.restore()
        return restored

    async def _restore_waiting(self, rooms: Collection[str] | None) -> int:
        """Open again every room (of ``rooms``) that was waiting for its match, with its seats; how many."""
        restored = 0
        for waiting in await asyncio.to_thread(self.bank.waiting_rooms, *(() if rooms is None else (rooms,))):
            if waiting.code in self.tables or len(self.tables) >= self.config.max_rooms:
                continue
            try:
                seats = waiting.meta.get("seats")
                people = {str(waiting.meta.get("owner"))} | {p for p in seats or () if isinstance(p, str)}
                accounts = {}
                for p in people:
                    account = await asyncio.to_thread(self.bank.account, p)
                    if account is not None:
                        accounts[p] = account
                meta = waiting.meta
                kind = QueueTable if meta.get("queue") else TournamentTable if meta.get("tournament") else Table
                table = kind.waiting(waiting, self.bank, self.config, accounts, on_close=self._closed,
                                     writer=self.writer)
            except Exception:
                log.exception("room %s cannot be opened again", waiting.code)
                continue
            if table is None:
                continue
            if table.waited_out(time.time()):  # nobody came before the server stopped, or since
                await table.close_waiting()
                continue
            self.tables[table.code] = table
            table.start_task()
            restored += 1
        return restored

    def _closed(self, table: Table) -> None:
        if self.tables.get(table.code) is table:
            del self.tables[table.code]
        for hook in self.on_closed:
            hook(table)

    def listing(self) -> list[dict[str, Any]]:
        return [t.summary() for t in self.tables.values() if t.public and t.status is not Status.CLOSED]

    async def close(self) -> None:
        await self.tournaments.close()
        await self.queue.close()
        tasks = [t.task for t in self.tables.values() if t.task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await self.writer.close()


def counts_against_owner(table: Table) -> bool:
    """Whether ``table`` counts against its owner's ``max_open_rooms_per_account``
    (:meth:`Lobby.open_rooms`)."""
    if table.by_server:
        return False
    if table.status is Status.WAITING:
        return True
    return table.status in (Status.PLAYING, Status.BETWEEN) and table.owner in table.players \
        and table.owner not in table.left


def is_quick(table: Table) -> bool:
    """Whether ``table`` was made by quick start: a private table with a long code (a friends' room
    has six digits, every other room made from the lobby is public, and a queue table is a
    :class:`QueueTable`); after a restart too."""
    return type(table) is Table and not table.public and len(table.code) == CODE_LENGTH
