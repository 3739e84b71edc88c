"""A person's decisions are the person's: a dropped connection keeps its clock, a decision that runs
out is the stand-in's alone, 托管 only when asked or after two expiries in a row, ``state.missed``
once back, and a server restart gives an open decision its time again."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from killed import Served
from test_restart import Back, Build, answer, db, my_decision, my_turn, serve, stay_in, stop
from test_server import Client, make_app, table_of

from xuezhan.server.queue_table import QueueTable
from xuezhan.server.status import Status
from xuezhan.server.table import Table
from xuezhan.store import Store
from xuezhan.store.pgtemp import free_port

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
__all__ = ["db", "make_app", "serve"]  # the fixtures, from the server's and the restart's tests

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


def test_waiting_rooms_and_their_seats_survive_a_restart(serve: Build, db: str) -> None:
    first = serve(db, room_idle_timeout=0.5)
    amy, bea = Client(first, "amy"), Client(first, "bea")
    code = amy.http.post("/api/rooms", json={"name": "amy's", "hands": 2}).json()["code"]
    amy.connect(code)
    bea.connect(code)
    bea.send({"type": "sit", "seat": 2})
    bea.wait_for(lambda m: m["type"] == "ok" and m["for"] == "sit")
    cal = Client(first, "cal")  # cal's room closes: nobody stays in it
    idle = cal.http.post("/api/rooms", json={"hands": 1}).json()["code"]
    cal.connect(idle)
    cal.wait_for(lambda m: m["type"] == "room")
    cal.close()
    deadline = time.monotonic() + WAIT
    while first.state.lobby.get(idle) is not None:
        assert time.monotonic() < deadline, "the idle room did not close"
        time.sleep(0.02)
    assert cal.http.get(f"/api/rooms/{idle}").status_code == 404
    stop(first)

    again = serve(db)
    amy2 = Back(again, amy)
    listed = {r["code"]: r for r in amy2.http.get("/api/rooms").json()["rooms"]}
    assert code in listed and idle not in listed  # the waiting room is back, the closed one is not
    assert cal.http.get(f"/api/rooms/{idle}").status_code == 404
    info = amy2.http.get(f"/api/rooms/{code}")
    assert info.status_code == 200 and info.json()["room"]["status"] == "waiting"
    assert [s["name"] for s in info.json()["room"]["seats"]] == ["amy", None, "bea", None]
    amy2.connect(code)
    room = amy2.wait_for(lambda m: m["type"] == "room")["room"]
    assert room["name"] == "amy's" and [s["name"] for s in room["seats"]] == ["amy", None, "bea", None]
    assert room["seats"][0]["owner"] is True
    bea2 = Back(again, bea)
    bea2.connect(code)
    assert bea2.wait_for(lambda m: m["type"] == "hello")["seat"] == 2  # bea's seat is bea's
    amy2.send({"type": "start"})  # and the match starts with them
    state = amy2.wait_for(lambda m: m["type"] == "state")
    assert state["hand_no"] == 1


def test_a_quick_table_whose_page_had_not_come_starts_when_it_comes_after_a_restart(serve: Build, db: str) -> None:
    """Quick start makes the table; its match starts when the owner's page comes. A server stopped in
    between keeps that: the page that comes after the restart is dealt its first hand, as it would
    have been, with no start button to find."""
    first = serve(db)
    kim = Client(first, "kim")
    code = kim.http.post("/api/quickstart", json={"hands": 1}).json()["code"]
    stop(first)

    again = serve(db)
    kim2 = Back(again, kim)
    kim2.connect(code)
    assert kim2.wait_for(lambda m: m["type"] == "state")["hand_no"] == 1
    table = table_of(again, code)
    assert table.autostart is False and table.match is not None


def test_a_queue_table_waiting_for_its_people_is_opened_again_as_one_after_a_restart(serve: Build, db: str) -> None:
    """The server stops after the queue seated four people, before their pages came: the table that
    opens again is the queue's, not a room of ann's, and deals its first hand once all four come."""
    first = serve(db, queue_wait=3600.0)
    four = [Client(first, n) for n in ("ann", "bob", "cat", "dan")]
    for c in four:
        assert c.http.post("/api/queue", json={"tier": "novice"}).status_code == 200
    deadline = time.monotonic() + WAIT
    while (code := four[0].http.get("/api/queue").json()["table"]) is None:
        assert time.monotonic() < deadline, "the queue seated nobody"
        time.sleep(0.02)
    stop(first)

    again = serve(db, queue_wait=3600.0)
    back = [Back(again, c) for c in four]
    table = table_of(again, code)
    assert isinstance(table, QueueTable) and table.status is Status.WAITING
    assert table.players == ["ann", "bob", "cat", "dan"] and table.meta()["queue"] is True
    assert code not in {r["code"] for r in back[0].http.get("/api/rooms").json()["rooms"]}
    for c in back:
        c.connect(code)
    assert back[0].wait_for(lambda m: m["type"] == "state")["hand_no"] == 1


GRACE_CONFIG = """\
[server]
bot_delay = 0.05
bot_claim_delay = 0.05
turn_timeout = 3  # shorter than the restart's grace, so the grace is what holds the stand-in back
claim_timeout = 60
choice_timeout = 60
restart_grace = 8
"""


def logged_actions(db: str) -> list[dict[str, Any]]:
    store = Store(db)
    try:
        running = next(iter(store.rooms.running_matches()), None)
        assert running is not None and running.hand is not None, "the hand was played out meanwhile"
        return list(running.hand.actions)
    finally:
        store.close()


def test_a_server_killed_on_the_players_turn_leaves_the_decision_to_the_player(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'grace.sqlite3'}"
    with Served(db, free_port(), tmp_path / "served", GRACE_CONFIG) as served:
        cookie = served.login("kim")
        code = served.quickstart(cookie, hands=1)

        def decide(state: dict[str, Any]) -> dict[str, Any]:
            legal = [{k: v for k, v in a.items() if k != "seat"} for a in state["view"]["legal"]]
            return next((a for a in legal if a["type"] == "pass"), None) or legal[-1]  # never a win: stay in

        before: dict[str, Any] | None = None
        with served.socket(code, cookie) as ws:
            answered: set[int] = set()
            while before is None:
                msg = json.loads(ws.recv(timeout=WAIT))
                if msg["type"] != "state" or msg["decision"] is None or msg["decision"] in answered:
                    continue
                if any(a["type"] == "discard" for a in msg["view"]["legal"]) and len(answered) >= 2:
                    before = msg
                    served.kill()  # on the player's turn, with most of its 3 s left
                    break
                answered.add(msg["decision"])
                ws.send(json.dumps({"type": "action", "action": decide(msg), "version": msg["version"]}))
        logged = logged_actions(db)

        served.start()
        started = time.monotonic()
        time.sleep(4.0)  # longer than the turn's time limit, shorter than the grace
        assert logged_actions(db) == logged  # nothing was played for the player
        with served.socket(code, cookie) as ws:
            state: dict[str, Any] = {}
            while state.get("type") != "state":
                state = json.loads(ws.recv(timeout=WAIT))
            assert state["decision"] is not None and not state["trustee"] and not state.get("missed")
            assert state["view"]["legal"] == before["view"]["legal"]  # the same decision, still open
            assert 0 < state["deadline_ms"] <= (8.0 - (time.monotonic() - started) + 1.0) * 1000
            ws.send(json.dumps({"type": "action", "action": decide(state), "version": state["version"]}))
            while True:
                msg = json.loads(ws.recv(timeout=WAIT))
                assert msg["type"] != "error", msg
                if msg["type"] == "ok" and msg["for"] == "action":
                    break
        assert logged_actions(db)[len(logged)]["seat"] == 0  # the player's own answer came next
