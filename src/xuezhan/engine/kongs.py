"""Kongs and their payments (RULES.md sections 5 and 7): 暗杠, 补杠 (which the others may rob),
直杠 on a discard, and the points each one earns at once.

Every kong is kept as a :class:`~xuezhan.engine.state.KongRecord` with its payments: a win
on the konger's next discard takes them over (呼叫转移, see :func:`call_transfer`), and a
seat not ready at the end gives them back (退税, :mod:`xuezhan.engine.settlement`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..scoring import Meld, MeldKind
from ..tiles import Tile
from . import claims
from .actions import HU_ACTIONS, PASS_ACTIONS, Action
from .state import KongRecord, Phase, Window

if TYPE_CHECKING:
    from .game import Game


def angang(game: Game, seat: int, t: Tile) -> None:
    s = game._seats[seat]
    s.remove(t, 4)
    s.melds.append(Meld(MeldKind.ANGANG, t))
    s.meld_suits |= 1 << (t // 9)
    game._clean_start = False
    game._emit({"type": "angang", "seat": seat, "tile": t}, private=seat)  # laid face down
    kong = KongRecord(seat, "angang", t)
    pts = 2 * game._rules.base_score
    for o in range(4):
        if o != seat and game.active(o):
            game._pay(o, seat, pts, "angang")
            kong.payments.append((o, pts))
    game._kongs.append(kong)
    game._turn_kongs.append(kong)
    game._draw(seat, replacement=True)


def rob_options(game: Game, seat: int, t: Tile) -> dict[int, tuple[Action, ...]]:
    """Who may rob ``seat``'s added kong of ``t`` (hu, or pass unless a win is forced)."""
    options: dict[int, tuple[Action, ...]] = {}
    force = game._rules.must_hu_last_four and game.live <= 4
    for k in range(1, 4):
        o = (seat + k) % 4
        if not game.active(o):
            continue
        so = game._seats[o]
        if so.completes_with(t) and not (so.pass_hu_any or t in so.pass_hu):
            acts = [HU_ACTIONS[o]]
            if not force:
                acts.append(PASS_ACTIONS[o])
            options[o] = tuple(acts)
    return options


def start_bugang(game: Game, seat: int, t: Tile) -> None:
    s = game._seats[seat]
    late = game._drawn != t
    s.remove(t)
    game._clean_start = False
    game._pending_bugang = t
    game._bugang_late = late
    game._emit({"type": "bugang_declared", "seat": seat, "tile": t})
    options = rob_options(game, seat, t)
    if options:
        game._window = Window(t, seat, options, {}, robbing=True, opened_at=len(game._actions))
        game._phase = Phase.ROB
        return
    complete_bugang(game, seat, t)


def complete_bugang(game: Game, seat: int, t: Tile) -> None:
    s = game._seats[seat]
    for i, m in enumerate(s.melds):
        if m.kind is MeldKind.PENG and m.tile == t:
            s.melds[i] = Meld(MeldKind.GANG, t)
            break
    game._pending_bugang = None
    game._emit({"type": "bugang", "seat": seat, "tile": t})
    kong = KongRecord(seat, "bugang", t)
    if game._rules.late_bugang_pays or not game._bugang_late:
        pts = game._rules.base_score
        for o in range(4):
            if o != seat and game.active(o):
                game._pay(o, seat, pts, "bugang")
                kong.payments.append((o, pts))
    game._kongs.append(kong)
    game._turn_kongs.append(kong)
    game._draw(seat, replacement=True)


def zhigang(game: Game, seat: int, w: Window) -> None:
    claims.claim_tile(game, w)
    s = game._seats[seat]
    s.remove(w.tile, 3)
    s.melds.append(Meld(MeldKind.GANG, w.tile))
    s.meld_suits |= 1 << (w.tile // 9)
    game._emit({"type": "zhigang", "seat": seat, "tile": w.tile, "from": w.source})
    kong = KongRecord(seat, "zhigang", w.tile)
    base = game._rules.base_score
    game._pay(w.source, seat, 2 * base, "zhigang")
    kong.payments.append((w.source, 2 * base))
    if game._rules.zhigang_payment == "everyone":
        for o in range(4):
            if o not in (seat, w.source) and game.active(o):
                game._pay(o, seat, base, "zhigang")
                kong.payments.append((o, base))
    game._kongs.append(kong)
    game._turn_kongs = [kong]
    game._zhigang_source = w.source
    game._draw(seat, replacement=True)



def call_transfer(game: Game, w: Window) -> tuple[int, list[KongRecord]]:
    """呼叫转移: a win on a discard made right after the discarder's kong takes over what the
    kongs of that turn earned (each winner gets it all); the points and those kongs."""
    if not (game._rules.call_transfer and w.after_kong and not w.robbing):
        return 0, []
    transfer_kongs = [k for k in game._turn_kongs if k.seat == w.source and not k.transferred]
    return sum(k.earned for k in transfer_kongs), transfer_kongs
