"""Real servers that are killed and started again: what the tests of the restart and failover
promises (tests/test_kill*.py, tests/test_items_kill.py, tests/test_grace.py, tests/test_cluster*.py,
tests/test_guard.py) and ``scripts/failover_soak.py`` share, written once.

- :func:`free_ports`: loopback ports nobody listens on, several in a row (one: ``xuezhan.store.pgtemp.free_port``).
- :func:`until`: poll a condition until it holds (the waits are bounds, never timing assertions).
- :func:`request`: one HTTP request with JSON in and out, and the session cookie it set.
- :class:`Served`: one ``xuezhan serve`` process on a fixed port and database, killed with SIGKILL
  and started again; :data:`SEEDED`: the settings under which a match is a function of the seed;
  :func:`twins` and :func:`side_by_side`: a calm server and a killed one, playing at once.
- :class:`Watcher`, :class:`Kill`, :func:`read_kill`, :func:`books`, :class:`Kept`,
  :func:`opened`: what a guest was shown of each life of the server, and what the database kept.
- :func:`running` (a cluster from ``scripts/cluster.sh``, :func:`cluster_settings`),
  :func:`holders`, :func:`paused`, :class:`Guest`: a person at a quick table through the
  balancer, reconnecting as the page does.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import func, select
from sqlalchemy.orm import Session
from websockets.exceptions import ConnectionClosed, InvalidHandshake
from websockets.sync.client import ClientConnection, connect

from xuezhan.server.journal import STAND_IN
from xuezhan.server.nodes import MOVED
from xuezhan.store import Store
from xuezhan.store.models import HandRow, MatchRow, Room, RoomLease, Settlement
from xuezhan.store.pgtemp import TempPostgres, free_port

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
WAIT = 60.0  # seconds: generous bounds on waits, never timing assertions
SERVER_SEED = 20_261_201
SEEDED = f"""\
[server]
bot_delay = 0.005  # a pace of its own: how far the bots get between two kills does not hang on
bot_claim_delay = 0.005  # how fast the server happens to be
turn_timeout = 0
claim_timeout = 0
choice_timeout = 0
restart_grace = 0  # the guest's decisions are the stand-in's at once after a restart too
discard_pause = 0  # the bots' pace alone: no pause after a discard to wait through
next_hand_delay = 0.05
seed = {SERVER_SEED}
custom_stakes = true  # the match is at a fee of its own
"""
"""Every seat's decision a bot's, every seat answering after the same bot delay: the order in which
seats answer a shared decision is the seats' order whatever the timing, and the match is a function
of the server's seed alone."""

T = TypeVar("T")
U = TypeVar("U")


def free_ports(count: int) -> int:
    """A port P with P..P+count-1 free (for a balancer and its nodes)."""
    rng = random.Random()
    for _ in range(200):
        base = rng.randrange(20_000, 60_000)
        try:
            for p in range(base, base + count):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", p))
        except OSError:
            continue
        return base
    raise AssertionError("no free ports")


def until(what: Callable[[], T], message: str, wait: float = WAIT, every: float = 0.02) -> T:
    """Ask ``what`` every ``every`` seconds until it gives something true; that. Fails with
    ``message`` after ``wait`` seconds."""
    deadline = time.monotonic() + wait
    while True:
        found = what()
        if found:
            return found
        assert time.monotonic() < deadline, message
        time.sleep(every)


def with_src(env: dict[str, str] | None = None) -> dict[str, str]:
    """The environment (this one by default) with this checkout's sources first on ``PYTHONPATH``."""
    env = dict(os.environ if env is None else env)
    path = env.get("PYTHONPATH", "")
    env["PYTHONPATH"] = f"{SRC}{os.pathsep}{path}" if path else str(SRC)
    return env


