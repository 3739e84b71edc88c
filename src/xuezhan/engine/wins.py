"""Wins (RULES.md sections 6 and 8): scoring a win in its context, self-drawn and discard
wins and their payments, the winner's hand laid down or kept (血流成河), and whether the
hand goes on after a win.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..hand import winning_tiles
from ..scoring import MeldKind, Score, WinContext, score_win
from ..tiles import NUM_KINDS, Tile
from . import kongs, settlement
from .state import RIVER_CLAIMED, Window, WinRecord

if TYPE_CHECKING:
    from .game import Game


def visible_copies(game: Game, seat: int, t: Tile) -> int:
    """Copies of ``t`` that ``seat`` can see: its own hand, the melds (others' concealed kongs
    lie face down), rivers, tiles set aside, and hands laid down by winners."""
    n = game._seats[seat].counts[t]
    for i, s in enumerate(game._seats):
        for m in s.melds:
            if m.tile == t and (m.kind is not MeldKind.ANGANG or i == seat or s.revealed):
                n += m.size
        for tt, st in zip(s.river, s.river_state, strict=False):
            if tt == t and st != RIVER_CLAIMED:
                n += 1
        n += s.aside.count(t)
        if i != seat and s.revealed:
            n += s.counts[t]
    return n


def face_up_copies(game: Game, seat: int, t: Tile) -> int:
    """Copies of ``t`` face up for ``seat`` (RULES 5): what it can see but its own concealed tiles."""
    return visible_copies(game, seat, t) - game._seats[seat].counts[t]


def is_jue_zhang(game: Game, seat: int, tile: Tile, self_drawn: bool) -> bool:
    """绝张 (RULES 6.2): every other copy of the winning tile, and every copy of each other tile
    the hand was waiting on, is face up. A discard won on lies face up in a river (a robbed
    kong tile too); a self-drawn one is in the winner's hand."""
    if face_up_copies(game, seat, tile) != (3 if self_drawn else 4):
        return False
    s = game._seats[seat]
    counts = s.counts[:]
    owned = s.owned()
    if self_drawn:
        counts[tile] -= 1
        owned[tile] -= 1
    waits = winning_tiles(counts, len(s.melds), meld_suits=s.meld_suits, void=s.void, owned=owned)
    return all(face_up_copies(game, seat, w) == 4 for w in waits if w != tile)


def score_hand(game: Game, seat: int, tile: Tile, ctx: WinContext, extra: bool) -> Score:
    s = game._seats[seat]
    tiles = s.tiles()
    if extra:
        tiles.append(tile)
    result = score_win(tiles, s.melds, tile, ctx, game._rules, s.void, check=False)
    assert isinstance(result, Score), result
    return result


def self_drawn_win(game: Game, seat: int) -> None:
    s = game._seats[seat]
    tile = game._drawn if game._drawn is not None else max(t for t in range(NUM_KINDS) if s.counts[t])
    first_action = game._clean_start and not game._seats[seat].won
    tian = first_action and seat == game._dealer and s.draws == 0
    di = first_action and seat != game._dealer and s.draws == 1 and not game._after_kong
    # 点杠花 paid as a discard win: only a win on the zhigang's own replacement (the turn's last kong)
    zhigang_pays = bool(
        game._after_kong and game._zhigang_source is not None and game._rules.dian_gang_hua == "discard"
        and game._turn_kongs and game._turn_kongs[-1].kind == "zhigang"
    )
    ctx = WinContext(
        self_drawn=True,
        after_kong=game._after_kong,
        last_tile=game._drew_last,
        tian_hu=tian,
        di_hu=di,
        last_copy=is_jue_zhang(game, seat, tile, self_drawn=True),
        paid_as_discard=zhigang_pays,
    )
    score = score_hand(game, seat, tile, ctx, extra=False)
    game._win_groups += 1
    rec = WinRecord(seat, None, tile, score, game._win_groups)
    game._winners.append(rec)
    game._emit({"type": "hu", "seat": seat, "from": None, "tile": tile, "fan": score.fan,
                "multiple": score.multiple, "base": score.base, "extras": score.extras_dict})
    if zhigang_pays:
        # it stays a self-drawn win (``from`` null); its points carry no self-draw bonus
        assert game._zhigang_source is not None
        game._pay(game._zhigang_source, seat, score.points, "hu")
    else:
        for o in range(4):
            if o != seat and game.active(o):
                game._pay(o, seat, score.points, "zimo")
    mark_won(game, seat, tile, self_drawn=True)
    game._clean_start = False
    if hand_finished(game):
        settlement.finish(game)
        return
    game._next_draw(seat)


def discard_wins(game: Game, w: Window, hu_seats: list[int]) -> None:
    order = sorted(hu_seats, key=lambda o: (o - w.source) % 4)
    game._win_groups += 1
    transfer, transfer_kongs = kongs.call_transfer(game, w)
    for o in order:
        # the won tile already lies in the discarder's river (a robbed one in the konger's); seats
        # winning on the same tile do not see each other's hands: they are laid down after all scored
        ctx = WinContext(
            after_kong=w.after_kong and not w.robbing,
            robbing_kong=w.robbing,
            last_tile=w.last_tile,
            last_copy=is_jue_zhang(game, o, w.tile, self_drawn=False),
        )
        score = score_hand(game, o, w.tile, ctx, extra=True)
        game._winners.append(WinRecord(o, w.source, w.tile, score, game._win_groups, robbed=w.robbing))
        game._emit({"type": "hu", "seat": o, "from": w.source, "tile": w.tile, "fan": score.fan,
                    "multiple": score.multiple, "base": score.base, "extras": score.extras_dict,
                    "robbing": w.robbing})
        game._pay(w.source, o, score.hand_points, "hu")
        if transfer:
            game._pay(w.source, o, transfer, "call_transfer")
    for k in transfer_kongs:
        k.transferred = True
    for o in order:
        mark_won(game, o, w.tile, self_drawn=False)
    game._clean_start = False
    if hand_finished(game):
        settlement.finish(game)
        return
    game._next_draw(order[-1])


def mark_won(game: Game, seat: int, tile: Tile, self_drawn: bool) -> None:
    s = game._seats[seat]
    s.wins += 1
    s.won = True
    if not game._rules.blood_river:
        s.revealed = True  # the winner lays its hand down
    elif self_drawn:
        # blood_river: the winner keeps playing its 13 tiles; the winning tile is set aside
        # (a discard won on stays in the discarder's river)
        s.remove(tile)
        s.aside.append(tile)


def hand_finished(game: Game) -> bool:
    if game._rules.end_on_first_win:
        return True
    if game._rules.blood_river:
        return False
    return sum(1 for i in range(4) if game.active(i)) <= 1

