"""A heuristic bot: void by suit counts, discards by shanten and live effective tiles.

- 定缺: the suit with the fewest tiles (ties: the one with fewer pairs and neighbours).
- 换三张: the three tiles of the shortest suit (three or more) that keep shanten lowest.
- Always takes a win. Pengs and kongs only when that does not hurt shanten.
- Discards the tile leaving the lowest shanten, then the most live effective tiles
  (copies it cannot see), then the least dangerous: a tile of a suit an opponent has
  not voided and builds in is riskier, and in 血流成河 a tile a winner already won on
  is a visible wait.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..engine.actions import Action, ActionType
from ..engine.views import SeatView
from ..hand import shanten


def _suit_value(counts: Sequence[int], suit: int) -> tuple[int, int]:
    c = counts[suit * 9 : suit * 9 + 9]
    n = sum(c)
    pairs = sum(1 for x in c if x >= 2)
    links = sum(1 for r in range(8) if c[r] and c[r + 1]) + sum(1 for r in range(7) if c[r] and c[r + 2])
    return n, pairs * 2 + links


class HeuristicBot:
    name = "heuristic"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def start_hand(self, seed: int) -> None:
        """Deterministic: nothing to seed."""

    # --- evaluation helpers ----------------------------------------------------------------------
    @staticmethod
    def _shanten(counts: list[int], n_melds: int, meld_suits: int, void: int | None) -> int:
        return shanten(counts, n_melds, meld_suits=meld_suits, void=void)

    def _ukeire(self, counts: list[int], n_melds: int, meld_suits: int, void: int | None,
                base: int, visible: list[int], candidates: Sequence[int]) -> int:
        """Live copies of the ``candidates`` that lower shanten of a 13-equivalent hand."""
        total = 0
        for t in candidates:
            counts[t] += 1
            if shanten(counts, n_melds, meld_suits=meld_suits, void=void) < base:
                total += 4 - visible[t]
            counts[t] -= 1
        return total

    @staticmethod
    def _candidates(counts: list[int], void: int | None, visible: list[int]) -> list[int]:
        """Tiles that could lower shanten: live, not void, next to (or the same as) a held tile."""
        out = []
        for t in range(27):
            s = t // 9
            if s == void or visible[t] >= 4:
                continue
            r = t - s * 9
            base = s * 9
            if any(counts[base + x] for x in range(max(0, r - 2), min(8, r + 2) + 1)):
                out.append(t)
        return out

    def _danger(self, view: SeatView, t: int) -> int:
        danger = 0
        voids = view.voids()
        for o in range(4):
            if o == view.seat or (view.won(o) and not view.rules.blood_river):
                continue
            if view.won(o) and t in view.win_tiles(o):
                danger += 8  # blood_river: a winner's hand is fixed, so it waits on what it won on
            if voids[o] == t // 9:
                continue
            danger += 1 + sum(1 for m in view.melds(o) if m.tile // 9 == t // 9)
        return danger

    # --- decisions -------------------------------------------------------------------------------
    def choose(self, view: SeatView, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        kinds = {a.type for a in legal}
        if ActionType.HU in kinds:
            return next(a for a in legal if a.type is ActionType.HU)
        first = legal[0].type
        if first is ActionType.DINGQUE:
            counts = view.counts
            return min(legal, key=lambda a: (_suit_value(counts, a.suit or 0), a.suit))
        if first is ActionType.EXCHANGE:
            return self._exchange(view, legal)
        melds = view.melds(view.seat)
        meld_suits = 0
        for m in melds:
            meld_suits |= 1 << (m.tile // 9)
        void = view.void
        counts = view.counts
        if view.phase == "turn":
            return self._turn(view, legal, counts, len(melds), meld_suits, void)
        # a claim window: peng / gang / pass
        t = view.offered_tile
        assert t is not None
        now = self._shanten(counts, len(melds), meld_suits, void)
        for a in legal:
            if a.type is ActionType.GANG:
                counts[t] -= 3
                after = self._shanten(counts, len(melds) + 1, meld_suits | 1 << (t // 9), void)
                counts[t] += 3
                if after <= now:
                    return a
        for a in legal:
            if a.type is ActionType.PENG:
                counts[t] -= 2
                best = 99
                ms = meld_suits | 1 << (t // 9)
                for d in range(27):
                    if counts[d]:
                        counts[d] -= 1
                        best = min(best, self._shanten(counts, len(melds) + 1, ms, void))
                        counts[d] += 1
                counts[t] += 2
                if best < now or (best == now and now <= 1):
                    return a
        return next(a for a in legal if a.type is ActionType.PASS)

    def _exchange(self, view: SeatView, legal: Sequence[Action]) -> Action:
        counts = view.counts
        sizes = [sum(counts[s * 9 : s * 9 + 9]) for s in range(3)]
        suit = min((s for s in range(3) if sizes[s] >= 3), key=lambda s: (sizes[s], _suit_value(counts, s)))
        options = [a for a in legal if a.tiles and a.tiles[0] // 9 == suit]

        def cost(a: Action) -> int:
            for t in a.tiles:
                counts[t] -= 1
            v = shanten(counts, 0)
            for t in a.tiles:
                counts[t] += 1
            return v

        return min(options, key=cost)

    def _turn(self, view: SeatView, legal: Sequence[Action], counts: list[int], n_melds: int,
              meld_suits: int, void: int | None) -> Action:
        discards = [a for a in legal if a.type is ActionType.DISCARD]
        gangs = [a for a in legal if a.type is ActionType.GANG]
        holding_void = void is not None and any(counts[void * 9 : void * 9 + 9])
        if gangs and not holding_void:
            now = self._shanten(counts, n_melds, meld_suits, void)
            for a in gangs:
                t = a.tile
                assert t is not None
                if counts[t] == 4:
                    counts[t] -= 4
                    after = self._shanten(counts, n_melds + 1, meld_suits | 1 << (t // 9), void)
                    counts[t] += 4
                else:
                    counts[t] -= 1
                    after = self._shanten(counts, n_melds, meld_suits, void)
                    counts[t] += 1
                if after <= now:
                    return a
        if len(discards) == 1:
            return discards[0]
        if holding_void:
            # void tiles go first: the most dangerous ones early, while opponents are far from ready
            return max(discards, key=lambda a: (self._danger(view, a.tile or 0), -(a.tile or 0)))
        visible = view.visible_counts()
        scored = []
        for a in discards:
            t = a.tile
            assert t is not None
            counts[t] -= 1
            sh = self._shanten(counts, n_melds, meld_suits, void)
            counts[t] += 1
            scored.append((sh, a))
        best_sh = min(sh for sh, _ in scored)
        finalists = [a for sh, a in scored if sh == best_sh]
        if len(finalists) == 1:
            return finalists[0]
        late = view.live < 16
        if best_sh >= 2:
            # far from ready: effective-tile counts barely separate the choices; keep connected
            # tiles (pairs, neighbours) and give up the most isolated one
            def isolation(a: Action) -> tuple[int, int, int]:
                t = a.tile
                assert t is not None
                s, r = divmod(t, 9)
                near = sum(counts[s * 9 + x] for x in range(max(0, r - 2), min(8, r + 2) + 1)) - 1
                edge = 1 if r in (0, 8) else 0
                return (-near, edge, -self._danger(view, t) if late else 0)

            return max(finalists, key=isolation)

        candidates = self._candidates(counts, void, visible)

        def key(a: Action) -> tuple[int, int, int]:
            t = a.tile
            assert t is not None
            counts[t] -= 1
            uk = self._ukeire(counts, n_melds, meld_suits, void, best_sh, visible, candidates)
            counts[t] += 1
            danger = self._danger(view, t)
            if late and best_sh >= 1:
                return (-danger, uk, -t)
            return (uk, -danger, -t)

        return max(finalists, key=key)
