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
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Engine, bindparam, insert, select, update
from sqlalchemy.engine import URL
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..ids import ErrorCode
from ..match import HandResult, Match, RoomConfig
from .accounts import Accounts
from .base import Database, StoreError, account_ids, canonical, fence
from .db import make_engine, migrate
from .hands import Hands
from .leaders import Leaders
from .leases import Leases
from .ledger import Ledger
from .models import MatchRow, Room, Settlement
from .queue import QueueBook
from .rooms import Rooms
from .tournaments import Tournaments

# the settlement's own statements, made once (a statement kept keeps its cache key)
_LOCK_MATCH = (select(MatchRow.hands_played, MatchRow.status, Room.config).join(Room, Room.id == MatchRow.room_id)
               .where(MatchRow.id == bindparam("match_id")).with_for_update(of=MatchRow))
_SETTLEMENT_BY_KEY = select(Settlement.payload_sha256, Settlement.hand_id).where(Settlement.key == bindparam("key"))
_ADD_SETTLEMENT = insert(Settlement).returning(Settlement.id)
_MOVE_MATCH_ON = (update(MatchRow).where(MatchRow.id == bindparam("match_id"))
                  .values(hands_played=bindparam("hands_played"), status=bindparam("status")))
_MOVE_MATCH_ON_WITH_STATE = _MOVE_MATCH_ON.values(state=bindparam("state"))


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
    balances: dict[str, int] = field(default_factory=dict)
    """Each participant's coins after the hand (and any top-up), read in the settlement's transaction."""

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

    def settle_hand(self, match_id: int, result: HandResult, match: Match | None = None, *,
                    top_up: Mapping[str, int] | None = None) -> SettledHand:
        """Settle one finished hand in coins, record it, and save the match's state (``match``,
        after :meth:`Match.finish_hand`) — all in one transaction, at most once per hand.
        ``top_up``: accounts (the house's bots) given new coins from the mint, in the same
        transaction before the hand is paid, up to the number given when they hold less than half
        of it, so that their losses are always paid in full.

        A retry with the same result returns the first settlement (``replayed=True``); a
        different result for a hand already settled raises ``settlement_conflict``. Either way the
        participants' balances after it come back with it (:attr:`SettledHand.balances`).
        """
        self.hands.forget(match_id)
        key = settlement_key(match_id, result.hand_no)
        payload = result.to_json()
        digest = hashlib.sha256(canonical(payload).encode()).hexdigest()
        state = match.state_json() if match is not None else None
        try:
            with self._db.sessions.begin() as s:
                # the match's row and its room's rules in one statement, on the connection (as lock_match)
                row = s.connection().execute(_LOCK_MATCH, {"match_id": match_id}).first()
                if row is None:
                    raise StoreError(ErrorCode.UNKNOWN_MATCH, f"no match {match_id}")
                fenced = fence(s)
                if fenced is not None:
                    fenced.check_matches(s, (match_id,))
                done = self._find_settlement(s, key, digest, match_id, result)
                if done is not None:
                    return done
                hands_played, status, config = row
                if result.hand_no != hands_played + 1:
                    raise StoreError(ErrorCode.OUT_OF_ORDER, f"match {match_id} expects hand {hands_played + 1}, "
                                                             f"not {result.hand_no}")
                if status != "running":
                    raise StoreError(ErrorCode.MATCH_OVER, f"match {match_id} is over")
                return self._settle(s, match_id, RoomConfig.from_mapping(config), key, digest, result, payload,
                                    state, top_up or {})
        except IntegrityError:
            # a concurrent attempt settled the same hand first
            with self._db.sessions() as s:
                done = self._find_settlement(s, key, digest, match_id, result)
            if done is None:
                raise
            return done

    def _find_settlement(self, s: Session, key: str, digest: str, match_id: int,
                         result: HandResult) -> SettledHand | None:
        found = s.connection().execute(_SETTLEMENT_BY_KEY, {"key": key}).first()
        if found is None:
            return None
        if found[0] != digest:
            raise StoreError(ErrorCode.SETTLEMENT_CONFLICT, f"hand {result.hand_no} of match {match_id} was settled "
                                                            "with a different result")
        rows = self.hands.recorded_points(s, found[1])
        return SettledHand(
            key, match_id, result.hand_no,
            changes={n: c for n, _, _, c in rows},
            fees={n: f for n, _, f, _ in rows},
            points={n: p for n, p, _, _ in rows},
            replayed=True,
            balances=self.ledger.balances_in(s, result.participants),
        )

    def _settle(
        self, s: Session, match_id: int, config: RoomConfig, key: str, digest: str, result: HandResult,
        payload: dict[str, Any], state: dict[str, Any] | None, top_up: Mapping[str, int],
    ) -> SettledHand:
        """In ``s``, the match's row locked: the hand's coins, record and points, its log closed, the
        match moved on. Core statements on the transaction's connection, a few rows each: no unit of
        work to flush, the same rows as ever."""
        people = result.participants
        ids = account_ids(s, people)
        locked = self.ledger.lock_hand_balances(s, ids.values(), mint=bool(top_up))
        for name, full in top_up.items():
            acc = ids.get(name)
            if acc is not None and locked[acc] < full // 2:
                self.ledger.issue(s, acc, full - locked[acc], None, "grant")
                locked[acc] = full
        coins = result.coins(config, {p: locked[ids[p]] for p in people})

        hand_id = self.hands.record_hand(s, match_id, result, payload)
        settlement_id: int = s.connection().execute(
            _ADD_SETTLEMENT, {"key": key, "hand_id": hand_id, "payload_sha256": digest}
        ).scalar_one()
        self._fault("hand")

        net = self.ledger.pay_hand(s, settlement_id, key, people, ids, coins)
        self._fault("postings")

        after = self.ledger.add_to_balances(s, locked, net)
        self._fault("balances")

        points = self.hands.record_points(s, hand_id, result, ids, coins)
        # the hand's log (if it was logged) is closed by the same commit that settles it
        self.hands.close_log(s, match_id, result.hand_no)
        # the match was running (checked under its lock): it runs on, or this was its last hand
        changes: dict[str, Any] = {"match_id": match_id, "hands_played": result.hand_no,
                                   "status": "finished" if result.hand_no >= config.hands else "running"}
        if state is not None:
            if state["hands_played"] != result.hand_no:
                raise StoreError(ErrorCode.STALE_MATCH, "the match state given is not the one after this hand")
            changes["state"] = state
        s.connection().execute(_MOVE_MATCH_ON if state is None else _MOVE_MATCH_ON_WITH_STATE, changes)
        self._fault("commit")
        return SettledHand(
            key, match_id, result.hand_no,
            changes=dict(zip(people, coins.changes, strict=True)),
            fees=dict(zip(people, coins.fees, strict=True)),
            points=points,
            balances={p: after[ids[p]] for p in people},
        )
