"""The bank's writes in a process of their own: the hand logs and the calls of the tables'
:class:`~xuezhan.server.journal.LogWriter`, made on a second core.

A server's event loop and the writer's thread share one interpreter lock: while hands end
together the writer's settlements (a few milliseconds of Python each) and the loop's moves
take turns on one core, and every statement the writer sends the database hands the lock back
and waits to get it again. Here the writer's thread only passes each batch to a child process
(one message, pickled) and tells the tables of each outcome as the child sends it back; the child
holds its own :class:`~xuezhan.server.storebank.StoreBank` on the same database and makes the
writes exactly as the thread would (the same methods, the same transactions, the same order).

Only the bank's own methods cross (a call is sent by its name); a node's fence crosses with
each batch (the rooms it holds and their tokens when the batch was handed over: the database's
lease rows stay the judge). The child stops when the server's end of the pipe closes, so it
never outlives a server that was killed. If the child dies, the jobs it had are refused with
``database_error`` (the tables try again as after any failed write) and the next batch starts a
new one.

Started by :class:`WriterProcess` only (:func:`main`).
"""

from __future__ import annotations

import logging
import os
import pickle
import socket
import subprocess
import sys
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any, TypeVar

from ..errors import XuezhanError
from ..ids import ErrorCode
from .bank import Bank

log = logging.getLogger("xuezhan.server")

T = TypeVar("T")

Job = tuple[str, Any, Any]
"""``("log", key, entries)`` or ``("call", method name, args)``."""
Outcome = tuple[int, Any, "BaseException | None"]
"""A job's place in its batch, its result and its error (``None``: it went well)."""


BankSpec = tuple[str, dict[str, Any]]
"""How the child opens the same bank: the store's URL (password included: it crosses the pipe,
never the command line) and the bank's options (:class:`~xuezhan.server.storebank.StoreBank`)."""


def spec_of(bank: Any) -> BankSpec | None:
    """How a child opens ``bank`` again: a :class:`~xuezhan.server.storebank.StoreBank` on a
    database that processes can share (not an in-memory SQLite); else ``None``."""
    from .storebank import StoreBank

    if type(bank) is not StoreBank:
        return None
    url = bank.store.engine.url
    if url.get_backend_name() == "sqlite" and url.database in (None, "", ":memory:"):
        return None
    options = {"starting_coins": bank.starting_coins, "accounts_per_address": bank.accounts_per_address,
               "session_ttl": bank.session_ttl}
    return url.render_as_string(hide_password=False), options


def _error(exc: BaseException) -> tuple[str, str]:
    """An error as it crosses back: its stable code and message (other errors: ``database_error``)."""
    if isinstance(exc, XuezhanError):
        return exc.code, exc.message
    return str(ErrorCode.DATABASE_ERROR), f"{type(exc).__name__}: {exc}"


def _raised(code: str, message: str) -> XuezhanError:
    """The error of the child as the server raises it (a store error of the same code)."""
    from ..store.base import StoreError

    return StoreError(code, message)


