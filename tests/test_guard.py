"""Slow and greedy clients (docs/security.md): the header timeout, the cap on connections per
address and the open-file limit, against a real ``xuezhan serve`` and a server in a thread.

Loopback only. A second loopback address (127.0.0.2, which Linux answers on) plays the
normal client beside the connections that hold 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import math
import os
import resource
import select
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from killed import Served, until
from websockets.sync.client import ClientConnection, connect

from xuezhan.errors import XuezhanError
from xuezhan.server import ServerConfig, create_app
from xuezhan.server.guard import ConnectionGuard, guarded_config
from xuezhan.store.pgtemp import free_port

SRC = Path(__file__).resolve().parents[1] / "src"
HOLDER = "127.0.0.1"
"""The address that opens connections and never finishes them."""
OTHER = "127.0.0.2"
"""A normal client's address."""
PARTIAL = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n"
"""A request whose headers never end."""
WAIT = 30.0  # seconds: a generous bound on waits, never a timing assertion


@pytest.fixture(autouse=True)
def enough_files() -> Iterator[None]:
    """This process opens more than a thousand sockets of its own."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 4096 if hard == resource.RLIM_INFINITY else min(4096, hard)
    assert want >= 2500, f"the test needs 2,500 open files; the hard limit is {hard}"
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, want), hard))
    yield
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


# --- the client side -----------------------------------------------------------------------------

def request(port: int, method: str, path: str, body: Any = None, cookie: str = "",
            source: str = OTHER) -> tuple[int, bytes, str]:
    """One HTTP request from ``source``: status, body, the session cookie it set."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=WAIT, source_address=(source, 0))
    try:
        headers = {"Content-Type": "application/json", "Connection": "close"}
        if cookie:
            headers["Cookie"] = cookie
        conn.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
        response = conn.getresponse()
        set_cookie = response.getheader("set-cookie") or ""
        return response.status, response.read(), set_cookie.split(";")[0]
    finally:
        conn.close()


def table_socket(port: int, code: str, cookie: str, source: str = OTHER) -> ClientConnection:
    """The websocket of table ``code``, opened from ``source``."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=WAIT, source_address=(source, 0))
    return connect(f"ws://127.0.0.1:{port}/ws/{code}", sock=sock, additional_headers={"Cookie": cookie},
                   open_timeout=WAIT, close_timeout=1)


def play_a_table(port: int, name: str, source: str = OTHER) -> dict[str, Any]:
    """What a normal client does: load the page, sign in (a guest), start a table and open its
    websocket; the first message the table sends."""
    status, page, _ = request(port, "GET", "/", source=source)
    assert status == 200 and b"<html" in page.lower()
    status, body, cookie = request(port, "POST", "/api/login", {"name": name}, source=source)
    assert status == 200 and cookie, body
    status, body, _ = request(port, "POST", "/api/quickstart", {"accept_risk": True}, cookie, source=source)
    assert status == 200, body
    with table_socket(port, json.loads(body)["code"], cookie, source) as ws:
        first: dict[str, Any] = json.loads(ws.recv(WAIT))
    return first


def hold(port: int, count: int, data: bytes = PARTIAL) -> list[socket.socket]:
    """``count`` connections from 127.0.0.1 that each send ``data`` and then nothing."""
    held = []
    for _ in range(count):
        s = socket.create_connection(("127.0.0.1", port), timeout=WAIT, source_address=(HOLDER, 0))
        with suppress(OSError):  # already refused
            s.sendall(data)
        held.append(s)
    return held


class Ends:
    """When each of some sockets was closed by the server (seen with poll: there may be more
    than ``select`` can watch)."""

    def __init__(self, socks: list[socket.socket]) -> None:
        self.socks = {s.fileno(): s for s in socks}
        self.closed: dict[int, float] = {}
        self.poller = select.poll()
        for fd in self.socks:
            self.poller.register(fd, select.POLLIN | select.POLLERR | select.POLLHUP)

    def look(self, timeout: float = 0.0) -> int:
        """Note the sockets closed by now (waiting up to ``timeout`` for one); how many are open."""
        for fd, _ in self.poller.poll(timeout * 1000):
            try:
                data = self.socks[fd].recv(1)
            except (ConnectionResetError, BrokenPipeError):
                data = b""
            assert data == b"", f"the server answered a request it never got in full: {data!r}"
            self.closed[fd] = time.monotonic()
            self.poller.unregister(fd)
        return len(self.socks) - len(self.closed)

    def wait_all(self, deadline: float) -> None:
        while self.look(0.1) and time.monotonic() < deadline:
            pass
        assert self.look() == 0, f"{self.look()} connections still open"

    def close(self) -> None:
        for s in self.socks.values():
            s.close()


# --- a real ``xuezhan serve`` ----------------------------------------------------------------------

@contextmanager
def xuezhan_serve(workdir: Path, settings: str, nofile: tuple[int, int]) -> Iterator[tuple[int, int, Path]]:
    """``xuezhan serve`` with the ``[server]`` ``settings``, started under the open-file limits
    ``nofile`` (soft, hard): its port, its process id and its log."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, nofile)

    served = Served(f"sqlite:///{workdir / 'web.sqlite3'}", free_port(), workdir, f"[server]\n{settings}",
                    preexec_fn=limit)
    try:
        served.start()
        yield served.port, served.pid, served.log
    finally:
        served.stop()


