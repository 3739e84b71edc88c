"""The web table as an ASGI app (Starlette): the lobby over HTTP, each table over a websocket.

HTTP (JSON; errors are ``{"error": {"code", "message"}}``):

- ``POST /api/login`` ``{"nickname"}``: a new account with the starting coins; the session
  token goes in an HttpOnly cookie. ``POST /api/logout``. ``GET /api/me`` (``account`` null
  without a session).
- ``GET /api/rooms``: the public rooms. ``POST /api/rooms``: create one (``name``, ``preset``,
  ``options``, ``coefficient`` N, ``fee`` A, ``hands``, ``public``), within the room bounds
  (docs/options.md) and the server's limits (:class:`ServerConfig`), else 400 ``bad_room``
  and nothing is created. ``POST /api/quickstart``:
  a private table with three bots that starts when you sit down. ``GET /api/rooms/{code}``.
- ``GET /api/history``: your finished hands.
- ``GET /api/vocab``: the names of patterns, extras, ledger reasons, actions, events, item
  cards and error codes in zh-CN, zh-TW and English (:func:`xuezhan.vocab.to_json`).
- ``GET /tiles/{name}.svg``: the tile pictures; ``GET /`` and ``/static/...``: the client.

Websocket ``/ws/{code}`` (``?watch=1`` to watch): see :mod:`xuezhan.server.protocol`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import secrets
import unicodedata
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import Any, Final

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect

from .. import i18n, vocab
from ..errors import XuezhanError
from ..match import RoomConfig
from ..rules import option_names
from .bank import Account, Bank, is_bot
from .config import ServerConfig
from .conn import Conn
from .journal import LogWriter
from .limits import AddressLimiter, TokenBucket
from .protocol import ProtocolError, error_message, parse_client_message
from .table import Status, Table
from .tiles_svg import svg_for_name

log = logging.getLogger("xuezhan.server")

STATIC: Final = Path(__file__).parent / "static"
COOKIE: Final = "xz_session"
CODE_ALPHABET: Final = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
CODE_LENGTH: Final = 10  # 32**10 = 2**50 codes
MAX_BODY: Final = 8192
ROOM_OPTIONS: Final = frozenset(option_names()) - {"fan"}
ROOM_NUMBERS: Final = ("coefficient", "fee", "hands")
_NICK_BAD: Final = re.compile(r"[:#<>\"'&\\/]")
VOCAB_JSON: Final = vocab.to_json()
"""Every name the page shows, by id (:mod:`xuezhan.vocab`), served at ``GET /api/vocab``."""

CSP: Final = (
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; "
    "font-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)


def new_code() -> str:
    """An unguessable room code (secrets module)."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


def check_nickname(raw: Any) -> str:
    """A nickname: 1-24 printable characters, no ``:`` ``#`` or markup characters."""
    if not isinstance(raw, str):
        raise XuezhanError("bad_nickname", "a nickname is text")
    name = unicodedata.normalize("NFC", raw).strip()
    if not 1 <= len(name) <= 24:
        raise XuezhanError("bad_nickname", "a nickname has 1 to 24 characters")
    if any(unicodedata.category(ch)[0] in "CZ" and ch != " " for ch in name) or _NICK_BAD.search(name):
        raise XuezhanError("bad_nickname", "a nickname may not hold control characters or : # < > \" ' & \\ /")
    if name.lower().startswith("bot"):
        raise XuezhanError("bad_nickname", "nicknames starting with 'bot' are kept for the bots")
    return name


def room_config(data: dict[str, Any], limits: ServerConfig | None = None) -> RoomConfig:
    """The room a lobby request asks for, within the room bounds and the server's ``limits``
    (:meth:`ServerConfig.check_room`); raises :class:`XuezhanError` (``bad_room``)."""
    preset = data.get("preset", "qq")
    if preset not in ("qq", "chengdu"):
        raise XuezhanError("bad_room", "preset must be 'qq' or 'chengdu'")
    options = data.get("options", {})
    if not isinstance(options, dict) or len(options) > 32:
        raise XuezhanError("bad_room", "options must be an object of rule options")
    unknown = set(options) - ROOM_OPTIONS
    if unknown:
        raise XuezhanError("bad_room", f"unknown rule option(s): {', '.join(sorted(unknown))[:100]}")
    mapping: dict[str, Any] = {"rules": {"preset": preset, "options": options}}
    for key in ROOM_NUMBERS:
        if key in data:
            mapping[key] = data[key]
    mapping.setdefault("coefficient", 10)
    mapping.setdefault("fee", 0)
    mapping.setdefault("hands", 8)
    room = RoomConfig.from_mapping(mapping)
    (limits or ServerConfig()).check_room(room)
    return room