def request(port: int, method: str, path: str, body: Any = None, cookie: str = "",
            timeout: float = 20.0) -> tuple[int, Any, str]:
    """One request to the server at ``port``: its status, its JSON body, the session cookie it set."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        headers = {"Content-Type": "application/json"}
        if cookie:
            headers["Cookie"] = cookie
        conn.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
        response = conn.getresponse()
        data = json.loads(response.read() or b"null")
        return response.status, data, (response.getheader("set-cookie") or "").split(";")[0]
    finally:
        conn.close()


# --- one server, killed and started again ------------------------------------------------------------------
class Served:
    """One ``xuezhan serve`` process on a fixed port and database (``config``: its settings file's
    text), started again after each kill. ``preexec_fn`` runs in the child before the server."""

    def __init__(self, db: str, port: int, workdir: Path, config: str = SEEDED,
                 preexec_fn: Callable[[], None] | None = None) -> None:
        self.db = db
        self.port = port
        self.workdir = workdir
        workdir.mkdir(parents=True, exist_ok=True)
        self.config = workdir / "server.toml"
        self.config.write_text(config, encoding="utf-8")
        self.preexec_fn = preexec_fn
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0
        self.env = {**with_src(), "XUEZHAN_SECRET": "kill-test-secret"}

    def __enter__(self) -> Served:
        """Started, for the block; killed at its end."""
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.kill()

    @property
    def log(self) -> Path:
        """The output of the server's current (or last) life."""
        return self.workdir / f"serve-{self.starts}.log"

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def tail(self) -> str:
        try:
            return self.log.read_text(encoding="utf-8", errors="replace")[-3000:]
        except OSError:
            return ""

    def start(self) -> None:
        """Start the server and return once it answers."""
        assert self.proc is None
        self.starts += 1
        with self.log.open("wb") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "xuezhan", "serve", "--host", "127.0.0.1", "--port", str(self.port),
                 "--db", self.db, "--config", str(self.config)],
                env=self.env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                preexec_fn=self.preexec_fn,
            )
        proc = self.proc
        until(lambda: self._answers(proc), f"the server did not come up:\n{self.tail()}")

    def _answers(self, proc: subprocess.Popen[bytes]) -> bool:
        if proc.poll() is not None:
            raise AssertionError(f"the server exited with {proc.returncode}:\n{self.tail()}")
        try:
            return self.request("GET", "/api/tiers")[0] == 200
        except OSError:
            return False

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs, as when the machine loses power."""
        self._end(signal.SIGKILL)

    def stop(self) -> None:
        """SIGTERM: the server shuts down as it does when asked to (SIGKILL if it does not)."""
        self._end(signal.SIGTERM)

    def _end(self, how: signal.Signals) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        if proc.poll() is None:
            os.kill(proc.pid, how)
        try:
            proc.wait(WAIT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(WAIT)

    def request(self, method: str, path: str, body: Any = None, cookie: str = "") -> tuple[int, Any, str]:
        return request(self.port, method, path, body, cookie, timeout=10)

    def login(self, name: str) -> str:
        """A guest ``name`` signs in: its session cookie."""
        status, body, cookie = self.request("POST", "/api/login", {"name": name})
        assert status == 200 and cookie, body
        return cookie

    def quickstart(self, cookie: str, **room: Any) -> str:
        """``cookie``'s guest starts a quick table with the settings ``room``: its code."""
        status, body, _ = self.request("POST", "/api/quickstart", room, cookie)
        assert status == 200, body
        code: str = body["code"]
        return code

    def books(self) -> dict[str, int]:
        """The ledger's totals now (:func:`books`)."""
        with opened(self.db) as store:
            return books(store)

    def socket(self, code: str, cookie: str) -> ClientConnection:
        return connect(f"ws://127.0.0.1:{self.port}/ws/{code}", additional_headers={"Cookie": cookie},
                       open_timeout=WAIT, close_timeout=1)


@contextlib.contextmanager
def twins(calm_db: str, killed_db: str, workdir: Path, config: str = SEEDED) -> Iterator[tuple[Served, Served]]:
    """Two servers with the same settings, each on a database and a port of its own, not yet
    started: ``calm``, to be left alone, and ``killed``; neither is left running after the block."""
    port, other = free_port(), free_port()
    while other == port:
        other = free_port()
    calm = Served(calm_db, port, workdir / "calm", config)
    killed = Served(killed_db, other, workdir / "killed", config)
    try:
        yield calm, killed
    finally:
        calm.kill()
        killed.kill()


