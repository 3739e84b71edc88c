"""The game's events in words, in a player's language: one wording for the terminal's log and
the web table's (the server sends each event with its sentence, ``text``).

Plain functions from engine values to text. ``me`` is the seat the text is written for ("you");
``None`` writes every seat by number (a replay, a spectator). ``names`` names the other seats
instead (the web table's player names). Sentences come from the ``words.*`` keys of the message
catalogs; game terms from :mod:`xuezhan.vocab`; the settlement's sentences from
:mod:`xuezhan.explain`.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any, Final

from . import i18n, vocab
from .engine.game import EXCHANGE_DIRECTIONS, Game
from .engine.views import visible_events
from .explain import seat_names, suit_word, tile_word
from .i18n import DEFAULT_LANG, Lang
from .ids import ActionKind, EventKind, Reason
from .tiles import Tile
from .vocab import Kind

__all__ = [
    "REASON_WORDS", "event_words", "last_action_words", "reason_words", "seat_name", "signed", "suit_name",
    "tile_label", "tiles_words",
]

_GLYPH_BASE: Final = (0x1F007, 0x1F019, 0x1F010)  # 🀇 万, 🀙 筒, 🀐 条 (Unicode orders them m, s, p)
_DIRECTION_WORDS: Final = {v: k for k, v in EXCHANGE_DIRECTIONS.items()}

_NAMED_BY_ID: Final = frozenset({Reason.ANGANG, Reason.BUGANG, Reason.ZHIGANG})  # the log names kongs by id too


def reason_words(reason: Reason | str, lang: Lang = "en") -> str:
    """A ledger reason in words from :mod:`xuezhan.vocab` (``flower pig``); in English the kongs add
    their id, as the log does (``direct kong (zhigang)``)."""
    name = vocab.name_or_id(Kind.REASON, reason, lang)
    return f"{name} ({reason})" if reason in _NAMED_BY_ID and lang == "en" else name


REASON_WORDS: Final = {reason: reason_words(reason) for reason in vocab.ids(Kind.REASON)}
"""Every ledger reason in the terminal's English words."""


