"""A spectator sees only what lies on the table: it walks every message of a whole hand, from
before the deal to the settlement, and never meets a concealed tile."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from test_server import Client, make_app

from xuezhan.records import parse_record
from xuezhan.tiles import format_tiles

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

__all__ = ["make_app"]

_PRIVATE_EVENTS = {"deal", "draw", "exchange_chosen", "exchange", "exchange_received", "dingque_chosen"}


def test_a_spectator_walks_a_whole_hand_and_never_sees_a_concealed_tile(make_app: Callable[..., Any]) -> None:
    app = make_app(turn_timeout=0.01, claim_timeout=0.01, choice_timeout=0.01)
    owner = Client(app, "olu")
    code = owner.http.post("/api/quickstart", json={"hands": 1, "options": {"exchange_three": "clockwise"}}).json()[
        "code"]
    eye = Client(app, "eye")
    eye.connect(code, watch=True)  # in the room before the deal
    eye.wait_for(lambda m: m["type"] == "room")
    owner.connect(code)  # the owner sits down: the match starts
    end = eye.wait_for(lambda m: m["type"] == "hand_end")
    messages = list(eye.seen)
    assert {"hello", "room", "state", "hand_end"} <= {m["type"] for m in messages}
    assert next(m for m in messages if m["type"] == "hello")["seat"] is None

    states = [m for m in messages if m["type"] == "state"]
    assert states[0]["reset"] is True and states[0]["view"]["phase"] in ("exchange", "dingque")
    assert states[-1]["view"]["phase"] == "over"
    events = [e for m in states for e in m["events"]]
    for m in states:
        view = m["view"]
        assert view["seat"] is None and view["hand"] is None and view["drawn"] is None and view["legal"] == []
        assert m["decision"] is None and m["deadline_ms"] is None
        claimed = 0
        kongs_and_pengs = 0
        for entry in view["seats"]:
            if "hand" in entry:  # a hand laid down: won, or the hand is over
                assert entry["won"] or view["phase"] == "over", entry
            for meld in entry["melds"]:
                if meld["type"] == "angang" and "hand" not in entry:
                    assert meld["tile"] is None  # a concealed kong lies face down
                kongs_and_pengs += meld["type"] in ("peng", "gang")  # an exposed kong came from a claim or a peng
            assert all(set(r) == {"tile", "claimed"} for r in entry["river"])
            claimed += sum(r["claimed"] for r in entry["river"])
        assert claimed == kongs_and_pengs  # each claimed tile is marked in its river
        if view["phase"] in ("exchange", "dingque"):
            assert all(entry["void"] is None for entry in view["seats"])
    for e in events:
        assert e["type"] != "pass_hu"
        if e["type"] in _PRIVATE_EVENTS or e["type"] == "angang":
            assert "tile" not in e and "tiles" not in e, e

    # and, against the hand as it was played: no seat's concealed tiles before they were laid down
    hand_id = owner.http.get("/api/history").json()["hands"][0]["id"]
    found = app.state.bank.past_hand("olu", hand_id)
    record = parse_record(found.record)
    text = json.dumps([m for m in messages if m["type"] == "state" and m["view"]["phase"] != "over"])
    assert len(record.deal.hands) == 4
    for hand in record.deal.hands:
        for written in (format_tiles(hand), format_tiles(hand, compact=False)):
            assert written not in text  # never a dealt hand, in either way tiles are written
    assert end["explain"] and all(isinstance(line, str) for line in end["explain"])
    eye.close()
    owner.close()
