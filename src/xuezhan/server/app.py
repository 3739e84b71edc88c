"""The web table as an ASGI app (Starlette): the lobby over HTTP, each table over a websocket.

HTTP (JSON; errors are ``{"error": {"code", "message"}}``, the message in the request's
language; docs/protocol.md has every field):

- Accounts: ``POST /api/register`` ``{"name", "password"}``, ``POST /api/login`` ``{"name",
  "password"?}`` (without a password: a guest), ``POST /api/password``, ``POST /api/logout``,
  ``GET /api/me``. Sessions live in the database (a cookie holds the token), expire, and are
  revoked at logout.
- Language: ``POST /api/lang`` ``{"lang"}``; ``GET /api/i18n``; ``GET /`` serves the page with
  ``<html lang>`` already set to the negotiated language.
- Coins: ``GET /api/tiers``, ``GET /api/wallet``, ``POST /api/relief``.
- ``GET /api/rooms``: the public rooms. ``POST /api/rooms``: create one in a tier (``tier``,
  ``preset``, ``options``, ``hands``, ``public``, ``accept_risk``), within the room bounds
  (docs/options.md) and the server's limits (:class:`ServerConfig`), else 400 ``bad_room`` and
  nothing is created; a balance under the tier's minimum is 403 ``insufficient_balance``, one
  that cannot cover a hand's worst loss 409 ``stake_warning`` unless ``accept_risk``.
  ``POST /api/quickstart``: a private table with three bots that starts when you sit down.
  ``GET /api/rooms/{code}``; ``GET /r/{code}``: the page, opening that room (friends' rooms have
  six-digit codes).
- The queue: ``POST /api/queue`` ``{"tier", "preset", "exchange_three"}``, ``DELETE /api/queue``,
  ``GET /api/queue`` (``{"queued", "table"}``); people with the same choice are seated together,
  bots fill after ``queue_wait`` (:mod:`xuezhan.server.matchmaking`).
- ``GET /api/history``: your finished hands; ``GET /api/history/{id}``: one of them step by step,
  as your seat saw it; ``GET /api/history/{id}/review``: the review (复盘) of your decisions in it.
- ``GET /api/vocab``: the names of patterns, extras, ledger reasons, actions, events, item
  cards and error codes in zh-CN, zh-TW and English (:func:`xuezhan.vocab.to_json`).
- ``GET /tiles/{name}.svg``: the tile pictures; ``GET /`` and ``/static/...``: the client.

Websocket ``/ws/{code}`` (``?watch=1`` to watch): see :mod:`xuezhan.server.protocol`.
Websocket ``/ws/lobby``: ``{"type": "matched", "table"}`` when the queue seats the player.

The handlers live in :mod:`xuezhan.server.routes`, one module a concern, over one
:class:`~xuezhan.server.routes.AppState`; this module assembles them with the middleware:
:class:`ClientAddress` (who the client is, behind trusted proxies), :class:`SameOrigin` (other
sites' ``POST``/``PUT``/``DELETE`` refused: 403 ``cross_origin``) and :class:`SecurityHeaders`.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Final
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..ids import ErrorCode
from .bank import Bank
from .config import ServerConfig
from .journal import LogWriter
from .limits import AddressLimiter, AttemptLimiter, Network, client_address, trusted_networks
from .lobby import CODE_LENGTH, Lobby, new_code
from .routes import AppState, routes
from .routes.assets import STATIC, with_lang
from .routes.rooms import room_config, stake_check, tier_json, tier_room
from .routes.state import COOKIE, STATUS, ApiError, error_response, lang_of
from .words import error_text

__all__ = [
    "CODE_LENGTH", "COOKIE", "CSP", "STATIC", "STATUS", "ApiError", "ClientAddress", "Lobby", "SameOrigin",
    "SecurityHeaders", "create_app", "new_code", "room_config", "stake_check", "tier_json", "tier_room", "with_lang",
]

log = logging.getLogger("xuezhan.server")

CSP: Final = (
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; "
    "font-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)


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


STATE_CHANGING: Final = frozenset({"POST", "PUT", "DELETE", "PATCH"})
"""The methods another site's page may not use on this server."""
_DEFAULT_PORTS: Final = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return bytes(value).decode("latin-1")
    return None


def _host_port(netloc: str, default_port: int | None) -> tuple[str, int | None]:
    """``host[:port]`` as (host, port), the port defaulting to ``default_port``."""
    host, port = netloc.strip().lower(), default_port
    if host.startswith("["):  # [::1]:8000
        end = host.find("]")
        rest = host[end + 1:]
        host = host[:end + 1]
        if rest.startswith(":") and rest[1:].isdigit():
            port = int(rest[1:])
    elif host.count(":") == 1:
        name, _, digits = host.partition(":")
        host = name
        port = int(digits) if digits.isdigit() else -1
    return host, port


