"""The web table over websockets (Starlette TestClient): whole hands, reconnects, 托管, bad input.

Each client reads its socket in a thread of its own into a queue, so the test decides
what to send from the messages it has seen, with a timeout instead of a hang.
"""

from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from xuezhan import i18n
from xuezhan.engine.views import SeatView, events_for, visible_events
from xuezhan.i18n import Lang
from xuezhan.server import ServerConfig, create_app
from xuezhan.server.outbound import marked_view
from xuezhan.server.table import Status, Table
from xuezhan.server.words import display_name
from xuezhan.words import event_words

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

WAIT = 30.0  # seconds: a generous bound, never a timing assertion


class Http:
    """Requests of one browser: the session cookie of its own on a shared test client (whose
    event loop runs the tables' tasks)."""

    def __init__(self, runner: TestClient, token: str = "") -> None:
        self.runner = runner
        self.token = token

    def _headers(self) -> dict[str, str]:
        return {"cookie": f"xz_session={self.token}"} if self.token else {}

    def get(self, url: str) -> Any:
        return self.runner.get(url, headers=self._headers())

    def post(self, url: str, json: Any = None, **kwargs: Any) -> Any:
        r = self.runner.post(url, json=json, headers=self._headers(), **kwargs)
        if "xz_session" in r.cookies:
            self.token = r.cookies["xz_session"]
        self.runner.cookies.clear()
        return r

    def websocket_connect(self, url: str, headers: dict[str, str] | None = None) -> Any:
        return self.runner.websocket_connect(url, headers={**self._headers(), **(headers or {})})


