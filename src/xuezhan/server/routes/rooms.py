"""The lobby over HTTP: the tiers, the public rooms, creating a room (or a quick table with three
bots), one room by code, and ``/r/CODE`` (the page, opening that room); and the rules a room
request is held to (the room bounds of docs/options.md, the server's limits, the tier's stake and
minimum balance). A friends' room (``POST /api/rooms`` without ``public: true``) has a six-digit
code (:func:`~xuezhan.server.lobby.new_short_code`).

An account has at most ``[server] max_open_rooms_per_account`` rooms of its making open
(:meth:`~xuezhan.server.lobby.Lobby.open_rooms`): one more is refused, 429 ``too_many_open_rooms``,
except that quick start then sends the player back to their newest quick table still open
(the same ``{"code", "room"}``), as a player pressing it again expects."""

from __future__ import annotations

import dataclasses
import math
import unicodedata
from typing import Any, Final

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Route

from ... import i18n
from ...errors import RulesError, XuezhanError
from ...i18n import Lang
from ...ids import ErrorCode
from ...match import TIERS, RoomConfig, Tier, best_tier, max_hand_loss, seat_minimum, tier
from ...rules import option_names
from ..config import ServerConfig
from .assets import with_lang
from .state import ApiError, AppState, endpoint, in_thread, lang_of, read_json

ROOM_OPTIONS: Final = frozenset(option_names()) - {"fan"}
ROOM_NUMBERS: Final = ("coefficient", "fee", "hands")