def tile_label(t: Tile, glyphs: bool = False, lang: Lang = DEFAULT_LANG) -> str:
    """``5万`` (``5萬`` in Traditional Chinese; the Unicode tile ``🀋`` with ``glyphs``)."""
    if glyphs:
        return chr(_GLYPH_BASE[t // 9] + t % 9)
    return tile_word(t, lang)


def tiles_words(tiles: Sequence[Tile], glyphs: bool = False, lang: Lang = DEFAULT_LANG) -> str:
    return " ".join(tile_label(t, glyphs, lang) for t in tiles)


def suit_name(suit: int, lang: Lang = DEFAULT_LANG) -> str:
    return suit_word(suit, lang)


def seat_name(seat: int, me: int | None, lang: Lang = "en") -> str:
    """"you" for ``me``, "seat N" for the others (in ``lang``)."""
    return seat_names(lang, me)[seat]


def signed(n: int) -> str:
    return f"{n:+d}"


def _who(lang: Lang, me: int | None, names: Sequence[str] | None) -> tuple[str, ...]:
    """Each seat's name: "you" for ``me``, ``names[seat]`` (when given) or "seat N" for the others."""
    if names is None:
        return _numbered(lang, me)
    if len(names) != 4:
        raise ValueError("four seat names are needed")
    return _named(lang, me, tuple(names))


@lru_cache(maxsize=64)
def _numbered(lang: Lang, me: int | None) -> tuple[str, ...]:
    return tuple(seat_names(lang, me))


@lru_cache(maxsize=256)
def _named(lang: Lang, me: int | None, names: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(i18n.t("explain.you", lang) if seat == me else name for seat, name in enumerate(names))


_QUIET: Final = frozenset({EventKind.TURN, EventKind.DEAL, EventKind.EXCHANGE_CHOSEN, EventKind.DINGQUE_CHOSEN,
                           EventKind.BUGANG})
"""Events the log says nothing of (the turn, the deal, a seat's choice before all have chosen, a
kong already told when declared)."""


_TILED: Final = frozenset({EventKind.DEAL, EventKind.DRAW, EventKind.EXCHANGE, EventKind.EXCHANGE_RECEIVED,
                           EventKind.ANGANG, EventKind.SWAP, EventKind.PASS_HU})
"""Events that carry tiles; a view withholds them from the other seats when the event is private."""


@lru_cache(maxsize=8)
def _templates(lang: Lang) -> dict[str, str]:
    """The ``words.ev.*`` sentences of ``lang`` by their last key part (none is a plural message)."""
    out = {}
    for key, message in i18n.catalog().items():
        if key.startswith("words.ev."):
            text = message[lang]
            if not isinstance(text, str):  # pragma: no cover - the catalog test keeps them plain
                raise TypeError(f"{key} must be a plain message")
            out[key[len("words.ev."):]] = text
    return out


@lru_cache(maxsize=16)
def _tile_labels(lang: Lang, glyphs: bool) -> tuple[str, ...]:
    return tuple(tile_label(t, glyphs, lang) for t in range(27))


def event_words(ev: dict[str, Any], me: int | None, *, glyphs: bool = False, reveal: bool = False,
                lang: Lang = "en", names: Sequence[str] | None = None) -> str | None:
    """One event as ``me`` sees it (from :func:`xuezhan.engine.views.visible_events`, tiles as
    numbers) as a line of the log, or ``None`` when it is not worth a line. ``reveal`` (a replay,
    given the events whole) shows every private event; ``names`` names the seats but ``me``.

    The web table says every event to every connection: the sentences and the tiles' words of a
    language are looked up once (:func:`_templates`, :func:`_tile_labels`), not per event."""
    kind = ev.get("type")
    if kind in _QUIET:
        return None
    private = kind in _TILED and "tile" not in ev and "tiles" not in ev  # another seat's, tiles withheld
    if private and kind != EventKind.ANGANG:
        return None  # another seat's secret (its deal, its draws, its exchange): not for us
    if kind == EventKind.DRAW and ev["seat"] != me and not reveal:
        return None
    who = _who(lang, me, names)
    say = _templates(lang)
    if private:  # everyone sees a concealed kong, face down
        return say["angang_hidden"].format(who=who[ev["seat"]])
    labels = _tile_labels(lang, glyphs)
    tile = labels[ev["tile"]] if "tile" in ev else ""

    if kind == EventKind.DISCARD:
        return say["discard"].format(who=who[ev["seat"]], tile=tile)
    if kind == EventKind.DRAW:
        return say["draw_replacement" if ev.get("replacement") else "draw"].format(who=who[ev["seat"]], tile=tile)
    if kind == EventKind.PAY:
        return say["pay"].format(payer=who[ev["from"]], payee=who[ev["to"]], points=ev["points"],
                                 reason=reason_words(str(ev["reason"]), lang))
    if kind == EventKind.PENG:
        return say["peng"].format(who=who[ev["seat"]], tile=tile, from_seat=who[ev["from"]])
    if kind == EventKind.ZHIGANG:
        return say["zhigang"].format(who=who[ev["seat"]], tile=tile, from_seat=who[ev["from"]])
    if kind == EventKind.ANGANG:
        return say["angang"].format(who=who[ev["seat"]], tile=tile)
    if kind == EventKind.BUGANG_DECLARED:
        return say["bugang"].format(who=who[ev["seat"]], tile=tile)
    if kind == EventKind.HU:
        score = i18n.t("explain.score", lang, pattern=vocab.name_or_id(Kind.PATTERN, str(ev["base"]), lang),
                       fan=ev["fan"], multiple=ev["multiple"])
        if ev.get("from") is None:
            return say["hu_self"].format(who=who[ev["seat"]], tile=tile, score=score)
        return say["hu_rob" if ev.get("robbing") else "hu"].format(who=who[ev["seat"]], tile=tile,
                                                                   from_seat=who[ev["from"]], score=score)
    if kind == EventKind.PASS_HU:
        if ev["seat"] == me:
            return say["pass_hu_me"].format(tile=tile)
        return say["pass_hu"].format(who=who[ev["seat"]], tile=tile)
    if kind == EventKind.START:
        return say["start_me"] if ev["dealer"] == me else say["start"].format(who=who[ev["dealer"]])
    if kind == EventKind.EXCHANGE:
        return say["exchange"].format(who=who[ev["seat"]], tiles=" ".join(labels[t] for t in ev["tiles"]),
                                      to=who[ev["to"]])
    if kind == EventKind.EXCHANGE_RECEIVED and not reveal:
        return say["exchange_received"].format(who=who[ev["seat"]], tiles=" ".join(labels[t] for t in ev["tiles"]))
    if kind == EventKind.EXCHANGE_DONE:
        direction = _DIRECTION_WORDS.get(int(ev["direction"]))
        return say["exchange_done"].format(
            action=vocab.name_or_id(Kind.ACTION, ActionKind.EXCHANGE, lang),
            direction=i18n.t(f"words.direction.{direction}", lang) if direction else str(ev["direction"]))
    if kind == EventKind.DINGQUE:
        parts = [f"{who[s]} {suit_name(v, lang) if v is not None else '-'}" for s, v in enumerate(ev["voids"])]
        return say["dingque"].format(action=vocab.name_or_id(Kind.EVENT, EventKind.DINGQUE, lang),
                                     parts=i18n.t("words.sep", lang).join(parts))
    if kind == EventKind.WALL_EMPTY:
        return say["wall_empty"]
    if kind == EventKind.END:
        return say["end"]
    if kind == EventKind.ESCAPE:
        return say["escape"].format(who=who[ev["seat"]])
    if kind == EventKind.SWAP:
        return say["swap"].format(who=who[ev["seat"]], tile=tile, tiles=" ".join(labels[t] for t in ev["tiles"]))
    return None


_MOVES: Final = frozenset({EventKind.DISCARD, EventKind.PENG, EventKind.ZHIGANG, EventKind.ANGANG,
                           EventKind.BUGANG_DECLARED, EventKind.HU, EventKind.DINGQUE, EventKind.EXCHANGE_DONE,
                           EventKind.ESCAPE, EventKind.WALL_EMPTY, EventKind.START})


def last_action_words(game: Game, me: int | None, *, glyphs: bool = False, reveal: bool = False,
                      lang: Lang = "en") -> str:
    """The latest public move (a discard, a claim, a kong, a win, a void choice), in words, as ``me``
    sees it (``reveal``: a replay, every event whole)."""
    events = game.events if reveal else visible_events(game, me)
    for ev in reversed(events):
        if ev.get("type") in _MOVES:
            words = event_words(ev, me, glyphs=glyphs, reveal=reveal, lang=lang)
            if words:
                return words
    return ""
