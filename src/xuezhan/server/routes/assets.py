"""The page and what it reads: ``GET /`` (with ``<html lang>`` set), ``/static/...`` (the ES
modules, styles, fonts, icons, manifest), the tile pictures, the vocabulary and the page's own
sentences (``GET /api/i18n``)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from ... import i18n, vocab
from ...i18n import Lang
from ...ids import ErrorCode
from ..tiles_svg import svg_for_name
from .state import AppState, error_response, lang_of

STATIC: Final = Path(__file__).resolve().parent.parent / "static"
VOCAB_JSON: Final = vocab.to_json()
"""Every name the page shows, by id (:mod:`xuezhan.vocab`), served at ``GET /api/vocab``."""

_HTML_LANG: Final = re.compile(r"<html([^>]*?)\s+lang=\"[^\"]*\"|<html", re.IGNORECASE)


def with_lang(page: str, lang: Lang) -> str:
    """The page with ``<html lang>`` set to ``lang``."""

    def put(match: re.Match[str]) -> str:
        return f'<html{match.group(1) or ""} lang="{lang}"'

    return _HTML_LANG.sub(put, page, count=1)


async def tile(request: Request) -> Response:
    svg = svg_for_name(request.path_params["name"])
    if svg is None:
        return error_response(404, ErrorCode.UNKNOWN_TILE, "no such tile")
    return Response(svg, media_type="image/svg+xml", headers={"Cache-Control": "public, max-age=86400"})


async def vocabulary(request: Request) -> Response:
    return JSONResponse(VOCAB_JSON, headers={"Cache-Control": "no-cache"})


async def messages(request: Request) -> Response:
    lang = i18n.negotiate(request.headers.get("accept-language"),
                          request.query_params.get("lang") or request.cookies.get("lang"))
    body = {"lang": lang, "messages": i18n.to_json(lang, "web.") | i18n.to_json(lang, "common.")}
    return JSONResponse(body, headers={"Cache-Control": "no-cache", "Vary": "Accept-Language, Cookie"})


def routes(app: AppState) -> list[BaseRoute]:
    async def index(request: Request) -> Response:
        return HTMLResponse(with_lang(app.page, lang_of(request)),
                            headers={"Cache-Control": "no-cache", "Vary": "Accept-Language, Cookie"})

    return [
        Route("/", index),
        Route("/api/vocab", vocabulary),
        Route("/api/i18n", messages),
        Route("/tiles/{name}.svg", tile),
        Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
    ]