class Client:
    """One browser tab: an HTTP client with its own session cookie and, once seated, a socket."""

    def __init__(self, app: Any, nickname: str) -> None:
        self.http = Http(app.state.runner)
        app.state.clients.append(self)
        self.nickname = nickname
        r = self.http.post("/api/login", json={"name": nickname})
        assert r.status_code == 200, r.text
        self.inbox: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.seen: list[dict[str, Any]] = []
        self.ws: Any = None
        self._cm: Any = None
        self._reader: threading.Thread | None = None
        self.state: dict[str, Any] | None = None
        self.answered = -1

    # --- socket -----------------------------------------------------------------------------
    def connect(self, code: str, watch: bool = False) -> None:
        self._cm = self.http.websocket_connect(f"/ws/{code}" + ("?watch=1" if watch else ""))
        self.ws = self._cm.__enter__()
        self._reader = threading.Thread(target=self._read, args=(self.ws,), daemon=True)
        self._reader.start()

    def _read(self, ws: Any) -> None:
        try:
            while True:
                self.inbox.put(ws.receive_json())
        except (WebSocketDisconnect, Exception):
            self.inbox.put(None)

    def close(self) -> None:
        if self._cm is not None:
            cm, self._cm = self._cm, None
            cm.__exit__(None, None, None)
        if self._reader is not None:
            self._reader.join(WAIT)
            assert not self._reader.is_alive()
        self.inbox = queue.Queue()

    def send(self, msg: dict[str, Any]) -> None:
        self.ws.send_text(json.dumps(msg))

    # --- reading ------------------------------------------------------------------------------
    def next(self, timeout: float = WAIT) -> dict[str, Any] | None:
        msg = self.inbox.get(timeout=timeout)
        if msg is not None:
            self.seen.append(msg)
            if msg["type"] == "state":
                self.state = msg
        return msg

    def wait_for(self, pred: Callable[[dict[str, Any]], bool], timeout: float = WAIT) -> dict[str, Any]:
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            assert left > 0, f"{self.nickname}: nothing matched; last messages {self.seen[-3:]}"
            try:
                msg = self.next(left)
            except queue.Empty:
                raise AssertionError(f"{self.nickname}: nothing matched; last messages {self.seen[-3:]}") from None
            assert msg is not None, f"{self.nickname}: the socket closed"
            if pred(msg):
                return msg

    def drain(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        while True:
            try:
                msg = self.inbox.get_nowait()
            except queue.Empty:
                return out
            if msg is None:
                return out
            self.seen.append(msg)
            if msg["type"] == "state":
                self.state = msg
            out.append(msg)

    def choose(self) -> dict[str, Any] | None:
        """A simple player: win when it can, never claim otherwise, discard the drawn tile."""
        st = self.state
        if st is None or st["decision"] is None or st["decision"] == self.answered:
            return None
        legal = st["view"]["legal"]
        if not legal:
            return None
        types = {a["type"] for a in legal}
        if "hu" in types:
            pick = {"type": "hu"}
        elif "pass" in types:
            pick = {"type": "pass"}
        elif "dingque" in types:
            pick = {"type": "dingque", "suit": legal[0]["suit"]}
        elif "exchange" in types:
            pick = {"type": "exchange", "tiles": legal[0]["tiles"]}
        else:
            discards = [a["tile"] for a in legal if a["type"] == "discard"]
            drawn = st["view"]["drawn"]
            pick = {"type": "discard", "tile": drawn if drawn in discards else discards[-1]}
        self.answered = st["decision"]
        return pick


@pytest.fixture
def make_app(tmp_path: Path) -> Iterator[Callable[..., Any]]:
    apps: list[Any] = []

    def build(db: str | None = None, **overrides: Any) -> Any:
        config = ServerConfig.fast(**overrides)
        app = create_app(db or f"sqlite:///{tmp_path / 'xz.sqlite3'}", config=config)
        runner = TestClient(app)
        runner.__enter__()  # the lifespan: tables' tasks live on this client's event loop
        app.state.runner = runner
        app.state.clients = []
        apps.append(app)
        return app

    yield build
    for app in apps:
        for client in app.state.clients:
            client.close()  # open sockets first, or the test client waits for them
        app.state.runner.__exit__(None, None, None)


def table_of(app: Any, code: str) -> Table:
    table: Table = app.state.lobby.tables[code]
    return table


def status_of(table: Table) -> Status:
    """The table's status now (a call, so that type checkers do not carry an earlier check over)."""
    return table.status


def sat(seat: int, nickname: str) -> Callable[[dict[str, Any]], bool]:
    def pred(m: dict[str, Any]) -> bool:
        return bool(m["type"] == "room" and m["room"]["seats"][seat]["name"] == nickname)

    return pred


def play_until_hand_end(players: list[Client], timeout: float = 60.0) -> list[dict[str, Any]]:
    """Every player answers its own views until each has seen ``hand_end``."""
    ends: dict[int, dict[str, Any]] = {}
    deadline = time.monotonic() + timeout
    while len(ends) < len(players):
        assert time.monotonic() < deadline, "the hand did not end"
        idle = True
        for k, p in enumerate(players):
            for msg in p.drain():
                idle = False
                if msg["type"] == "hand_end":
                    ends[k] = msg
                assert msg["type"] != "error" or msg["code"] == "stale", msg
            if k not in ends:
                pick = p.choose()
                if pick is not None:
                    idle = False
                    assert p.state is not None
                    p.send({"type": "action", "action": pick, "version": p.state["version"]})
        if idle:
            time.sleep(0.002)
    return [ends[k] for k in range(len(players))]


# --- a whole hand between four people ------------------------------------------------------------


def test_four_clients_play_a_whole_hand(make_app: Callable[..., Any]) -> None:
    # timeouts no busy machine reaches: every action is the client's own, none the server's stand-in
    app = make_app(turn_timeout=60.0, claim_timeout=60.0, choice_timeout=60.0)
    names = ["ann", "bob", "cat", "dan"]
    players = [Client(app, n) for n in names]
    r = players[0].http.post("/api/rooms", json={"name": "four friends", "coefficient": 20, "fee": 5, "hands": 2,
                                                  "options": {"exchange_three": "clockwise"}})
    assert r.status_code == 200, r.text
    code = r.json()["code"]
    listed = players[1].http.get("/api/rooms").json()["rooms"]
    assert [room["code"] for room in listed] == [code]

    players[0].connect(code)
    hello = players[0].wait_for(lambda m: m["type"] == "hello")
    assert hello["seat"] == 0
    for seat, p in enumerate(players[1:], start=1):
        p.connect(code)
        assert p.wait_for(lambda m: m["type"] == "hello")["seat"] is None  # a visitor watches first
        p.send({"type": "sit", "seat": seat})
        p.wait_for(sat(seat, p.nickname))
    players[0].send({"type": "start"})

    ends = play_until_hand_end(players)
    end = ends[0]
    same = [{k: v for k, v in e.items() if k != "next_hand_ms"} for e in ends]  # a countdown read at sending
    assert all(e == same[0] for e in same)  # everyone sees the same settlement
    assert end["names"] == names
    assert sum(end["points"]) == 0
    assert end["fees"] == [5, 5, 5, 5]
    assert sum(end["coins"]) == -sum(end["fees"])  # coins are never created; the house keeps the fees
    for k, e in enumerate(end["ledger"]):  # the players' language: zh-CN unless they say otherwise
        said = i18n.t("explain.line", "zh-CN", payer=names[e["from"]], payee=names[e["to"]], points=e["points"],
                      count=e["points"], what="\0")
        assert e["text"].startswith(said.split("\0")[0]) and e["text"] != said.split("\0")[0], k
    for w in end["winners"]:
        assert names[w["seat"]] in w["text"] and w["fan"] >= 1
    assert all(isinstance(line, str) and line for line in end["explain"])

    table = table_of(app, code)
    # the balances shown are the store's, after the hand
    for seat, p in enumerate(players):
        me = p.http.get("/api/me").json()
        assert me["coins"] == 20_000 + end["coins"][seat] == end["balances"][seat]
        hist = p.http.get("/api/history").json()["hands"]
        assert [(h["room"], h["hand_no"], h["coins"]) for h in hist] == [(code, 1, end["coins"][seat])]
    assert table.status is Status.BETWEEN
    # the exchange happened: each player saw its own three tiles go and three come
    for p in players:
        kinds = [ev["type"] for m in p.seen if m["type"] == "state" for ev in m["events"]]
        assert "exchange_done" in kinds and "exchange" in kinds and "exchange_received" in kinds

    # everyone ready: the second (last) hand starts at once, and the match ends after it
    for p in players:
        p.send({"type": "ready"})
    last = play_until_hand_end(players)
    assert last[0]["hand_no"] == 2 and last[0]["final"]
    time.sleep(0.05)
    players[0].drain()
    done = next(m for m in players[0].seen if m["type"] == "match_end")
    assert {s["name"] for s in done["standings"]} == set(names)
    # each player's coins over the match: what the two hands moved, fees included
    assert {s["name"]: s["coins"] for s in done["standings"]} == {
        name: end["coins"][seat] + last[0]["coins"][seat] for seat, name in enumerate(names)}
    assert status_of(table) is Status.FINISHED
    for p in players:
        p.close()


def test_each_event_comes_with_its_words_in_the_connections_language(make_app: Callable[..., Any]) -> None:
    app = make_app(turn_timeout=60.0, claim_timeout=60.0, choice_timeout=60.0)
    ann = Client(app, "ann")
    assert ann.http.post("/api/lang", json={"lang": "en"}).status_code == 200
    code = ann.http.post("/api/quickstart", json={"hands": 2}).json()["code"]
    eye = Client(app, "eye")  # watches in the default language, zh-CN
    eye.connect(code, watch=True)
    ann.connect(code)
    play_until_hand_end([ann])
    eye.wait_for(lambda m: m["type"] == "hand_end")
    table = table_of(app, code)
    assert table.hand is not None
    game = table.hand.game
    cases: list[tuple[Client, int | None, Lang]] = [(ann, 0, "en"), (eye, None, "zh-CN")]
    for client, seat, lang in cases:
        names = [display_name(p, table.names, lang) if p is not None else "?" for p in table.players]
        sent = [ev for m in client.seen if m["type"] == "state" for ev in m["events"]]
        # the terminal's wording (xuezhan.words), seats by their players' names, "you" for one's own
        expected = [event_words(ev, seat, lang=lang, names=names) for ev in visible_events(game, seat)]
        assert [ev["text"] for ev in sent] == expected
        discards = [ev for ev in sent if ev["type"] == "discard"]
        assert discards and all(ev["text"] for ev in discards)
    texts = {ev["seat"]: ev["text"] for m in ann.seen if m["type"] == "state" for ev in m["events"]
             if ev["type"] == "discard"}
    assert texts[0].startswith("you discarded ") and texts[1].startswith("Bot 1 discarded ")
    watched = {ev["seat"]: ev["text"] for m in eye.seen if m["type"] == "state" for ev in m["events"]
               if ev["type"] == "discard"}
    assert watched[0].startswith("ann打出 ") and watched[1].startswith("机器人1打出 ")
    for p in (ann, eye):
        p.close()


# --- reconnecting --------------------------------------------------------------------------------


def test_reconnect_mid_hand_restores_the_exact_table(make_app: Callable[..., Any]) -> None:
    # bots (and seats in 托管) wait long here, so nothing moves while the player is away
    app = make_app(bot_delay=3600.0, bot_claim_delay=3600.0, turn_timeout=3600.0, claim_timeout=3600.0,
                   choice_timeout=3600.0)
    players = [Client(app, n) for n in ("eve", "fay", "gus", "hal")]
    code = players[0].http.post("/api/rooms", json={"hands": 1}).json()["code"]
    for seat, p in enumerate(players):
        p.connect(code)
        p.wait_for(lambda m: m["type"] == "hello")
        if seat:
            p.send({"type": "sit", "seat": seat})
    time.sleep(0.05)
    for p in players:
        p.drain()
    players[0].send({"type": "start"})
    table = table_of(app, code)

    # play until seat 2 is to discard, with some history behind it
    deadline = time.monotonic() + WAIT
    while True:
        assert time.monotonic() < deadline
        for p in players:
            p.drain()
        st = players[2].state
        if st is not None and st["view"]["phase"] == "turn" and st["view"]["turn"] == 2 and st["decision"] is not None \
                and len(st["view"]["seats"][2]["river"]) >= 3:
            break
        for p in players:
            pick = p.choose()
            if pick is not None and p.state is not None:
                p.send({"type": "action", "action": pick, "version": p.state["version"]})
        time.sleep(0.002)
    time.sleep(0.05)
    players[2].drain()
    before = players[2].state
    assert before is not None
    log_before = [ev for m in players[2].seen if m["type"] == "state" for ev in m["events"]]

    players[2].close()
    players[0].wait_for(lambda m: m["type"] == "room" and m["room"]["seats"][2]["connected"] is False)
    assert not table.trustee(2)  # the seat keeps its clock while the player is away

    players[2].connect(code)
    hello = players[2].wait_for(lambda m: m["type"] == "hello")
    assert hello["seat"] == 2
    after = players[2].wait_for(lambda m: m["type"] == "state")
    assert after["reset"] is True
    assert after["view"] == before["view"]  # the exact table
    assert after["events"] == log_before  # and the whole story of the hand
    assert after["trustee"] is False and not table.trustee(2)
    assert table.hand is not None
    assert after["view"] == marked_view(SeatView(table.hand.game, 2).to_json())
    assert [{k: v for k, v in ev.items() if k != "text"} for ev in after["events"]] == events_for(table.hand.game, 2)
    # and the returning player can act at once
    pick = players[2].choose()
    assert pick is not None and pick["type"] == "discard"
    players[2].send({"type": "action", "action": pick, "version": after["version"]})
    moved = players[2].wait_for(lambda m: m["type"] == "state" and m["version"] > after["version"])
    assert any(ev["type"] == "discard" and ev["seat"] == 2 for ev in moved["events"])
    for p in players:
        p.close()


def test_a_second_window_replaces_the_first(make_app: Callable[..., Any]) -> None:
    app = make_app(bot_delay=3600.0)
    p = Client(app, "ivy")
    code = p.http.post("/api/quickstart", json={}).json()["code"]
    p.connect(code)
    p.wait_for(lambda m: m["type"] == "state")
    second = Http(app.state.runner, p.http.token)
    with second.websocket_connect(f"/ws/{code}") as ws:
        assert ws.receive_json()["seat"] == 0
        gone = p.wait_for(lambda m: m["type"] == "error")
        assert gone["code"] == "replaced"
    p.close()


# --- 托管: time-outs hand the seat to the bot ---------------------------------------------


def test_timeouts_hand_over_to_the_bot(make_app: Callable[..., Any]) -> None:
    app = make_app(turn_timeout=0.05, claim_timeout=0.05, choice_timeout=0.05, bot_delay=0.0)
    p = Client(app, "jay")
    code = p.http.post("/api/quickstart", json={}).json()["code"]
    p.connect(code)
    # the player never answers: the first decision times out and the bot plays the seat
    seen_trustee = p.wait_for(lambda m: m["type"] == "state" and m["trustee"] is True)
    assert seen_trustee["view"]["seat"] == 0
    end = p.wait_for(lambda m: m["type"] == "hand_end")
    table = table_of(app, code)
    assert table.timeouts >= 1
    assert sum(end["points"]) == 0
    p.close()


def test_taking_the_seat_back_from_the_bot(make_app: Callable[..., Any]) -> None:
    app = make_app(turn_timeout=0.05, claim_timeout=0.05, choice_timeout=0.05, bot_delay=3600.0,
                   bot_claim_delay=3600.0)
    p = Client(app, "kim")
    code = p.http.post("/api/quickstart", json={}).json()["code"]
    p.connect(code)
    p.send({"type": "trustee", "on": True})  # the player asks for it
    p.wait_for(lambda m: m["type"] == "room" and m["room"]["seats"][0]["trustee"] is True)
    p.send({"type": "trustee", "on": False})
    back = p.wait_for(lambda m: m["type"] == "room" and m["room"]["seats"][0]["trustee"] is False)
    assert back["room"]["status"] == "playing"
    p.send({"type": "trustee", "on": True})
    p.wait_for(lambda m: m["type"] == "room" and m["room"]["seats"][0]["trustee"] is True)
    p.close()


def test_a_disconnected_player_is_played_by_the_bot_to_the_end(make_app: Callable[..., Any]) -> None:
    app = make_app(turn_timeout=0.05, claim_timeout=0.05, choice_timeout=0.05)  # two run out: 托管
    p = Client(app, "lee")
    code = p.http.post("/api/quickstart", json={}).json()["code"]
    p.connect(code)
    p.wait_for(lambda m: m["type"] == "state")
    p.close()
    table = table_of(app, code)
    deadline = time.monotonic() + WAIT
    while table.hands_finished < 1:
        assert time.monotonic() < deadline, "the bot did not finish the hand"
        time.sleep(0.01)
    assert table.status is Status.BETWEEN  # and no next hand starts while nobody is there
    hist = p.http.get("/api/history").json()["hands"]
    assert len(hist) == 1  # the hand was settled: the player's coins moved


# --- leaving: the escape rules -------------------------------------------------------------------------------


def test_leaving_an_active_hand_is_an_escape(make_app: Callable[..., Any]) -> None:
    app = make_app(bot_delay=3600.0, bot_claim_delay=3600.0, turn_timeout=3600.0, choice_timeout=3600.0)
    p = Client(app, "max")
    code = p.http.post("/api/quickstart", json={"fee": 0}).json()["code"]
    p.connect(code)
    p.wait_for(lambda m: m["type"] == "state")
    p.send({"type": "leave"})
    end = p.wait_for(lambda m: m["type"] == "hand_end")
    assert end["escaped"] == [0]
    base = 6  # qq
    assert [e["reason"] for e in end["ledger"]] == ["escape"] * 3
    assert all(e["from"] == 0 and e["points"] == 16 * base for e in end["ledger"])
    assert end["points"][0] == -48 * base
    assert end["coins"][0] == -48 * base * 10
    table = table_of(app, code)
    assert table.players[0] != "max"  # a bot took the seat for the next hand
    assert p.http.get("/api/me").json()["coins"] == 20_000 - 48 * base * 10
    p.close()


# --- bad messages change nothing ------------------------------------------------------------------------------


def test_malformed_and_out_of_turn_messages_get_errors_and_change_nothing(make_app: Callable[..., Any]) -> None:
    app = make_app(bot_delay=3600.0, bot_claim_delay=3600.0, turn_timeout=3600.0, claim_timeout=3600.0,
                   choice_timeout=3600.0, rate_burst=1000, rate_strikes=1000)
    p = Client(app, "ned")
    code = p.http.post("/api/quickstart", json={}).json()["code"]
    p.connect(code)
    st = p.wait_for(lambda m: m["type"] == "state")
    table = table_of(app, code)
    assert table.hand is not None
    game = table.hand.game
    version = table.version
    n_events = len(game.events)
    dingque = st["view"]["legal"]
    assert dingque and all(a["type"] == "dingque" for a in dingque)

    def act(action: dict[str, Any]) -> str:
        return json.dumps({"type": "action", "action": action, "version": version})

    bad: list[tuple[str, str]] = [
        ("{not json", "bad_json"),
        ("[1, 2, 3]", "bad_message"),
        ('"text"', "bad_message"),
        (json.dumps({"type": "fly"}), "unknown_type"),
        (json.dumps({"kind": "action"}), "unknown_type"),
        (json.dumps({"type": "ping", "extra": 1}), "bad_message"),
        (json.dumps({"type": "action"}), "bad_message"),
        (json.dumps({"type": "action", "action": "discard"}), "bad_message"),
        (json.dumps({"type": "action", "action": {"type": "dingque", "suit": "m"}}), "bad_message"),  # no version
        (act({"type": "discard", "tile": "0m"}), "bad_action"),
        (act({"type": "discard", "tile": "5z"}), "bad_action"),
        (act({"type": "teleport"}), "unknown_action"),
        (act({"type": "dingque", "suit": "m", "seat": 3}), "bad_action"),
        (act({"type": "escape"}), "action_not_available"),
        (act({"type": "swap", "tile": "1m", "want": "2m"}), "bad_action"),
        (act({"type": "pass"}), "action_not_available"),
        (act({"type": "discard", "tile": "5m"}), "action_not_available"),
        (act({"type": "hu"}), "cannot_hu"),
        (json.dumps({"type": "action", "action": {"type": "dingque", "suit": "m"}, "version": "x"}),
         "bad_message"),
        (json.dumps({"type": "sit", "seat": 7}), "bad_message"),
        (json.dumps({"type": "trustee", "on": "yes"}), "bad_message"),
        (json.dumps({"type": "start"}), "already_started"),
        (json.dumps({"type": "ping", "pad": "x" * 5000}), "message_too_large"),
    ]
    for text, code_expected in bad:
        p.ws.send_text(text)
        err = p.wait_for(lambda m: m["type"] == "error")
        assert err["code"] == code_expected, (text[:60], err)
    p.ws.send_bytes(b"\x00\x01")
    assert p.wait_for(lambda m: m["type"] == "error")["code"] == "bad_message"
    # a void suit the deal rules out (天缺 may force one) is refused with the engine's code
    offered = {a["suit"] for a in dingque}
    for suit in "mps":
        if suit not in offered:
            p.send({"type": "action", "action": {"type": "dingque", "suit": suit}, "version": table.version})
            assert p.wait_for(lambda m: m["type"] == "error")["code"] == "forced_dingque"
    # an answer to a table that has moved on is refused as stale
    table.version += 5
    table.pacer.since[0] = table.version
    p.send({"type": "action", "action": {"type": "dingque", "suit": dingque[0]["suit"]}, "version": 0})
    assert p.wait_for(lambda m: m["type"] == "error")["code"] == "stale"
    table.version -= 5
    table.pacer.since[0] = 0
    p.send({"type": "ping"})
    p.wait_for(lambda m: m["type"] == "pong")
    assert table.version == version and len(game.events) == n_events  # nothing changed
    assert game.seats[0].choice is None

    # and a good message still works afterwards
    p.send({"type": "action", "action": {"type": "dingque", "suit": dingque[0]["suit"]}, "version": table.version})
    p.wait_for(lambda m: m["type"] == "state" and any(e["type"] == "dingque_chosen" for e in m["events"]))
    # now the bots (slow here) are to choose: anything from this seat is out of turn
    version = table.version
    n_events = len(game.events)
    for action in [{"type": "dingque", "suit": "p"}, {"type": "discard", "tile": "5m"}, {"type": "hu"},
                   {"type": "pass"}, {"type": "peng"}, {"type": "gang", "tile": "1s"}]:
        p.send({"type": "action", "action": action, "version": table.version})
        err = p.wait_for(lambda m: m["type"] == "error")
        assert err["code"] == "not_your_turn", (action, err)
    assert table.version == version and len(game.events) == n_events
    p.close()


def test_spectators_cannot_act_and_flooding_is_limited(make_app: Callable[..., Any]) -> None:
    app = make_app(bot_delay=3600.0, bot_claim_delay=3600.0, turn_timeout=3600.0, choice_timeout=3600.0,
                   rate_per_second=1.0, rate_burst=5, rate_strikes=10)
    owner = Client(app, "oli")
    code = owner.http.post("/api/quickstart", json={}).json()["code"]
    owner.connect(code)
    owner.wait_for(lambda m: m["type"] == "state")
    watcher = Client(app, "pat")
    watcher.connect(code, watch=True)
    assert watcher.wait_for(lambda m: m["type"] == "hello")["seat"] is None
    st = watcher.wait_for(lambda m: m["type"] == "state")
    assert st["view"]["hand"] is None and st["view"]["legal"] == []
    assert all("hand" not in s for s in st["view"]["seats"])
    watcher.send({"type": "action", "action": {"type": "dingque", "suit": "m"}, "version": 0})
    assert watcher.wait_for(lambda m: m["type"] == "error")["code"] == "not_seated"
    for _ in range(30):
        watcher.send({"type": "ping"})
    codes = []
    while True:
        msg = watcher.next()
        if msg is None:
            break  # closed for flooding
        if msg["type"] == "error":
            codes.append(msg["code"])
    assert "rate_limited" in codes
    owner.close()
    watcher.close()


# --- the lobby over HTTP ------------------------------------------------------------------------------------


def test_lobby_requests_are_checked(make_app: Callable[..., Any]) -> None:
    app = make_app()
    c = Http(app.state.runner)
    r = c.get("/api/me")
    assert r.status_code == 401 and r.json()["error"]["code"] == "not_signed_in"
    assert c.post("/api/quickstart", json={}).status_code == 401
    for nick in ["", "x" * 30, "a:b", "<b>", 12]:
        r = c.post("/api/login", json={"name": nick})
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad_name", nick
    r = c.post("/api/login", json={"name": "bot smith"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "reserved_name"
    assert c.post("/api/login", content=b"name=x").json()["error"]["code"] == "bad_request"
    assert c.post("/api/login", json={"name": "quin"}).status_code == 200
    other = Http(app.state.runner)
    r = other.post("/api/login", json={"name": "quin"})
    assert r.status_code == 409 and r.json()["error"]["code"] == "name_taken"
    for body in [{"preset": "nope"}, {"hands": 0}, {"coefficient": -1}, {"fee": True}, {"options": {"fly": 1}},
                 {"options": {"base_score": 0}}, {"extra": 1}, {"fee": 10**9}]:
        r = c.post("/api/rooms", json=body)
        assert r.status_code == 400, (body, r.text)
    r = c.post("/api/rooms", json={"preset": "chengdu", "options": {"blood_river": True}, "public": False})
    code = r.json()["code"]
    assert len(code) == 6 and code.isdigit()  # a friends' room
    assert c.get("/api/rooms").json()["rooms"] == []  # a private room is not listed
    assert c.get(f"/api/rooms/{code}").json()["room"]["rules"] == "chengdu"
    assert c.get("/api/rooms/NOSUCHROOM").status_code == 404
    page = c.get("/")
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert "血战到底" in page.text
    svg = c.get("/tiles/5m.svg")
    assert svg.headers["content-type"].startswith("image/svg+xml") and svg.text.startswith("<svg")
    assert c.get("/tiles/back.svg").status_code == 200
    assert c.get("/tiles/0z.svg").status_code == 404
    assert c.get("/static/main.js").status_code == 200
    # a socket without a session, or to no room, is told why and closed
    with Http(app.state.runner).websocket_connect(f"/ws/{code}") as ws:
        assert ws.receive_json()["code"] == "not_signed_in"
    with c.websocket_connect("/ws/NOSUCHROOM") as ws:
        assert ws.receive_json()["code"] == "unknown_room"
    with pytest.raises(WebSocketDisconnect), c.websocket_connect(f"/ws/{code}",
                                                                 headers={"origin": "http://evil.example"}) as ws:
        ws.receive_json()


# --- a restart loses no settled coins and no finished hand ---------------------------------------------


def test_a_restart_keeps_settled_coins_and_finished_hands(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'restart.sqlite3'}"
    config = ServerConfig.fast(turn_timeout=0.01, claim_timeout=0.01, choice_timeout=0.01)
    app = create_app(db, config=config)
    with TestClient(app) as c:
        c.post("/api/login", json={"name": "rae"})
        code = c.post("/api/quickstart", json={}).json()["code"]
        cookies = dict(c.cookies)
        with c.websocket_connect(f"/ws/{code}") as ws:
            while True:
                msg = ws.receive_json()
                if msg["type"] == "hand_end":
                    break
        balance = c.get("/api/me").json()["coins"]
    assert balance == 20_000 + msg["coins"][0]

    again = create_app(db, config=config)
    with TestClient(again) as c2:
        c2.cookies = cookies  # the same browser comes back
        me = c2.get("/api/me").json()
        assert (me["name"], me["coins"], me["guest"]) == ("rae", balance, True)
        hist = c2.get("/api/history").json()["hands"]
        assert [(h["room"], h["hand_no"], h["coins"]) for h in hist] == [(code, 1, msg["coins"][0])]


def test_a_session_outlives_a_restart_in_its_own_database_only(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'sessions.sqlite3'}"
    config = ServerConfig.fast()
    with TestClient(create_app(db, config=config)) as c:
        assert c.post("/api/login", json={"name": "lin"}).status_code == 200
        cookies = dict(c.cookies)
    with TestClient(create_app(db, config=config)) as c2:  # sessions are kept in the database
        c2.cookies = cookies
        assert c2.get("/api/me").json()["name"] == "lin"
    other = f"sqlite:///{tmp_path / 'other.sqlite3'}"
    with TestClient(create_app(other, config=config)) as c3:  # another database knows no such session
        c3.cookies = cookies
        assert c3.get("/api/me").status_code == 401


def test_a_hand_whose_coins_cannot_be_recorded_stops_the_match(make_app: Callable[..., Any],
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app(turn_timeout=0.01, claim_timeout=0.01, choice_timeout=0.01)

    def broken(*args: Any) -> Any:
        raise OSError("the database went away")

    monkeypatch.setattr(app.state.bank, "settle_hand", broken)
    p = Client(app, "sam")
    code = p.http.post("/api/quickstart", json={}).json()["code"]
    p.connect(code)
    err = p.wait_for(lambda m: m["type"] == "error")
    assert err["code"] == "settlement_failed"
    end = p.wait_for(lambda m: m["type"] == "hand_end")
    assert end["coins"] is None and end["balances"] is None
    p.wait_for(lambda m: m["type"] == "match_end")
    assert status_of(table_of(app, code)) is Status.FINISHED
    assert p.http.get("/api/me").json()["coins"] == 20_000  # nothing moved
    p.close()


def test_every_client_message_gets_an_answer(make_app: Callable[..., Any]) -> None:
    app = make_app(bot_delay=3600.0, bot_claim_delay=3600.0, turn_timeout=3600.0, claim_timeout=3600.0,
                   choice_timeout=3600.0)
    p = Client(app, "una")
    code = p.http.post("/api/rooms", json={"name": "answers"}).json()["code"]
    p.connect(code)
    p.wait_for(lambda m: m["type"] == "room")

    def answer() -> dict[str, Any]:
        return p.wait_for(lambda m: m["type"] in ("ok", "error", "pong"))

    p.send({"type": "ping"})
    assert answer()["type"] == "pong"
    p.send({"type": "sit"})  # the owner sits already
    assert (a := answer())["type"] == "error" and a["code"] == "already_seated" and a["for"] == "sit"
    p.send({"type": "ready"})  # no match yet
    assert (a := answer())["code"] == "not_between_hands" and a["for"] == "ready"
    p.send({"type": "action", "action": {"type": "pass"}, "version": 0})
    assert (a := answer())["code"] == "no_hand" and a["for"] == "action"
    p.send({"type": "trustee", "on": False})
    assert answer() == {"type": "ok", "for": "trustee"}
    p.send({"type": "start"})
    assert answer() == {"type": "ok", "for": "start"}
    st = p.wait_for(lambda m: m["type"] == "state")
    p.send({"type": "start"})
    assert (a := answer())["code"] == "already_started" and a["for"] == "start"
    pick = st["view"]["legal"][0]
    p.send({"type": "action", "action": {k: v for k, v in pick.items() if k != "seat"}, "version": st["version"]})
    assert answer() == {"type": "ok", "for": "action"}
    p.send({"type": "leave"})  # an escape: the seat is left, with an answer
    assert answer() == {"type": "ok", "for": "leave"}
    p.send({"type": "leave"})
    assert (a := answer())["code"] == "not_seated" and a["for"] == "leave"
    p.close()


# --- 听牌提示 ------------------------------------------------------------------------------------------


WAITS_SEED = 1
"""A wall on which the bot playing seat 0 gets ready during the hand."""


def parse_hand(text: str) -> list[str]:
    """``"123m55p"`` → ``["1m", "2m", "3m", "5p", "5p"]``."""
    out: list[str] = []
    digits = ""
    for ch in text:
        if ch.isdigit():
            digits += ch
        else:
            out += [d + ch for d in digits]
            digits = ""
    return out


def test_a_seats_state_carries_its_waits_and_a_spectators_none(make_app: Callable[..., Any]) -> None:
    app = make_app(turn_timeout=0.05, claim_timeout=0.05, choice_timeout=0.05, bot_delay=0.0, seed=WAITS_SEED)
    p = Client(app, "wen")
    code = p.http.post("/api/quickstart", json={}).json()["code"]
    p.connect(code)
    watcher = Client(app, "wu")
    watcher.connect(code, watch=True)
    p.wait_for(lambda m: m["type"] == "hand_end")  # the bot plays the seat once the first decision times out
    watcher.wait_for(lambda m: m["type"] == "hand_end")
    mine = [m["view"] for m in p.seen if m["type"] == "state"]
    ready = [v for v in mine if v["waits"]]
    choosing = [v for v in mine if v["discard_waits"]]
    assert ready and choosing
    for v in mine:
        own = v["hand"] or ""
        for w in v["waits"] + [w for ws in v["discard_waits"].values() for w in ws]:
            assert 0 <= w["left"] <= 4 - sum(1 for t in parse_hand(own) if t == w["tile"]) and w["fan"] >= 1
        if v["discard_waits"]:
            discards = {a["tile"] for a in v["legal"] if a["type"] == "discard"}
            assert set(v["discard_waits"]) <= discards and not v["waits"]
    watched = [m["view"] for m in watcher.seen if m["type"] == "state"]
    assert watched and all(v["waits"] == [] and v["discard_waits"] == {} for v in watched)
    p.close()
    watcher.close()


def test_a_table_cancelled_as_a_message_comes_in_still_stops(make_app: Callable[..., Any]) -> None:
    """A server that stops cancels its tables' tasks: one whose inbox gets a message in the same turn of
    the loop as its cancellation stops too (the cancellation is not lost to the message), so a server, or
    a node being drained, never hangs on its way down."""
    app = make_app(turn_timeout=30, claim_timeout=30, choice_timeout=30)
    p = Client(app, "hana")
    code = p.http.post("/api/quickstart", json={"hands": 1}).json()["code"]
    p.connect(code)
    p.wait_for(lambda m: m["type"] == "state" and m["decision"] is not None)  # the table waits on a clock
    table = table_of(app, code)
    portal = app.state.runner.portal
    end = time.monotonic() + 5.0
    while not portal.call(lambda: table.receiving):
        assert time.monotonic() < end, "the table never waited on its inbox"  # (its bots' moves done)
        time.sleep(0.01)

    def message_and_cancel() -> None:  # on the event loop, in one turn of it, while the table waits on its inbox
        table.join(next(iter(table.conns)))
        assert table.task is not None
        table.task.cancel()

    portal.call(message_and_cancel)
    end = time.monotonic() + 5.0
    while not portal.call(lambda: table.task is not None and table.task.done()):
        assert time.monotonic() < end, "the cancelled table's task is still running"
        time.sleep(0.02)
    assert table.status is Status.CLOSED
    p.close()
