"""One room's table: a single asyncio task owns the match, the hand and every timer.

Everything that changes a table goes through its inbox (joins, disconnects, client
messages) and is handled in order by :meth:`Table.run`, so no two changes ever
interleave. The match is played by the match runtime (:class:`~xuezhan.runtime.MatchRuntime`):
each seat is a :class:`~xuezhan.runtime.Seat` (a person or a bot; 托管 and time limits
are the seat's), and every decision goes through the runtime's
:class:`~xuezhan.runtime.HandDriver`, which numbers it for the hand's log
(:mod:`xuezhan.server.journal`), written to the database before anyone sees the change.
Time lives here, never in the engine or the runtime: a seated person has a deadline for
each decision and a bot (or a seat in 托管) acts after a short delay. The bot's decision
runs in a worker thread, so a slow search never stalls other tables.

A server started again on the same database rebuilds every running match
(:meth:`Table.restore`): the hand in progress is replayed from its log to its last
applied action and play goes on; people find their seats in 托管 until they reconnect.

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
import random
import secrets
from collections.abc import Callable
from typing import Any, Final, TypeVar

from .. import i18n
from ..bots import make_bot
from ..engine.actions import Action
from ..engine.views import SeatView
from ..errors import IllegalActionError, XuezhanError
from ..hints import hint_json
from ..i18n import LANGS, Lang
from ..match import TIERS, Hand, HandResult, Match, RoomConfig, Tier, seat_minimum
from ..runtime import Delays, HandDriver, MatchRuntime, Pacer, Seat, TimeLimits
from .bank import BOT_PLAYERS, Account, Bank, RunningMatch, Settled, is_bot
from .config import ServerConfig
from .conn import Conn, Inbound, dumps
from .journal import Journal, LogWriter
from .messages import hand_end_message, match_end_message
from .outbound import Outbound
from .protocol import (
    ClientMessage,
    ProtocolError,
    error_message,
    parse_action,
)
from .status import Status as Status
from .words import error_text

log = logging.getLogger("xuezhan.server")

T = TypeVar("T")

LOG_RETRY: Final = 0.5
"""Seconds between tries to write a hand's log while the database fails."""


def delays_of(config: ServerConfig) -> Delays:
    """The web table's pace: a bot's turn, 换三张 and 定缺 after ``bot_delay``, its claim answers after
    ``bot_claim_delay``."""
    return Delays(turn=config.bot_delay, claim=config.bot_claim_delay, choice=config.bot_delay)


