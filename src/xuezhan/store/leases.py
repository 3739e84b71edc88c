"""Room leases: which node of a cluster runs each room, and the fence that keeps a node that lost a
room from writing anything more for it (docs/deploy.md, docs/architecture.md).

A room's lease (one ``room_leases`` row) names its node, until when it holds it, and a fencing
token. The node renews its leases every second or so (:meth:`Leases.renew`); a lease left to
lapse (its node died, or lost the database) is taken over by another node
(:meth:`Leases.take_lapsed`), which raises the token by one and carries the room on from its
log. Every transaction that writes for a room (a hand's log, its settlement, the match's state,
the room's metadata) first reads the room's lease row under a share lock and checks that it
names this node with the token this node took it with (:class:`NodeFence`, installed in the
store's sessions by :meth:`Leases.install`): else ``lease_lost``, and nothing is written. A
take-over waits for a write that checked before it; a write after it is refused. So whatever
the new node reads from the log after taking the room is all that was ever written for it,
and two nodes never both write for one room.

Times are the database's (``clock_timestamp()`` on PostgreSQL), so the nodes' clocks need not agree.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from sqlalchemy import exists, func, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..ids import ErrorCode
from .base import FENCE, Database, StoreError, aware
from .models import LeaderLease, MatchRow, Room, RoomLease

TAKE_AT_ONCE: Final = 64
"""Rooms one call of :meth:`Leases.take_lapsed` takes at most: the others are left to the other
nodes, or to the next call."""


def db_now(s: Session) -> datetime:
    """The database's time now (with its zone): PostgreSQL's clock, else this machine's."""
    if s.get_bind().dialect.name == "postgresql":
        now = s.scalar(select(func.clock_timestamp()))
        assert isinstance(now, datetime)
        return aware(now)
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True)
class Holder:
    """Who runs a room (:meth:`Leases.holder`)."""

    node: str | None
    live: bool
    summary: dict[str, Any] | None


class NodeFence:
    """The rooms a node holds, by name, with the token it took each with; checked by every
    transaction that writes for a room (:class:`xuezhan.store.base.Fence`). ``seconds``: how long a
    lease lasts unless renewed."""

    def __init__(self, node: str, seconds: float) -> None:
        if not node or len(node) > 100:
            raise StoreError(ErrorCode.BAD_NAME, f"a node's name is 1-100 characters, not {node!r}")
        self.node = node
        self.seconds = seconds
        self.held: dict[str, int] = {}
        self.leads: dict[str, int] = {}
        """The cluster's tasks this node leads, with the token it took each with (:mod:`.leaders`)."""

    def until(self, now: datetime) -> datetime:
        return now + timedelta(seconds=self.seconds)

    def _check(self, found: tuple[str, str | None, int] | None, what: str) -> None:
        if found is None:
            raise StoreError(ErrorCode.LEASE_LOST, f"{what} has no lease: node {self.node} does not run it")
        name, node, token = found
        if node != self.node or self.held.get(name) != token:
            raise StoreError(ErrorCode.LEASE_LOST, f"room {name} is run by node {node} (token {token}), "
                                                   f"not by node {self.node}")

    def check_matches(self, s: Session, match_ids: Iterable[int]) -> None:
        ids = set(match_ids)
        if not ids:
            return
        rows = s.execute(
            select(MatchRow.id, Room.name, RoomLease.node, RoomLease.token)
            .join(Room, Room.id == MatchRow.room_id).join(RoomLease, RoomLease.room_id == Room.id)
            .where(MatchRow.id.in_(ids)).with_for_update(read=True, of=RoomLease)
        ).all()
        found = {match_id: (name, node, token) for match_id, name, node, token in rows}
        for match_id in sorted(ids):
            self._check(found.get(match_id), f"match {match_id}")

    def check_room(self, s: Session, room_id: int) -> None:
        row = s.execute(
            select(Room.name, RoomLease.node, RoomLease.token).join(RoomLease, RoomLease.room_id == Room.id)
            .where(Room.id == room_id).with_for_update(read=True, of=RoomLease)
        ).first()
        self._check(None if row is None else (row[0], row[1], row[2]), f"room {room_id}")

    def check_lead(self, s: Session, task: str) -> None:
        row = s.execute(
            select(LeaderLease.node, LeaderLease.token).where(LeaderLease.name == task).with_for_update(read=True)
        ).first()
        if row is None or row[0] != self.node or self.leads.get(task) != row[1]:
            raise StoreError(ErrorCode.LEASE_LOST, f"{task} is led by node {None if row is None else row[0]}, "
                                                   f"not by node {self.node}")

    def claim(self, s: Session, room_id: int, name: str) -> None:
        s.add(RoomLease(room_id=room_id, node=self.node, token=1, expires_at=self.until(db_now(s))))
        s.flush()
        self.held[name] = 1


