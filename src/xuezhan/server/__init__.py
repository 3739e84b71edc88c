"""The web table (``xuezhan serve``): an ASGI app with a lobby, tables over websockets and
a browser client of its own (plain HTML, CSS and JavaScript; tiles drawn as SVG here).

The package's two names load on first use, so that a module of the package (the writer
process's child, for one) can be imported without the whole app and Starlette."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .app import create_app
    from .config import ServerConfig

__all__ = ["ServerConfig", "create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from .app import create_app

        return create_app
    if name == "ServerConfig":
        from .config import ServerConfig

        return ServerConfig
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
