"""The game in words and colours: tiles, events, ledger entries, the settlement.

Everything here is plain functions from engine values to text, so the match
controller, the screens and the tests share one wording. ``me`` is the seat the
text is written for ("you"); ``None`` writes every seat by number (a replay).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from rich.text import Text

from .. import vocab
from ..engine.actions import LedgerEntry
from ..engine.game import EXCHANGE_DIRECTIONS, Game, WinRecord
from ..engine.views import visible_events
from ..scoring import Meld, MeldKind
from ..tiles import SUIT_NAMES_ZH, Tile
from ..vocab import Kind

SUIT_STYLES: Final = ("bold #ff6b6b", "bold #6cb6ff", "bold #5fd75f")
"""万 red, 筒 blue, 条 green."""

_GLYPH_BASE: Final = (0x1F007, 0x1F019, 0x1F010)  # 🀇 万, 🀙 筒, 🀐 条 (Unicode orders them m, s, p)
_DIRECTION_WORDS: Final = {v: k for k, v in EXCHANGE_DIRECTIONS.items()}
SEAT_ROLES: Final = ("", "下家", "对家", "上家")
"""Where seat ``(me + k) % 4`` sits for ``me``: next (on the right), opposite, previous (on the left)."""

_NAMED_BY_ID: Final = frozenset({"angang", "bugang", "zhigang"})  # the log names kongs by id too


def reason_words(reason: str) -> str:
    """A ledger reason in the terminal's words: its English name from :mod:`xuezhan.vocab`
    (``flower pig``); the kongs add their id, as the log does (``direct kong (zhigang)``)."""
    en = vocab.name_or_id(Kind.REASON, reason, "en")
    return f"{en} ({reason})" if reason in _NAMED_BY_ID else en


REASON_WORDS: Final = {reason: reason_words(reason) for reason in vocab.ids(Kind.REASON)}
"""Every ledger reason in the terminal's words."""


# --- tiles -------------------------------------------------------------------------------------------


