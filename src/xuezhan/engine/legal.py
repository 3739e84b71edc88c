"""What each seat may do now (docs/rules.md §3-6): the legal actions of a hand, who must act,
and why an action is not legal (a stable :class:`~xuezhan.ids.ErrorCode`).

Functions over the :class:`~xuezhan.engine.state.HandState`; the game caches the legal
actions per seat until the next action is applied.
"""

from __future__ import annotations

from collections.abc import Callable

from ..ids import ErrorCode
from ..scoring import MeldKind
from ..tiles import NUM_KINDS
from .actions import DISCARD_ACTIONS, GANG_ACTIONS, HU_ACTIONS, Action, ActionType
from .state import HandState, Phase

# hot-path aliases (module globals are cheaper than enum attribute lookups)
_TURN, _CLAIM, _ROB = Phase.TURN, Phase.CLAIM, Phase.ROB
_ALL_KINDS = tuple(range(NUM_KINDS))
_NO_ACTIONS: tuple[Action, ...] = ()


def pending(st: HandState) -> list[int]:
    """The seats that must act now."""
    ph = st.phase
    if ph is _TURN:
        return [st.turn]
    if ph is _CLAIM or ph is _ROB:
        w = st.window
        assert w is not None
        return [s for s in w.options if s not in w.answers]
    if ph is Phase.EXCHANGE or ph is Phase.DINGQUE:
        seats = st.seats
        return [i for i in range(4) if seats[i].choice is None and not seats[i].escaped]
    return []


def compute_legal(st: HandState, seat: int) -> tuple[Action, ...]:
    """Everything ``seat`` may do now (the game caches it per seat until the next action)."""
    ph = st.phase
    s = st.seats[seat]
    if ph is _TURN:
        if seat != st.turn:
            return _NO_ACTIONS
        return tuple(turn_actions(st, seat))
    if ph is _CLAIM or ph is _ROB:
        w = st.window
        assert w is not None
        if seat in w.answers:
            return _NO_ACTIONS
        return w.options.get(seat, _NO_ACTIONS)
    if ph is Phase.DINGQUE:
        if s.choice is not None or s.escaped:
            return _NO_ACTIONS
        present = [suit for suit in range(3) if s.sizes[suit] > 0]
        if len(present) == 2:
            choices = [suit for suit in range(3) if suit not in present]
        elif len(present) == 1:
            choices = [suit for suit in range(3) if suit != present[0]]
        else:
            choices = [0, 1, 2]
        return tuple([Action(seat, ActionType.DINGQUE, suit=c) for c in choices])
    if ph is Phase.EXCHANGE:
        if s.choice is not None or s.escaped:
            return _NO_ACTIONS
        out: list[Action] = []
        for suit in range(3):
            if s.sizes[suit] < 3:
                continue
            ranks = [r for r in range(9) for _ in range(s.counts[suit * 9 + r])]
            seen = set()
            n = len(ranks)
            for i in range(n):
                for j in range(i + 1, n):
                    for k in range(j + 1, n):
                        combo = (suit * 9 + ranks[i], suit * 9 + ranks[j], suit * 9 + ranks[k])
                        if combo not in seen:
                            seen.add(combo)
                            out.append(Action(seat, ActionType.EXCHANGE, tiles=combo))
        return tuple(out)
    return _NO_ACTIONS

def turn_actions(st: HandState, seat: int) -> list[Action]:
    """What the seat in turn may do: hu, kongs, discards."""
    s = st.seats[seat]
    counts = s.counts
    out: list[Action] = []
    if s.won:  # blood_river: a winner keeps its hand; it may hu again or give up the drawn tile
        if s.is_complete():
            out.append(HU_ACTIONS[seat])
            if st.rules.must_hu_last_four and st.tail - st.head <= 4:
                return out
        if st.drawn is not None:
            out.append(DISCARD_ACTIONS[seat][st.drawn])
        return out
    if st.must_discard:
        return discards(st, seat)
    tsumo = st.tsumo
    if tsumo is None:
        tsumo = s.is_complete()
    if tsumo:
        out.append(HU_ACTIONS[seat])
        if st.rules.must_hu_last_four and st.tail - st.head <= 4:
            return out
    if st.tail > st.head:
        void = s.void
        if 4 in counts:
            for t in range(NUM_KINDS):
                if counts[t] == 4 and t // 9 != void:
                    out.append(GANG_ACTIONS[seat][t])
        for m in s.melds:
            if m.kind is MeldKind.PENG and counts[m.tile]:
                out.append(GANG_ACTIONS[seat][m.tile])
    out.extend(discards(st, seat))
    return out

def discards(st: HandState, seat: int) -> list[Action]:
    """The tiles ``seat`` may discard: those of its void suit first."""
    s = st.seats[seat]
    counts = s.counts
    void = s.void
    acts = DISCARD_ACTIONS[seat]
    if void is not None and s.sizes[void]:
        lo = void * 9
        return [acts[t] for t in range(lo, lo + 9) if counts[t]]
    return [acts[t] for t in _ALL_KINDS if counts[t]]


def why_illegal(st: HandState, action: Action,
                legal_actions: Callable[[int], tuple[Action, ...]]) -> ErrorCode:
    """A stable code for why ``action`` is not legal now (``legal_actions``: the game's, cached)."""
    seat = action.seat
    if seat not in pending(st):
        return ErrorCode.NOT_YOUR_TURN
    s = st.seats[seat]
    legal_types = {a.type for a in legal_actions(seat)}
    if action.type not in legal_types:
        if legal_types == {ActionType.HU}:  # a rule forces the win (最后四张必须胡): pass or discard alike
            return ErrorCode.MUST_HU
        if action.type is ActionType.HU:
            w = st.window
            if w is not None and s.completes_with(w.tile) and (s.pass_hu_any or w.tile in s.pass_hu):
                return ErrorCode.PASS_HU_BLOCKED  # 过水不胡: it passed a win and has not drawn since
            return ErrorCode.CANNOT_HU
        return ErrorCode.ACTION_NOT_AVAILABLE
    if action.type is ActionType.DISCARD:
        if action.tile is None or not 0 <= action.tile < NUM_KINDS or s.counts[action.tile] == 0:
            return ErrorCode.TILE_NOT_IN_HAND
        if s.holds_void():
            return ErrorCode.MUST_DISCARD_VOID
        return ErrorCode.MUST_DISCARD_DRAWN
    if action.type is ActionType.GANG:
        return ErrorCode.CANNOT_GANG_TILE
    if action.type is ActionType.EXCHANGE:
        return ErrorCode.BAD_EXCHANGE_TILES
    if action.type is ActionType.DINGQUE:
        return ErrorCode.FORCED_DINGQUE
    return ErrorCode.ILLEGAL_ACTION
