"""The settlement of a finished hand in a player's words, in any of the three languages.

One place turns the engine's result (its winners, ledger and events) into sentences:
who won what with which pattern and who paid, every kong, 呼叫转移, and at an
exhaustive draw (流局) every seat still playing: a flower pig (查花猪) and why, ready
(听牌) with its waits and the wait it is charged at (查大叫), or not ready, then
查花猪, 查大叫 and 退税 payment by payment. The terminal, ``xuezhan replay`` and the
web table's ``hand_end`` all show these sentences::

    >>> lines = explain_hand(game, "zh-CN", me=0)            # doctest: +SKIP
    ['2 号位自摸 9万（清一色 + 根，4 番，8 倍），你、1 号位、3 号位各付 48 分', ...]

Seats are named ``names[seat]`` when given (the web table's player names), else "you"
for ``me`` and "seat N" for the others. Sentences come from the ``explain.*`` keys of
the message catalogs; game terms (patterns, extras, ledger reasons) from
:mod:`xuezhan.vocab`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from . import i18n, vocab
from .engine.actions import LedgerEntry
from .engine.game import Game, WinRecord
from .ids import EventKind, Reason
from .records import RecordItem
from .scoring import Score, WinContext, score_win
from .tiles import Tile
from .vocab import DEFAULT_LANG, Kind, Lang

__all__ = [
    "Payment",
    "explain_hand",
    "item_lines",
    "ledger_texts",
    "payments",
    "score_words",
    "seat_names",
    "tile_word",
    "tiles_words",
    "win_amounts",
    "win_texts",
]

_WIN_REASONS: Final = frozenset({Reason.HU, Reason.ZIMO, Reason.CALL_TRANSFER})
_KONG_REASONS: Final = frozenset({Reason.ANGANG, Reason.BUGANG, Reason.ZHIGANG})
_SUIT_KEYS: Final = ("tile.suit_m", "tile.suit_p", "tile.suit_s")


# --- words for the parts ------------------------------------------------------------------------------------


def tile_word(t: Tile, lang: Lang = DEFAULT_LANG) -> str:
    """``5万`` (``5萬`` in Traditional Chinese): the tile as its face reads."""
    return f"{t % 9 + 1}{i18n.t(_SUIT_KEYS[t // 9], lang)}"


def tiles_words(tiles: Sequence[Tile], lang: Lang = DEFAULT_LANG) -> str:
    return " ".join(tile_word(t, lang) for t in tiles)


def suit_word(suit: int, lang: Lang = DEFAULT_LANG) -> str:
    """``万``, ``筒`` or ``条`` (``萬``, ``條`` in Traditional Chinese)."""
    return i18n.t(_SUIT_KEYS[suit], lang)


def seat_names(lang: Lang = DEFAULT_LANG, me: int | None = None, names: Sequence[str] | None = None) -> list[str]:
    """How each seat is called: ``names[seat]`` when given, else "you" for ``me`` and "seat N"."""
    if names is not None:
        if len(names) != 4:
            raise ValueError("four seat names are needed")
        return list(names)
    return [i18n.t("explain.you", lang) if s == me else i18n.t("common.seat", lang, seat=s) for s in range(4)]


def join_words(words: Sequence[str], lang: Lang = DEFAULT_LANG) -> str:
    """``A、B、C`` / ``A, B and C``."""
    if len(words) <= 1:
        return "".join(words)
    return i18n.t("explain.list_sep", lang).join(words[:-1]) + i18n.t("explain.list_last", lang) + words[-1]


def score_words(score: Score, lang: Lang = DEFAULT_LANG) -> str:
    """``清一色 + 根，4 番，8 倍`` (the pattern, its extras, the fan and the multiple)."""
    parts = [vocab.name_or_id(Kind.PATTERN, score.base, lang)]
    for extra, fan in score.extras:
        label = vocab.name_or_id(Kind.EXTRA, extra, lang)
        parts.append(label if fan == 1 else i18n.t("explain.extra_times", lang, name=label, count=fan))
    key = "explain.score_capped" if score.capped else "explain.score"
    return i18n.t(key, lang, pattern=i18n.t("explain.plus", lang).join(parts), fan=score.fan,
                  multiple=score.multiple)


# --- the ledger tied to the wins ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Payment:
    """A ledger entry with the win it pays for (``hu``/``zimo``/``call_transfer``), if any."""

    entry: LedgerEntry
    win: WinRecord | None


def _steps(game: Game) -> list[Payment | None]:
    """The ledger in order, each win payment tied to its win; ``None`` where the wall ran out.

    The engine emits each ``hu`` event right before the payments for it, and appends to
    ``winners`` in the same order, so the k-th ``hu`` event is ``winners[k]``.
    """
    out: list[Payment | None] = []
    current: dict[int, WinRecord] = {}
    k = 0
    ledger_i = 0
    ledger = game.ledger
    for ev in game.events:
        kind = ev.get("type")
        if kind == EventKind.HU:
            if k < len(game.winners):
                current[game.winners[k].seat] = game.winners[k]
            k += 1
        elif kind == EventKind.WALL_EMPTY:
            out.append(None)
        elif kind == EventKind.PAY and ledger_i < len(ledger):
            entry = ledger[ledger_i]
            ledger_i += 1
            win = current.get(entry.to_seat) if entry.reason in _WIN_REASONS else None
            out.append(Payment(entry, win))
    return out


def payments(game: Game) -> list[Payment]:
    """The ledger in order, each win payment tied to its win."""
    return [p for p in _steps(game) if p is not None]


def win_amounts(game: Game) -> dict[int, int]:
    """Points each win brought its winner (by index in ``game.winners``), call transfer included."""
    index = {id(w): i for i, w in enumerate(game.winners)}
    out: dict[int, int] = {}
    for p in payments(game):
        if p.win is not None:
            i = index[id(p.win)]
            out[i] = out.get(i, 0) + p.entry.points
    return out


def _group(pays: Sequence[Payment]) -> list[list[Payment]]:
    """Consecutive like payments together: several payers of one payee for one thing (a self-drawn
    win, a kong), or one payer of several payees (a flower pig)."""
    groups: list[list[Payment]] = []
    i = 0
    while i < len(pays):
        e = pays[i].entry
        j = i + 1
        while (j < len(pays) and pays[j].entry.reason == e.reason and pays[j].entry.to_seat == e.to_seat
               and pays[j].entry.points == e.points and pays[j].win is pays[i].win
               and pays[j].entry.from_seat not in [q.entry.from_seat for q in pays[i:j]]):
            j += 1
        if j - i == 1 and e.reason == Reason.HUA_ZHU:
            while (j < len(pays) and pays[j].entry.reason == e.reason and pays[j].entry.from_seat == e.from_seat
                   and pays[j].entry.points == e.points
                   and pays[j].entry.to_seat not in [q.entry.to_seat for q in pays[i:j]]):
                j += 1
        groups.append(list(pays[i:j]))
        i = j
    return groups


# --- readiness at the end ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Wait:
    tile: Tile
    score: Score


def _charged_wait(game: Game, seat: int) -> _Wait | None:
    """The wait 查大叫 charges ``seat``'s hand at: the first of its waits whose discard win, scored
    as the engine scores it (no self-draw, roots counted), is worth the engine's 大叫
    (:meth:`Game.da_jiao`: the best or the lowest, by ``cha_jiao_pays``)."""
    state = game.seat_state(seat)
    charged = game.da_jiao(seat)
    for t in game.waits(seat):
        s = score_win([*state.hand, t], list(state.melds), t, WinContext(), game.rules, state.void, check=False)
        if isinstance(s, Score) and s.hand_points == charged:
            return _Wait(t, s)
    return None


def _status_lines(game: Game, lang: Lang, who: Sequence[str], paid_cha_jiao: set[int]) -> list[str]:
    """Every seat still playing when the wall ran out: a flower pig and why, ready and on what, or not."""
    lines: list[str] = []
    for seat in range(4):
        if not game.contending(seat):
            continue
        state = game.seat_state(seat)
        if game.is_hua_zhu(seat):
            if all(state.suit_sizes) or state.void is None:
                lines.append(i18n.t("explain.pig_three_suits", lang, seat=who[seat]))
            else:
                lines.append(i18n.t("explain.pig_void", lang, seat=who[seat], suit=suit_word(state.void, lang)))
            continue
        waits = game.waits(seat)
        charged = _charged_wait(game, seat) if waits else None
        if charged is None:
            lines.append(i18n.t("explain.not_ready", lang, seat=who[seat]))
        elif seat in paid_cha_jiao:
            lines.append(i18n.t("explain.dead_wait", lang, seat=who[seat], waits=tiles_words(waits, lang)))
        else:
            key = "explain.ready_lowest" if game.rules.cha_jiao_pays == "min" else "explain.ready"
            lines.append(i18n.t(key, lang, seat=who[seat], waits=tiles_words(waits, lang),
                                tile=tile_word(charged.tile, lang), score=score_words(charged.score, lang),
                                points=charged.score.hand_points, count=charged.score.hand_points))
    return lines


# --- sentences ----------------------------------------------------------------------------------------------


def _win_sentence(win: WinRecord, group: Sequence[Payment], lang: Lang, who: Sequence[str]) -> str:
    score = score_words(win.score, lang)
    tile = tile_word(win.tile, lang)
    if not group:
        return i18n.t("explain.win_unpaid", lang, winner=who[win.seat], tile=tile, score=score)
    points = group[0].entry.points
    if win.from_seat is None:
        key = "explain.win_self" if len(group) > 1 else "explain.win_self_one"
        text = i18n.t(key, lang, winner=who[win.seat], tile=tile, score=score,
                      payers=join_words([who[p.entry.from_seat] for p in group], lang), points=points, count=points)
        bonus = win.score.points - win.score.hand_points
        if bonus > 0:
            text += i18n.t("explain.win_self_bonus", lang, bonus=bonus)
        return text
    key = "explain.win_robbed" if win.robbed else "explain.win_discard"
    return i18n.t(key, lang, winner=who[win.seat], from_seat=who[win.from_seat], tile=tile, score=score,
                  points=points, count=points)


def _group_sentence(game: Game, group: Sequence[Payment], lang: Lang, who: Sequence[str]) -> str:
    first = group[0]
    e = first.entry
    payer, payee, points = who[e.from_seat], who[e.to_seat], e.points
    if first.win is not None and e.reason in (Reason.HU, Reason.ZIMO):
        return _win_sentence(first.win, group, lang, who)
    if e.reason == Reason.CALL_TRANSFER:
        return i18n.t("explain.call_transfer", lang, payer=payer, payee=payee, points=points, count=points)
    if e.reason in _KONG_REASONS:
        kong = vocab.name_or_id(Kind.REASON, e.reason, lang)
        if len(group) > 1:
            return i18n.t("explain.kong_each", lang, payee=payee, kong=kong, points=points, count=points,
                          payers=join_words([who[p.entry.from_seat] for p in group], lang))
        return i18n.t("explain.kong_one", lang, payee=payee, kong=kong, payer=payer, points=points, count=points)
    if e.reason == Reason.HUA_ZHU:
        return i18n.t("explain.hua_zhu", lang, payer=payer, points=points, count=points,
                      payees=join_words([who[p.entry.to_seat] for p in group], lang))
    if e.reason == Reason.CHA_JIAO:
        charged = _charged_wait(game, e.to_seat)
        tile = tile_word(charged.tile, lang) if charged is not None else "-"
        score = score_words(charged.score, lang) if charged is not None else "-"
        return i18n.t("explain.cha_jiao", lang, payer=payer, payee=payee, points=points, count=points, tile=tile,
                      score=score)
    if e.reason == Reason.TUI_SHUI:
        return i18n.t("explain.tui_shui", lang, payer=payer, payee=payee, points=points, count=points)
    if e.reason == Reason.ESCAPE:
        return i18n.t("explain.escape", lang, payer=payer, payee=payee, points=points, count=points)
    return i18n.t("explain.other_payment", lang, reason=vocab.name_or_id(Kind.REASON, e.reason, lang),
                  payer=payer, payee=payee, points=points, count=points)


def _split_by_payer(group: list[Payment]) -> list[list[Payment]]:
    """A group as one sentence each where one sentence cannot say it (several payers of a kong say
    "each paid"; several payees only for a flower pig)."""
    reason = group[0].entry.reason
    if len(group) == 1 or reason in _KONG_REASONS or reason in (Reason.ZIMO, Reason.HUA_ZHU):
        return [group]
    return [[p] for p in group]


def explain_hand(game: Game, lang: Lang = DEFAULT_LANG, me: int | None = None,
                 names: Sequence[str] | None = None) -> list[str]:
    """The hand's settlement as sentences, in the order things happened, ending with each seat's result.

    ``me`` is the seat the sentences are written for ("you"); ``names`` names the seats instead
    (four strings). Works on a hand in progress too (what has been paid so far)."""
    who = seat_names(lang, me, names)
    steps = _steps(game)
    paid_cha_jiao = {p.entry.from_seat for p in steps if p is not None and p.entry.reason == Reason.CHA_JIAO}
    lines: list[str] = []
    run: list[Payment] = []
    explained_wins: set[int] = set()

    def flush() -> None:
        for group in _group(run):
            for part in _split_by_payer(group):
                if part[0].win is not None:
                    explained_wins.add(id(part[0].win))
                lines.append(_group_sentence(game, part, lang, who))
        run.clear()

    for step in steps:
        if step is None:
            flush()
            if sum(game.contending(s) for s in range(4)) < 2:  # nobody left to check against
                lines.append(i18n.t("explain.wall_empty_over", lang))
                continue
            key = "explain.wall_empty" if game.winners else "explain.wall_empty_nobody"
            lines.append(i18n.t(key, lang))
            lines.extend(f"  {line}" for line in _status_lines(game, lang, who, paid_cha_jiao))
        else:
            run.append(step)
    flush()
    for win in game.winners:  # a win nobody paid for (every other seat had left) still counts
        if id(win) not in explained_wins:
            lines.append(_win_sentence(win, [], lang, who))
    if not game.ledger:
        lines.append(i18n.t("explain.no_payments", lang))
    deltas = game.deltas()
    items = [i18n.t("explain.net_item", lang, seat=who[s], delta=f"{d:+d}") for s, d in enumerate(deltas)]
    lines.append(i18n.t("explain.net", lang, deltas=i18n.t("explain.net_sep", lang).join(items)))
    return lines


def ledger_texts(game: Game, lang: Lang = DEFAULT_LANG, me: int | None = None,
                 names: Sequence[str] | None = None) -> list[str]:
    """One line per ledger entry, in the ledger's order: ``2 号位付你 6 分：平胡，1 番，1 倍``."""
    who = seat_names(lang, me, names)
    out: list[str] = []
    for p in payments(game):
        e = p.entry
        if p.win is not None and e.reason in (Reason.HU, Reason.ZIMO):
            score = score_words(p.win.score, lang)
            if e.reason == Reason.ZIMO:
                what = i18n.t("explain.what_self", lang, score=score)
            elif p.win.robbed:
                what = i18n.t("explain.what_robbed", lang, score=score)
            else:
                what = score
        else:
            what = vocab.name_or_id(Kind.REASON, e.reason, lang)
        out.append(i18n.t("explain.line", lang, payer=who[e.from_seat], payee=who[e.to_seat], points=e.points,
                          count=e.points, what=what))
    return out


