"""Tournaments (比赛): a controller over ordinary tables.

The server's config names its tournaments (:mod:`xuezhan.server.tournament_config`). Each one
held is open for entries (``POST /api/tournaments/{id}/join``) until it starts; at its start the
entries are taken (coins or a match ticket, :meth:`xuezhan.store.Tournaments.start`), and with
fewer than ``min_players`` entrants who paid it is cancelled and they are refunded. Otherwise it
plays ``rounds`` rounds. In each round the entrants sit four to a table (as evenly as tables of
at most four allow; bots fill the rest) and every table plays a match of ``hands_per_round``
hands: round 1 in a seating drawn from the tournament's id, later rounds by the standings (Swiss:
the leaders at the first table, and so on). The standings are by total points; a tie goes to the
better last round, then the round before, and so on, then to whoever entered first, so places
are 1..N, each once. After the last round the prizes are paid by place (bots never enter, so
they take none).

A tournament's tables are ordinary tables (:class:`TournamentTable`: spectators, history, the
restart promise); they deal their hands whoever is connected (an absent person's seat is played
by its stand-in when its time runs out, as anywhere) and take no one else into their seats. The
controller (:class:`TournamentDirector`) holds no game: it seats people, reads the points their
tables' settled hands recorded (the database is the one source), and keeps its state in the
database after every step, so that after a restart it carries on where it was, while the
lobby carries on its tables.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import math
import random
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar, Final, Protocol

from ..errors import XuezhanError
from ..ids import ErrorCode
from ..match import RoomConfig, Tier
from .bank import Account, Bank, HeldTournament, RunningMatch, WaitingRoom
from .config import ServerConfig
from .conn import Conn
from .journal import LogWriter
from .play import LOG_RETRY
from .status import Status
from .table import Table
from .tournament_config import MATCH_TICKET, TournamentConfig

log = logging.getLogger("xuezhan.server")

SEATS: Final = 4
POLL: Final = 1.0
"""Seconds between looks at a running round's tables (a table whose match ends wakes the
controller at once; this is what updates the standings live meanwhile)."""
KEEP_ENDED: Final = timedelta(hours=6)
"""How long a tournament that finished or was cancelled stays listed."""


# --- seating and standings ---------------------------------------------------------------------------------
def table_sizes(entrants: int) -> list[int]:
    """How many entrants sit at each table: as few tables as four seats allow, as evenly filled as
    can be, the fuller first (``5 → [3, 2]``, ``9 → [3, 3, 3]``)."""
    if entrants <= 0:
        return []
    tables = math.ceil(entrants / SEATS)
    base, extra = divmod(entrants, tables)
    return [base + 1] * extra + [base] * (tables - extra)


def seat_tables(order: Sequence[str]) -> list[list[str]]:
    """``order`` cut into tables of :func:`table_sizes`, in that order (the first at the first table)."""
    out: list[list[str]] = []
    at = 0
    for size in table_sizes(len(order)):
        out.append(list(order[at:at + size]))
        at += size
    return out


def first_round_order(key: str, entrants: Sequence[str]) -> list[str]:
    """Round 1's seating order: the entrants shuffled by a generator seeded from the tournament's id
    (the same after a restart)."""
    seed = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big")
    order = list(entrants)
    random.Random(seed).shuffle(order)
    return order


@dataclass(frozen=True, slots=True)
class Standing:
    """One entrant's place: total points, and the points of each round."""

    name: str
    points: int
    place: int
    rounds: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "points": self.points, "place": self.place, "rounds": list(self.rounds)}


def standings(entrants: Sequence[str], rounds: Sequence[Mapping[str, int]]) -> list[Standing]:
    """The entrants by total points over ``rounds`` (each round's points by player); a tie goes to
    the better last round, then the one before ..., then to the earlier entrant. Places 1..N."""
    index = {p: i for i, p in enumerate(entrants)}

    def key(p: str) -> tuple[int, tuple[int, ...], int]:
        return (-sum(r.get(p, 0) for r in rounds), tuple(-r.get(p, 0) for r in reversed(rounds)), index[p])

    ranked = sorted(entrants, key=key)
    return [Standing(p, sum(r.get(p, 0) for r in rounds), place, tuple(r.get(p, 0) for r in rounds))
            for place, p in enumerate(ranked, start=1)]