def open_file_limits(pid: int) -> tuple[int, int]:
    for line in Path(f"/proc/{pid}/limits").read_text(encoding="ascii").splitlines():
        if line.startswith("Max open files"):
            soft, hard = line.split()[3:5]
            return int(soft), int(hard)
    raise AssertionError("no open-file limit in /proc")


def test_1100_stuck_connections_from_one_address_leave_the_server_to_everyone_else(tmp_path: Path) -> None:
    # soft = hard = 1,024: raising the limit cannot help here; the cap and the timeout must
    timeout = 5.0
    with xuezhan_serve(tmp_path, f"header_timeout = {timeout}\n", (1024, 1024)) as (port, pid, _):
        assert open_file_limits(pid) == (1024, 1024)
        started = time.monotonic()
        ends = Ends(hold(port, 1100))
        time.sleep(0.5)  # the server takes each in turn
        assert ends.look() == 64  # max_connections_per_address: the rest were closed at once

        first = play_a_table(port, "kim")  # from another address, while they are held
        assert isinstance(first.get("type"), str)
        # the 65th connection from the holding address is refused; others are served
        asked = time.monotonic()
        extra = Ends(hold(port, 1, b"GET /api/tiers HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
        extra.wait_all(asked + WAIT)
        assert max(extra.closed.values()) - asked < timeout * 0.9
        extra.close()
        assert ends.look() == 64, "the normal client's play outlasted the header timeout: a slow machine?"
        assert request(port, "GET", "/api/tiers")[0] == 200

        # the held connections never finish their headers: closed after header_timeout
        ends.wait_all(started + timeout + WAIT)
        held_for = sorted(t - started for t in ends.closed.values())
        assert held_for[-64] >= timeout * 0.9  # the 64 held ones lasted the timeout
        assert held_for[-65] < timeout * 0.9  # the others did not
        ends.close()
        # and the address is welcome again
        assert request(port, "GET", "/api/tiers", source=HOLDER)[0] == 200
        play_a_table(port, "lee", source=HOLDER)


def test_the_open_file_limit_is_raised_to_the_hard_limit_at_start(tmp_path: Path) -> None:
    with xuezhan_serve(tmp_path, "", (1024, 4096)) as (port, pid, log):
        assert open_file_limits(pid) == (4096, 4096)
        assert "open files: up to 4096 (hard limit 4096)" in log.read_text(encoding="utf-8")
        assert request(port, "GET", "/")[0] == 200


def test_raise_open_file_limit_in_a_process_of_its_own() -> None:
    code = ("import resource; from xuezhan.server.guard import raise_open_file_limit; "
            "print(raise_open_file_limit(), resource.getrlimit(resource.RLIMIT_NOFILE))")

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (512, 2048))

    env = {**os.environ, "PYTHONPATH": str(SRC)}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True,
                          preexec_fn=limit)
    assert done.stdout.split() == ["(2048,", "2048)", "(2048,", "2048)"]



