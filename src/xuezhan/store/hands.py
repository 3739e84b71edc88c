"""Hands: the append-only logs of hands in play, and the records of settled hands.

A hand in play is kept as a log: :meth:`Hands.begin_hand` records the deal (its seed and
start data), :meth:`Hands.append_action` every action applied, in order (``seq`` 0, 1,
2 ...); both are idempotent, so a retried write changes nothing, and :meth:`Hands.write_log`
writes many entries in one transaction. Settling the hand
(:meth:`xuezhan.store.Store.settle_hand`) records it (:meth:`Hands.record_hand`,
:meth:`Hands.record_points`) and closes its log (:meth:`Hands.close_log`) in the
settlement's transaction. After a restart, :meth:`Hands.open_hands` gives the hand in play
of every running match, to be rebuilt by replaying the actions on the deal.

A hand's log is written after its match's row is locked (or its own row, for an action),
so a write never races a settlement or the end of the match.
"""

from __future__ import annotations

import threading
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..coins import CoinSettlement
from ..ids import ErrorCode
from ..match import HandResult
from .base import Database, StoreError, account_ids, canonical, fence, is_count, json_object, lock_match
from .models import Account, HandAction, HandLog, HandPoints, HandRow, MatchRow, Room


@dataclass(frozen=True, slots=True)
class HandHistory:
    """One settled hand as one participant saw it (``seat`` is ``None`` for a bystander)."""

    room: str
    match_id: int
    hand_no: int
    seat: int | None
    points: int
    fee: int
    coins: int
    settled_at: datetime
    hand_id: int = 0


@dataclass(frozen=True, slots=True)
class OpenHand:
    """A dealt hand not settled yet, as logged: the deal and the actions applied, in order."""

    id: int
    """The hand log's id (for :meth:`Hands.append_action`)."""
    hand_no: int
    seed: int
    start: dict[str, Any]
    actions: tuple[dict[str, Any], ...]


# the statements of the hot paths (an action logged, a hand settled), made once: a statement kept
# keeps its cache key, so running it again costs no building and no key
_ADD_ACTIONS = insert(HandAction)
_ADD_HAND = insert(HandRow).returning(HandRow.id)
_ADD_POINTS = insert(HandPoints)
_CLOSE_LOG = (update(HandLog)
              .where(HandLog.match_id == bindparam("log_match"), HandLog.hand_no == bindparam("log_hand"))
              .values(settled_at=func.now()))

LogItem = tuple[str, int, int, int, Mapping[str, Any]]
"""A hand-log entry for :meth:`Hands.write_log`: ``("begin", match_id, hand_no, seed, start)`` or
``("action", match_id, hand_no, seq, action)``."""



def _check_next(log: HandLog, status: str, seq: int, count: int) -> None:
    """Raise unless action ``seq`` may be logged next in ``log`` (its match ``status``, ``count``
    actions logged): ``hand_settled``, ``match_over`` or ``action_gap``."""
    if log.settled_at is not None:
        raise StoreError(ErrorCode.HAND_SETTLED, f"hand {log.hand_no} of match {log.match_id} is settled")
    if status != "running":
        raise StoreError(ErrorCode.MATCH_OVER, f"match {log.match_id} is {status}")
    if seq != count:
        raise StoreError(ErrorCode.ACTION_GAP, f"hand {log.hand_no} of match {log.match_id} has {count} "
                                               f"actions: the next is {count}, not {seq}")


# The most log tails kept: a tail goes when its match settles a hand or ends; beyond this many
# (hands never settled here) the cache starts again from one batch's logs, the rest read again.
_TAILS_KEPT = 4096


