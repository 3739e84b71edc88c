"""The settlement's two pages: the hand at a glance, and every payment.

The summary (:func:`summary_text`) fits one 80x24 screen whatever happened: one line per
winning seat (how it won, the pattern and its fan, what its wins brought), one line per
other kind of payment (杠, 呼叫转移, 查大叫, 查花猪, 退税 ...: each seat's net from it, so a
hand of many kongs still takes one line), a line when the wall ran out, and a table of
every seat's points this hand and in the match; at the end of the match the table is the
final standings, ranked, with each seat's wins. The details (:func:`details_text`) are
every sentence of :func:`xuezhan.explain.explain_hand`, the record's path and the command
that deals the same hands again; they scroll.

Every word is in the player's language: seats as :func:`~xuezhan.words.seat_name` names
them, bots as :func:`~xuezhan.tui.words.bot_name`, game terms from :mod:`xuezhan.vocab`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rich.cells import cell_len
from rich.text import Text

from .. import i18n, vocab
from ..engine.game import Game, WinRecord
from ..explain import explain_hand, payments
from ..i18n import Lang
from ..ids import EventKind, Reason
from ..scoring import Score
from ..vocab import Kind
from .words import bot_name, seat_name, signed, tile_label

__all__ = ["HandFacts", "details_text", "summary_text"]

_WIN_REASONS = frozenset({Reason.HU, Reason.ZIMO})
_KONGS = "kongs"
_KONG_REASONS = frozenset({Reason.ANGANG, Reason.BUGANG, Reason.ZHIGANG})
_ORDER = (_KONGS, Reason.CALL_TRANSFER, Reason.CHA_JIAO, Reason.HUA_ZHU, Reason.TUI_SHUI, Reason.ESCAPE)


@dataclass(frozen=True, slots=True)
class HandFacts:
    """What the settlement says besides the game itself: the match's totals after the hand, and at
    the match's end each seat's number of wins (``wins``, which turns the table into the standings)."""

    me: int
    totals: Sequence[int]
    wins: Sequence[int] | None = None
    record_path: Path | None = None
    record_error: str | None = None
    next_dealer: str | None = None
    again: str | None = None


def _t(key: str, lang: Lang, **params: object) -> str:
    return i18n.t(f"tui.{key}", lang, **params)


def _pad(text: str, width: int, *, right: bool = False) -> str:
    """``text`` padded to ``width`` cells (a Chinese character is two cells wide)."""
    room = max(width - cell_len(text), 0)
    return " " * room + text if right else text + " " * room


def short_score(score: Score, lang: Lang) -> str:
    """``清一色 + 根 4番``: the pattern, its extras and the fan (the multiple is in the details)."""
    parts = [vocab.name_or_id(Kind.PATTERN, score.base, lang)]
    for extra, fan in score.extras:
        label = vocab.name_or_id(Kind.EXTRA, extra, lang)
        parts.append(label if fan == 1 else i18n.t("explain.extra_times", lang, name=label, count=fan))
    return _t("summary.score", lang, pattern=i18n.t("explain.plus", lang).join(parts), fan=score.fan)


def _how(win: WinRecord, me: int, lang: Lang, glyphs: bool) -> str:
    tile = tile_label(win.tile, glyphs, lang)
    if win.from_seat is None:
        return _t("seat.won_self", lang, tile=tile)
    key = "seat.won_rob" if win.robbed else "seat.won_from"
    return _t(key, lang, tile=tile, from_seat=seat_name(win.from_seat, me, lang))


def win_lines(game: Game, me: int, lang: Lang, glyphs: bool = False) -> list[str]:
    """One line per winning seat, in the order of their first win: how it won, the pattern and fan,
    and the points the win brought (several wins of one seat, 血流成河: how many and the best)."""
    brought: dict[int, int] = {}
    for p in payments(game):
        if p.win is not None and p.entry.reason in _WIN_REASONS:
            brought[id(p.win)] = brought.get(id(p.win), 0) + p.entry.points
    by_seat: dict[int, list[WinRecord]] = {}
    for w in game.winners:
        by_seat.setdefault(w.seat, []).append(w)
    lines = []
    for seat, wins in by_seat.items():
        amount = signed(sum(brought.get(id(w), 0) for w in wins))
        if len(wins) == 1:
            what = _t("summary.win_one", lang, how=_how(wins[0], me, lang, glyphs),
                      score=short_score(wins[0].score, lang))
        else:
            best = max(wins, key=lambda w: (w.score.points, -w.order))
            what = _t("summary.win_many", lang, count=len(wins), score=short_score(best.score, lang))
        lines.append(_t("summary.win", lang, seat=seat_name(seat, me, lang), what=what, amount=amount))
    return lines


def payment_lines(game: Game, me: int, lang: Lang) -> list[str]:
    """One line per kind of payment other than a win's own (every kong together): each seat's net."""
    nets: dict[str, list[int]] = {}
    for e in game.ledger:
        if e.reason in _WIN_REASONS:
            continue
        kind = _KONGS if e.reason in _KONG_REASONS else str(e.reason)
        net = nets.setdefault(kind, [0, 0, 0, 0])
        net[e.to_seat] += e.points
        net[e.from_seat] -= e.points
    kinds = [k for k in _ORDER if k in nets] + sorted(k for k in nets if k not in _ORDER)
    lines = []
    for kind in kinds:
        label = _t("summary.kongs", lang) if kind == _KONGS else vocab.name_or_id(Kind.REASON, kind, lang)
        items = " · ".join(f"{seat_name(s, me, lang)} {signed(d)}" for s, d in enumerate(nets[kind]) if d)
        lines.append(_t("summary.payment", lang, kind=label, items=items or "±0"))
    return lines


def _seat_label(seat: int, me: int, lang: Lang) -> str:
    if seat == me:
        return _t("seat.me", lang, seat=seat)
    return _t("settle.bot_seat", lang, seat=seat_name(seat, None, lang), bot=bot_name(seat, lang))


def points_table(deltas: Sequence[int], facts: HandFacts, lang: Lang) -> Text:
    """Every seat's points this hand and in the match; with ``facts.wins`` (the match is over) the
    final standings: ranked by total (ties by seat), each seat's wins too."""
    me = facts.me
    labels = [_seat_label(s, me, lang) for s in range(4)]
    width = max(cell_len(x) for x in [*labels, _t("summary.col_seat", lang)]) + 2
    ranked = facts.wins is not None
    order = sorted(range(4), key=lambda s: (-facts.totals[s], s)) if ranked else list(range(4))

    def row(rank: str, seat: str, wins: str, hand: str, total: str) -> str:
        head = _pad(rank, 6) if ranked else ""
        middle = _pad(wins, 6, right=True) if ranked else ""
        return f"  {head}{_pad(seat, width)}{middle}{_pad(hand, 8, right=True)}{_pad(total, 8, right=True)}"

    out = Text()
    out.append(row(_t("summary.col_rank", lang), _t("summary.col_seat", lang), _t("summary.col_wins", lang),
                   _t("summary.col_hand", lang), _t("summary.col_total", lang)), style="bold underline")
    for rank, s in enumerate(order, start=1):
        wins = str(facts.wins[s]) if facts.wins is not None else ""
        out.append("\n")
        out.append(row(str(rank), labels[s], wins, signed(deltas[s]), signed(facts.totals[s])),
                   style="bold" if s == me else "")
    return out


