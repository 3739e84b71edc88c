"""A server stopped and started again on the same database carries its matches on (in-process apps).

The first app stops while something is half done (a hand in play, a match between hands, an
escape); a new app on the same SQLite file must give the players back exactly that, charge
nothing twice, and survive a log that does not fit its match.
"""

from __future__ import annotations

import dataclasses
import queue
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select, update
from sqlalchemy.orm import Session
from starlette.testclient import TestClient
from test_server import Client, Http, table_of

from xuezhan.engine.actions import Action, ActionType
from xuezhan.match import HandResult, ItemUse
from xuezhan.server import ServerConfig, create_app
from xuezhan.server.journal import logged_entries
from xuezhan.store import Store
from xuezhan.store.models import HandAction, HandLog, MatchRow, Room

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

Build = Callable[..., Any]


@pytest.fixture
def db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'restart.sqlite3'}"


@pytest.fixture
def serve() -> Iterator[Build]:
    """``serve(db, **config)``: an app on its own test client; ``stop(app)`` shuts it down."""
    running: list[Any] = []

    def build(db: str, **overrides: Any) -> Any:
        app = create_app(db, config=ServerConfig.fast(**overrides))
        runner = TestClient(app)
        runner.__enter__()
        app.state.runner = runner
        app.state.clients = []
        running.append(app)
        return app

    yield build
    for app in running:
        stop(app)


def stop(app: Any) -> None:
    """Stop the app as a crash would: the tables stop first (so no stand-in bot takes over from
    the players whose sockets close next), then the lifespan."""
    if getattr(app.state, "stopped", False):
        return
    app.state.stopped = True
    app.state.runner.portal.call(app.state.lobby.close)
    for client in app.state.clients:
        client.close()
    app.state.runner.__exit__(None, None, None)


class Back(Client):
    """The same browser on the new app: its session cookie, no new login."""

    def __init__(self, app: Any, before: Client) -> None:
        self.http = Http(app.state.runner, before.http.token)
        app.state.clients.append(self)
        self.nickname = before.nickname
        self.inbox: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.seen: list[dict[str, Any]] = []
        self.ws: Any = None
        self._cm: Any = None
        self._reader: threading.Thread | None = None
        self.state: dict[str, Any] | None = None
        self.answered = -1


def play_out(p: Client, timeout: float = 60.0) -> dict[str, Any]:
    """托管 on in every hand (each hand starts without it for a connected player) to the match's end."""
    asked: set[int] = set()

    def pred(m: dict[str, Any]) -> bool:
        if m["type"] == "state" and not m["trustee"] and m["hand_no"] not in asked:
            asked.add(m["hand_no"])
            p.send({"type": "trustee", "on": True})
        return bool(m["type"] == "match_end")

    return p.wait_for(pred, timeout)


def logged_hand(db: str) -> tuple[int, list[dict[str, Any]]]:
    """The hand in play of the one running match: its number and its logged actions."""
    store = Store(db)
    try:
        [running] = store.rooms.running_matches()
        assert running.hand is not None
        return running.hand.hand_no, list(running.hand.actions)
    finally:
        store.close()


def match_of(store: Store, code: str) -> MatchRow:
    with Session(store.engine) as s:
        row: MatchRow = s.scalars(select(MatchRow).join(Room, Room.id == MatchRow.room_id)
                                  .where(Room.name == code)).one()
        return row


def my_decision(p: Client) -> Callable[[dict[str, Any]], bool]:
    def pred(m: dict[str, Any]) -> bool:
        return bool(m["type"] == "state" and m["decision"] is not None and m["view"]["legal"])

    return pred


def my_turn(m: dict[str, Any]) -> bool:
    return bool(m["type"] == "state" and m["decision"] is not None
                and any(a["type"] == "discard" for a in m["view"]["legal"]))


