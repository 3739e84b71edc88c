"""What every route of the web table shares: the app's state (the bank, the limits, the lobby)
and the one way a handler refuses a request.

A handler is a plain ``async`` function of the :class:`AppState` and the request; :func:`endpoint`
binds it to the state and turns a :class:`~xuezhan.errors.XuezhanError` it raises into the JSON
error ``{"error": {"code", "message"}}``, the message in the request's language.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.websockets import WebSocket

from ... import i18n
from ...errors import XuezhanError
from ...i18n import Lang
from ...ids import ErrorCode
from ...records import loads_text
from ..bank import Account, Bank
from ..config import ServerConfig
from ..history import Reviews
from ..limits import AddressLimiter, AttemptLimiter, retry_seconds
from ..lobby import Lobby
from ..names import name_key
from ..sessions import SessionSockets
from ..words import error_text

COOKIE: Final = "xz_session"
MAX_BODY: Final = 8192

STATUS: Final[Mapping[str, int]] = {
    ErrorCode.BAD_LOGIN: 401, ErrorCode.NOT_SIGNED_IN: 401,
    ErrorCode.INSUFFICIENT_BALANCE: 403,
    ErrorCode.UNKNOWN_ROOM: 404, ErrorCode.UNKNOWN_HAND: 404,
    ErrorCode.NAME_TAKEN: 409, ErrorCode.STAKE_WARNING: 409, ErrorCode.RELIEF_UNAVAILABLE: 409,
    ErrorCode.RATE_LIMITED: 429,
    ErrorCode.TOO_MANY_ROOMS: 503, ErrorCode.DATABASE_ERROR: 503,
}
"""The HTTP status of an error code (400 for any other)."""


class ApiError(XuezhanError):
    """A refused request: its HTTP ``status``, stable ``code``, English detail, and the catalog sentence
    (``server.error.<key>``, ``key`` defaulting to the code) with its ``params``, shown in the
    request's language."""

    def __init__(self, code: ErrorCode, message: str, *, status: int = 400, key: str | None = None,
                 retry_after: int | None = None, **params: Any) -> None:
        super().__init__(code, message)
        self.status = status
        self.key = key or self.code
        self.params = params
        self.retry_after = retry_after
        """Seconds to wait before trying again (``rate_limited``): ``retry_after`` and ``Retry-After``."""


def rate_limited(wait: float, message: str) -> ApiError:
    """A ``rate_limited`` refusal (429) that says how long to wait, in whole seconds."""
    seconds = retry_seconds(wait)
    return ApiError(ErrorCode.RATE_LIMITED, message, status=429, key="rate_limited_wait", retry_after=seconds,
                    seconds=seconds)


def error_response(status: int, code: ErrorCode | str, message: str, *, retry_after: int | None = None) -> JSONResponse:
    error: dict[str, Any] = {"code": code, "message": message}
    if retry_after is None:
        return JSONResponse({"error": error}, status_code=status)
    error["retry_after"] = retry_after
    return JSONResponse({"error": error}, status_code=status, headers={"Retry-After": str(retry_after)})


