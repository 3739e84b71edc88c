"""What a seat's hand is worth and what it sees (docs/rules.md §5-6, §8): its waits, 花猪,
the copies of a tile in sight, 绝张, a win scored in its context, and 大叫.

Queries only: functions of the :class:`~xuezhan.engine.state.HandState` that change
nothing. The rule modules above (settlement, kongs, wins, claims) ask them.
"""

from __future__ import annotations

from ..hand import winning_tiles
from ..scoring import MeldKind, Score, WinContext, score_win
from ..tiles import Tile
from .state import RIVER_CLAIMED, HandState


def waits(st: HandState, seat: int) -> list[Tile]:
    """The tiles that would complete ``seat``'s hand."""
    s = st.seats[seat]
    return winning_tiles(s.counts, len(s.melds), meld_suits=s.meld_suits, void=s.void, owned=s.owned())


def is_hua_zhu(st: HandState, seat: int) -> bool:
    """花猪: still holding three suits, or (with 定缺) a tile of the void suit."""
    s = st.seats[seat]
    return s.suit_mask() == 7 or (st.rules.dingque and s.holds_void())


def visible_copies(st: HandState, seat: int, t: Tile) -> int:
    """Copies of ``t`` that ``seat`` can see: its own hand, the melds (others' concealed kongs
    lie face down), rivers, tiles set aside, and hands laid down by winners."""
    n = st.seats[seat].counts[t]
    for i, s in enumerate(st.seats):
        for m in s.melds:
            if m.tile == t and (m.kind is not MeldKind.ANGANG or i == seat or s.revealed):
                n += m.size
        for tt, state in zip(s.river, s.river_state, strict=False):
            if tt == t and state != RIVER_CLAIMED:
                n += 1
        n += s.aside.count(t)
        if i != seat and s.revealed:
            n += s.counts[t]
    return n


def face_up_copies(st: HandState, seat: int, t: Tile) -> int:
    """Copies of ``t`` face up for ``seat`` (docs/rules.md §5): what it can see but its own concealed tiles."""
    return visible_copies(st, seat, t) - st.seats[seat].counts[t]


def is_jue_zhang(st: HandState, seat: int, tile: Tile, self_drawn: bool) -> bool:
    """绝张 (docs/rules.md §6.2): every other copy of the winning tile, and every copy of each other tile
    the hand was waiting on, is face up. A discard won on lies face up in a river (a robbed
    kong tile too); a self-drawn one is in the winner's hand."""
    if face_up_copies(st, seat, tile) != (3 if self_drawn else 4):
        return False
    s = st.seats[seat]
    counts = s.counts[:]
    owned = s.owned()
    if self_drawn:
        counts[tile] -= 1
        owned[tile] -= 1
    tiles = winning_tiles(counts, len(s.melds), meld_suits=s.meld_suits, void=s.void, owned=owned)
    return all(face_up_copies(st, seat, w) == 4 for w in tiles if w != tile)


def score_hand(st: HandState, seat: int, tile: Tile, ctx: WinContext, extra: bool) -> Score:
    """``seat``'s hand scored as a win on ``tile`` (``extra``: the tile is not in the hand yet)."""
    s = st.seats[seat]
    tiles = s.tiles()
    if extra:
        tiles.append(tile)
    result = score_win(tiles, s.melds, tile, ctx, st.rules, s.void, check=False)
    assert isinstance(result, Score), result
    return result


def da_jiao(st: HandState, seat: int, pays: str | None = None) -> int:
    """The points of a ready seat's best (``max``) or lowest (``min``) discard win (大叫)."""
    pays = pays or st.rules.cha_jiao_pays
    values = [score_hand(st, seat, t, WinContext(), extra=True).hand_points for t in waits(st, seat)]
    if not values:
        return 0
    return max(values) if pays == "max" else min(values)


def counts_as_ready(st: HandState, seat: int) -> bool:
    """Ready for 查大叫: waiting on a tile (and, unless ``dead_wait_counts``, one not all in sight)."""
    tiles = waits(st, seat)
    if not tiles:
        return False
    if st.rules.dead_wait_counts:
        return True
    return any(visible_copies(st, seat, t) < 4 for t in tiles)


def hand_finished(st: HandState) -> bool:
    """No more play after a win: the first win ends it, or (outside 血流成河) one seat is left."""
    if st.rules.end_on_first_win:
        return True
    if st.rules.blood_river:
        return False
    return sum(1 for i in range(4) if st.active(i)) <= 1