class Leases:
    """The rooms' leases, on ``db``: taken, renewed, given up and listed by the nodes."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def install(self, fence: NodeFence) -> None:
        """From now on every transaction of this store that writes for a room checks ``fence``."""
        self._db.sessions.configure(info={FENCE: fence})

    def installed(self) -> NodeFence | None:
        """The fence this store's transactions check (:meth:`install`), if any."""
        found: NodeFence | None = self._db.sessions.kw.get("info", {}).get(FENCE)
        return found

    def take_lapsed(self, fence: NodeFence, limit: int = TAKE_AT_ONCE) -> dict[str, int]:
        """Take for ``fence``'s node the rooms whose lease lapsed (oldest lapse first), and every room
        that was never leased (made by a server alone) and may still be played: one with a running
        match, or waiting for its first (not closed); at most ``limit`` of each. A room that was
        never leased and is done gets a lease that nobody holds. Returns the rooms taken, with
        their new tokens (kept in ``fence`` too)."""
        taken: dict[str, int] = {}
        try:
            with self._db.sessions.begin() as s:
                now = db_now(s)
                until = fence.until(now)
                lapsed = s.execute(
                    select(RoomLease, Room.name).join(Room, Room.id == RoomLease.room_id)
                    .where(RoomLease.expires_at < now).order_by(RoomLease.expires_at).limit(limit)
                    .with_for_update(of=RoomLease, skip_locked=True)
                ).all()
                for lease, name in lapsed:
                    lease.node = fence.node
                    lease.token += 1
                    lease.expires_at = until
                    taken[name] = lease.token
                leased = exists().where(RoomLease.room_id == Room.id)
                running = exists().where(MatchRow.room_id == Room.id, MatchRow.status == "running")
                any_match = exists().where(MatchRow.room_id == Room.id)
                never = s.execute(
                    select(Room.id, Room.name, Room.meta, running, any_match).where(~leased)
                    .order_by(Room.id).limit(limit)
                ).all()
                for room_id, name, meta, is_running, has_match in never:
                    alive = bool(is_running) or (not has_match and not (meta or {}).get("closed"))
                    s.add(RoomLease(room_id=room_id, node=fence.node if alive else None, token=1,
                                    expires_at=until if alive else None))
                    if alive:
                        taken[name] = 1
                s.flush()
        except IntegrityError:  # another node leased a room never leased at the same moment: next time
            return {}
        fence.held.update(taken)
        return taken

    def renew(self, fence: NodeFence, summaries: Mapping[str, dict[str, Any] | None] | None = None) -> set[str]:
        """Renew every lease ``fence``'s node holds, writing the lobby's ``summaries`` given (by room;
        ``None``: not listed); returns the rooms it no longer holds (taken over by another node,
        given up), which are dropped from ``fence``."""
        held = dict(fence.held)
        if not held:
            return set()
        kept: set[str] = set()
        with self._db.sessions.begin() as s:
            until = fence.until(db_now(s))
            rows = s.execute(
                select(RoomLease, Room.name).join(Room, Room.id == RoomLease.room_id)
                .where(Room.name.in_(list(held))).with_for_update(of=RoomLease)
            ).all()
            for lease, name in rows:
                if lease.node != fence.node or lease.token != held[name] or lease.expires_at is None:
                    continue
                lease.expires_at = until
                if summaries is not None and name in summaries:
                    lease.summary = summaries[name]
                kept.add(name)
        lost = set(held) - kept
        for name in lost:
            if fence.held.get(name) == held[name]:
                del fence.held[name]
        return lost

    def release(self, fence: NodeFence, room: str) -> bool:
        """The room is done (closed): nobody carries it on, the lobby lists it no more. Only by the
        node that holds it; whether it did."""
        token = fence.held.pop(room, None)
        if token is None:
            return False
        with self._db.sessions.begin() as s:
            lease = s.execute(
                select(RoomLease).join(Room, Room.id == RoomLease.room_id).where(Room.name == room)
                .with_for_update()
            ).scalar_one_or_none()
            if lease is None or lease.node != fence.node or lease.token != token:
                return False
            lease.node = None
            lease.expires_at = None
            lease.summary = None
            return True

    def drain(self, fence: NodeFence) -> int:
        """Give up every room ``fence``'s node holds, still to be played: each lease lapses now, for
        another node to take at its next look (a node stopping on purpose). How many."""
        held = dict(fence.held)
        fence.held.clear()
        if not held:
            return 0
        given = 0
        with self._db.sessions.begin() as s:
            now = db_now(s)
            rows = s.execute(
                select(RoomLease, Room.name).join(Room, Room.id == RoomLease.room_id)
                .where(Room.name.in_(list(held))).with_for_update(of=RoomLease)
            ).all()
            for lease, name in rows:
                if lease.node == fence.node and lease.token == held[name] and lease.expires_at is not None:
                    lease.expires_at = now - timedelta(microseconds=1)
                    given += 1
        return given

    def holder(self, room: str) -> Holder | None:
        """Who runs ``room``: the node its lease names, whether the lease is live (not lapsed), and
        what its node last wrote of it for the lobby; ``None``: no lease, or the room is done."""
        with self._db.sessions() as s:
            now = db_now(s)
            row = s.execute(
                select(RoomLease.node, RoomLease.expires_at, RoomLease.summary)
                .join(Room, Room.id == RoomLease.room_id).where(Room.name == room)
            ).first()
        if row is None or row[1] is None:
            return None
        return Holder(row[0], aware(row[1]) > now, dict(row[2]) if row[2] else None)

    def counts(self, owner: str, node: str) -> tuple[int, int]:
        """How many rooms are open on every node (leased, live or lapsed), and how many of those on
        other nodes than ``node`` count against ``owner``'s open rooms: as their node last wrote
        (``counts`` in its summary), else (not written yet) each room ``owner`` made from the lobby."""
        with self._db.reads() as s:
            total = s.scalar(select(func.count()).select_from(RoomLease).where(RoomLease.expires_at.is_not(None)))
        theirs = 0
        for _, summary, meta in self.rooms_of(owner, node):
            if summary is None:
                theirs += made_from_lobby(meta)
            else:
                theirs += bool(summary.get("counts"))
        return int(total or 0), theirs

    def rooms_of(self, owner: str, node: str) -> list[tuple[str, dict[str, Any] | None, dict[str, Any]]]:
        """``owner``'s open rooms on other nodes than ``node``, newest first: each room's code, what its
        node last wrote of it (``None``: not written yet) and what the database keeps of it (``meta``)."""
        with self._db.reads() as s:
            rows = s.execute(
                select(Room.name, RoomLease.summary, Room.meta).join(Room, Room.id == RoomLease.room_id)
                .where(RoomLease.expires_at.is_not(None), or_(RoomLease.node.is_(None), RoomLease.node != node),
                       Room.meta["owner"].as_string() == owner)
                .order_by(RoomLease.room_id.desc())
            ).all()
        return [(code, None if summary is None else dict(summary), dict(meta or {})) for code, summary, meta in rows]

    def listing(self) -> list[dict[str, Any]]:
        """What every node wrote of its rooms for the lobby, oldest room first (a lapsed lease's room
        too: another node takes it within seconds)."""
        with self._db.sessions() as s:
            rows = s.scalars(
                select(RoomLease.summary)
                .where(RoomLease.expires_at.is_not(None), RoomLease.summary.is_not(None))
                .order_by(RoomLease.room_id)
            ).all()
        return [dict(r) for r in rows if r]


def made_from_lobby(meta: Mapping[str, Any]) -> bool:
    """Whether a room whose database record keeps ``meta`` was made by its owner from the lobby: not
    a queue's table, not a tournament's, not closed (what counts against the owner's open rooms)."""
    return not any(meta.get(k) for k in ("queue", "tournament", "closed"))


__all__ = ["TAKE_AT_ONCE", "Holder", "Leases", "NodeFence", "db_now", "made_from_lobby"]
