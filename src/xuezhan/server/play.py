"""The match played at a web table: the seats' owners, the hands dealt, paced, logged and settled.

:class:`TablePlay` holds a room's state and plays its match on the match runtime
(:class:`~xuezhan.runtime.MatchRuntime`): each seat is a :class:`~xuezhan.runtime.Seat` (a
person or a bot; 托管 and time limits are the seat's), and every decision goes through the
runtime's :class:`~xuezhan.runtime.HandDriver`, which numbers it for the hand's log
(:mod:`xuezhan.server.journal`), written to the database before anyone sees the change.
When a bot acts and when a person's time runs out is the runtime's
:class:`~xuezhan.runtime.Pacer`'s to say, on this table's clock (:meth:`TablePlay.now`); the
bot's decision runs in a worker thread, so a slow search never stalls other tables.
:class:`~xuezhan.server.table.Table` adds the room's task, its inbox and the clients' requests.

Long: the table's one state (seats, match, hand, log, clocks, the discard pause, what was
played for an absent person) and every change to it, which all read and write that state
in one order; the messages are :mod:`~xuezhan.server.outbound`'s.
"""

from __future__ import annotations

import asyncio
import logging
import math
import random
import secrets
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, TypeVar

from .. import i18n, vocab
from ..bots import make_bot
from ..engine import views
from ..engine.actions import Action, ActionType
from ..engine.game import Phase
from ..engine.visibility import visible_events
from ..errors import XuezhanError
from ..i18n import LANGS, Lang
from ..ids import ErrorCode, EventKind
from ..match import Hand, HandResult, Match, RoomConfig, Tier, seat_minimum
from ..runtime import Delays, HandDriver, MatchRuntime, Pacer, Seat, TimeLimits
from ..vocab import Kind
from ..words import event_words, suit_name, tile_label
from .bank import BOT_PLAYERS, Account, Bank, Settled, is_bot
from .bystanders import JiaoMa
from .config import ServerConfig
from .conn import Conn, Inbound, dumps
from .items import TableItems
from .journal import Journal, LogWriter
from .messages import hand_end_messages, match_end_message
from .outbound import DiscardPause, Outbound
from .protocol import error_message
from .status import Status
from .words import error_text

log = logging.getLogger("xuezhan.server")

T = TypeVar("T")

LOG_RETRY: Final = 0.5
"""Seconds between tries to write a hand's log while the database fails."""

STEP_BITS: Final = 16
"""The bits of a version that count the changes shown within one hand (:func:`hand_version`)."""
HAND_BITS: Final = 8
"""The bits of a version that number the hand within its match (at most ``MAX_HANDS`` = 128)."""
ACTION_STEPS: Final = 8
"""Versions each logged action of a hand owns (:func:`hand_version`): its own change, the end of
a discard pause, and (the last) the change a table carried on after a restart shows."""


def hand_version(match_key: str, hand_no: int, actions: int = 0) -> int:
    """The least version a table shows of hand ``hand_no`` of the match ``match_key`` once
    ``actions`` of its actions are logged (passes not counted, :func:`counted_actions`):
    ``((match id << 8) + hand_no) << 16``, plus 8 for each. Each change shown takes the next
    version, and at least this one; a hand carried on after a restart shows the last of its
    last action's eight (``+ 7``), above anything shown of it before. Matches are numbered by
    the database in the order they start, so versions never go back, from hand to hand, match
    to match, and across restarts; they stay below 2**53 (a number to JavaScript) up to 2**29
    matches."""
    match_id = int(match_key) if match_key.isdigit() else 0
    return (((match_id << HAND_BITS) + hand_no) << STEP_BITS) + ACTION_STEPS * actions


def counted_actions(actions: Sequence[Action]) -> int:
    """The actions of a hand that move its versions on (:func:`hand_version`): all but passes,
    which nobody else is told of (a pass on a claim would show in the version's step)."""
    return sum(1 for a in actions if a.type is not ActionType.PASS)


