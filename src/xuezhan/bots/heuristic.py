"""A heuristic bot: plays for expected points, reads danger, folds when it pays.

- 定缺: the suit with the fewest tiles (ties: the one with fewer pairs and neighbours).
- 换三张: the three tiles of the shortest suit (three or more) that keep shanten lowest.
- Always takes a win.
- Kongs (concealed, added, on a discard) whenever they cost no shanten (a kong is paid at
  once and its 根 doubles the hand), even while void tiles are still held; a ready hand
  kongs only when it stays ready. Far from ready a kong may cost one step.
- Pengs when they bring the hand closer, or keep it as close while it heads for 对对胡
  (many pairs) or for 清一色 in the peng's suit; never a peng outside a 清一色 plan.
- 清一色: with one suit dominant (melds included) and the one-suit hand not much further
  than the mixed one, the other suit is thrown first.
- Discards: the lowest shanten; a ready hand keeps the waits worth most (live copies ×
  points of each wait, 对对胡 / 七对 / 清一色 / 根 counted by the scorer); one step from
  ready, the most live effective tiles (weighted up for a 清一色 or 七对 plan); further
  away, the most isolated tile. Every choice weighs danger.
- Danger: how likely each opponent is ready (melds, discards so far, the wall, middle
  tiles thrown late) times how likely it waits on the tile (its void suit is safe, its own
  discards and tiles mostly seen are safer, a suit it builds in with every meld is not),
  times what its hand is worth. Void tiles go safest-first when someone looks ready, else
  most dangerous first. Far from ready against a ready-looking opponent, it folds: the
  safest tile.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import lru_cache

from ..engine.actions import Action, ActionType
from ..engine.views import SeatView
from ..hand import shanten, winning_tiles
from ..rules import Rules
from ..scoring import Meld, NoWin, WinContext, hand_points, score_win, suits_of_melds

_RANK_WEIGHT = (0.55, 0.8, 1.0, 1.0, 1.0, 1.0, 1.0, 0.8, 0.55)
"""How often a ready hand waits on a rank (edge tiles close fewer shapes)."""
_READY_BY_MELDS = (0.04, 0.14, 0.35, 0.75, 0.95)
"""How likely an opponent is ready before its river is read, by its melds (four or more: the last)."""


_NONE_SEEN: tuple[int, ...] = (0,) * 27


def _suit_value(counts: Sequence[int], suit: int) -> tuple[int, int]:
    c = counts[suit * 9 : suit * 9 + 9]
    n = sum(c)
    pairs = sum(1 for x in c if x >= 2)
    links = sum(1 for r in range(8) if c[r] and c[r + 1]) + sum(1 for r in range(7) if c[r] and c[r + 2])
    return n, pairs * 2 + links


@lru_cache(maxsize=1 << 15)
def wait_points(counts: tuple[int, ...], melds: tuple[Meld, ...], tile: int, rules: Rules, void: int | None) -> int:
    """Points one payer pays for a discard win on ``tile`` (0 if it is no win)."""
    concealed = [t for t in range(27) for _ in range(counts[t])] + [tile]
    score = score_win(concealed, melds, tile, WinContext(), rules, void, check=False)
    return 0 if isinstance(score, NoWin) else score.points


def _one_suit(counts: Sequence[int], suit: int) -> list[int]:
    out = [0] * 27
    out[suit * 9 : suit * 9 + 9] = counts[suit * 9 : suit * 9 + 9]
    return out


class HeuristicBot:
    name = "heuristic"
    fold_at = 0.7
    """Readiness of the most threatening opponent at which a hand two steps from ready folds."""
    qing_slack = (3, 2, 1)
    """Extra steps a 清一色 plan may cost: early (wall > 45), middle (> 25), late."""
    danger_weight = 6.0
    """Effective tiles one unit of danger is worth, one step from ready."""
    void_safe_at = 0.45
    """Readiness of the most threatening opponent from which void tiles go safest first."""
    far_kong = True
    """Far from ready (two steps or more, over 20 tiles left), a kong may cost one step."""
    pung_plan = True
    """Peng at no shanten cost when the hand has five pairs or more (对对胡) or the tile is of a 清一色 plan."""

    def __init__(self, rng: random.Random, *, quick: bool = False) -> None:
        self.rng = rng
        self.quick = quick
        """Quick play for search play-outs: no reading of danger, no counting of effective tiles."""

    def start_hand(self, seed: int) -> None:
        """Deterministic: nothing to seed."""

    # --- reading the table -----------------------------------------------------------------------
    @staticmethod
    def readiness(view: SeatView, o: int) -> float:
        """How likely opponent ``o`` is ready, from what is on the table."""
        melds = len(view.melds(o)) + view.hidden_kongs(o)
        river = view.river(o)
        base = _READY_BY_MELDS[min(melds, 4)]
        turns = len(river)
        late = min(0.65, max(0, turns - 5) * 0.065)
        p = 1.0 - (1.0 - base) * (1.0 - late)
        void = view.voids()[o]
        # middle tiles of a kept suit thrown lately: a hand with nothing left to build
        for t in river[-3:]:
            s, r = divmod(t, 9)
            if s != void and 2 <= r <= 6 and turns > 6:
                p += 0.06
        return min(p, 0.97)

    @staticmethod
    def wait_weight(view: SeatView, o: int, t: int, visible: Sequence[int]) -> float:
        """How likely a ready opponent ``o`` waits on ``t`` (relative)."""
        s, r = divmod(t, 9)
        if view.voids()[o] == s:
            return 0.0
        seen = visible[t]
        if seen >= 4:
            return 0.0
        w = _RANK_WEIGHT[r]
        if t in view.river(o):
            w *= 0.35
        if seen == 3:
            w *= 0.35
        elif seen == 2:
            w *= 0.8
        melds = view.melds(o)
        if melds:
            in_suit = sum(1 for m in melds if m.tile // 9 == s)
            if in_suit == len(melds):
                w *= 1.0 + 0.4 * in_suit  # every meld in this suit: building 清一色 in it
            elif in_suit == 0:
                w *= 0.6
        return w

    def threats(self, view: SeatView) -> list[tuple[int, float, float]]:
        """``(opponent, readiness, worth)`` for every opponent still playing (or winning again)."""
        out = []
        blood_river = view.rules.blood_river
        for o in range(4):
            if o == view.seat:
                continue
            if view.won(o) and not blood_river:
                continue
            melds = view.melds(o)
            worth = 1.0 + 0.5 * sum(1 for m in melds if m.kind != "peng") + 0.25 * len(melds)
            out.append((o, 0.97 if view.won(o) else self.readiness(view, o), worth))
        return out

    def danger(self, view: SeatView, t: int, threats: Sequence[tuple[int, float, float]],
               visible: Sequence[int]) -> float:
        """Expected loss (relative units) of discarding ``t``."""
        d = 0.0
        for o, p, worth in threats:
            if view.won(o):
                if t in view.win_tiles(o):
                    d += 3.0 * worth  # blood_river: a winner's hand is fixed, it waits on what it won on
                continue
            d += p * worth * self.wait_weight(view, o, t, visible)
        return d

    # --- decisions -------------------------------------------------------------------------------
    def choose(self, view: SeatView, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        for a in legal:
            if a.type is ActionType.HU:
                return a
        first = legal[0].type
        if first is ActionType.DINGQUE:
            counts = view.counts
            return min(legal, key=lambda a: (_suit_value(counts, a.suit or 0), a.suit))
        if first is ActionType.EXCHANGE:
            return self._exchange(view, legal)
        if view.phase == "turn":
            return self._turn(view, legal)
        return self._claim(view, legal)

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

    # --- plans -------------------------------------------------------------------------------------
    def qing_suit(self, view: SeatView, counts: Sequence[int], melds: Sequence[Meld], now: int) -> int | None:
        """The suit of a 清一色 plan, or ``None``: one suit dominant (melds included), every meld
        in it, and the one-suit hand not much further from ready than the mixed one."""
        void = view.void
        sizes = [sum(counts[s * 9 : s * 9 + 9]) for s in range(3)]
        for m in melds:
            sizes[m.tile // 9] += 3
        suit = max((s for s in range(3) if s != void), key=lambda s: sizes[s])
        if any(m.tile // 9 != suit for m in melds):
            return None
        total = sum(sizes)
        live = view.live
        need = 9 if live > 40 else 10 if live > 25 else 12
        if sizes[suit] * 14 < need * total:
            return None
        qsh = shanten(_one_suit(counts, suit), len(melds), meld_suits=1 << suit)
        slack = self.qing_slack[0 if live > 45 else 1 if live > 25 else 2]
        cap = view.rules.cap_multiple
        if cap is not None and cap <= 8:
            slack -= 1  # a capped hand gains less from 清一色's ×4
        return suit if qsh <= now + slack else None

    @staticmethod
    def stake(view: SeatView) -> int:
        """The points of a ×1 hand at this table (:func:`~xuezhan.scoring.hand_points`): the unit
        in which a discard's danger is weighed against what the hand may win."""
        return hand_points(view.rules, 1)

    @staticmethod
    def pung_shape(counts: Sequence[int], n_melds: int) -> int:
        """Pairs and pungs in hand plus melds: five or more make 对对胡 / 七对 likely."""
        return n_melds + sum(1 for c in counts if c >= 2)

    # --- claims ------------------------------------------------------------------------------------
    def _claim(self, view: SeatView, legal: Sequence[Action]) -> Action:
        t = view.offered_tile
        assert t is not None
        counts = view.counts
        melds = view.melds(view.seat)
        n = len(melds)
        meld_suits = suits_of_melds(melds)
        void = view.void
        now = shanten(counts, n, meld_suits=meld_suits, void=void)
        qing = self.qing_suit(view, counts, melds, now)
        if qing is not None and t // 9 != qing:
            return next(a for a in legal if a.type is ActionType.PASS)
        ms = meld_suits | 1 << (t // 9)
        for a in legal:
            if a.type is ActionType.GANG:
                counts[t] -= 3
                after = shanten(counts, n + 1, meld_suits=ms, void=void)
                counts[t] += 3
                if after <= now or (self.far_kong and now >= 2 and after == now + 1 and view.live > 20):
                    return a
        for a in legal:
            if a.type is ActionType.PENG:
                counts[t] -= 2
                best = 99
                for d in range(27):
                    if counts[d]:
                        counts[d] -= 1
                        v = shanten(counts, n + 1, meld_suits=ms, void=void)
                        counts[d] += 1
                        if v < best:
                            best = v
                counts[t] += 2
                if best < now or (best == now and now <= 1):
                    return a
                if self.pung_plan and best == now and (qing is not None or self.pung_shape(counts, n) >= 5):
                    return a
        return next(a for a in legal if a.type is ActionType.PASS)

    # --- own turn ----------------------------------------------------------------------------------
    def _turn(self, view: SeatView, legal: Sequence[Action]) -> Action:
        counts = view.counts
        melds = view.melds(view.seat)
        n = len(melds)
        meld_suits = suits_of_melds(melds)
        void = view.void
        discards = [a for a in legal if a.type is ActionType.DISCARD]
        gangs = [a for a in legal if a.type is ActionType.GANG]
        now = shanten(counts, n, meld_suits=meld_suits, void=void)
        if gangs:
            kong = self._kong(view, gangs, counts, n, meld_suits, void, now)
            if kong is not None:
                return kong
        if len(discards) == 1:
            return discards[0]
        # quick play reads no danger: the copies in sight matter only to a ready hand's waits
        visible: Sequence[int] = _NONE_SEEN if self.quick else view.visible_counts()
        threats = [] if self.quick else self.threats(view)
        top = max((p for _, p, _ in threats), default=0.0)
        holding_void = void is not None and any(counts[void * 9 : void * 9 + 9])
        if holding_void:
            voids = [a for a in discards if (a.tile or 0) // 9 == void] or discards
            danger = {a.tile: self.danger(view, a.tile or 0, threats, visible) for a in voids}
            if top >= self.void_safe_at:  # someone may be ready: the safest void tile
                return min(voids, key=lambda a: (danger[a.tile], a.tile))
            # nobody close yet: the most dangerous ones early, while they are still safe
            return max(voids, key=lambda a: (danger[a.tile], -(a.tile or 0)))
        scored: list[tuple[int, Action]] = []
        for a in discards:
            t = a.tile
            assert t is not None
            counts[t] -= 1
            scored.append((shanten(counts, n, meld_suits=meld_suits, void=void), a))
            counts[t] += 1
        best_sh = min(sh for sh, _ in scored)
        fold = (best_sh >= 2 and top >= self.fold_at) or (best_sh == 1 and top >= 0.85 and view.live < 20)
        if threats and fold:
            # fold: the safest tile (the closest hand among equally safe ones)
            return min(scored, key=lambda x: (round(self.danger(view, x[1].tile or 0, threats, visible), 3),
                                              x[0], x[1].tile))[1]
        finalists = [a for sh, a in scored if sh == best_sh]
        qing = self.qing_suit(view, counts, melds, best_sh)
        if qing is not None:
            off = [a for a in discards if (a.tile or 0) // 9 != qing]
            if off:
                # the plan throws the other suit: its least useful tile, lowest shanten first
                rank = {id(a): sh for sh, a in scored}
                low = min(rank[id(a)] for a in off)
                finalists = [a for a in off if rank[id(a)] == low]
                best_sh = low
        if len(finalists) == 1:
            return finalists[0]
        if best_sh == 0:
            if self.quick:
                visible = view.visible_counts()
            return self._ready_discard(view, finalists, counts, melds, void, visible, threats)
        if best_sh >= 2 or self.quick:
            late = view.live < 30

            def isolation(a: Action) -> tuple[int, int, float, int]:
                t = a.tile
                assert t is not None
                s, r = divmod(t, 9)
                near = sum(counts[s * 9 + x] for x in range(max(0, r - 2), min(8, r + 2) + 1)) - 1
                edge = 1 if r in (0, 8) else 0
                d = self.danger(view, t, threats, visible) if late else 0.0
                return (-near, edge, -d, -t)

            return max(finalists, key=isolation)
        # one step from ready: live effective tiles, worth more toward 七对 / 清一色, against danger
        pairs = sum(1 for c in counts if c >= 2)

        def value(a: Action) -> tuple[float, int]:
            t = a.tile
            assert t is not None
            counts[t] -= 1
            uk = 0
            for u in range(27):
                if u // 9 == void or visible[u] >= 4:
                    continue
                counts[u] += 1
                if shanten(counts, n, meld_suits=meld_suits, void=void) < best_sh:
                    uk += 4 - visible[u]
                counts[u] -= 1
            counts[t] += 1
            d = self.danger(view, t, threats, visible)
            bonus = 1.0 + (0.4 if n == 0 and pairs >= 5 and counts[t] != 2 else 0.0)
            return (uk * bonus - self.danger_weight * d, -t)

        return max(finalists, key=value)

    def _ready_discard(self, view: SeatView, finalists: Sequence[Action], counts: list[int], melds: list[Meld],
                       void: int | None, visible: Sequence[int], threats: Sequence[tuple[int, float, float]]) -> Action:
        """Ready after the discard: keep the waits worth most (live copies × points) against danger."""
        rules = view.rules
        meld_t = tuple(melds)
        meld_suits = suits_of_melds(melds)
        owned = counts[:]
        for m in melds:
            owned[m.tile] += m.size
        base = self.stake(view)

        def value(a: Action) -> tuple[float, int]:
            t = a.tile
            assert t is not None
            counts[t] -= 1
            owned[t] -= 1
            key = tuple(counts)
            ev = 0.0
            for w in winning_tiles(counts, len(melds), meld_suits=meld_suits, void=void, owned=owned):
                live = 4 - visible[w]
                if live > 0:
                    ev += live * wait_points(key, meld_t, w, rules, void)
            counts[t] += 1
            owned[t] += 1
            d = self.danger(view, t, threats, visible)
            return (ev - 3.0 * base * d, -t)

        return max(finalists, key=value)

    def _kong(self, view: SeatView, gangs: Sequence[Action], counts: list[int], n: int, meld_suits: int,
              void: int | None, now: int) -> Action | None:
        """A concealed or added kong that costs no shanten (a ready hand: that stays ready)."""
        for a in gangs:
            t = a.tile
            assert t is not None
            if t // 9 == void:
                continue
            if counts[t] == 4:
                counts[t] -= 4
                after = shanten(counts, n + 1, meld_suits=meld_suits | 1 << (t // 9), void=void)
                counts[t] += 4
            else:  # added kong: the tile leaves the hand, the peng becomes a kong
                counts[t] -= 1
                after = shanten(counts, n, meld_suits=meld_suits, void=void)
                counts[t] += 1
            if after <= now or (self.far_kong and now >= 2 and after == now + 1 and view.live > 20):
                return a
        return None