def side_by_side(calm: Callable[[], T], killed: Callable[[], U]) -> tuple[T, U]:
    """``calm()`` on a thread of its own while ``killed()`` runs on this one: both results. The
    reference run and the disturbed one share the wall clock: the test waits for the longer only."""
    with ThreadPoolExecutor(1) as aside:
        reference = aside.submit(calm)
        run = killed()
        return reference.result(), run


@contextlib.contextmanager
def opened(db: str) -> Iterator[Store]:
    """The store on ``db``, whose schema a server made, for the block. It does not migrate: Alembic's
    migration context is one per process, and the calm and the killed run read their databases at once."""
    store = Store(db, migrate_schema=False)
    try:
        yield store
    finally:
        store.close()


@dataclass
class Kill:
    """What the database held right after a kill."""

    hands_played: int
    hand_no: int | None  # the hand in play, if one was
    actions: list[dict[str, Any]]  # its logged actions, as a record lists them (without the log's stand-in marks)


def match_row(store: Store, code: str) -> MatchRow:
    with Session(store.engine) as s:
        row = s.scalars(select(MatchRow).join(Room, Room.id == MatchRow.room_id).where(Room.name == code)).one()
        return row


def read_kill(db: str, code: str) -> Kill:
    with opened(db) as store:
        row = match_row(store, code)
        running = [m for m in store.rooms.running_matches() if m.match_id == row.id]
        hand = running[0].hand if running else None
        actions = [{k: v for k, v in a.items() if k != STAND_IN} for a in hand.actions] if hand else []
        return Kill(row.hands_played, hand.hand_no if hand else None, actions)


def books(store: Store) -> dict[str, int]:
    """The ledger's totals; fails on any broken invariant, and when a coin was made or lost."""
    totals = store.ledger.audit()  # raises on any broken invariant of the ledger
    assert totals["players"] + totals["house"] == totals["issued"]  # no coin made or lost
    return totals


@dataclass
class Kept:
    """What the database kept of one match at its end (:meth:`read`)."""

    status: str = ""
    records: list[dict[str, Any]] = field(default_factory=list)
    results: list[dict[str, Any]] = field(default_factory=list)
    balances: dict[str, int] = field(default_factory=dict)
    postings: list[tuple[str, int]] = field(default_factory=list)  # of the one player asked about
    books_after: dict[str, int] = field(default_factory=dict)
    settlements: int = 0
    hand_nos: list[int] = field(default_factory=list)  # of the hands it kept, in the order it kept them

    def read(self, db: str, code: str, players: list[str], postings_of: str) -> None:
        with opened(db) as store:
            row = match_row(store, code)
            self.status = row.status
            hands = store.hands.hand_results(row.id)
            self.records = [h.record for h in hands]
            self.results = [h.to_json() for h in hands]
            self.balances = store.ledger.balances(players)
            self.postings = [(reason, amount) for _, reason, amount in store.ledger.postings(postings_of)]
            self.books_after = books(store)
            with Session(store.engine) as s:
                self.settlements = s.scalar(select(func.count()).select_from(Settlement)) or 0
                self.hand_nos = list(s.scalars(select(HandRow.hand_no).where(HandRow.match_id == row.id)
                                               .order_by(HandRow.id)).all())


class Watcher:
    """The guest's socket for one life of the server: what it was shown of each hand."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.events: dict[int, list[Any]] = {}
        self.first_state: dict[str, Any] | None = None
        self.hand_no = 0
        self.match_over = False

    def read(self, timeout: float = WAIT) -> dict[str, Any]:
        msg: dict[str, Any] = json.loads(self.ws.recv(timeout=timeout))
        kind = msg["type"]
        assert kind != "error", msg
        if kind == "state":
            if self.first_state is None:
                self.first_state = msg
                assert msg["reset"], msg
            hand_no = msg["hand_no"]
            assert hand_no >= self.hand_no, f"hand {hand_no} after hand {self.hand_no}"
            self.hand_no = hand_no
            if msg["reset"]:
                self.events[hand_no] = list(msg["events"])
            else:
                self.events.setdefault(hand_no, []).extend(msg["events"])
        elif kind == "match_end":
            self.match_over = True
        return msg


# --- a cluster behind a balancer ---------------------------------------------------------------------------
def cluster_settings(accounts_per_address: int) -> str:
    """A cluster's settings: bots at about a person's pace, a second of grace after a failover, and
    ``accounts_per_address`` guests from the one address all the tests' guests come from."""
    return f"""\
[server]
bot_delay = 0.04
bot_claim_delay = 0.02
discard_pause = 0
next_hand_delay = 0.3
restart_grace = 1
accounts_per_address = {accounts_per_address}
"""


