"""Hand logs: each hand's start and every applied action, written to the bank in order.

The match runtime tells a table's :class:`Journal` of every hand dealt and every action
applied (its ``on_start`` and ``on_action`` hooks); the table flushes the journal before it
shows the change to anyone, so what people saw is what a restarted server rebuilds
(:meth:`xuezhan.runtime.MatchRuntime.resume_hand`). One :class:`LogWriter` per server
writes what every table flushes at about the same time in one transaction (a group
commit), so many tables cost about as much as one. A failed write is kept and tried again
at the next flush; it never stops the table. The tables' other writes (a match opened or
saved, a hand settled) run on the same thread (:meth:`LogWriter.call`): one writer, so no
write ever waits on SQLite's lock (whose busy handler sleeps in steps of up to 100 ms).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from ..engine.actions import Action
from ..match import Hand
from .bank import Bank, LogEntry

log = logging.getLogger("xuezhan.server")

T = TypeVar("T")


def hand_start(hand: Hand) -> dict[str, Any]:
    """What a hand's log row keeps of its start, beside its seed: enough to check a resume."""
    return {"seating": list(hand.seating), "dealer": hand.dealer,
            "bystanders": [b.player for b in hand.bets]}


def _settle(done: concurrent.futures.Future[None], error: Exception | None) -> None:
    """Tell a waiting table how its write went, unless it stopped waiting (a closed table)."""
    try:
        if error is None:
            done.set_result(None)
        else:
            done.set_exception(error)
    except concurrent.futures.InvalidStateError:
        pass


class LogWriter:
    """Writes the entries that tables hand it on one thread of its own, everything waiting at the
    moment in one transaction (a group commit). A table waits only for the write of its entries:
    no task in between, so an action costs one transaction shared with every other table."""

    def __init__(self, bank: Bank) -> None:
        self.bank = bank
        self._lock = threading.Lock()
        self._queue: list[tuple[str, list[LogEntry], concurrent.futures.Future[None]]] = []
        self._thread = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="hand-log")

    async def write(self, key: str, entries: list[LogEntry]) -> None:
        """Write ``entries`` of match ``key``; returns once they are committed (raises if refused)."""
        done: concurrent.futures.Future[None] = concurrent.futures.Future()
        with self._lock:
            self._queue.append((key, entries, done))
        self._thread.submit(self._drain)
        await asyncio.wrap_future(done)

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(*args)`` on the writer's thread, between two group commits."""
        return await asyncio.wrap_future(self._thread.submit(fn, *args))

    def _drain(self) -> None:
        """On the writer's thread: write everything queued (an earlier drain may have taken it all)."""
        with self._lock:
            batch, self._queue = self._queue, []
        if not batch:
            return
        try:
            self.bank.write_log([(key, e) for key, entries, _ in batch for e in entries])
        except Exception:
            # one match's entry was refused: write each match alone, so only that one fails
            for key, entries, done in batch:
                try:
                    self.bank.write_log([(key, e) for e in entries])
                except Exception as exc:
                    _settle(done, exc)
                else:
                    _settle(done, None)
            return
        for _, _, done in batch:
            _settle(done, None)

    async def close(self) -> None:
        await asyncio.to_thread(self._thread.shutdown, wait=True)


class Journal:
    """The entries of one match not yet written."""

    def __init__(self, bank: Bank, key: str, writer: LogWriter | None = None) -> None:
        self.bank = bank
        self.key = key
        self.writer = writer
        self.pending: list[LogEntry] = []

    def begin(self, hand: Hand) -> None:
        self.pending.append(("begin", hand.hand_no, hand.seed, hand_start(hand)))

    def action(self, hand: Hand, seq: int, action: Action) -> None:
        self.pending.append(("action", hand.hand_no, seq, action.to_json()))

    async def flush(self) -> bool:
        """Write what is pending, in order; ``False`` (kept for the next flush) on failure."""
        if not self.pending:
            return True
        entries = list(self.pending)
        try:
            if self.writer is not None:
                await self.writer.write(self.key, entries)
            else:
                await asyncio.to_thread(self.bank.write_log, [(self.key, e) for e in entries])
        except Exception:
            log.exception("match %s: writing the hand log failed", self.key)
            return False
        del self.pending[: len(entries)]
        return True
