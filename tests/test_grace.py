"""A person's decisions are the person's: a dropped connection keeps its clock, a decision that runs
out is the stand-in's alone, 托管 only when asked or after two expiries in a row, ``state.missed``
once back, and a server restart gives an open decision its time again."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from test_restart import answer, my_decision, my_turn, stay_in
from test_server import Client, make_app, table_of

from xuezhan.server.table import Table

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
__all__ = ["make_app"]  # the fixture, from the server tests

WAIT = 30.0


def on_my_turn(p: Client, moves: int = 2) -> dict[str, Any]:
    """Answer the player's first decisions (``moves`` of them, without winning), then stop on the
    player's own turn to discard; its state."""
    for _ in range(moves):
        p.wait_for(my_decision(p))
        answer(p, stay_in(p))
    while not my_turn(p.wait_for(my_decision(p))):
        answer(p, stay_in(p))
    time.sleep(0.05)
    p.drain()
    assert p.state is not None and my_turn(p.state)
    return p.state


def actions_of(table: Table) -> int:
    assert table.hand is not None
    return len(table.hand.game.actions)


def test_a_connection_dropped_for_3_s_on_the_players_turn_leaves_the_decision_to_the_player(
        make_app: Callable[..., Any]) -> None:
    app = make_app(turn_timeout=20.0, claim_timeout=20.0, choice_timeout=20.0)  # bots at once
    p = Client(app, "ivy")
    code = p.http.post("/api/quickstart", json={"hands": 1}).json()["code"]
    p.connect(code)
    before = on_my_turn(p)
    table = table_of(app, code)
    played = actions_of(table)
    p.close()
    time.sleep(3.0)
    assert actions_of(table) == played  # nothing was played for the seat meanwhile
    assert not table.trustee(0)
    p.connect(code)
    state = p.wait_for(lambda m: m["type"] == "state")
    assert state["decision"] == before["decision"] and state["view"]["legal"] == before["view"]["legal"]
    assert not state["trustee"] and not state.get("missed")
    assert 0 < state["deadline_ms"] <= 17_000  # the clock ran on while the player was away
    answer(p, stay_in(p))  # and the player takes it
    assert actions_of(table) > played
    p.close()


def test_a_decision_that_runs_out_while_away_is_the_stand_ins_and_is_listed_once(
        make_app: Callable[..., Any]) -> None:
    app = make_app(turn_timeout=1.0, claim_timeout=60.0, choice_timeout=60.0, bot_delay=0.3)
    p = Client(app, "joy")
    code = p.http.post("/api/quickstart", json={"hands": 1}).json()["code"]
    p.connect(code)
    before = on_my_turn(p)
    table = table_of(app, code)
    p.close()
    deadline = time.monotonic() + WAIT
    while not table.missed.get("joy"):
        assert time.monotonic() < deadline, "the stand-in did not take the decision"
        time.sleep(0.01)
    assert not table.trustee(0) and table.timeouts == 1  # one expiry: no 托管
    p.connect(code)
    state = p.wait_for(lambda m: m["type"] == "state")
    [missed] = state["missed"]
    assert missed["type"] == "discard" and missed["seat"] == 0
    assert {"seat": 0, "type": "discard", "tile": missed["tile"]} in before["view"]["legal"]
    shown = [ev for ev in state["events"] if ev["type"] == "discard" and ev["seat"] == 0]
    assert missed["text"] and missed["text"] == shown[-1]["text"]  # the log's sentence of it, in the page's language
    assert not state["trustee"]
    p.wait_for(lambda m: m["type"] == "state")  # the next states carry no note
    assert all("missed" not in m for m in p.drain() if m["type"] == "state")
    p.close()
    p.connect(code)  # nor does the next connection: it was given once
    again = p.wait_for(lambda m: m["type"] == "state")
    assert not again.get("missed")
    p.close()


def test_two_expired_decisions_in_a_row_start_trustee_and_one_does_not(make_app: Callable[..., Any]) -> None:
    app = make_app(turn_timeout=0.3, claim_timeout=0.3, choice_timeout=0.3, bot_delay=0.0)
    p = Client(app, "kay")
    code = p.http.post("/api/quickstart", json={"hands": 1}).json()["code"]
    p.connect(code)  # and never answers
    table = table_of(app, code)
    room = p.wait_for(lambda m: m["type"] == "room" and m["room"]["seats"][0]["trustee"] is True)
    assert room["room"]["status"] == "playing"
    assert table.timeouts == 2  # the first expiry left the seat to the player; the second started 托管
    states = [m for m in p.seen if m["type"] == "state"]
    assert any(m["decision"] is not None and not m["trustee"] for m in states[1:])  # still the player's after one
    assert not any(m.get("missed") for m in states)  # the player was there: nothing to tell
    p.close()
