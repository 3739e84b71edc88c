"""One room's table: a single asyncio task owns the match, the hand and every timer.

Everything that changes a table goes through its inbox (joins, disconnects, client
messages) and is handled in order by :meth:`Table.run`, so no two changes ever
interleave. The match itself is played on the match runtime by
:class:`~xuezhan.server.play.TablePlay` (seats, hands, logs, settlement); when a bot acts
or a person's time runs out is the runtime's :class:`~xuezhan.runtime.Pacer`'s to say,
and :meth:`Table.run` sleeps until the next of those (or the next message) is due. Time
lives here and in the pacer, never in the engine or the decision loop.

A server started again on the same database rebuilds every running match
(:meth:`Table.restore`): the hand in progress is replayed from its log to its last
applied action and play goes on; each person's open decision gets its time again, at least
``restart_grace`` seconds, before the stand-in may take it. A room still waiting for its match
is listed again with its seats (:meth:`Table.waiting`). What neither the match's state nor the
hand's log holds (the item cards and 叫马 asked for the next deal, the golden fingers shown during
a hand or before the first match) is kept with the room's metadata (:meth:`Table.pending_meta`)
and asked again for after a restart.

A room nobody is connected to closes (:meth:`Table._idle_timeout`): at once when it waits for its
match and no person holds a seat in it; after ``waiting_room_timeout`` while it waits for its match,
counted from its creation or from when the last connection left it (a wall-clock time kept with its
seats, so a restart does not start it again), when its match is over, or between hands with no
person left in it; else, a match between hands with people in it, after ``room_idle_timeout``.

Long: the room's one task and every client request it handles (join, sit, leave, start,
ready, trustee, action, hint), each a few lines over the same state in the same order; its
restart and idle rules sit with them because they decide what the requests find.

Server to client messages (``docs/protocol.md`` lists every field):

- ``hello``: who you are here (``seat`` or ``null`` for a spectator) and the timeouts.
- ``room``: the room, its seats (names, bot or person, connected, 托管, coins, points).
- ``state``: ``version``, ``hand_no``, your ``view`` (only what your seat may see), the new
  ``events`` (``reset: true`` when they start from the beginning of the hand) and ``timer``.
- ``hand_end``: winners and ledger lines in the connection's language (``text``), the settlement
  explained (``explain``), points, fees and coins moved.
- ``match_end``: the match's totals. ``ok``: a client message was done (``for`` its type).
- ``error``: ``code``, ``message`` and ``for``; nothing changed.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Callable
from typing import Any, ClassVar

from .. import i18n
from ..engine import views
from ..engine.views import SeatView
from ..errors import IllegalActionError, XuezhanError
from ..hints import hint_json
from ..ids import ErrorCode
from ..match import TIERS, ItemKind, RoomConfig, Tier
from ..match.items import BEFORE_DEAL
from ..runtime import HandDriver
from ..tiles import tile_name
from .bank import Account, Bank, RunningMatch, WaitingRoom, is_bot
from .config import ServerConfig
from .conn import Conn, Inbound
from .items import ItemRequest, card_name, dealt_with, golden_key, parse_item, spend_key
from .journal import LogWriter, logged_entries
from .outbound import DiscardPause
from .play import ACTION_STEPS, TablePlay, counted_actions, hand_version
from .protocol import (
    ClientMessage,
    ProtocolError,
    error_message,
    parse_action,
)
from .status import Status as Status

log = logging.getLogger("xuezhan.server")


class Table(TablePlay):
    """A room: its seats, its match and the hand being played; its task, inbox and clients' requests."""

    by_server: ClassVar[bool] = False
    """A table the server opened (the queue's, a tournament's): it never counts against its owner's
    ``max_open_rooms_per_account``."""

    def __init__(
        self,
        code: str,
        name: str,
        room: RoomConfig,
        owner: Account,
        bank: Bank,
        config: ServerConfig,
        *,
        public: bool = True,
        autostart: bool = False,
        on_close: Callable[[Table], None] | None = None,
        writer: LogWriter | None = None,
        tier: Tier | None = None,
    ) -> None:
        super().__init__(code, name, room, owner, bank, config, public=public, autostart=autostart, writer=writer,
                         tier=tier)
        self.on_close = on_close
        self.task: asyncio.Task[None] | None = None
        self._idle_since = 0.0
        self._attended = False  # someone was connected when the room last looked
        self.waiting_since: float | None = time.time()
        """While the room waits for its match: since when (wall clock, seconds since the epoch) nobody
        has been connected to it (``None`` while someone is), kept with its seats for a restart."""
        self._kept: dict[str, Any] = {}
        """The :meth:`pending_meta` last saved with the room's metadata."""

    # --- outside: the manager and the websocket endpoint ----------------------------------------------
    def start_task(self) -> None:
        now = asyncio.get_running_loop().time()
        self._idle_since = now
        if self.status is Status.WAITING and self.waiting_since is not None:  # the wait so far counts
            self._idle_since = now - max(0.0, time.time() - self.waiting_since)
        self.task = asyncio.create_task(self.run(), name=f"table-{self.code}")

    def join(self, conn: Conn) -> None:
        self.inbox.put_nowait(Inbound("join", conn))

    def gone(self, conn: Conn) -> None:
        self.inbox.put_nowait(Inbound("gone", conn))

    def message(self, conn: Conn, msg: ClientMessage) -> None:
        self.inbox.put_nowait(Inbound("msg", conn, msg))

    def meta(self) -> dict[str, Any]:
        """What the database keeps of the room beside its rules, to list it again after a restart:
        while it waits for its match, its ``seats`` and ``waiting_since`` too; ``closed`` once it closed
        waiting; ``autostart`` while a quick table waits for its owner's page to start its match."""
        meta: dict[str, Any] = {"name": self.name, "owner": self.owner,
                                "owner_name": self.names.get(self.owner, self.owner), "public": self.public,
                                "tier": self.tier.id if self.tier is not None else None}
        if self.status is Status.WAITING:
            meta["seats"] = list(self.players)
            meta["waiting_since"] = None if self.waiting_since is None else round(self.waiting_since, 3)
            if self.autostart:
                meta["autostart"] = True
        elif self.status is Status.CLOSED and self.match is None:
            meta["closed"] = True
        return {**meta, **self.pending_meta()}

    def pending_meta(self) -> dict[str, Any]:
        """What a restart must not forget that neither the match's state nor the hand's log holds,
        each part only when there is something in it, tagged with its match (``""`` before the
        first) and hand so that a restart takes it only where it still applies:
        ``next_deal: {"match", "hand", "items": [{"player", "kind", "suit"}], "jiao_ma": [player]}``
        (asked for hand ``hand``, not yet dealt) and ``golden_fingers: {"match", "hand", "players"}``
        (who shows one while hand ``hand`` is played, or before the first match)."""
        match = self.match
        key = self.match_key if match is not None else ""
        settled = match.hands_played if match is not None else 0
        out: dict[str, Any] = {}
        items, asked = self.items.pending_json(), self.jiao_ma.pending_json()
        if items or asked:
            out["next_deal"] = {"match": key, "hand": settled + 1, "items": items, "jiao_ma": asked}
        if match is None or self.status is Status.PLAYING:  # between hands the match's state holds them
            golden = sorted(p for p in self.golden_fingers() if p in self.players)
            if golden:
                out["golden_fingers"] = {"match": key, "hand": self.hand_no(), "players": golden}
        return out

    async def keep_requests(self) -> None:
        """Save the room's metadata when :meth:`pending_meta` changed since it was last saved."""
        if self.pending_meta() != self._kept:
            await self._save_room()

    def take_pending(self, meta: dict[str, Any], running: RunningMatch | None, accounts: dict[str, Account]) -> None:
        """After a restart: ask again for what :meth:`pending_meta` kept where it still applies (the
        requests for the next deal when it was not dealt; the golden fingers of the hand in play, or
        of the room before its first match). A match's own state stands for the rest."""
        match = running.match if running is not None else None
        key = running.key if running is not None else ""
        settled = match.hands_played if match is not None else 0
        deal = meta.get("next_deal")
        asked_in = deal.get("match") if isinstance(deal, dict) else None  # "" asked in the waiting room
        if isinstance(deal, dict) and deal.get("hand") == settled + 1 and (running is None or running.hand is None) \
                and (asked_in == key or (asked_in == "" and settled == 0)):
            self.items.take_pending(deal.get("items"), self.players)
            self.jiao_ma.take_pending(deal.get("jiao_ma"), accounts)
        golden = meta.get("golden_fingers")
        if not isinstance(golden, dict) or not isinstance(golden.get("players"), list):
            return
        shown = {p for p in golden["players"] if isinstance(p, str) and p in self.players and p not in self.left}
        if match is None and golden.get("match") == "":
            self.items.golden = shown
        elif match is not None and running is not None and running.hand is not None \
                and golden.get("match") == key and golden.get("hand") == running.hand.hand_no:
            match.golden_fingers = shown  # newer than the match's state, saved before the hand
        self._kept = self.pending_meta()

    async def _save_room(self) -> None:
        """Keep the room's metadata for a restart: the waiting room's seats (or that it closed)
        (:meth:`waiting`), and :meth:`pending_meta`."""
        meta = self.meta()
        try:
            await asyncio.to_thread(self.bank.save_room, self.code, meta)
        except Exception:  # the seats are saved again with the next change
            log.exception("table %s: saving the room failed", self.code)
            return
        self._kept = {k: meta[k] for k in ("next_deal", "golden_fingers") if k in meta}

    def summary(self) -> dict[str, Any]:
        """The room as the lobby lists it (no secrets beyond the code of a public room)."""
        return {
            "code": self.code,
            "name": self.name,
            "tier": self.tier.id if self.tier is not None else None,
            "status": str(self.status),
            "rules": self.room.rules.preset_name,
            "options": self.room.rules.to_mapping()["options"],
            "coefficient": self.room.coefficient,
            "fee": self.room.fee,
            "hands": self.room.hands,
            "hand_no": self.hand_no(),
            "seats": [self.out.seat_json(i, brief=True) for i in range(4)],
            "spectators": sum(1 for c in self.conns if c.seat is None),
            **({"items": True} if self.room.items_allowed else {}),
        }

    # --- after a restart -------------------------------------------------------------------------------
    @classmethod
    def restore(
        cls,
        running: RunningMatch,
        bank: Bank,
        config: ServerConfig,
        accounts: dict[str, Account],
        *,
        on_close: Callable[[Table], None] | None = None,
        writer: LogWriter | None = None,
    ) -> Table:
        """The table of a match the database says is running, carried on from its log: the hand in
        progress replayed to its last applied action (nobody in 托管: each person's open decision
        gets its time again, at least ``restart_grace``, :meth:`run`), or the match between hands.
        Raises :class:`XuezhanError` if the log does not fit the match."""
        meta = running.meta or {}
        owner_name = str(meta.get("owner") or next((p for p in running.match.seats if p), "bot:1"))
        owner = accounts.get(owner_name) or Account(owner_name, str(meta.get("owner_name") or owner_name), 0)
        tier_id = meta.get("tier")
        room_tier = next((t for t in TIERS if t.id == tier_id), None)
        table = cls(running.room_code, str(meta.get("name") or running.room_code), running.room, owner, bank,
                    config, public=bool(meta.get("public", True)), on_close=on_close, writer=writer, tier=room_tier)
        table.resume(running, accounts)
        table.take_pending(meta, running, accounts)
        return table

    @classmethod
    def waiting(
        cls,
        waiting: WaitingRoom,
        bank: Bank,
        config: ServerConfig,
        accounts: dict[str, Account],
        *,
        on_close: Callable[[Table], None] | None = None,
        writer: LogWriter | None = None,
    ) -> Table | None:
        """The table of a room that was waiting for its match when the server stopped, with the
        seats it had and its wait so far (from ``waiting_since``; a room someone was connected to
        waits from now); ``None`` for a room that closed (nobody came, :meth:`_check_idle`). A room
        whose time ran out while the server was down is :meth:`waited_out`. A quick table whose
        owner's page had not come yet still starts its match when it comes (``autostart``)."""
        meta = waiting.meta
        if meta.get("closed"):
            return None
        owner_name = str(meta.get("owner") or "")
        owner = accounts.get(owner_name)
        if owner is None:
            return None
        seats = meta.get("seats")
        players = [p if isinstance(p, str) and p in accounts else None for p in seats] if isinstance(seats, list) \
            else [owner.player]
        tier_id = meta.get("tier")
        table = cls(waiting.code, str(meta.get("name") or waiting.code), waiting.room, owner, bank, config,
                    public=bool(meta.get("public", True)), autostart=meta.get("autostart") is True,
                    on_close=on_close, writer=writer, tier=next((t for t in TIERS if t.id == tier_id), None))
        table.players = (players + [None] * 4)[:4]
        since = meta.get("waiting_since")
        if isinstance(since, int | float) and not isinstance(since, bool) and math.isfinite(since):
            table.waiting_since = min(float(since), table.waiting_since or math.inf)
        for player in filter(None, table.players):
            table.names[player] = accounts[player].nickname
            table.balances[player] = accounts[player].balance
        table.take_pending(meta, None, accounts)
        return table

    def resume(self, running: RunningMatch, accounts: dict[str, Account]) -> None:
        """Take up ``running`` (see :meth:`restore`)."""
        match = running.match
        self.players = list(match.seats)
        for player in match.people:
            account = accounts.get(player)
            if account is not None:
                self.names[player] = account.nickname
                self.balances[player] = account.balance
        self.runtime = self._new_runtime(match, running.key)
        logged = running.hand
        if logged is None:
            self.status = Status.FINISHED if match.finished else Status.BETWEEN
            return
        if list(logged.start.get("seating", match.seats)) != list(match.seats):
            raise XuezhanError(ErrorCode.LOG_MISMATCH, f"hand {logged.hand_no} was dealt to other seats")
        if logged.hand_no != match.hands_played + 1:
            raise XuezhanError(ErrorCode.LOG_MISMATCH, f"hand {logged.hand_no} is not the match's next hand")
        entries, stand_in = logged_entries(logged.actions)
        self.jiao_ma.resume(logged.start, accounts)  # the hand's bystanders, as its log names them
        self.runtime.resume_hand(logged.seed, entries, stand_in=stand_in, **dealt_with(logged.start))
        actions = self.runtime.driver.game.actions if self.runtime.driver is not None else ()
        # its first change shown (run) takes the last version of its last action's: above every one shown before
        self.version = hand_version(running.key, logged.hand_no, counted_actions(actions)) + ACTION_STEPS - 2
        self._shown = self.runtime.hand
        self.hand_key = 1
        self.status = Status.PLAYING
        game = self.runtime.hand.game if self.runtime.hand is not None else None
        assert game is not None
        window = game.claim_window
        if window is not None:  # those outside it see the table as before it opened, until it closes
            self.pause = DiscardPause(views.window_hidden(game), 0.0, window.opened_at)
        for seat, sitting in enumerate(self.players):
            if sitting is None:
                continue
            if game.seat_state(seat).escaped:
                self.left.add(sitting)
                match.golden_fingers.discard(sitting)  # it left the table with its escape

    # --- the task ----------------------------------------------------------------------------------------
    async def _receive(self, timeout: float | None) -> Inbound | None:
        """The next message of the inbox, waiting for one ``timeout`` seconds at most (``None``: as long
        as it takes); ``None`` if none came. :attr:`receiving` is true while it waits."""
        if timeout is not None and timeout <= 0:
            return self.inbox.get_nowait() if not self.inbox.empty() else None
        self.receiving = True
        try:
            if timeout is None:
                return await self.inbox.get()
            try:  # not asyncio.wait_for: on Python 3.11 it loses a cancellation that comes with an item
                async with asyncio.timeout(timeout):
                    return await self.inbox.get()
            except TimeoutError:
                return None
        finally:
            self.receiving = False

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            if self.status is Status.PLAYING:  # a restored hand: its timers start again, people's not too soon
                self.pacer.not_before = self.now() + self.config.restart_grace
                self._show()
            while self.status is not Status.CLOSED:
                wake = self._next_wakeup()
                item = await self._receive(None if wake is None else max(0.0, wake - loop.time()))
                if item is not None:
                    try:
                        await self._handle(item)
                    except Exception:  # one bad message must not stop the table
                        log.exception("table %s: handling %s failed", self.code, item.kind)
                        item.conn.send(error_message(ErrorCode.SERVER_ERROR,
                                                     "the server could not handle that message"))
                try:
                    await self._advance()
                except Exception:
                    log.exception("table %s: advancing failed", self.code)
                    await asyncio.sleep(0.05)
                await self.keep_requests()  # a request withdrawn, spent at a deal, a golden finger gone
                await self._check_idle(loop.time())
        except asyncio.CancelledError:
            raise
        finally:
            self.status = Status.CLOSED
            for conn in list(self.conns):
                conn.close(1001)
            if self.on_close is not None:
                self.on_close(self)

    def waited_out(self, wall: float) -> bool:
        """Whether this waiting room, nobody connected to it, is past its time at wall-clock ``wall``
        (:meth:`_idle_timeout`): after a restart it is closed rather than opened again."""
        return (self.status is Status.WAITING and self.waiting_since is not None
                and wall - self.waiting_since >= self._idle_timeout())

    async def close_waiting(self) -> None:
        """Close this waiting room for good: it stays closed after a restart."""
        self.status = Status.CLOSED
        await self._save_room()

    def _idle_timeout(self) -> float:
        """How long the room stays open with nobody connected to it: no time at all for a waiting
        room in which no person holds a seat (its owner walked out); the shorter of
        ``waiting_room_timeout`` and ``room_idle_timeout`` while it waits for its match, when its
        match is over, or between hands with no person left in the match (a spectator may still
        come for the last hand's end); else (people's match between hands) ``room_idle_timeout``."""
        config = self.config
        nobody = all(p is None or is_bot(p) for p in self.players)
        if self.status is Status.WAITING and nobody:
            return 0.0
        if self.status in (Status.WAITING, Status.FINISHED) or (self.status is Status.BETWEEN and nobody):
            return min(config.waiting_room_timeout, config.room_idle_timeout)
        return config.room_idle_timeout

    def _next_wakeup(self) -> float | None:
        times: list[float] = []
        if self.log_failing:
            return self._log_retry_at
        driver = self.driver
        pause = self.pause
        if self.status is Status.PLAYING and driver is not None:
            if pause is not None and not pause.window_open(driver.game):
                times.append(pause.until)  # nothing moves before the discard pause ends
            else:
                wake = self.pacer.next_due(driver)
                if wake is not None:
                    times.append(wake)
                if driver.game.over:
                    times.append(0.0)
        elif self.status is Status.BETWEEN and self._humans_connected():
            times.append(self.next_hand_at)
        if not self.conns:
            times.append(self._idle_since + self._idle_timeout())
        return min(times) if times else None

    async def _check_idle(self, now: float) -> None:
        if self.status is Status.WAITING and bool(self.conns) == (self.waiting_since is not None):
            # the first connection came, or the last one left: the room's wait, kept for a restart
            self.waiting_since = None if self.conns else time.time()
            await self._save_room()
        if self.conns:
            self._idle_since = now
            self._attended = True
            return
        if self._attended:  # the last connection just left: the room is idle from now
            self._attended = False
            self._idle_since = now
        if self.status is Status.PLAYING:
            return  # the bots finish the hand first, so its coins are settled
        if now - self._idle_since >= self._idle_timeout():
            if self.status is Status.WAITING:
                await self.close_waiting()
                return
            if self.status is Status.BETWEEN and self.match_key:
                try:  # nobody came back: the match ends here, and is not carried on after a restart
                    await asyncio.to_thread(self.bank.end_match, self.match_key, "finished")
                except Exception:
                    log.exception("table %s: ending the match failed", self.code)
            self.status = Status.CLOSED

    # --- inbound ---------------------------------------------------------------------------------------------
    async def _handle(self, item: Inbound) -> None:
        conn = item.conn
        if item.kind == "join":
            await self._on_join(conn)
        elif item.kind == "gone":
            self._on_gone(conn)
        elif item.msg is not None and conn in self.conns:
            await self._on_message(conn, item.msg)

    async def _on_join(self, conn: Conn) -> None:
        if conn.closed:
            return
        if conn.seat is None and not self._has_room_for(conn):
            conn.send(error_message(ErrorCode.ROOM_FULL, "too many spectators in this room"))
            conn.close(1008)
            return
        self.conns.add(conn)
        player = conn.account.player
        self.names.setdefault(player, conn.account.nickname)
        self.balances[player] = conn.account.balance
        seat = self._seat_of(player)
        if seat is not None and not conn.watch:
            old = self.seat_conn.get(seat)
            if old is not None and old is not conn:
                old.send(error_message(ErrorCode.REPLACED, "this seat was opened in another window"))
                old.seat = None
                old.close(4000)
                self.conns.discard(old)
            self.seat_conn[seat] = conn
            conn.seat = seat
            if self.trustee(seat):
                self._set_trustee(seat, False)
        conn.send(self.out.hello(conn))
        conn.send(self.out.room_message(conn.lang))
        if self.hand is not None:
            conn.hand_key = -1  # the whole hand's events again: the exact table back
            missed = self.missed_json(conn) if conn.seat is not None else None
            self.out.send_state(conn, missed=missed or None)
            self.jiao_ma.tell(conn)
        if self.status is Status.BETWEEN and self.last_hand_end is not None:
            conn.send(self.out.hand_end_for(conn))
        if self.status is Status.FINISHED and self.last_match_end is not None:
            if self.last_hand_end is not None:
                conn.send(self.out.hand_end_for(conn))
            conn.send(self.last_match_end[conn.lang])
        self.out.broadcast_room(exclude=conn)
        if self.autostart and self.status is Status.WAITING and conn.seat is not None:
            self.autostart = False
            await self._start_match()

    def _has_room_for(self, conn: Conn) -> bool:
        if self._seat_of(conn.account.player) is not None and not conn.watch:
            return True
        return sum(1 for c in self.conns if c.seat is None) < self.config.max_spectators

    def _on_gone(self, conn: Conn) -> None:
        if conn not in self.conns:
            return
        self.conns.discard(conn)
        seat = conn.seat
        if seat is not None and self.seat_conn.get(seat) is conn:
            del self.seat_conn[seat]  # the seat's clocks run on: nothing is played for it before they run out
            self.ready.discard(seat)
        self.jiao_ma.gone(conn)
        self.out.broadcast_room()

    async def _on_message(self, conn: Conn, msg: ClientMessage) -> None:
        kind = msg.type
        if kind == "ping":
            conn.send({"type": "pong"})
        elif kind == "action":
            await self._on_action(conn, msg.data)
        elif kind == "sit":
            await self._on_sit(conn, msg.data.get("seat"), accept_risk=msg.data.get("accept_risk") is True)
        elif kind == "leave":
            await self._on_leave(conn)
        elif kind == "start":
            await self._on_start(conn)
        elif kind == "ready":
            self._on_ready(conn)
        elif kind == "trustee":
            self._on_trustee(conn, bool(msg.data["on"]))
        elif kind == "hint":
            await self._on_hint(conn)
        elif kind == "jiao_ma" and await self.jiao_ma.ask(conn):
            self.out.broadcast_room()
        elif kind == "item":
            await self.on_item_message(conn, msg.data)

    def _seated_in_hand(self, conn: Conn, kind: str) -> tuple[int, HandDriver] | None:
        """The connection's seat and the hand being played, or ``None`` after refusing ``kind``
        (``not_seated`` for a spectator, ``no_hand`` between hands)."""
        seat = conn.seat
        if seat is None:
            self._refuse(conn, kind, ErrorCode.NOT_SEATED, "spectators cannot do that")
            return None
        driver = self.driver
        if self.status is not Status.PLAYING or driver is None:
            self._refuse(conn, kind, ErrorCode.NO_HAND, "no hand is being played")
            return None
        return seat, driver

    async def _on_action(self, conn: Conn, data: dict[str, Any]) -> None:
        seated = self._seated_in_hand(conn, "action")
        if seated is None:
            return
        seat, driver = seated
        try:
            action = parse_action(data["action"], seat)
        except ProtocolError as exc:
            self._refuse(conn, "action", exc.code, exc.message)
            return
        if self.out.paused_for(seat):  # what follows a discard is nobody's to act on before it is shown
            self._refuse(conn, "action", ErrorCode.NOT_YOUR_TURN, f"illegal action: {action}")
            return
        version = data["version"]
        if seat in driver.game.pending() and version < self.pacer.since.get(seat, 0):
            self._refuse(conn, "action", ErrorCode.STALE, "the table has moved on since you chose that")
            return
        if self.log_failing:
            self._refuse(conn, "action", ErrorCode.DATABASE_ERROR, "the table waits for the database; try again soon")
            return
        shown = self._after_discard(driver, action)
        try:
            driver.submit(action)
        except IllegalActionError as exc:
            self._refuse(conn, "action", exc.code, exc.message)
            return
        if not await self._flush():
            self._ok(conn, "action")  # applied: shown when it is logged
            return
        self.pacer.answered(self.seat_owner(seat))
        if self.trustee(seat):
            self._set_trustee(seat, False)  # the player is back
            self.out.broadcast_room()
        self._ok(conn, "action")
        self._discarded(shown)

    # --- item cards (docs/rules.md §13, :mod:`xuezhan.server.items`) ---------------------------------------
    async def on_item_message(self, conn: Conn, data: dict[str, Any]) -> None:
        """A client's ``item`` message: a card of the deal kept for the next one, or a card of the
        hand checked, spent, used, logged and shown; every refusal names the card."""
        try:
            req = parse_item(data)
        except ProtocolError as exc:
            self._refuse(conn, "item", exc.code, exc.message)
            return
        card = card_name(req.kind, conn)
        try:
            if conn.seat is None:
                raise XuezhanError(ErrorCode.NOT_SEATED, "spectators use no item cards")
            if not self.room.items_allowed:
                raise XuezhanError(ErrorCode.ITEMS_NOT_ALLOWED, "this room does not allow item cards")
            if req.kind is ItemKind.GOLDEN_FINGER:
                await self._golden_finger(conn)
            elif req.kind in BEFORE_DEAL:
                await self._item_for_the_deal(conn, req)
            else:
                await self._item_in_the_hand(conn, conn.seat, req)
        except XuezhanError as exc:
            self._refuse(conn, "item", exc.code, exc.message, card=card)

    async def _item_for_the_deal(self, conn: Conn, req: ItemRequest) -> None:
        if self.status is Status.PLAYING or self.status is Status.CLOSED:
            raise XuezhanError(ErrorCode.NOT_NOW, f"a {req.kind} card is used before a hand is dealt")
        player = conn.account.player
        if req.kind in self.items.next_deal.get(player, {}):
            raise XuezhanError(ErrorCode.ITEM_USED, f"a {req.kind} card is asked for this deal already")
        owned: dict[str, int] = await self._write(self.bank.items, player)
        if owned.get(str(req.kind), 0) < 1:
            raise XuezhanError(ErrorCode.NO_ITEM, f"you hold no {req.kind} card")
        self.items.ask(player, req)  # spent at the deal
        await self.keep_requests()  # kept for a restart before it is answered
        self._ok(conn, "item")
        self.out.broadcast_room()

    async def _golden_finger(self, conn: Conn) -> None:
        """金手指: spent once, shown (``room.items.golden_fingers``) until the player leaves the seat;
        kept for a restart by the match's state between hands, else by the room's metadata."""
        player = conn.account.player
        if self.status is Status.CLOSED:
            raise XuezhanError(ErrorCode.NOT_NOW, "this room is closed")
        golden = self.golden_fingers()
        if player in golden:
            raise XuezhanError(ErrorCode.ITEM_USED, "your golden finger shows already")
        match = self.match
        in_match = match is not None and self.status is not Status.FINISHED
        await self._write(self.bank.spend_item, player, str(ItemKind.GOLDEN_FINGER), golden_key(self.code, player))
        if in_match:
            assert match is not None
            match.use_golden_finger(player)  # the seat is the match's: it cannot fail
        else:
            golden.add(player)  # before the first match, or after the last (the next carries it on)
        if self.status is Status.BETWEEN:
            await self._save_match()
        await self.keep_requests()
        self._ok(conn, "item")
        self.out.broadcast_room()

    def _golden_gone(self, player: str) -> None:
        """The player left its seat: its golden finger shows no more."""
        self.golden_fingers().discard(player)

    async def _item_in_the_hand(self, conn: Conn, seat: int, req: ItemRequest) -> None:
        driver, hand = self.driver, self.runtime.hand if self.runtime is not None else None
        # never in a discard pause: a card used then would tell that its seat may claim the discard
        if self.status is not Status.PLAYING or driver is None or hand is None or driver.over \
                or self.pause is not None:
            raise XuezhanError(ErrorCode.NOT_NOW, f"a {req.kind} card is used while a hand is played")
        if seat in driver.game.pending() and req.version < self.pacer.since.get(seat, 0):
            raise XuezhanError(ErrorCode.STALE, "the table has moved on since you chose that")
        if self.log_failing:
            raise XuezhanError(ErrorCode.DATABASE_ERROR, "the table waits for the database; try again soon")
        hand.check_item(seat, req.kind, req.tile, req.wanted)
        player = conn.account.player
        await self._write(self.bank.spend_item, player, str(req.kind),
                          spend_key(self.match_key, hand.hand_no, player, req.kind))
        use = hand.use_item(seat, req.kind, req.tile, req.wanted)  # checked above: it cannot fail now
        shown = await self._flush()
        self._ok(conn, "item")  # used; shown once it is logged
        if not shown:
            return
        if use.kind is ItemKind.SEEK and use.tile is not None and use.quarters is not None:
            conn.send({"type": "seek", "tile": tile_name(use.tile), "quarters": list(use.quarters)})
        self._changed()  # everyone's state: a swap's effect for the seat, the card's kind for the others

    async def _on_hint(self, conn: Conn) -> None:
        """The advisor's ranking of the seat's choices, from its own view only (:mod:`xuezhan.hints`),
        worked out on a worker thread (as a bot's choice is): the other tables go on meanwhile, and
        this one waits, so the game it reads holds still."""
        seated = self._seated_in_hand(conn, "hint")
        if seated is None:
            return
        seat, _ = seated
        game = self.out.shown_game(seat)  # in the discard pause, nothing of what follows it
        assert game is not None
        hint = await asyncio.to_thread(hint_json, SeatView(game, seat), game.legal_actions(seat), conn.lang)
        conn.send({**hint, "for": "hint"})

    def _on_trustee(self, conn: Conn, on: bool) -> None:
        seat = conn.seat
        if seat is None:
            self._refuse(conn, "trustee", ErrorCode.NOT_SEATED, "you hold no seat at this table")
            return
        self._set_trustee(seat, on)
        self._ok(conn, "trustee")
        self.out.broadcast_room()
        self.out.broadcast_state()

    async def _on_sit(self, conn: Conn, wanted: int | None, *, accept_risk: bool = False) -> None:
        player = conn.account.player
        if player in self.left:
            self._refuse(conn, "sit", ErrorCode.HAND_IN_PROGRESS, "you left this hand: sit again when it is over")
            return
        if self._seat_of(player) is not None:
            if conn.seat is None:  # a window of a seated player that came to watch takes the seat
                conn.watch = False
                self.conns.discard(conn)
                await self._on_join(conn)
                self._ok(conn, "sit")
            else:
                self._refuse(conn, "sit", ErrorCode.ALREADY_SEATED, f"you already sit at seat {conn.seat}")
            return
        if self.status is Status.PLAYING:
            self._refuse(conn, "sit", ErrorCode.HAND_IN_PROGRESS, "seats change between hands")
            return
        if self.status is Status.CLOSED:
            self._refuse(conn, "sit", ErrorCode.ROOM_CLOSED, "this room is closed")
            return
        balance = self.balances.get(player, 0)
        if not self._can_afford(conn, balance, accept_risk):
            return
        free = [i for i in range(4) if self._sittable(i)]
        if wanted is not None:
            if wanted not in free:
                self._refuse(conn, "sit", ErrorCode.SEAT_TAKEN, f"seat {wanted} is taken")
                return
            seat = wanted
        elif free:
            seat = free[0]
        else:
            self._refuse(conn, "sit", ErrorCode.TABLE_FULL, "every seat is taken by a person")
            return
        await self._put_in_seat(seat, player)
        if self.status is Status.WAITING:
            await self._save_room()
        self.seat_conn[seat] = conn
        conn.seat = seat
        conn.watch = False
        conn.send(self.out.hello(conn))
        self._ok(conn, "sit")
        self.out.broadcast_room()
        if self.hand is not None:
            conn.hand_key = -1
            self.out.send_state(conn)

    def _can_afford(self, conn: Conn, balance: int, accept_risk: bool) -> bool:
        """The stake check of a seat (as the lobby's, :func:`xuezhan.server.app.stake_check`): refuse
        ``insufficient_balance`` under the minimum, ``stake_warning`` when the worst hand costs more
        than the balance and the player has not accepted the risk."""
        t = self.tier
        if balance < self._min_balance():
            self._refuse_short(conn, balance)
            return False
        if t is not None and not accept_risk:
            tier_name = i18n.t(f"server.tier.{t.id}", conn.lang)
            worst = t.max_loss(self.room.rules)
            if balance < worst:
                self._refuse(conn, "sit", ErrorCode.STAKE_WARNING,
                             f"one hand here can cost up to {worst} coins; you have {balance}",
                             tier=tier_name, max_loss=worst, coins=balance, count=balance)
                return False
        return True

    def _sittable(self, seat: int) -> bool:
        occupant = self.players[seat]
        return occupant is None or is_bot(occupant)

    async def _put_in_seat(self, seat: int, player: str) -> None:
        occupant = self.players[seat]
        match = self.match
        if match is not None and self.status is Status.BETWEEN:
            if occupant is not None:
                match.leave(occupant)
            match.join(player)
            self._sync_players()
            await self._save_match()
        else:
            self.players[seat] = player

    async def _on_leave(self, conn: Conn) -> None:
        seat = conn.seat
        if seat is None:
            self._refuse(conn, "leave", ErrorCode.NOT_SEATED, "you hold no seat at this table")
            return
        player = conn.account.player
        driver = self.driver
        self._golden_gone(player)
        if self.status is Status.PLAYING and driver is not None:
            driver.escape(seat)  # 逃跑: the engine settles it (docs/rules.md §10)
            shown = await self._flush()
            self.left.add(player)  # the escaper leaves the match when the hand is settled
            self._set_trustee(seat, False)
            if shown:
                self._changed()
        elif self.match is not None and self.status is Status.BETWEEN:
            self.match.leave(player)
            self._fill_with_bots()
            await self._save_match()
        else:
            self.players[seat] = None
            if self.status is Status.WAITING:
                await self._save_room()
        del self.seat_conn[seat]
        self.ready.discard(seat)
        conn.seat = None
        conn.watch = True
        conn.send(self.out.hello(conn))
        self._ok(conn, "leave")
        self.out.broadcast_room()

    async def _on_start(self, conn: Conn) -> None:
        if conn.seat is None:
            self._refuse(conn, "start", ErrorCode.NOT_SEATED, "take a seat to start")
            return
        if self.status not in (Status.WAITING, Status.FINISHED):
            self._refuse(conn, "start", ErrorCode.ALREADY_STARTED, "the match is under way")
            return
        self._ok(conn, "start")
        await self._start_match()

    def _on_ready(self, conn: Conn) -> None:
        if conn.seat is None:
            self._refuse(conn, "ready", ErrorCode.NOT_SEATED, "you hold no seat at this table")
            return
        if self.status is Status.PLAYING:
            self._ok(conn, "ready")  # the next hand has started already
            return
        if self.status is not Status.BETWEEN:
            self._refuse(conn, "ready", ErrorCode.NOT_BETWEEN_HANDS, "ready is for the next hand, between hands")
            return
        self.ready.add(conn.seat)
        self._ok(conn, "ready")
        self.out.broadcast_room()
