"""The contents of the screen's panels as Rich text, built from what one seat may see.

In play, every panel is built from :class:`~xuezhan.engine.views.SeatView` of the
human's seat, so no other seat's concealed tiles reach the screen before they are
laid down. A replay (``reveal=True``) shows every hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.cells import cell_len
from rich.text import Text

from .. import i18n, vocab
from ..engine.game import RIVER_CLAIMED, RIVER_ROBBED, RIVER_WON, Game
from ..engine.views import SeatView
from ..i18n import Lang
from ..tiles import SUITS, Tile, parse_tiles
from ..vocab import Kind
from .words import (
    meld_text,
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


def seat_title(seat: int, me: int | None, dealer: int, lang: Lang = "en", *, roles: bool = True) -> str:
    """``seat 1 · 下家 · 庄`` (``you (seat 0)`` for the human); without the 上家/下家/对家 word
    unless ``roles`` (the compact layout: where the panel stands says it)."""
    if seat == me:
        name = i18n.t("tui.seat.me", lang, seat=seat)
    else:
        name = seat_name(seat, None, lang)
        if me is not None and roles:
            name += " · " + i18n.t(f"tui.seat.role_{(seat - me) % 4}", lang)
    if seat == dealer:
        name += " · " + i18n.t("tui.seat.dealer", lang)
    return name


def river_text(tiles: Sequence[Tile], states: Sequence[int], glyphs: bool, offered_last: bool,
               lang: Lang = "en") -> Text:
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
        out.append_text(tile_text(t, glyphs, style, lang))
    return out


def seat_panel(game: Game, seat: int, me: int | None, *, glyphs: bool = False, reveal: bool = False,
               totals: Sequence[int] | None = None, lang: Lang = "en", compact: bool = False) -> SeatPanel:
    """The panel of ``seat``, as ``me`` sees it (``reveal``: everything). ``compact`` leaves out the
    face-down hand of another seat (its size is in the first line)."""
    viewer = SeatView(game, me if me is not None else seat)
    data = viewer.to_json()
    entry = data["seats"][seat]
    if reveal:
        entry = SeatView(game, seat).to_json()["seats"][seat]
    body = Text()
    facts: list[Text] = []
    void = entry["void"]
    facts.append(Text(i18n.t("tui.seat.void", lang, suit=suit_name(SUITS.index(void), lang)) if void
                      else i18n.t("tui.seat.void_unknown", lang), style="bold" if void else "dim"))
    facts.append(Text(i18n.t("tui.seat.tiles", lang, count=entry["concealed"])))
    if entry["escaped"]:
        facts.append(Text(i18n.t("tui.seat.escaped", lang), style="bold red"))
    body.append_text(Text(" · ").join(facts))
    amounts = win_amounts(game)
    for i, w in enumerate(game.winners):
        if w.seat != seat:
            continue
        tile = tile_label(w.tile, glyphs, lang)
        if w.from_seat is None:
            how = i18n.t("tui.seat.won_self", lang, tile=tile)
        elif w.robbed:
            how = i18n.t("tui.seat.won_rob", lang, tile=tile, from_seat=seat_name(w.from_seat, me, lang))
        else:
            how = i18n.t("tui.seat.won_from", lang, tile=tile, from_seat=seat_name(w.from_seat, me, lang))
        body.append("\n")
        body.append(i18n.t("tui.seat.won", lang, order=w.order, how=how, score=score_words(w.score, lang),
                           amount=amounts.get(i, 0)), style="bold yellow")
    melds = viewer.melds(seat)
    face_down = viewer.hidden_kongs(seat)  # another seat's concealed kongs lie face down
    if melds or face_down:
        body.append("\n" + i18n.t("tui.seat.melds", lang) + " ")
        body.append_text(Text(" ").join([meld_text(m, glyphs, lang) for m in melds]
                                        + [Text("[▮▮▮▮]暗", style="dim")] * face_down))
    if entry["aside"]:
        body.append("\n" + i18n.t("tui.seat.won_tiles", lang) + " ")
        body.append_text(tiles_text(parse_tiles("".join(entry["aside"])), glyphs, lang=lang))
    body.append("\n" + i18n.t("tui.seat.river", lang) + " ")
    river = viewer.river(seat)
    window = game.claim_window
    offered_last = window is not None and window.kind == "discard" and window.seat == seat
    if river:
        body.append_text(river_text(river, entry["river_state"], glyphs, offered_last, lang))
    else:
        body.append("-", style="dim")
    if "hand" in entry and seat != me and entry["hand"]:
        body.append("\n" + i18n.t("tui.seat.hand", lang) + "  ", style="bold")
        body.append_text(tiles_text(parse_tiles(entry["hand"]), glyphs, lang=lang))
    elif seat != me and entry["concealed"] and not compact:
        body.append("\n" + i18n.t("tui.seat.hand", lang) + "  ")
        body.append("▮" * entry["concealed"], style="dim")
    subtitle = ""
    if totals is not None:
        # the compact layout has half the width for a side seat's title and points: the short words
        subtitle = i18n.t("tui.seat.subtitle_short" if compact else "tui.seat.subtitle", lang,
                          hand=signed(game.deltas()[seat]), total=signed(totals[seat]))
    return SeatPanel(seat_title(seat, me, game.dealer, lang, roles=not compact), subtitle, body)


def rules_label(preset: str, changed: bool, lang: Lang = "en") -> str:
    """The rules' short name in the player's language (``成都``, ``QQ``) for the ``preset`` they start
    from, ``+`` when options change them (``changed``)."""
    name = i18n.t(f"tui.rules.{preset}", lang) if preset in ("qq", "chengdu") else preset
    return name + ("+" if changed else "")


def status_text(game: Game, me: int | None, *, label: str, rules_name: str, glyphs: bool = False,
                lang: Lang = "en", compact: bool = False) -> Text:
    """``Hand 1/8 · rules qq · dealer seat 3 · wall 55 · turn: you``; ``compact`` (one line of 80
    cells) leaves out the rules and the dealer (its seat's title says 庄)."""
    out = Text()
    out.append(label, style="bold")
    if compact:
        out.append(" · ")
    else:
        out.append(i18n.t("tui.status.line", lang, rules=rules_name, dealer=seat_name(game.dealer, me, lang)))
    out.append(i18n.t("tui.status.wall", lang, count=game.live), style="bold")
    out.append(" · ")
    out.append(whose_turn(game, me, glyphs, lang), style="bold cyan")
    return out


def whose_turn(game: Game, me: int | None, glyphs: bool = False, lang: Lang = "en") -> str:
    ph = str(game.phase)
    if ph == "over":
        return i18n.t("tui.turn.over", lang)
    sep = i18n.t("tui.sep", lang)
    if ph in ("exchange", "dingque"):
        waiting = game.pending()
        what = vocab.name_or_id(Kind.ACTION, ph, lang)  # 换三张 / 定缺 in the player's language
        if me is not None and me in waiting:
            return i18n.t("tui.turn.choose", lang, what=what)
        return i18n.t("tui.turn.waiting", lang, what=what, names=sep.join(seat_name(s, me, lang) for s in waiting))
    if ph == "turn":
        return i18n.t("tui.turn.turn", lang, seat=seat_name(game.turn, me, lang))
    w = game.claim_window
    tile = tile_label(w.tile, glyphs, lang) if w is not None else "?"
    src = seat_name(w.seat, me, lang) if w is not None else "?"
    offer = i18n.t("tui.turn.kong_tile" if ph == "rob" else "tui.turn.discard", lang, seat=src, tile=tile)
    if me is None:  # a replay shows who may claim
        names = sep.join(seat_name(s, me, lang) for s in game.pending())
        return i18n.t("tui.turn.claim_waiting", lang, offer=offer, names=names)
    # in play, who else may claim is secret: only say whether the human is asked
    return i18n.t("tui.turn.claim_mine" if me in game.pending() else "tui.turn.claims", lang, offer=offer)


def scores_text(totals: Sequence[int], deltas: Sequence[int] | None, me: int | None,
                names: Sequence[str], lang: Lang = "en") -> Text:
    """The running totals table."""
    out = Text()
    out.append(i18n.t("tui.scores.header", lang) + "\n", style="bold underline")
    for s in range(4):
        who = f"{seat_name(s, me, lang)} {names[s]}".strip()
        hand = signed(deltas[s]) if deltas is not None else ""
        style = "bold" if s == me else ""
        width = 17 - (cell_len(who) - len(who))  # a Chinese character is two cells wide
        out.append(f"{who[:17]:<{max(width, 1)}}{hand:>7}{signed(totals[s]):>8}", style=style)
        if s < 3:
            out.append("\n")
    return out
