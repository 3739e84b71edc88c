"""A finished hand as one of its players looks back at it, step by step.

Nothing of what a seat saw is stored: the hand's game record is replayed through the match
runtime's :class:`~xuezhan.runtime.HandDriver`, one logged action at a time, and after each
step :mod:`xuezhan.engine.views` (the only module that decides what a seat may see) gives
the player's view, in the form the table sends in ``state``.
"""

from __future__ import annotations

from typing import Any

from ..engine import views
from ..engine.actions import Action
from ..explain import explain_hand, ledger_texts, win_texts
from ..i18n import Lang
from ..records import parse_record
from ..runtime import HandDriver, Seat
from .bank import PastHand
from .outbound import marked_view
from .words import display_name


def replay_json(hand: PastHand, lang: Lang) -> dict[str, Any]:
    """``{"id", "seat", "names", "steps": [{"seq", "action", "view"}], "result"}`` for ``hand`` as its
    player's seat saw it: the deal (``action`` null), then each action and the view after it."""
    record = parse_record(hand.record)
    game = record.new_game()
    driver = HandDriver(game, [Seat.of_bot("random", name=f"seat {i}") for i in range(4)])
    seat = hand.seat
    steps: list[dict[str, Any]] = [{"seq": 0, "action": None, "view": marked_view(views.seat_view_json(game, seat))}]
    for action in record.actions:
        driver.replay([action])
        steps.append({"seq": len(game.actions), "action": Action.to_json(action),
                      "view": marked_view(views.seat_view_json(game, seat))})
    names = [display_name(p, {}, lang) for p in hand.seating[:4]]
    winners = [{**w.to_json(), "name": names[w.seat], "text": text}
               for w, text in zip(game.winners, win_texts(game, lang, names=names), strict=True)]
    ledger = [{**e.to_json(), "text": text}
              for e, text in zip(game.ledger, ledger_texts(game, lang, names=names), strict=True)]
    result = {"winners": winners, "ledger": ledger, "deltas": game.deltas(),
              "explain": explain_hand(game, lang, names=names)}
    return {"id": hand.hand_id, "room": hand.room, "hand_no": hand.hand_no, "seat": seat, "names": names,
            "steps": steps, "result": result}
