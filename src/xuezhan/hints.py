"""Hints in a player's words: the advisor's ranking (:mod:`xuezhan.bots.advisor`) as a few
short lines, for the terminal's hint panel and the web table's hint button alike.

Everything comes from the seat's own view. For a discard: the expert's pick with the
shanten it leaves, the live effective tiles (copies the seat has not seen of every tile
that would bring it closer), its expected points and danger; then the other choices. For
a claim or a kong (on a discard or on one's own turn): each choice with the shanten after it
and its expected points over the rest of the hand. For 定缺 and 换三张: the expert's pick.
Sentences come from the ``hint.*`` keys of the message catalogs, game terms from
:mod:`xuezhan.vocab`, tile names from :mod:`xuezhan.explain` (or the caller's ``tile``
function: the terminal draws tiles as glyphs on request).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from . import i18n, vocab
from .bots.advisor import Advice, Choice, advise
from .engine.actions import Action, ActionType
from .engine.views import SeatView
from .explain import suit_word, tile_word
from .i18n import DEFAULT_LANG, Lang
from .tiles import Tile
from .vocab import Kind

TileWords = Callable[[Tile], str]


class _Words:
    """The wording of one hint: a language and a way to name tiles."""

    def __init__(self, lang: Lang, tile: TileWords | None) -> None:
        self.lang = lang
        self.tile: TileWords = tile or (lambda t: tile_word(t, lang))

    def t(self, key: str, **params: Any) -> str:
        return i18n.t(f"hint.{key}", self.lang, **params)

    def tiles(self, tiles: Sequence[Tile]) -> str:
        return " ".join(self.tile(t) for t in tiles)

    def shanten(self, sh: int | None) -> str:
        if sh is None:
            return "?"
        if sh < 0:
            return self.t("complete")
        if sh == 0:
            return self.t("ready")
        return self.t("shanten", count=sh)

    def action(self, action: Action) -> str:
        name = vocab.name(Kind.ACTION, str(action.type), self.lang)
        if action.tile is not None:
            return f"{name} {self.tile(action.tile)}"
        if action.suit is not None:
            return f"{name} {suit_word(action.suit, self.lang)}"
        if action.tiles:
            return f"{name} {self.tiles(action.tiles)}"
        return name

    def reasons(self, c: Choice) -> list[str]:
        out = [self.shanten(c.shanten)] if c.shanten is not None else []
        if c.live_effective is not None and c.action.type is ActionType.DISCARD:
            shown = self.tiles(c.effective[:8]) + (" …" if len(c.effective) > 8 else "")
            out.append(self.t("live", count=c.live_effective, tiles=shown or self.t("no_tiles")))
        if c.expected_points is not None:
            key = "expected_searched" if c.basis == "playouts" else "expected"
            out.append(self.t(key, points=f"{c.expected_points:+.1f}"))
        if c.danger is not None and c.danger >= 0.05:
            out.append(self.t("danger_high" if c.danger >= 0.5 else "danger_some" if c.danger >= 0.2 else "danger_low"))
        return out


def choice_reasons(choice: Choice, lang: Lang = DEFAULT_LANG, tile: TileWords | None = None) -> list[str]:
    """Why a choice ranks where it does, in short phrases: shanten, live effective tiles,
    expected points, danger."""
    return _Words(lang, tile).reasons(choice)


def action_words(action: Action, lang: Lang = DEFAULT_LANG, tile: TileWords | None = None) -> str:
    """``碰 5万``: the action's name from the vocabulary, with its tile, suit or tiles."""
    return _Words(lang, tile).action(action)


def advice_lines(advice: Advice, lang: Lang = DEFAULT_LANG, tile: TileWords | None = None) -> list[str]:
    """The advisor's ranking in a few lines (the pick first)."""
    w = _Words(lang, tile)
    ranking = advice.ranking
    if not ranking:
        return [w.t("nothing")]
    best = ranking[0]
    a = best.action
    if a.type is ActionType.HU:
        return [w.t("win", action=w.action(a))]
    if a.type is ActionType.DINGQUE:
        return [w.t("dingque", suit=suit_word(a.suit or 0, lang))]
    if a.type is ActionType.EXCHANGE:
        return [w.t("exchange", tiles=w.tiles(a.tiles))]
    sep = w.t("sep")
    if a.type is ActionType.DISCARD and all(c.action.type is ActionType.DISCARD for c in ranking):
        lines = [w.t("pick", action=w.action(a), reasons=sep.join(w.reasons(best)))]
        others = " · ".join(w.t("other", tile=w.tile(c.action.tile or 0), shanten=w.shanten(c.shanten),
                                count=c.live_effective or 0) for c in ranking[1:])
        if others:
            lines.append(w.t("others", choices=others))
        return lines
    # a claim, or a kong on one's own turn: every kind of choice, the pick first
    lines = [w.t("pick", action=w.action(a), reasons=sep.join(w.reasons(best)))]
    shown = 0
    for c in ranking[1:]:
        if c.action.type is ActionType.DISCARD and shown >= 1:
            continue  # one discard stands for the rest
        shown += c.action.type is ActionType.DISCARD
        lines.append(w.t("also", action=w.action(c.action), reasons=sep.join(w.reasons(c))))
    return lines


def hint_lines(view: SeatView, legal: Sequence[Action], lang: Lang = DEFAULT_LANG,
               tile: TileWords | None = None) -> list[str]:
    """The hint for the decision ``legal`` describes, in a few lines."""
    if not legal:
        return [_Words(lang, tile).t("nothing")]
    return advice_lines(advise(view, legal), lang, tile)


def hint_json(view: SeatView, legal: Sequence[Action], lang: Lang = DEFAULT_LANG) -> dict[str, Any]:
    """The web table's ``hint`` message: every choice, the pick first, with its reasons in words,
    and the same lines the terminal shows."""
    if not legal:
        return {"type": "hint", "choices": [], "lines": hint_lines(view, legal, lang)}
    advice = advise(view, legal)
    w = _Words(lang, None)
    choices = [{"action": c.action.to_json(), "score": c.expected_points, "words": w.action(c.action),
                "reasons": w.reasons(c)} for c in advice.ranking]
    return {"type": "hint", "choices": choices, "lines": advice_lines(advice, lang)}


__all__ = ["action_words", "advice_lines", "choice_reasons", "hint_json", "hint_lines"]
