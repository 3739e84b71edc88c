"""Limits and sessions of a public server: sign-in throttled per name and address (the owner is
never locked out from elsewhere, the wait is told), who the client is behind trusted proxies,
sessions that end everywhere (their sockets close with 4001 within a second), names unique by
what they look like, and other sites' requests refused."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from argon2 import PasswordHasher
from starlette.testclient import TestClient
from test_server import Http, make_app

from xuezhan import i18n, vocab
from xuezhan.i18n import LANGS
from xuezhan.ids import ErrorCode
from xuezhan.server.app import same_origin
from xuezhan.server.bank import Account
from xuezhan.server.conn import Conn
from xuezhan.server.limits import AttemptLimiter, client_address, retry_seconds, trusted_networks
from xuezhan.server.names import check_name, name_key, name_skeleton
from xuezhan.server.sessions import SESSION_ENDED, SessionSockets
from xuezhan.server.storebank import StoreBank
from xuezhan.store import Store

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

__all__ = ["make_app"]  # the fixture, shared with test_server

PASSWORD = "correct horse"
NEW_PASSWORD = "battery staple"
THROTTLED = {"login_attempts": 10, "login_attempts_per_address": 50}
"""The default sign-in limits (the test settings lift them)."""


def _code(r: Any) -> tuple[int, str]:
    return r.status_code, r.json()["error"]["code"] if r.status_code >= 400 else ""


def _post(c: Http, url: str, headers: dict[str, str], **kwargs: Any) -> Any:
    """A POST of ``c``'s browser with more headers."""
    return c.runner.post(url, headers={"cookie": f"xz_session={c.token}", **headers}, **kwargs)


def _from(app: Any, address: str, headers: dict[str, str] | None = None) -> TestClient:
    """Requests from another client address (a client of its own on the same app)."""
    return TestClient(app, client=(address, 40000), headers=headers)


# --- sign-in throttling ------------------------------------------------------------------------------


def test_a_strangers_wrong_passwords_never_lock_the_owner_out(make_app: Callable[..., Any]) -> None:
    app = make_app(**THROTTLED)
    owner = Http(app.state.runner)
    assert owner.post("/api/register", json={"name": "alice", "password": PASSWORD}).status_code == 200
    stranger = _from(app, "198.51.100.7")
    for _ in range(10):
        r = stranger.post("/api/login", json={"name": "alice", "password": "guess guess"})
        assert _code(r) == (401, "bad_login")
    r = stranger.post("/api/login", json={"name": "alice", "password": "guess guess"})
    assert _code(r) == (429, "rate_limited")
    wait = r.json()["error"]["retry_after"]
    assert isinstance(wait, int) and 1 <= wait <= 300
    assert r.headers["retry-after"] == str(wait)
    assert str(wait) in r.json()["error"]["message"]  # the sentence says how long
    # even the right password, from the throttled address, waits
    assert _code(stranger.post("/api/login", json={"name": "alice", "password": PASSWORD})) == (429, "rate_limited")
    # the owner, from another address, signs in at once
    r = _from(app, "203.0.113.5").post("/api/login", json={"name": "alice", "password": PASSWORD})
    assert r.status_code == 200 and r.json()["name"] == "alice"
    # and the stranger's address may still try other names
    assert _code(stranger.post("/api/login", json={"name": "bob", "password": "guess guess"})) == (401, "bad_login")


def test_an_address_is_throttled_across_names(make_app: Callable[..., Any]) -> None:
    app = make_app(login_attempts=10, login_attempts_per_address=5)
    owner = Http(app.state.runner)
    assert owner.post("/api/register", json={"name": "alice", "password": PASSWORD}).status_code == 200
    sprayer = _from(app, "198.51.100.8")
    for i in range(5):
        r = sprayer.post("/api/login", json={"name": f"n{i}", "password": "guess guess"})
        assert _code(r) == (401, "bad_login")
    r = sprayer.post("/api/login", json={"name": "alice", "password": "guess guess"})
    assert _code(r) == (429, "rate_limited") and r.headers["retry-after"]
    r = _from(app, "203.0.113.5").post("/api/login", json={"name": "alice", "password": PASSWORD})
    assert r.status_code == 200


