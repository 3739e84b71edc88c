"""Helpers shared by the commands: error output, the language, rules and tile options.

The options' help texts are in the catalog (``cli.help.*``, see :mod:`xuezhan.cli._help`)."""

from __future__ import annotations

import contextlib
import functools
import os
import sys
from collections.abc import Callable
from typing import Any, ParamSpec

import click

from .. import i18n, vocab
from ..errors import XuezhanError
from ..i18n import Lang
from ..ids import ErrorCode
from ..jsontext import json_line
from ..rules import Rules
from ..scoring import Meld, MeldKind
from ..tiles import parse_tile, suit_index

P = ParamSpec("P")


_LANG_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG")
"""Where the environment names the language, in POSIX order: the first one set decides."""


def env_lang() -> Lang:
    """The language of the environment (``LC_ALL``, ``LC_MESSAGES``, ``LANG``; ``zh_TW.UTF-8`` reads as
    ``zh-TW``), else Simplified Chinese."""
    for name in _LANG_VARIABLES:
        value = os.environ.get(name, "")
        if value:
            return i18n.parse_lang(value.split(".")[0].split("@")[0]) or i18n.DEFAULT_LANG
    return i18n.DEFAULT_LANG


def _lang_value(ctx: click.Context, param: click.Parameter, value: str | None) -> Lang:
    if value is None:
        return env_lang()
    lang = i18n.parse_lang(value)
    if lang is None:
        raise click.BadParameter(i18n.t("cli.lang.bad", env_lang(), lang=value))
    return lang


def lang_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``--lang zh-CN|zh-TW|en`` (also ``zh_TW``, ``zh-Hant``, ``en-US``...): the language of the text
    output; by default the environment's. JSON output is the same in every language."""
    return click.option("--lang", "lang", default=None, metavar="LANG", callback=_lang_value)(fn)


def has_terminal() -> bool:
    """Both stdin and stdout are a terminal: a full-screen app can read keys and draw."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def emit_error(code: ErrorCode | str, message: str, as_json: bool, lang: Lang | None = None) -> None:
    lang = lang or env_lang()
    what = vocab.name_or_id(vocab.Kind.ERROR, code, lang)
    click.echo(i18n.t("cli.error", lang, what=what, message=message), err=True)
    if as_json:
        emit_json({"error": {"code": code, "message": message}})


def emit_json(data: Any) -> None:
    click.echo(json_line(data))


def guarded(fn: Callable[P, int]) -> Callable[P, int]:
    """Turn a :class:`XuezhanError` into exit 2 with its code; ``--json`` and ``--lang`` are read
    from the kwargs."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> int:
        lang = i18n.parse_lang(str(kwargs.get("lang") or "")) or env_lang()
        as_json = bool(kwargs.get("as_json"))
        try:
            return fn(*args, **kwargs)
        except XuezhanError as exc:
            emit_error(exc.code, exc.message, as_json, lang)
            return 2
        except RecursionError:  # input nested deeper than any reader can follow
            emit_error(ErrorCode.BAD_INPUT, i18n.t("cli.too_deep", lang), as_json, lang)
            return 2
        except OSError as exc:  # the output cannot be written: a full disk, a closed pipe
            message = i18n.t("cli.out.unwritable", lang, file="stdout", problem=exc.strerror or str(exc))
            with contextlib.suppress(OSError):
                emit_error(ErrorCode.UNWRITABLE, message, False, lang)
            return 2

    return wrapper


def rules_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--rules", "rules_spec", default="qq", show_default=True, metavar="R")(fn)


def json_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--json", "as_json", is_flag=True)(fn)


def bot_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``--bot-timeout SECONDS`` and ``--bot-max-line BYTES``: what an outside bot (``cmd:``) may
    take for each decision and write on one line."""
    from ..bots import DEFAULT_MAX_LINE, DEFAULT_TIMEOUT  # here: the commands without bots do not load them

    fn = click.option("--bot-max-line", "bot_max_line", type=int, default=DEFAULT_MAX_LINE, show_default=True,
                      metavar="BYTES")(fn)
    fn = click.option("--bot-timeout", type=float, default=DEFAULT_TIMEOUT, show_default=True, metavar="SECONDS")(fn)
    return fn


def check_bot_options(bot_timeout: float, bot_max_line: int) -> None:
    """``bad_input`` for a timeout that is not positive or a line cap under 1,024 bytes."""
    if not bot_timeout > 0:
        raise XuezhanError(ErrorCode.BAD_INPUT, "--bot-timeout must be positive")
    if bot_max_line < 1024:
        raise XuezhanError(ErrorCode.BAD_INPUT, "--bot-max-line must be at least 1024 bytes")


def workers_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``--workers W`` and ``--backend local|ray`` (xuezhan.scale): same results whatever they are."""
    fn = click.option("--backend", default="local", show_default=True, metavar="local|ray")(fn)
    fn = click.option("--workers", type=int, default=1, show_default=True, metavar="W")(fn)
    return fn


def meld_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    fn = click.option("--angang", multiple=True, metavar="T")(fn)
    fn = click.option("--gang", multiple=True, metavar="T")(fn)
    fn = click.option("--peng", multiple=True, metavar="T")(fn)
    return fn


def dingque_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--dingque", metavar="SUIT", default=None)(fn)


def load_rules(spec: str) -> Rules:
    return Rules.load(spec)


def parse_melds(peng: tuple[str, ...], gang: tuple[str, ...], angang: tuple[str, ...]) -> list[Meld]:
    melds = [Meld(MeldKind.PENG, parse_tile(t)) for t in peng]
    melds += [Meld(MeldKind.GANG, parse_tile(t)) for t in gang]
    melds += [Meld(MeldKind.ANGANG, parse_tile(t)) for t in angang]
    return melds


def parse_void(text: str | None) -> int | None:
    return None if text is None else suit_index(text)
