"""The table's messages about a finished hand and a finished match, in words.

Pure functions of the hand's result and the names at the table: the table sends them,
and sends them again to whoever (re)connects between hands.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..engine.game import Game
from ..match import HandResult, Match, RoomConfig
from ..tiles import tile_name
from .bank import Settled, is_bot
from .protocol import ledger_words, pattern_words, winner_words


def hand_end_message(
    result: HandResult,
    game: Game,
    names: Sequence[str],
    settled: Settled | None,
    room: RoomConfig,
    *,
    final: bool,
) -> dict[str, Any]:
    """``hand_end``: winners and ledger entries in words, points, fees and coins moved."""
    winners = []
    for w in game.winners:
        data = w.to_json()
        src = w.from_seat
        data["name"] = names[w.seat]
        data["from_name"] = None if src is None else names[src]
        data["pattern"] = pattern_words(w.score.base, w.score.extras_dict)
        data["words"] = winner_words(names[w.seat], data["from_name"], tile_name(w.tile), w.score.fan,
                                     w.score.multiple, w.score.base, w.score.extras_dict)
        winners.append(data)
    ledger = [
        {**e.to_json(), "words": ledger_words(names[e.from_seat], names[e.to_seat], e.points, e.reason)}
        for e in game.ledger
    ]
    coins: list[int] | None = None
    fees: list[int] | None = None
    balances: list[int | None] | None = None
    if settled is not None:
        coins = list(settled.changes[:4])
        fees = list(settled.fees[:4])
        balances = list(settled.balances[:4])
    return {
        "type": "hand_end",
        "hand_no": result.hand_no,
        "names": list(names),
        "bots": [is_bot(p) for p in result.seating],
        "winners": winners,
        "ledger": ledger,
        "points": game.deltas(),
        "coins": coins,
        "fees": fees,
        "balances": balances,
        "coefficient": room.coefficient,
        "fee": room.fee,
        "escaped": [i for i in range(4) if game.seat_state(i).escaped],
        "exhausted": any(e.get("type") == "wall_empty" for e in game.events),
        "final": final,
    }


def match_end_message(match: Match, names: Mapping[str, str]) -> dict[str, Any]:
    """``match_end``: the match's totals, best first."""
    people = sorted(match.running.items(), key=lambda kv: -kv[1])
    return {
        "type": "match_end",
        "hands": match.hands_played,
        "standings": [{"name": names.get(p, p), "bot": is_bot(p), "points": pts} for p, pts in people],
    }
