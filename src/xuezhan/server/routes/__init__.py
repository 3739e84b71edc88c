"""The web table's routes, one module a concern, each a few handlers over the app's
:class:`~.state.AppState` and a ``routes(state)`` that binds them to their URLs:
:mod:`.accounts`, :mod:`.wallet`, :mod:`.items` (the item shop), :mod:`.rooms` (the lobby),
:mod:`.queue` (people to play with), :mod:`.history`, :mod:`.tournaments`, :mod:`.assets` (the page
and what it reads) and :mod:`.ws` (the websockets of a table and of the lobby)."""

from __future__ import annotations

from starlette.routing import BaseRoute

from . import accounts, assets, history, items, queue, rooms, tournaments, wallet, ws
from .state import AppState

__all__ = ["AppState", "routes"]


def routes(state: AppState) -> list[BaseRoute]:
    """Every route of the web table, bound to ``state``."""
    return [*assets.routes(state), *accounts.routes(state), *wallet.routes(state), *items.routes(state),
            *rooms.routes(state), *queue.routes(state), *history.routes(state), *tournaments.routes(state),
            *ws.routes(state)]
