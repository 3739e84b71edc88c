"""Many nodes behind a real balancer (docs/deploy.md): three ``xuezhan serve --node`` processes and
Debian's nginx, started by ``scripts/cluster.sh``, on the project's test PostgreSQL.

Four tables are played through the balancer: one person who plays every decision of their own,
three who leave theirs to 托管, bots in the other seats. While the person's hand is in play the
node running it is killed with SIGKILL. Then every room of that node goes on on another node within
10 s (its lease taken over, its hand carried on from the log); each player's page reconnects
through the balancer and is shown the same hand, every event it saw before first (no action lost:
everything the person was told was done is in the hand's record); every match is played to its end,
each hand settled once, and the ledger's audit balances.

The clients follow the cluster's way to a table: ``/ws/CODE`` through the balancer; a node that
does not run the room closes with 4307 and the name of the one that does, reached at
``/n/NAME/ws/CODE``; 4503 (or a dead connection) means: try again through the balancer.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import signal
import socket
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session
from websockets.exceptions import ConnectionClosed, InvalidHandshake
from websockets.sync.client import connect

from xuezhan.server.nodes import MOVED
from xuezhan.store import Store
from xuezhan.store.models import MatchRow, Room, RoomLease, Settlement
from xuezhan.store.pgtemp import TempPostgres

ROOT = Path(__file__).resolve().parents[1]
HANDS = 2
FAILOVER = 10.0  # seconds: the promise
WAIT = 90.0  # generous bounds on waits, never timing assertions
CONFIG = """\
[server]
bot_delay = 0.04
bot_claim_delay = 0.02
discard_pause = 0
next_hand_delay = 0.3
restart_grace = 1
accounts_per_address = 20
"""


def free_ports(count: int) -> int:
    """A port P with P..P+count-1 free (for the balancer and the nodes)."""
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


@dataclass
class Cluster:
    port: int
    dir: Path
    info: dict[str, Any]

    def node_pid(self, name: str) -> int:
        return next(int(n["pid"]) for n in self.info["nodes"] if n["name"] == name)


def cluster_sh(*args: str) -> None:
    env = {**os.environ, "PYTHON": os.environ.get("PYTHON", __import__("sys").executable)}
    path = env.get("PYTHONPATH", "")
    env["PYTHONPATH"] = f"{ROOT / 'src'}{os.pathsep}{path}" if path else str(ROOT / "src")
    subprocess.run([str(ROOT / "scripts" / "cluster.sh"), *args], check=True, env=env, timeout=300)


@contextmanager
def running(postgres: TempPostgres, folder: Path, nodes: int) -> Iterator[Cluster]:
    folder.mkdir()
    config = folder / "server.toml"
    config.write_text(CONFIG, encoding="utf-8")
    db = postgres.create_database(f"cluster_{uuid.uuid4().hex[:12]}")
    port = free_ports(nodes + 1)
    try:
        cluster_sh("up", "--nodes", str(nodes), "--port", str(port), "--dir", str(folder), "--db", db,
                   "--config", str(config))
        yield Cluster(port, folder, json.loads((folder / "nodes.json").read_text()))
    finally:
        cluster_sh("down", "--dir", str(folder))


@pytest.fixture
def cluster(postgres: TempPostgres, tmp_path: Path) -> Iterator[Cluster]:
    with running(postgres, tmp_path / "cluster", 3) as c:
        yield c


@pytest.fixture
def pair(postgres: TempPostgres, tmp_path: Path) -> Iterator[Cluster]:
    with running(postgres, tmp_path / "pair", 2) as c:
        yield c


def request(port: int, method: str, path: str, body: Any = None, cookie: str = "") -> tuple[int, Any, str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
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


def choose(state: dict[str, Any]) -> dict[str, Any] | None:
    """A simple player: win when it can, never claim otherwise, discard the drawn tile."""
    legal = state["view"]["legal"]
    if state["decision"] is None or not legal:
        return None
    types = {a["type"] for a in legal}
    if "hu" in types:
        return {"type": "hu"}
    if "pass" in types:
        return {"type": "pass"}
    if "dingque" in types:
        return {"type": "dingque", "suit": legal[0]["suit"]}
    if "exchange" in types:
        return {"type": "exchange", "tiles": legal[0]["tiles"]}
    discards = [a["tile"] for a in legal if a["type"] == "discard"]
    drawn = state["view"]["drawn"]
    return {"type": "discard", "tile": drawn if drawn in discards else discards[-1]}


@dataclass
class Player:
    """One person at their own quick table, through the balancer, on a thread of its own."""

    port: int
    name: str
    trustee: bool
    code: str = ""
    cookie: str = ""
    seen: dict[int, list[Any]] = field(default_factory=dict)
    hand_no: int = 0
    in_hand: bool = False
    over: bool = False
    acked: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    states: list[tuple[float, int, bool]] = field(default_factory=list)
    """(when, hand_no, reset) of every state shown."""
    moved: int = 0
    thread: threading.Thread | None = None

    def start(self) -> None:
        status, body, self.cookie = request(self.port, "POST", "/api/login", {"name": self.name})
        assert status == 200, body
        status, body, _ = request(self.port, "POST", "/api/quickstart", {"hands": HANDS}, self.cookie)
        assert status == 200, body
        self.code = body["code"]
        self.thread = threading.Thread(target=self._run, name=self.name, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        path = f"/ws/{self.code}"
        deadline = time.monotonic() + 4 * WAIT
        while not self.over and time.monotonic() < deadline:
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
                path = f"/ws/{self.code}"
                time.sleep(0.2)
            except (OSError, InvalidHandshake, TimeoutError):
                path = f"/ws/{self.code}"
                time.sleep(0.2)
        if not self.over:
            self.problems.append("the match did not end")

    def _play(self, ws: Any) -> None:
        if self.trustee:
            ws.send(json.dumps({"type": "trustee", "on": True}))
        sent: dict[str, Any] | None = None
        answered: Any = None
        while True:
            msg = json.loads(ws.recv(timeout=WAIT))
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
                pick = None if self.trustee or msg["decision"] == answered else choose(msg)
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


def holders(db: str) -> dict[str, str | None]:
    """Each room's node, as its lease says (live or not), of rooms still to be played."""
    store = Store(db, migrate_schema=False)
    try:
        with Session(store.engine) as s:
            rows = s.execute(select(Room.name, RoomLease.node).join(RoomLease, RoomLease.room_id == Room.id)
                             .where(RoomLease.expires_at.is_not(None))).all()
            return {name: node for name, node in rows}
    finally:
        store.close()