def test_right_passwords_are_not_counted(make_app: Callable[..., Any]) -> None:
    app = make_app(login_attempts=3, login_attempts_per_address=3)
    c = Http(app.state.runner)
    assert c.post("/api/register", json={"name": "rui", "password": PASSWORD}).status_code == 200
    for _ in range(6):
        assert c.post("/api/login", json={"name": "rui", "password": PASSWORD}).status_code == 200


def test_attempt_limiter_tells_the_wait() -> None:
    limiter = AttemptLimiter(3, 60.0)
    for t in (0.0, 10.0, 20.0):
        assert limiter.wait("k", now=t) == 0
        limiter.count("k", now=t)
    assert limiter.wait("k", now=30.0) == pytest.approx(30.0)  # the first attempt leaves the window at 60
    assert limiter.wait("other", now=30.0) == 0
    assert limiter.wait("k", now=60.0) == 0
    assert retry_seconds(0.2) == 1 and retry_seconds(29.1) == 30


def test_new_accounts_past_the_daily_limit_say_when(make_app: Callable[..., Any]) -> None:
    app = make_app(accounts_per_address=1)
    assert Http(app.state.runner).post("/api/login", json={"name": "one"}).status_code == 200
    r = Http(app.state.runner).post("/api/register", json={"name": "two", "password": PASSWORD})
    assert _code(r) == (429, "rate_limited")
    wait = r.json()["error"]["retry_after"]
    assert 1 <= wait <= 24 * 3600 and r.headers["retry-after"] == str(wait)
    # another address may still make one
    assert _from(app, "203.0.113.9").post("/api/login", json={"name": "three"}).status_code == 200


def test_the_http_rate_limit_says_when(make_app: Callable[..., Any]) -> None:
    app = make_app(http_rate_per_second=0.5, http_rate_burst=1)
    c = Http(app.state.runner)
    assert c.post("/api/login", json={"name": "fay"}).status_code == 200
    assert c.post("/api/quickstart", json={}).status_code == 200
    r = c.post("/api/quickstart", json={})
    assert _code(r) == (429, "rate_limited")
    assert r.json()["error"]["retry_after"] in (1, 2) and r.headers["retry-after"] in ("1", "2")


def test_a_flooding_sockets_refusals_say_when(make_app: Callable[..., Any]) -> None:
    app = make_app(rate_per_second=0.5, rate_burst=2, rate_strikes=100)
    c = Http(app.state.runner)
    assert c.post("/api/login", json={"name": "gil"}).status_code == 200
    with c.websocket_connect("/ws/lobby") as ws:
        for _ in range(3):
            ws.send_json({"type": "ping"})
        answers = [ws.receive_json() for _ in range(3)]
    assert answers[:2] == [{"type": "pong"}] * 2
    assert answers[2]["code"] == "rate_limited" and answers[2]["retry_after"] in (1, 2)


# --- the client's address ----------------------------------------------------------------------------


def test_trusted_proxies_decide_which_address_counts(make_app: Callable[..., Any], tmp_path: Path) -> None:
    """Behind a proxy every request comes from the proxy: its X-Forwarded-For names the client
    only when the proxy is trusted."""
    for n, (trusted, owner_gets) in enumerate((((), 429), (("127.0.0.0/8",), 200))):
        app = make_app(f"sqlite:///{tmp_path / f'proxy{n}.sqlite3'}", **THROTTLED, trusted_proxies=trusted)
        owner = _from(app, "127.0.0.1", {"x-forwarded-for": "203.0.113.5"})
        assert owner.post("/api/register", json={"name": "alice", "password": PASSWORD}).status_code == 200
        stranger = _from(app, "127.0.0.1", {"x-forwarded-for": "198.51.100.7"})
        for _ in range(10):
            stranger.post("/api/login", json={"name": "alice", "password": "guess guess"})
        assert _code(stranger.post("/api/login", json={"name": "alice", "password": PASSWORD})) == (429, "rate_limited")
        r = owner.post("/api/login", json={"name": "alice", "password": PASSWORD})
        assert r.status_code == owner_gets, trusted
    # a client that is not a trusted proxy cannot pick its address with the header
    app = make_app(f"sqlite:///{tmp_path / 'proxy2.sqlite3'}", **THROTTLED, trusted_proxies=("127.0.0.1",))
    for i in range(11):
        r = _from(app, "198.51.100.7", {"x-forwarded-for": f"203.0.113.{i}"}).post(
            "/api/login", json={"name": "alice", "password": "guess guess"})
    assert _code(r) == (429, "rate_limited")