# --- one tournament held ---------------------------------------------------------------------------------
@dataclass
class Held:
    """One tournament held: what it plays (copied from the config when it opened, so a config changed
    later leaves it as it was), who entered and paid, each round's seating, tables and points."""

    key: str
    config_id: str
    name: str
    starts_at: datetime
    entry: int | str
    rounds: int
    hands_per_round: int
    room: RoomConfig
    prizes: list[int]
    min_players: int
    max_players: int
    status: str = "open"
    entrants: list[str] = field(default_factory=list)
    paid: list[str] = field(default_factory=list)
    round: int = 0
    plan: list[list[list[str]]] = field(default_factory=list)
    """Each round's seating: its tables' people."""
    tables: list[list[str]] = field(default_factory=list)
    """Each round's table codes (as they are opened)."""
    points: list[dict[str, int]] = field(default_factory=list)
    """Each finished round's points by entrant."""
    live: dict[str, int] = field(default_factory=dict)
    """The round being played: its points so far."""
    places: dict[str, int] = field(default_factory=dict)
    prizes_paid: dict[str, int] = field(default_factory=dict)
    stored: bool = False
    """The database holds it (someone entered)."""
    ended_at: datetime | None = None

    @classmethod
    def new(cls, config: TournamentConfig, start: datetime) -> Held:
        return cls(config.instance_id(start), config.id, config.name, start, config.entry, config.rounds,
                   config.hands_per_round, config.room, list(config.prizes), config.min_players, config.max_players)

    def state_json(self) -> dict[str, Any]:
        return {"config": self.config_id, "name": self.name, "entry": self.entry, "rounds": self.rounds,
                "hands_per_round": self.hands_per_round, "room": self.room.to_mapping(), "prizes": self.prizes,
                "min_players": self.min_players, "max_players": self.max_players, "entrants": self.entrants,
                "round": self.round, "plan": self.plan, "tables": self.tables, "points": self.points}

    @classmethod
    def from_held(cls, held: HeldTournament) -> Held:
        s = held.state
        out = cls(held.key, str(s.get("config", held.key)), str(s.get("name", held.key)), held.starts_at,
                  s.get("entry", 0), int(s.get("rounds", 1)), int(s.get("hands_per_round", 1)),
                  RoomConfig.from_mapping(s.get("room", {})), [int(c) for c in s.get("prizes", [])],
                  int(s.get("min_players", SEATS)), int(s.get("max_players", 64)), status=held.status,
                  entrants=[str(p) for p in s.get("entrants", [])], paid=[str(p) for p in s.get("paid", [])],
                  round=int(s.get("round", 0)), plan=[[list(t) for t in r] for r in s.get("plan", [])],
                  tables=[list(r) for r in s.get("tables", [])],
                  points=[{str(k): int(v) for k, v in r.items()} for r in s.get("points", [])],
                  places={str(k): int(v) for k, v in s.get("places", {}).items()},
                  prizes_paid={str(k): int(v) for k, v in s.get("prizes_paid", {}).items()}, stored=True)
        if out.status in ("finished", "cancelled"):
            out.ended_at = held.starts_at
        return out

    @property
    def competitors(self) -> list[str]:
        """Who the standings rank: those who paid once it started, else those who entered."""
        return self.paid if self.status in ("running", "finished") else self.entrants

    def standings(self) -> list[Standing]:
        rounds = list(self.points)
        if self.status == "running" and len(self.points) < self.round:
            rounds.append(self.live)
        if self.places:
            done = standings(self.competitors, rounds)
            return sorted(done, key=lambda s: self.places.get(s.name, s.place))
        return standings(self.competitors, rounds)

    def table_of(self, player: str) -> str | None:
        """The code of ``player``'s table in the round being played."""
        if self.status != "running" or not self.plan:
            return None
        for people, code in zip(self.plan[-1], self.tables[-1] if self.tables else [], strict=False):
            if player in people:
                return code
        return None

    def summary(self, player: str | None = None) -> dict[str, Any]:
        """As ``GET /api/tournaments`` lists it."""
        return {"id": self.key, "name": self.name, "starts_at": self.starts_at.astimezone(UTC).isoformat(),
                "status": self.status, "entrants": list(self.entrants), "entry": self.entry, "prizes": self.prizes,
                "rounds": self.rounds, "hands_per_round": self.hands_per_round, "min_players": self.min_players,
                "round": self.round, "joined": player is not None and player in self.entrants}

    def detail(self, player: str | None = None) -> dict[str, Any]:
        """As ``GET /api/tournaments/{id}`` gives it: the summary, the standings (with each place's
        prize once paid) and the round's tables (``table``: the caller's)."""
        rows = []
        for s in self.standings():
            row = s.to_json()
            if self.status == "finished":
                row["prize"] = self.prizes_paid.get(s.name, 0)
            rows.append(row)
        return {**self.summary(player), "standings": rows, "tables": list(self.tables[-1]) if self.tables else [],
                "table": self.table_of(player) if player is not None else None}