@dataclass
class Cluster:
    """A running local cluster: the balancer's port, its folder, and ``nodes.json``."""

    port: int
    dir: Path
    info: dict[str, Any]

    def node_pid(self, name: str) -> int:
        return next(int(n["pid"]) for n in self.info["nodes"] if n["name"] == name)


def cluster_sh(*args: str, env: dict[str, str] | None = None) -> None:
    """``scripts/cluster.sh ARGS`` with this checkout's sources and Python."""
    env = with_src(env)
    env.setdefault("PYTHON", sys.executable)
    subprocess.run([str(ROOT / "scripts" / "cluster.sh"), *args], check=True, env=env, timeout=300)


@contextlib.contextmanager
def running(postgres: TempPostgres, folder: Path, nodes: int, config: str) -> Iterator[Cluster]:
    """``nodes`` nodes and nginx on a new database of ``postgres``, with the settings ``config``."""
    folder.mkdir()
    settings = folder / "server.toml"
    settings.write_text(config, encoding="utf-8")
    db = postgres.create_database(f"cluster_{uuid.uuid4().hex[:12]}")
    port = free_ports(nodes + 1)
    try:
        cluster_sh("up", "--nodes", str(nodes), "--port", str(port), "--dir", str(folder), "--db", db,
                   "--config", str(settings))
        yield Cluster(port, folder, json.loads((folder / "nodes.json").read_text()))
    finally:
        cluster_sh("down", "--dir", str(folder))


def holders(db: str) -> dict[str, str | None]:
    """Each room's node, as its lease says (live or not), of rooms still to be played."""
    with opened(db) as store, Session(store.engine) as s:
        rows = s.execute(select(Room.name, RoomLease.node).join(RoomLease, RoomLease.room_id == Room.id)
                         .where(RoomLease.expires_at.is_not(None))).all()
        return {name: node for name, node in rows}


@contextlib.contextmanager
def paused(pid: int) -> Iterator[None]:
    """The process ``pid`` stopped (SIGSTOP) for the block, then let go on (SIGCONT)."""
    os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(pid, signal.SIGCONT)


