"""Accounts over HTTP: register, sign in (with a password, or as a guest), change the password,
sign out, who am I, the language, and what the player chose for the page (``/api/settings``).
Sessions live in the database; the cookie holds the token.

Wrong passwords are counted per name from one client address and per address
(:meth:`AppState.check_attempt`): a stranger's guesses never lock the owner out from elsewhere.
A password change ends the account's other sessions, and logout this one; either closes the
ended sessions' websockets at once (:mod:`xuezhan.server.sessions`)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from ...errors import XuezhanError
from ...i18n import LANGS
from ...ids import ErrorCode
from ..bank import Account, Settings
from ..limits import retry_seconds
from ..names import check_name, check_password
from ..table import Status
from .state import COOKIE, ApiError, AppState, address, endpoint, in_thread, read_json


def _next_utc_day() -> float:
    """Seconds until the next UTC day, when an address may make accounts again."""
    now = datetime.now(UTC)
    return (now.replace(hour=0, minute=0, second=0, microsecond=0) + timedelta(days=1) - now).total_seconds()


async def _create(app: AppState, request: Request, name: str, password: str | None) -> tuple[Account, str]:
    """A new account from this request's address; past the address's daily limit, ``rate_limited``
    with the wait until the next UTC day."""
    try:
        made: tuple[Account, str] = await in_thread(
            lambda: app.bank.create_account(name, origin=address(request), password=password))
    except XuezhanError as exc:
        if exc.code != ErrorCode.RATE_LIMITED or isinstance(exc, ApiError):
            raise
        seconds = retry_seconds(_next_utc_day())
        raise ApiError(ErrorCode.RATE_LIMITED, exc.message, status=429, key="too_many_accounts",
                       retry_after=seconds) from None
    return made


async def register(app: AppState, request: Request) -> Response:
    data = await read_json(request)
    name = check_name(data.get("name"))
    app.attempt(request, name)
    password = check_password(data.get("password"))
    account, token = await _create(app, request, name, password)
    return app.with_session(await app.me_json(account), token)


async def login(app: AppState, request: Request) -> Response:
    data = await read_json(request)
    unknown = set(data) - {"name", "password"}
    if unknown:
        raise XuezhanError(ErrorCode.BAD_REQUEST, f"unknown field(s): {', '.join(sorted(unknown))[:100]}")
    name = check_name(data.get("name"))
    password = data.get("password")
    if password is None:  # a guest
        app.attempt(request, name)
        try:
            account, token = await _create(app, request, name, None)
        except XuezhanError as exc:
            if exc.code != ErrorCode.NAME_TAKEN:
                raise
            found: Account | None = await in_thread(app.bank.account, name)
            if found is not None and not found.guest:
                raise ApiError(ErrorCode.BAD_LOGIN, "that name has a password", status=401,
                               key="has_password") from None
            raise
    elif not isinstance(password, str):
        raise XuezhanError(ErrorCode.BAD_REQUEST, "a password is text")
    else:
        app.check_attempt(request, name)
        try:
            account, token = await in_thread(app.bank.login, name, password)
        except XuezhanError as exc:
            if exc.code == ErrorCode.BAD_LOGIN:
                app.failed_attempt(request, name)
            raise
    return app.with_session(await app.me_json(account), token)


async def set_password(app: AppState, request: Request) -> Response:
    account = await app.signed_in(request)
    data = await read_json(request)
    app.check_attempt(request, account.player)
    password = check_password(data.get("password"))
    old = data.get("old_password")
    if old is not None and not isinstance(old, str):
        raise XuezhanError(ErrorCode.BAD_REQUEST, "old_password is text")
    try:
        updated: Account = await in_thread(app.bank.set_password, account.player, password, old)
    except XuezhanError as exc:
        if exc.code == ErrorCode.BAD_LOGIN:
            app.failed_attempt(request, account.player)
        raise
    # every other session of the account ends, and its sockets close; this one goes on
    token = request.cookies.get(COOKIE)
    await in_thread(app.bank.end_other_sessions, account.player, token)
    app.sockets.end_others(account.player, token)
    return JSONResponse(await app.me_json(updated))


async def logout(app: AppState, request: Request) -> Response:
    """End this session and close its sockets. No body, or JSON: what a form sends (its content
    types) is ``bad_request``, so no page can sign a player out by posting a form (other sites'
    requests are refused before this, too: :class:`xuezhan.server.app.SameOrigin`)."""
    if request.headers.get("content-type"):
        await read_json(request)
    token = request.cookies.get(COOKIE)
    if token:
        await in_thread(app.bank.end_session, token)
        app.sockets.end(token)
    response = JSONResponse({})
    response.delete_cookie(COOKIE, path="/")
    return response


async def me(app: AppState, request: Request) -> Response:
    account = await app.signed_in(request)
    body = await app.me_json(account)
    body["tables"] = [t.code for t in app.lobby.tables.values()
                      if account.player in t.players and t.status is not Status.CLOSED]
    return JSONResponse(body)


async def set_lang(app: AppState, request: Request) -> Response:
    data = await read_json(request)
    raw = data.get("lang")
    if not isinstance(raw, str) or raw not in LANGS:
        raise XuezhanError(ErrorCode.BAD_LANG, "lang is zh-CN, zh-TW or en")
    account = await app.current_account(request)
    if account is not None:
        await in_thread(app.bank.set_lang, account.player, raw)
    response = JSONResponse({"lang": raw})
    response.set_cookie("lang", raw, max_age=365 * 24 * 3600, samesite="lax", secure=app.config.secure_cookies,
                        path="/")
    return response


async def get_settings(app: AppState, request: Request) -> Response:
    account = await app.signed_in(request)
    settings: Settings = await in_thread(app.bank.settings, account.player)
    return JSONResponse(settings.to_json())


def read_settings(data: dict[str, Any]) -> Settings:
    """The settings a ``PUT /api/settings`` body asks for: exactly ``{"mute": true|false}``, else
    ``bad_setting`` (and nothing is kept)."""
    unknown = set(data) - {"mute"}
    if unknown:
        raise XuezhanError(ErrorCode.BAD_SETTING, f"unknown setting(s): {', '.join(sorted(unknown))[:100]}")
    mute = data.get("mute")
    if not isinstance(mute, bool):
        raise XuezhanError(ErrorCode.BAD_SETTING, "mute is true or false")
    return Settings(mute=mute)


async def put_settings(app: AppState, request: Request) -> Response:
    account = await app.signed_in(request)
    settings = read_settings(await read_json(request))
    saved: Settings = await in_thread(app.bank.save_settings, account.player, settings)
    return JSONResponse(saved.to_json())


def routes(app: AppState) -> list[BaseRoute]:
    return [
        Route("/api/register", endpoint(app, register), methods=["POST"]),
        Route("/api/login", endpoint(app, login), methods=["POST"]),
        Route("/api/password", endpoint(app, set_password), methods=["POST"]),
        Route("/api/logout", endpoint(app, logout), methods=["POST"]),
        Route("/api/me", endpoint(app, me)),
        Route("/api/lang", endpoint(app, set_lang), methods=["POST"]),
        Route("/api/settings", endpoint(app, get_settings), methods=["GET"]),
        Route("/api/settings", endpoint(app, put_settings), methods=["PUT"]),
    ]
