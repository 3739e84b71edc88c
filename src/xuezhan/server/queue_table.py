"""A table the queue seated people at (:mod:`xuezhan.server.matchmaking`): one hand at a time.

It differs from a room in three ways, all between hands:

- it deals its first hand once every person it seated has connected (or, after
  ``[server] queue_wait`` seconds, with those who have; nobody: it closes);
- a person who is not connected when the next hand is dealt leaves the match as by
  ``leave`` between hands (no escape, no fee beyond the hands played) and a bot takes the
  seat, instead of being played in 托管;
- once no person is seated, or none of those seated is connected at the time of the next
  hand, the match ends and the table closes.

Leaving in the middle of a hand is an escape here as anywhere (docs/rules.md §10).
"""

from __future__ import annotations

import asyncio
import logging
import math
from typing import Any, ClassVar

from .bank import is_bot
from .conn import Conn
from .status import Status
from .table import Table

log = logging.getLogger("xuezhan.server")


class QueueTable(Table):
    """A private table with the people the queue matched; they play one hand at a time."""

    by_server: ClassVar[bool] = True

    start_by = 0.0
    """When the first hand is dealt with whoever has come (loop time)."""

    def start_task(self) -> None:
        if self.status is Status.WAITING:
            for seat in range(4):  # the seats the queue filled with nobody
                if self.players[seat] is None:
                    self.players[seat] = self._new_bot()
        super().start_task()
        self.start_by = self.now() + self.config.queue_wait

    def meta(self) -> dict[str, Any]:
        return {**super().meta(), "queue": True}

    def _people_seated(self) -> set[int]:
        return {s for s, p in enumerate(self.players) if p is not None and not is_bot(p)}

    async def _on_join(self, conn: Conn) -> None:
        await super()._on_join(conn)
        if self.status is Status.WAITING and conn.seat is not None and self._people_seated() <= set(self.seat_conn):
            self.start_by = math.inf
            await self._start_match()

    def _next_wakeup(self) -> float | None:
        wake = super()._next_wakeup()
        if self.status is Status.WAITING:
            due = self.start_by
        elif self.status is Status.BETWEEN and not self._humans_connected():
            due = self.next_hand_at if self._people_seated() else 0.0  # then the table closes
        else:
            return wake
        return due if wake is None else min(wake, due)

    async def _advance(self) -> None:
        now = self.now()
        if self.status is Status.WAITING and now >= self.start_by:
            self.start_by = math.inf  # one try: a match the database refused is started by a ``start``
            if self._humans_connected():
                await self._start_match()
            else:
                self.status = Status.CLOSED  # nobody came: no match was opened, nothing to end
                return
        elif self.status is Status.BETWEEN and not self._humans_connected() and (
                now >= self.next_hand_at or not self._people_seated()):
            await self._close_match()
            return
        await super()._advance()

    async def _stand_up_the_short(self) -> None:
        """Before a hand is dealt: the people who are away leave the match (no penalty), then those
        whose balance fell short (:meth:`TablePlay._stand_up_the_short`)."""
        match = self.match
        if match is not None and self.status is Status.BETWEEN:
            away = [(s, self.players[s]) for s in self._people_seated() if s not in self.seat_conn]
            for seat, player in away:
                assert player is not None
                match.leave(player)
                self.ready.discard(seat)
            if away:
                self._fill_with_bots()
                await self._save_match()
                self.out.broadcast_room()
        await super()._stand_up_the_short()

    async def _close_match(self) -> None:
        """Everyone has gone between hands: the match ends (as finished) and the table closes."""
        if self.match_key:
            try:
                await asyncio.to_thread(self.bank.end_match, self.match_key, "finished")
            except Exception:
                log.exception("table %s: ending the match failed", self.code)
        self.status = Status.CLOSED
