"""People to play with: the queue (``/api/queue``, ``/ws/lobby``), its tables (one hand at a time,
leaving between hands without penalty) and friends' rooms' six-digit codes (``/r/CODE``)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from test_server import WAIT, Client, Http, make_app, play_until_hand_end, status_of, table_of

from xuezhan.server import ServerConfig, create_app
from xuezhan.server.queue_table import QueueTable
from xuezhan.server.table import Status

__all__ = ["make_app"]

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def seated(client: Client) -> str:
    """The code of the table the queue seats ``client`` at (polls ``GET /api/queue``)."""
    deadline = time.monotonic() + WAIT
    while True:
        body = client.http.get("/api/queue").json()
        if body["table"] is not None:
            assert body["queued"] is False
            code: str = body["table"]
            return code
        assert body["queued"] is True
        assert time.monotonic() < deadline, "the queue seated nobody"
        time.sleep(0.02)


def people_at(app: Any, code: str) -> list[str | None]:
    return list(table_of(app, code).players)


def fees_of(client: Client) -> list[int]:
    return [e["delta"] for e in client.http.get("/api/wallet").json()["ledger"] if e["reason"] == "fee"]


def test_people_with_the_same_choice_sit_together_and_bots_fill_after_queue_wait(
        make_app: Callable[..., Any]) -> None:
    app = make_app(queue_wait=1.0)
    ann, bob = Client(app, "ann"), Client(app, "bob")
    for c in (ann, bob):
        r = c.http.post("/api/queue", json={"tier": "novice", "preset": "qq", "exchange_three": True})
        assert r.status_code == 200 and r.json() == {"queued": True}, r.text
    code = seated(ann)
    assert seated(bob) == code
    table = table_of(app, code)
    assert isinstance(table, QueueTable) and not table.public and len(code) == 10
    players = people_at(app, code)
    assert players[:2] == ["ann", "bob"] and all(p is not None and p.startswith("bot:") for p in players[2:])
    assert table.tier is not None and table.tier.id == "novice"
    assert table.room.rules.exchange_three == "random" and table.room.rules.preset_name == "qq"
    assert table.status is Status.WAITING  # dealt once both are here
    ann.connect(code)
    assert ann.wait_for(lambda m: m["type"] == "hello")["seat"] == 0
    bob.connect(code)
    assert bob.wait_for(lambda m: m["type"] == "hello")["seat"] == 1
    ann.wait_for(lambda m: m["type"] == "state")
    assert status_of(table) is Status.PLAYING


def test_four_sit_at_once_and_other_choices_apart(make_app: Callable[..., Any]) -> None:
    app = make_app(queue_wait=3600.0)
    four = [Client(app, n) for n in ("ann", "bob", "cat", "dan")]
    apart = [Client(app, n) for n in ("eve", "fay", "gus")]
    asks = [{"tier": "novice", "exchange_three": False}, {"tier": "novice", "preset": "chengdu"},
            {"tier": "junior"}]
    for c, ask in zip(apart, asks, strict=True):
        assert c.http.post("/api/queue", json=ask).status_code == 200
    for c in four:  # the defaults: qq, 换三张 on
        assert c.http.post("/api/queue", json={"tier": "novice"}).status_code == 200
    code = seated(four[0])
    assert [seated(c) for c in four] == [code] * 4
    assert people_at(app, code) == ["ann", "bob", "cat", "dan"]
    for c in apart:  # nobody with their choice came: they wait on
        assert c.http.get("/api/queue").json() == {"queued": True, "table": None}


def test_different_choices_do_not_sit_together(make_app: Callable[..., Any]) -> None:
    app = make_app(queue_wait=0.3)
    ann, bob = Client(app, "ann"), Client(app, "bob")
    assert ann.http.post("/api/queue", json={"tier": "novice", "exchange_three": True}).status_code == 200
    assert bob.http.post("/api/queue", json={"tier": "novice", "exchange_three": False}).status_code == 200
    a, b = seated(ann), seated(bob)
    assert a != b
    assert people_at(app, a)[0] == "ann" and "bob" not in people_at(app, a)
    assert people_at(app, b)[0] == "bob" and "ann" not in people_at(app, b)
    assert table_of(app, b).room.rules.exchange_three == "none"


def test_the_lobby_socket_is_told_where_the_player_sits(make_app: Callable[..., Any]) -> None:
    app = make_app(queue_wait=0.2)
    ann = Client(app, "ann")
    with ann.http.websocket_connect("/ws/lobby") as ws:
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}
        ws.send_json({"type": "sit"})
        assert ws.receive_json()["code"] == "unknown_message"
        assert ann.http.post("/api/queue", json={}).status_code == 200
        matched = ws.receive_json()
    code = seated(ann)
    assert matched == {"type": "matched", "table": code}
    ann.connect(code)  # the table waits no longer once its person is here
    ann.wait_for(lambda m: m["type"] == "hello")
    # a socket opened after the seating is told at once
    with ann.http.websocket_connect("/ws/lobby") as ws:
        assert ws.receive_json() == matched
    with Http(app.state.runner).websocket_connect("/ws/lobby") as ws:
        assert ws.receive_json()["code"] == "not_signed_in"


def test_leaving_the_queue(make_app: Callable[..., Any]) -> None:
    app = make_app(queue_wait=0.3)
    ann, bob = Client(app, "ann"), Client(app, "bob")
    assert ann.http.post("/api/queue", json={"tier": "novice"}).status_code == 200
    r = ann.http.runner.delete("/api/queue", headers={"cookie": f"xz_session={ann.http.token}"})
    assert r.status_code == 200 and r.json() == {"queued": False}
    assert ann.http.get("/api/queue").json() == {"queued": False, "table": None}
    assert bob.http.post("/api/queue", json={"tier": "novice"}).status_code == 200
    code = seated(bob)
    assert "ann" not in people_at(app, code)
    assert ann.http.get("/api/queue").json() == {"queued": False, "table": None}


def test_bad_queue_requests_change_nothing(make_app: Callable[..., Any]) -> None:
    app = make_app(queue_wait=3600.0)
    assert Http(app.state.runner).post("/api/queue", json={}).status_code == 401
    assert Http(app.state.runner).get("/api/queue").status_code == 401
    ann = Client(app, "ann")
    bad: list[tuple[Any, int, str]] = [
        ({"tier": "gold"}, 400, "bad_tier"),
        ({"tier": 3}, 400, "bad_tier"),
        ({"preset": "tokyo"}, 400, "bad_room"),
        ({"exchange_three": "yes"}, 400, "bad_request"),
        ({"accept_risk": 1}, 400, "bad_request"),
        ({"hands": 2}, 400, "bad_request"),
        ({"tier": "senior"}, 403, "insufficient_balance"),
        ([1, 2], 400, "bad_json"),
    ]
    for body, status, code in bad:
        r = ann.http.post("/api/queue", json=body)
        assert (r.status_code, r.json()["error"]["code"]) == (status, code), body
        assert ann.http.get("/api/queue").json() == {"queued": False, "table": None}, body
    r = ann.http.post("/api/queue", content=b"tier=novice")  # not JSON
    assert r.json()["error"]["code"] == "bad_request"
    assert app.state.lobby.queue.waiting == {}


def test_a_queue_table_lets_people_leave_between_hands_without_penalty(make_app: Callable[..., Any]) -> None:
    app = make_app(queue_wait=1.0, turn_timeout=60.0, claim_timeout=60.0, choice_timeout=60.0,
                   next_hand_delay=3600.0)
    ann, bob = Client(app, "ann"), Client(app, "bob")
    for c in (ann, bob):
        assert c.http.post("/api/queue", json={"tier": "junior", "exchange_three": False}).status_code == 200
    code = seated(ann)
    ann.connect(code)
    bob.connect(code)
    ends = play_until_hand_end([ann, bob])
    table = table_of(app, code)
    assert status_of(table) is Status.BETWEEN
    fee = table.room.fee
    assert fee > 0 and ends[0]["fees"][:2] == [fee, fee]
    # bob goes away between hands: when ann is ready the next hand is dealt without him
    bob.close()
    ann.send({"type": "ready"})
    ann.wait_for(lambda m: m["type"] == "state" and m["hand_no"] == 2)
    assert "bob" not in table.players and table.players[0] == "ann"
    # ann leaves the second hand's table only after it: a leave now is an escape, so she plays it out
    play_until_hand_end([ann])
    ann.send({"type": "leave"})
    ann.wait_for(lambda m: m["type"] == "ok" and m["for"] == "leave")
    assert "ann" not in table.players
    # nobody is left: the match ends and the table closes; no fee beyond the hands played
    deadline = time.monotonic() + WAIT
    while code in app.state.lobby.tables:
        assert time.monotonic() < deadline, "the empty queue table stayed open"
        time.sleep(0.02)
    assert fees_of(bob) == [-fee]
    assert fees_of(ann) == [-fee, -fee]
    assert bob.http.get("/api/me").json()["coins"] == 20_000 + ends[1]["coins"][1]


def test_a_queue_table_nobody_comes_to_closes(make_app: Callable[..., Any]) -> None:
    app = make_app(queue_wait=0.2)
    ann = Client(app, "ann")
    assert ann.http.post("/api/queue", json={}).status_code == 200
    code = seated(ann)
    deadline = time.monotonic() + WAIT
    while code in app.state.lobby.tables:
        assert time.monotonic() < deadline, "the table waited on"
        time.sleep(0.02)
    assert ann.http.get("/api/queue").json() == {"queued": False, "table": None}
    assert fees_of(ann) == []


# --- friends' rooms: six digits and a link ----------------------------------------------------------------


def test_friends_rooms_have_six_digit_codes_and_a_link(make_app: Callable[..., Any]) -> None:
    app = make_app()
    ann = Client(app, "ann")
    codes = [ann.http.post("/api/rooms", json={"name": f"r{k}", "public": False}).json()["code"] for k in range(2)]
    assert all(len(c) == 6 and c.isdigit() for c in codes) and codes[0] != codes[1]
    public = ann.http.post("/api/rooms", json={}).json()["code"]  # listed in the lobby
    quick = ann.http.post("/api/quickstart", json={}).json()["code"]
    assert len(public) == 10 and len(quick) == 10
    assert ann.http.get(f"/api/rooms/{codes[0]}").json()["room"]["code"] == codes[0]
    page = ann.http.get(f"/r/{codes[0]}")
    assert page.status_code == 200 and 'lang="zh-CN"' in page.text
    assert "main.js" in page.text and "default-src 'self'" in page.headers["content-security-policy"]
    unknown = "1234567"  # seven digits: never a code
    missing = ann.http.get(f"/r/{unknown}")
    assert missing.status_code == 404 and "main.js" in missing.text
    ann.connect(codes[0])
    assert ann.wait_for(lambda m: m["type"] == "hello")["seat"] == 0


def test_a_friends_code_of_a_closed_room_is_drawn_again(make_app: Callable[..., Any],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from xuezhan.server import lobby as lobby_module

    app = make_app()
    ann = Client(app, "ann")
    first = ann.http.post("/api/rooms", json={"public": False}).json()["code"]
    app.state.lobby.tables.pop(first)  # as when the room closes: its code stays in the database
    drawn = iter([first, "000042"])
    monkeypatch.setattr(lobby_module, "new_short_code", lambda: next(drawn))
    assert ann.http.post("/api/rooms", json={"public": False}).json()["code"] == "000042"


def test_quick_start_takes_exchange_three(make_app: Callable[..., Any]) -> None:
    app = make_app()
    ann = Client(app, "ann")
    for asked in ("random", "none"):
        r = ann.http.post("/api/quickstart", json={"options": {"exchange_three": asked}})
        assert table_of(app, r.json()["code"]).room.rules.exchange_three == asked


def test_a_queue_table_is_carried_on_as_one_after_a_restart(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'restart.sqlite3'}"
    config = ServerConfig.fast(queue_wait=0.1, turn_timeout=3600.0, claim_timeout=3600.0, choice_timeout=3600.0)
    with TestClient(create_app(db, config=config)) as c:
        assert c.post("/api/login", json={"name": "ann"}).status_code == 200
        assert c.post("/api/queue", json={"tier": "novice"}).status_code == 200
        deadline = time.monotonic() + WAIT
        while (code := c.get("/api/queue").json()["table"]) is None:
            assert time.monotonic() < deadline, "the queue seated nobody"
            time.sleep(0.02)
        cookies = dict(c.cookies)
        with c.websocket_connect(f"/ws/{code}") as ws:
            while ws.receive_json()["type"] != "state":
                pass  # dealt: the match is in the database
    again = create_app(db, config=config)
    with TestClient(again) as c2:
        c2.cookies = cookies
        table = again.state.lobby.tables[code]
        assert isinstance(table, QueueTable) and table.players[0] == "ann"
        assert table.meta()["queue"] is True
