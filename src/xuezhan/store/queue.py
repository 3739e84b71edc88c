"""The queue of a cluster (``/api/queue`` on any node): one ``queue_tickets`` row per person queued.

Any node writes a ticket (:meth:`QueueBook.join`) or takes it back (:meth:`QueueBook.leave`). The
node that leads the queue (:mod:`xuezhan.store.leaders`) seats them: :meth:`QueueBook.claim` takes,
in one transaction that checks its lead, the groups to seat (four with the same key, or a group
whose first has waited long enough), marking them ``seating``; it opens their table, then
:meth:`QueueBook.seated` marks them ``seated`` there (or :meth:`QueueBook.unclaim` puts them back,
first in line, when no table could be opened). A node that takes the lead over puts back whatever
its predecessor left ``seating`` (:meth:`QueueBook.recover`), or marks it seated where its table was
opened. Every node reads where its listening people were seated (:meth:`QueueBook.tables_of`).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, select, update

from .base import Database, aware
from .leaders import Lead, Leaders
from .leases import db_now
from .models import QueueTicket, Room, RoomLease


@dataclass(frozen=True, slots=True)
class Queued:
    """A ticket as the leader seats it."""

    player: str
    tier: str
    preset: str
    exchange_three: bool
    room: dict[str, Any]
    lang: str
    since: datetime

    @property
    def key(self) -> tuple[str, str, bool]:
        return (self.tier, self.preset, self.exchange_three)


class QueueBook:
    """The cluster's queue, on ``db``."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def join(self, player: str, tier: str, preset: str, exchange_three: bool, room: dict[str, Any],
             lang: str) -> None:
        """Queue ``player`` (again: their place is taken anew, a seat they had is forgotten)."""
        with self._db.sessions.begin() as s:
            s.execute(delete(QueueTicket).where(QueueTicket.player == player))
            s.add(QueueTicket(player=player, tier=tier, preset=preset, exchange_three=exchange_three, room=room,
                              lang=lang, since=db_now(s), state="waiting", table=None))

    def leave(self, player: str) -> bool:
        """Take ``player`` out of the queue; whether they were in it (waiting, or being seated)."""
        with self._db.sessions.begin() as s:
            gone = s.execute(delete(QueueTicket).where(QueueTicket.player == player,
                                                        QueueTicket.state != "seated"))
            return bool(getattr(gone, "rowcount", 0))

    def status(self, player: str) -> tuple[bool, str | None]:
        """Whether ``player`` is queued, and the code of the open room they were seated at, if any."""
        found = self.tables_of([player])
        with self._db.sessions() as s:
            state = s.scalar(select(QueueTicket.state).where(QueueTicket.player == player))
        return state in ("waiting", "seating"), found.get(player)

    def tables_of(self, players: Collection[str]) -> dict[str, str]:
        """The open room each of ``players`` was last seated at by the queue (those seated)."""
        if not players:
            return {}
        with self._db.sessions() as s:
            rows = s.execute(
                select(QueueTicket.player, QueueTicket.table)
                .join(Room, Room.name == QueueTicket.table).join(RoomLease, RoomLease.room_id == Room.id)
                .where(QueueTicket.player.in_(list(players)), QueueTicket.state == "seated",
                       RoomLease.expires_at.is_not(None))
            ).all()
        return {player: table for player, table in rows if table is not None}

    def claim(self, lead: Lead, wait: float, seats: int) -> list[list[Queued]]:
        """The groups to seat now, first come first seated: every ``seats`` people with one key, and a
        group whose first has waited ``wait`` seconds; each marked ``seating``. Only by the leader."""
        groups: list[list[Queued]] = []
        with self._db.sessions.begin() as s:
            Leaders.check(s, lead)
            now = db_now(s)
            rows = s.scalars(
                select(QueueTicket).where(QueueTicket.state == "waiting")
                .order_by(QueueTicket.since, QueueTicket.player)
                .with_for_update(skip_locked=True)
            ).all()
            by_key: dict[tuple[str, str, bool], list[QueueTicket]] = {}
            for row in rows:
                by_key.setdefault((row.tier, row.preset, row.exchange_three), []).append(row)
            for tickets in by_key.values():
                while len(tickets) >= seats or (
                        tickets and now >= aware(tickets[0].since) + timedelta(seconds=wait)):
                    group, tickets = tickets[:seats], tickets[seats:]
                    for row in group:
                        row.state = "seating"
                    groups.append([Queued(r.player, r.tier, r.preset, r.exchange_three, dict(r.room), r.lang,
                                          aware(r.since)) for r in group])
        return groups

    def seated(self, lead: Lead, players: Collection[str], table: str) -> None:
        """``players`` (being seated) sit at room ``table``. Only by the leader."""
        with self._db.sessions.begin() as s:
            Leaders.check(s, lead)
            s.execute(update(QueueTicket).where(QueueTicket.player.in_(list(players)), QueueTicket.state == "seating")
                      .values(state="seated", table=table))

    def unclaim(self, lead: Lead, players: Collection[str]) -> None:
        """``players`` (being seated) wait on, as if they had just come. Only by the leader."""
        with self._db.sessions.begin() as s:
            Leaders.check(s, lead)
            s.execute(update(QueueTicket).where(QueueTicket.player.in_(list(players)), QueueTicket.state == "seating")
                      .values(state="waiting", since=db_now(s)))

    def recover(self, lead: Lead) -> int:
        """On taking the lead: the people left ``seating`` by the node that led before wait again,
        first in line (their table, if it was opened, is left to close by itself); how many."""
        with self._db.sessions.begin() as s:
            Leaders.check(s, lead)
            done = s.execute(update(QueueTicket).where(QueueTicket.state == "seating").values(state="waiting"))
            return int(getattr(done, "rowcount", 0))

    def waiting(self) -> int:
        """How many people wait (tests, the status page)."""
        with self._db.sessions() as s:
            return len(s.scalars(select(QueueTicket.player).where(QueueTicket.state != "seated")).all())


__all__ = ["QueueBook", "Queued"]
