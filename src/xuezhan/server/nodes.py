"""One node of a cluster: ``xuezhan serve --db postgresql://... --node NAME`` (docs/deploy.md).

Any number of nodes share one database. Each room is run by one node at a time, under a lease in
the database (:mod:`xuezhan.store.leases`): the node that makes a room holds it from the
transaction that records it; every second :class:`Node` renews its leases (and writes what the
lobby lists of its rooms beside them), and takes the rooms whose lease lapsed, or that were never
leased, carrying each on from its log by the one restore path of a restart
(:meth:`xuezhan.server.lobby.Lobby.restore`): the hand in play replayed to its last action, each
person's open decision given its remaining time again. A node that learns it lost a room (another
node took it) stops its table at once; it could write nothing for it anyway, since every write
checks the lease in its own transaction (the fence).

A client reaches its table through the balancer: ``/ws/CODE`` on a node that does not run the room
is closed with :data:`MOVED` and the running node's name as the reason, and the page opens
``/n/NAME/ws/CODE``, which the balancer routes to that node; while a room is being taken over (its
lease lapsed) it is closed with :data:`TRY_AGAIN`, and the page tries again through the balancer.

A node stopped on purpose gives its rooms up (their leases lapse at once), so the other nodes
take them within a second; a node killed leaves them to lapse within :data:`LEASE_SECONDS`.

Two tasks are the cluster's, run by one node at a time under a leader lease each
(:mod:`xuezhan.store.leaders`, :data:`LEADS`), taken at a node's look once the lease lapsed:
``queue``, seating the people queued on every node (:mod:`xuezhan.server.cluster_queue`), and
``tournaments``, the tournaments' director (:class:`xuezhan.server.tournaments.TournamentDirector`),
which moves on only while the node's lease is surely live by this machine's clock (renewed less
than :data:`LEASE_SECONDS` ago), so a node that was paused stops it before another takes it up;
and each of its writes checks the lease in its own transaction, as a room's do.
Its requests (``/api/tournaments...``) on another node are redirected (307) to ``/n/NAME/...``.
The limits ``max_rooms`` and ``max_open_rooms_per_account`` count the rooms of every node (from
their leases).
"""

from __future__ import annotations

import asyncio
import logging
import time
from contextlib import suppress
from typing import Any, Final

from ..store import Lead, Leaders, Leases, NodeFence, QueueBook
from ..store.leases import made_from_lobby
from ..store.tournaments import LEAD
from .cluster_queue import SharedQueue
from .lobby import CODE_LENGTH, Lobby, counts_against_owner, is_quick
from .table import Table

log = logging.getLogger("xuezhan.server")

LEASE_SECONDS: Final = 4.0
"""How long a room's lease lasts unless its node renews it: a killed node's rooms are taken over
after at most this, plus :data:`RENEW_EVERY` and the time to replay their hands."""
RENEW_EVERY: Final = 1.0
"""Seconds between two renewals of a node's leases (and looks for lapsed ones)."""
MOVED: Final = 4307
"""The close code of a table's socket opened on a node that does not run the room: its reason is
the name of the node that does (reach it at ``/n/NAME/ws/CODE``)."""
TRY_AGAIN: Final = 4503
"""The close code of a table's socket while its room is being taken over: try again shortly."""
QUEUE: Final = "queue"
TOURNAMENTS: Final = LEAD
LEADS: Final = (QUEUE, TOURNAMENTS)
"""The tasks one node of a cluster runs at a time, by the name of their leader lease."""


