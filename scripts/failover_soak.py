"""Failover, over and over: a local cluster (scripts/cluster.sh) plays tables through nginx while
nodes are killed with SIGKILL, one at a time, mid-hand; each killed node is started again before
the next kill. Reports how long each of the dead node's rooms took to go on on another node, that
every match ended with each hand settled once, and the ledger's audit. Not a test: a longer run
(docs/deploy.md).

    PYTHON=.venv/bin/python scripts/failover_soak.py --kills 20 [--nodes 3] [--tables 6] [--port 18700]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session
from websockets.exceptions import ConnectionClosed, InvalidHandshake
from websockets.sync.client import connect

from xuezhan.server.nodes import MOVED
from xuezhan.store import Store
from xuezhan.store.models import MatchRow, Room, RoomLease, Settlement

HERE = Path(__file__).resolve().parent
CONFIG = """\
[server]
bot_delay = 0.04
bot_claim_delay = 0.02
discard_pause = 0
next_hand_delay = 0.3
restart_grace = 1
accounts_per_address = 1000
"""


def _cluster_module() -> Any:
    spec = importlib.util.spec_from_file_location("cluster", HERE / "cluster.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Table(threading.Thread):
    """A guest at a quick table in 托管, through the balancer, reconnecting as the page does."""

    def __init__(self, port: int, name: str, hands: int, request: Any) -> None:
        super().__init__(daemon=True, name=name)
        self.port = port
        status, body, self.cookie = request(port, "POST", "/api/login", {"name": name})
        assert status == 200, body
        status, body, _ = request(port, "POST", "/api/quickstart", {"hands": hands}, self.cookie)
        assert status == 200, body
        self.code: str = body["code"]
        self.over = False
        self.in_hand = False
        self.problems: list[str] = []
        self.seen: dict[int, list[Any]] = {}
        self.shown_at: float = 0.0

    def run(self) -> None:
        path = f"/ws/{self.code}"
        while not self.over:
            try:
                with connect(f"ws://127.0.0.1:{self.port}{path}", additional_headers={"Cookie": self.cookie},
                             open_timeout=10, close_timeout=1) as ws:
                    ws.send(json.dumps({"type": "trustee", "on": True}))
                    self._read(ws)
                path = f"/ws/{self.code}"
            except ConnectionClosed as exc:
                if exc.rcvd is not None and exc.rcvd.code == MOVED:
                    path = f"/n/{exc.rcvd.reason}/ws/{self.code}"
                    continue
                if exc.rcvd is not None and exc.rcvd.code == 4404:  # its match ended and the room closed meanwhile
                    self.over = True
                    return
                path = f"/ws/{self.code}"
                time.sleep(0.2)
            except (OSError, InvalidHandshake, TimeoutError):
                path = f"/ws/{self.code}"
                time.sleep(0.2)

    def _read(self, ws: Any) -> None:
        while True:
            msg = json.loads(ws.recv(timeout=120))
            if msg["type"] == "state":
                self.shown_at = time.monotonic()
                self.in_hand = True
                hand_no, events = msg["hand_no"], msg["events"]
                if msg["reset"]:
                    before = self.seen.get(hand_no, [])
                    if events[: len(before)] != before:
                        self.problems.append(f"hand {hand_no} changed across a failover")
                    self.seen[hand_no] = list(events)
                else:
                    self.seen.setdefault(hand_no, []).extend(events)
            elif msg["type"] == "hand_end":
                self.in_hand = False
            elif msg["type"] == "match_end":
                self.over = True
                return


def holders(store: Store) -> dict[str, str | None]:
    with Session(store.engine) as s:
        rows = s.execute(select(Room.name, RoomLease.node).join(RoomLease, RoomLease.room_id == Room.id)
                         .where(RoomLease.expires_at.is_not(None))).all()
    return {name: node for name, node in rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--nodes", type=int, default=3)
    parser.add_argument("--tables", type=int, default=6)
    parser.add_argument("--hands", type=int, default=8)
    parser.add_argument("--port", type=int, default=18700)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--db", default=None, metavar="URL")
    args = parser.parse_args()
    cluster_py = _cluster_module()
    sys.path.insert(0, str(HERE.parent / "tests"))
    from test_cluster import request  # the tests' HTTP helper

    rng = random.Random(args.seed)
    folder = Path(tempfile.mkdtemp(prefix="xuezhan-soak-"))
    config = folder / "server.toml"
    config.write_text(CONFIG)
    env_python = os.environ.get("PYTHON", sys.executable)
    up = [str(HERE / "cluster.sh"), "up", "--nodes", str(args.nodes), "--port", str(args.port), "--dir",
          str(folder), "--config", str(config)] + (["--db", args.db] if args.db else [])
    subprocess.run(up, check=True, env={**os.environ, "PYTHON": env_python})
    info = json.loads((folder / "nodes.json").read_text())
    store = Store(info["db"], migrate_schema=False)
    takeovers: list[float] = []
    shown: list[float] = []
    tables: list[Table] = []
    made = 0
    kills = 0
    try:
        for kill in range(args.kills):
            tables = [t for t in tables if not t.over]
            while len(tables) < args.tables:
                made += 1
                t = Table(args.port, f"soak{made}", args.hands, request)
                t.start()
                tables.append(t)
            time.sleep(rng.uniform(1.0, 4.0))
            now = holders(store)
            playing = [t for t in tables if t.in_hand and now.get(t.code)]
            if not playing:
                continue
            victim = now[rng.choice(playing).code]
            rooms = [code for code, node in now.items() if node == victim]
            node = next(n for n in info["nodes"] if n["name"] == victim)
            os.kill(node["pid"], signal.SIGKILL)
            killed = time.monotonic()
            kills += 1
            moved: dict[str, float] = {}
            while len(moved) < len(rooms) and time.monotonic() - killed < 60:
                now = holders(store)
                for code in rooms:
                    if code not in moved and now.get(code) != victim:  # None: taken, and found done
                        moved[code] = time.monotonic() - killed
                time.sleep(0.1)
            takeovers += moved.values()
            time.sleep(1.0)
            shown += [t.shown_at - killed for t in tables if t.code in rooms and t.shown_at > killed]
            print(f"kill {kill + 1}: {victim} with {len(rooms)} room(s); taken over after "
                  f"{', '.join(f'{v:.1f}' for v in sorted(moved.values()))} s"
                  + ("" if len(moved) == len(rooms) else f"; NOT TAKEN: {sorted(set(rooms) - set(moved))}"),
                  flush=True)
            node["pid"] = cluster_py.start_node(folder, victim, node["port"], info["db"], config)
            (folder / "nodes.json").write_text(json.dumps(info, indent=2) + "\n")
        for t in tables:
            t.join(600)
        problems = [p for t in tables for p in t.problems]
        audit = store.ledger.audit()
        with Session(store.engine) as s:
            unfinished = s.scalar(select(func.count()).select_from(MatchRow).where(MatchRow.status == "running"))
            settled = s.scalar(select(func.count()).select_from(Settlement))
            hands = s.scalar(select(func.sum(MatchRow.hands_played))) or 0
        print(json.dumps({
            "kills": kills, "rooms_moved": len(takeovers),
            "takeover_s": {"p50": round(statistics.median(takeovers), 2), "max": round(max(takeovers), 2)}
            if takeovers else None,
            "shown_again_s": {"p50": round(statistics.median(shown), 2), "max": round(max(shown), 2)}
            if shown else None,
            "matches_unfinished": unfinished, "hands_played": hands, "settlements": settled,
            "audit": audit, "books_balance": audit["players"] + audit["house"] == audit["issued"],
            "problems": problems,
        }, indent=2))
    finally:
        store.close()
        subprocess.run([str(HERE / "cluster.sh"), "down", "--dir", str(folder)],
                       env={**os.environ, "PYTHON": env_python})


if __name__ == "__main__":
    main()
