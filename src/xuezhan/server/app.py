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
  ``GET /api/rooms/{code}``.
- ``GET /api/history``: your finished hands; ``GET /api/history/{id}``: one of them step by step,
  as your seat saw it.
- ``GET /api/vocab``: the names of patterns, extras, ledger reasons, actions, events, item
  cards and error codes in zh-CN, zh-TW and English (:func:`xuezhan.vocab.to_json`).
- ``GET /tiles/{name}.svg``: the tile pictures; ``GET /`` and ``/static/...``: the client.

Websocket ``/ws/{code}`` (``?watch=1`` to watch): see :mod:`xuezhan.server.protocol`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import secrets
import unicodedata
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager, suppress
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect

from .. import i18n, vocab
from ..errors import RulesError, XuezhanError
from ..i18n import LANGS, Lang
from ..match import TIERS, RoomConfig, Tier, best_tier, max_hand_loss, seat_minimum, tier
from ..rules import option_names
from .bank import Account, Bank, PastHand, is_bot
from .config import ServerConfig
from .conn import Conn
from .history import replay_json
from .journal import LogWriter
from .limits import AddressLimiter, AttemptLimiter, TokenBucket
from .names import check_name, check_password, name_key
from .protocol import ProtocolError, error_message, parse_client_message
from .table import Status, Table
from .tiles_svg import svg_for_name
from .words import error_text, wallet_text

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


class ApiError(XuezhanError):
    """A refused request: its HTTP ``status``, stable ``code``, English detail, and the catalog sentence
    (``server.error.<key>``, ``key`` defaulting to the code) with its ``params``, shown in the
    request's language."""

    def __init__(self, code: str, message: str, *, status: int = 400, key: str | None = None,
                 **params: Any) -> None:
        super().__init__(code, message)
        self.status = status
        self.key = key or code
        self.params = params


STATUS: Final = {
    "bad_login": 401, "not_signed_in": 401, "insufficient_balance": 403, "unknown_room": 404, "unknown_hand": 404,
    "name_taken": 409, "stake_warning": 409, "relief_unavailable": 409, "rate_limited": 429,
    "too_many_rooms": 503, "database_error": 503,
}
"""The HTTP status of an error code (400 for any other)."""


