"""What a cluster shares beside its rooms (docs/deploy.md): one queue (people queued on different
nodes sit together, each told on the lobby socket of their own node), one tournament director
(run by one node, the others redirect to it), the rooms' limits counted over every node, and the
leader leases under all of it (taken, renewed, lapsed, fenced).

The nodes run in this process, each a server of its own (``create_app(..., node=NAME)``) on its own
event loop, on one PostgreSQL schema, as ``xuezhan serve --node`` processes do."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from killed import until
from starlette.testclient import TestClient
from test_server import WAIT, Client, Http

from xuezhan.ids import ErrorCode
from xuezhan.match import RoomConfig
from xuezhan.rules import Rules
from xuezhan.server import ServerConfig, create_app
from xuezhan.server.nodes import QUEUE, TOURNAMENTS, Node
from xuezhan.server.queue_table import QueueTable
from xuezhan.store import Lead, NodeFence, Store, StoreError
from xuezhan.store.pgtemp import TempPostgres

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

SHORT = 0.3  # seconds a leader lease lasts in the store's tests


@pytest.fixture
def db(postgres: TempPostgres) -> str:
    return postgres.create_schema(f"t_{uuid.uuid4().hex[:20]}")


@pytest.fixture
def make_node(db: str) -> Iterator[Callable[..., Any]]:
    apps: list[Any] = []

    def build(name: str, **overrides: Any) -> Any:
        app = create_app(db, config=ServerConfig.fast(**overrides), node=name)
        runner = TestClient(app)
        runner.__enter__()
        app.state.runner = runner
        app.state.clients = []
        apps.append(app)
        return app

    yield build
    for app in reversed(apps):
        stop(app)


def stop(app: Any) -> None:
    if getattr(app.state, "runner", None) is None:
        return
    for client in app.state.clients:
        client.close()
    app.state.runner.__exit__(None, None, None)
    app.state.runner = None


def node_of(app: Any) -> Node:
    node = app.state.lobby.node
    assert isinstance(node, Node)
    return node


def on(app: Any, client: Client) -> Http:
    """``client``'s browser, reaching ``app``'s node (the same session: one database)."""
    return Http(app.state.runner, client.http.token)


# --- the leader leases ----------------------------------------------------------------------------------------
def test_a_task_is_led_by_one_node_until_its_lease_lapses(db: str) -> None:
    a, b = Store(db), Store(db)
    try:
        first = a.leaders.hold(QUEUE, "a", SHORT)
        assert first == Lead(QUEUE, "a", 1)
        assert b.leaders.hold(QUEUE, "b", SHORT) is None  # a holds it
        assert a.leaders.hold(QUEUE, "a", SHORT) == first  # renewed, the same token
        assert b.leaders.holder(QUEUE) == "a"
        time.sleep(SHORT + 0.2)
        assert b.leaders.holder(QUEUE) is None
        second = b.leaders.hold(QUEUE, "b", SHORT)
        assert second == Lead(QUEUE, "b", 2)
        assert a.leaders.hold(QUEUE, "a", SHORT) is None  # a comes back: b leads now
        b.leaders.give_up(second)
        assert a.leaders.hold(QUEUE, "a", SHORT) == Lead(QUEUE, "a", 3)  # given up: taken at once
        assert a.leaders.hold(TOURNAMENTS, "b", SHORT) == Lead(TOURNAMENTS, "b", 1)  # each task its own
    finally:
        a.close()
        b.close()


def test_a_node_that_lost_the_lead_of_the_queue_seats_nobody(db: str) -> None:
    a, b = Store(db), Store(db)
    try:
        room = RoomConfig(Rules.preset("qq"), coefficient=10, fee=5, hands=1).to_mapping()
        for p in ("ann", "bo", "cai", "dan"):
            a.queue.join(p, "novice", "qq", True, room, "en")
        old = a.leaders.hold(QUEUE, "a", SHORT)
        assert old is not None
        time.sleep(SHORT + 0.2)
        new = b.leaders.hold(QUEUE, "b", SHORT)
        assert new is not None
        with pytest.raises(StoreError) as lost:
            a.queue.claim(old, 3600.0, 4)
        assert lost.value.code == ErrorCode.LEASE_LOST
        assert a.queue.waiting() == 4  # nobody was claimed by the old leader
        (group,) = b.queue.claim(new, 3600.0, 4)
        assert [q.player for q in group] == ["ann", "bo", "cai", "dan"]
        assert b.queue.claim(new, 0.0, 4) == []  # being seated: claimed once
        # the next leader puts back whoever its predecessor left being seated, first in line
        time.sleep(SHORT + 0.2)
        newer = a.leaders.hold(QUEUE, "a", SHORT)
        assert newer is not None
        with pytest.raises(StoreError):
            b.queue.seated(new, ["ann"], "NOWHERE")
        assert a.queue.recover(newer) == 4
        assert a.queue.status("ann") == (True, None)
        assert a.queue.leave("ann") and not a.queue.leave("ann")
        assert [q.player for q in a.queue.claim(newer, 0.0, 4)[0]] == ["bo", "cai", "dan"]
    finally:
        a.close()
        b.close()


def test_only_the_node_leading_the_tournaments_writes_them(db: str) -> None:
    a, b = Store(db), Store(db)
    fa, fb = NodeFence("a", 30.0), NodeFence("b", 30.0)
    a.leases.install(fa)
    b.leases.install(fb)
    try:
        starts = datetime.now(UTC) + timedelta(hours=1)
        with pytest.raises(StoreError) as nobody:  # nobody leads them yet
            a.tournaments.save("t1", "open", starts, {"entrants": []})
        assert nobody.value.code == ErrorCode.LEASE_LOST
        lead = a.leaders.hold(TOURNAMENTS, "a", SHORT)
        assert lead is not None
        fa.leads[TOURNAMENTS] = lead.token
        a.tournaments.save("t1", "open", starts, {"entrants": ["ann"]})
        with pytest.raises(StoreError):
            b.tournaments.save("t1", "open", starts, {"entrants": []})
        time.sleep(SHORT + 0.2)
        taken = b.leaders.hold(TOURNAMENTS, "b", SHORT)
        assert taken is not None
        fb.leads[TOURNAMENTS] = taken.token
        with pytest.raises(StoreError) as lost:  # a lost the lead: it writes nothing more
            a.tournaments.save("t1", "open", starts, {"entrants": []})
        assert lost.value.code == ErrorCode.LEASE_LOST
        b.tournaments.save("t1", "open", starts, {"entrants": ["ann", "bo"]})
        found = b.tournaments.get("t1")
        assert found is not None and found.state["entrants"] == ["ann", "bo"]
    finally:
        a.close()
        b.close()


# --- the queue, over nodes ----------------------------------------------------------------------------------
def test_people_queued_on_different_nodes_sit_together_and_are_told_on_their_own_node(
        make_node: Callable[..., Any]) -> None:
    a = make_node("a", queue_wait=3600.0)
    b = make_node("b", queue_wait=3600.0)
    assert node_of(a).leads_now(QUEUE) and not node_of(b).leads_now(QUEUE)  # the first up leads
    people = [Client(a, "ann"), Client(a, "bob"), Client(b, "cat"), Client(b, "dan")]
    homes = [a, a, b, b]
    with on(b, people[3]).websocket_connect("/ws/lobby") as dan_lobby, \
            on(a, people[0]).websocket_connect("/ws/lobby") as ann_lobby:
        for c, home in zip(people, homes, strict=True):
            r = on(home, c).post("/api/queue", json={"tier": "novice"})
            assert r.status_code == 200 and r.json() == {"queued": True}, r.text
        queued = on(a, people[3]).get("/api/queue").json()  # seen from any node
        assert queued["queued"] is True or queued["table"] is not None
        told = [ann_lobby.receive_json(), dan_lobby.receive_json()]
    code = told[0]["table"]
    assert told == [{"type": "matched", "table": code}] * 2
    for c in people:
        for home in (a, b):
            assert on(home, c).get("/api/queue").json() == {"queued": False, "table": code}
    table = a.state.lobby.tables[code]  # opened by the queue's leader, on its node
    assert isinstance(table, QueueTable) and code not in b.state.lobby.tables
    assert table.players == ["ann", "bob", "cat", "dan"]
    # a lobby socket opened after the seating, on the other node, is told at once
    with on(b, people[1]).websocket_connect("/ws/lobby") as ws:
        assert ws.receive_json() == {"type": "matched", "table": code}


def test_the_queue_goes_on_when_its_leader_stops(make_node: Callable[..., Any]) -> None:
    a = make_node("a", queue_wait=0.5)
    b = make_node("b", queue_wait=0.5)
    eve = Client(b, "eve")
    stop(a)  # a stopped on purpose gives up its leads: b takes them at its next look
    until(lambda: node_of(b).leads_now(QUEUE) and node_of(b).leads_now(TOURNAMENTS), "b never took the leads", WAIT)
    assert eve.http.post("/api/queue", json={"tier": "novice"}).status_code == 200
    code = until(lambda: eve.http.get("/api/queue").json()["table"], "eve was never seated", WAIT)
    assert b.state.lobby.tables[code].players[0] == "eve"


# --- the rooms' limits -----------------------------------------------------------------------------------------
def test_the_rooms_limits_count_the_rooms_of_every_node(make_node: Callable[..., Any]) -> None:
    a = make_node("a", max_open_rooms_per_account=1, max_rooms=2)
    b = make_node("b", max_open_rooms_per_account=1, max_rooms=2)
    ann, bob = Client(a, "ann"), Client(b, "bob")
    assert ann.http.post("/api/rooms", json={"hands": 1}).status_code == 200
    refused = on(b, ann).post("/api/rooms", json={"hands": 1})  # ann's room is on a
    assert refused.json()["error"]["code"] == "too_many_open_rooms", refused.text
    assert bob.http.post("/api/rooms", json={"hands": 1}).status_code == 200
    cat = Client(a, "cat")
    full = cat.http.post("/api/rooms", json={"hands": 1})  # one room on each node: two in all
    assert full.json()["error"]["code"] == "too_many_rooms", full.text


# --- the tournaments ----------------------------------------------------------------------------------------------
def test_one_node_runs_the_tournaments_and_the_others_send_there(make_node: Callable[..., Any]) -> None:
    a = make_node("a")
    b = make_node("b")
    assert node_of(a).leads_now(TOURNAMENTS) and not node_of(b).leads_now(TOURNAMENTS)
    assert a.state.runner.get("/api/tournaments").status_code == 200
    r = b.state.runner.get("/api/tournaments?x=1", follow_redirects=False)
    assert r.status_code == 307 and r.headers["location"] == "/n/a/api/tournaments?x=1"
    ann = Client(b, "ann")
    r = ann.http.runner.post("/api/tournaments/daily/join", headers={"cookie": f"xz_session={ann.http.token}"},
                             follow_redirects=False)
    assert r.status_code == 307 and r.headers["location"] == "/n/a/api/tournaments/daily/join"
    stop(a)
    until(lambda: node_of(b).leads_now(TOURNAMENTS), "b never took the tournaments", WAIT)
    assert b.state.runner.get("/api/tournaments", follow_redirects=False).status_code == 200


def test_quick_start_sends_back_to_the_quick_table_on_another_node(make_node: Callable[..., Any]) -> None:
    a = make_node("a", max_open_rooms_per_account=1)
    b = make_node("b", max_open_rooms_per_account=1)
    ann = Client(a, "ann")
    made = ann.http.post("/api/quickstart", json={})
    assert made.status_code == 200, made.text
    code = made.json()["code"]
    # on b, before a has listed the room and after: back to the same table, no second room
    again = on(b, ann).post("/api/quickstart", json={})
    assert again.status_code == 200 and again.json()["code"] == code, again.text
    until(lambda: node_of(b).quick_room("ann"), "a never listed ann's quick table")
    listed = on(b, ann).post("/api/quickstart", json={})
    assert listed.json()["code"] == code and listed.json()["room"]["code"] == code
    # a room from the lobby is no quick table: it still counts, and quick start is refused
    bob = Client(a, "bob")
    assert bob.http.post("/api/rooms", json={"hands": 1}).status_code == 200
    refused = on(b, bob).post("/api/quickstart", json={})
    assert refused.json()["error"]["code"] == "too_many_open_rooms", refused.text
