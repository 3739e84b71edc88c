"""Slow and greedy clients: a header timeout, a cap on connections per address, and the
open-file limit, at the door of the server (docs/security.md, "Slow and greedy clients").

uvicorn has neither of the first two: ``timeout_keep_alive`` only covers the quiet time
between two requests and is reset by every byte that arrives, and ``limit_concurrency`` is
one count for the whole server, answered with a 503 only once a request has been parsed
(uvicorn issue #157 still lists ``--timeout-request-start`` as to do). So ``xuezhan serve``
runs uvicorn with two small subclasses of its own protocols, handed over through uvicorn's
documented ``http=`` and ``ws=`` settings (a protocol class):

- :class:`GuardedHttpProtocol` (uvicorn's httptools protocol) counts each accepted
  connection against its TCP peer's address in a :class:`ConnectionGuard` and aborts it at
  once, before a byte is parsed, when that address already holds
  ``max_connections_per_address``; otherwise it starts a timer that aborts the connection
  unless the request's headers are complete within ``header_timeout`` (counted from the
  opening, and for each later request on a kept-alive connection from its first byte), and
  aborts it too when they pass :data:`MAX_HEADER_BYTES`.
- :class:`GuardedWebSocketProtocol` (uvicorn's websockets protocol) takes over a connection
  that is upgraded and gives its place back when it closes, so an open websocket counts
  against its address as long as it lives.

Everything else (parsing, flow control, keep-alive, websockets' pings) stays uvicorn's.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from typing import Any, ClassVar, Final

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.utils import get_remote_addr
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from .config import ServerConfig

_NR_OPEN: Final = "/proc/sys/fs/nr_open"
MAX_HEADER_BYTES: Final = 64 * 1024
"""The most bytes a request's line and headers may take: the parser (llhttp) sets no bound of
its own, and a client could otherwise pour headers into memory for a whole header timeout."""


class ConnectionGuard:
    """The connections each client address holds open, and the two limits they obey.

    One guard serves one server (one event loop): it is not thread-safe, and needs not be.
    """

    def __init__(self, header_timeout: float, max_per_address: int) -> None:
        self.header_timeout = header_timeout
        """Seconds a connection has to send a request's headers in full."""
        self.max_per_address = max_per_address
        """Connections one address may hold open at once."""
        self.refused = 0
        """Connections closed at once because their address held too many (since the start)."""
        self.timed_out = 0
        """Connections closed because their request's headers were too slow (since the start)."""
        self.too_large = 0
        """Connections closed because their request's headers passed :data:`MAX_HEADER_BYTES`."""
        self._open: dict[str, set[asyncio.BaseTransport]] = {}

    @classmethod
    def of(cls, settings: ServerConfig) -> ConnectionGuard:
        """The guard for a server with ``settings``."""
        return cls(settings.header_timeout, settings.max_connections_per_address)

    def admit(self, address: str, transport: asyncio.BaseTransport) -> bool:
        """Count ``transport`` against ``address``; ``False`` (and not counted) when it is full."""
        held = self._open.setdefault(address, set())
        if len(held) >= self.max_per_address:
            self.refused += 1
            return False
        held.add(transport)
        return True

    def release(self, address: str, transport: asyncio.BaseTransport) -> None:
        """Give ``transport``'s place back (once; later calls do nothing)."""
        held = self._open.get(address)
        if held is not None:
            held.discard(transport)
            if not held:
                del self._open[address]

    def held(self, address: str) -> int:
        """Connections ``address`` holds open now."""
        return len(self._open.get(address, ()))


def _address(transport: asyncio.BaseTransport) -> str | None:
    """The TCP peer's address (``None`` for a Unix socket, which is not capped)."""
    peer = get_remote_addr(transport)  # type: ignore[arg-type]  # uvicorn asks for a Transport
    return peer[0] if peer else None


class GuardedHttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with the per-address cap and the header timeout and size bound."""

    guard: ClassVar[ConnectionGuard]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._address: str | None = None
        self._refused = False
        self._header_timer: asyncio.TimerHandle | None = None
        self._header_bytes = 0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._address = _address(transport)
        if self._address is not None and not self.guard.admit(self._address, transport):
            # refused before anything is set up or parsed: abort frees the socket at once
            self._refused = True
            transport.abort()
            return
        super().connection_made(transport)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._refused:
            return
        self._disarm()
        if self._address is not None:
            self.guard.release(self._address, self.transport)
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return
        super().data_received(data)
        if self._header_timer is not None:  # still waiting for the end of a request's headers
            self._header_bytes += len(data)
            if self._header_bytes > MAX_HEADER_BYTES:
                self._disarm()
                self.guard.too_large += 1
                self.transport.abort()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._arm()  # a later request on a kept-alive connection: from its first byte

    def on_headers_complete(self) -> None:
        self._disarm()
        super().on_headers_complete()

    def _arm(self) -> None:
        if self._header_timer is None:
            self._header_bytes = 0
            self._header_timer = self.loop.call_later(self.guard.header_timeout, self._headers_too_slow)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _headers_too_slow(self) -> None:
        self._header_timer = None
        self.guard.timed_out += 1
        # abort, not close: a client that does not read must not keep the socket open
        self.transport.abort()


class GuardedWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's websockets protocol that keeps the upgraded connection's place in the guard
    until it closes."""

    guard: ClassVar[ConnectionGuard]

    def connection_lost(self, exc: Exception | None) -> None:
        address = _address(self.transport)
        if address is not None:
            self.guard.release(address, self.transport)
        super().connection_lost(exc)


def guarded_protocols(guard: ConnectionGuard) -> tuple[type[GuardedHttpProtocol], type[GuardedWebSocketProtocol]]:
    """The two protocol classes of one server, bound to its ``guard``."""

    class Http(GuardedHttpProtocol):
        pass

    class WebSocket(GuardedWebSocketProtocol):
        pass

    Http.guard = guard
    WebSocket.guard = guard
    return Http, WebSocket


def guarded_config(app: Callable[..., Any], settings: ServerConfig, guard: ConnectionGuard | None = None,
                   **options: Any) -> uvicorn.Config:
    """uvicorn's settings for serving ``app`` behind a :class:`ConnectionGuard` of ``settings``
    (or ``guard``); ``options`` are uvicorn's other settings (host, port, ws_max_size ...)."""
    http, ws = guarded_protocols(guard or ConnectionGuard.of(settings))
    return uvicorn.Config(app, http=http, ws=ws, **options)


COLLECTOR_THRESHOLDS: Final = (20_000, 50, 100)
"""The cyclic garbage collector's thresholds in a server process (Python's are 700, 10, 10)."""


def tune_collector(thresholds: tuple[int, int, int] = COLLECTOR_THRESHOLDS) -> tuple[int, int, int]:
    """Ready this process to serve many tables with short pauses: collect once, freeze what is
    alive (modules, the app, the store: :func:`gc.freeze`, so that no later collection walks it
    again) and collect the young generation after 20,000 net allocations rather than 700.

    A table's messages are trees of dicts and lists that reference counting frees at once; with
    Python's thresholds the collector still ran several times a second under load, and every full
    collection walked the whole heap, pausing every table (about 160 ms, measured at 200 tables).
    Returns the thresholds it replaced."""
    import gc

    before: tuple[int, int, int] = gc.get_threshold()
    gc.collect()
    gc.freeze()
    gc.set_threshold(*thresholds)
    return before


def raise_open_file_limit() -> tuple[int, int] | None:
    """Raise this process's soft limit of open files to its hard limit (where the hard limit is
    unlimited, to the kernel's ``nr_open``); the limits it ends with, ``(soft, hard)``, or
    ``None`` where the platform has no such limit."""
    if sys.platform == "win32":
        return None
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    targets = [hard]
    if hard == resource.RLIM_INFINITY:
        try:
            with open(_NR_OPEN, encoding="ascii") as f:
                targets = [int(f.read().strip()), 1 << 20]
        except (OSError, ValueError):
            targets = [1 << 20]
    for target in targets:
        if soft == resource.RLIM_INFINITY or soft >= target:
            break
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            break
        except (ValueError, OSError):
            continue
    return resource.getrlimit(resource.RLIMIT_NOFILE)


__all__ = [
    "COLLECTOR_THRESHOLDS",
    "MAX_HEADER_BYTES",
    "ConnectionGuard",
    "GuardedHttpProtocol",
    "GuardedWebSocketProtocol",
    "guarded_config",
    "guarded_protocols",
    "raise_open_file_limit",
    "tune_collector",
]