def summary_text(game: Game, facts: HandFacts, lang: Lang, glyphs: bool = False) -> Text:
    """The hand at a glance (see the module): at most a line per seat that won, a line per kind of
    payment, the wall, the table, the next dealer; never a line per payment."""
    me = facts.me
    out = Text()
    for line in win_lines(game, me, lang, glyphs):
        out.append(line + "\n", style="bold yellow")
    if any(ev.get("type") == EventKind.WALL_EMPTY for ev in game.events):
        out.append(_t("summary.wall_empty", lang) + "\n")
    for line in payment_lines(game, me, lang):
        out.append(line + "\n")
    if not game.ledger:
        out.append(i18n.t("explain.no_payments", lang) + "\n", style="dim")
    out.append_text(points_table(game.deltas(), facts, lang))
    if facts.record_error is not None:
        out.append("\n" + _t("settle.not_saved", lang, error=facts.record_error), style="bold red")
    if facts.next_dealer is not None:
        out.append("\n" + facts.next_dealer, style="dim")
    return out


def details_text(game: Game, facts: HandFacts, lang: Lang) -> Text:
    """Every payment in words (:func:`xuezhan.explain.explain_hand`), where the record went, and at
    the match's end the command that deals the same hands again."""
    out = Text()
    out.append(_t("settle.explained", lang) + "\n", style="bold underline")
    winners = {seat_name(w.seat, facts.me, lang) for w in game.winners}
    for line in explain_hand(game, lang, me=facts.me):
        winner = any(line.startswith(name) for name in winners)
        out.append(f"  {line}\n", style="bold yellow" if winner else "")
    if facts.record_path is not None:
        out.append(_t("settle.saved", lang, path=facts.record_path) + "\n", style="dim")
    if facts.record_error is not None:
        out.append(_t("settle.not_saved", lang, error=facts.record_error) + "\n", style="bold red")
    if facts.again is not None:
        out.append(facts.again + "\n", style="dim")
    out.rstrip()
    return out
