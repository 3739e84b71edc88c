"""Bad text never breaks anything: lone surrogates, numbers past Python's 4,300 digits, bytes that
are not UTF-8, over a real websocket and HTTP (uvicorn on a loopback port), in the readers of JSON,
and on the command line (``--json`` output is always one UTF-8 JSON object)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from test_browser import served as web_table
from websockets.sync.client import ClientConnection, connect
from websockets.typing import Origin

from xuezhan.jsontext import escape_surrogates, json_line
from xuezhan.records import loads_text
from xuezhan.server import ServerConfig
from xuezhan.server.conn import dumps
from xuezhan.server.protocol import ProtocolError, parse_client_message

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

HUGE = "9" * 5000
SRC = Path(__file__).resolve().parent.parent / "src"


# --- the readers ----------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ['{"\\ud800": 1}', '{"a": "x\\udfff"}', '["\\udc80"]', '{"a": ' + HUGE + "}"])
def test_the_json_reader_refuses_what_cannot_be_written_back(text: str) -> None:
    with pytest.raises(json.JSONDecodeError):
        loads_text(text)


def test_the_json_reader_reads_pairs_and_escaped_backslashes() -> None:
    assert loads_text('{"a": "\\ud83d\\ude00", "b": "\\\\ud800"}') == {"a": "\U0001f600", "b": "\\ud800"}
    assert loads_text('{"n": ' + "9" * 4300 + "}")["n"] == int("9" * 4300)


def test_written_json_escapes_lone_surrogates_and_reads_back_the_same() -> None:
    data = {"\ud800": "a\udcff", "ok": "中"}
    for text in (json_line(data), dumps(data)):
        text.encode("utf-8")  # no UnicodeEncodeError
        assert json.loads(text) == data
    assert json_line({"ok": "中"}) == '{"ok": "中"}' and escape_surrogates("中") == "中"
    assert dumps({"big": 2 ** 70, "s": "\ud800"}).encode("utf-8")


@pytest.mark.parametrize("text", ['{"type": "ping", "\\ud800": 1}', '{"type": "\\ud800"}',
                                  '{"type": "sit", "seat": ' + HUGE + "}"])
def test_a_client_message_of_bad_text_is_bad_json(text: str) -> None:
    with pytest.raises(ProtocolError) as err:
        parse_client_message(text, 1 << 20)
    assert err.value.code == "bad_json"


# --- a real websocket and HTTP --------------------------------------------------------------------


@contextmanager
def served(tmp: Path) -> Iterator[str]:
    """The web table served by uvicorn in a thread (:func:`test_browser.served`): its address ``host:port``."""
    config = ServerConfig.fast(bot_delay=3600.0, bot_claim_delay=3600.0, turn_timeout=3600.0, claim_timeout=3600.0,
                               choice_timeout=3600.0, rate_burst=1000, rate_strikes=1000,
                               max_message_bytes=1 << 16)
    with web_table(config, tmp / "web.sqlite3") as (url, _):
        yield url.removeprefix("http://")


def _post(host: str, path: str, body: bytes, cookie: str = "") -> tuple[int, dict[str, Any], str]:
    """Status, JSON answer and the session cookie set (if any) of a POST."""
    headers = {"content-type": "application/json", "origin": f"http://{host}"}
    if cookie:
        headers["cookie"] = f"xz_session={cookie}"
    request = urllib.request.Request(f"http://{host}{path}", data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as r:
            status, raw, set_cookie = r.status, r.read(), r.headers.get("set-cookie", "")
    except urllib.error.HTTPError as exc:
        status, raw, set_cookie = exc.code, exc.read(), ""
    token = set_cookie.split("xz_session=", 1)[1].split(";", 1)[0] if "xz_session=" in set_cookie else ""
    return status, json.loads(raw.decode("utf-8")), token


def _next(ws: ClientConnection, kind: str) -> dict[str, Any]:
    while True:
        msg: dict[str, Any] = json.loads(ws.recv(timeout=30))
        if msg["type"] == kind:
            return msg


def test_a_socket_that_sent_bad_text_gets_an_error_and_plays_on(tmp_path: Path) -> None:
    with served(tmp_path) as host:
        status, _, token = _post(host, "/api/login", json.dumps({"name": "una"}).encode())
        assert status == 200 and token
        status, room, _ = _post(host, "/api/quickstart", b"{}", token)
        assert status == 200, room
        with connect(f"ws://{host}/ws/{room['code']}", origin=Origin(f"http://{host}"),
                     additional_headers={"cookie": f"xz_session={token}"}) as ws:
            state = _next(ws, "state")
            for text in ('{"type": "ping", "\\ud800": 1}', '{"type": "\\udcff"}',
                         '{"type": "sit", "seat": ' + HUGE + "}", '{"type": "ping", "x": "\\ud800"}'):
                ws.send(text)
                assert _next(ws, "error")["code"] == "bad_json"
                ws.send('{"type": "ping"}')
                _next(ws, "pong")  # the connection still works
            suit = state["view"]["legal"][0]["suit"]
            ws.send(json.dumps({"type": "action", "action": {"type": "dingque", "suit": suit},
                                "version": state["version"]}))
            played = _next(ws, "state")
            assert any(e["type"] == "dingque_chosen" for e in played["events"])


@pytest.mark.parametrize("body", [b'{"name": "\\ud800"}', b'{"name": ' + HUGE.encode() + b"}", b'{"name": "\xff"}'])
def test_an_http_body_of_bad_text_is_bad_json(tmp_path: Path, body: bytes) -> None:
    with served(tmp_path) as host:
        status, answer, _ = _post(host, "/api/login", body)
        assert (status, answer["error"]["code"]) == (400, "bad_json"), answer


# --- the command line ---------------------------------------------------------------------------------


def _cli(*args: str | bytes, cwd: Path) -> tuple[int, dict[str, Any], bytes]:
    """Exit code, the ``--json`` error and stderr of ``xuezhan ARGS --json`` in a UTF-8 locale."""
    env = {**os.environ, "PYTHONPATH": str(SRC), "LC_ALL": "C.UTF-8", "LANG": "C.UTF-8"}
    env.pop("PYTHONIOENCODING", None)
    done = subprocess.run([sys.executable, "-m", "xuezhan", *args, "--json"], cwd=cwd, env=env,
                          capture_output=True, timeout=120)
    out = done.stdout.decode("utf-8")  # strict: the output is UTF-8
    assert b"Traceback" not in done.stderr, done.stderr.decode("utf-8", "replace")
    lines = out.splitlines()
    assert len(lines) == 1, out
    return done.returncode, json.loads(lines[0]), done.stderr


@pytest.mark.parametrize(("content", "code"), [
    ('{"dealer": ' + HUGE + "}", "bad_json"),
    ('{"\\ud800": 1}', "bad_json"),
    ('{"rules": "\\ud800"}', "bad_json"),
    ('{"dealer": 0}\n{"\\udcff": 1}\n', "bad_json"),
    (b'{"rules": "\xff"}', "bad_json"),
])
def test_replay_of_a_record_of_bad_text(tmp_path: Path, content: str | bytes, code: str) -> None:
    path = tmp_path / "rec.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    rc, out, _ = _cli("replay", str(path), cwd=tmp_path)
    assert (rc, out["error"]["code"]) == (2, code), out


@pytest.mark.parametrize(("content", "code"), [
    ("base_score = " + HUGE + "\n", "rules_file_syntax"),
    ("base_score = 0x" + "f" * 4000 + "\n", "rules_file_syntax"),
    ('"\\ud800" = 1\n', "rules_file_syntax"),
    (b"preset = \"\xff\"\n", "rules_file_syntax"),
])
def test_a_rules_file_of_bad_text(tmp_path: Path, content: str | bytes, code: str) -> None:
    path = tmp_path / "house.toml"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    rc, out, _ = _cli("waits", "123m456m789m11p5p", "--rules", str(path), cwd=tmp_path)
    assert (rc, out["error"]["code"]) == (2, code), out


def test_file_names_and_arguments_that_are_not_utf8(tmp_path: Path) -> None:
    name = b"bad\xffname.json"
    (tmp_path / os.fsdecode(name)).write_bytes(b'{"dealer": 0}')
    rc, out, err = _cli("replay", name, cwd=tmp_path)
    assert (rc, out["error"]["code"]) == (2, "bad_record")
    rc, out, err = _cli("replay", b"missing\xfe.json", cwd=tmp_path)
    assert (rc, out["error"]["code"]) == (2, "unreadable")
    assert "\\udcfe" in out["error"]["message"] or "\udcfe" in out["error"]["message"]
    err.decode("utf-8")  # stderr too
    rc, out, _ = _cli("waits", b"123m\xff", cwd=tmp_path)
    assert rc == 2 and out["error"]["code"] in ("unknown_tile", "bad_tiles", "bad_char"), out
    rc, out, _ = _cli("waits", "123m456m789m11p5p", "--rules", b"\xff\xfe.toml", cwd=tmp_path)
    assert (rc, out["error"]["code"]) == (2, "rules_file_unreadable"), out
    surrogate = "\ud800".encode("utf-8", "surrogatepass")  # CESU bytes: not UTF-8
    rc, out, _ = _cli("score", "123m456m789m11p555p", "--win", "5p", "--rules", surrogate, cwd=tmp_path)
    assert (rc, out["error"]["code"]) == (2, "unknown_preset"), out