@pytest.mark.parametrize(("peer", "forwarded", "xff", "found"), [
    ("198.51.100.1", None, "203.0.113.5", "198.51.100.1"),  # not a proxy: the header is ignored
    ("10.0.0.2", None, "203.0.113.5", "203.0.113.5"),
    ("10.0.0.2", None, "1.1.1.1, 203.0.113.5, 10.0.0.9", "203.0.113.5"),  # the nearest untrusted hop
    ("10.0.0.2", None, "1.1.1.1, 203.0.113.5:4711", "203.0.113.5"),
    ("10.0.0.2", None, "garbage, 10.0.0.9", "10.0.0.9"),  # a hop that is no address stops the walk
    ("10.0.0.2", None, None, "10.0.0.2"),
    ("10.0.0.2", 'for=192.0.2.60;proto=http;by=10.0.0.2', "203.0.113.5", "192.0.2.60"),  # Forwarded first
    ("10.0.0.2", 'for="[2001:db8:cafe::17]:4711"', None, "2001:db8:cafe::17"),
    ("10.0.0.2", 'for=unknown', None, "10.0.0.2"),
    ("::1", None, "203.0.113.5", "203.0.113.5"),
])
def test_client_address(peer: str, forwarded: str | None, xff: str | None, found: str) -> None:
    trusted = trusted_networks(["10.0.0.0/8", "::1"])
    assert client_address(peer, trusted, forwarded=forwarded, x_forwarded_for=xff) == found
    assert client_address(peer, (), forwarded=forwarded, x_forwarded_for=xff) == peer


def test_trusted_proxies_are_checked(tmp_path: Path) -> None:
    from xuezhan.errors import XuezhanError
    from xuezhan.server import ServerConfig

    assert ServerConfig.from_mapping({"trusted_proxies": ["127.0.0.1", "10.0.0.0/8", "::1"]}).trusted_proxies == (
        "127.0.0.1", "10.0.0.0/8", "::1")
    assert ServerConfig().trusted_proxies == ()
    for bad in (["localhost"], "127.0.0.1", [1], ["10.0.0.0/33"]):
        with pytest.raises(XuezhanError) as err:
            ServerConfig.from_mapping({"trusted_proxies": bad})
        assert err.value.code == ErrorCode.BAD_CONFIG
    path = tmp_path / "server.toml"
    path.write_text('[server]\ntrusted_proxies = ["192.0.2.0/24"]\n', encoding="utf-8")
    assert ServerConfig.from_file(path).trusted_proxies == ("192.0.2.0/24",)


# --- sessions end everywhere -------------------------------------------------------------------------


class Watched:
    """An open websocket read on a thread of its own until it closes: its close code and when."""

    def __init__(self, http: Http, url: str) -> None:
        self._cm = http.websocket_connect(url)
        self.ws = self._cm.__enter__()
        self.code: int | None = None
        self.closed_at = 0.0
        self.done = threading.Event()
        self.messages: list[dict[str, Any]] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            while True:
                msg = self.ws.receive()
                if msg["type"] == "websocket.close":
                    self.code = msg.get("code", 1000)
                    break
                self.messages.append(msg)
        except Exception:  # the test client went away
            pass
        self.closed_at = time.monotonic()
        self.done.set()

    def close(self) -> None:
        """End the test client's side (also after the server closed it: its task waits for this)."""
        self._cm.__exit__(None, None, None)
        self.done.wait(5.0)


