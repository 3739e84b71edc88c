"""The claim window (RULES.md sections 5-6): a discard offered to the other seats, their
answers (hu, zhigang, peng, pass) and how the window resolves; 过水不胡 for a win passed up.

Functions take the :class:`~xuezhan.engine.game.Game` and change it in place; the game
calls them from :meth:`~xuezhan.engine.game.Game.apply`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..scoring import Meld, MeldKind
from ..tiles import Tile
from . import kongs, settlement, wins
from .actions import GANG_ACTIONS, HU_ACTIONS, PASS_ACTIONS, PENG_ACTIONS, Action, ActionType
from .state import RIVER_CLAIMED, RIVER_OPEN, RIVER_ROBBED, RIVER_WON, Phase, Window

if TYPE_CHECKING:
    from .game import Game

_OTHERS = tuple(tuple((seat + k) % 4 for k in (1, 2, 3)) for seat in range(4))  # in play order


def claim_options(game: Game, seat: int, t: Tile) -> dict[int, tuple[Action, ...]]:
    """What each other seat may answer to ``seat``'s discard of ``t`` (seats with nothing to claim left out)."""
    seats = game._seats
    options: dict[int, tuple[Action, ...]] = {}
    rules = game._rules
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
            if c == 3 and game.live > 0:
                acts.append(GANG_ACTIONS[o][t])
            if c >= 2:
                acts.append(PENG_ACTIONS[o])
        if acts:
            if can_hu and rules.must_hu_last_four and game._tail - game._head <= 4:
                acts = [HU_ACTIONS[o]]
            else:
                acts.append(PASS_ACTIONS[o])
            options[o] = tuple(acts)
    return options


def discard(game: Game, seat: int, t: Tile) -> None:
    """``seat`` discards ``t``: the seats that may claim it get a window, else the next seat draws."""
    seats = game._seats
    s = seats[seat]
    s.remove(t)
    s.river.append(t)
    s.river_state.append(RIVER_OPEN)
    game._events.append({"type": "discard", "seat": seat, "tile": t})
    game._owners.append(None)
    game._drawn = None
    options = claim_options(game, seat, t)
    if not options:
        game._next_draw(seat)
        return
    game._window = Window(t, seat, options, {}, after_kong=bool(game._turn_kongs), last_tile=game._drew_last,
                          opened_at=len(game._actions))
    game._phase = Phase.CLAIM


def resolve_window(game: Game) -> None:
    """Every claimant has answered: hu before kong before peng; a win passed up blocks that tile."""
    w = game._window
    assert w is not None
    game._window = None
    hu_seats = [o for o, a in w.answers.items() if a.type is ActionType.HU]
    for o, acts in w.options.items():
        if o not in hu_seats and any(a.type is ActionType.HU for a in acts):
            so = game._seats[o]
            if game._rules.pass_hu_scope == "any_tile":
                so.pass_hu_any = True
            else:
                so.pass_hu.add(w.tile)
            game._emit({"type": "pass_hu", "seat": o, "tile": w.tile}, private=o)
    if w.robbing:
        if hu_seats:
            konger = w.source
            ks = game._seats[konger]
            ks.river.append(w.tile)
            ks.river_state.append(RIVER_ROBBED)
            game._pending_bugang = None
            wins.discard_wins(game, w, hu_seats)
        else:
            kongs.complete_bugang(game, w.source, w.tile)
        return
    if hu_seats:
        src = game._seats[w.source]
        src.river_state[-1] = RIVER_WON
        wins.discard_wins(game, w, hu_seats)
        return
    for o, a in w.answers.items():
        if a.type is ActionType.GANG:
            kongs.zhigang(game, o, w)
            return
        if a.type is ActionType.PENG:
            peng(game, o, w)
            return
    if game._tail == game._head:
        settlement.end_exhausted(game)
        return
    game._next_draw(w.source)


def claim_tile(game: Game, w: Window) -> None:
    src = game._seats[w.source]
    src.river_state[-1] = RIVER_CLAIMED
    game._clean_start = False


def peng(game: Game, seat: int, w: Window) -> None:
    claim_tile(game, w)
    s = game._seats[seat]
    s.remove(w.tile, 2)
    s.melds.append(Meld(MeldKind.PENG, w.tile))
    s.meld_suits |= 1 << (w.tile // 9)
    game._emit({"type": "peng", "seat": seat, "tile": w.tile, "from": w.source})
    game._phase = Phase.TURN
    game._turn = seat
    game._drawn = None
    game._must_discard = True
    game._tsumo = None
    game._after_kong = False
    game._drew_last = False
    game._turn_kongs = []
    game._zhigang_source = None

