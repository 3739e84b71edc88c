"""A table with a bystander (叫马) survives SIGKILL: the restart promise of test_kill with a fifth person.

A guest sits in 托管 against three bots; before the deal a second guest, watching, asks to 叫马.
The ``xuezhan serve`` process is killed at random moments of the one hand and started again on
the same database (SQLite: the restart path is the same on both databases, test_kill covers
PostgreSQL). Then the hand must be the one the same server plays without a crash: the same
record and result (the bet: its tile, its seat, its mirrored transfers), the same coins for
everyone, the bettor told the same tile and seat after each restart and nobody else ever
told, every coin accounted for.
"""

from __future__ import annotations

import contextlib
import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from killed import WAIT, Kept, Kill, Served, Watcher, read_kill, side_by_side, twins

FEE = 5
KILL_SEED = 25
KILLS = 5  # then the hand is played out
MIN_KILLS = 3  # of those, while the hand is being played
MAX_LIVES = 60


@dataclass
class Run(Kept):
    code: str = ""
    bet: dict[str, Any] = field(default_factory=dict)
    kills: list[Kill] = field(default_factory=list)
    told_again: int = 0
    books_before: dict[str, int] = field(default_factory=dict)


def _until(ws: Any, kinds: set[str]) -> dict[str, Any]:
    """The bettor's socket: read to the first message of ``kinds`` (an error is refused)."""
    while True:
        msg: dict[str, Any] = json.loads(ws.recv(timeout=WAIT))
        assert msg["type"] != "error", msg
        if msg["type"] in kinds:
            return msg


def play(served: Served, rng: random.Random | None) -> Run:
    """Start the server and play one one-hand match with a bystander; with ``rng``, kill the server
    at random moments."""
    served.start()
    run = Run()
    kim, vic = served.login("kim"), served.login("vic")
    run.code = served.quickstart(kim, hands=1, fee=FEE, coefficient=1)
    run.books_before = served.books()
    for life in range(MAX_LIVES):
        with contextlib.ExitStack() as stack:
            eye = stack.enter_context(served.socket(run.code, vic))
            if life == 0:  # a spectator, before the deal, asks to 叫马; then the guest sits: the deal
                eye.send(json.dumps({"type": "jiao_ma"}))
                assert _until(eye, {"ok"}) == {"type": "ok", "for": "jiao_ma"}
            ws = stack.enter_context(served.socket(run.code, kim))
            ws.send(json.dumps({"type": "trustee", "on": True}))
            if life == 0:
                run.bet = _until(eye, {"jiao_ma"})
            else:
                told = _until(eye, {"jiao_ma", "hand_end"})
                if told["type"] == "jiao_ma":  # the hand still in play: the same bet, told again
                    assert told == run.bet
                    run.told_again += 1
            watcher = Watcher(ws)
            budget = -1 if rng is None or len(run.kills) >= KILLS else rng.randint(1, 10)
            while not watcher.match_over and budget != 0:
                msg = watcher.read()
                assert msg["type"] != "jiao_ma"  # a seat is never told the bet
                if msg["type"] in ("state", "hand_end"):
                    budget -= 1
            if watcher.match_over:
                break
            assert rng is not None
            served.kill()
        kill = read_kill(served.db, run.code)
        run.kills.append(kill)
        if kill.hand_no is None:
            break  # killed after the settlement: nothing left to carry on
        served.start()
    else:
        raise AssertionError("the match did not end")
    run.read(served.db, run.code, ["kim", "vic", "bot:1", "bot:2", "bot:3"], postings_of="vic")
    return run


def test_a_table_with_a_bystander_killed_at_random_moments_plays_the_same_hand(tmp_path: Path) -> None:
    with twins(f"sqlite:///{tmp_path / 'calm.sqlite3'}", f"sqlite:///{tmp_path / 'killed.sqlite3'}", tmp_path) as (
            calm, killed):
        reference, run = side_by_side(lambda: play(calm, None), lambda: play(killed, random.Random(KILL_SEED)))

    mid_hand = [k for k in run.kills if k.hand_no is not None]
    assert len(mid_hand) >= MIN_KILLS, f"only {len(mid_hand)} of {len(run.kills)} kills hit the hand in play"
    assert run.told_again >= 1
    assert set(run.bet) == {"type", "tile", "seat"} and run.bet == reference.bet
    [result] = run.results
    assert [(b["player"], b["tile"], b["seat"]) for b in result["bets"]] == [("vic", run.bet["tile"],
                                                                               run.bet["seat"])]
    assert any(t["reason"] == "jiao_ma" for t in result["transfers"])
    assert result["points"]["vic"] == result["points"][result["seating"][run.bet["seat"]]]
    # the very hand, coins and books the server gives without a crash
    assert run.settlements == reference.settlements == 1
    assert run.results == reference.results and run.records == reference.records
    assert run.balances == reference.balances
    assert run.postings == reference.postings
    assert run.books_before == reference.books_before and run.books_after == reference.books_after
    assert run.books_after["house"] - run.books_before["house"] == 4 * FEE  # the bystander paid no fee
    assert run.balances["vic"] - 20_000 == result["points"]["vic"]  # coefficient 1: its seat's points