def _two_sessions(app: Any, name: str) -> tuple[Http, Http]:
    first = Http(app.state.runner)
    assert first.post("/api/register", json={"name": name, "password": PASSWORD}).status_code == 200
    second = Http(app.state.runner)
    assert second.post("/api/login", json={"name": name, "password": PASSWORD}).status_code == 200
    assert first.token != second.token
    return first, second


def test_a_password_change_ends_the_other_sessions_and_closes_their_sockets(make_app: Callable[..., Any]) -> None:
    app = make_app()
    phone, laptop = _two_sessions(app, "mei")
    code = phone.post("/api/quickstart", json={}).json()["code"]
    table = Watched(phone, f"/ws/{code}")
    lobby = Watched(phone, "/ws/lobby")
    mine = Watched(laptop, "/ws/lobby")
    try:
        time.sleep(0.2)
        assert not table.done.is_set() and not lobby.done.is_set()
        r = laptop.post("/api/password", json={"password": NEW_PASSWORD, "old_password": PASSWORD})
        changed = time.monotonic()
        assert r.status_code == 200, r.text
        for socket in (table, lobby):
            assert socket.done.wait(1.0), "the ended session's socket is still open"
            assert socket.code == SESSION_ENDED and socket.closed_at - changed < 1.0
        assert _code(phone.get("/api/me")) == (401, "not_signed_in")  # the other session ended
        assert laptop.get("/api/me").status_code == 200  # the one that changed it goes on
        assert not mine.done.wait(0.3)  # and so does its socket
        assert len(app.state.sockets) == 1
    finally:
        for socket in (table, lobby, mine):
            socket.close()


def test_logout_closes_the_sessions_sockets(make_app: Callable[..., Any]) -> None:
    app = make_app()
    phone, laptop = _two_sessions(app, "kai")
    code = phone.post("/api/quickstart", json={}).json()["code"]
    table = Watched(phone, f"/ws/{code}")
    other = Watched(laptop, "/ws/lobby")
    try:
        time.sleep(0.2)
        assert phone.post("/api/logout").status_code == 200
        out = time.monotonic()
        assert table.done.wait(1.0) and table.code == SESSION_ENDED and table.closed_at - out < 1.0
        assert not other.done.wait(0.3)  # another session of the account is not this one
        assert laptop.get("/api/me").status_code == 200
    finally:
        table.close()
        other.close()


def test_an_expired_sessions_socket_closes(make_app: Callable[..., Any]) -> None:
    app = make_app(session_ttl=1.5)
    c = Http(app.state.runner)
    assert c.post("/api/login", json={"name": "eve"}).status_code == 200
    expires = app.state.bank.session_expires(c.token)
    assert expires is not None
    socket = Watched(c, "/ws/lobby")
    try:
        assert socket.done.wait(4.0) and socket.code == SESSION_ENDED
        late = time.time() - expires.timestamp() - (time.monotonic() - socket.closed_at)
        assert -0.1 < late < 1.0
        assert _code(c.get("/api/me")) == (401, "not_signed_in")
    finally:
        socket.close()


def test_session_sockets_close_on_every_ending() -> None:
    """The registry alone: an ending between keeping a socket and reading its expiry still closes it;
    an expiry in the past closes at once; a timer closes at the expiry; a closed socket is forgotten."""

    async def run() -> None:
        sockets = SessionSockets()
        conns = [Conn(Account(f"p{i}", f"p{i}", 0)) for i in range(4)]
        later = datetime.now(UTC) + timedelta(hours=1)
        sockets.add(conns[0], "t0", "p0")
        assert sockets.end("t0") == 1  # logout before the expiry was read
        sockets.expire_at(conns[0], later)
        assert conns[0].closed and conns[0].close_code == SESSION_ENDED and len(sockets) == 0
        sockets.add(conns[1], "t1", "p1")
        sockets.expire_at(conns[1], None)  # the session had ended already
        assert conns[1].close_code == SESSION_ENDED and len(sockets) == 0
        sockets.add(conns[2], "t2", "p2")
        sockets.expire_at(conns[2], datetime.now(UTC) + timedelta(seconds=0.2))
        sockets.add(conns[3], "t3", "p2")
        sockets.expire_at(conns[3], later)
        await asyncio.sleep(0.4)
        assert conns[2].close_code == SESSION_ENDED and not conns[3].closed
        assert sockets.end_others("p2", keep="t3") == 0 and not conns[3].closed
        sockets.remove(conns[3])
        assert len(sockets) == 0 and sockets.end("t3") == 0

    asyncio.run(run())


