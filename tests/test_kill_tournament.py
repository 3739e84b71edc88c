"""The restart promise for a running tournament, tested by killing a real server (SIGKILL).

Four guests enter a tournament of two rounds of two hands; nobody connects to the tables, so
every seat is played by its stand-in at the bots' pace (the guests' time limits are zero, as in
tests/test_kill.py), and the whole tournament is a function of the server's seed. One server
plays it undisturbed; another, on its own database, is killed at random moments while the
tournament runs and started again until it is over. Both must end with the same standings,
places and prizes; each table's hands settled once, each entry taken once, every prize paid
once, and the books balanced.
"""

from __future__ import annotations

import random
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from killed import SEEDED, WAIT, Served, opened, side_by_side, twins
from sqlalchemy import select
from sqlalchemy.orm import Session

from xuezhan.store.models import CoinTransfer, HandLog, HandRow, MatchRow, Settlement, TournamentRow

NAMES = ("ann", "bo", "cai", "dee")
ROUNDS, HANDS = 2, 2
LEAD = 12.0  # seconds from the first start to the tournament's: time to sign four guests in, on a busy machine too
MIN_KILLS = 3  # while it runs


def tournament_config(starts: datetime) -> str:
    return SEEDED + f"""accounts_per_address = 10  # four guests from one address

[[tournament]]
id = "cup"
name = "cup"
starts = "{starts.isoformat()}"
entry = 100
rounds = {ROUNDS}
hands_per_round = {HANDS}
prizes = [700, 300]
"""


def state(db: str) -> tuple[str, dict[str, Any], bool]:
    """The tournament's status and state, and whether a hand was in play (logged, not settled)."""
    with opened(db) as store, Session(store.engine) as s:
        row = s.scalars(select(TournamentRow).where(TournamentRow.key == "cup")).one_or_none()
        open_hand = s.scalar(select(HandLog.id).where(HandLog.settled_at.is_(None))) is not None
        if row is None:
            return "", {}, open_hand
        return row.status, dict(row.state), open_hand


def play(served: Served, rng: random.Random | None) -> tuple[list[bool], dict[str, Any]]:
    """Enter the four and follow the tournament to its end; with ``rng``, kill the server at random
    moments while it runs. The kills (whether each hit a hand in play) and the final state."""
    served.config.write_text(tournament_config(datetime.now(UTC) + timedelta(seconds=LEAD)), encoding="utf-8")
    served.start()
    for name in NAMES:
        status, body, _ = served.request("POST", "/api/tournaments/cup/join", None, served.login(name))
        assert status == 200, body
    kills: list[bool] = []
    deadline = time.monotonic() + 4 * WAIT
    while True:  # until it ends, or the deadline says it never will
        status, body, _ = served.request("GET", "/api/tournaments/cup")
        assert status == 200, body
        if body["status"] == "finished":
            break
        assert body["status"] in ("open", "running"), body
        assert time.monotonic() < deadline, f"the tournament did not end: {body}"
        if rng is None or body["status"] != "running" or len(kills) >= MIN_KILLS + 3:
            time.sleep(0.1)
            continue
        if len(kills) % 2 == 0:
            # every other kill aimed into a hand: once one is in play (logged, not settled), at once or
            # a moment later (the stand-ins' hands are short: a random sleep alone may miss them all)
            aim = time.monotonic() + WAIT
            while not state(served.db)[2] and time.monotonic() < aim:
                time.sleep(0.02)
            time.sleep(rng.uniform(0.0, 0.05))
        else:
            time.sleep(rng.uniform(0.05, 0.6))  # the bots play on: the kill lands anywhere
        served.kill()
        _, _, in_hand = state(served.db)
        kills.append(in_hand)
        served.start()
    final = served.request("GET", "/api/tournaments/cup")[1]
    served.kill()
    return kills, final


def check_books(db: str) -> dict[str, int]:
    with opened(db) as store:
        with Session(store.engine) as s:
            matches = s.execute(select(MatchRow.id, MatchRow.status, MatchRow.hands_played)).all()
            assert len(matches) == ROUNDS and all(st == "finished" and n == HANDS for _, st, n in matches)
            hands = s.execute(select(HandRow.match_id, HandRow.hand_no)).all()
            assert sorted(hands) == sorted((m, n) for m, _, _ in matches for n in range(1, HANDS + 1))
            assert len(s.scalars(select(Settlement.id)).all()) == ROUNDS * HANDS  # each hand settled once
            reasons = sorted(s.scalars(select(CoinTransfer.reason).where(
                CoinTransfer.reason.in_(("entry", "refund", "prize")))).all())
            assert reasons == ["entry"] * 4 + ["prize"] * 2
        totals = store.audit()
        assert totals["players"] + totals["house"] == totals["issued"]
        return totals


def test_a_tournament_killed_at_random_moments_ends_as_it_would_have(tmp_path: Path) -> None:
    with twins(f"sqlite:///{tmp_path / 'calm.sqlite3'}", f"sqlite:///{tmp_path / 'killed.sqlite3'}", tmp_path) as (
            calm, killed):
        (_, reference), (kills, run) = side_by_side(lambda: play(calm, None), lambda: play(killed, random.Random(5)))
    print(f"{len(kills)} kills, {sum(kills)} while a hand was in play")
    assert len(kills) >= MIN_KILLS and any(kills), kills
    assert [s["place"] for s in run["standings"]] == [1, 2, 3, 4]
    assert [(s["name"], s["points"], s["prize"]) for s in run["standings"]] == [
        (s["name"], s["points"], s["prize"]) for s in reference["standings"]]
    assert [s["prize"] for s in run["standings"]] == [700, 300, 0, 0]
    assert check_books(calm.db) == check_books(killed.db)
