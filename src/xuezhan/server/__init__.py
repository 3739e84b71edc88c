"""The web table (``xuezhan serve``): an ASGI app with a lobby, tables over websockets and
a browser client of its own (plain HTML, CSS and JavaScript; tiles drawn as SVG here)."""

from .app import create_app
from .config import ServerConfig

__all__ = ["ServerConfig", "create_app"]