class WriterProcess:
    """A child process making the writes of one :class:`~xuezhan.server.journal.LogWriter`, used
    from the writer's thread only. ``fence``: where the node's fence is read at each batch
    (``None``: a server alone)."""

    def __init__(self, spec: BankSpec, fence: Callable[[], Any] | None = None) -> None:
        self.spec = spec
        self.fence = fence
        self._child: subprocess.Popen[bytes] | None = None
        self._conn: Connection | None = None

    @property
    def pid(self) -> int | None:
        """The child's process id while it runs."""
        return self._child.pid if self._child is not None and self._child.poll() is None else None

    def start(self) -> None:
        """Start the child (if it is not running) and wait until its bank is open."""
        if self._conn is not None and self._child is not None and self._child.poll() is None:
            return
        self.stop()
        ours, theirs = socket.socketpair()
        with ours, theirs:
            child = subprocess.Popen(
                [sys.executable, "-c", "from xuezhan.server.writer_process import main; main()",
                 str(theirs.fileno())],
                pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, close_fds=True,
            )
            conn = Connection(os.dup(ours.fileno()))
        try:
            conn.send(self.spec)
            ready = conn.recv()
        except (EOFError, OSError) as exc:
            conn.close()
            child.wait()
            raise _raised(str(ErrorCode.DATABASE_ERROR), f"the writer process did not start: {exc}") from None
        if ready != "ready":
            conn.close()
            child.wait()
            raise _raised(*ready)
        self._child, self._conn = child, conn

    def work(self, jobs: list[Job], tell: Callable[[list[Outcome]], None]) -> None:
        """Make ``jobs`` in the child: the logs first, in one commit, then each call; ``tell`` gets
        the outcomes of the logs together, then of each call, as the child sends them."""
        left = set(range(len(jobs)))
        try:
            self.start()
            assert self._conn is not None
            fence = self.fence() if self.fence is not None else None
            held = None if fence is None else (fence.node, fence.seconds, dict(fence.held), dict(fence.leads))
            try:
                batch = pickle.dumps((held, jobs), protocol=pickle.HIGHEST_PROTOCOL)
            except Exception as exc:  # a job that cannot cross: the batch is refused, the child keeps on
                unsent = _raised(str(ErrorCode.DATABASE_ERROR), f"a write could not be sent: {exc}")
                tell([(i, None, unsent) for i in sorted(left)])
                return
            self._conn.send_bytes(batch)
            while left:
                outcomes: list[tuple[int, Any, tuple[str, str] | None]] = self._conn.recv()
                told: list[Outcome] = []
                for i, result, error in outcomes:
                    left.discard(i)
                    told.append((i, result, None if error is None else _raised(*error)))
                tell(told)
        except Exception as exc:  # the child died or could not start: nothing more comes of this batch
            log.error("the writer process failed: %s", exc)
            self.stop(kill=True)
            failed: BaseException = exc if isinstance(exc, XuezhanError) else _raised(
                str(ErrorCode.DATABASE_ERROR), f"the writer process stopped: {type(exc).__name__}")
            tell([(i, None, failed) for i in sorted(left)])

    def stop(self, kill: bool = False) -> None:
        """Close the pipe (the child finishes what it has and ends) and wait for the child; ``kill``:
        a child that failed is killed rather than waited for."""
        conn, child = self._conn, self._child
        self._conn = self._child = None
        if conn is not None:
            conn.close()
        if child is not None:
            if kill:
                child.kill()
            try:
                child.wait(timeout=30)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()


def write_logs(bank: Bank, logs: list[tuple[T, str, list[Any]]]) -> list[tuple[T, Exception | None]]:
    """Write the logs ``(tag, match key, entries)`` in one commit; when one match's entry is
    refused, each match alone, so only that one fails. Each tag with its error (``None``: written)."""
    try:
        bank.write_log([(key, e) for _, key, entries in logs for e in entries])
    except Exception:
        out: list[tuple[T, Exception | None]] = []
        for tag, key, entries in logs:
            try:
                bank.write_log([(key, e) for e in entries])
            except Exception as exc:
                out.append((tag, exc))
            else:
                out.append((tag, None))
        return out
    return [(tag, None) for tag, _, _ in logs]


def serve(conn: Connection) -> None:
    """The child: open the bank the server names, then make each batch sent until the pipe closes."""
    from ..store import Store
    from ..store.leases import NodeFence
    from .storebank import StoreBank

    try:
        url, options = conn.recv()
        bank = StoreBank(Store(url), **options)
    except Exception as exc:
        conn.send(_error(exc))
        return
    conn.send("ready")
    fence: NodeFence | None = None
    try:
        while True:
            try:
                held, jobs = conn.recv()
            except EOFError:  # the server closed the pipe, or died
                return
            if held is not None:
                node, seconds, rooms, leads = held
                if fence is None or fence.node != node:
                    fence = NodeFence(node, seconds)
                    bank.store.leases.install(fence)
                fence.held, fence.leads = rooms, leads
            logs = [(i, key, entries) for i, (kind, key, entries) in enumerate(jobs) if kind == "log"]
            if logs:
                conn.send([(i, None, None if exc is None else _error(exc)) for i, exc in write_logs(bank, logs)])
            for i, (kind, name, args) in enumerate(jobs):
                if kind != "call":
                    continue
                outcome: tuple[int, Any, tuple[str, str] | None]
                try:
                    outcome = (i, getattr(bank, name)(*args), None)
                except Exception as exc:
                    outcome = (i, None, _error(exc))
                try:
                    conn.send([outcome])
                except Exception as exc:  # a result that cannot cross: the error does
                    conn.send([(i, None, _error(exc))])
    finally:
        bank.close()


def main() -> None:
    """The child's entry: ``python -c "from xuezhan.server.writer_process import main; main()" FD``,
    FD its end of the pipe."""
    logging.basicConfig(level=logging.WARNING)
    serve(Connection(int(sys.argv[1])))
