"""Hints for the human seat, from its own view only.

For a discard: every legal choice with the shanten it leaves and the live effective
tiles (the copies this seat cannot see of every tile that would lower that shanten).
For a claim: the shanten now and after the claim. For 定缺 and 换三张: what the
heuristic bot would pick, given the same view.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from ..bots.heuristic import HeuristicBot
from ..engine.actions import Action, ActionType
from ..engine.views import SeatView
from ..hand import shanten
from ..tiles import NUM_KINDS, Tile
from .words import suit_name, tile_label, tiles_words


@dataclass(frozen=True, slots=True)
class DiscardHint:
    """One discard choice: the shanten it leaves, and the live copies of the tiles that improve it."""

    tile: Tile
    shanten: int
    live: int
    effective: tuple[Tile, ...]


def _melds_info(view: SeatView) -> tuple[int, int]:
    melds = view.melds(view.seat)
    mask = 0
    for m in melds:
        mask |= 1 << (m.tile // 9)
    return len(melds), mask


def discard_hints(view: SeatView, legal: Sequence[Action]) -> list[DiscardHint]:
    """The legal discards, best first: lowest shanten, then most live effective tiles."""
    counts = view.counts
    n_melds, meld_suits = _melds_info(view)
    void = view.void
    visible = view.visible_counts()
    out: list[DiscardHint] = []
    seen: set[Tile] = set()
    for a in legal:
        if a.type is not ActionType.DISCARD or a.tile is None or a.tile in seen:
            continue
        t = a.tile
        seen.add(t)
        counts[t] -= 1
        sh = shanten(counts, n_melds, meld_suits=meld_suits, void=void)
        effective: list[Tile] = []
        live = 0
        for u in range(NUM_KINDS):
            if u // 9 == void or visible[u] >= 4 or counts[u] >= 4:
                continue
            counts[u] += 1
            if shanten(counts, n_melds, meld_suits=meld_suits, void=void) < sh:
                effective.append(u)
                live += 4 - visible[u]
            counts[u] -= 1
        counts[t] += 1
        out.append(DiscardHint(t, sh, live, tuple(effective)))
    out.sort(key=lambda h: (h.shanten, -h.live, h.tile))
    return out


def shanten_word(sh: int) -> str:
    if sh < 0:
        return "complete"
    if sh == 0:
        return "ready"
    return f"shanten {sh}"


def hint_lines(view: SeatView, legal: Sequence[Action], glyphs: bool = False) -> list[str]:
    """The hint for the situation ``legal`` describes, in a few lines."""
    if not legal:
        return ["Nothing to decide now."]
    kinds = {a.type for a in legal}
    if ActionType.HU in kinds:
        return ["Hint: you can win: press h (hu)."]
    first = legal[0].type
    if first is ActionType.DINGQUE or first is ActionType.EXCHANGE:
        bot = HeuristicBot(random.Random(0))
        choice = bot.choose(view, legal)
        if choice.type is ActionType.DINGQUE:
            return [f"Hint: choose {suit_name(choice.suit or 0)} as your void (the suit you can best give up)."]
        return [f"Hint: pass {tiles_words(choice.tiles, glyphs)} (keeps your hand closest to ready)."]
    n_melds, meld_suits = _melds_info(view)
    counts = view.counts
    void = view.void
    if view.phase in ("claim", "rob"):
        t = view.offered_tile
        now = shanten(counts, n_melds, meld_suits=meld_suits, void=void)
        lines = [f"Hint: you are at {shanten_word(now)}."]
        if t is not None and ActionType.PENG in kinds:
            counts[t] -= 2
            after = 99
            ms = meld_suits | 1 << (t // 9)
            for d in range(NUM_KINDS):
                if counts[d]:
                    counts[d] -= 1
                    after = min(after, shanten(counts, n_melds + 1, meld_suits=ms, void=void))
                    counts[d] += 1
            counts[t] += 2
            verdict = "take it" if after < now or (after == now and now <= 1) else "better pass"
            lines.append(f"peng {tile_label(t, glyphs)} then the best discard: {shanten_word(after)} ({verdict}).")
        if t is not None and ActionType.GANG in kinds:
            counts[t] -= 3
            after = shanten(counts, n_melds + 1, meld_suits=meld_suits | 1 << (t // 9), void=void)
            counts[t] += 3
            lines.append(f"kong {tile_label(t, glyphs)}: {shanten_word(after)}.")
        return lines
    hints = discard_hints(view, legal)
    if not hints:
        gangs = [a for a in legal if a.type is ActionType.GANG]
        return [f"Hint: kong {tile_label(gangs[0].tile or 0, glyphs)}."] if gangs else ["Nothing to decide now."]
    best = hints[0]
    eff = tiles_words(best.effective[:8], glyphs) + (" …" if len(best.effective) > 8 else "")
    lines = [f"Hint: discard {tile_label(best.tile, glyphs)}: {shanten_word(best.shanten)}, "
             f"{best.live} live effective tiles ({eff or 'none'})"]
    others = " · ".join(f"{tile_label(h.tile, glyphs)}: {shanten_word(h.shanten)}, {h.live} live" for h in hints[1:])
    if others:
        lines.append("others: " + others)
    return lines
