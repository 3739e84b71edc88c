"""The open tables of one server, by code: created from the lobby, carried on after a restart,
closed when their match ends."""

from __future__ import annotations

import asyncio
import logging
import secrets
from contextlib import suppress
from typing import Any, Final

from ..errors import XuezhanError
from ..ids import ErrorCode
from ..match import RoomConfig, Tier
from .bank import Account, Bank, is_bot
from .config import ServerConfig
from .journal import LogWriter
from .table import Status, Table

log = logging.getLogger("xuezhan.server")

CODE_ALPHABET: Final = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
CODE_LENGTH: Final = 10  # 32**10 = 2**50 codes


def new_code() -> str:
    """An unguessable room code (secrets module)."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


class Lobby:
    """The open tables, by code."""

    def __init__(self, bank: Bank, config: ServerConfig) -> None:
        self.bank = bank
        self.config = config
        self.tables: dict[str, Table] = {}
        self.writer = LogWriter(bank)  # one group commit for the hand logs of every table

    def get(self, code: str) -> Table | None:
        table = self.tables.get(code.upper()[:CODE_LENGTH]) if isinstance(code, str) else None
        return table if table is not None and table.status is not Status.CLOSED else None

    async def create(self, owner: Account, room: RoomConfig, name: str, *, public: bool, autostart: bool,
                     tier: Tier | None = None) -> Table:
        if len(self.tables) >= self.config.max_rooms:
            raise XuezhanError(ErrorCode.TOO_MANY_ROOMS, "the server has as many rooms open as it takes; try later")
        code = new_code()
        while code in self.tables:
            code = new_code()
        meta = {"name": name, "owner": owner.player, "owner_name": owner.nickname, "public": public,
                "tier": tier.id if tier is not None else None}
        await asyncio.to_thread(self.bank.open_room, code, room, meta)
        table = Table(code, name, room, owner, self.bank, self.config, public=public, autostart=autostart,
                      on_close=self._closed, writer=self.writer, tier=tier)
        self.tables[code] = table
        table.start_task()
        return table

    async def restore(self) -> int:
        """Carry on every match the database says is running (after a restart); how many tables."""
        running = await asyncio.to_thread(self.bank.running_matches)
        restored = 0
        for rm in running:
            try:
                people = [p for p in rm.match.people if not is_bot(p)]
                accounts = {}
                for p in people:
                    account = await asyncio.to_thread(self.bank.account, p)
                    if account is not None:
                        accounts[p] = account
                table = Table.restore(rm, self.bank, self.config, accounts, on_close=self._closed,
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
        return restored + await self._restore_waiting()

    async def _restore_waiting(self) -> int:
        """Open again every room that was waiting for its match, with its seats; how many."""
        restored = 0
        for waiting in await asyncio.to_thread(self.bank.waiting_rooms):
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
                table = Table.waiting(waiting, self.bank, self.config, accounts, on_close=self._closed,
                                      writer=self.writer)
            except Exception:
                log.exception("room %s cannot be opened again", waiting.code)
                continue
            if table is None:
                continue
            self.tables[table.code] = table
            table.start_task()
            restored += 1
        return restored

    def _closed(self, table: Table) -> None:
        if self.tables.get(table.code) is table:
            del self.tables[table.code]

    def listing(self) -> list[dict[str, Any]]:
        return [t.summary() for t in self.tables.values() if t.public and t.status is not Status.CLOSED]

    async def close(self) -> None:
        tasks = [t.task for t in self.tables.values() if t.task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await self.writer.close()
