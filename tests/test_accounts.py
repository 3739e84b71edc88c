"""Accounts people keep: register, log in and out with a password, sessions kept in the database
(refused after logout or expiry, kept across a restart), attempts rate-limited, guests who set a
password, names unique by their NFKC case-folded key, bot-like names reserved, the page's
language, and bots named as bots."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import update
from starlette.testclient import TestClient
from test_server import Client, Http, make_app, play_until_hand_end, table_of

from xuezhan.server import ServerConfig, create_app
from xuezhan.server.limits import AttemptLimiter
from xuezhan.server.names import check_name, is_reserved, name_key
from xuezhan.store.models import SessionRow

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

__all__ = ["make_app"]  # the fixture, shared with test_server

PASSWORD = "correct horse"


def _code(r: Any) -> tuple[int, str]:
    return r.status_code, r.json()["error"]["code"] if r.status_code >= 400 else ""


def test_register_logout_login_and_the_old_cookie_is_refused(make_app: Callable[..., Any]) -> None:
    app = make_app()
    c = Http(app.state.runner)
    r = c.post("/api/register", json={"name": "mei", "password": PASSWORD})
    assert r.status_code == 200, r.text
    me = r.json()
    assert me == {"name": "mei", "coins": 20_000, "guest": False, "lang": None,
                  "relief": {"available": False, "amount": 2_000, "floor": 1_000}}
    old = c.token
    assert c.get("/api/me").json()["name"] == "mei"
    code = c.post("/api/quickstart", json={}).json()["code"]
    assert c.post("/api/logout").json() == {}
    stale = Http(app.state.runner, old)  # the same cookie, kept by someone after the logout
    assert _code(stale.get("/api/me")) == (401, "not_signed_in")
    assert _code(stale.get("/api/wallet")) == (401, "not_signed_in")
    assert _code(stale.post("/api/quickstart", json={})) == (401, "not_signed_in")
    with stale.websocket_connect(f"/ws/{code}") as ws:
        assert ws.receive_json()["code"] == "not_signed_in"
    again = Http(app.state.runner)
    r = again.post("/api/login", json={"name": "MEI", "password": PASSWORD})  # a name is found by its key
    assert r.status_code == 200 and r.json()["name"] == "mei" and again.token != old


def test_wrong_password_unknown_name_and_guest_on_a_member_name(make_app: Callable[..., Any]) -> None:
    app = make_app()
    c = Http(app.state.runner)
    assert c.post("/api/register", json={"name": "kai", "password": PASSWORD}).status_code == 200
    other = Http(app.state.runner)
    assert _code(other.post("/api/login", json={"name": "kai", "password": "wrong password"})) == (401, "bad_login")
    assert _code(other.post("/api/login", json={"name": "nobody", "password": PASSWORD})) == (401, "bad_login")
    assert _code(other.post("/api/login", json={"name": "kai"})) == (401, "bad_login")  # no guest on it
    assert other.token == ""  # no session was given
    assert _code(other.post("/api/register", json={"name": "Kai", "password": PASSWORD})) == (409, "name_taken")
    assert _code(other.post("/api/register", json={"name": "lee", "password": "short"})) == (400, "weak_password")
    assert _code(other.post("/api/login", json={"name": "lee", "password": 5})) == (400, "bad_request")
    # the error's message is in the request's language
    en = app.state.runner.post("/api/login", json={"name": "kai", "password": "nope nope"},
                               headers={"accept-language": "en-US,en;q=0.9"})
    zh = app.state.runner.post("/api/login", json={"name": "kai", "password": "nope nope"})
    assert en.json()["error"]["message"] == "Wrong name or password"
    assert zh.json()["error"]["message"] == "名字或密码不对"


def test_login_after_a_restart_keeps_the_coins(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'accounts.sqlite3'}"
    config = ServerConfig.fast(turn_timeout=0.01, claim_timeout=0.01, choice_timeout=0.01)
    with TestClient(create_app(db, config=config)) as c:
        assert c.post("/api/register", json={"name": "rui", "password": PASSWORD}).status_code == 200
        code = c.post("/api/quickstart", json={}).json()["code"]
        with c.websocket_connect(f"/ws/{code}") as ws:
            while (msg := ws.receive_json())["type"] != "hand_end":
                pass
        coins = c.get("/api/me").json()["coins"]
        assert coins == 20_000 + msg["coins"][0]
    with TestClient(create_app(db, config=config)) as c2:  # a new process, a new browser
        r = c2.post("/api/login", json={"name": "rui", "password": PASSWORD})
        assert r.status_code == 200 and r.json()["coins"] == coins
        assert [h["delta"] for h in c2.get("/api/history").json()["hands"]] == [msg["coins"][0]]


def test_an_expired_session_is_refused(make_app: Callable[..., Any]) -> None:
    app = make_app()
    c = Http(app.state.runner)
    assert c.post("/api/login", json={"name": "eve"}).status_code == 200
    assert c.get("/api/me").status_code == 200
    with app.state.bank.store.engine.begin() as conn:  # a month later
        conn.execute(update(SessionRow).values(expires_at=SessionRow.created_at))
    assert _code(c.get("/api/me")) == (401, "not_signed_in")


def test_sign_in_attempts_are_limited_per_name_and_per_address(make_app: Callable[..., Any]) -> None:
    app = make_app(login_attempts=3)
    c = Http(app.state.runner)
    assert c.post("/api/register", json={"name": "ida", "password": PASSWORD}).status_code == 200
    for _ in range(2):
        assert _code(c.post("/api/login", json={"name": "ida", "password": "guess guess"})) == (401, "bad_login")
    r = c.post("/api/login", json={"name": "ida", "password": PASSWORD})  # even the right one, for now
    assert _code(r) == (429, "rate_limited")
    limiter = AttemptLimiter(3, 60.0)  # the same rule, with explicit addresses and times
    assert all(limiter.allow("name:ida", f"address:{i}", now=0.0) for i in range(3))
    assert not limiter.allow("name:ida", "address:new", now=1.0)  # the name is over its limit
    assert limiter.allow("name:joe", "address:new", now=1.0)
    assert all(limiter.allow(f"name:n{i}", "address:x", now=2.0) for i in range(3))
    assert not limiter.allow("name:other", "address:x", now=2.0)  # the address is over its limit
    assert limiter.allow("name:ida", "address:later", now=61.0)  # the window has passed


def test_new_accounts_per_address_and_day_are_limited(make_app: Callable[..., Any]) -> None:
    app = make_app(accounts_per_address=2)
    for name in ("one", "two"):
        assert Http(app.state.runner).post("/api/login", json={"name": name}).status_code == 200
    r = Http(app.state.runner).post("/api/register", json={"name": "three", "password": PASSWORD})
    assert _code(r) == (429, "rate_limited")
    assert app.state.bank.account("three") is None  # nothing made, no coins granted
    assert app.state.bank.store.ledger.audit()["issued"] > 0


def test_the_accounts_of_a_table_are_read_at_once_people_and_bots_alike(make_app: Callable[..., Any]) -> None:
    app = make_app()
    for name in ("ann", "bo"):
        assert Http(app.state.runner).post("/api/login", json={"name": name}).status_code == 200
    bank = app.state.bank
    names = ["ann", "bo", "bot:1", "nobody"]
    read = bank.accounts(names)
    assert list(read) == names and read["nobody"] is None
    for name in names:  # the same as one at a time
        assert read[name] == bank.account(name)
    assert read["ann"] is not None and read["ann"].balance > 0
    assert bank.accounts([]) == {}
    assert set(bank.store.accounts.players(names)) == {n for n, a in read.items() if a is not None}


def test_a_guest_sets_a_password_and_keeps_the_account(make_app: Callable[..., Any]) -> None:
    app = make_app()
    c = Http(app.state.runner)
    assert c.post("/api/login", json={"name": "gus"}).json()["guest"] is True
    assert _code(c.post("/api/password", json={"password": "tiny"})) == (400, "weak_password")
    r = c.post("/api/password", json={"password": PASSWORD})
    assert r.status_code == 200 and r.json()["guest"] is False and r.json()["coins"] == 20_000
    # a member changes it with the old one only
    assert _code(c.post("/api/password", json={"password": "another one"})) == (401, "bad_login")
    assert c.post("/api/password", json={"password": "another one", "old_password": PASSWORD}).status_code == 200
    assert c.post("/api/logout").status_code == 200
    back = Http(app.state.runner)
    r = back.post("/api/login", json={"name": "gus", "password": "another one"})
    assert r.status_code == 200 and r.json()["coins"] == 20_000  # no second grant
    assert [e["reason"] for e in back.get("/api/wallet").json()["ledger"]] == ["start"]


@pytest.mark.parametrize("name", ["Bot", "ｂｏｔ", "B0T", "bot smith", "Вот", "机器人3", "機器人", "電腦", "电脑7",
                                  "AI", "A I 2", "ＡＩ", "system", "Admin", "Robot", "Bot 1"])
def test_bot_like_and_confusable_names_are_reserved(name: str) -> None:
    assert is_reserved(name)
    with pytest.raises(Exception, match="kept for bots") as info:
        check_name(name)
    assert getattr(info.value, "code", None) == "reserved_name"


def test_names_are_nfkc_and_unique_by_case_folded_key(make_app: Callable[..., Any]) -> None:
    assert check_name("  Ｂｏｂ ") == "Bob" and name_key("ＢＯＢ") == name_key("bob") == name_key("B o b")
    for fine in ("Aiden", "小明", "Tiger", "Straße"):
        assert not is_reserved(fine), fine
    assert name_key("Straße") == name_key("STRASSE")
    app = make_app()
    r = Http(app.state.runner).post("/api/register", json={"name": "Ｂｏｂ", "password": PASSWORD})
    assert r.status_code == 200 and r.json()["name"] == "Bob"
    for same in ("bob", "BOB", "ｂｏｂ"):
        assert _code(Http(app.state.runner).post("/api/login", json={"name": same})) == (409, "name_taken"), same
    r = Http(app.state.runner).post("/api/register", json={"name": "ＢＯＴ", "password": PASSWORD})
    assert _code(r) == (400, "reserved_name")


def test_the_language_follows_the_choice(make_app: Callable[..., Any]) -> None:
    app = make_app()
    runner: TestClient = app.state.runner
    assert '<html lang="zh-CN"' in runner.get("/").text  # Chinese first
    assert '<html lang="zh-TW"' in runner.get("/", headers={"accept-language": "zh-Hant-TW,zh;q=0.8"}).text
    assert '<html lang="en"' in runner.get("/", headers={"accept-language": "en-GB"}).text
    c = Http(app.state.runner)
    assert c.post("/api/login", json={"name": "lou"}).status_code == 200
    assert _code(c.post("/api/lang", json={"lang": "fr"})) == (400, "bad_lang")
    r = c.post("/api/lang", json={"lang": "en"})
    assert r.json() == {"lang": "en"} and r.cookies["lang"] == "en"
    assert c.get("/api/me").json()["lang"] == "en"  # kept on the account
    assert '<html lang="en"' in runner.get("/", headers={"cookie": "lang=en"}).text
    assert runner.get("/api/tiers", headers={"cookie": "lang=en"}).json()["tiers"][0]["name"] == "Novice room"
    assert runner.get("/api/tiers").json()["tiers"][0]["name"] == "新手场"


def test_bots_are_named_as_bots_and_an_escaper_is_replaced_by_a_bot_of_its_own(
        make_app: Callable[..., Any]) -> None:
    app = make_app(next_hand_delay=0.05)
    p = Client(app, "max")
    code = p.http.post("/api/quickstart", json={"hands": 2}).json()["code"]
    p.connect(code)
    room = p.wait_for(lambda m: m["type"] == "room" and m["room"]["status"] == "playing")["room"]
    seats = room["seats"]
    assert seats[0]["name"] == "max" and not seats[0]["bot"]
    assert [s["name"] for s in seats[1:]] == ["机器人1", "机器人2", "机器人3"] and all(s["bot"] for s in seats[1:])
    p.wait_for(lambda m: m["type"] == "state" and m["view"]["legal"] != [])
    p.send({"type": "leave"})
    end = p.wait_for(lambda m: m["type"] == "hand_end")
    assert end["names"][0] == "max" and end["escaped"] == [0]
    assert any("max" in line and "逃跑" in line for line in end["explain"])
    table = table_of(app, code)
    rooms = [m["room"] for m in p.seen if m["type"] == "room" and m["room"]["status"] == "between"]
    assert rooms and rooms[-1]["seats"][0] == {**rooms[-1]["seats"][0], "name": "机器人4", "bot": True}
    assert table.players[0] == "bot:4"
    p.close()


def test_a_seated_player_has_a_deadline_and_a_spectator_none(make_app: Callable[..., Any]) -> None:
    app = make_app(turn_timeout=30.0, claim_timeout=30.0, choice_timeout=30.0)
    p = Client(app, "dee")
    code = p.http.post("/api/quickstart", json={"hands": 1}).json()["code"]
    p.connect(code)
    st = p.wait_for(lambda m: m["type"] == "state" and m["decision"] is not None)
    assert isinstance(st["deadline_ms"], int) and 0 < st["deadline_ms"] <= 30_000
    eye = Client(app, "eye")
    eye.connect(code, watch=True)
    seen = eye.wait_for(lambda m: m["type"] == "state")
    assert seen["deadline_ms"] is None
    play_until_hand_end([p])
    eye.close()
    p.close()