# --- its tables ------------------------------------------------------------------------------------------
class TournamentTable(Table):
    """A table of a tournament's round: its entrants seated from the start, bots in the other seats,
    one match of the round's hands dealt one after another whoever is connected; nobody else takes
    a seat, nobody starts it again; it stays open until its match is over."""

    by_server: ClassVar[bool] = True
    tournament = ""
    round_no = 0
    table_no = -1
    """Which of its round's tables it is (from 0), as the round's plan numbers them."""
    on_match_end: Callable[[], None] | None = None
    _start_at = 0.0

    def meta(self) -> dict[str, Any]:
        return {**super().meta(), "tournament": self.tournament, "round": self.round_no, "table": self.table_no}

    def mark(self, meta: Mapping[str, Any]) -> None:
        """Take the tournament, round and table number this table is of from its room's metadata (after a
        restart)."""
        self.tournament = str(meta.get("tournament", ""))
        round_no, table_no = meta.get("round", 0), meta.get("table", -1)
        self.round_no = round_no if isinstance(round_no, int) else 0
        self.table_no = table_no if isinstance(table_no, int) else -1

    @classmethod
    def restore(cls, running: RunningMatch, bank: Bank, config: ServerConfig, accounts: dict[str, Account], *,
                on_close: Callable[[Table], None] | None = None, writer: LogWriter | None = None) -> Table:
        table = super().restore(running, bank, config, accounts, on_close=on_close, writer=writer)
        assert isinstance(table, TournamentTable)
        table.mark(running.meta or {})
        return table

    @classmethod
    def waiting(cls, waiting: WaitingRoom, bank: Bank, config: ServerConfig, accounts: dict[str, Account], *,
                on_close: Callable[[Table], None] | None = None, writer: LogWriter | None = None) -> Table | None:
        table = super().waiting(waiting, bank, config, accounts, on_close=on_close, writer=writer)
        if isinstance(table, TournamentTable):
            table.mark(waiting.meta)
        return table

    def start_task(self) -> None:
        if self.status is Status.WAITING:
            for seat in range(SEATS):  # bots in the seats the round left empty
                if self.players[seat] is None:
                    self.players[seat] = self._new_bot()
        super().start_task()

    def _idle_timeout(self) -> float:
        if self.status is not Status.FINISHED:
            return math.inf  # a round's table plays its match out, watched or not
        return super()._idle_timeout()

    def _next_wakeup(self) -> float | None:
        wake = super()._next_wakeup()
        if self.status is Status.WAITING:
            due = self._start_at
        elif self.status is Status.BETWEEN:
            due = self.next_hand_at
        else:
            return wake
        return due if wake is None else min(wake, due)

    async def _advance(self) -> None:
        now = self.now()
        if self.status is Status.WAITING and now >= self._start_at:
            self._start_at = now + LOG_RETRY  # a match the database refused is tried again
            await self._start_match()
            if self.status is Status.WAITING:
                log.warning("table %s of tournament %s: its match could not be started; trying again", self.code,
                            self.tournament)
        elif self.status is Status.BETWEEN:
            humans = self._humans_connected()
            if now >= self.next_hand_at or (humans and humans <= self.ready):
                await self._start_hand()
        await super()._advance()

    async def _stand_up_the_short(self) -> None:
        """Nobody stands up at a tournament's table: it plays for points, not coins."""

    async def _finish_hand(self) -> None:
        await super()._finish_hand()
        if self.status is Status.FINISHED and self.on_match_end is not None:
            self.on_match_end()

    async def _on_sit(self, conn: Conn, wanted: int | None, *, accept_risk: bool = False) -> None:
        if self._seat_of(conn.account.player) is None:
            self._refuse(conn, "sit", ErrorCode.SEAT_TAKEN, "a tournament table's seats are its entrants'")
            return
        await super()._on_sit(conn, wanted, accept_risk=accept_risk)

    async def _on_start(self, conn: Conn) -> None:
        self._refuse(conn, "start", ErrorCode.ALREADY_STARTED, "a tournament table plays one match")