def test_the_collector_is_tuned_in_a_process_of_its_own() -> None:
    # what lived before is frozen (never walked again), the young generation is collected far less often
    code = ("import gc, json; from xuezhan.server.guard import tune_collector, COLLECTOR_THRESHOLDS; "
            "kept = [[i] for i in range(1000)]; before = tune_collector(); "
            "print(json.dumps([before, gc.get_threshold(), list(COLLECTOR_THRESHOLDS), gc.get_freeze_count(), "
            "gc.is_tracked(kept[0])]))")
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    before, after, wanted, frozen, tracked = json.loads(done.stdout)
    assert before != after == wanted and after[0] >= 10_000
    assert frozen >= 1000 and tracked  # the lists made before are among the frozen


# --- a server in a thread, its guard in reach ------------------------------------------------------

@contextmanager
def threaded(tmp_path: Path, header_timeout: float, cap: int) -> Iterator[tuple[int, ConnectionGuard]]:
    """The web table behind a guard (as ``xuezhan serve`` runs it) in a thread: port, guard."""
    # a calm table: it sends little while a test holds its websocket without reading it
    config = ServerConfig.fast(turn_timeout=300.0, claim_timeout=300.0, choice_timeout=300.0, bot_delay=1.0,
                               next_hand_delay=600.0, header_timeout=header_timeout,
                               max_connections_per_address=cap)
    app = create_app(f"sqlite:///{tmp_path / 'web.sqlite3'}", config=config)
    guard = ConnectionGuard.of(config)
    port = free_port()
    server = uvicorn.Server(guarded_config(app, config, guard, host="127.0.0.1", port=port, log_level="warning",
                                           ws_per_message_deflate=False))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + WAIT
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    try:
        yield port, guard
    finally:
        server.should_exit = True
        thread.join(WAIT)


