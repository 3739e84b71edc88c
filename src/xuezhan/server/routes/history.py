"""A player's finished hands over HTTP: the list, and one hand step by step as their seat saw it."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from ...ids import ErrorCode
from ..bank import PastHand
from ..history import replay_json
from .state import ApiError, AppState, endpoint, in_thread, lang_of


async def history(app: AppState, request: Request) -> Response:
    account = await app.signed_in(request)
    hands = await in_thread(app.bank.history, account.player, 50)
    return JSONResponse({"hands": [h.to_json() for h in hands], "balance": account.balance})


async def past_hand(app: AppState, request: Request) -> Response:
    account = await app.signed_in(request)
    raw = request.path_params["id"]
    found: PastHand | None = None
    if raw.isdigit() and len(raw) < 19:
        found = await in_thread(app.bank.past_hand, account.player, int(raw))
    if found is None:
        raise ApiError(ErrorCode.UNKNOWN_HAND, "no hand of yours has that number", status=404)
    return JSONResponse(await in_thread(replay_json, found, lang_of(request, account)))


def routes(app: AppState) -> list[BaseRoute]:
    return [
        Route("/api/history", endpoint(app, history)),
        Route("/api/history/{id}", endpoint(app, past_hand)),
    ]