async def in_thread(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` on a worker thread: the bank's calls block on the database."""
    return await asyncio.to_thread(fn, *args)


def today() -> str:
    return datetime.now(UTC).date().isoformat()


def address(request: Request | WebSocket) -> str:
    """The client's address: the peer's, or the one trusted proxies name (set for every request by
    :class:`xuezhan.server.app.ClientAddress` from :func:`xuezhan.server.limits.client_address`)."""
    return request.client.host if request.client is not None else "?"


async def read_json(request: Request) -> dict[str, Any]:
    """The request's JSON object, at most :data:`MAX_BODY` bytes; raises ``bad_request``, ``too_large``,
    ``bad_json``."""
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        raise XuezhanError(ErrorCode.BAD_REQUEST, "send JSON (Content-Type: application/json)")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise XuezhanError(ErrorCode.TOO_LARGE, "the request is too large")
    try:  # UTF-8 text only; numbers of more than 4,300 digits and lone surrogates are bad_json too
        data = loads_text((body or b"{}").decode("utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        raise XuezhanError(ErrorCode.BAD_JSON, "the request is not valid JSON") from None
    if not isinstance(data, dict):
        raise XuezhanError(ErrorCode.BAD_JSON, "the request must be a JSON object")
    return data


def lang_of(request: Request | WebSocket, account: Account | None = None) -> Lang:
    """The ``lang`` cookie, else the account's choice, else ``Accept-Language``, else zh-CN."""
    choice = request.cookies.get("lang") or (account.lang if account is not None else None)
    return i18n.negotiate(request.headers.get("accept-language"), choice)


@dataclass
class AppState:
    """One server's state, shared by its handlers: the bank, the limits, the open tables and the page."""

    bank: Bank
    config: ServerConfig
    lobby: Lobby
    http_limit: AddressLimiter
    attempts: AttemptLimiter
    page: str
    address_attempts: AttemptLimiter | None = None
    """Sign-in attempts per client address, whatever the name (``login_attempts_per_address``)."""
    sockets: SessionSockets = field(default_factory=SessionSockets)
    """The open websockets of each session, closed when it ends (:mod:`xuezhan.server.sessions`)."""
    reviews: Reviews = field(default_factory=Reviews)
    """The reviews of past hands, worked out on a thread of their own (:mod:`xuezhan.server.history`)."""

    async def current_account(self, request: Request | WebSocket) -> Account | None:
        token = request.cookies.get(COOKIE)
        if not token:
            return None
        account: Account | None = await in_thread(self.bank.account_for_token, token)
        return account

    async def signed_in(self, request: Request) -> Account:
        account = await self.current_account(request)
        if account is None:
            raise ApiError(ErrorCode.NOT_SIGNED_IN, "sign in first", status=401)
        return account

    def limited(self, request: Request) -> None:
        where = address(request)
        if not self.http_limit.allow(where):
            raise rate_limited(self.http_limit.retry_after(where), "too many requests; wait a moment")

    def _attempt_keys(self, request: Request, name: str) -> tuple[tuple[AttemptLimiter, str], ...]:
        where = address(request)
        keys = [(self.attempts, f"name:{name_key(name)}@{where}")]
        if self.address_attempts is not None:
            keys.append((self.address_attempts, f"address:{where}"))
        return tuple(keys)

    def check_attempt(self, request: Request, name: str) -> None:
        """Refuse (``rate_limited``, with the wait) a sign-in for ``name`` from this request's address
        when that name from that address, or that address, has failed too often; counts nothing."""
        wait = max(limiter.wait(key) for limiter, key in self._attempt_keys(request, name))
        if wait > 0:
            raise rate_limited(wait, "too many attempts; wait a few minutes")

    def failed_attempt(self, request: Request, name: str) -> None:
        """Count a failed attempt (a wrong password) on ``name`` from this address and on the address."""
        for limiter, key in self._attempt_keys(request, name):
            limiter.count(key)

    def attempt(self, request: Request, name: str) -> None:
        """Check and count one attempt (making an account counts whether or not it succeeds)."""
        self.check_attempt(request, name)
        self.failed_attempt(request, name)

    async def relief_json(self, account: Account) -> dict[str, Any]:
        config = self.config
        below = account.balance < config.relief_floor
        available = below and not await in_thread(self.bank.relief_taken, account.player, today())
        return {"available": available, "amount": config.relief_amount, "floor": config.relief_floor}

    async def me_json(self, account: Account) -> dict[str, Any]:
        return {"name": account.nickname, "coins": account.balance, "guest": account.guest,
                "lang": account.lang, "relief": await self.relief_json(account)}

    def with_session(self, body: dict[str, Any], token: str) -> Response:
        response = JSONResponse(body)
        response.set_cookie(COOKIE, token, max_age=int(self.config.session_ttl), httponly=True, samesite="strict",
                            secure=self.config.secure_cookies, path="/")
        return response


Handler = Callable[[AppState, Request], Awaitable[Response]]
Endpoint = Callable[[Request], Awaitable[Response]]


def endpoint(state: AppState, fn: Handler) -> Endpoint:
    """``fn`` bound to ``state``, its refusals answered as JSON errors in the request's language."""

    async def wrapper(request: Request) -> Response:
        try:
            return await fn(state, request)
        except XuezhanError as exc:
            lang = lang_of(request)
            retry_after = None
            if isinstance(exc, ApiError):
                status, key, params, retry_after = exc.status, exc.key, dict(exc.params), exc.retry_after
            else:
                status, key, params = STATUS.get(exc.code, 400), exc.code, {}
            if isinstance(params.get("tier"), str):
                params["tier"] = i18n.t(f"server.tier.{params['tier']}", lang)
            return error_response(status, exc.code, error_text(key, lang, exc.message, **params),
                                  retry_after=retry_after)

    wrapper.__name__ = fn.__name__
    wrapper.__doc__ = fn.__doc__
    return wrapper
