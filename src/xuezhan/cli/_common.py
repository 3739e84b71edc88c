"""Helpers shared by the commands: error output, rules and tile options."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any, ParamSpec

import click

from ..errors import XuezhanError
from ..rules import Rules
from ..scoring import Meld, MeldKind
from ..tiles import parse_tile, suit_index

P = ParamSpec("P")


def emit_error(code: str, message: str, as_json: bool) -> None:
    click.echo(f"xuezhan: error: {message}", err=True)
    if as_json:
        click.echo(json.dumps({"error": {"code": code, "message": message}}, ensure_ascii=False))


def emit_json(data: Any) -> None:
    click.echo(json.dumps(data, ensure_ascii=False))


def guarded(fn: Callable[P, int]) -> Callable[P, int]:
    """Turn a :class:`XuezhanError` into exit 2 with its code; ``--json`` is read from the kwargs."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> int:
        try:
            return fn(*args, **kwargs)
        except XuezhanError as exc:
            emit_error(exc.code, exc.message, bool(kwargs.get("as_json")))
            return 2

    return wrapper


def rules_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--rules", "rules_spec", default="qq", show_default=True, metavar="R",
        help="Preset (qq, chengdu) or a TOML rules file.",
    )(fn)


def json_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--json", "as_json", is_flag=True, help="Print JSON.")(fn)


def workers_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``--workers W`` and ``--backend local|ray`` (xuezhan.scale): same results whatever they are."""
    fn = click.option("--backend", default="local", show_default=True, metavar="local|ray",
                      help="Where workers run: local processes, or a Ray cluster (RAY_ADDRESS, else a local one).")(fn)
    fn = click.option("--workers", type=int, default=1, show_default=True, metavar="W",
                      help="Worker processes (1: this process). Same seed, same results whatever W.")(fn)
    return fn


def meld_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    fn = click.option("--angang", multiple=True, metavar="T", help="A concealed kong of tile T (repeatable).")(fn)
    fn = click.option("--gang", multiple=True, metavar="T", help="An exposed kong of tile T (repeatable).")(fn)
    fn = click.option("--peng", multiple=True, metavar="T", help="A pung of tile T (repeatable).")(fn)
    return fn


def dingque_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--dingque", metavar="SUIT", default=None, help="The void suit: m, p or s.")(fn)


def load_rules(spec: str) -> Rules:
    return Rules.load(spec)


def parse_melds(peng: tuple[str, ...], gang: tuple[str, ...], angang: tuple[str, ...]) -> list[Meld]:
    melds = [Meld(MeldKind.PENG, parse_tile(t)) for t in peng]
    melds += [Meld(MeldKind.GANG, parse_tile(t)) for t in gang]
    melds += [Meld(MeldKind.ANGANG, parse_tile(t)) for t in angang]
    return melds


def parse_void(text: str | None) -> int | None:
    return None if text is None else suit_index(text)
