"""Hand logs: each hand's start and every applied action, written to the bank in order.

The match runtime tells a table's :class:`Journal` of every hand dealt and every action
applied (its ``on_start`` and ``on_action`` hooks); the table flushes the journal before it
shows the change to anyone, so what people saw is what a restarted server rebuilds
(:meth:`xuezhan.runtime.MatchRuntime.resume_hand`). One :class:`LogWriter` per server
writes what every table flushes at about the same time in one transaction (a group
commit), so many tables cost about as much as one; the event loop hands it what its tables
flushed once per turn of the loop, so the writer's thread and the loop meet once per batch,
never once per action. A failed write is kept and tried again at the next flush; it never
stops the table. The tables' other writes (a match opened or saved, a hand settled) run on
the same thread (:meth:`LogWriter.call`): one writer, so no write ever waits on SQLite's
lock (whose busy handler sleeps in steps of up to 100 ms).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import threading
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from ..engine.actions import Action
from ..match import Hand, ItemUse
from .bank import Bank, LogEntry
from .writer_process import Job, Outcome, WriterProcess, write_logs

log = logging.getLogger("xuezhan.server")

T = TypeVar("T")

STAND_IN = "stand_in"
"""The key that marks a logged action a person's stand-in took (:meth:`Journal.action`)."""


def logged_entries(entries: Sequence[dict[str, Any]]) -> tuple[list[Action | ItemUse], list[int]]:
    """A hand's logged actions and item cards read back, and the actions (by their index among the
    hand's actions) a person's stand-in took: a restarted server resumes the hand with both."""
    out: list[Action | ItemUse] = []
    stand_in: list[int] = []
    actions = 0
    for entry in entries:
        if entry.get("type") == "item":
            out.append(ItemUse.from_json(entry))
            continue
        if entry.get(STAND_IN) is True:
            stand_in.append(actions)
        out.append(Action.from_json({k: v for k, v in entry.items() if k != STAND_IN}))
        actions += 1
    return out, stand_in


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


def _nothing() -> None:
    """A call that does nothing: what :meth:`LogWriter.close` waits for, behind every job before it."""


