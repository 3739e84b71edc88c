"""The table's messages about a finished hand and a finished match, in a player's words.

Pure functions of the hand's result, the names at the table and a language: the table
builds them once per language when the hand ends, sends each connection its own, and
sends them again to whoever (re)connects between hands.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..engine.game import Game
from ..explain import explain_hand, ledger_texts, score_words, win_texts
from ..i18n import Lang
from ..ids import EventKind
from ..match import HandResult, Match, RoomConfig
from .bank import Settled, is_bot
from .words import coins_text, display_name


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
    """``hand_end``: winners and ledger lines with their ``text``, the settlement explained
    (``explain``), points, fees and coins moved. ``people``: a person's shown name by player."""
    names = [display_name(p, people, lang) for p in result.seating]
    winners = []
    win_lines = win_texts(game, lang, names=names)
    for w, text in zip(game.winners, win_lines, strict=True):
        data = w.to_json()
        src = w.from_seat
        data["name"] = names[w.seat]
        data["from_name"] = None if src is None else names[src]
        data["pattern"] = score_words(w.score, lang)
        data["text"] = text
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
        "explain": sentences,
        "points": game.deltas(),
        "coins": coins,
        "fees": fees,
        "balances": balances,
        "coefficient": room.coefficient,
        "fee": room.fee,
        "escaped": [i for i in range(4) if game.seat_state(i).escaped],
        "exhausted": any(e.get("type") == EventKind.WALL_EMPTY for e in game.events),
        "final": final,
    }


def match_end_message(match: Match, people: Mapping[str, str], lang: Lang) -> dict[str, Any]:
    """``match_end``: the match's totals, best first."""
    ranked: Sequence[tuple[str, int]] = sorted(match.running.items(), key=lambda kv: -kv[1])
    return {
        "type": "match_end",
        "hands": match.hands_played,
        "standings": [{"name": display_name(p, people, lang), "bot": is_bot(p), "points": pts} for p, pts in ranked],
    }
