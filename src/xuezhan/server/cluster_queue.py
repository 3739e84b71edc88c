"""The queue of a cluster (:mod:`xuezhan.server.matchmaking` on many nodes): people queued on
different nodes are seated together.

The tickets are rows of the database (:class:`xuezhan.store.QueueBook`), written by whichever node
took the request. One node at a time leads the queue (its ``queue`` leader lease,
:mod:`xuezhan.server.nodes`): every :data:`POLL` seconds it claims the groups to seat (in one
transaction that checks its lease, so a node that lost the lead seats nobody), opens their
:class:`~xuezhan.server.queue_table.QueueTable` on itself and marks them seated there. Every node
polls, as often, where the people with a lobby socket on it were seated, and tells them
(``{"type": "matched", "table"}``); the table's socket then reaches the leader's node through the
balancer (a ``/ws/CODE`` on another node is moved there). Polling, not LISTEN/NOTIFY: it needs no
connection of its own per node, survives the database going away a moment, and costs one small
query per node per :data:`POLL` while someone listens.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from contextlib import suppress
from typing import Final

from .. import i18n
from ..match import RoomConfig, Tier, tier
from ..store import Lead, QueueBook, Queued
from .bank import Account
from .conn import Conn
from .matchmaking import SEATS, Matchmaker, QueueKey, Tables, Ticket

log = logging.getLogger("xuezhan.server")

POLL: Final = 0.5
"""Seconds between two looks at the queue (seating by the leader, telling by every node)."""


class SharedQueue(Matchmaker):
    """The queue of one node of a cluster, over the tickets in the database; it seats people while
    the node leads the queue (:attr:`lead`, kept by :class:`xuezhan.server.nodes.Node`)."""

    def __init__(self, lobby: Tables, book: QueueBook, accounts: Callable[[str], Account | None]) -> None:
        super().__init__(lobby)
        self.book = book
        self.accounts = accounts
        self.lead: Lead | None = None
        """This node's lead of the queue, while it has it."""
        self.told: dict[str, str] = {}
        """The table each listening player was last told of."""
        self.fresh: set[Conn] = set()
        """Lobby sockets opened since the last look: told where their player sits even if told before."""

    def start(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run(), name="queue")

    async def join(self, account: Account, key: QueueKey, room: RoomConfig, room_tier: Tier, lang: i18n.Lang) -> None:
        await asyncio.to_thread(self.book.join, account.player, key.tier, key.preset, key.exchange_three,
                                room.to_mapping(), lang)
        self.told.pop(account.player, None)
        self.start()
        self._wake.set()

    async def leave(self, player: str) -> bool:
        return await asyncio.to_thread(self.book.leave, player)

    async def state(self, player: str) -> tuple[bool, str | None]:
        return await asyncio.to_thread(self.book.status, player)

    def queued(self, player: str) -> bool:
        return False  # in the database: :meth:`state`

    def table_of(self, player: str) -> str | None:
        return None  # in the database: :meth:`state`

    def listen(self, player: str, conn: Conn) -> None:
        self.listeners.setdefault(player, set()).add(conn)
        self.fresh.add(conn)
        self.start()
        self._wake.set()

    def unlisten(self, player: str, conn: Conn) -> None:
        super().unlisten(player, conn)
        self.fresh.discard(conn)
        if player not in self.listeners:
            self.told.pop(player, None)

    async def _run(self) -> None:
        while True:
            self._wake.clear()
            try:
                if self.lead is not None:
                    await self.seat_groups(0.0)
                if self.listeners:
                    await self.tell()
            except Exception:  # the database may be away a moment: next time
                log.exception("the queue could not seat or tell its people")
            with suppress(TimeoutError):
                async with asyncio.timeout(POLL):  # not wait_for, which may lose a cancellation (Table.run)
                    await self._wake.wait()

    async def seat_groups(self, now: float) -> None:
        """As the leader: seat every group the database says is due (``now`` is unused: the
        database's clock decides who waited ``queue_wait`` seconds)."""
        lead = self.lead
        if lead is None:
            return
        for group in await asyncio.to_thread(self.book.claim, lead, self.lobby.config.queue_wait, SEATS):
            await self._seat_claimed(lead, group)

    async def _seat_claimed(self, lead: Lead, group: list[Queued]) -> None:
        tickets: list[Ticket] = []
        for queued in group:
            account = await asyncio.to_thread(self.accounts, queued.player)
            if account is not None:
                lang = i18n.parse_lang(queued.lang) or i18n.DEFAULT_LANG
                tickets.append(Ticket(account, QueueKey(*queued.key), RoomConfig.from_mapping(queued.room),
                                      tier(queued.tier), lang, 0.0))
        players = [q.player for q in group]
        table = await self._open(tickets) if tickets else None
        if table is None:
            await asyncio.to_thread(self.book.unclaim, lead, players)
            return
        try:
            await asyncio.to_thread(self.book.seated, lead, players, table.code)
        except Exception:  # the lead was lost meanwhile: the next leader seats them; this table closes unused
            log.warning("the queue's lead was lost while seating %s; table %s is left", ", ".join(players), table.code)
            raise
        self._wake.set()

    async def tell(self) -> None:
        """Tell each listening player the table they were seated at (once; a new socket of theirs too)."""
        fresh, self.fresh = self.fresh, set()
        tables = await asyncio.to_thread(self.book.tables_of, list(self.listeners))
        for player, code in tables.items():
            conns = self.listeners.get(player, set())
            targets = conns if self.told.get(player) != code else conns & fresh
            self.told[player] = code
            for conn in list(targets):
                conn.send({"type": "matched", "table": code})