def _room_rules(data: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The preset and rule options a lobby request asks for; raises ``bad_room``."""
    preset = data.get("preset", "qq")
    if preset not in ("qq", "chengdu"):
        raise XuezhanError("bad_room", "preset must be 'qq' or 'chengdu'")
    options = data.get("options", {})
    if not isinstance(options, dict) or len(options) > 32:
        raise XuezhanError("bad_room", "options must be an object of rule options")
    unknown = set(options) - ROOM_OPTIONS
    if unknown:
        raise XuezhanError("bad_room", f"unknown rule option(s): {', '.join(sorted(unknown))[:100]}")
    return preset, options


def room_config(data: dict[str, Any], limits: ServerConfig | None = None) -> RoomConfig:
    """The room a lobby request asks for, within the room bounds and the server's ``limits``
    (:meth:`ServerConfig.check_room`); raises :class:`XuezhanError` (``bad_room``)."""
    preset, options = _room_rules(data)
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


def tier_room(data: dict[str, Any], limits: ServerConfig, balance: int) -> tuple[RoomConfig, Tier | None]:
    """The room a lobby request asks for and its tier: ``tier`` (default: the highest the balance
    covers, :func:`~xuezhan.match.best_tier`) with the request's ``preset``, rule ``options`` (not
    the stake: the tier sets it) and ``hands``. A server with ``custom_stakes`` takes a request
    without ``tier`` as a room with its own stake (:func:`room_config`), and no tier."""
    if "tier" not in data and limits.custom_stakes:
        return room_config(data, limits), None
    if any(key in data for key in ("coefficient", "fee")):
        raise XuezhanError("bad_room", "the stake (coefficient and fee) comes from the room's tier")
    raw_tier = data.get("tier")
    chosen = best_tier(balance) if raw_tier is None else tier(raw_tier) if isinstance(raw_tier, str) else None
    if chosen is None:
        raise XuezhanError("bad_tier", "tier is one of novice, junior, middle, senior")
    preset, options = _room_rules(data)
    hands = data.get("hands", 8)
    try:
        room = chosen.room(preset, options, hands)
    except RulesError as exc:
        raise XuezhanError("bad_room", f"rules: {exc.message}") from None
    if max_hand_loss(room.rules) is None:
        raise XuezhanError("bad_room", "a tier's rooms play without blood river (血流成河): a hand's loss is bounded")
    limits.check_room(room)
    return room, chosen


def stake_check(balance: int, room: RoomConfig, room_tier: Tier | None, *, accept_risk: bool) -> ApiError | None:
    """Why a player with ``balance`` may not sit in ``room``: ``insufficient_balance`` under the tier's
    minimum (a room without a tier: its fee, at least one coin), ``stake_warning`` when the worst
    hand could cost more than the balance and the player has not accepted that; else ``None``."""
    need = seat_minimum(room, room_tier)
    if room_tier is None:
        if balance < need:
            return ApiError("insufficient_balance", f"this room needs at least {need} coins", status=403,
                            tier="custom", min_balance=need, coins=balance, count=balance)
        return None
    if balance < need:
        return ApiError("insufficient_balance", f"the {room_tier.id} tier needs at least {room_tier.min_balance} coins",
                        status=403, tier=room_tier.id, min_balance=room_tier.min_balance, coins=balance, count=balance)
    worst = room_tier.max_loss(room.rules)
    if balance < worst and not accept_risk:
        return ApiError("stake_warning", f"one hand of the {room_tier.id} tier can cost up to {worst} coins; "
                                         f"you have {balance}", status=409, tier=room_tier.id, max_loss=worst,
                        coins=balance, count=balance)
    return None


def tier_json(t: Tier, lang: Lang) -> dict[str, Any]:
    return {"id": t.id, "name": i18n.t(f"server.tier.{t.id}", lang), "min_balance": t.min_balance,
            "base_score": t.base_score, "cap_multiple": t.cap_multiple, "coefficient": t.coefficient, "fee": t.fee,
            "max_loss": t.max_loss()}


_HTML_LANG: Final = re.compile(r"<html([^>]*?)\s+lang=\"[^\"]*\"|<html", re.IGNORECASE)


def with_lang(page: str, lang: Lang) -> str:
    """The page with ``<html lang>`` set to ``lang``."""

    def put(match: re.Match[str]) -> str:
        return f'<html{match.group(1) or ""} lang="{lang}"'

    return _HTML_LANG.sub(put, page, count=1)


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

    async def create(self, owner: Account, room: RoomConfig, name: str, *, public: bool, autostart: bool,
                     tier: Tier | None = None) -> Table:
        if len(self.tables) >= self.config.max_rooms:
            raise XuezhanError("too_many_rooms", "the server has as many rooms open as it takes; try later")
        code = new_code()
        while code in self.tables:
            code = new_code()
        meta = {"name": name, "owner": owner.player, "owner_name": owner.nickname, "public": public,
                "tier": tier.id if tier is not None else None}
        await asyncio.to_thread(self.bank.open_room, code, room, meta)
        table = Table(code, name, room, owner, self.bank, self.config, public=public, autostart=autostart,
                      on_close=self._closed, writer=self.writer, tier=tier)
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
) -> Starlette:
    """The web table. ``db_url``: any SQLAlchemy URL (default: the SQLite file of
    :func:`xuezhan.store.default_url`). ``bank``: use this instead of the store (tests)."""
    config = config or ServerConfig()
    if bank is None:
        from .storebank import StoreBank

        bank = StoreBank.open(db_url, starting_coins=config.starting_coins,
                              accounts_per_address=config.accounts_per_address, session_ttl=config.session_ttl)
    the_bank: Bank = bank
    lobby = Lobby(the_bank, config)
    http_limit = AddressLimiter(config.http_rate_per_second, config.http_rate_burst)
    attempts = AttemptLimiter(config.login_attempts, config.login_window)
    page = (STATIC / "index.html").read_text(encoding="utf-8")

    async def in_thread(fn: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.to_thread(fn, *args)

    async def current_account(request: Request | WebSocket) -> Account | None:
        token = request.cookies.get(COOKIE)
        if not token:
            return None
        account: Account | None = await in_thread(the_bank.account_for_token, token)
        return account

    async def signed_in(request: Request) -> Account:
        account = await current_account(request)
        if account is None:
            raise ApiError("not_signed_in", "sign in first", status=401)
        return account

    def lang_of(request: Request | WebSocket, account: Account | None = None) -> Lang:
        """The ``lang`` cookie, else the account's choice, else ``Accept-Language``, else zh-CN."""
        choice = request.cookies.get("lang") or (account.lang if account is not None else None)
        return i18n.negotiate(request.headers.get("accept-language"), choice)

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

    def address(request: Request) -> str:
        return request.client.host if request.client is not None else "?"

    def limited(request: Request) -> None:
        if not http_limit.allow(address(request)):
            raise ApiError("rate_limited", "too many requests; wait a moment", status=429)

    Handler = Callable[[Request], Awaitable[Response]]

    def api(fn: Handler) -> Handler:
        async def wrapper(request: Request) -> Response:
            try:
                return await fn(request)
            except XuezhanError as exc:
                lang = lang_of(request)
                if isinstance(exc, ApiError):
                    status, key, params = exc.status, exc.key, dict(exc.params)
                else:
                    status, key, params = STATUS.get(exc.code, 400), exc.code, {}
                if isinstance(params.get("tier"), str):
                    params["tier"] = i18n.t(f"server.tier.{params['tier']}", lang)
                return _error(status, exc.code, error_text(key, lang, exc.message, **params))

        return wrapper

    def today() -> str:
        return datetime.now(UTC).date().isoformat()

    async def relief_json(account: Account) -> dict[str, Any]:
        below = account.balance < config.relief_floor
        available = below and not await in_thread(the_bank.relief_taken, account.player, today())
        return {"available": available, "amount": config.relief_amount, "floor": config.relief_floor}

    async def me_json(account: Account) -> dict[str, Any]:
        return {"name": account.nickname, "coins": account.balance, "guest": account.guest,
                "lang": account.lang, "relief": await relief_json(account)}

    def with_session(body: dict[str, Any], token: str) -> Response:
        response = JSONResponse(body)
        response.set_cookie(COOKIE, token, max_age=int(config.session_ttl), httponly=True, samesite="strict",
                            secure=config.secure_cookies, path="/")
        return response

    def attempt(request: Request, name: str) -> None:
        if not attempts.allow(f"name:{name_key(name)}", f"address:{address(request)}"):
            raise ApiError("rate_limited", "too many attempts; wait a few minutes", status=429)

    @api
    async def register(request: Request) -> Response:
        data = await read_json(request)
        name = check_name(data.get("name"))
        attempt(request, name)
        password = check_password(data.get("password"))
        account, token = await in_thread(lambda: the_bank.create_account(name, origin=address(request),
                                                                          password=password))
        return with_session(await me_json(account), token)

    @api
    async def login(request: Request) -> Response:
        data = await read_json(request)
        unknown = set(data) - {"name", "password"}
        if unknown:
            raise XuezhanError("bad_request", f"unknown field(s): {', '.join(sorted(unknown))[:100]}")
        name = check_name(data.get("name"))
        attempt(request, name)
        password = data.get("password")
        if password is None:  # a guest
            try:
                account, token = await in_thread(lambda: the_bank.create_account(name, origin=address(request)))
            except XuezhanError as exc:
                if exc.code != "name_taken":
                    raise
                found: Account | None = await in_thread(the_bank.account, name)
                if found is not None and not found.guest:
                    raise ApiError("bad_login", "that name has a password", status=401, key="has_password") from None
                raise
        elif not isinstance(password, str):
            raise XuezhanError("bad_request", "a password is text")
        else:
            account, token = await in_thread(the_bank.login, name, password)
        return with_session(await me_json(account), token)

    @api
    async def set_password(request: Request) -> Response:
        account = await signed_in(request)
        data = await read_json(request)
        attempt(request, account.player)
        password = check_password(data.get("password"))
        old = data.get("old_password")
        if old is not None and not isinstance(old, str):
            raise XuezhanError("bad_request", "old_password is text")
        updated: Account = await in_thread(the_bank.set_password, account.player, password, old)
        return JSONResponse(await me_json(updated))

    @api
    async def logout(request: Request) -> Response:
        token = request.cookies.get(COOKIE)
        if token:
            await in_thread(the_bank.end_session, token)
        response = JSONResponse({})
        response.delete_cookie(COOKIE, path="/")
        return response

    @api
    async def me(request: Request) -> Response:
        account = await signed_in(request)
        body = await me_json(account)
        body["tables"] = [t.code for t in lobby.tables.values()
                          if account.player in t.players and t.status is not Status.CLOSED]
        return JSONResponse(body)

    @api
    async def set_lang(request: Request) -> Response:
        data = await read_json(request)
        raw = data.get("lang")
        if not isinstance(raw, str) or raw not in LANGS:
            raise XuezhanError("bad_lang", "lang is zh-CN, zh-TW or en")
        account = await current_account(request)
        if account is not None:
            await in_thread(the_bank.set_lang, account.player, raw)
        response = JSONResponse({"lang": raw})
        response.set_cookie("lang", raw, max_age=365 * 24 * 3600, samesite="lax", secure=config.secure_cookies,
                            path="/")
        return response

    @api
    async def tiers(request: Request) -> Response:
        lang = lang_of(request, await current_account(request))
        return JSONResponse({"tiers": [tier_json(t, lang) for t in TIERS]})

    @api
    async def wallet(request: Request) -> Response:
        account = await signed_in(request)
        lang = lang_of(request, account)
        entries = await in_thread(the_bank.wallet, account.player, 100)
        ledger = [{"at": e.at, "delta": e.delta, "reason": e.kind, "room": e.room, "hand_no": e.hand_no,
                   "text": wallet_text(e, lang)} for e in entries]
        return JSONResponse({"coins": account.balance, "relief": await relief_json(account), "ledger": ledger})

    @api
    async def relief(request: Request) -> Response:
        account = await signed_in(request)
        refused = ApiError("relief_unavailable", "relief is for balances under the floor, once a day", status=409,
                           floor=config.relief_floor, count=config.relief_floor)
        if account.balance >= config.relief_floor:
            raise refused
        if not await in_thread(the_bank.grant_relief, account.player, today(), config.relief_amount):
            raise refused
        after: Account | None = await in_thread(the_bank.account, account.player)
        coins = after.balance if after is not None else account.balance + config.relief_amount
        return JSONResponse({"granted": config.relief_amount, "coins": coins})

    @api
    async def rooms(request: Request) -> Response:
        return JSONResponse({"rooms": lobby.listing()})

    async def _create(request: Request, quick: bool) -> Response:
        account = await signed_in(request)
        limited(request)
        data = await read_json(request)
        unknown = set(data) - {"name", "preset", "options", "coefficient", "fee", "hands", "public", "tier",
                               "accept_risk"}
        if unknown:
            raise XuezhanError("bad_room", f"unknown field(s): {', '.join(sorted(unknown))[:100]}")
        accept_risk = data.pop("accept_risk", False)
        if not isinstance(accept_risk, bool):
            raise XuezhanError("bad_room", "accept_risk must be true or false")
        room, room_tier = tier_room(data, config, account.balance)
        lang = lang_of(request, account)
        raw_name = data.get("name") or i18n.t("server.table_name", lang, name=account.nickname)
        if not isinstance(raw_name, str):
            raise XuezhanError("bad_room", "name must be text")
        name = "".join(ch for ch in raw_name.strip() if unicodedata.category(ch)[0] != "C")[:40] or "table"
        public = data.get("public", not quick)
        if not isinstance(public, bool):
            raise XuezhanError("bad_room", "public must be true or false")
        refused = stake_check(account.balance, room, room_tier, accept_risk=accept_risk)
        if refused is not None:
            raise refused
        table = await lobby.create(account, room, name, public=public and not quick, autostart=quick, tier=room_tier)
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
            raise ApiError("unknown_room", "no open room has that code", status=404)
        return JSONResponse({"room": table.summary()})

    @api
    async def history(request: Request) -> Response:
        account = await signed_in(request)
        hands = await in_thread(the_bank.history, account.player, 50)
        return JSONResponse({"hands": [h.to_json() for h in hands], "balance": account.balance})

    @api
    async def past_hand(request: Request) -> Response:
        account = await signed_in(request)
        raw = request.path_params["id"]
        found: PastHand | None = None
        if raw.isdigit() and len(raw) < 19:
            found = await in_thread(the_bank.past_hand, account.player, int(raw))
        if found is None:
            raise ApiError("unknown_hand", "no hand of yours has that number", status=404)
        return JSONResponse(await in_thread(replay_json, found, lang_of(request, account)))

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
        lang = lang_of(request)
        return HTMLResponse(with_lang(page, lang), headers={"Cache-Control": "no-cache",
                                                            "Vary": "Accept-Language, Cookie"})

    async def table_socket(websocket: WebSocket) -> None:
        origin = websocket.headers.get("origin")
        host = websocket.headers.get("host", "")
        if origin is not None and origin.split("://", 1)[-1] != host:
            await websocket.close(code=1008)  # another site's page may not open our sockets
            return
        await websocket.accept()
        account = await current_account(websocket)
        lang = lang_of(websocket, account)
        if account is None:
            message = error_text("not_signed_in", lang, "sign in first")
            await websocket.send_text(json.dumps(error_message("not_signed_in", message)))
            await websocket.close(code=4401)
            return
        table = lobby.get(websocket.path_params["code"])
        if table is None:
            message = error_text("unknown_room", lang, "no open room has that code")
            await websocket.send_text(json.dumps(error_message("unknown_room", message)))
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
                        raise ProtocolError("bad_message", "messages are JSON text")
                    if not bucket.take():
                        raise ProtocolError("rate_limited", "too many messages; slow down")
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
        Route("/api/register", register, methods=["POST"]),
        Route("/api/login", login, methods=["POST"]),
        Route("/api/password", set_password, methods=["POST"]),
        Route("/api/logout", logout, methods=["POST"]),
        Route("/api/me", me),
        Route("/api/lang", set_lang, methods=["POST"]),
        Route("/api/tiers", tiers),
        Route("/api/wallet", wallet),
        Route("/api/relief", relief, methods=["POST"]),
        Route("/api/rooms", rooms),
        Route("/api/rooms", create_room, methods=["POST"]),
        Route("/api/quickstart", quickstart, methods=["POST"]),
        Route("/api/rooms/{code}", room_info),
        Route("/api/history", history),
        Route("/api/history/{id}", past_hand),
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
