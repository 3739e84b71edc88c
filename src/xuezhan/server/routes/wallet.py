"""Coins over HTTP: the wallet's lines in the player's words, and the daily relief."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from ...ids import ErrorCode
from ..bank import Account
from ..words import wallet_text
from .state import ApiError, AppState, endpoint, in_thread, lang_of, today


async def wallet(app: AppState, request: Request) -> Response:
    account = await app.signed_in(request)
    lang = lang_of(request, account)
    entries = await in_thread(app.bank.wallet, account.player, 100)
    ledger = [{"at": e.at, "delta": e.delta, "reason": e.kind, "room": e.room, "hand_no": e.hand_no,
               "text": wallet_text(e, lang)} for e in entries]
    return JSONResponse({"coins": account.balance, "relief": await app.relief_json(account), "ledger": ledger})


async def relief(app: AppState, request: Request) -> Response:
    config = app.config
    account = await app.signed_in(request)
    refused = ApiError(ErrorCode.RELIEF_UNAVAILABLE, "relief is for balances under the floor, once a day", status=409,
                       floor=config.relief_floor, count=config.relief_floor)
    if account.balance >= config.relief_floor:
        raise refused
    if not await in_thread(app.bank.grant_relief, account.player, today(), config.relief_amount):
        raise refused
    after: Account | None = await in_thread(app.bank.account, account.player)
    coins = after.balance if after is not None else account.balance + config.relief_amount
    return JSONResponse({"granted": config.relief_amount, "coins": coins})


def routes(app: AppState) -> list[BaseRoute]:
    return [
        Route("/api/wallet", endpoint(app, wallet)),
        Route("/api/relief", endpoint(app, relief), methods=["POST"]),
    ]
