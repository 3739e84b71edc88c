"""The restart promise (docs/interfaces.md §8.6, restarts), tested by killing a real server.

A ``xuezhan serve`` process plays a match of a guest in 托管 and three heuristic bots. The
server is killed with SIGKILL at random moments (a seeded random picks them) while hands
are running and started again on the same database and port; the guest reconnects each
time, until the match ends. Then the match must be the one the same server plays without
a crash: the same hand records, the same coins, every hand settled exactly once, no coin
made or lost, and after every restart the hand carried on from its last applied action.

Every seat's decision is a bot's (the guest's time limits and restart grace are zero, and it
asks for 托管), and every seat answers after the same bot delay (a person's stand-in never
sooner than a bot would), so the order in which seats answer
a shared decision (换三张, 定缺, a claim window) is the seats' order whatever the timing:
the match is a function of the server's seed alone.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session
from websockets.sync.client import ClientConnection, connect

from xuezhan.store import Store
from xuezhan.store.models import HandRow, MatchRow, Room, Settlement
from xuezhan.store.pgtemp import TempPostgres, shared_server

SRC = Path(__file__).resolve().parents[1] / "src"
SERVER_SEED = 20_261_201
KILL_SEEDS = {"sqlite": 7, "postgresql": 11}
HANDS = 3
FEE = 5
MIN_KILLS = 10  # per database, each while a hand is being played
MAX_LIVES = 200  # a bound on the loop, far above what a match takes
WAIT = 60.0  # seconds: generous bounds on waits, never timing assertions
CONFIG = f"""\
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


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Served:
    """One ``xuezhan serve`` process on a fixed port and database, started again after each kill."""

    def __init__(self, db: str, port: int, workdir: Path) -> None:
        self.db = db
        self.port = port
        self.workdir = workdir
        workdir.mkdir(parents=True, exist_ok=True)
        self.config = workdir / "server.toml"
        self.config.write_text(CONFIG, encoding="utf-8")
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0
        path = os.environ.get("PYTHONPATH", "")
        self.env = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{path}" if path else str(SRC),
                    "XUEZHAN_SECRET": "kill-test-secret"}

    @property
    def log(self) -> Path:
        return self.workdir / f"serve-{self.starts}.log"

    def tail(self) -> str:
        try:
            return self.log.read_text(encoding="utf-8", errors="replace")[-3000:]
        except OSError:
            return ""

    def start(self) -> None:
        assert self.proc is None
        self.starts += 1
        with self.log.open("wb") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "xuezhan", "serve", "--host", "127.0.0.1", "--port", str(self.port),
                 "--db", self.db, "--config", str(self.config)],
                env=self.env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            )
        deadline = time.monotonic() + WAIT
        while True:
            if self.proc.poll() is not None:
                raise AssertionError(f"the server exited with {self.proc.returncode}:\n{self.tail()}")
            try:
                status, _, _ = self.request("GET", "/api/tiers")
                if status == 200:
                    return
            except OSError:
                pass
            assert time.monotonic() < deadline, f"the server did not come up:\n{self.tail()}"
            time.sleep(0.02)

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs, as when the machine loses power."""
        proc, self.proc = self.proc, None
        if proc is not None:
            if proc.poll() is None:
                os.kill(proc.pid, signal.SIGKILL)
            proc.wait(WAIT)

    def request(self, method: str, path: str, body: Any = None, cookie: str = "") -> tuple[int, Any, str]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            headers = {"Content-Type": "application/json"}
            if cookie:
                headers["Cookie"] = cookie
            conn.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
            response = conn.getresponse()
            data = json.loads(response.read() or b"null")
            set_cookie = response.getheader("set-cookie") or ""
            return response.status, data, set_cookie.split(";")[0]
        finally:
            conn.close()

    def socket(self, code: str, cookie: str) -> ClientConnection:
        return connect(f"ws://127.0.0.1:{self.port}/ws/{code}", additional_headers={"Cookie": cookie},
                       open_timeout=WAIT, close_timeout=1)


@dataclass
class Kill:
    """What the database held right after a kill."""

    hands_played: int
    hand_no: int | None  # the hand in play, if one was
    actions: list[dict[str, Any]]  # its logged actions


@dataclass
class Run:
    """One match from quickstart to its end, as the guest saw it and as the database kept it."""

    code: str = ""
    kills: list[Kill] = field(default_factory=list)
    hand_nos_seen: list[int] = field(default_factory=list)
    records: list[dict[str, Any]] = field(default_factory=list)
    results: list[dict[str, Any]] = field(default_factory=list)
    balances: dict[str, int] = field(default_factory=dict)
    postings: list[tuple[str, int]] = field(default_factory=list)
    books_before: dict[str, int] = field(default_factory=dict)
    books_after: dict[str, int] = field(default_factory=dict)
    settlements: int = 0
    status: str = ""


def match_row(store: Store, code: str) -> MatchRow:
    with Session(store.engine) as s:
        row = s.scalars(select(MatchRow).join(Room, Room.id == MatchRow.room_id).where(Room.name == code)).one()
        return row


def read_kill(db: str, code: str) -> Kill:
    store = Store(db)
    try:
        row = match_row(store, code)
        running = [m for m in store.rooms.running_matches() if m.match_id == row.id]
        hand = running[0].hand if running else None
        return Kill(row.hands_played, hand.hand_no if hand else None, list(hand.actions) if hand else [])
    finally:
        store.close()


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


def books(store: Store) -> dict[str, int]:
    totals = store.ledger.audit()  # raises on any broken invariant of the ledger
    assert totals["players"] + totals["house"] == totals["issued"]  # no coin made or lost
    return totals


def play(served: Served, rng: random.Random | None) -> Run:
    """Play one quickstart match to its end; with ``rng``, kill the server at random moments."""
    run = Run()
    status, body, cookie = served.request("POST", "/api/login", {"name": "kim"})
    assert status == 200 and cookie, body
    status, body, _ = served.request("POST", "/api/quickstart", {"hands": HANDS, "fee": FEE}, cookie)
    assert status == 200, body
    run.code = body["code"]
    store = Store(served.db)
    try:
        run.books_before = books(store)
    finally:
        store.close()
    seen: dict[int, list[Any]] = {}  # the events of each hand the guest was shown, across lives
    for _ in range(MAX_LIVES):
        with served.socket(run.code, cookie) as ws:
            ws.send(json.dumps({"type": "trustee", "on": True}))
            watcher = Watcher(ws)
            # moments: after a random number of the guest's updates (about one per action), short
            # ones until enough kills have hit hands in play, then longer ones to the match's end
            budget = -1
            if rng is not None:
                budget = rng.randint(1, 12 if len(run.kills) < MIN_KILLS + 6 else 40)
            while not watcher.match_over and budget != 0:
                msg = watcher.read()
                if msg["type"] in ("state", "hand_end"):
                    budget -= 1
            state = watcher.first_state
            if state is not None:
                # the same hand again, every event shown before the kill first
                run.hand_nos_seen.append(state["hand_no"])
                before = seen.get(state["hand_no"], [])
                shown = watcher.events[state["hand_no"]]
                assert shown[: len(before)] == before, f"hand {state['hand_no']} changed across a restart"
            for hand_no, events in watcher.events.items():
                seen[hand_no] = events
            if watcher.match_over:
                break
            assert rng is not None
            time.sleep(rng.uniform(0.0, 0.02))  # the bots play on: the kill lands anywhere
            served.kill()
        kill = read_kill(served.db, run.code)
        run.kills.append(kill)
        if kill.hand_no is None and kill.hands_played == HANDS:
            break  # killed after the last settlement: nothing left to carry on
        served.start()
    else:
        raise AssertionError("the match did not end")
    store = Store(served.db)
    try:
        row = match_row(store, run.code)
        run.status = row.status
        hands = store.hands.hand_results(row.id)
        run.records = [h.record for h in hands]
        run.results = [h.to_json() for h in hands]
        run.balances = store.ledger.balances(["kim", "bot:1", "bot:2", "bot:3"])
        run.postings = [(reason, amount) for _, reason, amount in store.ledger.postings("kim")]
        run.books_after = books(store)
        with Session(store.engine) as s:
            run.settlements = s.scalar(select(func.count()).select_from(Settlement)) or 0
            hand_nos = s.scalars(select(HandRow.hand_no).where(HandRow.match_id == row.id).order_by(HandRow.id)).all()
        assert list(hand_nos) == list(range(1, HANDS + 1))
    finally:
        store.close()
    return run


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str, str]]:
    """``(name, database of the killed server, database of the undisturbed one)``."""
    if request.param == "sqlite":
        yield "sqlite", f"sqlite:///{tmp_path / 'killed.sqlite3'}", f"sqlite:///{tmp_path / 'calm.sqlite3'}"
        return
    server: TempPostgres = shared_server()  # fails (never skips) without PostgreSQL
    tag = uuid.uuid4().hex[:12]
    yield "postgresql", server.create_database(f"killed_{tag}"), server.create_database(f"calm_{tag}")


def test_a_server_killed_at_random_moments_plays_the_match_it_would_have_played(
    backend: tuple[str, str, str], tmp_path: Path
) -> None:
    name, killed_db, calm_db = backend
    port = free_port()
    calm = Served(calm_db, port, tmp_path / "calm")
    killed = Served(killed_db, port, tmp_path / "killed")
    try:
        calm.start()
        reference = play(calm, None)
        calm.kill()
        killed.start()
        run = play(killed, random.Random(KILL_SEEDS[name]))
    finally:
        calm.kill()
        killed.kill()

    mid_hand = [k for k in run.kills if k.hand_no is not None]
    print(f"{name}: {len(run.kills)} kills, {len(mid_hand)} while a hand was in play")
    assert len(mid_hand) >= MIN_KILLS, f"only {len(mid_hand)} of {len(run.kills)} kills hit a hand in play"
    assert reference.status == run.status == "finished"
    assert reference.settlements == run.settlements == HANDS  # each hand settled once
    # after every restart the hand went on from its last applied action, never back
    assert run.hand_nos_seen == sorted(run.hand_nos_seen)
    assert [k.hands_played for k in run.kills] == sorted(k.hands_played for k in run.kills)
    for k in mid_hand:
        assert k.hand_no == k.hands_played + 1
        record = run.records[k.hand_no - 1]
        assert record["actions"][: len(k.actions)] == k.actions, f"hand {k.hand_no} was not carried on"
    # the very match the server plays without a crash
    assert run.records == reference.records
    assert run.results == reference.results
    assert run.balances == reference.balances
    assert run.postings == reference.postings  # the guest's coins moved once per hand, as without a crash
    assert run.books_before == reference.books_before
    assert run.books_after == reference.books_after
    assert run.books_after["issued"] == run.books_before["issued"]
    assert run.books_after["house"] - run.books_before["house"] == 4 * FEE * HANDS
