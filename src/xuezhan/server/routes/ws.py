"""The websocket of a table, ``/ws/{code}`` (``?watch=1`` to watch): checks the origin and the
session, joins the table, passes it each well-formed message (:mod:`xuezhan.server.protocol`), and
sends what the table queues for the connection from a writer task of its own. Each socket is
kept with its session (:mod:`xuezhan.server.sessions`): when the session ends, it closes (4001).

The lobby's websocket, ``/ws/lobby``, with the same checks: the queue
(:mod:`xuezhan.server.matchmaking`) pushes ``{"type": "matched", "table"}`` on it when the
player is seated; it answers ``ping`` with ``pong`` and nothing else."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from contextlib import suppress
from datetime import UTC, datetime, timedelta
from typing import Any

from starlette.routing import BaseRoute, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from ...i18n import Lang
from ...ids import ErrorCode
from ...jsontext import escape_surrogates
from ..bank import Account
from ..conn import Conn
from ..limits import TokenBucket, retry_seconds
from ..nodes import MOVED, TRY_AGAIN
from ..protocol import ClientMessage, ProtocolError, error_message, parse_client_message
from ..words import error_text
from .state import COOKIE, AppState, in_thread, lang_of


async def _greet(app: AppState, websocket: WebSocket) -> tuple[Account, Lang] | None:
    """Accept a socket from this site with a session: its account and language; else close it
    (another site's page: 1008; no session: ``not_signed_in``, 4401) and ``None``."""
    origin = websocket.headers.get("origin")
    host = websocket.headers.get("host", "")
    if origin is not None and origin.split("://", 1)[-1] != host:
        await websocket.close(code=1008)  # another site's page may not open our sockets
        return None
    await websocket.accept()
    account = await app.current_account(websocket)
    lang = lang_of(websocket, account)
    if account is None:
        message = error_text(ErrorCode.NOT_SIGNED_IN, lang, "sign in first")
        await websocket.send_text(json.dumps(error_message(ErrorCode.NOT_SIGNED_IN, message)))
        await websocket.close(code=4401)
        return None
    return account, lang


def _refusal(exc: ProtocolError, lang: Lang, bucket: TokenBucket) -> dict[str, Any]:
    """The error event of a refused message; ``rate_limited`` also says how long to wait (``retry_after``)."""
    message = error_message(exc.code, error_text(exc.code, lang, exc.message))
    if exc.code == ErrorCode.RATE_LIMITED:
        message["retry_after"] = retry_seconds(bucket.wait())
    return message


async def _hold_session(app: AppState, websocket: WebSocket, conn: Conn) -> None:
    """Keep ``conn`` with its session so that logout, a password change elsewhere or expiry closes it
    (4001, :mod:`xuezhan.server.sessions`)."""
    token = websocket.cookies.get(COOKIE, "")
    app.sockets.add(conn, token, conn.account.player)  # first: an ending from now on closes it
    try:
        expires = await in_thread(app.bank.session_expires, token)
    except Exception:  # the database did not answer: the session ends no later than a whole lifetime
        expires = datetime.now(UTC) + timedelta(seconds=app.config.session_ttl)
    app.sockets.expire_at(conn, expires)


async def serve_table(app: AppState, websocket: WebSocket) -> None:
    """One connection to a table, from the handshake to the close."""
    config = app.config
    greeted = await _greet(app, websocket)
    if greeted is None:
        return
    account, lang = greeted
    code = websocket.path_params["code"]
    table = app.lobby.get(code)
    node = app.lobby.node
    if table is None and node is not None:  # run by another node, or being taken over (docs/deploy.md)
        where = await in_thread(node.where, code)
        if where is not None:
            name, live = where
            if live and name is not None and name != node.name:
                await websocket.close(code=MOVED, reason=name)
            else:
                await websocket.close(code=TRY_AGAIN)
            return
    if table is None:
        message = error_text(ErrorCode.UNKNOWN_ROOM, lang, "no open room has that code")
        await websocket.send_text(json.dumps(error_message(ErrorCode.UNKNOWN_ROOM, message)))
        await websocket.close(code=4404)
        return
    conn = Conn(account, watch=websocket.query_params.get("watch") == "1", queue_size=config.send_queue,
                lang=lang)
    await _connected(app, websocket, conn, lang, lambda: table.join(conn), lambda msg: table.message(conn, msg),
                     lambda: table.gone(conn))


async def serve_lobby(app: AppState, websocket: WebSocket) -> None:
    """One lobby connection: told by the queue where its player is seated, until it closes."""
    greeted = await _greet(app, websocket)
    if greeted is None:
        return
    account, lang = greeted
    conn = Conn(account, watch=True, queue_size=app.config.send_queue, lang=lang)
    queue = app.lobby.queue

    def ping(msg: ClientMessage) -> None:
        if msg.type != "ping":
            raise ProtocolError(ErrorCode.UNKNOWN_MESSAGE, "the lobby socket takes only ping")
        conn.send({"type": "pong"})

    await _connected(app, websocket, conn, lang, lambda: queue.listen(account.player, conn), ping,
                     lambda: queue.unlisten(account.player, conn))


async def _connected(app: AppState, websocket: WebSocket, conn: Conn, lang: Lang, start: Callable[[], None],
                     handle: Callable[[ClientMessage], None], gone: Callable[[], None]) -> None:
    """A greeted connection, table or lobby, from its ``start`` (once its session holds it) to its
    close: each message read, rate-limited and checked strictly, then ``handle``d (a
    :class:`ProtocolError` it raises is refused as the others); too many refusals close it
    (1008); ``gone`` when it ends."""
    config = app.config
    writer = asyncio.create_task(_writer(websocket, conn))
    await _hold_session(app, websocket, conn)
    start()
    bucket = TokenBucket(config.rate_per_second, config.rate_burst)
    strikes = 0
    try:
        while not conn.closed:
            received = await websocket.receive()
            if received["type"] == "websocket.disconnect":
                break
            text = received.get("text")
            try:
                if text is None:
                    raise ProtocolError(ErrorCode.BAD_MESSAGE, "messages are JSON text")
                if not bucket.take():
                    raise ProtocolError(ErrorCode.RATE_LIMITED, "too many messages; slow down")
                handle(parse_client_message(text, config.max_message_bytes))
            except ProtocolError as exc:
                strikes += 1
                conn.send(_refusal(exc, lang, bucket))
                if strikes >= config.rate_strikes:
                    conn.close(1008)
    except WebSocketDisconnect:
        pass
    finally:
        app.sockets.remove(conn)
        gone()
        conn.close()
        try:
            await asyncio.wait_for(writer, 2.0)
        except (TimeoutError, asyncio.CancelledError):
            writer.cancel()


async def _writer(websocket: WebSocket, conn: Conn) -> None:
    """Send what the table queues for this connection; close the socket when told to."""
    try:
        while True:
            text = await conn.outbox.get()
            if text is None:
                break
            try:
                await websocket.send_text(text)
            except UnicodeEncodeError:  # not UTF-8 (a lone surrogate): escaped, never a dead socket
                await websocket.send_text(escape_surrogates(text))
    except Exception:  # the client went away mid-send
        return
    with suppress(Exception):
        await websocket.close(code=conn.close_code)


def routes(app: AppState) -> list[BaseRoute]:
    async def table_socket(websocket: WebSocket) -> None:
        await serve_table(app, websocket)

    async def lobby_socket(websocket: WebSocket) -> None:
        await serve_lobby(app, websocket)

    return [WebSocketRoute("/ws/lobby", lobby_socket), WebSocketRoute("/ws/{code}", table_socket)]
