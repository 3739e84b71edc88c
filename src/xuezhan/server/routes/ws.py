"""The websocket of a table, ``/ws/{code}`` (``?watch=1`` to watch): checks the origin and the
session, joins the table, passes it each well-formed message (:mod:`xuezhan.server.protocol`), and
sends what the table queues for the connection from a writer task of its own."""

from __future__ import annotations

import asyncio
import json
from contextlib import suppress

from starlette.routing import BaseRoute, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from ...ids import ErrorCode
from ..conn import Conn
from ..limits import TokenBucket
from ..protocol import ProtocolError, error_message, parse_client_message
from ..words import error_text
from .state import AppState, lang_of


async def serve_table(app: AppState, websocket: WebSocket) -> None:
    """One connection to a table, from the handshake to the close."""
    config = app.config
    origin = websocket.headers.get("origin")
    host = websocket.headers.get("host", "")
    if origin is not None and origin.split("://", 1)[-1] != host:
        await websocket.close(code=1008)  # another site's page may not open our sockets
        return
    await websocket.accept()
    account = await app.current_account(websocket)
    lang = lang_of(websocket, account)
    if account is None:
        message = error_text(ErrorCode.NOT_SIGNED_IN, lang, "sign in first")
        await websocket.send_text(json.dumps(error_message(ErrorCode.NOT_SIGNED_IN, message)))
        await websocket.close(code=4401)
        return
    table = app.lobby.get(websocket.path_params["code"])
    if table is None:
        message = error_text(ErrorCode.UNKNOWN_ROOM, lang, "no open room has that code")
        await websocket.send_text(json.dumps(error_message(ErrorCode.UNKNOWN_ROOM, message)))
        await websocket.close(code=4404)
        return
    conn = Conn(account, watch=websocket.query_params.get("watch") == "1", queue_size=config.send_queue,
                lang=lang)
    writer = asyncio.create_task(_writer(websocket, conn))
    table.join(conn)
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
                msg = parse_client_message(text, config.max_message_bytes)
            except ProtocolError as exc:
                strikes += 1
                conn.send(error_message(exc.code, error_text(exc.code, lang, exc.message)))
                if strikes >= config.rate_strikes:
                    conn.close(1008)
                continue
            table.message(conn, msg)
    except WebSocketDisconnect:
        pass
    finally:
        table.gone(conn)
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
            await websocket.send_text(text)
    except Exception:  # the client went away mid-send
        return
    with suppress(Exception):
        await websocket.close(code=conn.close_code)


def routes(app: AppState) -> list[BaseRoute]:
    async def table_socket(websocket: WebSocket) -> None:
        await serve_table(app, websocket)

    return [WebSocketRoute("/ws/{code}", table_socket)]
