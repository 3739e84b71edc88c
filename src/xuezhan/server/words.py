"""The server's sentences in a player's language: names, tiles, a hand's settlement explained,
the wallet's lines and error messages. Game terms come from :mod:`xuezhan.vocab`, sentences
from the catalogs (``i18n/catalogs/server.toml``); nothing here is worded in code.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .. import i18n, vocab
from ..engine import settlement as rules_end
from ..engine import wins
from ..engine.actions import LedgerEntry
from ..engine.game import Game
from ..engine.state import WinRecord
from ..i18n import Lang
from ..scoring import WinContext
from ..tiles import tile_name
from ..vocab import Kind
from .bank import BOT_PREFIX, WalletEntry, is_bot

_KONGS = frozenset({"angang", "bugang", "zhigang"})


def bot_name(player: str, lang: Lang) -> str:
    """``机器人1`` / ``Bot 1`` for ``bot:1``: a name no person can take (see :mod:`.names`)."""
    return i18n.t("server.bot_name", lang, n=player[len(BOT_PREFIX):])


def display_name(player: str, names: Mapping[str, str], lang: Lang) -> str:
    """How ``player`` is shown: a bot by its bot name, a person by its name."""
    if is_bot(player):
        return bot_name(player, lang)
    return names.get(player, player)


def tile_words(tile: str, lang: Lang) -> str:
    """``5万`` / ``5 Characters`` for ``"5m"``."""
    return i18n.t(f"server.tile.{tile[1]}", lang, rank=tile[0])


def pattern_words(base: str, extras: Mapping[str, int], lang: Lang) -> str:
    """``清一色 + 根×2`` in ``lang``."""
    out = vocab.name(Kind.PATTERN, base, lang)
    for extra, n in extras.items():
        if n:
            word = vocab.name(Kind.EXTRA, extra, lang)
            if n > 1:
                word = i18n.t("server.extra_times", lang, extra=word, n=n)
            out = i18n.t("server.pattern_extra", lang, pattern=out, extra=word)
    return out


def ledger_text(entry: LedgerEntry, names: Sequence[str], lang: Lang) -> str:
    """One ledger line: who pays whom how many points, and why."""
    return i18n.t("server.ledger", lang, payer=names[entry.from_seat], payee=names[entry.to_seat],
                  points=entry.points, reason=vocab.name_or_id(Kind.REASON, entry.reason, lang), count=entry.points)


def winner_text(win: WinRecord, names: Sequence[str], lang: Lang) -> str:
    """Who won what, on which tile, with which pattern, and who paid."""
    data = win.to_json()
    params: dict[str, Any] = {
        "winner": names[win.seat], "tile": tile_words(data["tile"], lang),
        "pattern": pattern_words(win.score.base, win.score.extras_dict, lang), "fan": win.score.fan,
        "multiple": win.score.multiple, "points": data["points"], "count": data["points"],
    }
    if win.from_seat is None:
        return i18n.t("server.explain.zimo", lang, **params)
    key = "server.explain.robbed" if win.robbed else "server.explain.hu"
    return i18n.t(key, lang, loser=names[win.from_seat], **params)


@dataclass(frozen=True, slots=True)
class Readiness:
    """A seat still playing when the wall ran out: a flower pig, not ready, or ready with its waits
    and the win it would be paid for (its 大叫, by the rules' ``cha_jiao_pays``)."""

    seat: int
    pig: bool
    waits: tuple[str, ...]
    fan: int
    points: int

    @property
    def ready(self) -> bool:
        return not self.pig and bool(self.waits)


def readiness(game: Game) -> list[Readiness]:
    """Each seat that had not won (or left) when the wall ran out, as 查花猪 and 查大叫 read it."""
    out: list[Readiness] = []
    for seat in range(4):
        if not game.contending(seat):
            continue
        if game.is_hua_zhu(seat):
            out.append(Readiness(seat, True, (), 0, 0))
            continue
        if not rules_end.counts_as_ready(game, seat):
            out.append(Readiness(seat, False, (), 0, 0))
            continue
        tiles = game.waits(seat)
        charged = game.da_jiao(seat)
        scores = [wins.score_hand(game, seat, t, WinContext(), extra=True) for t in tiles]
        fan = max((s.fan for s in scores if s.hand_points == charged), default=0)
        out.append(Readiness(seat, False, tuple(tile_name(t) for t in tiles), fan, charged))
    return out


def explain(game: Game, names: Sequence[str], lang: Lang) -> list[str]:
    """The settlement of a finished hand in sentences: each win with its pattern; kongs; at an
    empty wall who was ready (waits and the fan of the best win) and who was not, then 查花猪,
    查大叫 (with the fan charged), 退税; 呼叫转移; escapes."""
    out = [winner_text(w, names, lang) for w in game.winners]
    sep = i18n.t("server.explain.list_separator", lang)
    checked = {r.seat: r for r in readiness(game)} if _exhausted(game) else {}
    if checked:
        out.append(i18n.t("server.explain.exhausted", lang, count=len(checked)))
        for r in checked.values():
            name = names[r.seat]
            if r.pig:
                out.append(i18n.t("server.explain.pig", lang, name=name))
            elif r.ready:
                out.append(i18n.t("server.explain.ready", lang, name=name, fan=r.fan, points=r.points,
                                  waits=sep.join(tile_words(t, lang) for t in r.waits), count=r.points))
            else:
                out.append(i18n.t("server.explain.not_ready", lang, name=name))
    for e in game.ledger:
        params: dict[str, Any] = {"payer": names[e.from_seat], "payee": names[e.to_seat], "points": e.points,
                                  "count": e.points}
        if e.reason in ("hu", "zimo"):
            continue  # said with the win
        if e.reason in _KONGS:
            out.append(i18n.t("server.explain.kong", lang, kong=vocab.name(Kind.REASON, e.reason, lang), **params))
        elif e.reason == "cha_jiao":
            fan = checked[e.to_seat].fan if e.to_seat in checked else 0
            out.append(i18n.t("server.explain.cha_jiao", lang, fan=fan, **params))
        elif e.reason in ("hua_zhu", "tui_shui", "call_transfer"):
            out.append(i18n.t(f"server.explain.{e.reason}", lang, **params))
        elif e.reason == "escape":
            key = "escape_refund" if game.seat_state(e.from_seat).won else "escape"
            out.append(i18n.t(f"server.explain.{key}", lang, **params))
        else:
            out.append(i18n.t("server.explain.other", lang, reason=vocab.name_or_id(Kind.REASON, e.reason, lang),
                              **params))
    return out


def _exhausted(game: Game) -> bool:
    return any(e.get("type") == "wall_empty" for e in game.events)


def coins_text(name: str, delta: int, fee: int, lang: Lang) -> str:
    return i18n.t("server.explain.coins", lang, name=name, delta=f"{delta:+d}", fee=fee, count=delta)


def wallet_text(entry: WalletEntry, lang: Lang) -> str:
    """A wallet line in words: ``房间 ABC 第 3 局台费 400 金币``."""
    amount = abs(entry.delta)
    if entry.kind in ("fee", "stake", "winnings"):
        return i18n.t(f"server.wallet.{entry.kind}", lang, amount=amount, room=entry.room or "?",
                      hand_no=entry.hand_no or 0, count=amount)
    kind = entry.kind if entry.kind in ("start", "relief") else "grant"
    return i18n.t(f"server.wallet.{kind}", lang, amount=amount, count=amount)


def error_text(code: str, lang: Lang, fallback: str, **params: Any) -> str:
    """The message of an error code in ``lang`` (``fallback``, the English detail, when the catalogs
    have no sentence for the code)."""
    key = f"server.error.{code}"
    if key not in i18n.catalog():
        return fallback
    try:
        return i18n.t(key, lang, **params)
    except (KeyError, IndexError):  # a sentence that needs details this error did not give
        return fallback
