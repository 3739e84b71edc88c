"""Which session each open websocket belongs to, so that a session's sockets close when it ends.

A socket's cookie is checked when it connects; after that, the session can end three ways,
and each closes the session's sockets (table and lobby) with :data:`SESSION_ENDED` (4001):

- logout (:meth:`SessionSockets.end`), at once;
- a password change ends the account's other sessions (:meth:`SessionSockets.end_others`), at once;
- expiry: each socket holds a timer set to its session's end (:meth:`SessionSockets.expire_at`).

Closing goes through the connection's outbox (:meth:`xuezhan.server.conn.Conn.close`): the
writer task sends what is queued, then the close frame. Nothing is polled, so a thousand
idle sockets cost a thousand timers and nothing else.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final

from .conn import Conn

SESSION_ENDED: Final = 4001
"""The close code of a socket whose session ended (logout, password change, expiry)."""


@dataclass(slots=True)
class _Open:
    token: str
    player: str
    timer: asyncio.TimerHandle | None


class SessionSockets:
    """The open websockets of each session (by its token) and of each account; used from the event loop."""

    def __init__(self) -> None:
        self._open: dict[Conn, _Open] = {}
        self._by_token: dict[str, set[Conn]] = {}

    def __len__(self) -> int:
        return len(self._open)

    def add(self, conn: Conn, token: str, player: str) -> None:
        """Keep ``conn`` as a socket of session ``token`` (of ``player``), closed when the session ends.
        Kept before its expiry is read (:meth:`expire_at`), so that no ending falls between the two."""
        self._open[conn] = _Open(token, player, None)
        self._by_token.setdefault(token, set()).add(conn)

    def expire_at(self, conn: Conn, expires_at: datetime | None) -> None:
        """Close ``conn`` when its session expires at ``expires_at`` (``None``: it has ended already,
        so it closes now)."""
        entry = self._open.get(conn)
        if entry is None:
            return  # ended meanwhile, or gone
        delay = 0.0 if expires_at is None else (expires_at - datetime.now(UTC)).total_seconds()
        if delay <= 0:
            self._end(conn)
            return
        if entry.timer is not None:
            entry.timer.cancel()
        entry.timer = asyncio.get_running_loop().call_later(delay, self._expire, conn)

    def remove(self, conn: Conn) -> None:
        """Forget a socket that closed."""
        entry = self._open.pop(conn, None)
        if entry is None:
            return
        if entry.timer is not None:
            entry.timer.cancel()
        conns = self._by_token.get(entry.token)
        if conns is not None:
            conns.discard(conn)
            if not conns:
                del self._by_token[entry.token]

    def _expire(self, conn: Conn) -> None:
        if conn in self._open:
            self._open[conn].timer = None  # it has fired
        self._end(conn)

    def _end(self, conn: Conn) -> None:
        """Close a socket whose session ended, and forget it at once (its handler's ``remove`` follows)."""
        self.remove(conn)
        conn.close(SESSION_ENDED)

    def end(self, token: str) -> int:
        """Close every socket of session ``token`` (logout); returns how many."""
        conns = list(self._by_token.get(token, ()))
        for conn in conns:
            self._end(conn)
        return len(conns)

    def end_others(self, player: str, keep: str | None) -> int:
        """Close the sockets of every session of ``player`` but ``keep`` (a password change)."""
        conns = [c for c, e in self._open.items() if e.player == player and e.token != keep]
        for conn in conns:
            self._end(conn)
        return len(conns)
