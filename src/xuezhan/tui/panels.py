"""The contents of the screen's panels as Rich text, built from what one seat may see.

In play, every panel is built from :class:`~xuezhan.engine.views.SeatView` of the
human's seat, so no other seat's concealed tiles reach the screen before they are
laid down. A replay (``reveal=True``) shows every hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.text import Text

from ..engine.game import RIVER_CLAIMED, RIVER_ROBBED, RIVER_WON, Game
from ..engine.views import SeatView
from ..tiles import SUITS, Tile, parse_tiles
from .words import (
    SEAT_ROLES,
    meld_text,
    ordinal,
    score_words,
    seat_name,
    signed,
    suit_name,
    tile_label,
    tile_text,
    tiles_text,
    win_amounts,
)


@dataclass(frozen=True, slots=True)
class SeatPanel:
    """One seat's panel: a title, a subtitle and the body."""

    title: str
    subtitle: str
    body: Text


def seat_title(seat: int, me: int | None, dealer: int) -> str:
    """``seat 1 · 下家 · 庄`` (``you (seat 0)`` for the human)."""
    if seat == me:
        name = f"you (seat {seat})"
    else:
        name = f"seat {seat}"
        if me is not None:
            name += f" · {SEAT_ROLES[(seat - me) % 4]}"
    if seat == dealer:
        name += " · 庄 dealer"
    return name


def river_text(tiles: Sequence[Tile], states: Sequence[int], glyphs: bool, offered_last: bool) -> Text:
    """The discards in order: claimed ones dim and struck (they lie in a meld), won-on ones marked."""
    out = Text()
    for i, (t, st) in enumerate(zip(tiles, states, strict=False)):
        if i:
            out.append(" ")
        style = ""
        if st == RIVER_CLAIMED:
            style = "dim strike"
        elif st == RIVER_WON:
            style = "reverse"
        elif st == RIVER_ROBBED:
            style = "underline"
        if offered_last and i == len(tiles) - 1:
            style = "reverse blink"
        out.append_text(tile_text(t, glyphs, style))
    return out


def seat_panel(game: Game, seat: int, me: int | None, *, glyphs: bool = False, reveal: bool = False,
               totals: Sequence[int] | None = None) -> SeatPanel:
    """The panel of ``seat``, as ``me`` sees it (``reveal``: everything)."""
    viewer = SeatView(game, me if me is not None else seat)
    data = viewer.to_json()
    entry = data["seats"][seat]
    if reveal:
        entry = SeatView(game, seat).to_json()["seats"][seat]
    body = Text()
    facts: list[Text] = []
    void = entry["void"]
    facts.append(Text(f"void {suit_name(SUITS.index(void))}" if void else "void ?", style="bold" if void else "dim"))
    facts.append(Text(f"{entry['concealed']} tiles"))
    if entry["escaped"]:
        facts.append(Text("left the table", style="bold red"))
    body.append_text(Text(" · ").join(facts))
    amounts = win_amounts(game)
    for i, w in enumerate(game.winners):
        if w.seat != seat:
            continue
        tile = tile_label(w.tile, glyphs)
        if w.from_seat is None:
            how = f"self-drawn {tile}"
        elif w.robbed:
            how = f"{tile} robbing {seat_name(w.from_seat, me)}'s kong"
        else:
            how = f"{tile} from {seat_name(w.from_seat, me)}"
        body.append("\n")
        body.append(f"胡 WON {ordinal(w.order)}: {how} · {score_words(w)} · +{amounts.get(i, 0)}", style="bold yellow")
    melds = viewer.melds(seat)
    face_down = viewer.hidden_kongs(seat)  # another seat's concealed kongs lie face down
    if melds or face_down:
        body.append("\nmelds ")
        body.append_text(Text(" ").join([meld_text(m, glyphs) for m in melds]
                                        + [Text("[▮▮▮▮]暗", style="dim")] * face_down))
    if entry["aside"]:
        body.append("\nwon tiles ")
        body.append_text(tiles_text(parse_tiles("".join(entry["aside"])), glyphs))
    body.append("\nriver ")
    river = viewer.river(seat)
    window = game.claim_window
    offered_last = window is not None and window.kind == "discard" and window.seat == seat
    if river:
        body.append_text(river_text(river, entry["river_state"], glyphs, offered_last))
    else:
        body.append("-", style="dim")
    if "hand" in entry and seat != me and entry["hand"]:
        body.append("\nhand  ", style="bold")
        body.append_text(tiles_text(parse_tiles(entry["hand"]), glyphs))
    elif seat != me and entry["concealed"]:
        body.append("\nhand  ")
        body.append("▮" * entry["concealed"], style="dim")
    subtitle = ""
    if totals is not None:
        subtitle = f"this hand {signed(game.deltas()[seat])} · total {signed(totals[seat])}"
    return SeatPanel(seat_title(seat, me, game.dealer), subtitle, body)


def status_text(game: Game, me: int | None, *, label: str, rules_name: str, glyphs: bool = False) -> Text:
    """``Hand 1/8 · rules qq · dealer seat 3 · wall 55 · turn: you``."""
    out = Text()
    out.append(label, style="bold")
    out.append(f" · rules {rules_name} · dealer {seat_name(game.dealer, me)} · ")
    out.append(f"wall {game.live}", style="bold")
    out.append(" · ")
    out.append(whose_turn(game, me, glyphs), style="bold cyan")
    return out


def whose_turn(game: Game, me: int | None, glyphs: bool = False) -> str:
    ph = str(game.phase)
    if ph == "over":
        return "hand over"
    if ph in ("exchange", "dingque"):
        waiting = game.pending()
        what = "换三张" if ph == "exchange" else "定缺"
        if me is not None and me in waiting:
            return f"{what}: your choice"
        return f"{what}: waiting for {', '.join(seat_name(s, me) for s in waiting)}"
    if ph == "turn":
        return f"turn: {seat_name(game.turn, me)}"
    w = game.claim_window
    tile = tile_label(w.tile, glyphs) if w is not None else "?"
    src = seat_name(w.seat, me) if w is not None else "?"
    what = "kong tile" if ph == "rob" else "discard"
    if me is None:  # a replay shows who may claim
        names = ", ".join(seat_name(s, me) for s in game.pending())
        return f"{src}'s {what} {tile}: waiting for {names}"
    # in play, who else may claim is secret: only say whether the human is asked
    return f"{src}'s {what} {tile}: " + ("your claim?" if me in game.pending() else "claims")


def scores_text(totals: Sequence[int], deltas: Sequence[int] | None, me: int | None,
                names: Sequence[str]) -> Text:
    """The running totals table."""
    out = Text()
    out.append(f"{'seat':<17}{'hand':>7}{'total':>8}\n", style="bold underline")
    for s in range(4):
        who = f"{seat_name(s, me)} {names[s]}".strip()
        hand = signed(deltas[s]) if deltas is not None else ""
        style = "bold" if s == me else ""
        out.append(f"{who[:17]:<17}{hand:>7}{signed(totals[s]):>8}", style=style)
        if s < 3:
            out.append("\n")
    return out