def test_an_address_holds_at_most_its_cap_websockets_included(tmp_path: Path) -> None:
    with threaded(tmp_path, header_timeout=60.0, cap=3) as (port, guard):
        _, _, cookie = request(port, "POST", "/api/login", {"name": "kim"}, source=HOLDER)
        _, body, _ = request(port, "POST", "/api/quickstart", {"accept_risk": True}, cookie, source=HOLDER)
        until(lambda: guard.held(HOLDER) == 0, "closed requests keep their places", WAIT)
        with table_socket(port, json.loads(body)["code"], cookie, source=HOLDER):
            two = hold(port, 2)
            until(lambda: guard.held(HOLDER) == 3, "a websocket and two requests hold three places", WAIT)
            fourth = Ends(hold(port, 1, b"GET /api/tiers HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
            fourth.wait_all(time.monotonic() + WAIT)  # refused at once, long before the header timeout
            assert guard.refused == 1
            assert request(port, "GET", "/")[0] == 200  # another address is served meanwhile
        # the websocket is closed: its place is given back
        until(lambda: guard.held(HOLDER) == 2, "a closed websocket keeps its place", WAIT)
        assert request(port, "GET", "/api/tiers", source=HOLDER)[0] == 200
        for s in two:
            s.close()
        until(lambda: guard.held(HOLDER) == 0, "closed connections keep their places", WAIT)
        fourth.close()


def test_request_headers_must_arrive_within_the_header_timeout(tmp_path: Path) -> None:
    timeout = 0.8
    with threaded(tmp_path, header_timeout=timeout, cap=64) as (port, guard):
        _, _, cookie = request(port, "POST", "/api/login", {"name": "kim"})
        _, body, _ = request(port, "POST", "/api/quickstart", {"accept_risk": True}, cookie)
        with table_socket(port, json.loads(body)["code"], cookie) as ws:
            opened = time.monotonic()
            checked_with_a_websocket_open(port, guard, timeout)
            # an open websocket is not a request in progress: it outlives the timeout
            assert time.monotonic() - opened > timeout and ws.ping().wait(WAIT)
        assert guard.timed_out == 3


def checked_with_a_websocket_open(port: int, guard: ConnectionGuard, timeout: float) -> None:
    """A silent connection, a trickling one and a kept-alive one whose second request never ends
    are all closed after the timeout; headers that come in pieces, in time, are served."""
    started = time.monotonic()
    silent = hold(port, 1, b"")
    trickle = hold(port, 1, b"G")
    kept = hold(port, 1, b"GET /api/tiers HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    response = b""
    while not response.rstrip().endswith(b"}"):
        more = kept[0].recv(65536)
        assert more, f"the connection closed after {response!r}"
        response += more
    assert response.startswith(b"HTTP/1.1 200")
    kept[0].sendall(PARTIAL)  # a second request on the kept-alive connection, never finished
    ends = Ends(silent + trickle + kept)
    for byte in b"ET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX: " + b"y" * 100:  # slower than the timeout
        if ends.look(0.05) == 0:
            break
        try:
            trickle[0].send(bytes([byte]))
        except OSError:
            break
    ends.wait_all(started + WAIT)
    lasted = [t - started for t in ends.closed.values()]
    assert min(lasted) >= timeout * 0.9 and guard.timed_out == 3

    # a request whose headers come in pieces, in time, is served
    with socket.create_connection(("127.0.0.1", port), timeout=WAIT, source_address=(OTHER, 0)) as slow:
        slow.sendall(b"GET /api/tiers HTTP/1.1\r\n")
        time.sleep(timeout / 2)
        slow.sendall(b"Host: 127.0.0.1\r\nConnection: close\r\n\r\n")
        assert slow.recv(100).startswith(b"HTTP/1.1 200")


def test_request_headers_are_bounded_in_size(tmp_path: Path) -> None:
    with threaded(tmp_path, header_timeout=60.0, cap=64) as (port, guard):
        # a long header, within the bound, is served
        status, _, _ = request(port, "GET", "/api/tiers")
        assert status == 200
        with socket.create_connection(("127.0.0.1", port), timeout=WAIT, source_address=(OTHER, 0)) as fair:
            fair.sendall(b"GET /api/tiers HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Long: " + b"y" * 16_000
                         + b"\r\nConnection: close\r\n\r\n")
            assert fair.recv(100).startswith(b"HTTP/1.1 200")
        # one that never ends is cut off at MAX_HEADER_BYTES, long before the timeout
        started = time.monotonic()
        endless = Ends(hold(port, 1, b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Endless: "))
        sock = next(iter(endless.socks.values()))
        with suppress(OSError):
            for _ in range(1000):  # up to 4 MiB
                sock.sendall(b"y" * 4096)
        endless.wait_all(started + WAIT)
        assert guard.too_large == 1 and guard.timed_out == 0
        endless.close()


# --- the settings ---------------------------------------------------------------------------------

def test_the_settings_and_their_defaults() -> None:
    assert ServerConfig().header_timeout == 10.0
    assert ServerConfig().max_connections_per_address == 64
    config = ServerConfig.from_mapping({"header_timeout": 2, "max_connections_per_address": 1})
    assert config.header_timeout == 2.0 and isinstance(config.header_timeout, float)
    assert config.max_connections_per_address == 1


@pytest.mark.parametrize("setting", [
    {"header_timeout": 0}, {"header_timeout": -1.0}, {"header_timeout": "10"}, {"header_timeout": True},
    {"header_timeout": math.inf}, {"header_timeout": math.nan},
    {"max_connections_per_address": 0}, {"max_connections_per_address": -1},
    {"max_connections_per_address": 1.5}, {"max_connections_per_address": True},
    {"max_connections_per_address": "64"},
])
def test_bad_settings_are_bad_config(setting: dict[str, Any]) -> None:
    with pytest.raises(XuezhanError) as exc:
        ServerConfig.from_mapping(setting)
    assert exc.value.code == "bad_config"


def test_bad_settings_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "server.toml"
    path.write_text("[server]\nheader_timeout = inf\n", encoding="utf-8")
    with pytest.raises(XuezhanError) as exc:
        ServerConfig.from_file(path)
    assert exc.value.code == "bad_config"


def test_the_guard_counts_each_connection_once() -> None:
    guard = ConnectionGuard(1.0, 2)
    one, two, three = (asyncio.Transport() for _ in range(3))
    assert guard.admit("10.0.0.1", one) and guard.admit("10.0.0.1", two)
    assert not guard.admit("10.0.0.1", three) and guard.refused == 1
    assert guard.admit("10.0.0.2", three)  # another address has its own count
    guard.release("10.0.0.1", one)
    guard.release("10.0.0.1", one)  # twice: counted once
    assert guard.held("10.0.0.1") == 1
    assert guard.admit("10.0.0.1", one)
    for t in (one, two):
        guard.release("10.0.0.1", t)
    assert guard.held("10.0.0.1") == 0 and guard.held("10.0.0.2") == 1