class Hands:
    """Hand logs and hand records, on ``db``."""

    def __init__(self, db: Database) -> None:
        self._db = db
        # (match id, hand no) -> (hand log id, next seq) of logs this process wrote last
        self._log_tails: dict[tuple[int, int], tuple[int, int]] = {}
        self._tails_lock = threading.Lock()

    # --- hands in play: append-only logs --------------------------------------------------------------------
    def begin_hand(self, match_id: int, hand_no: int, seed: int, start: Mapping[str, Any]) -> int:
        """Log the deal of hand ``hand_no`` (the match's next one): its seed and ``start``, whatever
        else the deal took (seating, dealer, bets, item cards). Returns the hand log's id.

        Idempotent: the same hand again (same seed and start) returns the id already made; a
        different seed raises ``hand_seed_conflict``, a different start ``hand_start_conflict``.
        Only a running match's next hand can begin (``match_over``, ``out_of_order``).
        """
        if not is_count(hand_no) or hand_no < 1:
            raise StoreError(ErrorCode.BAD_HAND_NO, f"hands are numbered from 1, not {hand_no!r}")
        if not is_count(seed) or not 0 <= seed < 2**63:
            raise StoreError(ErrorCode.BAD_SEED, f"a hand seed is an integer from 0 to 2**63 - 1, not {seed!r}")
        data = json_object(start, ErrorCode.BAD_HAND_START, "a hand's start")
        try:
            with self._db.sessions.begin() as s:
                return self._begin_hand(s, match_id, hand_no, seed, data)
        except IntegrityError:
            # the same hand, begun concurrently
            with self._db.sessions() as s:
                found = self._same_hand_log(s, match_id, hand_no, seed, data)
            if found is None:
                raise
            return found

    def _begin_hand(self, s: Session, match_id: int, hand_no: int, seed: int, data: dict[str, Any]) -> int:
        row = lock_match(s, match_id)
        found = self._same_hand_log(s, match_id, hand_no, seed, data)
        if found is not None:
            return found
        if row.status != "running":
            raise StoreError(ErrorCode.MATCH_OVER, f"match {match_id} is {row.status}")
        if hand_no != row.hands_played + 1:
            raise StoreError(ErrorCode.OUT_OF_ORDER, f"match {match_id} expects hand {row.hands_played + 1}, "
                                                     f"not {hand_no}")
        log = HandLog(match_id=match_id, hand_no=hand_no, seed=seed, start=data)
        s.add(log)
        s.flush()
        return log.id

    @staticmethod
    def _same_hand_log(s: Session, match_id: int, hand_no: int, seed: int, start: dict[str, Any]) -> int | None:
        log = s.scalar(select(HandLog).where(HandLog.match_id == match_id, HandLog.hand_no == hand_no))
        if log is None:
            return None
        if log.seed != seed:
            raise StoreError(ErrorCode.HAND_SEED_CONFLICT, f"hand {hand_no} of match {match_id} was dealt with seed "
                                                           f"{log.seed}, not {seed}")
        if canonical(log.start) != canonical(start):
            raise StoreError(ErrorCode.HAND_START_CONFLICT, f"hand {hand_no} of match {match_id} was begun with "
                                                            "different start data")
        return log.id

    def hand_log_id(self, match_id: int, hand_no: int) -> int:
        """The id of the log of hand ``hand_no`` (``unknown_hand`` if it was never begun)."""
        with self._db.sessions() as s:
            found = s.scalar(select(HandLog.id).where(HandLog.match_id == match_id, HandLog.hand_no == hand_no))
            if found is None:
                raise StoreError(ErrorCode.UNKNOWN_HAND, f"match {match_id} has no logged hand {hand_no}")
            return found

    def append_action(self, hand_log_id: int, seq: int, action: Mapping[str, Any]) -> None:
        """Append the action applied at position ``seq`` (0, 1, 2 ...) of a logged hand.

        ``seq`` must be the next position (``action_gap`` if it skips one). Writing the same
        action at an existing position again does nothing (a retried write); a different one
        raises ``action_conflict``. A settled hand (``hand_settled``) or a match no longer
        running (``match_over``) takes no more actions.
        """
        if not is_count(seq) or seq < 0:
            raise StoreError(ErrorCode.BAD_SEQ, f"actions are numbered from 0, not {seq!r}")
        data = json_object(action, ErrorCode.BAD_ACTION, "an action")
        try:
            with self._db.sessions.begin() as s:
                self._append_action(s, hand_log_id, seq, data)
        except IntegrityError:
            # written concurrently (a retry racing the first attempt)
            with self._db.sessions() as s:
                written = s.get(HandLog, hand_log_id)
                if written is None or not self._same_action(s, written, seq, data):
                    raise

    def _append_action(self, s: Session, hand_log_id: int, seq: int, data: dict[str, Any]) -> None:
        # one statement to lock the log and learn whether it still takes actions
        found = s.execute(
            select(HandLog, MatchRow.status).join(MatchRow, MatchRow.id == HandLog.match_id)
            .where(HandLog.id == hand_log_id).with_for_update(of=HandLog)
        ).first()
        if found is None:
            raise StoreError(ErrorCode.UNKNOWN_HAND, f"no hand log {hand_log_id}")
        log, status = found
        fenced = fence(s)
        if fenced is not None:
            fenced.check_matches(s, (log.match_id,))
        count = s.scalar(select(func.count()).select_from(HandAction)
                         .where(HandAction.hand_log_id == hand_log_id)) or 0
        if seq < count:
            self._same_action(s, log, seq, data)  # a retry, or action_conflict
            return
        _check_next(log, status, seq, count)
        s.add(HandAction(hand_log_id=hand_log_id, seq=seq, action=data))
        s.flush()

    def write_log(self, items: Sequence[LogItem]) -> None:
        """Write many hand-log entries, of any matches, in one transaction (a group commit): each
        ``("begin", match_id, hand_no, seed, start)`` or ``("action", match_id, hand_no, seq, action)``,
        checked as :meth:`begin_hand` and :meth:`append_action` check them. All or nothing: if one
        entry is refused the transaction is rolled back and the error raised."""
        checked = []
        for kind, match_id, hand_no, n, payload in items:
            if kind == "begin":
                if not is_count(n) or not 0 <= n < 2**63:
                    raise StoreError(ErrorCode.BAD_SEED, f"a hand seed is an integer from 0 to 2**63 - 1, not {n!r}")
                start = json_object(payload, ErrorCode.BAD_HAND_START, "a hand's start")
                checked.append((kind, match_id, hand_no, n, start))
            elif kind == "action":
                if not is_count(n) or n < 0:
                    raise StoreError(ErrorCode.BAD_SEQ, f"actions are numbered from 0, not {n!r}")
                checked.append((kind, match_id, hand_no, n, json_object(payload, ErrorCode.BAD_ACTION, "an action")))
            else:
                raise StoreError(ErrorCode.BAD_LOG_ENTRY, f"a log entry is a begin or an action, not {kind!r}")
        with self._tails_lock:
            tails = dict(self._log_tails)
        with self._db.sessions.begin() as s:
            fenced = fence(s)
            if fenced is not None:  # every match of the batch, in one statement
                fenced.check_matches(s, {item[1] for item in checked})
            ids: dict[tuple[int, int], int] = {}
            logs: dict[int, tuple[HandLog, str]] = {}
            counts: dict[int, int] = {}
            rows: list[dict[str, Any]] = []
            batch: dict[tuple[int, int], dict[str, Any]] = {}
            for kind, match_id, hand_no, n, data in checked:
                if kind == "begin":
                    ids[(match_id, hand_no)] = self._begin_hand(s, match_id, hand_no, n, data)
                    tails.pop((match_id, hand_no), None)
                    continue
                tail = tails.get((match_id, hand_no))
                if tail is not None and tail[1] == n:
                    # the next action of a log this process wrote last: no need to read the log again
                    # (the unique (log, seq) key still refuses a clash)
                    rows.append({"hand_log_id": tail[0], "seq": n, "action": data})
                    batch[(tail[0], n)] = data
                    tails[(match_id, hand_no)] = (tail[0], n + 1)
                    continue
                log_id = ids.get((match_id, hand_no))
                if log_id is None:
                    log_id = s.scalar(select(HandLog.id).where(HandLog.match_id == match_id,
                                                               HandLog.hand_no == hand_no))
                    if log_id is None:
                        raise StoreError(ErrorCode.UNKNOWN_HAND, f"match {match_id} has no logged hand {hand_no}")
                    ids[(match_id, hand_no)] = log_id
                if log_id not in logs:  # each log locked and counted once per batch
                    found = s.execute(
                        select(HandLog, MatchRow.status).join(MatchRow, MatchRow.id == HandLog.match_id)
                        .where(HandLog.id == log_id).with_for_update(of=HandLog)
                    ).one()
                    logs[log_id] = (found[0], found[1])
                    counts[log_id] = s.scalar(select(func.count()).select_from(HandAction)
                                              .where(HandAction.hand_log_id == log_id)) or 0
                log, status = logs[log_id]
                count = max(counts[log_id], tails.get((match_id, hand_no), (log_id, 0))[1])
                if n < count:  # a retry: the same action, or action_conflict
                    earlier = batch.get((log_id, n))
                    if earlier is None:
                        self._same_action(s, log, n, data)
                    elif canonical(earlier) != canonical(data):
                        raise StoreError(ErrorCode.ACTION_CONFLICT, f"action {n} of hand {log.hand_no} of match "
                                                                    f"{log.match_id} was logged as something else")
                    continue
                _check_next(log, status, n, count)
                rows.append({"hand_log_id": log_id, "seq": n, "action": data})
                batch[(log_id, n)] = data
                counts[log_id] = count + 1
                tails[(match_id, hand_no)] = (log_id, count + 1)
            if rows:
                try:
                    s.connection().execute(_ADD_ACTIONS, rows)  # on the connection: no ORM bookkeeping
                except IntegrityError:  # another writer got there first
                    raise StoreError(ErrorCode.ACTION_CONFLICT, "a logged action was written by someone else") from None
        if len(tails) > _TAILS_KEPT:  # hands left unsettled (a match abandoned): keep this batch's only
            tails = {key: tails[key] for key in {(item[1], item[2]) for item in checked} if key in tails}
        with self._tails_lock:
            self._log_tails = tails

    def forget(self, match_id: int) -> None:
        """A match's hand settled or the match ended: its logs take the checked path again."""
        with self._tails_lock:
            self._log_tails = {k: v for k, v in self._log_tails.items() if k[0] != match_id}

    @staticmethod
    def _same_action(s: Session, log: HandLog, seq: int, action: dict[str, Any]) -> bool:
        """Whether ``action`` is already logged at ``seq``; ``action_conflict`` if another one is."""
        found = s.scalar(select(HandAction.action).where(HandAction.hand_log_id == log.id, HandAction.seq == seq))
        if found is None:
            return False
        if canonical(found) != canonical(action):
            raise StoreError(ErrorCode.ACTION_CONFLICT, f"action {seq} of hand {log.hand_no} of match {log.match_id} "
                                                        "was logged as something else")
        return True

    @staticmethod
    def open_hands(s: Session, match_ids: Collection[int] | None = None) -> dict[int, OpenHand]:
        """In ``s``: the hand in play of each running match that has one (of ``match_ids`` only, when
        given), by match id: the one logged and not settled, its actions in order."""
        query = (select(HandLog).join(MatchRow, MatchRow.id == HandLog.match_id)
                 .where(MatchRow.status == "running", HandLog.settled_at.is_(None),
                        HandLog.hand_no == MatchRow.hands_played + 1))
        if match_ids is not None:
            query = query.where(MatchRow.id.in_(list(match_ids)))
        logs = {log.match_id: log for log in s.scalars(query)}
        actions: dict[int, list[dict[str, Any]]] = {log.id: [] for log in logs.values()}
        if actions:
            for log_id, action in s.execute(
                select(HandAction.hand_log_id, HandAction.action)
                .where(HandAction.hand_log_id.in_(actions)).order_by(HandAction.hand_log_id, HandAction.seq)
            ):
                actions[log_id].append(action)
        return {match_id: OpenHand(log.id, log.hand_no, log.seed, dict(log.start), tuple(actions[log.id]))
                for match_id, log in logs.items()}

    # --- settled hands ----------------------------------------------------------------------------------------
    @staticmethod
    def record_hand(s: Session, match_id: int, result: HandResult, payload: Mapping[str, Any] | None = None) -> int:
        """In ``s`` (a settlement): the record of the settled hand ``result`` (``payload``: its
        :meth:`~xuezhan.match.HandResult.to_json` when already made); returns the hand's id."""
        hand_id: int = s.connection().execute(
            _ADD_HAND,
            {"match_id": match_id, "hand_no": result.hand_no, "seed": result.seed, "dealer": result.dealer,
             "record": result.record, "result": result.to_json() if payload is None else payload},
        ).scalar_one()
        return hand_id

    @staticmethod
    def record_points(
        s: Session, hand_id: int, result: HandResult, ids: Mapping[str, int], coins: CoinSettlement
    ) -> dict[str, int]:
        """In ``s`` (a settlement): each participant's points, fee and coins in hand ``hand_id``, in one
        statement; returns the points by participant."""
        points = result.points()
        seats = {p: i for i, p in enumerate(result.seating)}
        s.connection().execute(_ADD_POINTS, [
            {"hand_id": hand_id, "account_id": ids[p], "seat": seats.get(p), "points": points[p],
             "fee": coins.fees[i], "coins": coins.changes[i]}
            for i, p in enumerate(result.participants)
        ])
        return points

    @staticmethod
    def recorded_points(s: Session, hand_id: int) -> list[tuple[str, int, int, int]]:
        """In ``s``: (name, points, fee, coins) of each participant of the settled hand ``hand_id``."""
        return [(n, p, f, c) for n, p, f, c in s.execute(
            select(Account.name, HandPoints.points, HandPoints.fee, HandPoints.coins)
            .join(Account, Account.id == HandPoints.account_id)
            .where(HandPoints.hand_id == hand_id)
        ).all()]

    @staticmethod
    def close_log(s: Session, match_id: int, hand_no: int) -> None:
        """In ``s`` (a settlement): the hand's log (if it was logged) takes no more actions."""
        s.connection().execute(_CLOSE_LOG, {"log_match": match_id, "log_hand": hand_no})

    def hand_results(self, match_id: int) -> list[HandResult]:
        with self._db.sessions() as s:
            rows = s.scalars(select(HandRow).where(HandRow.match_id == match_id).order_by(HandRow.hand_no)).all()
            return [HandResult.from_json(r.result) for r in rows]

    def hand_record(self, match_id: int, hand_no: int) -> dict[str, Any]:
        """The game record of a settled hand (replays with :func:`xuezhan.records.replay`)."""
        with self._db.sessions() as s:
            row = s.scalar(select(HandRow).where(HandRow.match_id == match_id, HandRow.hand_no == hand_no))
            if row is None:
                raise StoreError(ErrorCode.UNKNOWN_HAND, f"match {match_id} has no settled hand {hand_no}")
            return dict(row.record)

    def history(self, name: str, limit: int = 50) -> list[HandHistory]:
        """``name``'s settled hands, newest first."""
        with self._db.sessions() as s:
            acc = account_ids(s, [name])[name]
            rows = s.execute(
                select(Room.name, HandRow.match_id, HandRow.hand_no, HandPoints.seat, HandPoints.points,
                       HandPoints.fee, HandPoints.coins, HandRow.created_at, HandRow.id)
                .join(HandRow, HandRow.id == HandPoints.hand_id)
                .join(MatchRow, MatchRow.id == HandRow.match_id)
                .join(Room, Room.id == MatchRow.room_id)
                .where(HandPoints.account_id == acc)
                .order_by(HandRow.id.desc())
                .limit(limit)
            ).all()
            return [HandHistory(*row) for row in rows]

    def past_hand(self, name: str, hand_id: int) -> tuple[str, int, int, dict[str, Any], dict[str, Any]] | None:
        """A settled hand ``name`` sat in (not as a bystander): its room, number, ``name``'s seat, its
        game record and its result; ``None`` for any other hand."""
        with self._db.sessions() as s:
            row = s.execute(
                select(Room.name, HandRow.hand_no, HandPoints.seat, HandRow.record, HandRow.result)
                .join(HandRow, HandRow.id == HandPoints.hand_id)
                .join(Account, Account.id == HandPoints.account_id)
                .join(MatchRow, MatchRow.id == HandRow.match_id)
                .join(Room, Room.id == MatchRow.room_id)
                .where(HandPoints.hand_id == hand_id, Account.name == name, HandPoints.seat.is_not(None))
            ).first()
            if row is None:
                return None
            return str(row[0]), int(row[1]), int(row[2]), dict(row[3]), dict(row[4])
