"""``xuezhan tournaments``: a web table's tournaments, and one tournament's standings followed live.

``xuezhan tournaments --url URL`` lists the server's tournaments (``GET /api/tournaments``);
with an ID it shows that tournament's standings (``GET /api/tournaments/ID``) and, unless
``--once``, asks again every ``--every`` seconds, showing them again whenever they change, until
the tournament is over. ``--json`` prints each answer as one JSON line. A refusal of the server
is passed on with its own code (``unknown_tournament``); a server that cannot be reached is
``unreachable``. Standard library only: nothing of the server is needed to follow one.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Final

import click

from .. import i18n
from ..errors import XuezhanError
from ..i18n import Lang
from ..ids import ErrorCode
from ._common import emit_json, guarded, json_option, lang_option
from ._help import command

TIMEOUT: Final = 10.0
"""Seconds a request to the server may take."""


def fetch(url: str, path: str) -> Any:
    """The JSON the server at ``url`` answers for ``path``; its refusal as a :class:`XuezhanError`
    with the server's own code, ``unreachable`` when it does not answer."""
    try:
        with urllib.request.urlopen(url.rstrip("/") + path, timeout=TIMEOUT) as response:  # http(s): checked
            return json.loads(response.read())
    except urllib.error.HTTPError as exc:
        try:
            error = json.loads(exc.read())["error"]
            code, message = str(error["code"]), str(error["message"])
        except (ValueError, KeyError, TypeError):
            code, message = ErrorCode.UNREACHABLE, f"the server answered {exc.code}"
        raise XuezhanError(code, message) from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        raise XuezhanError(ErrorCode.UNREACHABLE, f"no answer from {url}: {reason}") from None


def _entry(data: dict[str, Any], lang: Lang) -> str:
    entry = data.get("entry")
    if entry == "match_ticket":
        return i18n.t("cli.tournaments.entry_ticket", lang)
    return i18n.t("cli.tournaments.entry_coins", lang, count=entry if isinstance(entry, int) else 0)


def listing_text(tournaments: list[dict[str, Any]], lang: Lang) -> str:
    """The server's tournaments, one line each."""
    if not tournaments:
        return i18n.t("cli.tournaments.none", lang)
    return "\n".join(i18n.t("cli.tournaments.line", lang, id=t["id"], name=t["name"],
                            status=i18n.t(f"common.tournament.{t['status']}", lang), starts=t["starts_at"],
                            entry=_entry(t, lang), count=len(t.get("entrants", [])))
                     for t in tournaments)


def standings_text(data: dict[str, Any], lang: Lang) -> str:
    """A tournament's status and standings: place, name, points (and the prize once it is over)."""
    head = i18n.t("cli.tournaments.head", lang, name=data["name"],
                  status=i18n.t(f"common.tournament.{data['status']}", lang), round=data.get("round", 0),
                  rounds=data.get("rounds", 0))
    rows = [i18n.t("cli.tournaments.row", lang, place=s["place"], name=s["name"], points=s["points"])
            + (i18n.t("cli.tournaments.prize", lang, count=s["prize"]) if s.get("prize") else "")
            for s in data.get("standings", [])]
    return "\n".join([head, *rows])


@command("tournaments")
@click.argument("ident", required=False, metavar="[ID]")
@click.option("--url", required=True, metavar="URL")
@click.option("--once", is_flag=True, default=False)
@click.option("--every", type=float, default=2.0, show_default=True, metavar="SECONDS")
@json_option
@lang_option
@guarded
def tournaments_cmd(ident: str | None, url: str, once: bool, every: float, as_json: bool, lang: Lang) -> int:
    if urllib.parse.urlsplit(url).scheme not in ("http", "https"):
        raise XuezhanError(ErrorCode.BAD_INPUT, f"--url must be an http:// or https:// address, not {url!r}")
    if not 0.2 <= every <= 3600:
        raise XuezhanError(ErrorCode.BAD_INPUT, "--every must be from 0.2 to 3600 seconds")
    if ident is None:
        found = fetch(url, "/api/tournaments")
        if as_json:
            emit_json(found)
        else:
            click.echo(listing_text(found, lang))
        return 0
    path = "/api/tournaments/" + urllib.parse.quote(ident, safe="")
    shown: Any = None
    while True:
        data = fetch(url, path)
        if data != shown:
            if as_json:
                emit_json(data)
            else:
                click.echo(("\n" if shown is not None else "") + standings_text(data, lang))
            shown = data
        if once or data.get("status") in ("finished", "cancelled"):
            return 0
        time.sleep(every)


__all__ = ["fetch", "listing_text", "standings_text", "tournaments_cmd"]