def stay_in(p: Client) -> dict[str, Any]:
    """``p.choose()`` without winning: a player who wins leaves the hand (血战), and these
    tests need the player's turns in the first hand."""
    pick = p.choose()
    assert pick is not None and p.state is not None
    if pick["type"] == "hu":
        legal = p.state["view"]["legal"]
        pick = next(({"type": "pass"} for a in legal if a["type"] == "pass"), None) or next(
            {"type": "discard", "tile": a["tile"]} for a in legal if a["type"] == "discard")
    return pick


def answer(p: Client, pick: dict[str, Any]) -> None:
    assert p.state is not None
    p.send({"type": "action", "action": pick, "version": p.state["version"]})
    p.wait_for(lambda m: m["type"] == "ok" and m["for"] == "action")


def test_a_hand_in_play_survives_a_restart(serve: Build, db: str) -> None:
    first = serve(db, turn_timeout=60.0, claim_timeout=60.0, choice_timeout=60.0)
    kim = Client(first, "kim")
    code = kim.http.post("/api/quickstart", json={"hands": 2}).json()["code"]
    kim.connect(code)
    for _ in range(3):  # a few of kim's own decisions, then stop while kim must decide again
        kim.wait_for(my_decision(kim))
        answer(kim, stay_in(kim))
    while not my_turn(kim.wait_for(my_decision(kim))):  # on kim's own turn nothing else can move
        answer(kim, stay_in(kim))
    kim.drain()
    before = kim.state
    assert before is not None
    events: list[Any] = []
    for msg in kim.seen:
        if msg["type"] == "state":
            events = list(msg["events"]) if msg["reset"] else events + msg["events"]
    stop(first)
    hand_no, logged = logged_hand(db)
    assert hand_no == 1 and logged

    # bots wait in the new app until kim is back, so the table is exactly as it was left
    again = serve(db, turn_timeout=60.0, claim_timeout=60.0, choice_timeout=60.0, bot_delay=60.0,
                  bot_claim_delay=60.0)
    kim2 = Back(again, kim)
    kim2.connect(code)
    assert kim2.wait_for(lambda m: m["type"] == "hello")["seat"] == 0
    state = kim2.wait_for(lambda m: m["type"] == "state")
    assert state["reset"] and state["hand_no"] == before["hand_no"] == 1
    assert state["view"]["hand"] == before["view"]["hand"]  # kim's own tiles
    assert state["view"]["legal"] == before["view"]["legal"]
    assert state["events"] == events  # every event up to the last applied action, nothing after
    assert state["decision"] is not None and not state["trustee"]

    table = table_of(again, code)
    table.config = dataclasses.replace(table.config, bot_delay=0.0, bot_claim_delay=0.0)  # the bots go on now
    pick = kim2.choose()
    assert pick is not None
    answer(kim2, pick)
    play_out(kim2)
    stop(again)

    store = Store(db)
    try:
        row = match_of(store, code)
        assert row.status == "finished" and row.hands_played == 2
        assert [h.hand_no for h in store.hands.hand_results(row.id)] == [1, 2]
        assert store.hands.hand_record(row.id, 1)["actions"][: len(logged)] == logged  # carried on from there
    finally:
        store.close()


