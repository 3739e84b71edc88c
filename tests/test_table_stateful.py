"""A web table as a state machine (hypothesis ``RuleBasedStateMachine``).

The table is driven in-process and in order: its own asyncio task runs on an event loop the
machine owns, connections are :class:`Conn` objects, and after every step the machine waits
for the answer to a ``ping`` from a watching connection (the inbox is handled in order, so
everything sent before it has been handled and the bots have moved). Bots act at once; person
timeouts and the pause between hands run out only when a step moves the table's clock on: what
happens depends on the steps alone.

Rules: people connect (to a seat, or to watch), disconnect, sit, leave (mid-hand: an escape),
start matches, get ready, toggle 托管, act (a legal action, or an illegal one that must change
nothing), let the clock run out, send malformed messages (through the same checks as the
websocket endpoint), and the server "restarts": the table and the bank are thrown away and a
new bank on the same SQLite file gives the running match back (:meth:`Table.restore`); the
rebuilt hand must be the hand that was being played.

Invariants: the books balance in the store (every player's and bot's coins plus the house's are
what was issued; :meth:`Ledger.audit`); every hand of a match is settled once, in order, and a
hand in play is in the log up to its last action (resumable); every client message gets its
answer (``ok``, ``pong``, or an ``error`` with a code); no server error; and every ``state``
message a connection receives is, at the moment it is sent, exactly the engine's view for its
seat (a spectator: no concealed tile at all) with exactly the events it may see.

CI runs a small fixed profile; ``XUEZHAN_STATEFUL=heavy`` runs a larger random one.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import tempfile
from collections.abc import Awaitable
from typing import Any

import pytest
from hypothesis import HealthCheck, currently_in_test_context, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from xuezhan.engine.game import Game
from xuezhan.engine.views import SeatView, event_json, table_views
from xuezhan.match import RoomConfig
from xuezhan.records import record_json
from xuezhan.rules import Rules
from xuezhan.server.bank import Account, is_bot
from xuezhan.server.config import ServerConfig
from xuezhan.server.conn import Conn
from xuezhan.server.journal import logged_entries
from xuezhan.server.outbound import marked_view
from xuezhan.server.protocol import ClientMessage, ProtocolError, error_message, parse_action, parse_client_message
from xuezhan.server.storebank import StoreBank
from xuezhan.server.table import Status, Table
from xuezhan.tiles import NUM_TILES, format_tiles

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

HEAVY = os.environ.get("XUEZHAN_STATEFUL") == "heavy"
CODE = "STATE1"
PERSONS = ("ann", "bo", "cy", "di", "ed")
WATCHERS = ("eye", "ear")
PROBE = "probe"
WAIT = 60.0  # seconds: a bound against hangs, never a timing assertion
FAR = 10_000.0  # person timeouts and the pause between hands: never reached in a test

MALFORMED = (
    "",
    "null",
    "[1, 2]",
    "{not json",
    '{"type": "nope"}',
    '{"type": 7}',
    '{"type": "ping", "extra": 1}',
    '{"type": "sit", "seat": 9}',
    '{"type": "sit", "seat": true}',
    '{"type": "trustee", "on": "yes"}',
    '{"type": "trustee"}',
    '{"type": "action", "action": {"type": "discard", "tile": "5m"}}',
    '{"type": "action", "action": {"type": "discard", "tile": "5m"}, "version": "7"}',
    '{"type": "action", "action": {"type": "discard", "tile": "5m"}, "version": true}',
    '{"type": "action", "action": [], "version": 1}',
    '{"type": "action", "action": {"type": "discard", "tile": "0m"}, "version": 1}',
    '{"type": "action", "action": {"type": "discard"}, "version": 1}',
    '{"type": "action", "action": {"type": "escape"}, "version": 1}',
    '{"type": "action", "action": {"type": "swap", "tile": "1m", "want": "2m"}, "version": 1}',
    '{"type": "action", "action": {"type": "hu", "seat": 2}, "version": 1}',
    '{"type": "action", "action": {"type": "dingque", "suit": "z"}, "version": 1}',
    '{"type": "action", "action": {"type": "exchange", "tiles": "1m"}, "version": 1}',
    '{"type": "start", "now": 1}',
    "x" * 5000,
)

BAD_ACTIONS = st.one_of(
    st.fixed_dictionaries({"type": st.sampled_from(["discard", "gang"]),
                           "tile": st.sampled_from(["1m", "5m", "9m", "1p", "5p", "9p", "1s", "5s", "9s"])}),
    st.fixed_dictionaries({"type": st.sampled_from(["peng", "hu", "pass"])}),
    st.fixed_dictionaries({"type": st.just("dingque"), "suit": st.sampled_from(["m", "p", "s"])}),
    st.fixed_dictionaries({"type": st.just("exchange"), "tiles": st.sampled_from(["123m", "555p", "19s", "1m2p3s"])}),
)


def note(what: str) -> None:
    """Count ``what`` in hypothesis's statistics (when a machine runs under hypothesis)."""
    if currently_in_test_context():
        event(what)


