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
import contextlib
import logging
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from ..engine.actions import Action
from ..match import Hand, ItemUse
from .bank import Bank, LogEntry

log = logging.getLogger("xuezhan.server")

T = TypeVar("T")


def hand_start(hand: Hand) -> dict[str, Any]:
    """What a hand's log row keeps of its start, beside its seed: enough to check a resume, and the
    item cards of the deal as they were asked for (``items``: :attr:`Hand.requests`, when any), to
    deal it again."""
    start = {"seating": list(hand.seating), "dealer": hand.dealer,
             "bystanders": [b.player for b in hand.bets]}
    if hand.requests:
        start["items"] = hand.requests
    return start


_Job = tuple[str, Any, Any, "asyncio.Future[Any]"]
"""``("log", key, entries, done)`` or ``("call", fn, args, done)``."""
_Outcome = tuple["asyncio.Future[Any]", Any, BaseException | None]
"""A job's future, its result and its error (``None``: it went well)."""


def _resolve(outcomes: list[_Outcome]) -> None:
    """On the event loop: tell each waiting table how its job went, unless it stopped waiting."""
    for done, result, error in outcomes:
        if done.done():  # its table closed meanwhile
            continue
        if error is None:
            done.set_result(result)
        else:
            done.set_exception(error)


class LogWriter:
    """Writes the entries that tables hand it on one thread of its own, everything waiting at the
    moment in one transaction (a group commit). A table waits only for the write of its entries,
    and every table of a commit hears of it in one wake-up of the event loop: an action costs one
    transaction shared with every other table, and no thread hand-off of its own."""

    def __init__(self, bank: Bank) -> None:
        self.bank = bank
        self._ready = threading.Condition()
        self._jobs: list[_Job] = []
        self._loops: list[asyncio.AbstractEventLoop] = []
        self._thread: threading.Thread | None = None
        self._closing = False

    def _submit(self, kind: str, a: Any, b: Any) -> asyncio.Future[Any]:
        loop = asyncio.get_running_loop()
        done: asyncio.Future[Any] = loop.create_future()
        with self._ready:
            if self._closing:
                raise RuntimeError("the hand-log writer is closed")
            self._jobs.append((kind, a, b, done))
            self._loops.append(loop)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="hand-log", daemon=True)
                self._thread.start()
            self._ready.notify()
        return done

    async def write(self, key: str, entries: list[LogEntry]) -> None:
        """Write ``entries`` of match ``key``; returns once they are committed (raises if refused)."""
        await self._submit("log", key, entries)

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(*args)`` on the writer's thread, between two group commits."""
        result: T = await self._submit("call", fn, args)
        return result

    def _run(self) -> None:
        """The writer's thread: take everything queued, write it, tell the tables, until closed."""
        while True:
            with self._ready:
                while not self._jobs and not self._closing:
                    self._ready.wait()
                if not self._jobs:
                    return
                jobs, self._jobs = self._jobs, []
                loops, self._loops = self._loops, []
            self._work(jobs, loops)

    def _work(self, jobs: list[_Job], loops: list[asyncio.AbstractEventLoop]) -> None:
        """Do ``jobs`` in order, each run of hand logs in one group commit, and tell the tables of
        each run or call as soon as it is done."""
        i = 0
        while i < len(jobs):
            kind, a, b, done = jobs[i]
            outcomes: list[_Outcome]
            if kind == "call":
                try:
                    outcomes = [(done, a(*b), None)]
                except Exception as exc:
                    outcomes = [(done, None, exc)]
                j = i + 1
            else:
                j = i
                while j < len(jobs) and jobs[j][0] == "log":
                    j += 1
                outcomes = self._write_logs(jobs[i:j])
            self._tell(loops[i:j], outcomes)
            i = j

    @staticmethod
    def _tell(loops: list[asyncio.AbstractEventLoop],
              outcomes: list[_Outcome]) -> None:
        """One wake-up of each event loop for every outcome it waits for."""
        by_loop: dict[asyncio.AbstractEventLoop, list[_Outcome]] = {}
        for loop, outcome in zip(loops, outcomes, strict=True):
            by_loop.setdefault(loop, []).append(outcome)
        for loop, told in by_loop.items():
            with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits any more
                loop.call_soon_threadsafe(_resolve, told)

    def _write_logs(self, batch: list[_Job]) -> list[_Outcome]:
        try:
            self.bank.write_log([(key, e) for _, key, entries, _ in batch for e in entries])
        except Exception:
            # one match's entry was refused: write each match alone, so only that one fails
            outcomes: list[_Outcome] = []
            for _, key, entries, done in batch:
                try:
                    self.bank.write_log([(key, e) for e in entries])
                except Exception as exc:
                    outcomes.append((done, None, exc))
                else:
                    outcomes.append((done, None, None))
            return outcomes
        return [(done, None, None) for _, _, _, done in batch]

    async def close(self) -> None:
        """Finish what is queued and stop the thread."""
        with self._ready:
            self._closing = True
            self._ready.notify()
            thread = self._thread
        if thread is not None:
            await asyncio.to_thread(thread.join)


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

    def item(self, hand: Hand, seq: int, use: ItemUse) -> None:
        """An item card used during the hand: an entry of its own (``"type": "item"``)."""
        self.pending.append(("action", hand.hand_no, seq, {"type": "item", **use.to_json()}))

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
