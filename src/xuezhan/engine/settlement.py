"""The end of a hand and its settlement (docs/rules.md §7-9): the next draw or the
exhaustive draw with 花猪, 查大叫 and 退税, the end of the hand, the next dealer and the result.

The lowest of the rule modules: functions over the :class:`~xuezhan.engine.state.HandState`,
asking :mod:`~xuezhan.engine.worth` what hands are worth and :mod:`xuezhan.scoring` what
each payment is.
"""

from __future__ import annotations

from typing import Any

from ..ids import EventKind, Reason
from ..scoring import hua_zhu_points
from .events import event_json
from .state import HandState, Phase
from .worth import counts_as_ready, da_jiao, is_hua_zhu


def next_draw(st: HandState, after: int) -> None:
    """The next active seat after ``after`` draws, or the hand ends when the wall is empty."""
    nxt = st.next_active(after)
    if nxt is None or st.tail == st.head:
        end_exhausted(st)
        return
    st.draw(nxt)


def end_exhausted(st: HandState) -> None:
    """The wall is empty: 花猪 pay, 查大叫, then 退税 by the seats not ready; the hand ends."""
    players = [i for i in range(4) if st.contending(i)]
    st.emit({"type": EventKind.WALL_EMPTY})
    if len(players) >= 2:
        pigs = [i for i in players if is_hua_zhu(st, i)]
        ready = [i for i in players if i not in pigs and counts_as_ready(st, i)]
        for p in pigs:
            for o in players:
                if o not in pigs:
                    st.pay(p, o, hua_zhu_points(st.rules), Reason.HUA_ZHU)
        for p in players:
            if p in pigs or p in ready:
                continue
            for r in ready:
                st.pay(p, r, da_jiao(st, r), Reason.CHA_JIAO)
        for p in players:
            if p in ready:
                continue
            for k in st.kongs:
                if k.seat != p or k.transferred:
                    continue
                for payer, pts in k.payments:
                    if not st.seats[payer].escaped:
                        st.pay(p, payer, pts, Reason.TUI_SHUI)
    finish(st)


def finish(st: HandState) -> None:
    """The hand is over: every hand is laid down."""
    st.phase = Phase.OVER
    st.window = None
    for s in st.seats:
        s.revealed = True
    st.emit({"type": EventKind.END, "deltas": st.deltas(), "next_dealer": next_dealer(st)})


def next_dealer(st: HandState) -> int | None:
    """The dealer of the next hand by ``dealer_rule`` (``None``: thrown by dice)."""
    rule = st.rules.dealer_rule
    if rule == "dice" or any(s.escaped for s in st.seats):
        return None
    if not st.winners:
        return st.dealer
    first = [w for w in st.winners if w.order == 1]
    if rule == "first_winner":
        if len(first) > 1 and first[0].from_seat is not None:
            return first[0].from_seat
        return first[0].seat
    # discarder
    if first[0].from_seat is not None:
        return first[0].from_seat
    return first[0].seat


def result_json(st: HandState) -> dict[str, Any]:
    """The hand's result: winners, ledger, deltas, next dealer and every event (whole)."""
    over = st.phase is Phase.OVER
    return {
        "complete": over,
        "winners": [w.to_json() for w in st.winners],
        "ledger": [e.to_json() for e in st.ledger],
        "deltas": st.deltas(),
        "next_dealer": next_dealer(st) if over else None,
        "events": [event_json(e) for e in st.events],
    }
