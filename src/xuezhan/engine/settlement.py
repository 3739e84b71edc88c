"""The end of a hand and its settlement (RULES.md sections 7-9): the exhaustive draw with
花猪, 查大叫 and 退税, a seat escaping, the next dealer and the result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..hand import winning_tiles
from ..scoring import WinContext
from ..tiles import Tile
from . import claims, wins
from .state import Phase

if TYPE_CHECKING:
    from .game import Game


def waits(game: Game, seat: int) -> list[Tile]:
    """The tiles that would complete ``seat``'s hand."""
    s = game._seats[seat]
    return winning_tiles(s.counts, len(s.melds), meld_suits=s.meld_suits, void=s.void, owned=s.owned())


def is_hua_zhu(game: Game, seat: int) -> bool:
    """花猪: still holding three suits, or (with 定缺) a tile of the void suit."""
    s = game._seats[seat]
    return s.suit_mask() == 7 or (game._rules.dingque and s.holds_void())


def da_jiao(game: Game, seat: int, pays: str | None = None) -> int:
    """The points of a ready seat's best (``max``) or lowest (``min``) discard win (大叫)."""
    pays = pays or game._rules.cha_jiao_pays
    values = [wins.score_hand(game, seat, t, WinContext(), extra=True).hand_points for t in waits(game, seat)]
    if not values:
        return 0
    return max(values) if pays == "max" else min(values)


def counts_as_ready(game: Game, seat: int) -> bool:
    """Ready for 查大叫: waiting on a tile (and, unless ``dead_wait_counts``, one not all in sight)."""
    tiles = waits(game, seat)
    if not tiles:
        return False
    if game._rules.dead_wait_counts:
        return True
    return any(wins.visible_copies(game, seat, t) < 4 for t in tiles)


def end_exhausted(game: Game) -> None:
    """The wall is empty: 花猪 pay, 查大叫, then 退税 by the seats not ready; the hand ends."""
    players = [i for i in range(4) if game.contending(i)]
    game._emit({"type": "wall_empty"})
    if len(players) >= 2:
        pigs = [i for i in players if is_hua_zhu(game, i)]
        ready = [i for i in players if i not in pigs and counts_as_ready(game, i)]
        for p in pigs:
            for o in players:
                if o not in pigs:
                    game._pay(p, o, game._rules.hua_zhu_points, "hua_zhu")
        for p in players:
            if p in pigs or p in ready:
                continue
            for r in ready:
                game._pay(p, r, da_jiao(game, r), "cha_jiao")
        for p in players:
            if p in ready:
                continue
            for k in game._kongs:
                if k.seat != p or k.transferred:
                    continue
                for payer, pts in k.payments:
                    if not game._seats[payer].escaped:
                        game._pay(p, payer, pts, "tui_shui")
    finish(game)


def finish(game: Game) -> None:
    """The hand is over: every hand is laid down."""
    game._phase = Phase.OVER
    game._window = None
    for s in game._seats:
        s.revealed = True
    game._emit({"type": "end", "deltas": game.deltas(), "next_dealer": game.next_dealer()})


def escape(game: Game, seat: int) -> None:
    """``seat`` leaves: while contending it pays everyone and the hand ends; a winner may leave."""
    s = game._seats[seat]
    was_contending = game.contending(seat)
    game._emit({"type": "escape", "seat": seat})
    if was_contending:
        others = [o for o in range(4) if o != seat and game.active(o)]
        penalty = 16 * game._rules.base_score
        for o in others:
            pts = penalty
            if game.live <= 4 and game._seats[o].won is False and bool(waits(game, o)):
                pts = max(pts, da_jiao(game, o, "max"))
            game._pay(seat, o, pts, "escape")
        s.escaped = True
        finish(game)
        return
    # a seat that has won leaves: the hand goes on
    s.escaped = True
    if game._rules.escaped_winner_forfeits:
        for e in list(game._ledger):
            if e.to_seat == seat and e.reason in ("hu", "zimo", "call_transfer"):
                game._pay(seat, e.from_seat, e.points, "escape")
    if game._phase is Phase.TURN and game._turn == seat:
        game._next_draw(seat)
    elif game._window is not None and seat in game._window.options:
        game._window.options.pop(seat)
        game._window.answers.pop(seat, None)
        if len(game._window.answers) == len(game._window.options):
            claims.resolve_window(game)
    if game._phase is not Phase.OVER and wins.hand_finished(game) and not game._rules.end_on_first_win:
        finish(game)


def next_dealer(game: Game) -> int | None:
    """The dealer of the next hand by ``dealer_rule`` (``None``: thrown by dice)."""
    rule = game._rules.dealer_rule
    if rule == "dice" or any(s.escaped for s in game._seats):
        return None
    if not game._winners:
        return game._dealer
    first = [w for w in game._winners if w.order == 1]
    if rule == "first_winner":
        if len(first) > 1 and first[0].from_seat is not None:
            return first[0].from_seat
        return first[0].seat
    # discarder
    if first[0].from_seat is not None:
        return first[0].from_seat
    return first[0].seat


def result_json(game: Game) -> dict[str, Any]:
    from .views import event_json  # views reads the game: imported late

    return {
        "complete": game.over,
        "winners": [w.to_json() for w in game._winners],
        "ledger": [e.to_json() for e in game._ledger],
        "deltas": game.deltas(),
        "next_dealer": next_dealer(game) if game.over else None,
        "events": [event_json(e) for e in game._events],
    }