def visible_events(game: Game, seat: int | None, start: int) -> list[dict[str, Any]]:
    """The events from ``start`` on that ``seat`` may see (written here again, not the server's filter)."""
    out = []
    for ev, private in zip(game.events[start:], game.event_owners[start:], strict=True):
        if private is None or private == seat:
            out.append(event_json(ev))
        elif ev.get("type") != "pass_hu":  # that a seat passed on a win is itself secret
            out.append({k: v for k, v in event_json(ev).items() if k not in ("tile", "tiles")})
    return out


def check_view(game: Game, seat: int | None, view: dict[str, Any]) -> None:
    """``view`` is what ``seat`` may see of ``game`` now, and nothing more."""
    assert view["seat"] == seat
    if seat is not None:
        assert view == marked_view(SeatView(game, seat).to_json())
    else:
        assert view["hand"] is None and view["drawn"] is None and view["legal"] == []
        assert view["wall"] == game.live
    voids_secret = game.phase in ("exchange", "dingque")
    for other, entry in enumerate(view["seats"]):
        if other == seat:
            continue
        s = game.seats[other]
        if s.revealed:
            assert entry.get("hand") == format_tiles(s.tiles())
        else:
            assert "hand" not in entry, (seat, other)
            assert all(m["tile"] is None for m in entry["melds"] if m["type"] == "angang"), (seat, other)
        if voids_secret:
            assert entry["void"] is None, (seat, other)


class CheckedConn(Conn):
    """A connection that checks every message as the table sends it, while the game is as it was shown."""

    def __init__(self, machine: TableMachine, account: Account, *, watch: bool = False) -> None:
        super().__init__(account, watch=watch, queue_size=1_000_000)
        self.machine = machine
        self.received: list[dict[str, Any]] = []
        self.events_upto = 0

    def send_text(self, text: str) -> None:
        if not self.closed:
            msg = json.loads(text)
            try:
                self.machine.check_outgoing(self, msg)
            except AssertionError as exc:  # kept for the test to raise: the table's task must go on
                self.machine.failures.append(exc)
            self.received.append(msg)
        super().send_text(text)


class ClockedTable(Table):
    """A table whose clock the test moves on (``ahead`` seconds in front of the event loop's)."""

    ahead = 0.0

    def now(self) -> float:
        return super().now() + self.ahead


