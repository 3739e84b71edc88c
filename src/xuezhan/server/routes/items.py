"""The item shop over HTTP: what it sells at which price and how many of each a player holds
(``GET /api/items``), and buying (``POST /api/items/buy``). The cards are played at a table
(:mod:`xuezhan.server.items`)."""

from __future__ import annotations

from typing import Final

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from ... import vocab
from ...errors import XuezhanError
from ...ids import ErrorCode
from ...match import ItemKind
from ...vocab import Kind
from .state import ApiError, AppState, endpoint, in_thread, lang_of, read_json

MAX_COUNT: Final = 99
"""The most cards of a kind one purchase buys."""


async def items(app: AppState, request: Request) -> Response:
    account = await app.signed_in(request)
    owned: dict[str, int] = await in_thread(app.bank.items, account.player)
    return JSONResponse({"items": [{"kind": str(kind), "price": price, "owned": owned.get(str(kind), 0)}
                                   for kind, price in app.config.item_prices().items()]})


async def buy(app: AppState, request: Request) -> Response:
    account = await app.signed_in(request)
    app.limited(request)
    data = await read_json(request)
    unknown = set(data) - {"kind", "count"}
    if unknown:
        raise XuezhanError(ErrorCode.BAD_REQUEST, f"unknown field(s): {', '.join(sorted(unknown))[:100]}")
    prices = app.config.item_prices()
    kind = data.get("kind")
    if not isinstance(kind, str) or kind not in prices:
        raise XuezhanError(ErrorCode.BAD_ITEM, f"the shop sells {', '.join(prices)}, not {str(kind)[:40]!r}")
    count = data.get("count", 1)
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_COUNT:
        raise XuezhanError(ErrorCode.BAD_AMOUNT, f"count is a number of cards from 1 to {MAX_COUNT}")
    price = prices[ItemKind(kind)]
    try:
        coins, owned = await in_thread(app.bank.buy_items, account.player, kind, count, price)
    except XuezhanError as exc:
        if exc.code != ErrorCode.INSUFFICIENT_BALANCE:
            raise
        fresh = await in_thread(app.bank.account, account.player)
        balance = fresh.balance if fresh is not None else account.balance
        raise ApiError(ErrorCode.INSUFFICIENT_BALANCE, exc.message, status=409, key="item_cost", count=count,
                       card=vocab.name_or_id(Kind.ITEM, kind, lang_of(request, account)), cost=count * price,
                       coins=balance) from None
    return JSONResponse({"coins": coins, "owned": owned})


def routes(app: AppState) -> list[BaseRoute]:
    return [
        Route("/api/items", endpoint(app, items)),
        Route("/api/items/buy", endpoint(app, buy), methods=["POST"]),
    ]