def test_a_revoked_session_cannot_open_a_socket(make_app: Callable[..., Any]) -> None:
    app = make_app()
    phone, laptop = _two_sessions(app, "lou")
    assert laptop.post("/api/password", json={"password": NEW_PASSWORD, "old_password": PASSWORD}).status_code == 200
    with phone.websocket_connect("/ws/lobby") as ws:
        assert ws.receive_json()["code"] == "not_signed_in"
    elsewhere = _from(app, "203.0.113.5")
    assert elsewhere.post("/api/login", json={"name": "lou", "password": PASSWORD}).status_code == 401
    assert elsewhere.post("/api/login", json={"name": "lou", "password": NEW_PASSWORD}).status_code == 200


# --- names -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("lookalike", [
    "\u0430lice",  # Cyrillic а
    "Al\u0456ce",  # Cyrillic і
    "ALICE", "A l i c e", "Ａｌｉｃｅ", "Alice\u3164", "Ali\u200bce", "A1ice",
])
def test_look_alike_names_are_taken(make_app: Callable[..., Any], lookalike: str) -> None:
    app = make_app()
    assert Http(app.state.runner).post("/api/register", json={"name": "Alice", "password": PASSWORD}).status_code == 200
    r = Http(app.state.runner).post("/api/register", json={"name": lookalike, "password": PASSWORD})
    assert _code(r) in ((409, "name_taken"), (400, "bad_name")), lookalike
    r = Http(app.state.runner).post("/api/login", json={"name": lookalike})  # a guest neither
    assert r.status_code in (400, 401, 409), lookalike


def test_cyrillic_look_alikes_collide_by_skeleton() -> None:
    assert name_skeleton("\u0430lice") == name_skeleton("Al\u0456ce") == name_skeleton("Alice")
    assert name_skeleton("alice") != name_skeleton("alicia")
    assert name_skeleton("B0B") == name_skeleton("bob") and name_skeleton("bi11") == name_skeleton("Bill")
    assert name_key("\u0430lice") != name_key("Alice")  # the exact key still tells them apart


@pytest.mark.parametrize("name", [
    "\u3164", "\u3164\u3164\u3164", "\u115f\u1160", "\uffa0\uffa0",  # Hangul fillers
    "a" + "\u0301" * 23, "e\u0301\u0302\u0303",  # more than two marks on one letter
    "\u0301\u0302", "\ufe0f\ufe0f",  # combining marks and selectors alone
])
def test_invisible_filler_and_mark_heavy_names_are_bad(make_app: Callable[..., Any], name: str) -> None:
    from xuezhan.errors import XuezhanError

    with pytest.raises(XuezhanError) as err:
        check_name(name)
    assert err.value.code == ErrorCode.BAD_NAME
    app = make_app()
    r = Http(app.state.runner).post("/api/register", json={"name": name, "password": PASSWORD})
    assert _code(r) == (400, "bad_name")


@pytest.mark.parametrize("name", ["é", "Ngọc", "Việt", "김민준", "小明", "Zoë"])
def test_names_with_a_few_marks_are_fine(name: str) -> None:
    assert check_name(name)


def test_existing_look_alike_accounts_keep_their_names(tmp_path: Path) -> None:
    """Accounts made before skeletons were kept get theirs when the server opens the database;
    both of an old look-alike pair still sign in, and no new look-alike is taken."""
    db = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    store = Store(db)
    hashed = PasswordHasher().hash(PASSWORD)
    for name in ("Alice", "\u0430lice"):  # as an older server let them in
        store.accounts.create_player(name, name_key(name), 100, password_hash=hashed)
    store.close()
    bank = StoreBank.open(db)
    try:
        for name in ("Alice", "\u0430lice"):
            account, _ = bank.login(name, PASSWORD)
            assert account.player == name
        from xuezhan.errors import XuezhanError

        with pytest.raises(XuezhanError) as err:
            bank.create_account("Al\u0456ce", password=PASSWORD)
        assert err.value.code == ErrorCode.NAME_TAKEN
        assert bank.store.accounts.fill_name_skeletons(name_skeleton, "uts39/other") >= 2  # data changed: all again
        assert bank.store.accounts.fill_name_skeletons(name_skeleton, "uts39/other") == 0  # nothing missing
    finally:
        bank.close()


