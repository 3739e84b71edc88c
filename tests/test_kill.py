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

import json
import random
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from killed import Kept, Kill, Served, Watcher, read_kill, side_by_side, twins

from xuezhan.store.pgtemp import TempPostgres, shared_server

KILL_SEEDS = {"sqlite": 7, "postgresql": 11}
HANDS = 3
FEE = 5
MIN_KILLS = 10  # per database, each while a hand is being played
MAX_LIVES = 200  # a bound on the loop, far above what a match takes


@dataclass
class Run(Kept):
    """One match from quickstart to its end, as the guest saw it and as the database kept it."""

    code: str = ""
    kills: list[Kill] = field(default_factory=list)
    hand_nos_seen: list[int] = field(default_factory=list)
    books_before: dict[str, int] = field(default_factory=dict)


def play(served: Served, rng: random.Random | None) -> Run:
    """Start the server and play one quickstart match to its end; with ``rng``, kill the server at
    random moments."""
    served.start()
    run = Run()
    cookie = served.login("kim")
    run.code = served.quickstart(cookie, hands=HANDS, fee=FEE)
    run.books_before = served.books()
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
    run.read(served.db, run.code, ["kim", "bot:1", "bot:2", "bot:3"], postings_of="kim")
    assert run.hand_nos == list(range(1, HANDS + 1))
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
    with twins(calm_db, killed_db, tmp_path) as (calm, killed):
        reference, run = side_by_side(lambda: play(calm, None), lambda: play(killed, random.Random(KILL_SEEDS[name])))

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