def _room_rules(data: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The preset and rule options a lobby request asks for; raises ``bad_room``."""
    preset = data.get("preset", "qq")
    if preset not in ("qq", "chengdu"):
        raise XuezhanError(ErrorCode.BAD_ROOM, "preset must be 'qq' or 'chengdu'")
    options = data.get("options", {})
    if not isinstance(options, dict) or len(options) > 32:
        raise XuezhanError(ErrorCode.BAD_ROOM, "options must be an object of rule options")
    unknown = set(options) - ROOM_OPTIONS
    if unknown:
        raise XuezhanError(ErrorCode.BAD_ROOM, f"unknown rule option(s): {', '.join(sorted(unknown))[:100]}")
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
        raise XuezhanError(ErrorCode.BAD_ROOM, "the stake (coefficient and fee) comes from the room's tier")
    raw_tier = data.get("tier")
    chosen = best_tier(balance) if raw_tier is None else tier(raw_tier) if isinstance(raw_tier, str) else None
    if chosen is None:
        raise XuezhanError(ErrorCode.BAD_TIER, "tier is one of novice, junior, middle, senior")
    preset, options = _room_rules(data)
    hands = data.get("hands", 8)
    try:
        room = chosen.room(preset, options, hands)
    except RulesError as exc:
        raise XuezhanError(ErrorCode.BAD_ROOM, f"rules: {exc.message}") from None
    if max_hand_loss(room.rules) is None:
        raise XuezhanError(ErrorCode.BAD_ROOM,
                           "a tier's rooms play without blood river (血流成河): a hand's loss is bounded")
    limits.check_room(room)
    return room, chosen


def stake_check(balance: int, room: RoomConfig, room_tier: Tier | None, *, accept_risk: bool) -> ApiError | None:
    """Why a player with ``balance`` may not sit in ``room``: ``insufficient_balance`` under the tier's
    minimum (a room without a tier: its fee, at least one coin), ``stake_warning`` when the worst
    hand could cost more than the balance and the player has not accepted that; else ``None``."""
    need = seat_minimum(room, room_tier)
    if room_tier is None:
        if balance < need:
            return ApiError(ErrorCode.INSUFFICIENT_BALANCE, f"this room needs at least {need} coins", status=403,
                            tier="custom", min_balance=need, coins=balance, count=balance)
        return None
    if balance < need:
        return ApiError(ErrorCode.INSUFFICIENT_BALANCE,
                        f"the {room_tier.id} tier needs at least {room_tier.min_balance} coins",
                        status=403, tier=room_tier.id, min_balance=room_tier.min_balance, coins=balance, count=balance)
    worst = room_tier.max_loss(room.rules)
    if balance < worst and not accept_risk:
        return ApiError(ErrorCode.STAKE_WARNING, f"one hand of the {room_tier.id} tier can cost up to {worst} coins; "
                                                 f"you have {balance}", status=409, tier=room_tier.id, max_loss=worst,
                        coins=balance, count=balance)
    return None


def tier_json(t: Tier, lang: Lang) -> dict[str, Any]:
    return {"id": t.id, "name": i18n.t(f"server.tier.{t.id}", lang), "min_balance": t.min_balance,
            "base_score": t.base_score, "cap_multiple": t.cap_multiple, "coefficient": t.coefficient, "fee": t.fee,
            "max_loss": t.max_loss()}


async def tiers(app: AppState, request: Request) -> Response:
    lang = lang_of(request, await app.current_account(request))
    return JSONResponse({"tiers": [tier_json(t, lang) for t in TIERS]})


async def rooms(app: AppState, request: Request) -> Response:
    node = app.lobby.node  # a node of a cluster lists every node's rooms, from the database
    return JSONResponse({"rooms": app.lobby.listing() if node is None else await in_thread(node.listing)})


async def _create(app: AppState, request: Request, quick: bool) -> Response:
    account = await app.signed_in(request)
    app.limited(request)
    data = await read_json(request)
    unknown = set(data) - {"name", "preset", "options", "coefficient", "fee", "hands", "public", "tier",
                           "accept_risk", "items"}
    if unknown:
        raise XuezhanError(ErrorCode.BAD_ROOM, f"unknown field(s): {', '.join(sorted(unknown))[:100]}")
    accept_risk = data.pop("accept_risk", False)
    if not isinstance(accept_risk, bool):
        raise XuezhanError(ErrorCode.BAD_ROOM, "accept_risk must be true or false")
    items = data.pop("items", False)
    if not isinstance(items, bool):
        raise XuezhanError(ErrorCode.BAD_ROOM, "items must be true or false")
    room, room_tier = tier_room(data, app.config, account.balance)
    if items:  # item cards at this table (docs/rules.md §13)
        room = dataclasses.replace(room, items_allowed=True)
    lang = lang_of(request, account)
    raw_name = data.get("name") or i18n.t("server.table_name", lang, name=account.nickname)
    if not isinstance(raw_name, str):
        raise XuezhanError(ErrorCode.BAD_ROOM, "name must be text")
    name = "".join(ch for ch in raw_name.strip() if unicodedata.category(ch)[0] != "C")[:40] or "table"
    public = data.get("public", not quick)
    if not isinstance(public, bool):
        raise XuezhanError(ErrorCode.BAD_ROOM, "public must be true or false")
    lobby = app.lobby
    if quick:  # back to the quick table they have when they may open no other, on whichever node it runs
        mine = lobby.quick_table_of(account.player)
        found = None if mine is None else mine.summary()
        if found is None and lobby.node is not None:
            found = await in_thread(lobby.node.quick_room, account.player)
        if found is not None:  # the rooms they have open are counted only when there is one to go back to
            count = len(lobby.open_rooms(account.player))
            if lobby.node is not None:
                count += (await in_thread(lobby.node.counts, account.player))[1]
            if count >= app.config.max_open_rooms_per_account:
                return JSONResponse({"code": found["code"], "room": found})
    refused = stake_check(account.balance, room, room_tier, accept_risk=accept_risk)
    if refused is not None:
        raise refused
    try:
        table = await lobby.create(account, room, name, public=public and not quick, autostart=quick, tier=room_tier,
                                   short_code=not quick and not public)
    except XuezhanError as exc:
        if exc.code != ErrorCode.TOO_MANY_OPEN_ROOMS:
            raise
        raise open_rooms_error(app.config, exc.message) from None
    return JSONResponse({"code": table.code, "room": table.summary()})


def open_rooms_error(config: ServerConfig, message: str) -> ApiError:
    """429 ``too_many_open_rooms``, its sentence with the limit and the minutes a room nobody comes
    to waits."""
    limit = config.max_open_rooms_per_account
    minutes = max(1, math.ceil(min(config.waiting_room_timeout, config.room_idle_timeout) / 60))
    return ApiError(ErrorCode.TOO_MANY_OPEN_ROOMS, message, status=429, limit=limit, minutes=minutes, count=limit)


async def create_room(app: AppState, request: Request) -> Response:
    return await _create(app, request, quick=False)


async def quickstart(app: AppState, request: Request) -> Response:
    return await _create(app, request, quick=True)


async def _summary(app: AppState, code: str) -> dict[str, Any] | None:
    """What the lobby shows of open room ``code``: this server's table, or another node's room."""
    table = app.lobby.get(code)
    if table is not None:
        return table.summary()
    node = app.lobby.node
    return None if node is None or not isinstance(code, str) else await in_thread(node.summary, code)


async def room_info(app: AppState, request: Request) -> Response:
    summary = await _summary(app, request.path_params["code"])
    if summary is None:
        raise ApiError(ErrorCode.UNKNOWN_ROOM, "no open room has that code", status=404)
    return JSONResponse({"room": summary})


async def room_page(app: AppState, request: Request) -> Response:
    """``/r/CODE``: the page (its router opens the room); 404, with the page still, for no open room."""
    found = await _summary(app, request.path_params["code"]) is not None
    return HTMLResponse(with_lang(app.page, lang_of(request)), status_code=200 if found else 404,
                        headers={"Cache-Control": "no-cache", "Vary": "Accept-Language, Cookie"})


def routes(app: AppState) -> list[BaseRoute]:
    return [
        Route("/r/{code}", endpoint(app, room_page)),
        Route("/api/tiers", endpoint(app, tiers)),
        Route("/api/rooms", endpoint(app, rooms)),
        Route("/api/rooms", endpoint(app, create_room), methods=["POST"]),
        Route("/api/quickstart", endpoint(app, quickstart), methods=["POST"]),
        Route("/api/rooms/{code}", endpoint(app, room_info)),
    ]
