"""Message catalogs: every sentence the program shows people, in three languages.

Game terms (patterns, extras, ledger reasons, actions, error codes) live in
:mod:`xuezhan.vocab`; the sentences around them live here, in TOML catalogs under
``catalogs/`` (one file per part of the program: ``web.toml``, ``cli.toml``,
``tui.toml``, ``server.toml``; ``words.toml`` for the events of a log). Each key is a
table with the same message in Simplified Chinese, Traditional Chinese and English::

    [wallet.relief_granted]
    zh-CN = "已领取救济金 {amount} 金币"
    zh-TW = "已領取救濟金 {amount} 金幣"
    en = { one = "Relief granted: {amount} coin", other = "Relief granted: {amount} coins" }

A message may be a plain string or, where the language has plural forms, a table of
CLDR plural categories (``one``, ``other``, ...) chosen by the ``count`` argument
(default: the first integer argument) with Babel's plural rules. Placeholders use
``str.format`` and must be the same in every language (a test checks).

    >>> from xuezhan import i18n
    >>> i18n.t("common.coins", "en", count=1)
    '1 coin'
    >>> i18n.negotiate("en-GB,en;q=0.8,zh-TW;q=0.5")
    'en'
"""

from __future__ import annotations

import string
import tomllib
from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import Any, Final

from babel import Locale, UnknownLocaleError

from ..errors import XuezhanError
from ..ids import ErrorCode
from ..vocab import DEFAULT_LANG, LANGS, Lang

__all__ = [
    "DEFAULT_LANG",
    "LANGS",
    "CatalogError",
    "Lang",
    "catalog",
    "keys",
    "negotiate",
    "parse_lang",
    "placeholders",
    "t",
    "to_json",
]

Message = str | dict[str, str]
"""A message in one language: a string, or plural category -> string."""

_BABEL: Final[dict[Lang, str]] = {"zh-CN": "zh_Hans_CN", "zh-TW": "zh_Hant_TW", "en": "en"}


class CatalogError(XuezhanError):
    """A catalog file that breaks the rules above (code ``bad_catalog``)."""

    def __init__(self, message: str) -> None:
        super().__init__(ErrorCode.BAD_CATALOG, message)


def _check_message(key: str, lang: str, value: object) -> Message:
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and value and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        if "other" not in value:
            raise CatalogError(f"{key} [{lang}]: a plural message needs an 'other' form")
        return {str(k): str(v) for k, v in value.items()}
    raise CatalogError(f"{key} [{lang}]: a message is a string or a table of plural forms")


def _flatten(prefix: str, table: Mapping[str, Any], out: dict[str, dict[Lang, Message]], source: str) -> None:
    langs = [k for k in table if k in LANGS]
    if langs:
        if set(table) != set(LANGS):
            missing = sorted(set(LANGS) - set(table))
            extra = sorted(set(table) - set(LANGS))
            raise CatalogError(
                f"{source}: {prefix} must give exactly {', '.join(LANGS)} (missing {missing}, extra {extra})"
            )
        if prefix in out:
            raise CatalogError(f"{source}: {prefix} is defined twice")
        out[prefix] = {lang: _check_message(prefix, lang, table[lang]) for lang in LANGS}
        return
    for name, sub in table.items():
        key = f"{prefix}.{name}" if prefix else name
        if not isinstance(sub, dict):
            raise CatalogError(f"{source}: {key} is neither a message nor a group of messages")
        _flatten(key, sub, out, source)


@cache
def catalog() -> dict[str, dict[Lang, Message]]:
    """Every message, by dotted key, from every catalog file of the package."""
    out: dict[str, dict[Lang, Message]] = {}
    folder = resources.files(__package__).joinpath("catalogs")
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".toml"):
            continue
        try:
            data = tomllib.loads(entry.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise CatalogError(f"{entry.name}: {exc}") from None
        _flatten("", data, out, entry.name)
    return out


def keys(prefix: str = "") -> tuple[str, ...]:
    """The keys under ``prefix`` (``"web."``), sorted."""
    return tuple(sorted(k for k in catalog() if k.startswith(prefix)))


def placeholders(text: str) -> frozenset[str]:
    """The ``{names}`` a message string uses."""
    return frozenset(field for _, field, _, _ in string.Formatter().parse(text) if field)


def _plural_category(lang: Lang, count: int) -> str:
    return str(Locale.parse(_BABEL[lang]).plural_form(abs(count)))


def t(key: str, lang: Lang = DEFAULT_LANG, /, **params: Any) -> str:
    """The message ``key`` in ``lang``, formatted with ``params``.

    A plural message picks its form by ``count`` (or the first integer parameter).
    An unknown key raises :class:`XuezhanError` ``unknown_message``: catalogs are part
    of the program, so a missing key is a bug that tests catch.
    """
    entry = catalog().get(key)
    if entry is None:
        raise XuezhanError(ErrorCode.UNKNOWN_MESSAGE, f"no message {key!r} in the catalogs")
    message = entry[lang]
    if isinstance(message, dict):
        count = params.get("count")
        if not isinstance(count, int):
            count = next((v for v in params.values() if isinstance(v, int) and not isinstance(v, bool)), 0)
        message = message.get(_plural_category(lang, count), message["other"])
    return message.format(**params) if params else message


def to_json(lang: Lang, prefix: str = "") -> dict[str, Message]:
    """The messages under ``prefix`` in one language, as the web page reads them."""
    return {k: v[lang] for k, v in catalog().items() if k.startswith(prefix)}


def parse_lang(tag: str | None) -> Lang | None:
    """One language tag (``zh-Hant-HK``, ``zh_CN``, ``en-US``) as one of :data:`LANGS`, or ``None``.

    Traditional script or a territory that writes it (TW, HK, MO) gives ``zh-TW``;
    any other Chinese gives ``zh-CN``; any English gives ``en``.
    """
    if not tag:
        return None
    tag = tag.strip().replace("_", "-")
    if tag in LANGS:
        return tag
    try:
        locale = Locale.parse(tag, sep="-")
    except (ValueError, TypeError, UnknownLocaleError):
        return None
    if locale.language == "zh":
        return "zh-TW" if locale.script == "Hant" or locale.territory in {"TW", "HK", "MO"} else "zh-CN"
    if locale.language == "en":
        return "en"
    return None


def negotiate(accept_language: str | None, choice: str | None = None) -> Lang:
    """The language to show: the player's ``choice`` when it is one of ours, else the best
    match of an ``Accept-Language`` header (by q-value, then order), else Simplified Chinese."""
    chosen = parse_lang(choice)
    if chosen is not None:
        return chosen
    ranked: list[tuple[float, int, str]] = []
    for index, part in enumerate((accept_language or "").split(",")[:32]):
        tag, _, params = part.strip().partition(";")
        q = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if tag and tag != "*" and q > 0:
            ranked.append((-q, index, tag))
    for _, _, tag in sorted(ranked):
        lang = parse_lang(tag)
        if lang is not None:
            return lang
    return DEFAULT_LANG