def win_texts(game: Game, lang: Lang = DEFAULT_LANG, me: int | None = None,
              names: Sequence[str] | None = None) -> list[str]:
    """One sentence per win, in ``game.winners`` order (who won on what, the pattern, who paid)."""
    who = seat_names(lang, me, names)
    by_win: dict[int, list[Payment]] = {}
    for p in payments(game):
        if p.win is not None and p.entry.reason in (Reason.HU, Reason.ZIMO):
            by_win.setdefault(id(p.win), []).append(p)
    return [_win_sentence(w, by_win.get(id(w), []), lang, who) for w in game.winners]


# --- item cards ----------------------------------------------------------------------------------------------


def item_lines(items: Sequence[RecordItem], lang: Lang = DEFAULT_LANG, me: int | None = None,
               names: Sequence[str] | None = None) -> list[str]:
    """One sentence per item card a hand's record lists (docs/rules.md §13), in the order used:
    who used which card, and what it did (the tiles of a swap, a seek's answer, a flush's
    suit); ``step`` counts the record's actions from 1."""
    who = seat_names(lang, me, names)
    out = []
    for item in items:
        card = vocab.name_or_id(Kind.ITEM, item.kind, lang)
        step = (item.at or 0) + 1
        if item.kind == "double":
            out.append(i18n.t("explain.item.double", lang, seat=who[item.seat], card=card))
        elif item.kind == "flush" and item.suit is not None:
            out.append(i18n.t("explain.item.flush", lang, seat=who[item.seat], card=card,
                              suit=suit_word(item.suit, lang)))
        elif item.kind in ("swap", "random_swap") and item.tile is not None and item.wanted is not None:
            out.append(i18n.t("explain.item.swap", lang, seat=who[item.seat], card=card, step=step,
                              tile=tile_word(item.tile, lang), wanted=tile_word(item.wanted, lang)))
        elif item.kind == "seek" and item.tile is not None and item.quarters is not None:
            out.append(i18n.t("explain.item.seek", lang, seat=who[item.seat], card=card, step=step,
                              tile=tile_word(item.tile, lang), quarters=" / ".join(str(q) for q in item.quarters)))
        else:
            out.append(i18n.t("explain.item.other", lang, seat=who[item.seat], card=card))
    return out
