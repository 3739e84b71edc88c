"""A player's finished hands over HTTP: the list, one hand step by step as their seat saw it, and the
review of their own decisions in it."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from ...ids import ErrorCode
from ..bank import Account, PastHand
from ..history import replay_json, review_json
from .state import ApiError, AppState, endpoint, in_thread, lang_of


async def history(app: AppState, request: Request) -> Response:
    account = await app.signed_in(request)
    hands = await in_thread(app.bank.history, account.player, 50)
    return JSONResponse({"hands": [h.to_json() for h in hands], "balance": account.balance})


async def _own_hand(app: AppState, request: Request) -> tuple[PastHand, Account]:
    """The signed-in player's past hand named in the path, else 404 ``unknown_hand``."""
    account = await app.signed_in(request)
    raw = request.path_params["id"]
    found: PastHand | None = None
    if raw.isdigit() and len(raw) < 19:
        found = await in_thread(app.bank.past_hand, account.player, int(raw))
    if found is None:
        raise ApiError(ErrorCode.UNKNOWN_HAND, "no hand of yours has that number", status=404)
    return found, account


async def past_hand(app: AppState, request: Request) -> Response:
    found, account = await _own_hand(app, request)
    return JSONResponse(await in_thread(replay_json, found, lang_of(request, account)))


async def past_review(app: AppState, request: Request) -> Response:
    found, account = await _own_hand(app, request)
    review = await app.reviews.review(found)
    return JSONResponse(review_json(found, review, lang_of(request, account)))


def routes(app: AppState) -> list[BaseRoute]:
    return [
        Route("/api/history", endpoint(app, history)),
        Route("/api/history/{id}", endpoint(app, past_hand)),
        Route("/api/history/{id}/review", endpoint(app, past_review)),
    ]