# --- the controller --------------------------------------------------------------------------------------
class Tables(Protocol):
    """What the controller needs of the lobby (:class:`xuezhan.server.lobby.Lobby`)."""

    @property
    def config(self) -> ServerConfig: ...

    tables: dict[str, Table]

    async def create(self, owner: Account, room: RoomConfig, name: str, *, public: bool, autostart: bool,
                     tier: Tier | None = None, short_code: bool = False, people: Sequence[Account] = (),
                     kind: type[Table] = Table, setup: Callable[[Table], None] | None = None) -> Table: ...


def refused(code: ErrorCode, message: str) -> XuezhanError:
    return XuezhanError(code, message)


class TournamentDirector:
    """Every tournament of one server: opens each one the config holds, takes entries, starts,
    seats, follows and finishes them; one task, woken by the clock and by its tables."""

    def __init__(self, lobby: Tables, bank: Bank, clock: Callable[[], datetime] | None = None) -> None:
        self.lobby = lobby
        self.bank = bank
        self.clock = clock or (lambda: datetime.now(UTC))
        self.held: dict[str, Held] = {}
        self._lock = asyncio.Lock()
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.may_run: Callable[[], bool] = lambda: True
        """Whether the director may move on now: on a node of a cluster, while the node surely leads
        the tournaments (:mod:`xuezhan.server.nodes`)."""

    @property
    def configs(self) -> tuple[TournamentConfig, ...]:
        return self.lobby.config.tournaments

    # --- the task ---------------------------------------------------------------------------------------
    async def restore(self) -> None:
        """Take up what the database holds (open and running ones, the latest ended), hook the
        round's tables the lobby carried on, and start the task."""
        try:
            for held in await asyncio.to_thread(self.bank.tournaments):
                if held.key not in self.held:
                    self.held[held.key] = Held.from_held(held)
        except Exception:
            log.exception("the tournaments could not be read; they are taken up at the next look")
        for table in self.lobby.tables.values():
            if isinstance(table, TournamentTable):
                table.on_match_end = self.wake
        if self.configs or self.held:
            self._task = asyncio.create_task(self._run(), name="tournaments")

    def wake(self) -> None:
        self._wake.set()

    async def close(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with suppress(asyncio.CancelledError):
                await task

    async def _run(self) -> None:
        while True:
            self._wake.clear()
            try:
                async with self._lock:
                    if self.may_run():
                        await self.step()
            except Exception:
                log.exception("the tournaments could not move on")
            now = self.clock()
            due = [h.starts_at for h in self.held.values() if h.status == "open"]
            timeout = POLL if any(h.status == "running" for h in self.held.values()) else 60.0
            if due:
                timeout = min(timeout, max(0.0, (min(due) - now).total_seconds()))
            with suppress(TimeoutError):
                async with asyncio.timeout(max(0.01, timeout)):  # not wait_for (Table.run)
                    await self._wake.wait()

    async def step(self) -> None:
        """One look at every tournament: open the next of each config, start those due, move the
        running ones on, forget those long over."""
        now = self.clock()
        self.open_next(now)
        for held in list(self.held.values()):
            if held.status == "open" and held.starts_at <= now:
                await self._start(held)
            if held.status == "running":
                await self._follow(held)
        for key, held in list(self.held.items()):
            if held.ended_at is not None and now - held.ended_at > KEEP_ENDED:
                del self.held[key]

    def open_next(self, now: datetime) -> None:
        """The next tournament of each config that starts after ``now`` is open for entries."""
        for config in self.configs:
            start = config.next_start(now)
            if start is not None:
                key = config.instance_id(start)
                if key not in self.held:
                    self.held[key] = Held.new(config, start)

    async def _save(self, held: Held) -> None:
        await asyncio.to_thread(self.bank.save_tournament, held.key, held.status, held.starts_at, held.state_json())
        held.stored = True

    async def _start(self, held: Held) -> None:
        if not held.stored:  # nobody entered: nothing to take, nothing to refund
            held.status = "cancelled"
            held.ended_at = self.clock()
            return
        status, paid = await asyncio.to_thread(self.bank.start_tournament, held.key, held.min_players)
        held.paid = paid
        held.status = status
        if status != "running":
            held.ended_at = self.clock()
            log.info("tournament %s cancelled: %d of %d needed paid", held.key, len(paid), held.min_players)
            return
        await self._next_round(held)

    async def _next_round(self, held: Held) -> None:
        """Seat the next round (round 1 drawn, then by the standings), keep the plan, open its tables."""
        order = first_round_order(held.key, held.paid) if held.round == 0 else [s.name for s in held.standings()]
        held.round += 1
        held.plan.append(seat_tables(order))
        held.tables.append([])
        held.live = {}
        await self._save(held)
        await self._open_tables(held, fresh=True)

    async def _open_tables(self, held: Held, *, fresh: bool = False) -> None:
        """Open the round's tables not opened yet (all of them, or those a restart cut short). A table
        whose room was opened before the stop but not yet written into the state is taken as it is,
        not opened twice (unless ``fresh``: the round was planned just now, none of it is open)."""
        plan, codes = held.plan[-1], held.tables[-1]
        opened = {} if fresh else await asyncio.to_thread(self.bank.round_rooms, held.key, held.round)
        for number in range(len(codes), len(plan)):
            found = opened.get(number)
            if found is not None and found not in codes:
                codes.append(found)
                await self._save(held)
                continue
            people = []
            for player in plan[number]:
                account = await asyncio.to_thread(self.bank.account, player)
                people.append(account or Account(player, player, 0))

            def setup(table: Table, round_no: int = held.round, table_no: int = number) -> None:
                if isinstance(table, TournamentTable):
                    table.tournament = held.key
                    table.round_no = round_no
                    table.table_no = table_no
                    table.on_match_end = self.wake

            name = f"{held.name} · {held.round}-{number + 1}"
            try:
                table = await self.lobby.create(people[0], held.room, name, public=True, autostart=False,
                                                people=people[1:], kind=TournamentTable, setup=setup)
            except XuezhanError as exc:
                if held.round == 1 and not codes:  # it cannot begin: nobody has played, everyone is refunded
                    log.warning("tournament %s cannot open its tables (%s): it is cancelled", held.key, exc.message)
                    await asyncio.to_thread(self.bank.cancel_tournament, held.key)
                    held.status = "cancelled"
                    held.ended_at = self.clock()
                    return
                raise  # a later round: tried again at the next look
            codes.append(table.code)
            await self._save(held)

    async def _follow(self, held: Held) -> None:
        """The round's points so far; once every table of it has played out, the next round or the end."""
        codes = held.tables[-1] if held.tables else []
        if held.plan and len(codes) < len(held.plan[-1]):
            await self._open_tables(held)
            return
        done, points = await asyncio.to_thread(self.bank.round_points, list(codes))
        held.live = {p: points.get(p, 0) for p in held.paid}
        if not done:
            return
        if len(held.points) < held.round:
            held.points.append(dict(held.live))
        if held.round < held.rounds:
            await self._next_round(held)
            return
        places = {s.name: s.place for s in standings(held.paid, held.points)}
        await self._save(held)
        held.prizes_paid = await asyncio.to_thread(self.bank.finish_tournament, held.key, places)
        held.places = places
        held.status = "finished"
        held.ended_at = self.clock()

    # --- people ------------------------------------------------------------------------------------------
    def find(self, ident: str) -> Held | None:
        """The tournament of id ``ident``, or the open one of the config ``ident``."""
        held = self.held.get(ident)
        if held is not None:
            return held
        return next((h for h in sorted(self.held.values(), key=lambda h: h.starts_at)
                     if h.config_id == ident and h.status == "open"), None)

    async def lookup(self, ident: str) -> Held | None:
        """:meth:`find`, else one that ended long ago, from the database."""
        held = self.find(ident)
        if held is None and len(ident) <= 80:
            found = await asyncio.to_thread(self.bank.tournament, ident)
            held = Held.from_held(found) if found is not None else None
        return held

    def listing(self, player: str | None = None) -> list[dict[str, Any]]:
        """Open and running tournaments (soonest first), then those that ended lately (newest first)."""
        self.open_next(self.clock())
        live = sorted((h for h in self.held.values() if h.status in ("open", "running")), key=lambda h: h.starts_at)
        ended = sorted((h for h in self.held.values() if h.status not in ("open", "running")),
                       key=lambda h: h.starts_at, reverse=True)
        return [h.summary(player) for h in live + ended]

    async def join(self, account: Account, ident: str) -> Held:
        """Enter ``account`` (again: nothing changes); ``tournament_closed`` once it started,
        ``tournament_full``, ``insufficient_balance`` or ``no_ticket`` when it cannot pay the entry."""
        async with self._lock:
            held = self._open(ident)
            player = account.player
            if player in held.entrants:
                return held
            if len(held.entrants) >= held.max_players:
                raise refused(ErrorCode.TOURNAMENT_FULL, f"{held.name} has {held.max_players} entrants already")
            if held.entry == MATCH_TICKET:
                if await asyncio.to_thread(self.bank.match_tickets, player) < 1:
                    raise refused(ErrorCode.NO_TICKET, "the entry is a match ticket (比赛卡), and you hold none")
            elif isinstance(held.entry, int) and account.balance < held.entry:
                raise refused(ErrorCode.INSUFFICIENT_BALANCE, f"the entry is {held.entry} coins")
            held.entrants.append(player)
            try:
                await self._save(held)
            except Exception:
                held.entrants.remove(player)
                raise
            return held

    async def leave(self, account: Account, ident: str) -> Held:
        """Take ``account``'s entry back before the start (nothing was paid yet)."""
        async with self._lock:
            held = self._open(ident)
            if account.player in held.entrants:
                held.entrants.remove(account.player)
                try:
                    await self._save(held)
                except Exception:
                    held.entrants.append(account.player)
                    raise
            return held

    def _open(self, ident: str) -> Held:
        self.open_next(self.clock())
        held = self.find(ident)
        if held is None:
            raise refused(ErrorCode.UNKNOWN_TOURNAMENT, f"no tournament {ident[:80]!r}")
        if held.status != "open" or held.starts_at <= self.clock():
            raise refused(ErrorCode.TOURNAMENT_CLOSED, f"{held.name} is {held.status}: entries are closed")
        return held