def tile_label(t: Tile, glyphs: bool = False) -> str:
    """``5万`` (or the Unicode tile ``🀋`` with ``glyphs``)."""
    if glyphs:
        return chr(_GLYPH_BASE[t // 9] + t % 9)
    return f"{t % 9 + 1}{SUIT_NAMES_ZH[t // 9]}"


def tile_text(t: Tile, glyphs: bool = False, style: str = "") -> Text:
    """One tile in its suit's colour."""
    text = Text(tile_label(t, glyphs), style=SUIT_STYLES[t // 9])
    if style:
        text.stylize(style)
    return text


def tiles_text(tiles: Sequence[Tile], glyphs: bool = False, sep: str = " ") -> Text:
    out = Text()
    for i, t in enumerate(tiles):
        if i:
            out.append(sep)
        out.append_text(tile_text(t, glyphs))
    return out


def tiles_words(tiles: Sequence[Tile], glyphs: bool = False) -> str:
    return " ".join(tile_label(t, glyphs) for t in tiles)


def meld_text(meld: Meld, glyphs: bool = False) -> Text:
    """``[5万5万5万]``; a concealed kong is marked 暗."""
    inner = tiles_text([meld.tile] * meld.size, glyphs, sep="")
    out = Text("[")
    out.append_text(inner)
    out.append("]")
    if meld.kind is MeldKind.ANGANG:
        out.append("暗", style="dim")
    return out


def suit_name(suit: int) -> str:
    return SUIT_NAMES_ZH[suit]


def seat_name(seat: int, me: int | None) -> str:
    return "you" if seat == me else f"seat {seat}"


def join_names(names: Sequence[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def ordinal(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


def signed(n: int) -> str:
    return f"{n:+d}"


# --- wins ---------------------------------------------------------------------------------------------


def score_words(win: WinRecord) -> str:
    """``清一色 + 根, 4 fan, x8`` (names from :mod:`xuezhan.vocab`)."""
    s = win.score
    parts = [vocab.name_or_id(Kind.PATTERN, s.base)]
    for name, fan in s.extras:
        label = vocab.name_or_id(Kind.EXTRA, name)
        parts.append(label if fan == 1 else f"{label} {fan}")
    out = " + ".join(parts) + f", {s.fan} fan, x{s.multiple}"
    if s.capped:
        out += " (capped)"
    return out


def win_words(win: WinRecord, me: int | None, glyphs: bool = False) -> str:
    """``you won (1st) on 9万 from seat 1: 平胡, 1 fan, x1``."""
    who = seat_name(win.seat, me)
    tile = tile_label(win.tile, glyphs)
    if win.from_seat is None:
        how = f"self-drawn with {tile}"
    elif win.robbed:
        how = f"robbing {seat_name(win.from_seat, me)}'s kong of {tile}"
    else:
        how = f"on {tile} from {seat_name(win.from_seat, me)}"
    return f"{who} won ({ordinal(win.order)}) {how}: {score_words(win)}"


@dataclass(frozen=True, slots=True)
class Payment:
    """A ledger entry with the win it pays for (``hu``/``zimo``/``call_transfer``), if any."""

    entry: LedgerEntry
    win: WinRecord | None


def payments(game: Game) -> list[Payment]:
    """The ledger in order, each win payment tied to its win.

    The engine emits each ``hu`` event right before the payments for it, and appends
    to ``winners`` in the same order, so the k-th ``hu`` event is ``winners[k]``.
    """
    out: list[Payment] = []
    current: dict[int, WinRecord] = {}
    k = 0
    ledger_i = 0
    for ev in game.events:
        kind = ev.get("type")
        if kind == "hu":
            if k < len(game.winners):
                current[game.winners[k].seat] = game.winners[k]
            k += 1
        elif kind == "pay" and ledger_i < len(game.ledger):
            entry = game.ledger[ledger_i]
            ledger_i += 1
            win = current.get(entry.to_seat) if entry.reason in ("hu", "zimo", "call_transfer") else None
            out.append(Payment(entry, win))
    return out


def win_amounts(game: Game) -> dict[int, int]:
    """Points each win brought its winner (by index in ``game.winners``), call transfer included."""
    index = {id(w): i for i, w in enumerate(game.winners)}
    out: dict[int, int] = {}
    for p in payments(game):
        if p.win is not None:
            i = index[id(p.win)]
            out[i] = out.get(i, 0) + p.entry.points
    return out


# --- the ledger in words ------------------------------------------------------------------------------


def _what(p: Payment) -> str:
    e = p.entry
    if e.reason == "hu" and p.win is not None:
        out = score_words(p.win)
        return out + (", robbing the kong" if p.win.robbed else "")
    if e.reason == "zimo" and p.win is not None:
        out = "self-drawn, " + score_words(p.win)
        bonus = p.win.score.points - p.win.score.hand_points
        return out + (f", +{bonus} self-draw bonus" if bonus > 0 else "")
    return reason_words(e.reason)


def ledger_lines(game: Game, me: int | None) -> list[str]:
    """Every ledger entry in words, consecutive like payments grouped.

    ``seat 3 paid you 24: qing_yi_se, 3 fan, x4``;
    ``seat 1, seat 2 and seat 3 each paid you 30: self-drawn, ...``;
    ``flower pig: seat 2 paid 96 to each of you and seat 1``.
    """
    pays = payments(game)
    lines: list[str] = []
    i = 0
    while i < len(pays):
        p = pays[i]
        e = p.entry
        j = i + 1
        # several payers, one payee (a self-drawn win, a kong)
        while (j < len(pays) and pays[j].entry.reason == e.reason and pays[j].entry.to_seat == e.to_seat
               and pays[j].entry.points == e.points and pays[j].win is p.win
               and pays[j].entry.from_seat not in [q.entry.from_seat for q in pays[i:j]]):
            j += 1
        if j - i > 1:
            payers = join_names([seat_name(q.entry.from_seat, me) for q in pays[i:j]])
            lines.append(f"{payers} each paid {seat_name(e.to_seat, me)} {e.points}: {_what(p)}")
            i = j
            continue
        j = i + 1
        # one payer, several payees (a flower pig, a refund)
        while (j < len(pays) and pays[j].entry.reason == e.reason and pays[j].entry.from_seat == e.from_seat
               and pays[j].entry.points == e.points and pays[j].win is None and p.win is None
               and pays[j].entry.to_seat not in [q.entry.to_seat for q in pays[i:j]]):
            j += 1
        if j - i > 1:
            payees = join_names([seat_name(q.entry.to_seat, me) for q in pays[i:j]])
            lines.append(f"{_what(p)}: {seat_name(e.from_seat, me)} paid {e.points} to each of {payees}")
            i = j
            continue
        lines.append(f"{seat_name(e.from_seat, me)} paid {seat_name(e.to_seat, me)} {e.points}: {_what(p)}")
        i += 1
    return lines


def deltas_words(deltas: Sequence[int], me: int | None) -> str:
    return " · ".join(f"{seat_name(s, me)} {signed(d)}" for s, d in enumerate(deltas))


# --- events in words ----------------------------------------------------------------------------------

_TILED: Final = frozenset({"deal", "draw", "exchange", "exchange_received", "angang", "swap", "pass_hu"})
"""Events that carry tiles; a view withholds them from the other seats when the event is private."""


def event_words(ev: dict[str, Any], me: int | None, *, glyphs: bool = False, reveal: bool = False) -> str | None:
    """One event as ``me`` sees it (from :func:`xuezhan.engine.views.visible_events`) as a line of
    the log, or ``None`` when it is not worth a line. ``reveal`` (a replay, given the events
    whole) shows every private event."""
    kind = ev.get("type")
    if kind in _TILED and "tile" not in ev and "tiles" not in ev:
        # another seat's private event, its tiles withheld by the view
        if kind == "angang":  # everyone sees the kong, face down
            return f"{seat_name(int(ev['seat']), me)} made a concealed kong, face down (angang)"
        return None  # another seat's secret (its deal, its draws, its exchange): not for us

    def who(key: str = "seat") -> str:
        return seat_name(int(ev[key]), me)

    def tile(key: str = "tile") -> str:
        return tile_label(int(ev[key]), glyphs)

    if kind == "start":
        return f"new hand: {who('dealer')} deal{'' if ev['dealer'] == me else 's'}"
    if kind == "exchange":
        return f"{who()} passed {tiles_words(ev['tiles'], glyphs)} to {who('to')}"
    if kind == "exchange_received" and not reveal:
        return f"{who()} received {tiles_words(ev['tiles'], glyphs)}"
    if kind == "exchange_done":
        return f"换三张 done ({_DIRECTION_WORDS.get(int(ev['direction']), ev['direction'])})"
    if kind == "dingque":
        voids = ev["voids"]
        parts = [f"{seat_name(s, me)} {suit_name(v) if v is not None else '-'}" for s, v in enumerate(voids)]
        return "voids (定缺): " + ", ".join(parts)
    if kind == "draw":
        rep = " (kong replacement)" if ev.get("replacement") else ""
        return f"{who()} drew {tile()}{rep}" if (ev["seat"] == me or reveal) else None
    if kind == "discard":
        return f"{who()} discarded {tile()}"
    if kind == "peng":
        return f"{who()} peng {tile()} from {who('from')}"
    if kind == "zhigang":
        return f"{who()} kong {tile()} from {who('from')} (zhigang)"
    if kind == "angang":
        return f"{who()} concealed kong {tile()} (angang)"
    if kind == "bugang_declared":
        return f"{who()} adds {tile()} to a peng (bugang)"
    if kind == "hu":
        tail = f", {ev['base']}, {ev['fan']} fan, x{ev['multiple']}"
        if ev.get("from") is None:
            return f"{who()} HU self-drawn with {tile()}{tail}"
        rob = " robbing the kong" if ev.get("robbing") else ""
        return f"{who()} HU on {tile()} from {who('from')}{rob}{tail}"
    if kind == "pay":
        return f"  {seat_name(int(ev['from']), me)} paid {seat_name(int(ev['to']), me)} {ev['points']} ({ev['reason']})"
    if kind == "pass_hu":
        return f"{who()} passed a win on {tile()}: no hu on it until {'your' if ev['seat'] == me else 'its'} next draw"
    if kind == "wall_empty":
        return "the wall is empty"
    if kind == "end":
        return "the hand is over"
    if kind == "escape":
        return f"{who()} left the table"
    if kind == "swap":
        return f"{who()} swapped {tile()} for {tiles_words(ev['tiles'], glyphs)} (item card)"
    return None


def last_action_words(game: Game, me: int | None, *, glyphs: bool = False, reveal: bool = False) -> str:
    """The latest public move (a discard, a claim, a kong, a win, a void choice), in words, as ``me``
    sees it (``reveal``: a replay, every event whole)."""
    moves = {"discard", "peng", "zhigang", "angang", "bugang_declared", "hu", "dingque", "exchange_done",
             "escape", "wall_empty", "start"}
    events = game.events if reveal else visible_events(game, me)
    for ev in reversed(events):
        if ev.get("type") in moves:
            words = event_words(ev, me, glyphs=glyphs, reveal=reveal)
            if words:
                return words
    return ""
