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
import math
import os
import random
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from xuezhan.store import Store
from xuezhan.store.models import MatchRow, Settlement

HERE = Path(__file__).resolve().parent


def _cluster_module() -> Any:
    spec = importlib.util.spec_from_file_location("cluster", HERE / "cluster.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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
    from killed import Guest, cluster_settings, cluster_sh, holders  # the failover tests' cluster, guests, leases

    rng = random.Random(args.seed)
    folder = Path(tempfile.mkdtemp(prefix="xuezhan-soak-"))
    config = folder / "server.toml"
    config.write_text(cluster_settings(accounts_per_address=1000))
    cluster_sh("up", "--nodes", str(args.nodes), "--port", str(args.port), "--dir", str(folder), "--config",
               str(config), *(["--db", args.db] if args.db else []))
    info = json.loads((folder / "nodes.json").read_text())
    db = info["db"]
    store = Store(db, migrate_schema=False)
    takeovers: list[float] = []
    shown: list[float] = []
    tables: list[Guest] = []  # those still playing
    everyone: list[Guest] = []
    made = 0
    kills = 0
    try:
        for kill in range(args.kills):
            tables = [t for t in tables if not (t.over or t.gone)]
            while len(tables) < args.tables:
                made += 1
                t = Guest(args.port, f"soak{made}", hands=args.hands, wait=120.0, patience=math.inf)
                t.start()
                tables.append(t)
                everyone.append(t)
            time.sleep(rng.uniform(1.0, 4.0))
            now = holders(db)
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
                now = holders(db)
                for code in rooms:
                    if code not in moved and now.get(code) != victim:  # None: taken, and found done
                        moved[code] = time.monotonic() - killed
                time.sleep(0.1)
            takeovers += moved.values()
            time.sleep(1.0)
            shown += [back[0][0] for t in tables if t.code in rooms and (back := t.shown_again(killed))]
            print(f"kill {kill + 1}: {victim} with {len(rooms)} room(s); taken over after "
                  f"{', '.join(f'{v:.1f}' for v in sorted(moved.values()))} s"
                  + ("" if len(moved) == len(rooms) else f"; NOT TAKEN: {sorted(set(rooms) - set(moved))}"),
                  flush=True)
            node["pid"] = cluster_py.start_node(folder, victim, node["port"], info["db"], config)
            (folder / "nodes.json").write_text(json.dumps(info, indent=2) + "\n")
        for t in tables:
            t.join(600)
        problems = [f"{t.name}: {p}" for t in everyone for p in t.problems]
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
        cluster_sh("down", "--dir", str(folder))


if __name__ == "__main__":
    main()
