"""``xuezhan tournaments --url URL``: a real server's tournaments listed, one followed to its end,
and a refusal or a server that does not answer told by its code."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from test_browser import served

from xuezhan.cli import main
from xuezhan.server import ServerConfig
from xuezhan.server.tournament_config import TournamentConfig
from xuezhan.store import Store

FAST = {"turn_timeout": 0.02, "claim_timeout": 0.02, "choice_timeout": 0.02, "next_hand_delay": 0.02,
        "bot_delay": 0.0}


@pytest.fixture(scope="module")
def cup_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any, Path]]:
    starts = (datetime.now(UTC) + timedelta(seconds=4)).isoformat()
    cup = TournamentConfig.from_mapping({"id": "cup", "name": "Cup", "starts": starts, "entry": 100, "rounds": 2,
                                         "hands_per_round": 1, "prizes": [800, 200]})
    later = TournamentConfig.from_mapping({"id": "later", "name": "Later", "starts": "every 1h",
                                           "entry": "match_ticket"})
    db = tmp_path_factory.mktemp("cli-tournaments") / "web.sqlite3"
    with served(ServerConfig.fast(**FAST, tournaments=(cup, later)), db) as (url, app):
        yield url, app, db


def request(url: str, method: str, path: str, body: Any = None, cookie: str = "") -> tuple[int, Any, str]:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=10)
    try:
        headers = {"Content-Type": "application/json", **({"Cookie": cookie} if cookie else {})}
        conn.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
        response = conn.getresponse()
        return response.status, json.loads(response.read() or b"null"), (response.getheader("set-cookie") or "")
    finally:
        conn.close()


def test_the_list_then_one_tournament_followed_to_its_prizes(cup_server: tuple[str, Any, Path],
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    url, _, db = cup_server
    for name in ("ann", "bo", "cai", "dee"):
        status, body, cookie = request(url, "POST", "/api/login", {"name": name})
        assert status == 200, body
        status, body, _ = request(url, "POST", "/api/tournaments/cup/join", None, cookie.split(";")[0])
        assert status == 200, body
    assert main(["tournaments", "--url", url, "--lang", "en"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert listed[0].startswith("cup  Cup  Open  starts ") and listed[0].endswith("entry 100 coins  4 entrants")
    assert listed[1].startswith("later-") and "entry: a match ticket  0 entrants" in listed[1]

    assert main(["tournaments", "--url", url, "cup", "--once", "--lang", "en"]) == 0
    once = capsys.readouterr().out.splitlines()
    assert once[0] in ("Cup: Open, round 0 of 2", "Cup: Running, round 1 of 2")

    assert main(["tournaments", "--url", url + "/", "cup", "--every", "0.2", "--lang", "zh-CN"]) == 0
    followed = capsys.readouterr().out
    last = followed.split("\n\n")[-1].splitlines()
    assert last[0] == "Cup：已结束，第 2/2 轮"
    assert [line.split(".")[0].strip() for line in last[1:]] == ["1", "2", "3", "4"]
    assert last[1].endswith("  奖金 800 金币") and last[2].endswith("  奖金 200 金币")
    assert "奖金" not in last[3] + last[4]
    assert "进行中" in followed  # it was followed while it ran
    store = Store(f"sqlite:///{db}")
    try:
        assert store.audit()["prizes"] == 1000
    finally:
        store.close()

    assert main(["tournaments", "--url", url, "cup", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "finished" and [s["prize"] for s in data["standings"]] == [800, 200, 0, 0]


def test_a_refusal_and_a_silent_server_exit_2_with_their_codes(cup_server: tuple[str, Any, Path],
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    url, _, _ = cup_server
    assert main(["tournaments", "--url", url, "nope", "--json"]) == 2
    assert json.loads(capsys.readouterr().out)["error"]["code"] == "unknown_tournament"
    assert main(["tournaments", "--url", "http://127.0.0.1:9", "--json"]) == 2
    assert json.loads(capsys.readouterr().out)["error"]["code"] == "unreachable"
    assert main(["tournaments", "--url", "file:///etc/passwd", "--json"]) == 2
    assert json.loads(capsys.readouterr().out)["error"]["code"] == "bad_input"
    assert main(["tournaments", "--url", url, "cup", "--every", "0", "--json"]) == 2
    assert json.loads(capsys.readouterr().out)["error"]["code"] == "bad_input"
