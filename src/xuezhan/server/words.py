"""The server's sentences in a player's language: names, coins moved, the wallet's lines and
error messages. A hand's settlement in words is :mod:`xuezhan.explain`, and each event of
the log :mod:`xuezhan.words`, both shared with the terminal. Sentences come from the catalogs
(``i18n/catalogs/server.toml``); nothing here is worded in code.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .. import i18n
from ..i18n import Lang
from ..ids import ErrorCode
from .bank import BOT_PREFIX, WalletEntry, is_bot


def bot_name(player: str, lang: Lang) -> str:
    """``机器人1`` / ``Bot 1`` for ``bot:1``: a name no person can take (see :mod:`.names`)."""
    return i18n.t("server.bot_name", lang, n=player[len(BOT_PREFIX):])


def display_name(player: str, names: Mapping[str, str], lang: Lang) -> str:
    """How ``player`` is shown: a bot by its bot name, a person by its name."""
    if is_bot(player):
        return bot_name(player, lang)
    return names.get(player, player)


def coins_text(name: str, delta: int, fee: int, lang: Lang) -> str:
    return i18n.t("server.explain.coins", lang, name=name, delta=f"{delta:+d}", fee=fee, count=delta)


def wallet_text(entry: WalletEntry, lang: Lang) -> str:
    """A wallet line in words: ``房间 ABC 第 3 局台费 400 金币``."""
    amount = abs(entry.delta)
    if entry.kind == "jiao_ma":
        return i18n.t("server.wallet.jiao_ma", lang, delta=f"{entry.delta:+d}", room=entry.room or "?",
                      hand_no=entry.hand_no or 0, count=amount)
    if entry.kind in ("fee", "stake", "winnings"):
        return i18n.t(f"server.wallet.{entry.kind}", lang, amount=amount, room=entry.room or "?",
                      hand_no=entry.hand_no or 0, count=amount)
    if entry.kind in ("entry", "refund", "prize"):  # a tournament's: ``room`` is its id
        return i18n.t(f"server.wallet.{entry.kind}", lang, amount=amount, tournament=entry.room or "?", count=amount)
    kind = entry.kind if entry.kind in ("start", "relief", "item") else "grant"
    return i18n.t(f"server.wallet.{kind}", lang, amount=amount, count=amount)


def error_text(code: ErrorCode | str, lang: Lang, fallback: str, **params: Any) -> str:
    """The message of an error code in ``lang`` (``fallback``, the English detail, when the catalogs
    have no sentence for the code)."""
    key = f"server.error.{code}"
    if key not in i18n.catalog():
        return fallback
    try:
        return i18n.t(key, lang, **params)
    except (KeyError, IndexError):  # a sentence that needs details this error did not give
        return fallback
