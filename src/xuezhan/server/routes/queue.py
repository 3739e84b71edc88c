"""The queue over HTTP (:mod:`xuezhan.server.matchmaking`): ``POST /api/queue`` ``{"tier", "preset",
"exchange_three", "accept_risk"}`` joins it (each field optional: the highest tier the balance
covers, ``qq``, 换三张 on), ``DELETE /api/queue`` leaves it, ``GET /api/queue`` says whether the
player waits and the code of the table they were seated at (``table``, else ``null``).

A request is held to the same rules as a quick start (the tier's stake, minimum balance and
``stake_warning``); a bad one is refused and leaves the queue as it was."""

from __future__ import annotations

from typing import Final

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from ...errors import XuezhanError
from ...ids import ErrorCode
from ...match import best_tier
from ..matchmaking import QueueKey
from .rooms import stake_check, tier_room
from .state import AppState, endpoint, lang_of, read_json

QUEUE_FIELDS: Final = frozenset({"tier", "preset", "exchange_three", "accept_risk"})
EXCHANGE_THREE: Final = "random"
"""The 换三张 of a queue table that plays it: the dice choose the direction each hand (as the
online rooms do)."""


async def join(app: AppState, request: Request) -> Response:
    account = await app.signed_in(request)
    app.limited(request)
    data = await read_json(request)
    unknown = set(data) - QUEUE_FIELDS
    if unknown:
        raise XuezhanError(ErrorCode.BAD_REQUEST, f"unknown field(s): {', '.join(sorted(unknown))[:100]}")
    exchange = data.get("exchange_three", True)
    accept_risk = data.get("accept_risk", False)
    for name, value in (("exchange_three", exchange), ("accept_risk", accept_risk)):
        if not isinstance(value, bool):
            raise XuezhanError(ErrorCode.BAD_REQUEST, f"{name} must be true or false")
    raw_tier = data.get("tier", best_tier(account.balance).id)
    preset = data.get("preset", "qq")
    asked = {"tier": raw_tier, "preset": preset,
             "options": {"exchange_three": EXCHANGE_THREE if exchange else "none"}}
    room, room_tier = tier_room(asked, app.config, account.balance)
    assert room_tier is not None  # a request with a tier
    refused = stake_check(account.balance, room, room_tier, accept_risk=accept_risk)
    if refused is not None:
        raise refused
    key = QueueKey(room_tier.id, room.rules.preset_name, exchange)
    await app.lobby.queue.join(account, key, room, room_tier, lang_of(request, account))
    return JSONResponse({"queued": True})


async def leave(app: AppState, request: Request) -> Response:
    account = await app.signed_in(request)
    await app.lobby.queue.leave(account.player)
    return JSONResponse({"queued": False})


async def status(app: AppState, request: Request) -> Response:
    account = await app.signed_in(request)
    queued, table = await app.lobby.queue.state(account.player)
    return JSONResponse({"queued": queued, "table": table})


def routes(app: AppState) -> list[BaseRoute]:
    return [
        Route("/api/queue", endpoint(app, status)),
        Route("/api/queue", endpoint(app, join), methods=["POST"]),
        Route("/api/queue", endpoint(app, leave), methods=["DELETE"]),
    ]
