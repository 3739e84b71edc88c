"""The table's messages about a finished hand and a finished match, in a player's words.

Pure functions of the hand's result, the names at the table and a language: the table
builds them once per language when the hand ends, sends each connection its own, and
sends them again to whoever (re)connects between hands.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from .. import i18n, vocab
from ..engine.game import Game
from ..explain import explain_hand, ledger_texts, payments, score_words, win_texts
from ..i18n import Lang
from ..ids import EventKind, Reason
from ..match import HandResult, Match, RoomConfig
from ..scoring import Meld
from ..tiles import Tile, format_tiles
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

    The hand is played again from its deal (the record: deal and actions) and each seat is
    read just before the action that made it win; in 血流成河 a winner plays on, so its hand
    at the end is not the one it won with."""
    st = game.state
    again = Game(game.rules, game.deal, game.dealer, exchange_direction=game.exchange_direction,
                 bystanders=len(st.bystander_tiles), validate=False)
    out: list[tuple[tuple[Tile, ...], tuple[Meld, ...]]] = []
    for action in game.actions:
        before = [(again.seat_state(s).hand, again.seat_state(s).melds) for s in range(4)]
        n = len(again.winners)
        again.apply(action)
        for w in again.winners[n:]:
            concealed, melds = before[w.seat]
            if w.from_seat is None:  # self-drawn: the winning tile was in the hand
                rest = list(concealed)
                rest.remove(w.tile)
                concealed = tuple(rest)
            out.append((concealed, melds))
    return out


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


def hand_end_message(
    result: HandResult,
    game: Game,
    people: Mapping[str, str],
    settled: Settled | None,
    room: RoomConfig,
    *,
    final: bool,
    lang: Lang,
) -> dict[str, Any]:
    """``hand_end``: winners (each with the hand it won with) and ledger lines with their
    ``text``, the payments other than wins one line per kind (``kinds``), the settlement
    explained (``explain``), points, fees and coins moved. ``people``: a person's shown name
    by player."""
    names = [display_name(p, people, lang) for p in result.seating]
    winners = []
    win_lines = win_texts(game, lang, names=names)
    won: dict[int, int] = {}
    index = {id(w): i for i, w in enumerate(game.winners)}
    for p in payments(game):
        if p.win is not None and p.entry.reason in _WIN_PAYMENTS:
            i = index[id(p.win)]
            won[i] = won.get(i, 0) + p.entry.points
    for i, (w, text, (concealed, melds)) in enumerate(zip(game.winners, win_lines, win_hands(game), strict=True)):
        data = w.to_json()
        src = w.from_seat
        data["name"] = names[w.seat]
        data["from_name"] = None if src is None else names[src]
        data["pattern"] = score_words(w.score, lang)
        data["text"] = text
        data["concealed"] = format_tiles(concealed)
        data["melds"] = [_meld_json(m) for m in melds]
        data["roots"] = w.score.extras_dict.get("gen", 0)
        data["won"] = won.get(i, 0)
        winners.append(data)
    ledger = [{**e.to_json(), "text": text}
              for e, text in zip(game.ledger, ledger_texts(game, lang, names=names), strict=True)]
    sentences = explain_hand(game, lang, names=names)
    coins: list[int] | None = None
    fees: list[int] | None = None
    balances: list[int | None] | None = None
    if settled is not None:
        coins = list(settled.changes[:4])
        fees = list(settled.fees[:4])
        balances = list(settled.balances[:4])
        sentences += [coins_text(names[i], coins[i], fees[i], lang) for i in range(4)]
    return {
        "type": "hand_end",
        "hand_no": result.hand_no,
        "names": names,
        "bots": [is_bot(p) for p in result.seating],
        "winners": winners,
        "ledger": ledger,
        "kinds": kind_lines(game, lang),
        "explain": sentences,
        "points": game.deltas(),
        "coins": coins,
        "fees": fees,
        "balances": balances,
        "coefficient": room.coefficient,
        "fee": room.fee,
        "escaped": [i for i in range(4) if game.seat_state(i).escaped],
        "bystanders": bets_json(result, people, settled, lang),
        "exhausted": any(e.get("type") == EventKind.WALL_EMPTY for e in game.events),
        "final": final,
    }


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