@dataclass
class Guest:
    """One person at a quick table of their own, through the balancer, on a thread of its own.

    The page's way to its table: ``/ws/CODE`` through the balancer; a node that does not run the
    room closes with :data:`MOVED` and the name of the one that does, reached at ``/n/NAME/ws/CODE``;
    anything else (4503, a dead connection) means: try again through the balancer, until the
    match ends, the room is gone (4404) or ``patience`` runs out. Without a ``player`` in 托管 (asked
    for again whenever a hand shows it off), else answering each decision as ``player`` picks (from a
    state, an action or None). What it is shown is checked as it comes: a hand never goes back, and a
    hand shown again shows every event it showed before first."""

    port: int
    name: str
    player: Callable[[dict[str, Any]], dict[str, Any] | None] | None = None
    hands: int = 2
    wait: float = 90.0  # for one message
    patience: float = 360.0  # for the whole match
    code: str = ""
    cookie: str = ""
    seen: dict[int, list[Any]] = field(default_factory=dict)
    hand_no: int = 0
    in_hand: bool = False
    over: bool = False  # shown the match's end
    gone: bool = False  # told the room is no more, its end not shown
    acked: list[dict[str, Any]] = field(default_factory=list)
    """Every action of its own the server said was done, with its hand's number."""
    problems: list[str] = field(default_factory=list)
    states: list[tuple[float, int, bool]] = field(default_factory=list)
    """(when, hand_no, reset) of every state shown."""
    moved: int = 0
    thread: threading.Thread | None = None

    def start(self) -> None:
        """Sign in, start the quick table, and play it on a thread of its own."""
        status, body, self.cookie = request(self.port, "POST", "/api/login", {"name": self.name})
        assert status == 200, body
        status, body, _ = request(self.port, "POST", "/api/quickstart", {"hands": self.hands}, self.cookie)
        assert status == 200, body
        self.code = body["code"]
        self.thread = threading.Thread(target=self._run, name=self.name, daemon=True)
        self.thread.start()

    @property
    def trustee(self) -> bool:
        return self.player is None

    def join(self, timeout: float) -> None:
        assert self.thread is not None
        self.thread.join(timeout)

    @property
    def done(self) -> bool:
        return self.thread is not None and not self.thread.is_alive()

    def shown_again(self, since: float) -> list[tuple[float, int]]:
        """(seconds after ``since``, hand_no) of every whole table (a reset state) shown after ``since``."""
        return [(t - since, h) for t, h, reset in self.states if t > since and reset]

    def _run(self) -> None:
        path = f"/ws/{self.code}"
        deadline = time.monotonic() + self.patience
        while not (self.over or self.gone) and time.monotonic() < deadline:
            try:
                with connect(f"ws://127.0.0.1:{self.port}{path}", additional_headers={"Cookie": self.cookie},
                             open_timeout=10, close_timeout=1) as ws:
                    self._play(ws)
                path = f"/ws/{self.code}"
            except ConnectionClosed as exc:
                if exc.rcvd is not None and exc.rcvd.code == MOVED:
                    self.moved += 1
                    path = f"/n/{exc.rcvd.reason}/ws/{self.code}"  # the node that runs the room
                    continue
                if exc.rcvd is not None and exc.rcvd.code == 4404:  # the match ended meanwhile, unseen
                    self.gone = True
                    break
                path = f"/ws/{self.code}"
                time.sleep(0.2)
            except (OSError, InvalidHandshake, TimeoutError):
                path = f"/ws/{self.code}"
                time.sleep(0.2)
        if not (self.over or self.gone):
            self.problems.append("the match did not end")

    def _play(self, ws: Any) -> None:
        if self.player is None:
            ws.send(json.dumps({"type": "trustee", "on": True}))
        sent: dict[str, Any] | None = None
        answered: Any = None
        asked = 0  # the hand 托管 was last asked for in
        while True:
            msg = json.loads(ws.recv(timeout=self.wait))
            kind = msg["type"]
            if kind == "state":
                hand_no = msg["hand_no"]
                self.states.append((time.monotonic(), hand_no, bool(msg["reset"])))
                if hand_no < self.hand_no:
                    self.problems.append(f"hand {hand_no} after hand {self.hand_no}")
                self.hand_no = hand_no
                self.in_hand = True
                if msg["reset"]:
                    before = self.seen.get(hand_no, [])
                    if msg["events"][: len(before)] != before:
                        self.problems.append(f"hand {hand_no}: the events shown before are not shown again")
                    self.seen[hand_no] = list(msg["events"])
                else:
                    self.seen.setdefault(hand_no, []).extend(msg["events"])
                if self.player is None and msg.get("trustee") is False and asked != hand_no:
                    asked = hand_no  # 托管 does not carry over into the next hand
                    ws.send(json.dumps({"type": "trustee", "on": True}))
                pick = None if self.player is None or msg["decision"] == answered else self.player(msg)
                if pick is not None:
                    answered = msg["decision"]
                    sent = pick
                    ws.send(json.dumps({"type": "action", "action": pick, "version": msg["version"]}))
            elif kind == "ok" and msg.get("for") == "action" and sent is not None:
                self.acked.append({"hand_no": self.hand_no, **sent})
                sent = None
            elif kind == "hand_end":
                self.in_hand = False
            elif kind == "match_end":
                self.over = True
                return
            elif kind == "error" and msg["code"] in ("database_error", "server_error", "lease_lost",
                                                       "settlement_failed"):
                self.problems.append(f"error {msg['code']}: {msg.get('message')}")