class Node:
    """This process as one node of a cluster: its name, its leases and the lobby's tables."""

    def __init__(self, name: str, lobby: Lobby, leases: Leases, *, seconds: float = LEASE_SECONDS,
                 every: float = RENEW_EVERY, leaders: Leaders | None = None, queue: QueueBook | None = None) -> None:
        self.name = name
        self.leaders = leaders
        """The leader leases (``None``: this node takes no task of the cluster: tests of rooms alone)."""
        self.leads: dict[str, Lead] = {}
        """The tasks this node runs now, with their leases."""
        self._lead_until: dict[str, float] = {}
        """Until when (this machine's monotonic clock) each task's lease is surely this node's."""
        if queue is not None:
            lobby.queue = SharedQueue(lobby, queue, lobby.bank.account)
        lobby.tournaments.may_run = lambda: self.leads_now(TOURNAMENTS)
        self.lobby = lobby
        self.leases = leases
        self.every = every
        self.fence = NodeFence(name, seconds)
        self.task: asyncio.Task[None] | None = None
        self.closing = False
        self._published: dict[str, Any] = {}
        """What was last written for the lobby of each room (``None``: not listed)."""
        leases.install(self.fence)
        lobby.node = self
        lobby.on_closed.append(self._closed)

    async def start(self) -> int:
        """Take the rooms nobody runs (lapsed, or never leased) and carry them on, then keep the
        leases; how many tables were taken up."""
        taken = await self._take()
        await self._lead()
        self.task = asyncio.create_task(self._run(), name=f"node-{self.name}")
        return taken

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.every)
            try:
                await self.tick()
            except Exception:  # the database may be away a moment: the leases are renewed next time
                log.exception("node %s: keeping the leases failed", self.name)

    async def tick(self) -> None:
        """Renew this node's leases (writing the lobby's changes), stop the tables of rooms it lost,
        and take those whose lease lapsed."""
        summaries = self._summaries()
        lost = await asyncio.to_thread(self.leases.renew, self.fence, summaries)
        self._published.update(summaries)
        for code in lost:
            self._published.pop(code, None)
            table = self.lobby.tables.get(code)
            if table is not None and table.task is not None:
                log.warning("node %s: room %s is run by another node now; its table stops here", self.name, code)
                table.task.cancel()
        await self._take()
        await self._lead()

    def leads_now(self, task: str) -> bool:
        """Whether this node runs ``task`` now, its lease surely live (renewed less than a lease ago)."""
        return task in self.leads and time.monotonic() < self._lead_until.get(task, 0.0)

    def leader(self, task: str) -> str | None:
        """The node that runs ``task`` now, if any (blocking)."""
        return None if self.leaders is None else self.leaders.holder(task)

    async def _lead(self) -> None:
        """Renew the leases of the tasks this node runs, take those nobody runs; start and stop them."""
        if self.leaders is None:
            return
        for task in LEADS:
            asked = time.monotonic()
            try:
                lead = await asyncio.to_thread(self.leaders.hold, task, self.name, self.fence.seconds)
            except Exception:  # the database is away: the lease runs out here as it does there
                log.exception("node %s: keeping the lead of %s failed", self.name, task)
                continue
            had = self.leads.get(task)
            if lead is not None:
                self._lead_until[task] = asked + self.fence.seconds
            if lead == had:
                continue
            if had is not None:
                log.warning("node %s: %s is led by another node now", self.name, task)
                del self.leads[task]
                self.fence.leads.pop(task, None)
                await self._stop(task)
            if lead is not None:
                log.info("node %s: leading %s (token %d)", self.name, task, lead.token)
                self.leads[task] = lead
                self.fence.leads[task] = lead.token
                try:
                    await self._begin(task, lead)
                except Exception:  # begun again at the next look
                    log.exception("node %s: taking up %s failed", self.name, task)
                    del self.leads[task]
                    self.fence.leads.pop(task, None)

    async def _begin(self, task: str, lead: Lead) -> None:
        queue = self.lobby.queue
        if task == QUEUE and isinstance(queue, SharedQueue):
            again = await asyncio.to_thread(queue.book.recover, lead)
            if again:
                log.info("node %s: %d person(s) being seated by the last leader wait again", self.name, again)
            queue.lead = lead
            queue.start()
        elif task == TOURNAMENTS:
            await self.lobby.tournaments.restore()

    async def _stop(self, task: str) -> None:
        queue = self.lobby.queue
        if task == QUEUE and isinstance(queue, SharedQueue):
            queue.lead = None
        elif task == TOURNAMENTS:
            await self.lobby.tournaments.close()
            self.lobby.tournaments.held.clear()

    def _summaries(self) -> dict[str, Any]:
        """What the lobby lists of each room held here, where it changed since it was last written."""
        out: dict[str, Any] = {}
        for code in list(self.fence.held):
            table = self.lobby.get(code)
            summary = None if table is None else {"public": table.public, "room": table.summary(),
                                                  "counts": counts_against_owner(table), "quick": is_quick(table)}
            if self._published.get(code, ...) != summary:
                out[code] = summary
        return out

    async def _take(self) -> int:
        """Take the rooms whose lease lapsed and carry them on; a room with nothing left to play is
        given up for good."""
        taken = await asyncio.to_thread(self.leases.take_lapsed, self.fence)
        if not taken:
            return 0
        log.info("node %s: taking up room(s) %s", self.name, ", ".join(sorted(taken)))
        restored = await self.lobby.restore(set(taken))
        for code in taken:
            if self.lobby.get(code) is None:
                await asyncio.to_thread(self.leases.release, self.fence, code)
        return restored

    def _closed(self, table: Table) -> None:
        """A table closed by itself (its match over, nobody came): its room is done."""
        if not self.closing and table.code in self.fence.held:
            task = asyncio.get_running_loop().create_task(asyncio.to_thread(self.leases.release, self.fence,
                                                                            table.code))
            task.add_done_callback(_log_failure)

    def where(self, code: str) -> tuple[str | None, bool] | None:
        """Where room ``code`` runs: the node its lease names and whether the lease is live; ``None``
        for no open room (blocking: call it from a worker thread)."""
        holder = self.leases.holder(code.upper())
        return None if holder is None else (holder.node, holder.live)

    def summary(self, code: str) -> dict[str, Any] | None:
        """What the lobby shows of room ``code``, wherever it runs (blocking)."""
        holder = self.leases.holder(code.upper())
        found = holder.summary if holder is not None else None
        room = found.get("room") if found else None
        return room if isinstance(room, dict) else None

    def counts(self, owner: str) -> tuple[int, int]:
        """The rooms open on every node, and those on the other nodes that count against ``owner``'s
        ``max_open_rooms_per_account`` (blocking; :meth:`xuezhan.store.Leases.counts`)."""
        return self.leases.counts(owner, self.name)

    def quick_room(self, owner: str) -> dict[str, Any] | None:
        """The newest of ``owner``'s quick tables (:func:`~.lobby.is_quick`) that counts against their
        open rooms, on another node (blocking): as its node last listed it, or, not listed yet, its code
        alone (a private room of a long code that is not the queue's or a tournament's)."""
        for code, summary, meta in self.leases.rooms_of(owner, self.name):
            if summary is not None:
                room = summary.get("room")
                if summary.get("quick") and summary.get("counts") and isinstance(room, dict):
                    return room
            elif len(code) == CODE_LENGTH and not meta.get("public") and made_from_lobby(meta):
                return {"code": code}
        return None

    def listing(self) -> list[dict[str, Any]]:
        """The public rooms of every node (blocking)."""
        return [s["room"] for s in self.leases.listing() if s.get("public") and isinstance(s.get("room"), dict)]

    async def close(self) -> None:
        """Stop: the tables stop, and every room still to be played is given up for another node."""
        self.closing = True
        if self.task is not None:
            self.task.cancel()
            with suppress(asyncio.CancelledError):
                await self.task
        await self.lobby.close()
        with suppress(Exception):
            given = await asyncio.to_thread(self.leases.drain, self.fence)
            log.info("node %s: gave up %d room(s)", self.name, given)
        for lead in list(self.leads.values()):
            if self.leaders is not None:
                with suppress(Exception):
                    await asyncio.to_thread(self.leaders.give_up, lead)
        self.leads.clear()


def _log_failure(task: asyncio.Task[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("giving a room up failed", exc_info=task.exception())
