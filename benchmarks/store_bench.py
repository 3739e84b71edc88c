"""The store's two writes on the web table's path, alone: a hand's settlement and a hand-log write.

    python benchmarks/store_bench.py [--matches 50] [--actions 1000] [--url URL] [--json]

Plays ``--matches`` matches of four hands each (heuristic bots, chengdu), then settles every
hand through :meth:`xuezhan.server.storebank.StoreBank.settle_hand` (the server's call: the
bots' top-up, the settlement, the balances read back) and writes ``--actions`` hand-log
entries one per call (:meth:`xuezhan.store.Hands.write_log`: a table's flush at a quiet
moment, when its group commit holds one action). Reports the process's CPU time per
settlement and per write (``settle_cpu_ms``, ``log_write_cpu_ms``) and their wall time, on a
SQLite file in a temporary folder (or ``--url``). The CPU time is the figure a busy machine
disturbs least; ``benchmarks/compare.py`` compares two trees with it.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from xuezhan.bots import make_bot
from xuezhan.match import HandResult, RoomConfig
from xuezhan.rules import Rules
from xuezhan.runtime.incidents import play_match_hand
from xuezhan.server.storebank import StoreBank
from xuezhan.store import Store


class Saved:
    """A match's state after one of its hands, as :meth:`Store.settle_hand` reads it."""

    def __init__(self, state: dict[str, Any]) -> None:
        self.state = state

    def state_json(self) -> dict[str, Any]:
        return self.state


def played(store: Store, matches: int, hands: int = 4) -> list[tuple[str, HandResult, Saved]]:
    """Every hand of ``matches`` matches, played out, in the order a server settles them."""
    rng = random.Random(1)
    out = []
    for m in range(matches):
        people = [f"p{m}_{i}" for i in range(4)]
        for p in people:
            store.accounts.create_account(p, 100_000)
        store.rooms.create_room(f"r{m}", RoomConfig(Rules.preset("chengdu"), coefficient=50, fee=20, hands=hands))
        match_id, match = store.rooms.start_match(f"r{m}", people, seed=m)
        for _ in range(hands):
            hand = match.start_hand()
            play_match_hand(hand, [make_bot("heuristic", random.Random(k)) for k in range(4)], rng)
            result = match.finish_hand(hand)
            out.append((str(match_id), result, Saved(match.state_json())))
    out.sort(key=lambda job: job[1].hand_no)
    return out


def measure(url: str, matches: int, actions: int) -> dict[str, Any]:
    store = Store(url)
    bank = StoreBank(store)
    try:
        jobs = played(store, matches)
        wall, cpu = time.perf_counter(), time.process_time()
        for key, result, saved in jobs:
            bank.settle_hand(key, result, saved)  # type: ignore[arg-type]  # only its state is read
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        store.audit()
        match_id, _ = store.rooms.start_match("r0", [f"p0_{i}" for i in range(4)], seed=99)
        store.hands.write_log([("begin", match_id, 1, 5, {"seating": [0, 1, 2, 3]})])
        log_wall, log_cpu = time.perf_counter(), time.process_time()
        for n in range(actions):
            store.hands.write_log([("action", match_id, 1, n, {"type": "discard", "seat": n % 4, "tile": "5m"})])
        log_wall, log_cpu = time.perf_counter() - log_wall, time.process_time() - log_cpu
    finally:
        bank.close()
    return {
        "settlements": len(jobs),
        "settle_cpu_ms": round(cpu * 1000 / len(jobs), 3),
        "settle_wall_ms": round(wall * 1000 / len(jobs), 3),
        "log_writes": actions,
        "log_write_cpu_ms": round(log_cpu * 1000 / actions, 4),
        "log_write_wall_ms": round(log_wall * 1000 / actions, 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=50)
    parser.add_argument("--actions", type=int, default=1000)
    parser.add_argument("--url", default=None, help="a database to use (by default a new SQLite file)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = args.url or f"sqlite:///{Path(tmp) / 'bench.sqlite3'}"
        result = measure(url, args.matches, args.actions)
    if args.json:
        print(json.dumps(result))
        return
    print(f"{result['settlements']} settlements: {result['settle_cpu_ms']} ms of CPU each "
          f"({result['settle_wall_ms']} ms wall); {result['log_writes']} hand-log writes: "
          f"{result['log_write_cpu_ms']} ms of CPU each ({result['log_write_wall_ms']} ms wall)")


if __name__ == "__main__":
    main()
