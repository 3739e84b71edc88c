"""A table's hand log: each hand's start and every applied action, written to the bank in order.

The match runtime tells the journal of every hand dealt and every action applied (its
``on_start`` and ``on_action`` hooks); the table flushes the journal to the database
before it shows the change to anyone, so what people saw is what a restarted server
rebuilds (:meth:`xuezhan.runtime.MatchRuntime.resume_hand`). Writes are retried on the
next flush if the database fails; they never stop the table.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from ..engine.actions import Action
from ..match import Hand
from .bank import Bank

log = logging.getLogger("xuezhan.server")

Entry = tuple[str, int, int, Any]
"""``("begin", hand_no, seed, start)`` or ``("action", hand_no, seq, action_json)``."""


def hand_start(hand: Hand) -> dict[str, Any]:
    """What a hand's log row keeps of its start, beside its seed: enough to check a resume."""
    return {"seating": list(hand.seating), "dealer": hand.dealer,
            "bystanders": [b.player for b in hand.bets]}


class Journal:
    """The entries of one match not yet written, and the writer."""

    def __init__(self, bank: Bank, key: str) -> None:
        self.bank = bank
        self.key = key
        self.pending: list[Entry] = []
        self.failures = 0

    def begin(self, hand: Hand) -> None:
        self.pending.append(("begin", hand.hand_no, hand.seed, hand_start(hand)))

    def action(self, hand: Hand, seq: int, action: Action) -> None:
        self.pending.append(("action", hand.hand_no, seq, action.to_json()))

    def _write(self, entries: list[Entry], done: Callable[[], None]) -> None:
        for kind, hand_no, n, payload in entries:
            if kind == "begin":
                self.bank.begin_hand(self.key, hand_no, n, payload)
            else:
                self.bank.log_action(self.key, hand_no, n, payload)
            done()

    async def flush(self) -> bool:
        """Write what is pending, in order; ``False`` (the rest kept for the next flush) on failure."""
        if not self.pending:
            return True
        entries = list(self.pending)
        written = 0

        def done() -> None:
            nonlocal written
            written += 1

        try:
            await asyncio.to_thread(self._write, entries, done)
        except Exception:
            self.failures += 1
            log.exception("match %s: writing the hand log failed (%d written)", self.key, written)
            del self.pending[:written]
            return False
        del self.pending[: len(entries)]
        return True