def subsequence(needles: list[dict[str, Any]], hay: list[dict[str, Any]]) -> bool:
    it = iter(hay)
    return all(any(all(h.get(k) == v for k, v in n.items()) for h in it) for n in needles)


def test_a_node_killed_mid_hand_its_rooms_go_on_elsewhere_and_nothing_is_lost(cluster: Cluster) -> None:
    db = cluster.info["db"]
    people = [Player(cluster.port, "kim", trustee=False)] + [
        Player(cluster.port, f"p{i}", trustee=True) for i in range(1, 4)]
    for p in people:
        p.start()
    store = Store(db, migrate_schema=False)
    try:
        issued_before = store.ledger.audit()["issued"]  # the new accounts' coins included
    finally:
        store.close()
    kim = people[0]
    deadline = time.monotonic() + WAIT
    while not (kim.in_hand and len(kim.seen.get(kim.hand_no, [])) >= 12 and len(kim.acked) >= 2):
        assert time.monotonic() < deadline, "kim's hand did not get going"
        assert not kim.over
        time.sleep(0.02)
    before = holders(db)
    victim = before[kim.code]
    assert victim is not None
    rooms = sorted(code for code, node in before.items() if node == victim)
    os.kill(cluster.node_pid(victim), signal.SIGKILL)
    killed_at = time.monotonic()
    seen_at_kill = {p.code: (p.hand_no, p.in_hand) for p in people}

    # every room of the dead node is taken by another node within 10 s
    taken_at: dict[str, float] = {}
    while len(taken_at) < len(rooms):
        now = holders(db)
        for code in rooms:
            if code not in taken_at and now.get(code) not in (None, victim):
                taken_at[code] = time.monotonic() - killed_at
        assert time.monotonic() - killed_at < WAIT, f"rooms {set(rooms) - set(taken_at)} were not taken over"
        time.sleep(0.1)
    for p in people:
        assert p.thread is not None
        p.thread.join(4 * WAIT)
    print(f"killed {victim} running {rooms}; taken over after {taken_at}")
    for p in people:
        assert not p.problems, (p.name, p.problems)
        assert p.over
        if p.code in rooms:
            hand_no, in_hand = seen_at_kill[p.code]
            # the page is back on the same hand, every event shown before first, within 10 s
            back = [(t - killed_at, h) for t, h, reset in p.states if t > killed_at and reset]
            assert back, f"{p.name}'s table was never shown again"
            after, shown_hand = back[0]
            if in_hand:
                assert shown_hand == hand_no
            assert after < FAILOVER, f"{p.name} saw its table again only after {after:.1f} s"
    assert max(taken_at.values()) < FAILOVER
    assert kim.moved >= 1  # kim's page was sent from the balancer's node to the one running the room

    store = Store(db, migrate_schema=False)
    try:
        totals = store.ledger.audit()  # raises on any broken invariant
        assert totals["players"] + totals["house"] == totals["issued"] == issued_before  # no coin made or lost
        with Session(store.engine) as s:
            for p in people:
                match = s.scalars(select(MatchRow).join(Room, Room.id == MatchRow.room_id)
                                  .where(Room.name == p.code)).one()
                assert (match.status, match.hands_played) == ("finished", HANDS)
                settled = s.scalar(select(func.count()).select_from(Settlement)
                                   .where(Settlement.key.like(f"match/{match.id}/hand/%")))
                assert settled == HANDS
                if p is kim:  # every action kim was told was done is in the hand's record, in order
                    for hand in store.hands.hand_results(match.id):
                        mine = [{k: v for k, v in a.items() if k != "hand_no"} for a in kim.acked
                                if a["hand_no"] == hand.hand_no]
                        logged = [a for a in hand.record["actions"] if a.get("seat") == 0]
                        assert mine and subsequence(mine, logged), f"hand {hand.hand_no} lost an action of kim's"
    finally:
        store.close()


