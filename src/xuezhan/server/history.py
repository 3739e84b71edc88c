"""A finished hand as one of its players looks back at it, step by step, and its review.

Nothing of what a seat saw is stored: the hand's game record is replayed through the match
runtime's :class:`~xuezhan.runtime.HandDriver`, one logged action at a time, and after each
step :mod:`xuezhan.engine.views` (the only module that decides what a seat may see) gives
the player's view, in the form the table sends in ``state``.

The review (复盘, :mod:`xuezhan.review`) weighs the player's own decisions only: each from that
seat's view, as the expert would have seen it then, so it tells nothing of another seat's
concealed tiles, nor how the others played. The decisions the seat's stand-in took (托管, or a
decision whose time ran out: the hand's result lists them, :attr:`~xuezhan.match.HandResult.stand_in`)
are marked as such and are not the player's mistakes. It takes a second or so of search: it runs on a
worker thread of its own (:class:`Reviews`), one review at a time, never on the event loop,
and a hand reviewed once is kept (a review is a function of the record).
"""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from ..engine import views
from ..engine.actions import Action
from ..explain import explain_hand, ledger_texts, win_texts
from ..i18n import Lang
from ..records import parse_record
from ..review import Review, review_lines, review_record
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


REVIEWS_KEPT = 256
"""Reviews a server keeps (the least recently asked go first)."""


class Reviews:
    """The reviews of past hands, by hand and seat: each worked out once, on a worker thread of its
    own; two requests for the same hand wait for the same work."""

    def __init__(self, kept: int = REVIEWS_KEPT) -> None:
        self.kept = kept
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="review")
        self._lock = threading.Lock()
        self._work: OrderedDict[tuple[int, int], Future[Review]] = OrderedDict()

    def submit(self, hand: PastHand) -> Future[Review]:
        """The review of ``hand``'s seat: done already, under way, or started now."""
        key = (hand.hand_id, hand.seat)
        with self._lock:
            work = self._work.get(key)
            if work is None or (work.done() and (work.cancelled() or work.exception() is not None)):
                record = parse_record(hand.record)
                stand_in = [int(i) for i in hand.result.get("stand_in", ())]
                work = self._pool.submit(review_record, record, [hand.seat], hand=hand.hand_no, stand_in=stand_in)
                self._work[key] = work
            self._work.move_to_end(key)
            while len(self._work) > self.kept:
                self._work.popitem(last=False)
            return work

    async def review(self, hand: PastHand) -> Review:
        """The review of ``hand``'s seat, waited for without holding up the event loop."""
        return await asyncio.wrap_future(self.submit(hand))

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


def review_json(hand: PastHand, review: Review, lang: Lang) -> dict[str, Any]:
    """``{"id", "hand", "seat", "decisions", "total_loss", "lines"}``: the review of the player's own
    seat (``xuezhan review --json`` of that seat, with the hand's number in its match) and its words."""
    names = [display_name(p, {}, lang) for p in hand.seating[:4]]
    return {"id": hand.hand_id, "seat": hand.seat, **review.to_json(),
            "lines": review_lines(review, lang, names=names)}
