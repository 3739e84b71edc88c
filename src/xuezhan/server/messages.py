"""The table's messages about a finished hand and a finished match, in a player's words.

Pure functions of the hand's result, the names at the table and a language. When a hand ends
the table keeps a :class:`ByLang` of them: each language's message is built the first time a
connection in that language needs it (the parts no language changes, such as each winner's
hand, once for all), sent to each connection, and sent again to whoever (re)connects between
hands.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Final

from .. import i18n, vocab
from ..engine.game import Game
from ..explain import explain_hand, ledger_texts, payments, score_words, win_texts
from ..i18n import Lang
from ..ids import EventKind, Reason
from ..match import HandResult, Match, RoomConfig
from ..scoring import Meld
from ..tiles import Tile, format_tiles, tiles_of
from ..vocab import Kind
from .bank import Settled, is_bot
from .bystanders import bets_json
from .words import coins_text, display_name

KONG_KIND: Final = "kong"
"""The one line of the settlement that gathers every kong's payments (刮风下雨)."""
_KIND_OF: Final[Mapping[str, str]] = {Reason.ANGANG: KONG_KIND, Reason.BUGANG: KONG_KIND,
                                      Reason.ZHIGANG: KONG_KIND}
_KIND_ORDER: Final = (KONG_KIND, Reason.CALL_TRANSFER, Reason.HUA_ZHU, Reason.CHA_JIAO, Reason.TUI_SHUI,
                      Reason.ESCAPE, Reason.JIAO_MA, Reason.DOUBLE_CARD)
_WIN_PAYMENTS: Final = frozenset({Reason.HU, Reason.ZIMO})


def win_hands(game: Game) -> list[tuple[tuple[Tile, ...], tuple[Meld, ...]]]:
    """Each win's hand as it was laid down, in ``game.winners`` order: the concealed tiles
    without the winning tile, and the melds.

    In 血战到底 a winner lays its hand down and plays no more: its hand at the end is the one it
    won with (the winning tile in it when self-drawn; a tile won on stays in the river). In
    血流成河 a winner plays on, so the hand is played again from its deal (the record: deal and
    actions) and each seat is read just before the action that made it win."""
    if game.winners_play_on:
        return replayed_win_hands(game)
    out: list[tuple[tuple[Tile, ...], tuple[Meld, ...]]] = []
    for w in game.winners:
        seat = game.seat_state(w.seat)
        concealed = tiles_of(seat.counts)
        if w.from_seat is None:  # self-drawn: the winning tile is in the hand
            concealed.remove(w.tile)
        out.append((tuple(concealed), tuple(seat.melds)))
    return out


def replayed_win_hands(game: Game) -> list[tuple[tuple[Tile, ...], tuple[Meld, ...]]]:
    """:func:`win_hands` by playing the hand again from its deal, whatever the rules."""
    again = Game(game.rules, game.deal, game.dealer, exchange_direction=game.exchange_direction,
                 bystanders=len(game.bystander_tiles), validate=False)
    out: list[tuple[tuple[Tile, ...], tuple[Meld, ...]]] = []
    for action in game.actions:
        before = [(again.seat_state(s).counts, again.seat_state(s).melds) for s in range(4)]
        n = len(again.winners)
        again.apply(action)
        for w in again.winners[n:]:
            counts, melds = before[w.seat]
            concealed = tiles_of(counts)
            if w.from_seat is None:  # self-drawn: the winning tile was in the hand
                concealed.remove(w.tile)
            out.append((tuple(concealed), melds))
    return out


class ByLang(Mapping[Lang, dict[str, Any]]):
    """A message in each language, each built when first asked for (``make(lang)``) and kept."""

    def __init__(self, make: Callable[[Lang], dict[str, Any]]) -> None:
        self._make = make
        self._built: dict[Lang, dict[str, Any]] = {}

    def __getitem__(self, lang: Lang) -> dict[str, Any]:
        msg = self._built.get(lang)
        if msg is None:
            if lang not in i18n.LANGS:
                raise KeyError(lang)
            msg = self._built[lang] = self._make(lang)
        return msg

    def __iter__(self) -> Iterator[Lang]:
        return iter(i18n.LANGS)

    def __len__(self) -> int:
        return len(i18n.LANGS)


def _meld_json(meld: Meld) -> dict[str, Any]:
    return {"kind": str(meld.kind), "tiles": format_tiles([meld.tile] * meld.size)}


