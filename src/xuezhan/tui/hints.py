"""Hints for the human seat: the advisor's ranking (:mod:`xuezhan.bots.advisor`), from the
seat's own view only, in a few short lines.

For a discard: the expert's pick with the shanten it leaves, the live effective tiles
(copies this seat cannot see of every tile that would lower that shanten), its expected
points and danger; then the other choices. For a claim or a kong (on a discard or on one's
own turn): each choice with the shanten after it and its expected points over the rest of
the hand. For 定缺 and 换三张: the expert's pick. Action names come from :mod:`xuezhan.vocab`.
"""

from __future__ import annotations

from collections.abc import Sequence

from .. import vocab
from ..bots.advisor import Advice, Choice, advise
from ..engine.actions import Action, ActionType
from ..engine.views import SeatView
from ..vocab import Kind
from .words import suit_name, tile_label, tiles_words


def shanten_word(sh: int | None) -> str:
    if sh is None:
        return "?"
    if sh < 0:
        return "complete"
    if sh == 0:
        return "ready"
    return f"shanten {sh}"


def action_word(action: Action, glyphs: bool = False) -> str:
    """``碰 5万``: the action's name from the vocabulary, with its tile."""
    name = vocab.name(Kind.ACTION, str(action.type))
    if action.tile is not None:
        return f"{name} {tile_label(action.tile, glyphs)}"
    return name


def _points(c: Choice) -> str:
    if c.expected_points is None:
        return ""
    return f", expected {c.expected_points:+.1f}" + (" (searched)" if c.basis == "playouts" else "")


def _danger(c: Choice) -> str:
    if c.danger is None or c.danger < 0.05:
        return ""
    return ", danger " + ("high" if c.danger >= 0.5 else "some" if c.danger >= 0.2 else "low")


def advice_lines(advice: Advice, glyphs: bool = False) -> list[str]:
    """The advisor's ranking in a few lines (the pick first)."""
    ranking = advice.ranking
    if not ranking:
        return ["Nothing to decide now."]
    best = ranking[0]
    a = best.action
    if a.type is ActionType.HU:
        return [f"Hint: you can win: press h ({action_word(a)})."]
    if a.type is ActionType.DINGQUE:
        return [f"Hint: choose {suit_name(a.suit or 0)} as your void (the suit you can best give up)."]
    if a.type is ActionType.EXCHANGE:
        return [f"Hint: pass {tiles_words(a.tiles, glyphs)} (keeps your hand closest to ready)."]
    if a.type is ActionType.DISCARD and all(c.action.type is ActionType.DISCARD for c in ranking):
        eff = tiles_words(best.effective[:8], glyphs) + (" …" if len(best.effective) > 8 else "")
        lines = [f"Hint: discard {tile_label(a.tile or 0, glyphs)}: {shanten_word(best.shanten)}, "
                 f"{best.live_effective} live effective tiles ({eff or 'none'}){_points(best)}{_danger(best)}"]
        others = " · ".join(f"{tile_label(c.action.tile or 0, glyphs)}: {shanten_word(c.shanten)}, "
                            f"{c.live_effective} live" for c in ranking[1:])
        if others:
            lines.append("others: " + others)
        return lines
    # a claim, or a kong on one's own turn: every kind of choice, the pick first
    lines = [f"Hint: {action_word(a, glyphs)}: {shanten_word(best.shanten)}{_points(best)}{_danger(best)}"]
    shown = 0
    for c in ranking[1:]:
        if c.action.type is ActionType.DISCARD and shown >= 1:
            continue  # one discard stands for the rest
        shown += c.action.type is ActionType.DISCARD
        lines.append(f"  {action_word(c.action, glyphs)}: {shanten_word(c.shanten)}{_points(c)}{_danger(c)}")
    return lines


def hint_lines(view: SeatView, legal: Sequence[Action], glyphs: bool = False) -> list[str]:
    """The hint for the situation ``legal`` describes, in a few lines."""
    if not legal:
        return ["Nothing to decide now."]
    return advice_lines(advise(view, legal), glyphs)


__all__ = ["action_word", "advice_lines", "hint_lines", "shanten_word"]
