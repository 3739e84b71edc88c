"""Kongs and their payments (docs/rules.md §5 and §7): 暗杠, 补杠 (which the others may rob),
直杠 on a discard, and the points each one earns at once.

Every kong is kept as a :class:`~xuezhan.engine.state.KongRecord` with its payments: a win
on the konger's next discard takes them over (呼叫转移, see :func:`call_transfer`), and a
seat not ready at the end gives them back (退税, :mod:`xuezhan.engine.settlement`).
Functions over the :class:`~xuezhan.engine.state.HandState`; what each kong is worth comes
from :mod:`xuezhan.scoring`.
"""

from __future__ import annotations

from ..ids import EventKind, Reason
from ..scoring import Meld, MeldKind, angang_points, bugang_points, zhigang_points
from ..tiles import Tile
from .actions import HU_ACTIONS, PASS_ACTIONS, Action
from .state import HandState, KongRecord, Phase, Window


def angang(st: HandState, seat: int, t: Tile) -> None:
    s = st.seats[seat]
    s.remove(t, 4)
    s.melds.append(Meld(MeldKind.ANGANG, t))
    s.meld_suits |= 1 << (t // 9)
    st.clean_start = False
    st.emit({"type": EventKind.ANGANG, "seat": seat, "tile": t}, private=seat)  # laid face down
    kong = KongRecord(seat, Reason.ANGANG, t)
    pts = angang_points(st.rules)
    for o in range(4):
        if o != seat and st.active(o):
            st.pay(o, seat, pts, Reason.ANGANG)
            kong.payments.append((o, pts))
    st.kongs.append(kong)
    st.turn_kongs.append(kong)
    st.draw(seat, replacement=True)


def rob_options(st: HandState, seat: int, t: Tile) -> dict[int, tuple[Action, ...]]:
    """Who may rob ``seat``'s added kong of ``t`` (hu, or pass unless a win is forced)."""
    options: dict[int, tuple[Action, ...]] = {}
    force = st.rules.must_hu_last_four and st.live <= 4
    for k in range(1, 4):
        o = (seat + k) % 4
        if not st.active(o):
            continue
        so = st.seats[o]
        if so.completes_with(t) and not (so.pass_hu_any or t in so.pass_hu):
            acts = [HU_ACTIONS[o]]
            if not force:
                acts.append(PASS_ACTIONS[o])
            options[o] = tuple(acts)
    return options


def bugang_shown(st: HandState, seat: int, t: Tile) -> None:
    """What everyone sees at once of ``seat`` adding ``t`` to its peng: the tile out of the hand,
    the kong declared. Whether anyone may rob it is :func:`start_bugang`'s."""
    s = st.seats[seat]
    late = st.drawn != t
    s.remove(t)
    st.clean_start = False
    st.pending_bugang = t
    st.bugang_late = late
    st.emit({"type": EventKind.BUGANG_DECLARED, "seat": seat, "tile": t})


def start_bugang(st: HandState, seat: int, t: Tile) -> None:
    """``seat`` adds ``t`` to its peng: the others may rob it first, else the kong is made."""
    bugang_shown(st, seat, t)
    options = rob_options(st, seat, t)
    if options:
        st.window = Window(t, seat, options, {}, robbing=True, opened_at=len(st.actions))
        st.phase = Phase.ROB
        return
    complete_bugang(st, seat, t)


def complete_bugang(st: HandState, seat: int, t: Tile) -> None:
    s = st.seats[seat]
    for i, m in enumerate(s.melds):
        if m.kind is MeldKind.PENG and m.tile == t:
            s.melds[i] = Meld(MeldKind.GANG, t)
            break
    st.pending_bugang = None
    st.emit({"type": EventKind.BUGANG, "seat": seat, "tile": t})
    kong = KongRecord(seat, Reason.BUGANG, t)
    if st.rules.late_bugang_pays or not st.bugang_late:
        pts = bugang_points(st.rules)
        for o in range(4):
            if o != seat and st.active(o):
                st.pay(o, seat, pts, Reason.BUGANG)
                kong.payments.append((o, pts))
    st.kongs.append(kong)
    st.turn_kongs.append(kong)
    st.draw(seat, replacement=True)


def zhigang(st: HandState, seat: int, w: Window) -> None:
    st.claim_tile(w)
    s = st.seats[seat]
    s.remove(w.tile, 3)
    s.melds.append(Meld(MeldKind.GANG, w.tile))
    s.meld_suits |= 1 << (w.tile // 9)
    st.emit({"type": EventKind.ZHIGANG, "seat": seat, "tile": w.tile, "from": w.source})
    kong = KongRecord(seat, Reason.ZHIGANG, w.tile)
    discarder_pays, others_pay = zhigang_points(st.rules)
    st.pay(w.source, seat, discarder_pays, Reason.ZHIGANG)
    kong.payments.append((w.source, discarder_pays))
    if st.rules.zhigang_payment == "everyone":
        for o in range(4):
            if o not in (seat, w.source) and st.active(o):
                st.pay(o, seat, others_pay, Reason.ZHIGANG)
                kong.payments.append((o, others_pay))
    st.kongs.append(kong)
    st.turn_kongs = [kong]
    st.zhigang_source = w.source
    st.draw(seat, replacement=True)


def call_transfer(st: HandState, w: Window) -> tuple[int, list[KongRecord]]:
    """呼叫转移: a win on a discard made right after the discarder's kong takes over what the
    kongs of that turn earned (each winner gets it all); the points and those kongs."""
    if not (st.rules.call_transfer and w.after_kong and not w.robbing):
        return 0, []
    transfer_kongs = [k for k in st.turn_kongs if k.seat == w.source and not k.transferred]
    return sum(k.earned for k in transfer_kongs), transfer_kongs
