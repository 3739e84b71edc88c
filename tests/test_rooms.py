"""Room floods: one account has at most ``max_open_rooms_per_account`` rooms open (the 4th is 429
``too_many_open_rooms`` while everyone else still plays), a room that closed, finished or was left
frees its place, quick start at the cap goes back to the player's quick table, queue tables never
count, and a waiting room nobody comes to closes after ``waiting_room_timeout``, across restarts
too."""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_restart import Back, Build, db, serve, stop
from test_server import Client, make_app, status_of, table_of

from xuezhan.errors import XuezhanError
from xuezhan.server import ServerConfig
from xuezhan.server.lobby import Lobby
from xuezhan.server.table import Status, Table
from xuezhan.store import Store

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
__all__ = ["db", "make_app", "serve"]  # the fixtures, from the server's and the restart's tests

WAIT = 30.0
CAP = 3  # the default of max_open_rooms_per_account


def until(what: str, done: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT
    while not done():
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


def lobby_of(app: Any) -> Lobby:
    lobby: Lobby = app.state.lobby
    return lobby


def new_room(p: Client, **fields: Any) -> Any:
    return p.http.post("/api/rooms", json={"hands": 1, **fields})


def refused(r: Any) -> bool:
    return bool(r.status_code == 429 and r.json()["error"]["code"] == "too_many_open_rooms")


def url(tmp_path: Path) -> str:
    """The database of ``make_app``'s server."""
    return f"sqlite:///{tmp_path / 'xz.sqlite3'}"


def room_meta(db: str, code: str) -> dict[str, Any]:
    store = Store(db)
    try:
        return store.rooms.room_meta(code)
    finally:
        store.close()


def test_one_account_gets_three_open_rooms_and_everyone_else_still_plays(make_app: Callable[..., Any]) -> None:
    app = make_app(max_open_rooms_per_account=CAP)
    amy, bea = Client(app, "amy"), Client(app, "bea")
    answers = [new_room(amy, public=k % 2 == 0) for k in range(10)]  # the flood, at lobby speed
    assert [r.status_code for r in answers[:CAP]] == [200] * CAP
    assert all(refused(r) for r in answers[CAP:])
    assert len(lobby_of(app).tables) == CAP  # nothing was made for the refusals
    quick = amy.http.post("/api/quickstart", json={"hands": 1})  # no quick table of amy's to go back to
    assert refused(quick) and len(lobby_of(app).tables) == CAP
    assert quick.json()["error"]["message"].startswith("你已经开了 3 个房间")  # the page shows this sentence
    english = amy.http.runner.post("/api/rooms", json={}, headers={"cookie": f"xz_session={amy.http.token}",
                                                                   "accept-language": "en"})
    assert refused(english) and english.json()["error"]["message"].startswith("You already have 3 rooms open")
    other = bea.http.post("/api/quickstart", json={"hands": 1})  # the server still has room for others
    assert other.status_code == 200, other.text
    assert len(lobby_of(app).tables) == CAP + 1


def test_rooms_made_at_once_cannot_pass_the_cap_together(make_app: Callable[..., Any]) -> None:
    app = make_app(max_open_rooms_per_account=CAP)
    amy = Client(app, "amy")
    lobby = lobby_of(app)
    account = app.state.bank.account("amy")
    room = lobby.tables[new_room(amy).json()["code"]].room

    async def flood() -> list[Table | BaseException]:
        made = [lobby.create(account, room, "r", public=True, autostart=False) for _ in range(8)]
        return await asyncio.gather(*made, return_exceptions=True)

    outcomes = app.state.runner.portal.call(flood)
    assert sum(isinstance(o, Table) for o in outcomes) == CAP - 1
    assert all(isinstance(o, Table) or (isinstance(o, XuezhanError) and o.code == "too_many_open_rooms")
               for o in outcomes)
    assert len(lobby.open_rooms("amy")) == CAP and not lobby._making


def test_a_room_left_finished_or_closed_frees_its_place(make_app: Callable[..., Any], tmp_path: Path) -> None:
    app = make_app(max_open_rooms_per_account=CAP, waiting_room_timeout=3.0, turn_timeout=120.0,
                   claim_timeout=120.0, choice_timeout=120.0)
    amy, bea = Client(app, "amy"), Client(app, "bea")
    lobby = lobby_of(app)
    finishing = amy.http.post("/api/quickstart", json={"hands": 1}).json()["code"]
    player = Back(app, amy)  # amy in another tab: her hand there waits for her
    player.connect(finishing)
    player.wait_for(lambda m: m["type"] == "state")
    leaving = amy.http.post("/api/quickstart", json={"hands": 2}).json()["code"]
    waiting = new_room(amy, public=False).json()["code"]
    bea.connect(waiting, watch=True)  # the room waits while bea is there
    assert refused(new_room(amy))

    amy.connect(leaving)  # left: amy escapes from the hand; the bots play on without her
    amy.wait_for(lambda m: m["type"] == "state")
    amy.send({"type": "leave"})
    amy.wait_for(lambda m: m["type"] == "ok" and m["for"] == "leave")
    left = table_of(app, leaving)
    assert lobby.get(leaving) is not None and ("amy" in left.left or "amy" not in left.players)
    assert [t.code for t in lobby.open_rooms("amy")] == [finishing, waiting]
    instead = new_room(amy, public=False)  # the place the left room held
    assert instead.status_code == 200
    Client(app, "cal").connect(instead.json()["code"], watch=True)  # this one waits as long as the test
    assert refused(new_room(amy))
    amy.close()
    until("the room amy left did not close", lambda: lobby.get(leaving) is None)  # nobody in it any more

    bea.close()  # closed: nobody comes to amy's waiting room for 3 s
    until("the waiting room did not close", lambda: lobby.get(waiting) is None)
    until("the room was not kept closed", lambda: room_meta(url(tmp_path), waiting).get("closed") is True)
    assert new_room(amy, public=False).status_code == 200  # the place the closed room held
    assert refused(new_room(amy))

    player.send({"type": "trustee", "on": True})  # finished: 托管 plays amy's one hand to its end
    player.wait_for(lambda m: m["type"] == "match_end")
    assert status_of(table_of(app, finishing)) is Status.FINISHED
    assert new_room(amy).status_code == 200  # the place the finished room held
    assert refused(new_room(amy))


def test_quick_start_at_the_cap_goes_back_to_the_players_quick_table(make_app: Callable[..., Any]) -> None:
    app = make_app(max_open_rooms_per_account=CAP, queue_wait=0.2)
    amy = Client(app, "amy")
    lobby = lobby_of(app)
    new_room(amy)
    older = amy.http.post("/api/quickstart", json={"hands": 1}).json()["code"]
    newer = amy.http.post("/api/quickstart", json={"hands": 1}).json()["code"]
    assert refused(new_room(amy))
    again = amy.http.post("/api/quickstart", json={"preset": "chengdu", "hands": 1})
    assert again.status_code == 200 and again.json()["code"] == newer != older
    assert again.json()["room"]["code"] == newer and len(lobby.tables) == CAP  # nothing new was made
    amy.connect(newer)  # and she sits there, as in the table quick start made for her
    assert amy.wait_for(lambda m: m["type"] == "hello")["seat"] == 0
    amy.close()

    assert amy.http.post("/api/queue", json={"tier": "novice"}).json() == {"queued": True}
    until("the queue did not seat amy", lambda: amy.http.get("/api/queue").json()["table"] is not None)
    table = lobby.get(amy.http.get("/api/queue").json()["table"])
    assert table is not None and table.owner == "amy"  # the queue's table, not amy's: it does not count
    assert len(lobby.open_rooms("amy")) == CAP and table not in lobby.open_rooms("amy")


def test_a_waiting_room_closes_after_waiting_room_timeout_counted_from_the_last_connection(
        make_app: Callable[..., Any], tmp_path: Path) -> None:
    app = make_app(waiting_room_timeout=1.0, room_idle_timeout=600.0)
    amy, bea = Client(app, "amy"), Client(app, "bea")
    lobby = lobby_of(app)
    kept = new_room(amy).json()["code"]
    alone = new_room(bea).json()["code"]
    amy.connect(kept)
    amy.wait_for(lambda m: m["type"] == "room")
    until("bea's room did not close", lambda: lobby.get(alone) is None)
    assert bea.http.get(f"/api/rooms/{alone}").status_code == 404
    assert lobby.get(kept) is not None  # amy is there: her room waits for her friends
    assert room_meta(url(tmp_path), kept)["waiting_since"] is None
    time.sleep(1.5)  # longer than the room's time: it counts only once nobody is there
    assert lobby.get(kept) is not None
    amy.close()
    left = time.time()
    until("amy's room did not close", lambda: lobby.get(kept) is None)
    assert time.time() - left >= 0.5  # its time started when amy left, not when it was made


def test_a_room_nobody_sits_in_closes_as_soon_as_nobody_is_there(make_app: Callable[..., Any]) -> None:
    app = make_app()  # waiting_room_timeout: 600 s
    amy = Client(app, "amy")
    lobby = lobby_of(app)
    code = new_room(amy).json()["code"]
    amy.connect(code)
    amy.wait_for(lambda m: m["type"] == "room")
    amy.send({"type": "leave"})
    amy.wait_for(lambda m: m["type"] == "ok" and m["for"] == "leave")
    assert lobby.get(code) is not None  # amy still watches
    amy.close()
    until("the empty room did not close", lambda: lobby.get(code) is None)


def test_a_waiting_room_that_closed_is_not_opened_again_after_a_restart(serve: Build, db: str) -> None:
    first = serve(db, waiting_room_timeout=0.5)
    amy = Client(first, "amy")
    code = new_room(amy).json()["code"]
    until("the waiting room did not close", lambda: lobby_of(first).get(code) is None)
    until("the room was not kept closed", lambda: room_meta(db, code).get("closed") is True)
    stop(first)
    again = serve(db, waiting_room_timeout=600.0)
    assert lobby_of(again).get(code) is None
    assert code not in {r["code"] for r in again.state.runner.get("/api/rooms").json()["rooms"]}
    assert room_meta(db, code)["closed"] is True


def test_a_waiting_rooms_time_runs_on_across_a_restart(serve: Build, db: str) -> None:
    first = serve(db, waiting_room_timeout=2.0)
    amy = Client(first, "amy")
    expired = new_room(amy).json()["code"]
    made = room_meta(db, expired)["waiting_since"]
    assert abs(made - time.time()) < 5
    stop(first)  # nobody came before the server stopped, nor while it was down
    time.sleep(max(0.0, made + 2.1 - time.time()))
    second = serve(db, waiting_room_timeout=2.0)
    assert lobby_of(second).get(expired) is None  # its time ran out while the server was down
    assert room_meta(db, expired)["closed"] is True  # for good
    later = new_room(Client(second, "bea")).json()["code"]
    since = room_meta(db, later)["waiting_since"]
    stop(second)

    third = serve(db, waiting_room_timeout=600.0)  # a longer wait does not open a closed room again
    lobby = lobby_of(third)
    assert lobby.get(expired) is None
    table = lobby.get(later)
    assert table is not None and table.waiting_since == since  # its wait goes on from when it was made
    assert table.waited_out(since + 600.0) and not table.waited_out(since + 599.0)


def test_the_new_settings_are_checked(tmp_path: Path) -> None:
    config = ServerConfig()
    assert (config.max_open_rooms_per_account, config.waiting_room_timeout) == (3, 600.0)
    good = tmp_path / "server.toml"
    good.write_text("[server]\nmax_open_rooms_per_account = 5\nwaiting_room_timeout = 120\n", encoding="utf-8")
    loaded = ServerConfig.from_file(good)
    assert (loaded.max_open_rooms_per_account, loaded.waiting_room_timeout) == (5, 120.0)
    for key, bad in [("max_open_rooms_per_account", 0), ("max_open_rooms_per_account", -1),
                     ("max_open_rooms_per_account", 2.5), ("max_open_rooms_per_account", True),
                     ("max_open_rooms_per_account", "3"), ("waiting_room_timeout", 0),
                     ("waiting_room_timeout", -5), ("waiting_room_timeout", math.inf),
                     ("waiting_room_timeout", math.nan), ("waiting_room_timeout", "600"),
                     ("waiting_room_timeout", False)]:
        with pytest.raises(XuezhanError) as err:
            ServerConfig.from_mapping({key: bad})
        assert err.value.code == "bad_config" and key in err.value.message
    with pytest.raises(ValueError, match="max_open_rooms_per_account"):
        ServerConfig(max_open_rooms_per_account=0)
    with pytest.raises(ValueError, match="waiting_room_timeout"):
        ServerConfig(waiting_room_timeout=0.0)