class TableMachine(RuleBasedStateMachine):
    """One room of a web table on a SQLite database, restarted now and then."""

    def __init__(self) -> None:
        super().__init__()
        self.loop = asyncio.new_event_loop()
        self.dir = tempfile.mkdtemp(prefix="xz-stateful-")
        self.url = f"sqlite:///{self.dir}/table.sqlite3"
        self.config = ServerConfig.fast(seed=0)
        self.room = RoomConfig()
        self.bank = StoreBank.open(self.url)
        self.table: Table | None = None
        self.probe: CheckedConn | None = None
        self.conns: list[CheckedConn] = []
        self.hand_ends: dict[tuple[str, int], int] = {}
        self.failures: list[AssertionError] = []
        """What the checks of outgoing messages found wrong (raised at the next sync)."""
        self.restarts = 0

    # --- the loop -------------------------------------------------------------------------------
    def run(self, coro: Awaitable[Any]) -> Any:
        return self.loop.run_until_complete(asyncio.wait_for(coro, WAIT))

    def the_table(self) -> Table:
        assert self.table is not None
        return self.table

    def sync(self) -> None:
        """Wait until the table has handled everything sent so far and its bots have stopped: a ping's
        pong comes after what was sent before it, but a waiting message goes before the next bot
        move, so pings go round until one finds the table as the one before left it."""
        last: tuple[int, str, int] | None = None
        while True:
            self._ping()
            table = self.the_table()
            mark = (table.version, str(table.status), table.hands_finished)
            if mark == last and self._quiet(table):
                return
            last = mark

    @staticmethod
    def _quiet(table: Table) -> bool:
        """Nothing under way: no log entry being written, no bot (or 托管) with a decision to take."""
        if table.journal is not None and table.journal.pending:
            return False
        driver = table.driver
        if table.status is Status.PLAYING and driver is not None:
            return not driver.over and not any(table.bot_controls(s) for s in driver.deciding())
        return True

    def _ping(self) -> None:
        probe = self.probe
        assert probe is not None
        table = self.the_table()
        before = sum(1 for m in probe.received if m["type"] == "pong")
        table.message(probe, ClientMessage("ping", {"type": "ping"}))

        async def pong() -> None:
            while sum(1 for m in probe.received if m["type"] == "pong") == before and not self.failures:
                task = table.task
                assert task is not None
                if task.done():
                    raise AssertionError("the table's task ended") from task.exception()
                await asyncio.sleep(0.0005)

        self.run(pong())
        if self.failures:
            raise self.failures[0]
        self.conns = [c for c in self.conns if not c.closed]

    def teardown(self) -> None:
        try:
            if self.table is not None:
                self._stop(self.table)
            self.bank.close()
        finally:
            self.loop.close()
            shutil.rmtree(self.dir, ignore_errors=True)

    def _stop(self, table: Table) -> None:
        task = table.task
        if task is not None and not task.done():
            task.cancel()
            self.run(asyncio.gather(task, return_exceptions=True))

    # --- setting up -----------------------------------------------------------------------------
    @initialize(
        seed=st.integers(0, 2**40),
        preset=st.sampled_from(["qq", "chengdu"]),
        options=st.sampled_from([{}, {"exchange_three": "random"}, {"blood_river": True}, {"dingque": False}]),
        coefficient=st.integers(0, 20),
        fee=st.integers(0, 50),
        hands=st.integers(1, 3),
        seated=st.integers(1, 4),
        begin=st.booleans(),
    )
    def setup(self, seed: int, preset: str, options: dict[str, Any], coefficient: int, fee: int, hands: int,
              seated: int, begin: bool) -> None:
        self.config = ServerConfig.fast(seed=seed, bot_name="random", turn_timeout=FAR, claim_timeout=FAR,
                                        choice_timeout=FAR, next_hand_delay=FAR, room_idle_timeout=FAR,
                                        send_queue=1_000_000)
        self.room = RoomConfig(Rules.preset(preset).with_options(options), coefficient=coefficient, fee=fee,
                               hands=hands)
        for name in (*PERSONS, *WATCHERS, PROBE):
            self.bank.create_account(name)
        self.bank.open_room(CODE, self.room, {"name": "stateful", "owner": PERSONS[0], "public": True})
        self._open_table(self._fresh_table(), [(PERSONS[0], False)])
        for k in range(1, seated):  # others come and sit down
            self.connect(k, watch=True)
            self.sit(k, seat=None)
        if begin:
            self.start(0)

    def _account(self, name: str) -> Account:
        account = self.bank.account(name)
        assert account is not None
        return account

    def _fresh_table(self) -> Table:
        return ClockedTable(CODE, "stateful", self.room, self._account(PERSONS[0]), self.bank, self.config)

    def _open_table(self, table: Table, people: list[tuple[str, bool]]) -> None:
        """Start ``table``'s task with the probe and ``people`` (name, watching) connecting first."""
        self.table = table
        self.probe = CheckedConn(self, self._account(PROBE), watch=True)
        self.conns = [CheckedConn(self, self._account(name), watch=watch) for name, watch in people]
        for conn in (*self.conns, self.probe):  # people first: each takes its seat back from the bot
            table.join(conn)

        async def start() -> None:
            table.start_task()

        self.run(start())
        self.sync()

    # --- checks on what the table sends -----------------------------------------------------------
    def check_outgoing(self, conn: CheckedConn, msg: dict[str, Any]) -> None:
        assert msg.get("code") != "server_error", msg
        table = self.table
        if msg["type"] == "state":
            assert table is not None and table.hand is not None
            game = table.hand.game
            assert game.tile_total() == NUM_TILES
            if table.pause is not None and table.out.paused_for(conn.seat):
                # the discard pause: the table just after the discard (or added kong), nothing after it,
                # nobody to act
                game = Game.from_state(table.pause.shown.state)
                assert msg["view"] == marked_view(table_views(table.pause.shown, (conn.seat,))[conn.seat])
                assert msg["view"]["offered"] is None and msg["view"]["legal"] == [] and msg["decision"] is None
                assert game.events[-1]["type"] in ("discard", "bugang_declared")
            else:
                check_view(game, conn.seat, msg["view"])
            start = 0 if msg["reset"] else conn.events_upto
            events = [{k: v for k, v in ev.items() if k != "text"} for ev in msg["events"]]
            assert events == visible_events(game, conn.seat, start), (conn.seat, start)
            # each event comes with its sentence (or none, when it is not worth a line); a move always has one
            assert all(ev["text"] is None or isinstance(ev["text"], str) for ev in msg["events"])
            assert all(ev["text"] for ev in msg["events"] if ev["type"] in ("discard", "peng", "hu", "start"))
            conn.events_upto = len(game.events)
        elif msg["type"] == "hand_end":
            assert sum(msg["points"]) == 0
            if msg["coins"] is not None:
                assert sum(msg["coins"]) == -sum(msg["fees"])
            if conn is self.probe and table is not None:
                key = (table.match_key, msg["hand_no"])
                self.hand_ends[key] = self.hand_ends.get(key, 0) + 1
                assert self.hand_ends[key] == 1, f"hand {key} ended twice"

    # --- sending ----------------------------------------------------------------------------------------
    def _pick(self, k: int, seated: bool | None = None) -> CheckedConn | None:
        table = self.the_table()
        conns = [c for c in self.conns if c in table.conns and (seated is None or (c.seat is not None) == seated)]
        return conns[k % len(conns)] if conns else None

    def _send(self, conn: CheckedConn, msg: dict[str, Any]) -> list[dict[str, Any]]:
        """Send ``msg`` as a client would and return what came back to ``conn``."""
        seen = len(conn.received)
        self.the_table().message(conn, ClientMessage(msg["type"], msg))
        self.sync()
        return conn.received[seen:]

    def _answered(self, replies: list[dict[str, Any]], kind: str) -> dict[str, Any]:
        answers = [m for m in replies if m["type"] in ("ok", "error", "pong") and m.get("for", kind) == kind
                   and (m["type"] != "error" or m.get("for") is not None or kind == "ping")]
        answers = [m for m in answers if m["type"] != "pong" or kind == "ping"]
        assert len(answers) == 1, (kind, replies)
        answer = answers[0]
        if answer["type"] == "error":
            assert isinstance(answer["code"], str) and answer["code"], answer
        return answer

    # --- rules: people ---------------------------------------------------------------------------------
    @rule(k=st.integers(0, len(PERSONS) + len(WATCHERS) - 1), watch=st.booleans())
    def connect(self, k: int, watch: bool) -> None:
        name = (*PERSONS, *WATCHERS)[k]
        table = self.the_table()
        spectators = sum(1 for c in table.conns if c.seat is None)
        conn = CheckedConn(self, self._account(name), watch=watch)
        self.conns.append(conn)
        seen = [len(c.received) for c in self.conns]
        table.join(conn)
        self.sync()
        if conn.closed:  # a room holds so many spectators
            assert spectators >= self.config.max_spectators and (watch or name not in table.players)
            assert [m["code"] for m in conn.received] == ["room_full"]
            note("a spectator was turned away")
            return
        hello = [m for m in conn.received if m["type"] == "hello"]
        assert len(hello) == 1 and hello[0]["seat"] == conn.seat
        if conn.seat is not None:
            assert table.players[conn.seat] == name and not watch
            assert not table.trustee(conn.seat)  # the person is back
            replaced = [c for c, n in zip(self.conns, seen, strict=False) if c is not conn and c.closed
                        and any(m.get("code") == "replaced" for m in c.received[n:])]
            assert len(replaced) <= 1

    @rule(k=st.integers(0, 7))
    def disconnect(self, k: int) -> None:
        conn = self._pick(k)
        if conn is None:
            return
        table = self.the_table()
        seat = conn.seat
        was = seat is not None and table.trustee(seat)
        table.gone(conn)
        conn.close()
        self.sync()
        assert conn not in table.conns
        if seat is not None and table.status is Status.PLAYING and table.players[seat] == conn.account.player:
            assert table.trustee(seat) == was  # going away hands nothing to the bot: the clock does

    @rule(k=st.integers(0, 7), seat=st.none() | st.integers(0, 3))
    def sit(self, k: int, seat: int | None) -> None:
        conn = self._pick(k)
        if conn is None:
            return
        msg: dict[str, Any] = {"type": "sit"} if seat is None else {"type": "sit", "seat": seat}
        answer = self._answered(self._send(conn, msg), "sit")
        if answer["type"] == "ok":
            assert conn.seat is not None and self.the_table().players[conn.seat] == conn.account.player

    @rule(k=st.integers(0, 7))
    def leave(self, k: int) -> None:
        conn = self._pick(k)
        if conn is None:
            return
        table = self.the_table()
        seat, playing = conn.seat, table.status is Status.PLAYING
        answer = self._answered(self._send(conn, {"type": "leave"}), "leave")
        assert (answer["type"] == "ok") == (seat is not None)
        if seat is not None:
            assert conn.seat is None
            if playing and table.hand is not None:
                note("an escape mid-hand")
                assert table.hand.game.seats[seat].escaped or table.hand.game.over

    @rule(k=st.integers(0, 7))
    def start(self, k: int) -> None:
        conn = self._pick(k)
        if conn is None:
            return
        answer = self._answered(self._send(conn, {"type": "start"}), "start")
        if answer["type"] == "ok":
            assert self.the_table().match is not None

    @rule(k=st.integers(0, 7))
    def ready(self, k: int) -> None:
        conn = self._pick(k)
        if conn is not None:
            self._answered(self._send(conn, {"type": "ready"}), "ready")

    @rule(k=st.integers(0, 7), on=st.booleans())
    def trustee(self, k: int, on: bool) -> None:
        conn = self._pick(k)
        if conn is None:
            return
        answer = self._answered(self._send(conn, {"type": "trustee", "on": on}), "trustee")
        assert (answer["type"] == "ok") == (conn.seat is not None)

    @rule(k=st.integers(0, 7))
    def ping(self, k: int) -> None:
        conn = self._pick(k)
        if conn is not None:
            self._answered(self._send(conn, {"type": "ping"}), "ping")

    # --- rules: playing -------------------------------------------------------------------------------------
    def _state(self, conn: CheckedConn) -> dict[str, Any] | None:
        states = [m for m in conn.received if m["type"] == "state"]
        return states[-1] if states else None

    @rule(k=st.integers(0, 7), pick=st.integers(0, 10**6), repeat=st.integers(1, 30))
    def act(self, k: int, pick: int, repeat: int) -> None:
        """Seated people answer their decisions with legal actions, ``repeat`` times over."""
        for n in range(repeat):
            table = self.the_table()
            deciding = [c for c in self.conns if c in table.conns and c.seat is not None
                        and (st_ := self._state(c)) is not None and st_["view"]["legal"]]
            if table.status is not Status.PLAYING or not deciding:
                return
            conn = deciding[(k + n) % len(deciding)]
            state = self._state(conn)
            assert state is not None and state["version"] == table.version
            legal = state["view"]["legal"]
            action = {key: v for key, v in legal[(pick + n) % len(legal)].items() if key != "seat"}
            steps = len(table.hand.game.actions) if table.hand is not None else 0
            answer = self._answered(self._send(conn, {"type": "action", "action": action, "version": state["version"]}),
                                    "action")
            assert answer["type"] == "ok", answer
            assert table.hand is not None and len(table.hand.game.actions) > steps

    @rule(k=st.integers(0, 7), action=BAD_ACTIONS, stale=st.booleans())
    def act_illegally(self, k: int, action: dict[str, Any], stale: bool) -> None:
        conn = self._pick(k)
        if conn is None:
            return
        table = self.the_table()
        game = table.hand.game if table.hand is not None else None
        if game is not None and conn.seat is not None and table.status is Status.PLAYING:
            try:
                if parse_action(action, conn.seat) in game.legal_actions(conn.seat) and not stale:
                    return  # legal after all
            except ProtocolError:
                pass
        before = json.dumps(record_json(game), sort_keys=True) if game is not None else None
        version = table.version
        replies = self._send(conn, {"type": "action", "action": action, "version": -1 if stale else version})
        answer = self._answered(replies, "action")
        assert answer["type"] == "error"
        assert table.version == version
        after = json.dumps(record_json(game), sort_keys=True) if game is not None else None
        assert after == before

    @rule(k=st.integers(0, 7), text=st.sampled_from(MALFORMED))
    def malformed(self, k: int, text: str) -> None:
        """As the websocket endpoint reads a text: refused at once, or handed to the table."""
        conn = self._pick(k)
        if conn is None:
            return
        table = self.the_table()
        version = table.version
        seen = len(conn.received)
        try:
            msg = parse_client_message(text, self.config.max_message_bytes)
        except ProtocolError as exc:
            conn.send(error_message(exc.code, exc.message))
            self.sync()
            replies = conn.received[seen:]
            assert replies[0]["type"] == "error" and replies[0]["code"] == exc.code
            assert table.version == version
            return
        answer = self._answered(self._send(conn, msg.data), msg.type)
        assert answer["type"] == "error", (text, answer)
        assert table.version == version

    @rule()
    def time_runs_out(self) -> None:
        """Every clock of the table runs out: people who must decide are timed out (the stand-in takes
        the decision; the second in a row puts the seat in 托管), and between hands the next hand is dealt."""
        table = self.the_table()
        assert isinstance(table, ClockedTable)
        waiting = [s for s in (table.driver.deciding() if table.driver is not None else [])
                   if not table.seat_owner(s).automatic]
        timeouts = table.timeouts
        hand_no = table.match.hands_played if table.match is not None else 0
        table.ahead += 2 * FAR
        self.sync()  # the clocks are looked at after the ping is answered:
        self.sync()  # the second pong comes after what they set off
        assert table.timeouts >= timeouts + (len(waiting) > 0 and table.status is Status.PLAYING)
        if waiting:
            note("a person timed out")
        if table.match is not None and table.match.hands_played > hand_no:
            note("a hand ended after a timeout")

    # --- a restart ----------------------------------------------------------------------------------------
    @rule()
    def restart(self) -> None:
        """The server stops and starts again on the same database."""
        old = self.the_table()
        people = [(c.account.player, c.watch) for c in self.conns if c in old.conns]
        playing = old.status is Status.PLAYING and old.hand is not None
        old_game = old.hand.game if playing and old.hand is not None else None
        old_match = old.match
        old_status = old.status
        self._stop(old)
        self.bank.close()
        self.restarts += 1
        self.bank = StoreBank.open(self.url)
        running = [rm for rm in self.bank.running_matches() if rm.room_code == CODE]
        assert len(running) <= 1
        if not running:
            assert old_game is None and (old_match is None or old_status is Status.FINISHED), old_status
            self._open_table(self._fresh_table(), people)
            note("restart without a running match")
            return
        rm = running[0]
        assert old_match is not None and rm.key == old.match_key
        accounts = {p: self._account(p) for p in rm.match.people if not is_bot(p)}
        table = ClockedTable.restore(rm, self.bank, self.config, accounts)
        match = table.match
        assert match is not None
        assert match.seats == old_match.seats and match.running == old_match.running
        assert match.hands_played == old_match.hands_played
        if old_game is None:
            assert table.hand is None and table.status in (Status.BETWEEN, Status.FINISHED)
            note("restart between hands")
        else:
            assert table.status is Status.PLAYING and table.hand is not None
            game = table.hand.game
            assert record_json(game) == record_json(old_game)
            assert game.events == old_game.events and game.event_owners == old_game.event_owners
            for s in range(4):
                assert SeatView(game, s).to_json() == SeatView(old_game, s).to_json()
            for s, player in enumerate(table.players):
                assert player is not None
                if not is_bot(player) and not game.seats[s].escaped:
                    assert not table.trustee(s)  # each open decision gets its time again, nobody is in 托管
            note("restart mid-hand")
        self._open_table(table, people)

    # --- invariants -------------------------------------------------------------------------------------------
    @invariant()
    def books_balance(self) -> None:
        audit = self.bank.store.ledger.audit()
        assert audit["players"] + audit["house"] == audit["issued"]

    @invariant()
    def hands_settled_once_or_resumable(self) -> None:
        table = self.table
        if table is None or table.match is None or not table.match_key:
            return
        match = table.match
        store = self.bank.store
        numbers = [r.hand_no for r in store.hands.hand_results(int(table.match_key))]
        assert numbers == list(range(1, match.hands_played + 1))
        if table.status is Status.PLAYING:
            assert table.hand is not None and table.hand.hand_no == match.hands_played + 1
            logged = [rm.hand for rm in store.rooms.running_matches() if str(rm.match_id) == table.match_key]
            assert len(logged) == 1 and logged[0] is not None
            assert logged[0].hand_no == table.hand.hand_no
            entries, stand_in = logged_entries(list(logged[0].actions))
            assert entries == list(table.hand.game.actions) and stand_in == table.hand.stand_in
            note(f"a hand in play, {len(table.hand.game.actions) // 50 * 50}+ actions in")
        else:
            note(f"between hands, {match.hands_played} settled")


