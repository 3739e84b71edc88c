"""The store: one database, its repositories, and the settlement of a hand.

:class:`Store` opens the database (migrating it first unless told not to) and holds one
repository per concern, all on the same engine and session factory:

- :attr:`Store.accounts` (:class:`~xuezhan.store.accounts.Accounts`): people's accounts,
  passwords, languages, sessions, the server's settings;
- :attr:`Store.ledger` (:class:`~xuezhan.store.ledger.Ledger`): balances, transfers,
  grants, wallets, item cards, the audit;
- :attr:`Store.hands` (:class:`~xuezhan.store.hands.Hands`): the logs of hands in play and
  the records of settled hands, a player's history;
- :attr:`Store.rooms` (:class:`~xuezhan.store.rooms.Rooms`): rooms, matches and their state,
  the running matches to carry on after a restart;
- :attr:`Store.leases` (:class:`~xuezhan.store.leases.Leases`): which node of a cluster runs
  each room, and the fence that keeps every other node from writing for it;
  :attr:`Store.leaders` (:class:`~xuezhan.store.leaders.Leaders`): which node runs each task of a
  cluster run once (the queue's seating, the tournaments); :attr:`Store.queue`
  (:class:`~xuezhan.store.queue.QueueBook`): the cluster's queue.
- :attr:`Store.tournaments` (:class:`~xuezhan.store.tournaments.Tournaments`): tournaments held,
  their entries, refunds and prizes, the points their tables played for.

Every public method of a repository is one database transaction. The one transaction that
spans them all is here: :meth:`Store.settle_hand` pays a hand's coins (the ledger), records
the hand and closes its log (hands) and moves the match on (its row), in one commit.

Settling is idempotent: its key (``match/<id>/hand/<n>``) is unique in the ``settlements``
table, so a retry after a timeout, a crash or a lost reply returns the settlement already
made and never pays twice; a settlement that fails half-way (an exception, a killed process,
a lost connection) is rolled back whole and leaves no trace.

Concurrency: the match row is locked first (``SELECT … FOR UPDATE`` on PostgreSQL;
SQLite transactions take the write lock at ``BEGIN IMMEDIATE``), then the balances of
everyone involved, in account-id order, so concurrent settlements neither deadlock
nor lose updates. Two attempts at the same hand serialise on the match row and the
second finds the first's settlement.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, select
from sqlalchemy.engine import URL
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..ids import ErrorCode
from ..match import HandResult, Match, RoomConfig
from .accounts import Accounts
from .base import Database, StoreError, account_ids, canonical, lock_match
from .db import make_engine, migrate
from .hands import Hands
from .leaders import Leaders
from .leases import Leases
from .ledger import Ledger
from .models import MatchRow, Room, Settlement
from .queue import QueueBook
from .rooms import Rooms
from .tournaments import Tournaments


@dataclass(frozen=True, slots=True)
class SettledHand:
    """The coins of one settled hand by participant; ``replayed`` when an earlier attempt had settled it."""

    key: str
    match_id: int
    hand_no: int
    changes: dict[str, int]
    fees: dict[str, int]
    points: dict[str, int]
    replayed: bool = False

    @property
    def house(self) -> int:
        return sum(self.fees.values())


def settlement_key(match_id: int, hand_no: int) -> str:
    return f"match/{match_id}/hand/{hand_no}"


class Store:
    """Persistence for rooms, matches and coins. ``url`` (or ``engine``): where; ``migrate_schema``:
    bring the schema up to date first. ``fault`` is for tests: it is called with the name
    of each step inside a settlement (``"hand"``, ``"postings"``, ``"balances"``,
    ``"commit"``) and may raise (or kill the process) to simulate a crash there."""

    def __init__(
        self,
        url: str | URL | None = None,
        *,
        engine: Engine | None = None,
        migrate_schema: bool = True,
        fault: Callable[[str], None] | None = None,
    ) -> None:
        self.engine = engine if engine is not None else make_engine(url)
        if migrate_schema:
            migrate(self.engine)
        self.fault = fault
        self._db = Database(self.engine)
        self.ledger = Ledger(self._db)
        self.accounts = Accounts(self._db, self.ledger)
        self.hands = Hands(self._db)
        self.rooms = Rooms(self._db, self.ledger, self.hands)
        self.leases = Leases(self._db)
        self.leaders = Leaders(self._db)
        self.queue = QueueBook(self._db)
        self.tournaments = Tournaments(self._db, self.ledger)

    def close(self) -> None:
        self.engine.dispose()

    def audit(self) -> dict[str, int]:
        """The books checked whole (``audit_failed`` on the first thing wrong): the ledger's
        invariants (:meth:`Ledger.audit`) and the tournaments' coins (:meth:`Tournaments.audit`).
        Returns the totals of both: ``issued``, ``house``, ``players``, ``entries``, ``refunds``,
        ``prizes``."""
        return {**self.ledger.audit(), **self.tournaments.audit()}

    def _fault(self, step: str) -> None:
        if self.fault is not None:
            self.fault(step)

    def settle_hand(self, match_id: int, result: HandResult, match: Match | None = None) -> SettledHand:
        """Settle one finished hand in coins, record it, and save the match's state (``match``,
        after :meth:`Match.finish_hand`) — all in one transaction, at most once per hand.

        A retry with the same result returns the first settlement (``replayed=True``); a
        different result for a hand already settled raises ``settlement_conflict``.
        """
        self.hands.forget(match_id)
        key = settlement_key(match_id, result.hand_no)
        payload = result.to_json()
        digest = hashlib.sha256(canonical(payload).encode()).hexdigest()
        state = match.state_json() if match is not None else None
        try:
            with self._db.sessions.begin() as s:
                row = lock_match(s, match_id)
                done = self._find_settlement(s, key, digest, match_id, result.hand_no)
                if done is not None:
                    return done
                if result.hand_no != row.hands_played + 1:
                    raise StoreError(ErrorCode.OUT_OF_ORDER, f"match {match_id} expects hand {row.hands_played + 1}, "
                                                             f"not {result.hand_no}")
                if row.status != "running":
                    raise StoreError(ErrorCode.MATCH_OVER, f"match {match_id} is over")
                return self._settle(s, row, key, digest, result, state)
        except IntegrityError:
            # a concurrent attempt settled the same hand first
            with self._db.sessions() as s:
                done = self._find_settlement(s, key, digest, match_id, result.hand_no)
            if done is None:
                raise
            return done

    def _find_settlement(self, s: Session, key: str, digest: str, match_id: int, hand_no: int) -> SettledHand | None:
        found = s.scalar(select(Settlement).where(Settlement.key == key))
        if found is None:
            return None
        if found.payload_sha256 != digest:
            raise StoreError(ErrorCode.SETTLEMENT_CONFLICT, f"hand {hand_no} of match {match_id} was settled with "
                                                            "a different result")
        rows = self.hands.recorded_points(s, found.hand_id)
        return SettledHand(
            key, match_id, hand_no,
            changes={n: c for n, _, _, c in rows},
            fees={n: f for n, _, f, _ in rows},
            points={n: p for n, p, _, _ in rows},
            replayed=True,
        )

    def _settle(
        self, s: Session, row: MatchRow, key: str, digest: str, result: HandResult, state: dict[str, Any] | None
    ) -> SettledHand:
        room = s.get(Room, row.room_id)
        assert room is not None
        config = RoomConfig.from_mapping(room.config)
        people = result.participants
        ids = account_ids(s, people)
        locked = self.ledger.lock_hand_balances(s, ids.values())
        coins = result.coins(config, {p: locked[ids[p]].coins for p in people})

        hand = self.hands.record_hand(s, row.id, result)
        settlement = Settlement(key=key, hand_id=hand.id, payload_sha256=digest)
        s.add(settlement)
        s.flush()
        self._fault("hand")

        net = self.ledger.pay_hand(s, settlement.id, key, people, ids, coins)
        self._fault("postings")

        self.ledger.move(s, locked, net)
        self._fault("balances")

        points = self.hands.record_points(s, hand.id, result, ids, coins)
        # the hand's log (if it was logged) is closed by the same commit that settles it
        self.hands.close_log(s, row.id, result.hand_no)
        row.hands_played = result.hand_no
        if state is not None:
            if state["hands_played"] != result.hand_no:
                raise StoreError(ErrorCode.STALE_MATCH, "the match state given is not the one after this hand")
            row.state = state
        if row.hands_played >= config.hands:
            row.status = "finished"
        s.flush()
        self._fault("commit")
        return SettledHand(
            key, row.id, result.hand_no,
            changes=dict(zip(people, coins.changes, strict=True)),
            fees=dict(zip(people, coins.fees, strict=True)),
            points=points,
        )
