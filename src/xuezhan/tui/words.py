"""The game in words and colours for the terminal: tiles in their suit's colour, melds, and the
plain words the web table shares (:mod:`xuezhan.words`: events, seats, reasons), re-exported here.

``me`` is the seat the text is written for ("you"); ``None`` writes every seat by number (a
replay). The settlement's sentences come from :mod:`xuezhan.explain`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from rich.text import Text

from .. import i18n
from ..explain import Payment, payments, score_words, win_amounts
from ..i18n import DEFAULT_LANG, Lang
from ..scoring import Meld, MeldKind
from ..tiles import Tile
from ..words import (
    REASON_WORDS,
    event_words,
    last_action_words,
    reason_words,
    seat_name,
    signed,
    suit_name,
    tile_label,
    tiles_words,
)

__all__ = [
    "REASON_WORDS", "SUIT_STYLES", "Payment", "bot_name", "event_words", "last_action_words", "meld_text", "payments",
    "reason_words", "score_words", "seat_name", "signed", "suit_name", "tile_label", "tile_text", "tiles_text",
    "tiles_words", "win_amounts",
]

SUIT_STYLES: Final = ("bold #ff6b6b", "bold #6cb6ff", "bold #5fd75f")
"""万 red, 筒 blue, 条 green."""


def bot_name(seat: int, lang: Lang = DEFAULT_LANG) -> str:
    """``机器人1`` / ``Bot 1``: the bot in ``seat`` named as the web table names its bots, in the
    player's language (never by the kind of bot it is)."""
    return i18n.t("server.bot_name", lang, n=seat)


def tile_text(t: Tile, glyphs: bool = False, style: str = "", lang: Lang = DEFAULT_LANG) -> Text:
    """One tile in its suit's colour."""
    text = Text(tile_label(t, glyphs, lang), style=SUIT_STYLES[t // 9])
    if style:
        text.stylize(style)
    return text


def tiles_text(tiles: Sequence[Tile], glyphs: bool = False, sep: str = " ", lang: Lang = DEFAULT_LANG) -> Text:
    out = Text()
    for i, t in enumerate(tiles):
        if i:
            out.append(sep)
        out.append_text(tile_text(t, glyphs, lang=lang))
    return out


def meld_text(meld: Meld, glyphs: bool = False, lang: Lang = DEFAULT_LANG) -> Text:
    """``[5万5万5万]``; a concealed kong is marked 暗."""
    inner = tiles_text([meld.tile] * meld.size, glyphs, sep="", lang=lang)
    out = Text("[")
    out.append_text(inner)
    out.append("]")
    if meld.kind is MeldKind.ANGANG:
        out.append("暗", style="dim")
    return out
