"""A hand's whole state as integers, for a compiled copy of the engine to go on from there.

A search plays candidate actions out from worlds sampled in the middle of a hand
(:func:`xuezhan.engine.views.sample_world`); the compiled core (:mod:`xuezhan.native`,
``csrc/xz_load.c``) can play those hands to their end if it is given everything the engine
holds: hands, melds, rivers, the wall, the open claim window with its options and answers,
the kongs and who paid for them, the wins and the ledger. :func:`pack_state` writes it, in
the order ``xz_load_game`` reads it (the engine's own enums give the codes: phases, meld
kinds, action types, ledger reasons).
"""

from __future__ import annotations

from typing import Final

from ..scoring import MeldKind
from .actions import REASONS, Action, ActionType
from .game import Game
from .state import Phase

_PHASES: Final = tuple(Phase)
_MELD_KINDS: Final = tuple(MeldKind)
_ACTION_TYPES: Final = tuple(ActionType)


def _opt(value: int | None) -> int:
    return -1 if value is None else value


def pack_action(action: Action) -> tuple[int, int, int, int, int, int, int, int]:
    """An action as eight integers: seat, type, tile, suit (-1: none), the number of tiles, the tiles."""
    t = action.tiles
    a, b, c = t if len(t) == 3 else (0, 0, 0)
    return (action.seat, _ACTION_TYPES.index(action.type), _opt(action.tile), _opt(action.suit), len(t), a, b, c)


def pack_state(game: Game) -> list[int] | None:
    """The whole state of ``game`` as integers, or ``None`` when a seat has escaped (the compiled
    core has no escapes; an escape ends the hand anyway)."""
    st = game.state
    seats = st.seats
    if any(s.escaped for s in seats):
        return None
    out = [st.dealer, _PHASES.index(st.phase), st.turn, _opt(st.drawn), st.after_kong,
           st.drew_last, st.must_discard, _opt(st.zhigang_source), _opt(st.pending_bugang),
           st.bugang_late, st.clean_start, st.win_groups, len(st.actions),
           st.exchange_direction or 0, len(st.wall), *st.wall, st.head, st.tail]
    for s in seats:
        out.extend(s.counts)
        pass_hu = 0
        for t in s.pass_hu:
            pass_hu |= 1 << t
        out.extend((_opt(s.void), s.won, s.wins, s.revealed, s.draws, pass_hu, s.pass_hu_any, s.choice is not None))
        if s.choice is not None:
            out.extend(pack_action(s.choice))
        out.append(len(s.melds))
        for m in s.melds:
            out.extend((_MELD_KINDS.index(m.kind), m.tile))
        out.append(len(s.river))
        for t, state in zip(s.river, s.river_state, strict=True):
            out.extend((t, state))
        out.append(len(s.aside))
        out.extend(s.aside)
    kongs = st.kongs
    out.append(len(kongs))
    for k in kongs:
        out.extend((k.seat, REASONS.index(k.kind), k.tile, k.transferred, len(k.payments)))
        for payer, points in k.payments:
            out.extend((payer, points))
    index = {id(k): i for i, k in enumerate(kongs)}
    out.append(len(st.turn_kongs))
    out.extend(index[id(k)] for k in st.turn_kongs)
    out.append(len(st.winners))
    for win in st.winners:
        out.extend((win.seat, _opt(win.from_seat), win.tile, win.order, win.robbed))
    out.append(len(st.ledger))
    for e in st.ledger:
        out.extend((e.from_seat, e.to_seat, e.points, REASONS.index(e.reason)))
    w = st.window
    if w is None:
        out.append(0)
        return out
    out.extend((1, w.tile, w.source, w.after_kong, w.last_tile, w.robbing, len(w.options)))
    slots: dict[int, int] = {}
    for i, (seat, actions) in enumerate(w.options.items()):
        slots[seat] = i
        out.extend((seat, len(actions)))
        for a in actions:
            out.extend(pack_action(a))
    out.append(len(w.answers))
    for seat, a in w.answers.items():
        out.append(slots[seat])
        out.extend(pack_action(a))
    return out