def test_the_stand_ins_decisions_stay_marked_across_a_restart(serve: Build, db: str) -> None:
    """The hand's result says which decisions a person's stand-in took (the review tells them from the
    player's): the ones before a restart too, from the hand's log."""
    first = serve(db, turn_timeout=60.0, claim_timeout=60.0, choice_timeout=0.05)  # 定缺 runs out
    kim = Client(first, "kim")
    code = kim.http.post("/api/quickstart", json={"hands": 1}).json()["code"]
    kim.connect(code)

    def own_decision(m: dict[str, Any]) -> bool:  # the stand-in chose the void: kim plays on himself
        return my_decision(kim)(m) and all(a["type"] != "dingque" for a in m["view"]["legal"])

    kim.wait_for(own_decision)
    answer(kim, stay_in(kim))
    while not my_turn(kim.wait_for(my_decision(kim))):
        answer(kim, stay_in(kim))
    stop(first)
    _, logged = logged_hand(db)
    void = next(i for i, a in enumerate(logged) if a["type"] == "dingque" and a["seat"] == 0)
    assert [i for i, a in enumerate(logged) if a.get("stand_in")] == [void]  # only it, of all of seat 0's
    own = [i for i, a in enumerate(logged) if a["seat"] == 0 and i != void]
    assert own

    again = serve(db, turn_timeout=60.0, claim_timeout=60.0, choice_timeout=60.0)
    kim2 = Back(again, kim)
    kim2.connect(code)
    kim2.wait_for(my_decision(kim2))
    answer(kim2, stay_in(kim2))  # kim's own, after the restart
    play_out(kim2)  # then 托管: the stand-in's to the end
    stop(again)

    store = Store(db)
    try:
        row = match_of(store, code)
        [result] = store.hands.hand_results(row.id)
        actions = store.hands.hand_record(row.id, 1)["actions"]
    finally:
        store.close()
    assert all("stand_in" not in a for a in actions)  # the record is the game's, as every record
    assert void in result.stand_in and not set(own) & set(result.stand_in)
    assert all(actions[i]["seat"] == 0 for i in result.stand_in)
    assert result.stand_in == tuple(sorted(result.stand_in))
    assert set(result.stand_in) - {void} <= set(range(len(logged) + 1, len(actions)))  # the rest: after kim's answer


def test_a_logs_stand_in_marks_count_the_actions_only() -> None:
    entries, stand_in = logged_entries([
        {"type": "dingque", "seat": 0, "suit": "m", "stand_in": True},
        {"type": "item", "player": "kim", "seat": 0, "kind": "golden_finger"},
        {"type": "dingque", "seat": 1, "suit": "p"},
        {"type": "dingque", "seat": 2, "suit": "s", "stand_in": True},
    ])
    assert stand_in == [0, 2]  # the item card is no action of the hand
    assert [type(e) for e in entries] == [Action, ItemUse, Action, Action]
    assert entries[3] == Action(2, ActionType.DINGQUE, suit=2)


def test_a_match_between_hands_resumes_between_hands(serve: Build, db: str) -> None:
    first = serve(db, next_hand_delay=600.0)
    kim = Client(first, "kim")
    code = kim.http.post("/api/quickstart", json={"hands": 2}).json()["code"]
    kim.connect(code)
    kim.send({"type": "trustee", "on": True})
    end = kim.wait_for(lambda m: m["type"] == "hand_end", timeout=60.0)
    balance = kim.http.get("/api/me").json()["coins"]
    assert balance == 20_000 + end["coins"][0]
    stop(first)

    again = serve(db, next_hand_delay=600.0)
    kim2 = Back(again, kim)
    assert kim2.http.get("/api/me").json()["coins"] == balance
    kim2.connect(code)
    room = kim2.wait_for(lambda m: m["type"] == "room")["room"]
    assert room["status"] == "between" and room["hand_no"] == 1
    kim2.send({"type": "ready"})  # the next hand starts when the players are ready
    state = kim2.wait_for(lambda m: m["type"] == "state")
    assert state["hand_no"] == 2 and state["reset"]
    play_out(kim2)
    stop(again)

    store = Store(db)
    try:
        row = match_of(store, code)
        assert row.status == "finished"
        results = store.hands.hand_results(row.id)
        assert [h.hand_no for h in results] == [1, 2]  # hand 1 was not dealt or settled again
        changes = [r.points()["kim"] * 10 for r in results]  # coefficient 10, no fee
        assert store.ledger.balance("kim") == 20_000 + sum(changes)
    finally:
        store.close()


