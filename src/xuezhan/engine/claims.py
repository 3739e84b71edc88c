"""The claim window (docs/rules.md §5-6): a discard offered to the other seats, their
answers (hu, zhigang, peng, pass) and how the window resolves; 过水不胡 for a win passed up.

Functions over the :class:`~xuezhan.engine.state.HandState`, the top of the rule modules
(a window resolves into a win, a kong, a peng or the next draw); the game calls them from
:meth:`~xuezhan.engine.game.Game.apply`.
"""

from __future__ import annotations

from typing import Final

from ..ids import ActionKind, EventKind
from ..scoring import Meld, MeldKind
from ..tiles import Tile
from .actions import GANG_ACTIONS, HU_ACTIONS, PASS_ACTIONS, PENG_ACTIONS, Action
from .kongs import complete_bugang, zhigang
from .settlement import end_exhausted, next_draw
from .state import RIVER_OPEN, RIVER_ROBBED, RIVER_WON, HandState, Phase, Window
from .wins import discard_wins

_OTHERS = tuple(tuple((seat + k) % 4 for k in (1, 2, 3)) for seat in range(4))  # in play order
_DISCARD: Final = EventKind.DISCARD
_CLAIM: Final = Phase.CLAIM


def claim_options(st: HandState, seat: int, t: Tile) -> dict[int, tuple[Action, ...]]:
    """What each other seat may answer to ``seat``'s discard of ``t`` (seats with nothing to claim left out)."""
    seats = st.seats
    options: dict[int, tuple[Action, ...]] = {}
    rules = st.rules
    blood = rules.blood_river
    for o in _OTHERS[seat]:
        so = seats[o]
        if so.escaped or (so.won and not blood):
            continue
        wm = so.wm
        if wm < 0:
            wm = so.wait_mask()
        if so.counts[t] < 2 and not wm >> t & 1:
            continue  # the common case: nothing to claim
        acts: list[Action] = []
        can_hu = bool(wm >> t & 1) and not (so.pass_hu_any or t in so.pass_hu)
        if can_hu:
            acts.append(HU_ACTIONS[o])
        if not so.won and t // 9 != so.void:
            c = so.counts[t]
            if c == 3 and st.tail > st.head:
                acts.append(GANG_ACTIONS[o][t])
            if c >= 2:
                acts.append(PENG_ACTIONS[o])
        if acts:
            if can_hu and rules.must_hu_last_four and st.tail - st.head <= 4:
                acts = [HU_ACTIONS[o]]
            else:
                acts.append(PASS_ACTIONS[o])
            options[o] = tuple(acts)
    return options


def discard_shown(st: HandState, seat: int, t: Tile) -> None:
    """What everyone sees of ``seat``'s discard of ``t`` at once: the tile leaves the hand for the
    river (the discard event), nothing drawn. Whether anyone may claim it is :func:`discard`'s."""
    s = st.seats[seat]
    s.remove(t)
    s.river.append(t)
    s.river_state.append(RIVER_OPEN)
    st.events.append({"type": _DISCARD, "seat": seat, "tile": t})
    st.owners.append(None)
    st.drawn = None


def discard(st: HandState, seat: int, t: Tile) -> None:
    """``seat`` discards ``t``: the seats that may claim it get a window, else the next seat draws."""
    discard_shown(st, seat, t)
    options = claim_options(st, seat, t)
    if not options:
        next_draw(st, seat)
        return
    st.window = Window(t, seat, options, {}, after_kong=bool(st.turn_kongs), last_tile=st.drew_last,
                       opened_at=len(st.actions))
    st.phase = _CLAIM


def resolve_window(st: HandState) -> None:
    """Every claimant has answered: hu before kong before peng; a win passed up blocks that tile."""
    w = st.window
    assert w is not None
    st.window = None
    hu_seats = [o for o, a in w.answers.items() if a.type is ActionKind.HU]
    for o, acts in w.options.items():
        if o not in hu_seats and any(a.type is ActionKind.HU for a in acts):
            so = st.seats[o]
            if st.rules.pass_hu_scope == "any_tile":
                so.pass_hu_any = True
            else:
                so.pass_hu.add(w.tile)
            st.emit({"type": EventKind.PASS_HU, "seat": o, "tile": w.tile}, private=o)
    if w.robbing:
        if hu_seats:
            ks = st.seats[w.source]
            ks.river.append(w.tile)
            ks.river_state.append(RIVER_ROBBED)
            st.pending_bugang = None
            discard_wins(st, w, hu_seats)
        else:
            complete_bugang(st, w.source, w.tile)
        return
    if hu_seats:
        st.seats[w.source].river_state[-1] = RIVER_WON
        discard_wins(st, w, hu_seats)
        return
    for o, a in w.answers.items():
        if a.type is ActionKind.GANG:
            zhigang(st, o, w)
            return
        if a.type is ActionKind.PENG:
            peng(st, o, w)
            return
    if st.tail == st.head:
        end_exhausted(st)
        return
    next_draw(st, w.source)


def peng(st: HandState, seat: int, w: Window) -> None:
    st.claim_tile(w)
    s = st.seats[seat]
    s.remove(w.tile, 2)
    s.melds.append(Meld(MeldKind.PENG, w.tile))
    s.meld_suits |= 1 << (w.tile // 9)
    st.emit({"type": EventKind.PENG, "seat": seat, "tile": w.tile, "from": w.source})
    st.phase = Phase.TURN
    st.turn = seat
    st.drawn = None
    st.must_discard = True
    st.tsumo = None
    st.after_kong = False
    st.drew_last = False
    st.turn_kongs = []
    st.zhigang_source = None
