"""The restart promise with item cards (docs/rules.md §13): a real ``xuezhan serve`` is killed
(SIGKILL) right after a player used cards of the deal and of the hand, and started again on
the same database: the cards are used still (a seek's answer, a swap's tiles, one of a kind),
each was spent exactly once, the record lists them, and the books balance."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from killed import WAIT, Served
from websockets.sync.client import ClientConnection

from xuezhan.store import Store
from xuezhan.store.pgtemp import free_port

CONFIG = """\
[server]
bot_delay = 0.005
bot_claim_delay = 0.005
turn_timeout = 120  # the player's own decisions wait for it: on its turn nothing else moves
claim_timeout = 120
choice_timeout = 120
restart_grace = 0
discard_pause = 0
next_hand_delay = 0.05
seed = 20261202
custom_stakes = true
"""


def read(ws: ClientConnection) -> dict[str, Any]:
    msg: dict[str, Any] = json.loads(ws.recv(timeout=WAIT))
    return msg


def answer_for(ws: ClientConnection, kind: str) -> dict[str, Any]:
    """Messages until the answer to the client's last ``kind`` (``ok`` or ``error``)."""
    while True:
        msg = read(ws)
        if msg["type"] in ("ok", "error") and msg.get("for") == kind:
            return msg


def to_my_turn(ws: ClientConnection) -> dict[str, Any]:
    """Answer the player's choices (定缺, passes) until its own turn to discard; that state."""
    answered = None
    while True:
        msg = read(ws)
        assert msg["type"] != "error", msg
        if msg["type"] != "state" or msg["decision"] in (None, answered) or not msg["view"]["legal"]:
            continue
        legal = msg["view"]["legal"]
        if any(a["type"] == "discard" for a in legal):
            return msg
        answered = msg["decision"]
        pick = next((a for a in legal if a["type"] == "pass"), None) or legal[0]
        ws.send(json.dumps({"type": "action", "action": {k: v for k, v in pick.items() if k != "seat"},
                            "version": msg["version"]}))


def send_item(ws: ClientConnection, version: int, kind: str, **fields: Any) -> dict[str, Any]:
    ws.send(json.dumps({"type": "item", "kind": kind, "version": version, **fields}))
    return answer_for(ws, "item")


def test_cards_used_before_a_kill_are_used_after_it(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'items.sqlite3'}"
    with Served(db, free_port(), tmp_path / "served", CONFIG) as served:
        cookie = served.login("kim")
        for kind in ("double", "swap", "seek"):
            status, body, _ = served.request("POST", "/api/items/buy", {"kind": kind}, cookie)
            assert status == 200 and body["owned"] == 1, body
        status, body, _ = served.request("POST", "/api/rooms", {"items": True, "hands": 1}, cookie)
        assert status == 200 and body["room"]["items"] is True
        code = body["code"]
        with served.socket(code, cookie) as ws:
            assert send_item(ws, 0, "double")["type"] == "ok"
            ws.send(json.dumps({"type": "start"}))
            state = to_my_turn(ws)
            assert send_item(ws, state["version"], "seek", tile="7s")["type"] == "ok"
            seek = next(m for m in iter(lambda: read(ws), None) if m["type"] == "seek")
            swapped = None
            for wanted in [f"{r}{s}" for s in "mps" for r in range(1, 10)]:
                give = state["view"]["legal"][-1]["tile"]
                got = send_item(ws, state["version"], "swap", tile=give, wanted=wanted)
                if got["type"] == "ok":
                    swapped = (give, wanted)
                    break
                assert got["code"] in ("same_tile", "tile_not_in_wall"), got
            assert swapped is not None
            while True:
                msg = read(ws)
                if msg["type"] == "state" and len(msg["items"]) == 3:
                    before = msg
                    break
        served.kill()  # everything shown was logged first: the kill loses none of it

        served.start()
        with served.socket(code, cookie) as ws:
            state = next(m for m in iter(lambda: read(ws), None) if m["type"] == "state")
            assert state["reset"] and state["items"] == before["items"]
            assert state["items"][1] == {"player": "kim", "seat": 0, "kind": "seek", "at": state["items"][1]["at"],
                                         "tile": "7s", "quarters": seek["quarters"]}
            assert state["items"][2]["tile"] == swapped[0] and state["items"][2]["wanted"] == swapped[1]
            assert state["view"]["hand"] == before["view"]["hand"]
            refused = send_item(ws, state["version"], "seek", tile="8s")
            assert refused["type"] == "error" and refused["code"] == "item_used"
            ws.send(json.dumps({"type": "trustee", "on": True}))
            while read(ws)["type"] != "match_end":
                pass
        status, body, _ = served.request("GET", "/api/items", None, cookie)
        assert {i["kind"]: i["owned"] for i in body["items"]} == {
            "double": 0, "flush": 0, "swap": 0, "random_swap": 0, "seek": 0, "golden_finger": 0,
            "match_ticket": 0}
    store = Store(db)
    try:
        totals = store.ledger.audit()
        assert totals["players"] + totals["house"] == totals["issued"]
        assert totals["shop"] == 2_000 + 1_000 + 500
        [result] = store.hands.hand_results(1)
        assert [u.kind for u in result.items] == ["double", "seek", "swap"]
        assert [i["kind"] for i in result.record["items"]] == ["double", "seek", "swap"]
    finally:
        store.close()