def delays_of(config: ServerConfig) -> Delays:
    """The web table's pace: a bot's turn, 换三张 and 定缺 after ``bot_delay``, its claim answers after
    ``bot_claim_delay``, at most half the discard pause (so they fall inside it)."""
    claim = config.bot_claim_delay
    if config.discard_pause > 0:
        claim = min(claim, config.discard_pause / 2)
    return Delays(turn=config.bot_delay, claim=claim, choice=config.bot_delay)


class TablePlay:
    """A room's seats, its match and the hand being played, paced by the runtime's pacer."""

    tournament: str = ""
    """The id of the tournament this table plays a round of (``room.tournament``); ``""``: none."""

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
        self.pause: DiscardPause | None = None
        self.room_later = False
        """A claim's time ran out in an open window: the room (its seats' 托管) is sent once the
        window has closed, so that its message tells no one that someone could claim."""
        """The discard pause under way, if any (:meth:`_discarded`)."""
        self.conns: set[Conn] = set()
        self.seat_conn: dict[int, Conn] = {}
        self.ready: set[int] = set()
        self.left: set[str] = set()  # people who escaped from the hand being played
        self.inbox: asyncio.Queue[Inbound] = asyncio.Queue()
        self.receiving = False
        """The table's task waits for a message of its inbox (nothing else is due before its next clock)."""
        self.out = Outbound(self)
        self.jiao_ma = JiaoMa(self, self._write, self._min_balance)
        """叫马: who asked to bet on the next hand (:mod:`xuezhan.server.bystanders`)."""
        self.next_hand_at = 0.0
        self.last_hand_end: Mapping[Lang, dict[str, Any]] | None = None
        """The last ``hand_end``, in each language (each built when first sent: :class:`~.messages.ByLang`)."""
        self.last_match_end: dict[Lang, dict[str, Any]] | None = None
        self.match_coins: dict[str, int] | None = None
        """Coins each player won or lost in this match, fees included (``None`` when a hand of it was
        not counted here: a match taken up after a restart, or a hand that could not be settled)."""
        self.matches_started = 0
        self.hands_finished = 0
        self.timeouts = 0  # decisions a person let run out (the bot took them)
        self.missed: dict[str, list[tuple[Action, list[dict[str, Any]]]]] = {}
        """By player: what the stand-in played for the person while no connection held the seat, with
        the seat's view of the events each action made; given once, to the next connection to the seat."""
        self.log_failing = False  # the hand's log cannot be written: the table holds still
        self._log_retry_at = 0.0
        self.items = TableItems()
        """The item cards asked for the next deal (:mod:`xuezhan.server.items`)."""

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
                bot = make_bot(c.seat_bot or c.bot_name, random.Random(0), timeout=c.bot_timeout,
                               max_line=c.bot_max_line)
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
        return MatchRuntime(match, self._seats_for, on_start=journal.begin, on_action=journal.action,
                            on_item=journal.item)

    def golden_fingers(self) -> set[str]:
        """The players showing a golden finger (金手指): the match's, or before the first match the
        room's (:attr:`TableItems.golden`); only those in :attr:`players` are shown."""
        match = self.match
        return match.golden_fingers if match is not None else self.items.golden

    def golden_seats(self) -> list[int]:
        """``room.items.golden_fingers``: the seats whose discards a golden finger marks."""
        golden = self.golden_fingers()
        return [seat for seat, player in enumerate(self.players) if player is not None and player in golden]

    async def keep_requests(self) -> None:
        """Keep what a restart must not forget that no match state holds (the requests for the next
        deal, the golden fingers shown during a hand): the room's table saves them with its
        metadata (:meth:`xuezhan.server.table.Table.keep_requests`)."""

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
            self._tell_all(error_message(ErrorCode.DATABASE_ERROR, "the table cannot record its moves; it waits for "
                                                                      "the database"))
        elif not ok:
            self._log_retry_at = self.now() + LOG_RETRY
        elif self.log_failing:
            self.log_failing = False
        return ok

    def hand_in_play(self) -> bool:
        return self.status is Status.PLAYING

    def now(self) -> float:
        return asyncio.get_running_loop().time()

    @staticmethod
    def _ok(conn: Conn, kind: str) -> None:
        conn.send({"type": "ok", "for": kind})

    @staticmethod
    def _refuse(conn: Conn, kind: str, code: ErrorCode | str, message: str, **params: Any) -> None:
        """Answer ``kind`` with the error ``code``: the catalog's sentence in the connection's language
        (with ``params``), else the English ``message``."""
        conn.send({**error_message(code, error_text(code, conn.lang, message, **params)), "for": kind})

    def _seat_of(self, player: str) -> int | None:
        for i, p in enumerate(self.players):
            if p == player:
                return i
        return None

    def _humans_connected(self) -> set[int]:
        return {s for s in self.seat_conn if not is_bot(self.players[s] or "bot")}

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

    def _sync_players(self) -> None:
        assert self.match is not None
        self.players = list(self.match.seats)

    def _match_seed(self) -> int:
        """The seed of the next match: ``config.seed`` (then ``+1``, ``+2`` ...) when set, else random."""
        n = self.matches_started
        self.matches_started += 1
        if self.config.seed is not None:
            return (self.config.seed + n) & ((1 << 63) - 1)
        return secrets.randbits(63)

    async def _start_match(self) -> None:
        self.items.golden = set(self.golden_fingers())  # shown on, whatever becomes of the new match
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
            self._tell_all(error_message(ErrorCode.DATABASE_ERROR, "the match could not be started; try again"))
            return
        self.runtime = self._new_runtime(match, key)
        golden = self.items.golden & set(players)  # a golden finger lasts while its player stays
        self.items.golden = set()
        if golden:
            for player in sorted(golden):
                match.use_golden_finger(player)
            await self._save_match()
        self.last_match_end = None
        self.match_coins = {}
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
            # every person decides at the start of a hand, there or away: the clocks are the rule
            self.seat_owner(seat).trustee = False
        await self.jiao_ma.deal()  # those who asked to 叫马 join the match as its bystanders
        # the item cards of the deal, spent
        options = await self.items.deal_options(self.match, self.match_key,
                                                lambda *spent: self._write(self.bank.spend_item, *spent))
        self.runtime.start_hand(**options)
        self._shown = self.runtime.hand
        self.pause = None
        logged = await self._flush()
        self.hand_key += 1
        self.status = Status.PLAYING
        self.ready.clear()
        self.last_hand_end = None
        self.pacer.clear()
        self.out.broadcast_room()
        if logged:
            self._changed()
            self.jiao_ma.dealt()

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
        self.jiao_ma.hand_over(result)
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
            self.match_coins = None
        elif self.match_coins is not None:
            for player, change in zip(result.participants, settled.changes, strict=False):
                self.match_coins[player] = self.match_coins.get(player, 0) + change
        if settled is None:
            # later hands could not be recorded either (the store takes them in order): stop here
            self.status = Status.FINISHED
        self.last_hand_end = hand_end_messages(result, game, self.names, settled, self.room, final=match.finished)
        if self.status is Status.FINISHED:
            self.last_match_end = {lang: match_end_message(match, self.names, lang, self.match_coins)
                                   for lang in LANGS}
        elif None in match.seats:
            self._fill_with_bots()
            await self._save_match()
        for conn in list(self.conns):
            if conn.seat is not None and self.players[conn.seat] != conn.account.player:
                conn.seat = None  # an escaper left the table with the hand
        self.seat_conn = {s: c for s, c in self.seat_conn.items() if c.seat == s}
        self.out.broadcast_room()
        self.out.broadcast_hand_end()

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
            conn.send(error_message(ErrorCode.SETTLEMENT_FAILED, "the coins of this hand could not be recorded yet"))
        return None

    async def _save_match(self) -> None:
        if self.match is None:
            return
        try:
            await self._write(self.bank.save_match, self.match_key, self.match)
        except Exception:  # the match is saved again with its next hand
            log.exception("table %s: saving the match failed", self.code)

    def _min_balance(self) -> int:
        """The balance a seat here needs: the tier's minimum, else the room's fee (at least one coin)."""
        return seat_minimum(self.room, self.tier)

    def _accounts(self, players: list[str]) -> dict[str, Account | None]:
        """The accounts of ``players``, read at once; when they cannot be read none is given: the
        balances the table knows stand, and the next hand reads them again."""
        try:
            return {p: a for p, a in self.bank.accounts(players).items() if p in players}
        except Exception:
            log.exception("table %s: reading the balances of %s failed", self.code, ", ".join(players))
            return {}

    def _refuse_short(self, conn: Conn, balance: int) -> None:
        need = self._min_balance()
        t = self.tier
        tier_name = i18n.t(f"server.tier.{t.id if t is not None else 'custom'}", conn.lang)
        self._refuse(conn, "sit", ErrorCode.INSUFFICIENT_BALANCE, f"this room needs at least {need} coins",
                     tier=tier_name, min_balance=need, coins=balance, count=balance)

    async def _stand_up_the_short(self) -> None:
        """Between hands: a person whose balance fell under what a seat here needs
        (:meth:`_min_balance`) leaves the match, as by ``leave``; a bot takes the seat. The
        connection is told why (``insufficient_balance``) and watches on."""
        match = self.match
        if match is None or self.status is not Status.BETWEEN:
            return
        # coins may have moved elsewhere too (another table, relief): every person's read in one call
        people = [p for p in self.players if p is not None and not is_bot(p)]
        # a read alone: on a worker thread, not in the writer's queue behind every table's writes
        for player, account in (await asyncio.to_thread(self._accounts, people)).items():
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
                pause = self.pause
                if pause is not None and not pause.window_open(driver.game):
                    if now < pause.until:
                        return  # nothing after the discard is shown, or played, before the pause ends
                    self.pause = None
                    self._show(pause_end=True)  # the next draw, or what the claims made of the discard
                    continue
                if driver.over:
                    await self._finish_hand()
                    continue
                move = self.pacer.next_move(driver, now)  # a person out of time is in 托管 now
                if move is not None:
                    if move.timed_out:
                        self.timeouts += 1
                        if driver.game.claim_window is None:
                            self.out.broadcast_room()
                        else:  # a claim ran out: nobody else may learn of it, so the room waits for the window
                            self.room_later = True
                    away = driver.seats[move.seat].is_person and move.seat not in self.seat_conn
                    start = len(driver.game.events)
                    action = await self._bot_act(driver, move.seat)
                    if away and action is not None:
                        self._note_missed(driver, action, start)
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

    async def _bot_act(self, driver: HandDriver, seat: int) -> Action | None:
        """The seat's bot (or stand-in) decides and its action is applied; that action (``None``:
        the seat had nothing to decide). The driver marks a stand-in's choice for a person in the hand
        (:attr:`~xuezhan.match.Hand.stand_in`, and so in its log): the review tells it from the player's."""
        # only this task changes the game, so the worker thread reads a still table
        legal = driver.game.legal_actions(seat)
        if not legal:
            return None
        action = legal[0] if len(legal) == 1 else await asyncio.to_thread(driver.choose, seat)
        shown = self._after_discard(driver, action)
        driver.apply(action, by_bot=True)
        if await self._flush():
            self._discarded(shown)
        return action

    def _note_missed(self, driver: HandDriver, action: Action, start: int) -> None:
        """Keep ``action``, just taken for a person whose seat no connection holds, for
        ``state.missed`` (:meth:`missed_json`), with the seat's view of the events it made from ``start``."""
        player = self.players[action.seat]
        if player is None:
            return
        events = [ev for ev in visible_events(driver.game, action.seat, start)
                  if ev.get("seat") == action.seat and ev.get("type") != EventKind.DRAW]  # a draw is the next turn's
        self.missed.setdefault(player, []).append((action, events))

    def missed_json(self, conn: Conn) -> list[dict[str, Any]]:
        """``state.missed`` for the connection that holds its player's seat again: each action taken
        for the seat while it was away (its JSON and its sentence, ``text``, in the connection's
        language), once: the list is forgotten as it is given."""
        seat = conn.seat
        taken = self.missed.pop(conn.account.player, [])
        if seat is None or not taken:
            return []
        lang = conn.lang
        names = self.out.seat_names(lang)
        out = []
        for action, events in taken:
            text = next((t for ev in events if (t := event_words(ev, seat, lang=lang, names=names))), None)
            if text is None:  # an action that made no line of its own (a pass, a void not yet shown)
                what = [vocab.name_or_id(Kind.ACTION, str(action.type), lang)]
                if action.tile is not None:
                    what.append(tile_label(action.tile, lang=lang))
                if action.suit is not None:
                    what.append(suit_name(action.suit, lang))
                text = " ".join(what)
            out.append({**action.to_json(), "text": text})
        return out

    def _after_discard(self, driver: HandDriver, action: Action) -> views.AfterDiscard | None:
        """Before ``action`` is applied: the table just after it if it is a legal discard, or an
        added kong (open to robbing as a discard is to claims; :func:`xuezhan.engine.views.after_discard`,
        :func:`~xuezhan.engine.views.after_bugang`), else ``None``."""
        kind, seat, tile = action.type, action.seat, action.tile
        if tile is None or kind not in (ActionType.DISCARD, ActionType.GANG) or action not in driver.legal(seat):
            return None
        game = driver.game
        if kind is ActionType.DISCARD:
            return views.after_discard(game, seat, tile)
        if game.phase is Phase.TURN and game.seat_state(seat).counts[tile] != 4:  # not concealed: added to a peng
            return views.after_bugang(game, seat, tile)
        return None

    def _discarded(self, shown: views.AfterDiscard | None) -> None:
        """An action was applied and logged: show it. A discard or an added kong (``shown``: the
        table just after it) starts the discard pause: the seats that may claim it see their claim, everybody else
        ``shown``, for ``discard_pause`` seconds and until the claims are answered; what happens
        meanwhile is shown when it ends (:meth:`_advance`), as one more change. With nobody
        connected the pause lasts only as long as the claim window (someone who comes in during
        it is shown what a connection would have been)."""
        driver = self.driver
        if shown is not None and driver is not None:
            w = driver.game.claim_window
            opened = w.opened_at if w is not None else None
            pause = self.pause = DiscardPause(shown, math.inf, opened)
            self._show()
            # counted from the discard's messages
            pause.until = self.now() + (self.config.discard_pause if self.conns else 0.0)
            return
        self._changed()

    def _changed(self) -> None:
        """Show a change of the hand: the version steps on and everyone is sent their state. In the
        discard pause nothing is shown (its end shows what changed meanwhile)."""
        if self.pause is not None:
            return
        self._show()

    def _show(self, pause_end: bool = False) -> None:
        """Show a change now (in a pause too): the next version, at least the log's
        (:func:`hand_version`); at the end of a discard pause only the next (one step after the
        discard's, whatever was answered in its window)."""
        hand = self._shown
        step = self.version + 1
        if hand is not None and not pause_end:
            step = max(step, hand_version(self.match_key, hand.hand_no, counted_actions(hand.game.actions)))
        self.version = step
        driver = self.driver
        if driver is not None and not driver.over and (self.pause is None or self.pause.window_open(driver.game)):
            self._refresh_timers()  # a turn after the pause gets its clocks when it is shown
        self.out.broadcast_state()
        if self.room_later and (driver is None or driver.game.claim_window is None):
            self.room_later = False
            self.out.broadcast_room()
