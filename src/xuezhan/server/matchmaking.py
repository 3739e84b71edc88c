"""The queue (``/api/queue``): people who want a table with others, seated together.

People who queue with the same choice (tier, preset and 换三张 on or off, a :class:`QueueKey`)
are seated at one :class:`~xuezhan.server.queue_table.QueueTable`, four at once as soon as
four wait; after ``[server] queue_wait`` seconds the first of them no longer waits for more,
and bots take the seats nobody filled. First come, first seated. A person is told where
they sit by ``GET /api/queue`` and, on every lobby socket of theirs (``/ws/lobby``), by
``{"type": "matched", "table": code}``.

The queue of a server alone lives in memory: a restart empties it (the tables it made are carried
on). The nodes of a cluster share one queue in the database (:mod:`xuezhan.server.cluster_queue`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass, replace
from typing import Protocol

from .. import i18n
from ..errors import XuezhanError
from ..i18n import Lang
from ..match import RoomConfig, Tier
from .bank import Account
from .config import ServerConfig
from .conn import Conn
from .queue_table import QueueTable
from .table import Table


class Tables(Protocol):
    """What the queue needs of the lobby (:class:`xuezhan.server.lobby.Lobby`): its settings, its
    open tables by code, and a new table."""

    @property
    def config(self) -> ServerConfig: ...

    def get(self, code: str) -> Table | None: ...

    async def create(self, owner: Account, room: RoomConfig, name: str, *, public: bool, autostart: bool,
                     tier: Tier | None = None, short_code: bool = False, people: Sequence[Account] = (),
                     kind: type[Table] = Table, setup: Callable[[Table], None] | None = None) -> Table: ...

log = logging.getLogger("xuezhan.server")

SEATS = 4


@dataclass(frozen=True, slots=True)
class QueueKey:
    """What people queue for; those with equal keys sit together."""

    tier: str
    preset: str
    exchange_three: bool


@dataclass(frozen=True, slots=True)
class Ticket:
    """One person in the queue: who, for what, the room they would sit in, and since when (loop time)."""

    account: Account
    key: QueueKey
    room: RoomConfig
    tier: Tier
    lang: Lang
    since: float


class Matchmaker:
    """The queue of one server: tickets by player in the order they came, the table each person was
    last seated at, and the lobby sockets to tell."""

    def __init__(self, lobby: Tables) -> None:
        self.lobby = lobby
        self.waiting: dict[str, Ticket] = {}
        self.seated: dict[str, str] = {}
        """The code of the table the queue last seated each player at."""
        self.listeners: dict[str, set[Conn]] = {}
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    # --- people ------------------------------------------------------------------------------------
    async def join(self, account: Account, key: QueueKey, room: RoomConfig, tier: Tier, lang: Lang) -> None:
        """Queue ``account`` for ``key`` (again: its place is taken anew); seat groups in the background."""
        player = account.player
        self.waiting.pop(player, None)
        self.seated.pop(player, None)
        loop = asyncio.get_running_loop()
        self.waiting[player] = Ticket(account, key, room, tier, lang, loop.time())
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run(), name="queue")
        self._wake.set()

    async def leave(self, player: str) -> bool:
        """Take ``player`` out of the queue; whether they were in it."""
        return self.waiting.pop(player, None) is not None

    async def state(self, player: str) -> tuple[bool, str | None]:
        """Whether ``player`` waits, and the code of the open table the queue seated them at (``GET /api/queue``)."""
        return self.queued(player), self.table_of(player)

    def queued(self, player: str) -> bool:
        return player in self.waiting

    def table_of(self, player: str) -> str | None:
        """The code of the open table the queue seated ``player`` at, if any."""
        code = self.seated.get(player)
        return code if code is not None and self.lobby.get(code) is not None else None

    def listen(self, player: str, conn: Conn) -> None:
        """Tell ``conn`` where ``player`` is seated: now if the queue has seated them already."""
        self.listeners.setdefault(player, set()).add(conn)
        code = self.table_of(player)
        if code is not None and not self.queued(player):
            conn.send({"type": "matched", "table": code})

    def unlisten(self, player: str, conn: Conn) -> None:
        conns = self.listeners.get(player)
        if conns is not None:
            conns.discard(conn)
            if not conns:
                del self.listeners[player]

    # --- seating -----------------------------------------------------------------------------------
    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            self._wake.clear()
            try:
                await self.seat_groups(loop.time())
            except Exception:
                log.exception("the queue could not seat its people")
            if not self.waiting:
                timeout: float | None = None
            else:
                first = min(t.since for t in self.waiting.values())
                timeout = max(0.05, first + self.lobby.config.queue_wait - loop.time())
            with suppress(TimeoutError):
                async with asyncio.timeout(timeout):  # not wait_for (Table.run)
                    await self._wake.wait()

    async def seat_groups(self, now: float) -> None:
        """Seat every four people with the same key, and every group whose first has waited
        ``queue_wait`` seconds (bots in the seats left)."""
        groups: dict[QueueKey, list[Ticket]] = {}
        for ticket in self.waiting.values():
            groups.setdefault(ticket.key, []).append(ticket)
        wait = self.lobby.config.queue_wait
        for tickets in groups.values():
            while len(tickets) >= SEATS or (tickets and now >= tickets[0].since + wait):
                group, tickets = tickets[:SEATS], tickets[SEATS:]
                await self._seat(group)

    async def _open(self, group: Sequence[Ticket]) -> Table | None:
        """A queue table for ``group`` (the first at seat 0); ``None`` when none can be opened now."""
        first = group[0]
        name = i18n.t("server.table_name", first.lang, name=first.account.nickname)
        try:
            return await self.lobby.create(first.account, first.room, name, public=False, autostart=False,
                                           tier=first.tier, people=[t.account for t in group[1:]], kind=QueueTable)
        except XuezhanError as exc:  # no room for a table now: they wait on, and are tried again
            log.warning("the queue could not open a table: %s", exc.message)
            return None

    async def _seat(self, group: list[Ticket]) -> None:
        table = await self._open(group)
        if table is None:
            again = asyncio.get_running_loop().time()
            for ticket in group:
                if self.waiting.get(ticket.account.player) is ticket:
                    self.waiting[ticket.account.player] = replace(ticket, since=again)
            return
        for ticket in group:  # queued until now, so that nobody is ever neither queued nor seated
            player = ticket.account.player
            self.waiting.pop(player, None)
            self.seated[player] = table.code
            for conn in list(self.listeners.get(player, ())):
                conn.send({"type": "matched", "table": table.code})

    async def close(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with suppress(asyncio.CancelledError):
                await task