class LogWriter:
    """Writes the entries that tables hand it on one thread of its own, in group commits.

    The event loop gathers the jobs of its tables (hand logs to write, calls to make) and hands
    them to the thread once per turn of the loop, all at once, through a :class:`queue.SimpleQueue`
    (no lock or condition of its own). The thread takes everything handed over by the time it is
    free; the hand logs in it are one transaction, and it tells the loop of them in one wake-up,
    then makes the calls. So the thread and the loop meet once per batch, however many tables it serves,
    never once per action, and the thread never waits for the loop to be given its next batch."""

    def __init__(self, bank: Bank, process: WriterProcess | None = None) -> None:
        self.bank = bank
        self.process = process
        """Where the bank's writes are made when given: a child process (:mod:`.writer_process`);
        else on the thread itself."""
        self._queue: queue.SimpleQueue[tuple[asyncio.AbstractEventLoop, list[_Job]] | None] = queue.SimpleQueue()
        self._gathered: dict[asyncio.AbstractEventLoop, list[_Job]] = {}
        """The jobs of each loop not handed to the thread yet (touched on that loop only)."""
        self._thread: threading.Thread | None = None
        self._start = threading.Lock()
        self._closing = False

    def _submit(self, kind: str, a: Any, b: Any) -> asyncio.Future[Any]:
        if self._closing:
            raise RuntimeError("the hand-log writer is closed")
        loop = asyncio.get_running_loop()
        done: asyncio.Future[Any] = loop.create_future()
        jobs = self._gathered.get(loop)
        if jobs is None:  # the first of this turn of the loop: handed over at its end
            jobs = self._gathered[loop] = []
            loop.call_soon(self._hand_over, loop)
        jobs.append((kind, a, b, done))
        return done

    def _hand_over(self, loop: asyncio.AbstractEventLoop) -> None:
        """On ``loop``: give the thread what the loop gathered in its last turn."""
        jobs = self._gathered.pop(loop, None)
        if not jobs:
            return
        with self._start:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="hand-log", daemon=True)
                self._thread.start()
        self._queue.put((loop, jobs))

    async def write(self, key: str, entries: list[LogEntry]) -> None:
        """Write ``entries`` of match ``key``; returns once they are committed (raises if refused)."""
        await self._submit("log", key, entries)

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(*args)`` on the writer's thread, between two group commits."""
        result: T = await self._submit("call", fn, args)
        return result

    def _run(self) -> None:
        """The writer's thread: everything handed over by the time it is free, each loop's jobs in
        their order, until told to stop."""
        while True:
            item = self._queue.get()
            batches: dict[asyncio.AbstractEventLoop, list[_Job]] = {}
            stop = False
            while item is not None:
                batches.setdefault(item[0], []).extend(item[1])
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
            else:
                stop = True
            for loop, jobs in batches.items():
                self._work(loop, jobs)
            if stop:
                return

    def _work(self, loop: asyncio.AbstractEventLoop, jobs: list[_Job]) -> None:
        """Do ``jobs``: first every hand log among them in one group commit, then each call in
        order, telling the tables of the logs, then of each call, as soon as it is done.

        The logs go first, together, whatever their place among the calls: a table waits for each
        of its writes before it makes the next (one task a table), so no table has two jobs in one
        batch and no call waits on a log of the same batch. So a hand's end, and every table's next
        move, waits for one commit of logs, not for one commit per run of logs between calls."""
        if self.process is not None:
            self._work_in_process(loop, jobs)
            return
        logs = [job for job in jobs if job[0] == "log"]
        if logs:
            self._tell(loop, self._write_logs(logs))
        for kind, fn, args, done in jobs:
            if kind == "call":
                self._call_here(loop, fn, args, done)

    def _work_in_process(self, loop: asyncio.AbstractEventLoop, jobs: list[_Job]) -> None:
        """Do ``jobs`` as :meth:`_work` does, the logs and the bank's own calls in the child process,
        in runs; a call of anything else (a test's, :meth:`close`'s) here, in its place."""
        run: list[_Job] = [job for job in jobs if job[0] == "log"]
        for job in jobs:
            kind, fn, args, done = job
            if kind != "call":
                continue
            if getattr(fn, "__self__", None) is self.bank:
                run.append(job)
                continue
            if run:
                self._in_process(loop, run)
                run = []
            self._call_here(loop, fn, args, done)
        if run:
            self._in_process(loop, run)

    def _call_here(self, loop: asyncio.AbstractEventLoop, fn: Callable[..., Any], args: tuple[Any, ...],
                   done: asyncio.Future[Any]) -> None:
        """Make one call on this thread and tell its table how it went."""
        try:
            outcome: _Outcome = (done, fn(*args), None)
        except Exception as exc:
            outcome = (done, None, exc)
        self._tell(loop, [outcome])

    def _in_process(self, loop: asyncio.AbstractEventLoop, jobs: list[_Job]) -> None:
        assert self.process is not None
        sent: list[Job] = [(kind, a if kind == "log" else a.__name__, b) for kind, a, b, _ in jobs]

        def tell(outcomes: list[Outcome]) -> None:
            self._tell(loop, [(jobs[i][3], result, error) for i, result, error in outcomes])

        self.process.work(sent, tell)

    async def start(self) -> None:
        """Start the writer's process, if it has one (else nothing to do); if it cannot start, the
        writes are made on the thread, as without one."""
        process = self.process
        if process is None:
            return
        try:
            await asyncio.to_thread(process.start)
        except Exception:
            log.exception("the writer process could not start: writing on the server's own thread")
            self.process = None

    @staticmethod
    def _tell(loop: asyncio.AbstractEventLoop, outcomes: list[_Outcome]) -> None:
        with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits any more
            loop.call_soon_threadsafe(_resolve, outcomes)

    def _write_logs(self, batch: list[_Job]) -> list[_Outcome]:
        return [(done, None, exc) for done, exc in write_logs(self.bank, [(done, key, entries)
                                                                         for _, key, entries, done in batch])]

    async def close(self) -> None:
        """Finish what is gathered and handed over, and stop the thread."""
        if self._closing:
            return
        last = self._submit("call", _nothing, ())  # behind every job of this loop
        self._closing = True
        with contextlib.suppress(Exception):
            await last
        self._queue.put(None)
        thread = self._thread
        if thread is not None:
            await asyncio.to_thread(thread.join)
        if self.process is not None:
            await asyncio.to_thread(self.process.stop)


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
        """An action applied (it is the last of ``hand.game.actions``); one a person's stand-in took
        (:attr:`~xuezhan.match.Hand.stand_in`, noted by the driver before it tells this hook) is
        logged with ``"stand_in": true``."""
        entry = action.to_json()
        if hand.stand_in and hand.stand_in[-1] == len(hand.game.actions) - 1:
            entry[STAND_IN] = True
        self.pending.append(("action", hand.hand_no, seq, entry))

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