def test_an_escape_logged_before_the_crash_is_charged_once(serve: Build, db: str) -> None:
    first = serve(db, turn_timeout=60.0, claim_timeout=60.0, choice_timeout=60.0)

    def crash(step: str) -> None:
        if step == "postings":  # the settlement's transaction dies half way, as in a crash
            raise OSError("the server went down")

    first.state.bank.store.fault = crash
    kim = Client(first, "kim")
    code = kim.http.post("/api/quickstart", json={"hands": 2}).json()["code"]
    kim.connect(code)
    kim.wait_for(my_decision(kim))
    kim.send({"type": "leave"})  # 逃跑: it ends kim's hand at once, and kim pays for it
    kim.wait_for(lambda m: m["type"] == "ok" and m["for"] == "leave")
    kim.wait_for(lambda m: m["type"] == "error" and m["code"] == "settlement_failed")
    stop(first)
    hand_no, logged = logged_hand(db)
    assert hand_no == 1 and logged[-1] == {"seat": 0, "type": "escape"}
    store = Store(db)
    try:
        assert store.ledger.balance("kim") == 20_000 and not store.hands.hand_results(match_of(store, code).id)
    finally:
        store.close()

    again = serve(db)  # the hand is rebuilt from its log, the escape in it, and settled
    watcher = Client(again, "lee")
    watcher.connect(code, watch=True)
    watcher.wait_for(lambda m: m["type"] == "hand_end", timeout=60.0)
    stop(again)
    third = serve(db)  # and once more: nothing is settled twice
    stop(third)

    store = Store(db)
    try:
        row = match_of(store, code)
        results = store.hands.hand_results(row.id)
        assert results[0].hand_no == 1 and results[0].escaped == ("kim",)
        assert [r.hand_no for r in results] == sorted({r.hand_no for r in results})
        kim_points = sum(r.points().get("kim", 0) for r in results)
        assert kim_points < 0  # the escape was charged
        assert store.ledger.balance("kim") == 20_000 + 10 * kim_points  # and once
        kim_hands = [r for r in results if "kim" in r.participants]
        assert [r.hand_no for r in kim_hands] == [1]  # the escaper left the match with the hand
        assert all(HandResult.from_json(r.to_json()) == r for r in results)
    finally:
        store.close()


def test_a_log_that_does_not_fit_ends_that_match_and_others_resume(serve: Build, db: str) -> None:
    first = serve(db, turn_timeout=60.0, claim_timeout=60.0, choice_timeout=60.0)
    kim, lee = Client(first, "kim"), Client(first, "lee")
    codes = []
    for p in (kim, lee):
        code = p.http.post("/api/quickstart", json={"hands": 2}).json()["code"]
        p.connect(code)
        p.wait_for(my_decision(p))  # the bots have acted; the person must decide
        codes.append(code)
    stop(first)

    store = Store(db)
    try:
        bad = match_of(store, codes[0]).id
        with store.engine.begin() as conn:
            log_id = conn.execute(select(HandLog.id).where(HandLog.match_id == bad)).scalar_one()
            seq = conn.execute(select(HandAction.seq).where(HandAction.hand_log_id == log_id)
                               .order_by(HandAction.seq)).scalars().first()
            assert seq is not None
            tampered = {"seat": 1, "type": "discard", "tile": "9s"}
            conn.execute(update(HandAction).where(HandAction.hand_log_id == log_id, HandAction.seq == seq)
                         .values(action=tampered))
    finally:
        store.close()

    again = serve(db)
    assert again.state.lobby.get(codes[0]) is None  # not carried on
    lee2 = Back(again, lee)
    assert lee2.http.get(f"/api/rooms/{codes[0]}").status_code == 404
    lee2.connect(codes[1])
    state = lee2.wait_for(lambda m: m["type"] == "state")
    assert state["hand_no"] == 1
    play_out(lee2)
    stop(again)

    store = Store(db)
    try:
        assert match_of(store, codes[0]).status == "abandoned"
        assert match_of(store, codes[1]).status == "finished"
        assert store.ledger.balance("kim") == 20_000  # nothing of the abandoned hand was charged
        store.ledger.audit()
    finally:
        store.close()