def _settings() -> settings:
    if HEAVY:
        return settings(max_examples=100, stateful_step_count=60, deadline=None,
                        suppress_health_check=[HealthCheck.too_slow])
    return settings(max_examples=20, stateful_step_count=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


TestTable = TableMachine.TestCase
TestTable.settings = _settings()


def test_taking_the_seat_back_from_the_bot_before_a_hand_is_answered() -> None:
    """托管 off with no hand in play (before the match, or between hands) was a server error."""
    machine = TableMachine()
    try:
        machine.setup(seed=0, preset="qq", options={}, coefficient=0, fee=0, hands=1, seated=1, begin=False)
        machine.trustee(0, on=True)
        machine.trustee(0, on=False)
        machine.start(0)
        machine.act(0, pick=0, repeat=30)
        machine.trustee(0, on=True)  # the bot ends the hand: the match is between hands or over
        machine.trustee(0, on=False)
        machine.books_balance()
        machine.hands_settled_once_or_resumable()
    finally:
        machine.teardown()


def test_a_room_full_of_spectators_turns_the_next_away() -> None:
    machine = TableMachine()
    try:
        machine.setup(seed=1, preset="qq", options={}, coefficient=1, fee=0, hands=1, seated=1, begin=False)
        for _ in range(machine.config.max_spectators + 2):
            machine.connect(len(PERSONS), watch=True)
        table = machine.the_table()
        assert sum(1 for c in table.conns if c.seat is None) == machine.config.max_spectators
        machine.connect(0, watch=False)  # a seated person still gets the seat back
        assert any(c.seat == 0 for c in table.conns)
    finally:
        machine.teardown()