def test_a_node_paused_past_its_leases_writes_nothing_more_for_its_rooms(pair: Cluster) -> None:
    """SIGSTOP a node mid-hand until the other node has taken its room, then SIGCONT: it stops the
    room's table (its page reconnects through the balancer), the lease stays the other node's, the
    node sends a page that asks it for the room on, and the match ends with every hand settled once,
    every action of the person's in the record, and the ledger balanced."""
    db = pair.info["db"]
    kim = Player(pair.port, "kim", trustee=False)
    kim.start()
    deadline = time.monotonic() + WAIT
    while not (kim.in_hand and len(kim.seen.get(kim.hand_no, [])) >= 12 and len(kim.acked) >= 2):
        assert time.monotonic() < deadline and not kim.over, "kim's hand did not get going"
        time.sleep(0.02)
    victim = holders(db)[kim.code]
    assert victim is not None
    pid = pair.node_pid(victim)
    os.kill(pid, signal.SIGSTOP)
    try:
        paused_at = time.monotonic()
        while holders(db).get(kim.code) in (None, victim):
            assert time.monotonic() - paused_at < WAIT, "the paused node's room was not taken over"
            time.sleep(0.1)
        taker = holders(db)[kim.code]
        token = lease_token(db, kim.code)
    finally:
        os.kill(pid, signal.SIGCONT)
    log_file = pair.dir / f"{victim}.log"
    stopped = f"room {kim.code} is run by another node now; its table stops here"
    deadline = time.monotonic() + WAIT
    while stopped not in log_file.read_text(encoding="utf-8", errors="replace"):
        assert time.monotonic() < deadline, "the paused node did not stop the room's table"
        time.sleep(0.1)
    # asked directly for the room, the node that was paused sends the page to the one that runs it
    # (or, once the match is over, knows no such room)
    direct = f"ws://127.0.0.1:{pair.port}/n/{victim}/ws/{kim.code}"
    with pytest.raises(ConnectionClosed) as moved, \
            connect(direct, additional_headers={"Cookie": kim.cookie}, open_timeout=10) as ws:
        while True:
            ws.recv(timeout=WAIT)
    closed = moved.value.rcvd
    assert closed is not None
    assert (closed.code, closed.reason) == (MOVED, taker) or (closed.code == 4404 and kim.code not in holders(db))
    assert kim.thread is not None
    kim.thread.join(4 * WAIT)
    assert kim.over and kim.moved >= 1
    assert (holders(db).get(kim.code), lease_token(db, kim.code)) in ((None, None), (taker, token))
    store = Store(db, migrate_schema=False)
    try:
        store.ledger.audit()  # raises on any broken invariant
        with Session(store.engine) as s:
            match = s.scalars(select(MatchRow).join(Room, Room.id == MatchRow.room_id)
                              .where(Room.name == kim.code)).one()
            assert (match.status, match.hands_played) == ("finished", HANDS)
            settled = s.scalar(select(func.count()).select_from(Settlement)
                               .where(Settlement.key.like(f"match/{match.id}/hand/%")))
            assert settled == HANDS
        for hand in store.hands.hand_results(match.id):
            mine = [{k: v for k, v in a.items() if k != "hand_no"} for a in kim.acked if a["hand_no"] == hand.hand_no]
            logged = [a for a in hand.record["actions"] if a.get("seat") == 0]
            assert subsequence(mine, logged), f"hand {hand.hand_no} lost an action of kim's"
    finally:
        store.close()


def lease_token(db: str, code: str) -> int | None:
    """The fencing token of room ``code``'s lease while it is to be played."""
    store = Store(db, migrate_schema=False)
    try:
        with Session(store.engine) as s:
            return s.scalar(select(RoomLease.token).join(Room, Room.id == RoomLease.room_id)
                            .where(Room.name == code, RoomLease.expires_at.is_not(None)))
    finally:
        store.close()