class SecurityHeaders:
    """Adds a strict Content-Security-Policy and friends to every HTTP response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers += [
                    (b"content-security-policy", CSP.encode()),
                    (b"x-content-type-options", b"nosniff"),
                    (b"referrer-policy", b"no-referrer"),
                    (b"x-frame-options", b"DENY"),
                ]
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, send_with_headers)


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

    async def create(self, owner: Account, room: RoomConfig, name: str, *, public: bool, autostart: bool) -> Table:
        if len(self.tables) >= self.config.max_rooms:
            raise XuezhanError("too_many_rooms", "the server has as many rooms open as it takes; try later")
        code = new_code()
        while code in self.tables:
            code = new_code()
        meta = {"name": name, "owner": owner.player, "owner_name": owner.nickname, "public": public}
        await asyncio.to_thread(self.bank.open_room, code, room, meta)
        table = Table(code, name, room, owner, self.bank, self.config, public=public, autostart=autostart,
                      on_close=self._closed, writer=self.writer)
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


def create_app(
    db_url: str | None = None,
    *,
    config: ServerConfig | None = None,
    bank: Bank | None = None,
    secret: bytes | None = None,
) -> Starlette:
    """The web table. ``db_url``: any SQLAlchemy URL (default: the SQLite file of
    :func:`xuezhan.store.default_url`). ``bank``: use this instead of the store (tests).
    ``secret`` signs session tokens (default: ``$XUEZHAN_SECRET``, else a random key kept in the database)."""
    config = config or ServerConfig()
    if bank is None:
        from .storebank import StoreBank

        if secret is None and os.environ.get("XUEZHAN_SECRET"):
            secret = os.environ["XUEZHAN_SECRET"].encode("utf-8")
        bank = StoreBank.open(db_url, secret=secret, starting_coins=config.starting_coins)
    the_bank: Bank = bank
    lobby = Lobby(the_bank, config)
    http_limit = AddressLimiter(config.http_rate_per_second, config.http_rate_burst)

    async def in_thread(fn: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.to_thread(fn, *args)

    async def current_account(request: Request | WebSocket) -> Account | None:
        token = request.cookies.get(COOKIE)
        if not token:
            return None
        account: Account | None = await in_thread(the_bank.account_for_token, token)
        return account

    async def read_json(request: Request) -> dict[str, Any]:
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            raise XuezhanError("bad_request", "send JSON (Content-Type: application/json)")
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_BODY:
                raise XuezhanError("too_large", "the request is too large")
        try:
            data = json.loads(body or b"{}")
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
            raise XuezhanError("bad_json", "the request is not valid JSON") from None
        if not isinstance(data, dict):
            raise XuezhanError("bad_json", "the request must be a JSON object")
        return data

    def limited(request: Request) -> bool:
        host = request.client.host if request.client is not None else "?"
        return not http_limit.allow(host)

    Handler = Callable[[Request], Awaitable[Response]]

    def api(fn: Handler) -> Handler:
        async def wrapper(request: Request) -> Response:
            try:
                return await fn(request)
            except XuezhanError as exc:
                status = 409 if exc.code == "nickname_taken" else 400
                return _error(status, exc.code, exc.message)

        return wrapper

    def account_json(account: Account) -> dict[str, Any]:
        return {"nickname": account.nickname, "balance": account.balance}

    @api
    async def login(request: Request) -> Response:
        if limited(request):
            return _error(429, "rate_limited", "too many requests; wait a moment")
        data = await read_json(request)
        nickname = check_nickname(data.get("nickname"))
        account, token = await in_thread(the_bank.create_account, nickname)
        response = JSONResponse({"account": account_json(account)})
        response.set_cookie(COOKIE, token, max_age=60 * 60 * 24 * 30, httponly=True, samesite="strict",
                            secure=config.secure_cookies, path="/")
        return response

    @api
    async def logout(request: Request) -> Response:
        token = request.cookies.get(COOKIE)
        if token:
            await in_thread(the_bank.end_session, token)
        response = JSONResponse({"ok": True})
        response.delete_cookie(COOKIE, path="/")
        return response

    @api
    async def me(request: Request) -> Response:
        account = await current_account(request)
        if account is None:
            return JSONResponse({"account": None, "tables": []})  # not an error: the page asks first
        seated = [t.code for t in lobby.tables.values() if account.player in t.players and t.status is not
                  Status.CLOSED]
        return JSONResponse({"account": account_json(account), "tables": seated})

    @api
    async def rooms(request: Request) -> Response:
        return JSONResponse({"rooms": lobby.listing()})

    async def _create(request: Request, quick: bool) -> Response:
        account = await current_account(request)
        if account is None:
            return _error(401, "not_logged_in", "pick a nickname first")
        if limited(request):
            return _error(429, "rate_limited", "too many requests; wait a moment")
        data = await read_json(request)
        unknown = set(data) - {"name", "preset", "options", "coefficient", "fee", "hands", "public"}
        if unknown:
            raise XuezhanError("bad_room", f"unknown field(s): {', '.join(sorted(unknown))[:100]}")
        room = room_config(data, config)
        raw_name = data.get("name") or f"{account.nickname}'s table"
        if not isinstance(raw_name, str):
            raise XuezhanError("bad_room", "name must be text")
        name = "".join(ch for ch in raw_name.strip() if unicodedata.category(ch)[0] != "C")[:40] or "table"
        public = data.get("public", not quick)
        if not isinstance(public, bool):
            raise XuezhanError("bad_room", "public must be true or false")
        if account.balance < max(1, room.fee):
            raise XuezhanError("not_enough_coins", f"this room needs at least {max(1, room.fee)} coins")
        table = await lobby.create(account, room, name, public=public and not quick, autostart=quick)
        return JSONResponse({"code": table.code, "room": table.summary()})

    @api
    async def create_room(request: Request) -> Response:
        return await _create(request, quick=False)

    @api
    async def quickstart(request: Request) -> Response:
        return await _create(request, quick=True)

    @api
    async def room_info(request: Request) -> Response:
        table = lobby.get(request.path_params["code"])
        if table is None:
            return _error(404, "unknown_room", "no open room has that code")
        return JSONResponse({"room": table.summary()})

    @api
    async def history(request: Request) -> Response:
        account = await current_account(request)
        if account is None:
            return _error(401, "not_logged_in", "pick a nickname first")
        hands = await in_thread(the_bank.history, account.player, 50)
        return JSONResponse({"hands": [h.to_json() for h in hands], "balance": account.balance})

    async def tile(request: Request) -> Response:
        svg = svg_for_name(request.path_params["name"])
        if svg is None:
            return _error(404, "unknown_tile", "no such tile")
        return Response(svg, media_type="image/svg+xml", headers={"Cache-Control": "public, max-age=86400"})

    async def vocabulary(request: Request) -> Response:
        return JSONResponse(VOCAB_JSON, headers={"Cache-Control": "no-cache"})

    async def messages(request: Request) -> Response:
        lang = i18n.negotiate(request.headers.get("accept-language"),
                              request.query_params.get("lang") or request.cookies.get("lang"))
        body = {"lang": lang, "messages": i18n.to_json(lang, "web.") | i18n.to_json(lang, "common.")}
        return JSONResponse(body, headers={"Cache-Control": "no-cache", "Vary": "Accept-Language, Cookie"})

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    async def table_socket(websocket: WebSocket) -> None:
        origin = websocket.headers.get("origin")
        host = websocket.headers.get("host", "")
        if origin is not None and origin.split("://", 1)[-1] != host:
            await websocket.close(code=1008)  # another site's page may not open our sockets
            return
        await websocket.accept()
        account = await current_account(websocket)
        if account is None:
            await websocket.send_text(json.dumps(error_message("not_logged_in", "pick a nickname first")))
            await websocket.close(code=4401)
            return
        table = lobby.get(websocket.path_params["code"])
        if table is None:
            await websocket.send_text(json.dumps(error_message("unknown_room", "no open room has that code")))
            await websocket.close(code=4404)
            return
        conn = Conn(account, watch=websocket.query_params.get("watch") == "1", queue_size=config.send_queue)
        writer = asyncio.create_task(_writer(websocket, conn))
        table.join(conn)
        bucket = TokenBucket(config.rate_per_second, config.rate_burst)
        strikes = 0
        try:
            while not conn.closed:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                text = message.get("text")
                try:
                    if text is None:
                        raise ProtocolError("bad_message", "messages are JSON text")
                    if not bucket.take():
                        raise ProtocolError("rate_limited", "too many messages; slow down")
                    msg = parse_client_message(text, config.max_message_bytes)
                except ProtocolError as exc:
                    strikes += 1
                    conn.send(error_message(exc.code, exc.message))
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

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        restored = await lobby.restore()
        if restored:
            log.info("carried on %d running match(es)", restored)
        yield
        await lobby.close()
        the_bank.close()

    routes = [
        Route("/", index),
        Route("/api/login", login, methods=["POST"]),
        Route("/api/logout", logout, methods=["POST"]),
        Route("/api/me", me),
        Route("/api/rooms", rooms),
        Route("/api/rooms", create_room, methods=["POST"]),
        Route("/api/quickstart", quickstart, methods=["POST"]),
        Route("/api/rooms/{code}", room_info),
        Route("/api/history", history),
        Route("/api/vocab", vocabulary),
        Route("/api/i18n", messages),
        Route("/tiles/{name}.svg", tile),
        WebSocketRoute("/ws/{code}", table_socket),
        Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.add_middleware(SecurityHeaders)
    app.state.lobby = lobby
    app.state.bank = the_bank
    app.state.config = config
    return app


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
