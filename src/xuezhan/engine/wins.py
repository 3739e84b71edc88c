"""Wins (docs/rules.md §6 and §8): self-drawn and discard wins and their payments, the
winner's hand laid down or kept (血流成河), and whether the hand goes on after a win.

Functions over the :class:`~xuezhan.engine.state.HandState`, above
:mod:`~xuezhan.engine.kongs` (呼叫转移) and :mod:`~xuezhan.engine.settlement` (the end).
"""

from __future__ import annotations

from ..ids import EventKind, Reason
from ..scoring import WinContext
from ..tiles import NUM_KINDS, Tile
from .kongs import call_transfer
from .settlement import finish, next_draw
from .state import HandState, Window, WinRecord
from .worth import hand_finished, is_jue_zhang, score_hand


def self_drawn_win(st: HandState, seat: int) -> None:
    s = st.seats[seat]
    tile = st.drawn if st.drawn is not None else max(t for t in range(NUM_KINDS) if s.counts[t])
    first_action = st.clean_start and not s.won
    tian = first_action and seat == st.dealer and s.draws == 0
    di = first_action and seat != st.dealer and s.draws == 1 and not st.after_kong
    # 点杠花 paid as a discard win: only a win on the zhigang's own replacement (the turn's last kong)
    zhigang_pays = bool(
        st.after_kong and st.zhigang_source is not None and st.rules.dian_gang_hua == "discard"
        and st.turn_kongs and st.turn_kongs[-1].kind == Reason.ZHIGANG
    )
    ctx = WinContext(
        self_drawn=True,
        after_kong=st.after_kong,
        last_tile=st.drew_last,
        tian_hu=tian,
        di_hu=di,
        last_copy=is_jue_zhang(st, seat, tile, self_drawn=True),
        paid_as_discard=zhigang_pays,
    )
    score = score_hand(st, seat, tile, ctx, extra=False)
    st.win_groups += 1
    st.winners.append(WinRecord(seat, None, tile, score, st.win_groups))
    st.emit({"type": EventKind.HU, "seat": seat, "from": None, "tile": tile, "fan": score.fan,
             "multiple": score.multiple, "base": score.base, "extras": score.extras_dict})
    if zhigang_pays:
        # it stays a self-drawn win (``from`` null); its points carry no self-draw bonus
        assert st.zhigang_source is not None
        st.pay(st.zhigang_source, seat, score.points, Reason.HU)
    else:
        for o in range(4):
            if o != seat and st.active(o):
                st.pay(o, seat, score.points, Reason.ZIMO)
    mark_won(st, seat, tile, self_drawn=True)
    st.clean_start = False
    if hand_finished(st):
        finish(st)
        return
    next_draw(st, seat)


def discard_wins(st: HandState, w: Window, hu_seats: list[int]) -> None:
    order = sorted(hu_seats, key=lambda o: (o - w.source) % 4)
    st.win_groups += 1
    transfer, transfer_kongs = call_transfer(st, w)
    for o in order:
        # the won tile already lies in the discarder's river (a robbed one in the konger's); seats
        # winning on the same tile do not see each other's hands: they are laid down after all scored
        ctx = WinContext(
            after_kong=w.after_kong and not w.robbing,
            robbing_kong=w.robbing,
            last_tile=w.last_tile,
            last_copy=is_jue_zhang(st, o, w.tile, self_drawn=False),
        )
        score = score_hand(st, o, w.tile, ctx, extra=True)
        st.winners.append(WinRecord(o, w.source, w.tile, score, st.win_groups, robbed=w.robbing))
        st.emit({"type": EventKind.HU, "seat": o, "from": w.source, "tile": w.tile, "fan": score.fan,
                 "multiple": score.multiple, "base": score.base, "extras": score.extras_dict,
                 "robbing": w.robbing})
        st.pay(w.source, o, score.hand_points, Reason.HU)
        if transfer:
            st.pay(w.source, o, transfer, Reason.CALL_TRANSFER)
    for k in transfer_kongs:
        k.transferred = True
    for o in order:
        mark_won(st, o, w.tile, self_drawn=False)
    st.clean_start = False
    if hand_finished(st):
        finish(st)
        return
    next_draw(st, order[-1])


def winners_play_on(st: HandState) -> bool:
    """A winner plays on after its win (血流成河), so its hand at the end is not the one it won
    with; else (血战到底) it lays its hand down and plays no more."""
    return st.rules.blood_river


def mark_won(st: HandState, seat: int, tile: Tile, self_drawn: bool) -> None:
    s = st.seats[seat]
    s.wins += 1
    s.won = True
    if not winners_play_on(st):
        s.revealed = True  # the winner lays its hand down
    elif self_drawn:
        # blood_river: the winner keeps playing its 13 tiles; the winning tile is set aside
        # (a discard won on stays in the discarder's river)
        s.remove(tile)
        s.aside.append(tile)