def kind_lines(game: Game, lang: Lang) -> list[dict[str, Any]]:
    """The payments other than wins, one line per kind (every kong together as 刮风下雨, then
    呼叫转移, 查花猪, 查大叫, 退税, ...): each seat's net points of that kind and how many
    payments it took."""
    nets: dict[str, list[int]] = {}
    counts: dict[str, int] = {}
    for e in game.ledger:
        if e.reason in _WIN_PAYMENTS:
            continue
        kind = _KIND_OF.get(e.reason, str(e.reason))
        net = nets.setdefault(kind, [0, 0, 0, 0])
        if 0 <= e.from_seat < 4:
            net[e.from_seat] -= e.points
        if 0 <= e.to_seat < 4:
            net[e.to_seat] += e.points
        counts[kind] = counts.get(kind, 0) + 1
    order = {k: i for i, k in enumerate(_KIND_ORDER)}
    lines = []
    for kind in sorted(nets, key=lambda k: order.get(k, len(order))):
        name = (i18n.t("server.settle.kongs", lang) if kind == KONG_KIND
                else vocab.name_or_id(Kind.REASON, kind, lang))
        lines.append({"kind": kind, "name": name, "points": nets[kind], "payments": counts[kind]})
    return lines


def hand_end_messages(
    result: HandResult,
    game: Game,
    people: Mapping[str, str],
    settled: Settled | None,
    room: RoomConfig,
    *,
    final: bool,
) -> ByLang:
    """``hand_end`` in every language, each built when first asked for: winners (each with the
    hand it won with) and ledger lines with their ``text``, the payments other than wins one line
    per kind (``kinds``), the settlement explained (``explain``), points, fees and coins moved.
    ``people``: a person's shown name by player. What no language changes (each winner's hand,
    played again from the deal, and its winnings; the points, coins and fees) is worked out once
    for all."""
    hands = win_hands(game)
    won: dict[int, int] = {}
    index = {id(w): i for i, w in enumerate(game.winners)}
    for p in payments(game):
        if p.win is not None and p.entry.reason in _WIN_PAYMENTS:
            i = index[id(p.win)]
            won[i] = won.get(i, 0) + p.entry.points
    laid = [{"concealed": format_tiles(concealed), "melds": [_meld_json(m) for m in melds],
             "roots": w.score.extras_dict.get("gen", 0), "won": won.get(i, 0)}
            for i, (w, (concealed, melds)) in enumerate(zip(game.winners, hands, strict=True))]
    points = game.deltas()
    coins = None if settled is None else list(settled.changes[:4])
    fees = None if settled is None else list(settled.fees[:4])
    balances = None if settled is None else list(settled.balances[:4])
    escaped = [i for i in range(4) if game.seat_state(i).escaped]
    exhausted = any(e.get("type") == EventKind.WALL_EMPTY for e in game.events)
    bots = [is_bot(p) for p in result.seating]

    def make(lang: Lang) -> dict[str, Any]:
        names = [display_name(p, people, lang) for p in result.seating]
        winners = []
        for w, text, shown in zip(game.winners, win_texts(game, lang, names=names), laid, strict=True):
            src = w.from_seat
            winners.append({**w.to_json(), "name": names[w.seat], "from_name": None if src is None else names[src],
                            "pattern": score_words(w.score, lang), "text": text, **shown})
        ledger = [{**e.to_json(), "text": text}
                  for e, text in zip(game.ledger, ledger_texts(game, lang, names=names), strict=True)]
        sentences = explain_hand(game, lang, names=names)
        if settled is not None:
            sentences += [coins_text(names[i], settled.changes[i], settled.fees[i], lang) for i in range(4)]
        return {
            "type": "hand_end",
            "hand_no": result.hand_no,
            "names": names,
            "bots": list(bots),
            "winners": winners,
            "ledger": ledger,
            "kinds": kind_lines(game, lang),
            "explain": sentences,
            "points": list(points),
            "coins": coins,
            "fees": fees,
            "balances": balances,
            "coefficient": room.coefficient,
            "fee": room.fee,
            "escaped": escaped,
            "bystanders": bets_json(result, people, settled, lang),
            "exhausted": exhausted,
            "final": final,
        }

    return ByLang(make)


def match_end_message(match: Match, people: Mapping[str, str], lang: Lang,
                      coins: Mapping[str, int] | None = None) -> dict[str, Any]:
    """``match_end``: the match's totals, best first: each player's points and, when every hand
    of the match was counted (``coins``: coins moved by player, fees included), its coins."""
    ranked: Sequence[tuple[str, int]] = sorted(match.running.items(), key=lambda kv: -kv[1])
    return {
        "type": "match_end",
        "hands": match.hands_played,
        "standings": [{"name": display_name(p, people, lang), "bot": is_bot(p), "points": pts,
                       "coins": None if coins is None else coins.get(p, 0)} for p, pts in ranked],
    }
