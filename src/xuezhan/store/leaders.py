"""Leaders: the tasks of a cluster that one node runs at a time (seating the queue, the tournaments'
director), each under a lease in ``leader_leases`` like a room's (:mod:`xuezhan.store.leases`).

A node holding a task renews its lease at every look (:meth:`Leaders.hold`); a lease left to lapse
(its node died, stopped, or was paused longer than the lease) is taken by the next node that looks,
with its token raised by one. A write made for a task checks in its own transaction that the lease
still names this node with the token it took it with (:meth:`Leaders.check`): else ``lease_lost``
and nothing is written; so a node that lost a task writes nothing more for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..ids import ErrorCode
from .base import Database, StoreError, aware
from .leases import db_now
from .models import LeaderLease


@dataclass(frozen=True, slots=True)
class Lead:
    """A task held: its name, the node, and the token it was taken with."""

    name: str
    node: str
    token: int


class Leaders:
    """The leader leases, on ``db``."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def hold(self, name: str, node: str, seconds: float) -> Lead | None:
        """Renew ``node``'s lease of task ``name``, or take it if nobody holds it (never taken, lapsed,
        given up); the lease held, else ``None`` (another node holds it)."""
        try:
            with self._db.sessions.begin() as s:
                now = db_now(s)
                until = now + timedelta(seconds=seconds)
                lease = s.execute(select(LeaderLease).where(LeaderLease.name == name).with_for_update()).scalar()
                if lease is None:
                    s.add(LeaderLease(name=name, node=node, token=1, expires_at=until))
                    s.flush()
                    return Lead(name, node, 1)
                mine = lease.node == node and lease.expires_at is not None and aware(lease.expires_at) > now
                if not mine and lease.expires_at is not None and aware(lease.expires_at) > now:
                    return None
                if not mine:
                    lease.node = node
                    lease.token += 1
                lease.expires_at = until
                return Lead(name, node, lease.token)
        except IntegrityError:  # another node took it first at the same moment
            return None

    def give_up(self, lead: Lead) -> None:
        """The task's lease lapses now (its node stops on purpose), for another node to take."""
        with self._db.sessions.begin() as s:
            lease = s.get(LeaderLease, lead.name, with_for_update=True)
            if lease is not None and lease.node == lead.node and lease.token == lead.token:
                lease.expires_at = db_now(s) - timedelta(microseconds=1)

    def holder(self, name: str) -> str | None:
        """The node that holds task ``name`` now (its lease live), if any."""
        with self._db.sessions() as s:
            now = db_now(s)
            lease = s.get(LeaderLease, name)
            if lease is None or lease.expires_at is None or aware(lease.expires_at) <= now:
                return None
            return lease.node

    @staticmethod
    def check(s: Session, lead: Lead) -> None:
        """In transaction ``s``: the task's lease still names ``lead``'s node and token, and stays so
        until ``s`` ends (a share lock: a take-over waits for it); else ``lease_lost``."""
        row = s.execute(
            select(LeaderLease.node, LeaderLease.token).where(LeaderLease.name == lead.name)
            .with_for_update(read=True)
        ).first()
        if row is None or row[0] != lead.node or row[1] != lead.token:
            raise StoreError(ErrorCode.LEASE_LOST, f"{lead.name} is led by another node than {lead.node} now")


__all__ = ["Lead", "Leaders"]