def same_origin(origin: str, host: str) -> bool:
    """Whether an ``Origin`` header names this server (the ``Host`` it was asked for): the same host
    and port, a missing port being the default of the origin's scheme."""
    parts = urlsplit(origin.strip())
    if parts.scheme not in _DEFAULT_PORTS or not parts.netloc or not host:
        return False
    default = _DEFAULT_PORTS[parts.scheme]
    return _host_port(parts.netloc, default) == _host_port(host, default)


class SameOrigin:
    """Refuses state-changing HTTP requests (``POST``, ``PUT``, ``DELETE``) from another site's page:
    403 ``cross_origin`` when ``Sec-Fetch-Site`` is ``cross-site`` or ``Origin`` names another host
    and port than the request's ``Host`` (or is ``null``). A request with neither header (curl,
    tests, other programs) passes: it is no browser acting for someone."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("method", "GET") in STATE_CHANGING:
            origin = _header(scope, b"origin")
            fetch_site = _header(scope, b"sec-fetch-site")
            cross = (fetch_site or "").strip().lower() == "cross-site"
            if origin is not None and not same_origin(origin, _header(scope, b"host") or ""):
                cross = True
            if cross:
                lang = lang_of(Request(scope))
                text = error_text(ErrorCode.CROSS_ORIGIN, lang, "requests from another site are refused")
                await error_response(403, ErrorCode.CROSS_ORIGIN, text)(scope, receive, send)
                return
        await self.app(scope, receive, send)


class ClientAddress:
    """Sets each request's client address (``scope["client"]``) to the one
    :func:`~xuezhan.server.limits.client_address` finds: the peer's, or, from a trusted proxy, the
    client its ``Forwarded`` / ``X-Forwarded-For`` names. Every limit per address reads it there."""

    def __init__(self, app: ASGIApp, trusted: tuple[Network, ...] = ()) -> None:
        self.app = app
        self.trusted = trusted

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        client = scope.get("client")
        if self.trusted and scope["type"] in ("http", "websocket") and client:
            found = client_address(str(client[0]), self.trusted, forwarded=_header(scope, b"forwarded"),
                                   x_forwarded_for=_header(scope, b"x-forwarded-for"))
            if found != client[0]:
                scope = dict(scope, client=(found, 0))
        await self.app(scope, receive, send)


def writer_for(bank: Bank, config: ServerConfig) -> LogWriter:
    """The tables' writer: in a process of its own (``write_process``) when the bank's database can
    be shared by processes, else on a thread of this one."""
    from .storebank import StoreBank
    from .writer_process import WriterProcess, spec_of

    spec = spec_of(bank) if config.write_process else None
    if spec is None:
        return LogWriter(bank)
    assert isinstance(bank, StoreBank)
    return LogWriter(bank, WriterProcess(spec, fence=bank.store.leases.installed))


def create_app(
    db_url: str | None = None,
    *,
    config: ServerConfig | None = None,
    bank: Bank | None = None,
    node: str | None = None,
) -> Starlette:
    """The web table. ``db_url``: any SQLAlchemy URL (default: the SQLite file of
    :func:`xuezhan.store.default_url`). ``bank``: use this instead of the store (tests). ``node``:
    this server is the node of that name of a cluster on the database (:mod:`xuezhan.server.nodes`)."""
    from .storebank import StoreBank

    config = config or ServerConfig()
    if bank is None:
        bank = StoreBank.open(db_url, starting_coins=config.starting_coins,
                              accounts_per_address=config.accounts_per_address, session_ttl=config.session_ttl)
    the_bank: Bank = bank
    lobby = Lobby(the_bank, config, writer_for(the_bank, config))
    the_node = None
    if node is not None:
        from .nodes import Node

        if not isinstance(bank, StoreBank):
            raise TypeError("a node of a cluster keeps its rooms' leases in the store")
        the_node = Node(node, lobby, bank.store.leases, leaders=bank.store.leaders, queue=bank.store.queue)
    state = AppState(
        bank=the_bank,
        config=config,
        lobby=lobby,
        http_limit=AddressLimiter(config.http_rate_per_second, config.http_rate_burst),
        attempts=AttemptLimiter(config.login_attempts, config.login_window),
        page=(STATIC / "index.html").read_text(encoding="utf-8"),
        address_attempts=AttemptLimiter(config.login_attempts_per_address, config.login_window),
    )

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await lobby.writer.start()
        restored = await (lobby.restore() if the_node is None else the_node.start())
        if restored:
            log.info("carried on %d running match(es)", restored)
        yield
        await (lobby.close() if the_node is None else the_node.close())
        state.reviews.close()
        the_bank.close()

    app = Starlette(routes=routes(state), lifespan=lifespan)
    app.add_middleware(SecurityHeaders)
    app.add_middleware(SameOrigin)
    app.add_middleware(ClientAddress, trusted=trusted_networks(config.trusted_proxies))
    app.state.lobby = lobby
    app.state.bank = the_bank
    app.state.config = config
    app.state.sockets = state.sockets
    return app
