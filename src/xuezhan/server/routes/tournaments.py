"""Tournaments over HTTP (:mod:`xuezhan.server.tournaments`): ``GET /api/tournaments`` lists those
open and running (then those ended lately), ``GET /api/tournaments/{id}`` gives one with its
standings and the round's tables, ``POST /api/tournaments/{id}/join`` enters the signed-in player
and ``DELETE`` on the same path takes the entry back, before the start; both answer
``{"id", "entrants"}``. ``{id}`` is a tournament's id, or a config's id for the next one it holds.

On a node of a cluster that does not run the tournaments (one node does, :mod:`xuezhan.server.nodes`)
each request is redirected (307, method and body kept) to ``/n/NAME/`` the same path, which the
balancer routes to the node that does; while none does (for a few seconds after it died) it is
refused with ``database_error`` (503, ``Retry-After: 1``)."""

from __future__ import annotations

import asyncio
from typing import Final

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from ...errors import XuezhanError
from ...ids import ErrorCode
from ..nodes import TOURNAMENTS
from .state import ApiError, AppState, Handler, endpoint

REFUSALS: Final[dict[str, int]] = {
    ErrorCode.UNKNOWN_TOURNAMENT: 404,
    ErrorCode.TOURNAMENT_CLOSED: 409,
    ErrorCode.TOURNAMENT_FULL: 409,
    ErrorCode.NO_TICKET: 409,
    ErrorCode.INSUFFICIENT_BALANCE: 403,
}


def _refusal(app: AppState, ident: str, exc: XuezhanError) -> ApiError:
    """The director's refusal as the request's answer (an entry the balance cannot pay says how much)."""
    code = ErrorCode(exc.code)
    status = REFUSALS.get(code, 400)
    held = app.lobby.tournaments.find(ident)
    if code == ErrorCode.INSUFFICIENT_BALANCE and held is not None and isinstance(held.entry, int):
        return ApiError(code, exc.message, status=status, key="tournament_entry", count=held.entry)
    return ApiError(code, exc.message, status=status)


async def listing(app: AppState, request: Request) -> Response:
    account = await app.current_account(request)
    return JSONResponse(app.lobby.tournaments.listing(account.player if account is not None else None))


async def one(app: AppState, request: Request) -> Response:
    account = await app.current_account(request)
    held = await app.lobby.tournaments.lookup(request.path_params["id"])
    if held is None:
        raise ApiError(ErrorCode.UNKNOWN_TOURNAMENT, "no tournament has that id", status=404)
    return JSONResponse(held.detail(account.player if account is not None else None))


async def join(app: AppState, request: Request) -> Response:
    account = await app.signed_in(request)
    app.limited(request)
    try:
        held = await app.lobby.tournaments.join(account, request.path_params["id"])
    except XuezhanError as exc:
        raise _refusal(app, request.path_params["id"], exc) from None
    return JSONResponse({"id": held.key, "entrants": list(held.entrants)})


async def leave(app: AppState, request: Request) -> Response:
    account = await app.signed_in(request)
    try:
        held = await app.lobby.tournaments.leave(account, request.path_params["id"])
    except XuezhanError as exc:
        raise _refusal(app, request.path_params["id"], exc) from None
    return JSONResponse({"id": held.key, "entrants": list(held.entrants)})


def at_leader(handler: Handler) -> Handler:
    """``handler`` where the tournaments run: here, or by a redirect to the node that runs them."""

    async def routed(app: AppState, request: Request) -> Response:
        node = app.lobby.node
        if node is None or node.leads_now(TOURNAMENTS):
            return await handler(app, request)
        leader = await asyncio.to_thread(node.leader, TOURNAMENTS)
        if leader is None or leader == node.name:
            raise ApiError(ErrorCode.DATABASE_ERROR, "the tournaments are being taken up by another node; try again",
                           status=503, retry_after=1)
        query = f"?{request.url.query}" if request.url.query else ""
        return RedirectResponse(f"/n/{leader}{request.url.path}{query}", status_code=307)

    return routed


def routes(app: AppState) -> list[BaseRoute]:
    return [
        Route("/api/tournaments", endpoint(app, at_leader(listing))),
        Route("/api/tournaments/{id}", endpoint(app, at_leader(one))),
        Route("/api/tournaments/{id}/join", endpoint(app, at_leader(join)), methods=["POST"]),
        Route("/api/tournaments/{id}/join", endpoint(app, at_leader(leave)), methods=["DELETE"]),
    ]
