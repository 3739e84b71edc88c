"""One seed, one hand: ``xuezhan simulate``, the match runtime, self-play and a web table of bots
deal and play the same first hand, action for action, to the same result.

Nothing is dropped from the records compared: each is the hand's game record with its seed and
its place in the match (``seed``, ``match``), and none of them holds player names. The web
table's guest has zero time limits, so its stand-in bot takes every one of its decisions at
once, in turn with the bots (托管 from its first decision). A person who answers after the bots
(say one who turns 托管 on a moment later) is recorded after them in a shared decision such as
定缺: the same hand and result, the actions of that decision in another order.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from xuezhan.bots import make_bot
from xuezhan.match import Hand, Match, RoomConfig, hand_record
from xuezhan.rules import Rules
from xuezhan.runtime import MatchRuntime, Seat
from xuezhan.selfplay import simulate
from xuezhan.server import ServerConfig, create_app
from xuezhan.store import Store

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

SRC = Path(__file__).resolve().parents[1] / "src"
SEEDS = (12345, 2026)


def from_cli(seed: int, out: Path) -> dict[str, Any]:
    path = os.environ.get("PYTHONPATH", "")
    env = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{path}" if path else str(SRC)}
    subprocess.run([sys.executable, "-m", "xuezhan", "simulate", "--seed", str(seed), "--games", "1",
                    "--bots", "heuristic", "--out", str(out)], check=True, env=env, capture_output=True, timeout=120)
    with out.open(encoding="utf-8") as f:
        first: dict[str, Any] = json.loads(f.readline())
    return first


def from_runtime(seed: int) -> dict[str, Any]:
    players = ["east", "south", "west", "north"]
    match = Match(RoomConfig(rules=Rules.preset("qq")), players, seed=seed, hands=1)
    seats = {p: Seat.of_bot(make_bot("heuristic", random.Random(k))) for k, p in enumerate(players)}
    result = MatchRuntime(match, seats).play_hand()
    return result.record


def from_selfplay(seed: int) -> dict[str, Any]:
    hands: list[dict[str, Any]] = []

    def keep(hand: Hand) -> None:
        hands.append(hand_record(hand))

    simulate(1, ["heuristic"] * 4, seed=seed, on_hand=keep)
    return hands[0]


def from_web(seed: int, db: str) -> dict[str, Any]:
    config = ServerConfig.fast(seed=seed, turn_timeout=0.0, claim_timeout=0.0, choice_timeout=0.0)
    with TestClient(create_app(db, config=config)) as c:
        assert c.post("/api/login", json={"name": "kim"}).status_code == 200
        code = c.post("/api/quickstart", json={"hands": 1}).json()["code"]
        with c.websocket_connect(f"/ws/{code}") as ws:
            while ws.receive_json()["type"] != "match_end":
                pass
    store = Store(db)
    try:
        [result] = store.hands.hand_results(1)
        return result.record
    finally:
        store.close()


@pytest.mark.parametrize("seed", SEEDS)
def test_the_same_seed_plays_the_same_first_hand_everywhere(seed: int, tmp_path: Path) -> None:
    cli = from_cli(seed, tmp_path / "hands.jsonl")
    assert cli["match"] == {"seed": seed, "hand_no": 1}
    for name, record in [("runtime", from_runtime(seed)), ("selfplay", from_selfplay(seed)),
                         ("web", from_web(seed, f"sqlite:///{tmp_path / 'web.sqlite3'}"))]:
        assert set(record) == set(cli), name
        for key in ("rules", "dealer", "dice", "wall_layout", "seed", "match", "actions", "result"):
            assert record[key] == cli[key], f"{name}: {key} differs"
        assert record == cli, name