# --- other sites ---------------------------------------------------------------------------------------


def test_other_sites_requests_are_refused(make_app: Callable[..., Any]) -> None:
    app = make_app()
    c = Http(app.state.runner)
    assert c.post("/api/login", json={"name": "ann"}).status_code == 200
    r = _post(c, "/api/quickstart", {"origin": "http://evil.example"}, json={})
    assert _code(r) == (403, "cross_origin") and r.json()["error"]["message"]
    assert len(app.state.lobby.tables) == 0  # nothing was made
    assert _code(_post(c, "/api/quickstart", {"sec-fetch-site": "cross-site"}, json={})) == (403, "cross_origin")
    assert _code(_post(c, "/api/quickstart", {"origin": "null"}, json={})) == (403, "cross_origin")
    assert _code(_post(c, "/api/quickstart", {"origin": "http://testserver:8080"}, json={})) == (403, "cross_origin")
    cookie = {"cookie": f"xz_session={c.token}", "origin": "http://evil.example"}
    assert _code(app.state.runner.put("/api/settings", json={"mute": True}, headers=cookie)) == (403, "cross_origin")
    assert _code(app.state.runner.delete("/api/queue", headers=cookie)) == (403, "cross_origin")
    assert _code(app.state.runner.post("/api/logout", headers=cookie)) == (403, "cross_origin")
    assert c.get("/api/me").status_code == 200  # the session lives on
    # the same site, and programs that send no Origin, pass
    assert _post(c, "/api/quickstart", {"origin": "http://testserver"}, json={}).status_code == 200
    assert _post(c, "/api/quickstart", {"sec-fetch-site": "same-origin"}, json={}).status_code == 200
    assert c.post("/api/quickstart", json={}).status_code == 200
    # reading is no state change
    assert app.state.runner.get("/api/tiers", headers={"origin": "http://evil.example"}).status_code == 200


def test_logout_is_no_form_post(make_app: Callable[..., Any]) -> None:
    app = make_app()
    c = Http(app.state.runner)
    assert c.post("/api/login", json={"name": "ivy"}).status_code == 200
    for kind in ("application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "text/plain"):
        r = _post(c, "/api/logout", {"content-type": kind}, content=b"a=b")
        assert r.status_code == 400, kind
    assert c.get("/api/me").status_code == 200
    assert c.post("/api/logout", json={}).status_code == 200
    assert _code(c.get("/api/me")) == (401, "not_signed_in")


@pytest.mark.parametrize(("origin", "host", "same"), [
    ("http://localhost:8000", "localhost:8000", True),
    ("https://example.com", "example.com", True),
    ("http://example.com:80", "example.com", True),
    ("https://example.com", "example.com:443", True),
    ("http://[::1]:8000", "[::1]:8000", True),
    ("http://evil.example", "localhost:8000", False),
    ("http://localhost:8001", "localhost:8000", False),
    ("https://example.com", "example.com:80", False),
    ("null", "example.com", False),
    ("file://", "example.com", False),
])
def test_same_origin(origin: str, host: str, same: bool) -> None:
    assert same_origin(origin, host) is same


# --- words ---------------------------------------------------------------------------------------------


def test_the_waits_and_the_refusals_have_sentences_in_three_languages() -> None:
    for key in ("server.error.rate_limited_wait", "server.error.cross_origin", "web.login.wait"):
        for lang in LANGS:
            text = i18n.t(key, lang, seconds=42)
            assert text and ("42" in text or "wait" not in key), (key, lang)
    assert {vocab.name("error", ErrorCode.CROSS_ORIGIN, lang) for lang in LANGS} == {
        "来自其他网站的请求", "來自其他網站的請求", "request from another site"}