class Table:
    """A room: its seats, its match and the hand being played."""

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
        self.code = code
        self.tier = tier
        """The room's tier (its stake and the balance needed to sit); ``None``: a room of its own stake."""
        self.writer = writer
        self.name = name
        self.room = room
        self.owner = owner.player
        self.bank = bank
        self.pacer = Pacer(delays_of(config))
        """The clocks of the hand's open decisions: bots' delays, people's time limits, 托管."""
        self.config = config
        self.public = public
        self.autostart = autostart
        self.on_close = on_close
        self.status = Status.WAITING
        self.players: list[str | None] = [owner.player, None, None, None]
        self.names: dict[str, str] = {owner.player: owner.nickname}
        """People's shown names by player (bots are named from the catalogs, in each reader's language)."""
        self.balances: dict[str, int] = {owner.player: owner.balance}
        self.runtime: MatchRuntime | None = None
        self._shown: Hand | None = None  # the hand in play, or the last one (its table stays in view)
        self.journal: Journal | None = None
        self.match_key = ""
        self.owners: dict[str, Seat] = {}  # who decides for each player: a person (with a stand-in bot) or a bot
        self.hand_key = 0  # increases with every hand dealt
        self.version = 0
        self.conns: set[Conn] = set()
        self.seat_conn: dict[int, Conn] = {}
        self.ready: set[int] = set()
        self.left: set[str] = set()  # people who escaped from the hand being played
        self.inbox: asyncio.Queue[Inbound] = asyncio.Queue()
        self.out = Outbound(self)
        self.next_hand_at = 0.0
        self._idle_since = 0.0
        self.last_hand_end: dict[Lang, dict[str, Any]] | None = None
        """The last ``hand_end``, in each language."""
        self.last_match_end: dict[Lang, dict[str, Any]] | None = None
        self.matches_started = 0
        self.task: asyncio.Task[None] | None = None
        self.hands_finished = 0
        self.timeouts = 0  # decisions a person let run out (the bot took them)
        self.log_failing = False  # the hand's log cannot be written: the table holds still
        self._log_retry_at = 0.0

    @property
    def config(self) -> ServerConfig:
        return self._config

    @config.setter
    def config(self, config: ServerConfig) -> None:
        """New settings; the pacer takes their delays from the next decision on."""
        self._config = config
        self.pacer.delays = delays_of(config)

    # --- the match and the hand, through the runtime ----------------------------------------------
    @property
    def match(self) -> Match | None:
        return self.runtime.match if self.runtime is not None else None

    @property
    def hand(self) -> Hand | None:
        """The hand in play, or the last one played (shown until the next is dealt)."""
        return self._shown

    @property
    def driver(self) -> HandDriver | None:
        return self.runtime.driver if self.runtime is not None else None

    def seat_owner(self, seat: int) -> Seat:
        """The :class:`Seat` of whoever sits at ``seat`` (a bot seat if it is empty)."""
        sitting = self.players[seat]
        player = f"empty:{seat}" if sitting is None else sitting  # no nickname holds a ':'
        owner = self.owners.get(player)
        if owner is None:
            c = self.config
            if sitting is None or is_bot(sitting):
                bot = make_bot(c.seat_bot or c.bot_name, random.Random(0), timeout=c.bot_timeout)
                owner = Seat.of_bot(bot, name=player)
            else:
                owner = Seat.of_person(player, stand_in=make_bot(c.bot_name, random.Random(0)),
                                       limits=TimeLimits(c.turn_timeout, c.claim_timeout, c.choice_timeout))
            self.owners[player] = owner
        return owner

    def _seats_for(self, hand: Hand) -> list[Seat]:
        return [self.seat_owner(s) for s in range(4)]

    def trustee(self, seat: int) -> bool:
        """The seat's person is in 托管: its bot decides."""
        owner = self.owners.get(self.players[seat] or "")
        return owner is not None and owner.is_person and owner.trustee

    @property
    def trustees(self) -> set[int]:
        return {s for s in range(4) if self.trustee(s)}

    def _new_runtime(self, match: Match, key: str) -> MatchRuntime:
        journal = Journal(self.bank, key, self.writer)
        self.journal = journal
        self.match_key = key
        return MatchRuntime(match, self._seats_for, on_start=journal.begin, on_action=journal.action)

    async def _write(self, fn: Callable[..., T], *args: Any) -> T:
        """A write of the table's match: on the hand logs' writer thread when there is one (one
        writer, no lock waits), else on a worker thread."""
        if self.writer is not None:
            return await self.writer.call(fn, *args)
        return await asyncio.to_thread(fn, *args)

    async def _flush(self) -> bool:
        """Write the hand's log; ``False`` while the database fails. Then the table holds still:
        what nobody could log is shown to nobody, no bot moves and people's actions are refused
        (``database_error``), until a retry (:meth:`_advance`) gets the log written."""
        if self.journal is None:
            return True
        ok = await self.journal.flush()
        if not ok and not self.log_failing:
            self.log_failing = True
            self._log_retry_at = self.now() + LOG_RETRY
            self._tell_all(error_message("database_error", "the table cannot record its moves; it waits for "
                                                              "the database"))
        elif not ok:
            self._log_retry_at = self.now() + LOG_RETRY
        elif self.log_failing:
            self.log_failing = False
        return ok

    # --- outside: the manager and the websocket endpoint ----------------------------------------------
    def start_task(self) -> None:
        self._idle_since = asyncio.get_running_loop().time()
        self.task = asyncio.create_task(self.run(), name=f"table-{self.code}")

    def join(self, conn: Conn) -> None:
        self.inbox.put_nowait(Inbound("join", conn))

    def gone(self, conn: Conn) -> None:
        self.inbox.put_nowait(Inbound("gone", conn))

    def message(self, conn: Conn, msg: ClientMessage) -> None:
        self.inbox.put_nowait(Inbound("msg", conn, msg))

    def hand_in_play(self) -> bool:
        return self.status is Status.PLAYING

    def meta(self) -> dict[str, Any]:
        """What the database keeps of the room beside its rules, to list it again after a restart."""
        return {"name": self.name, "owner": self.owner, "owner_name": self.names.get(self.owner, self.owner),
                "public": self.public, "tier": self.tier.id if self.tier is not None else None}

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
        progress replayed to its last applied action (its people in 托管 until they reconnect), or
        the match between hands. Raises :class:`XuezhanError` if the log does not fit the match."""
        meta = running.meta or {}
        owner_name = str(meta.get("owner") or next((p for p in running.match.seats if p), "bot:1"))
        owner = accounts.get(owner_name) or Account(owner_name, str(meta.get("owner_name") or owner_name), 0)
        tier_id = meta.get("tier")
        room_tier = next((t for t in TIERS if t.id == tier_id), None)
        table = cls(running.room_code, str(meta.get("name") or running.room_code), running.room, owner, bank,
                    config, public=bool(meta.get("public", True)), on_close=on_close, writer=writer, tier=room_tier)
        table.resume(running, accounts)
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
            raise XuezhanError("log_mismatch", f"hand {logged.hand_no} was dealt to other seats")
        if logged.hand_no != match.hands_played + 1:
            raise XuezhanError("log_mismatch", f"hand {logged.hand_no} is not the match's next hand")
        actions = [Action.from_json(a) for a in logged.actions]
        self.runtime.resume_hand(logged.seed, actions)
        self._shown = self.runtime.hand
        self.hand_key = 1
        self.status = Status.PLAYING
        game = self.runtime.hand.game if self.runtime.hand is not None else None
        assert game is not None
        for seat, sitting in enumerate(self.players):
            if sitting is None:
                continue
            if game.seat_state(seat).escaped:
                self.left.add(sitting)
            elif not is_bot(sitting):
                self.seat_owner(seat).trustee = True  # away until the person reconnects

    # --- the task ----------------------------------------------------------------------------------------
    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            if self.status is Status.PLAYING:
                self._changed()  # a restored hand: its timers start again
            while self.status is not Status.CLOSED:
                wake = self._next_wakeup()
                timeout = None if wake is None else max(0.0, wake - loop.time())
                item: Inbound | None
                if timeout is None:
                    item = await self.inbox.get()
                elif timeout <= 0:
                    item = self.inbox.get_nowait() if not self.inbox.empty() else None
                else:
                    try:
                        item = await asyncio.wait_for(self.inbox.get(), timeout)
                    except TimeoutError:
                        item = None
                if item is not None:
                    try:
                        await self._handle(item)
                    except Exception:  # one bad message must not stop the table
                        log.exception("table %s: handling %s failed", self.code, item.kind)
                        item.conn.send(error_message("server_error", "the server could not handle that message"))
                try:
                    await self._advance()
                except Exception:
                    log.exception("table %s: advancing failed", self.code)
                    await asyncio.sleep(0.05)
                await self._check_idle(loop.time())
        except asyncio.CancelledError:
            raise
        finally:
            self.status = Status.CLOSED
            for conn in list(self.conns):
                conn.close(1001)
            if self.on_close is not None:
                self.on_close(self)

    def now(self) -> float:
        return asyncio.get_running_loop().time()

    def _next_wakeup(self) -> float | None:
        times: list[float] = []
        if self.log_failing:
            return self._log_retry_at
        driver = self.driver
        if self.status is Status.PLAYING and driver is not None:
            wake = self.pacer.next_due(driver)
            if wake is not None:
                times.append(wake)
            if driver.game.over:
                times.append(0.0)
        elif self.status is Status.BETWEEN and self._humans_connected():
            times.append(self.next_hand_at)
        if not self.conns:
            times.append(self._idle_since + self.config.room_idle_timeout)
        return min(times) if times else None

    async def _check_idle(self, now: float) -> None:
        if self.conns:
            self._idle_since = now
            return
        if self.status is Status.PLAYING:
            return  # the bots finish the hand first, so its coins are settled
        if now - self._idle_since >= self.config.room_idle_timeout:
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
            conn.send(error_message("room_full", "too many spectators in this room"))
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
                old.send(error_message("replaced", "this seat was opened in another window"))
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
            self.out.send_state(conn)
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
            del self.seat_conn[seat]
            self.ready.discard(seat)
            if self.status is Status.PLAYING:
                self._set_trustee(seat, True)
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

    @staticmethod
    def _ok(conn: Conn, kind: str) -> None:
        conn.send({"type": "ok", "for": kind})

    @staticmethod
    def _refuse(conn: Conn, kind: str, code: str, message: str, **params: Any) -> None:
        """Answer ``kind`` with the error ``code``: the catalog's sentence in the connection's language
        (with ``params``), else the English ``message``."""
        conn.send({**error_message(code, error_text(code, conn.lang, message, **params)), "for": kind})

    def _seated_in_hand(self, conn: Conn, kind: str) -> tuple[int, HandDriver] | None:
        """The connection's seat and the hand being played, or ``None`` after refusing ``kind``
        (``not_seated`` for a spectator, ``no_hand`` between hands)."""
        seat = conn.seat
        if seat is None:
            self._refuse(conn, kind, "not_seated", "spectators cannot do that")
            return None
        driver = self.driver
        if self.status is not Status.PLAYING or driver is None:
            self._refuse(conn, kind, "no_hand", "no hand is being played")
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
        version = data["version"]
        if seat in driver.game.pending() and version < self.pacer.since.get(seat, 0):
            self._refuse(conn, "action", "stale", "the table has moved on since you chose that")
            return
        if self.log_failing:
            self._refuse(conn, "action", "database_error", "the table waits for the database; try again soon")
            return
        try:
            driver.submit(action)
        except IllegalActionError as exc:
            self._refuse(conn, "action", exc.code, exc.message)
            return
        if not await self._flush():
            self._ok(conn, "action")  # applied: shown when it is logged
            return
        if self.trustee(seat):
            self._set_trustee(seat, False)  # the player is back
            self.out.broadcast_room()
        self._ok(conn, "action")
        self._changed()

    async def _on_hint(self, conn: Conn) -> None:
        """The advisor's ranking of the seat's choices, from its own view only (:mod:`xuezhan.hints`),
        worked out on a worker thread (as a bot's choice is): the other tables go on meanwhile, and
        this one waits, so the game it reads holds still."""
        seated = self._seated_in_hand(conn, "hint")
        if seated is None:
            return
        seat, driver = seated
        game = driver.game
        hint = await asyncio.to_thread(hint_json, SeatView(game, seat), game.legal_actions(seat), conn.lang)
        conn.send({**hint, "for": "hint"})

    def _on_trustee(self, conn: Conn, on: bool) -> None:
        seat = conn.seat
        if seat is None:
            self._refuse(conn, "trustee", "not_seated", "you hold no seat at this table")
            return
        self._set_trustee(seat, on)
        self._ok(conn, "trustee")
        self.out.broadcast_room()
        self.out.broadcast_state()

    async def _on_sit(self, conn: Conn, wanted: int | None, *, accept_risk: bool = False) -> None:
        player = conn.account.player
        if player in self.left:
            self._refuse(conn, "sit", "hand_in_progress", "you left this hand: sit again when it is over")
            return
        if self._seat_of(player) is not None:
            if conn.seat is None:  # a window of a seated player that came to watch takes the seat
                conn.watch = False
                self.conns.discard(conn)
                await self._on_join(conn)
                self._ok(conn, "sit")
            else:
                self._refuse(conn, "sit", "already_seated", f"you already sit at seat {conn.seat}")
            return
        if self.status is Status.PLAYING:
            self._refuse(conn, "sit", "hand_in_progress", "seats change between hands")
            return
        if self.status is Status.CLOSED:
            self._refuse(conn, "sit", "room_closed", "this room is closed")
            return
        balance = self.balances.get(player, 0)
        if not self._can_afford(conn, balance, accept_risk):
            return
        free = [i for i in range(4) if self._sittable(i)]
        if wanted is not None:
            if wanted not in free:
                self._refuse(conn, "sit", "seat_taken", f"seat {wanted} is taken")
                return
            seat = wanted
        elif free:
            seat = free[0]
        else:
            self._refuse(conn, "sit", "table_full", "every seat is taken by a person")
            return
        await self._put_in_seat(seat, player)
        self.seat_conn[seat] = conn
        conn.seat = seat
        conn.watch = False
        conn.send(self.out.hello(conn))
        self._ok(conn, "sit")
        self.out.broadcast_room()
        if self.hand is not None:
            conn.hand_key = -1
            self.out.send_state(conn)

    def _min_balance(self) -> int:
        """The balance a seat here needs: the tier's minimum, else the room's fee (at least one coin)."""
        return seat_minimum(self.room, self.tier)

    def _refuse_short(self, conn: Conn, balance: int) -> None:
        need = self._min_balance()
        t = self.tier
        tier_name = i18n.t(f"server.tier.{t.id if t is not None else 'custom'}", conn.lang)
        self._refuse(conn, "sit", "insufficient_balance", f"this room needs at least {need} coins",
                     tier=tier_name, min_balance=need, coins=balance, count=balance)

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
                self._refuse(conn, "sit", "stake_warning", f"one hand here can cost up to {worst} coins; you have "
                             f"{balance}", tier=tier_name, max_loss=worst, coins=balance, count=balance)
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

    async def _save_match(self) -> None:
        if self.match is None:
            return
        try:
            await self._write(self.bank.save_match, self.match_key, self.match)
        except Exception:  # the match is saved again with its next hand
            log.exception("table %s: saving the match failed", self.code)

    def _sync_players(self) -> None:
        assert self.match is not None
        self.players = list(self.match.seats)

    async def _on_leave(self, conn: Conn) -> None:
        seat = conn.seat
        if seat is None:
            self._refuse(conn, "leave", "not_seated", "you hold no seat at this table")
            return
        player = conn.account.player
        driver = self.driver
        if self.status is Status.PLAYING and driver is not None:
            driver.escape(seat)  # 逃跑: the engine settles it (RULES 10)
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
        del self.seat_conn[seat]
        self.ready.discard(seat)
        conn.seat = None
        conn.watch = True
        conn.send(self.out.hello(conn))
        self._ok(conn, "leave")
        self.out.broadcast_room()

    async def _stand_up_the_short(self) -> None:
        """Between hands: a person whose balance fell under what a seat here needs
        (:meth:`_min_balance`) leaves the match, as by ``leave``; a bot takes the seat. The
        connection is told why (``insufficient_balance``) and watches on."""
        match = self.match
        if match is None or self.status is not Status.BETWEEN:
            return
        for player in self.players:  # coins may have moved elsewhere too (another table, relief)
            if player is not None and not is_bot(player):
                try:
                    account = await self._write(self.bank.account, player)
                except Exception:  # the balance the table knows stands; the next hand reads again
                    log.exception("table %s: reading %s's balance failed", self.code, player)
                    continue
                if account is not None:
                    self.balances[player] = account.balance
        short = [(seat, player) for seat, player in enumerate(self.players)
                 if player is not None and not is_bot(player) and self.balances.get(player, 0) < self._min_balance()]
        if not short:
            return
        for seat, player in short:
            match.leave(player)
            self.ready.discard(seat)
            conn = self.seat_conn.pop(seat, None)
            if conn is not None:
                self._refuse_short(conn, self.balances.get(player, 0))  # why, then where it is now
                conn.seat = None
                conn.watch = True
                conn.send(self.out.hello(conn))
        self._fill_with_bots()
        await self._save_match()
        self.out.broadcast_room()

    async def _on_start(self, conn: Conn) -> None:
        if conn.seat is None:
            self._refuse(conn, "start", "not_seated", "take a seat to start")
            return
        if self.status not in (Status.WAITING, Status.FINISHED):
            self._refuse(conn, "start", "already_started", "the match is under way")
            return
        self._ok(conn, "start")
        await self._start_match()

    def _on_ready(self, conn: Conn) -> None:
        if conn.seat is None:
            self._refuse(conn, "ready", "not_seated", "you hold no seat at this table")
            return
        if self.status is Status.PLAYING:
            self._ok(conn, "ready")  # the next hand has started already
            return
        if self.status is not Status.BETWEEN:
            self._refuse(conn, "ready", "not_between_hands", "ready is for the next hand, between hands")
            return
        self.ready.add(conn.seat)
        self._ok(conn, "ready")
        self.out.broadcast_room()

    # --- the match ------------------------------------------------------------------------------------------
    def _new_bot(self) -> str:
        taken = set(self.players) | (set(self.match.people) if self.match is not None else set())
        return next(b for b in BOT_PLAYERS if b not in taken)

    def _fill_with_bots(self) -> None:
        if self.match is not None and self.status is not Status.FINISHED:
            while None in self.match.seats:
                self.match.join(self._new_bot())
            self._sync_players()
        else:
            self.players = [p if p is not None else self._new_bot() for p in self.players]

    def _match_seed(self) -> int:
        """The seed of the next match: ``config.seed`` (then ``+1``, ``+2`` ...) when set, else random."""
        n = self.matches_started
        self.matches_started += 1
        if self.config.seed is not None:
            return (self.config.seed + n) & ((1 << 63) - 1)
        return secrets.randbits(63)

    async def _start_match(self) -> None:
        self.runtime = None
        self.journal = None
        self._shown = None
        for i in range(4):
            if self.players[i] is None:
                self.players[i] = self._new_bot()
        players = [p for p in self.players if p is not None]
        seed = self._match_seed()
        try:
            key, match = await self._write(self.bank.open_match, self.code, players, seed)
        except XuezhanError as exc:
            self._tell_all(error_message(exc.code, exc.message))
            return
        except Exception:
            log.exception("table %s: could not record the match", self.code)
            self._tell_all(error_message("database_error", "the match could not be started; try again"))
            return
        self.runtime = self._new_runtime(match, key)
        self.last_match_end = None
        self.last_hand_end = None
        await self._start_hand()

    def _tell_all(self, msg: dict[str, Any]) -> None:
        text = dumps(msg)
        for conn in list(self.conns):
            conn.send_text(text)

    async def _start_hand(self) -> None:
        assert self.runtime is not None
        self._fill_with_bots()
        for seat in range(4):
            owner = self.seat_owner(seat)
            # seated but away: the bot plays until the player comes back
            owner.trustee = owner.is_person and seat not in self.seat_conn
        self.runtime.start_hand()
        self._shown = self.runtime.hand
        logged = await self._flush()
        self.hand_key += 1
        self.status = Status.PLAYING
        self.ready.clear()
        self.last_hand_end = None
        self.pacer.clear()
        self.out.broadcast_room()
        if logged:
            self._changed()

    def hand_no(self) -> int:
        if self.match is None:
            return 0
        return self.match.hands_played + (1 if self.status is Status.PLAYING else 0)

    async def _finish_hand(self) -> None:
        assert self.runtime is not None and self.runtime.hand is not None
        if not await self._flush():
            return  # settled once its whole log is written
        game = self.runtime.hand.game
        result = self.runtime.finish_hand()
        match = self.runtime.match
        # from here on the hand is over whatever happens below: never finish it twice
        self.status = Status.FINISHED if match.finished else Status.BETWEEN
        self.next_hand_at = self.now() + self.config.next_hand_delay
        for owner in self.owners.values():
            owner.trustee = False
        self.left.clear()
        self._sync_players()
        settled = await self._settle(result)
        self.hands_finished += 1  # and settled (or given up on)
        if settled is None:
            # later hands could not be recorded either (the store takes them in order): stop here
            self.status = Status.FINISHED
        self.last_hand_end = {lang: hand_end_message(result, game, self.names, settled, self.room,
                                                     final=match.finished, lang=lang) for lang in LANGS}
        if self.status is Status.FINISHED:
            self.last_match_end = {lang: match_end_message(match, self.names, lang) for lang in LANGS}
        elif None in match.seats:
            self._fill_with_bots()
            await self._save_match()
        for conn in list(self.conns):
            if conn.seat is not None and self.players[conn.seat] != conn.account.player:
                conn.seat = None  # an escaper left the table with the hand
        self.seat_conn = {s: c for s, c in self.seat_conn.items() if c.seat == s}
        self.out.broadcast_room()
        for conn in list(self.conns):
            conn.send(self.out.hand_end_for(conn))
            if self.last_match_end is not None:
                conn.send(self.last_match_end[conn.lang])

    async def _settle(self, result: HandResult) -> Settled | None:
        assert self.match is not None
        for attempt in range(4):
            try:
                settled = await self._write(self.bank.settle_hand, self.match_key, result, self.match)
            except Exception:
                log.exception("table %s: settling hand %d failed (attempt %d)", self.code, result.hand_no,
                              attempt + 1)
                await asyncio.sleep(0.05 * 2**attempt)
                continue
            for player, balance in zip(result.participants, settled.balances, strict=False):
                if balance is not None:
                    self.balances[player] = balance
            return settled
        for conn in list(self.conns):
            conn.send(error_message("settlement_failed", "the coins of this hand could not be recorded yet"))
        return None

    # --- timers, bots and 托管 --------------------------------------------------------------------------------
    def bot_controls(self, seat: int) -> bool:
        return self.seat_owner(seat).automatic

    def _set_trustee(self, seat: int, on: bool) -> None:
        """托管 on or off for the person at ``seat`` (the pacer's rule: :meth:`Pacer.set_trustee`)."""
        self.pacer.set_trustee(self.seat_owner(seat), seat, on, self.now(), self.driver)

    def timeout_for(self, seat: int) -> float:
        driver = self.driver
        assert driver is not None
        limits = self.seat_owner(seat).limits or TimeLimits(
            self.config.turn_timeout, self.config.claim_timeout, self.config.choice_timeout)
        return limits.for_phase(driver.game.phase)

    def _refresh_timers(self) -> None:
        """Start the clock of every seat that faces a new decision."""
        driver = self.driver
        assert driver is not None
        self.pacer.refresh(driver, self.now(), self.version)

    async def _advance(self) -> None:
        """Let every bot whose time has come act, hand timed-out seats to the bot, end hands, deal."""
        while True:
            now = self.now()
            driver = self.driver
            if self.log_failing:
                if now < self._log_retry_at or not await self._flush():
                    return  # nothing moves until the log is written
                self._changed()  # what waited for the log is shown now
                continue
            if self.status is Status.PLAYING and driver is not None:
                if driver.over:
                    await self._finish_hand()
                    continue
                move = self.pacer.next_move(driver, now)  # a person out of time is in 托管 now
                if move is not None:
                    if move.timed_out:
                        self.timeouts += 1
                        self.out.broadcast_room()
                    await self._bot_act(driver, move.seat)
                    await asyncio.sleep(0)  # let other tables and the writers run between moves
                    if not self.inbox.empty():
                        return  # joins and messages go first: bots that never wait must not starve them
                    continue
                return
            if self.status is Status.BETWEEN:
                humans = self._humans_connected()
                if humans and (now >= self.next_hand_at or humans <= self.ready):
                    await self._stand_up_the_short()
                    if self._humans_connected():
                        await self._start_hand()
                    continue
            return

    def _humans_connected(self) -> set[int]:
        return {s for s in self.seat_conn if not is_bot(self.players[s] or "bot")}

    async def _bot_act(self, driver: HandDriver, seat: int) -> None:
        # only this task changes the game, so the worker thread reads a still table
        legal = driver.game.legal_actions(seat)
        if not legal:
            return
        action = legal[0] if len(legal) == 1 else await asyncio.to_thread(driver.choose, seat)
        driver.apply(action)
        if await self._flush():
            self._changed()

    def _changed(self) -> None:
        self.version += 1
        driver = self.driver
        if driver is not None and not driver.over:
            self._refresh_timers()
        self.out.broadcast_state()

    def _seat_of(self, player: str) -> int | None:
        for i, p in enumerate(self.players):
            if p == player:
                return i
        return None

