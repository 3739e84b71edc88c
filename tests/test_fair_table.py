"""A fair web table: nobody is told, by a message or by its timing, that another seat may claim
a discard; versions never go back, across restarts too.

Every message of a seat (in 托管) and of a spectator is recorded over three hands (150-odd
discards) on a table with a short discard pause; the engine's own account of who could
claim each discard is taken from the table as it applies it.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import pytest
from test_restart import Back, Build, answer, db, my_decision, my_turn, serve, stay_in, stop
from test_server import Client

from xuezhan.engine.game import Phase
from xuezhan.errors import XuezhanError
from xuezhan.server import ServerConfig
from xuezhan.server.conn import Conn
from xuezhan.server.play import TablePlay, delays_of, hand_version

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

PAUSE = 0.08
"""The discard pause of these tables (seconds)."""

__all__ = ["db", "serve"]  # the fixtures, shared with test_restart


def stamp_sends(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every message a table sends carries ``_sent``: the time it was handed to the connection
    (the event loop's clock, the one the table paces by), read by the test, never by the page.
    A client's own reading of arrival times would measure its reader thread's wake-ups too."""
    send_text = Conn.send_text

    def stamped(self: Conn, text: str) -> None:
        send_text(self, f'{{"_sent":{asyncio.get_running_loop().time()!r},{text[1:]}')

    monkeypatch.setattr(Conn, "send_text", stamped)


def spy_on_discards(monkeypatch: pytest.MonkeyPatch) -> dict[int, list[set[int]]]:
    """By hand, the seats that could claim each discard, in order, as the engine had it when the
    table applied the discard (added kongs, paused alike, left out)."""
    claims: dict[int, list[set[int]]] = {}
    shown = TablePlay._discarded

    def spy(self: TablePlay, after: Any) -> None:
        hand = self.hand
        if after is not None and hand is not None and after.state.events[-1]["type"] == "discard":
            game = hand.game
            claims.setdefault(hand.hand_no, []).append(set(game.pending()) if game.phase is Phase.CLAIM else set())
        shown(self, after)

    monkeypatch.setattr(TablePlay, "_discarded", spy)
    return claims


@dataclass
class Step:
    """A discard as one connection saw it: its message, the next state message, who could claim it."""

    discard: dict[str, Any]
    after: dict[str, Any]
    claimants: set[int]

    @property
    def event(self) -> dict[str, Any]:
        ev: dict[str, Any] = self.discard["events"][-1]
        return ev


def steps_of(client: Client, claims: dict[int, list[set[int]]]) -> list[Step]:
    """Every discard ``client`` was shown; each comes alone at the end of its message."""
    states = [m for m in client.seen if m["type"] == "state"]
    versions = [m["version"] for m in states]
    assert versions == sorted(versions)  # never back
    steps: list[Step] = []
    count: dict[int, int] = {}
    for i, m in enumerate(states):
        kinds = [ev["type"] for ev in m["events"]]
        if "discard" not in kinds:
            continue
        assert kinds.count("discard") == 1 and kinds[-1] == "discard", kinds  # nothing after it with it
        hand = m["hand_no"]
        k = count[hand] = count.get(hand, 0) + 1
        steps.append(Step(m, states[i + 1], claims[hand][k - 1]))
    assert sum(len(c) for c in claims.values()) == len(steps)
    return steps


def check_step(step: Step, seat: int | None) -> None:
    m, nxt, ev = step.discard, step.after, step.event
    view = m["view"]
    if seat is not None and seat in step.claimants:
        assert view["phase"] == "claim" and view["offered"] == ev["tile"] and view["legal"]
    else:  # the table just after the discard: nothing tells whether anyone may claim it
        assert view["phase"] == "turn" and view["turn"] == ev["seat"], view
        assert view["offered"] is None and view["drawn"] is None and view["legal"] == []
        assert m["timer"] is None and m["decision"] is None and m["deadline_ms"] is None
    # whatever followed (a draw, a claim) comes alone, one version on, after the pause
    assert nxt["version"] == m["version"] + 1
    assert nxt["events"] and nxt["events"][0]["type"] != "discard"
    assert nxt["_sent"] - m["_sent"] >= PAUSE, (nxt["_sent"] - m["_sent"], step.claimants)


def test_nobody_is_told_who_may_claim_a_discard(serve: Build, db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    claims = spy_on_discards(monkeypatch)
    stamp_sends(monkeypatch)
    app = serve(db, discard_pause=PAUSE, turn_timeout=60.0, claim_timeout=60.0, choice_timeout=60.0, seed=11)
    kim = Client(app, "kim")
    code = kim.http.post("/api/quickstart", json={"hands": 3}).json()["code"]
    eye = Client(app, "eye")
    eye.connect(code, watch=True)
    kim.connect(code)
    asked: set[int] = set()

    def trustee_to_the_end(m: dict[str, Any]) -> bool:  # the stand-in plays kim's seat, claims too
        if m["type"] == "state" and not m["trustee"] and m["hand_no"] not in asked:
            asked.add(m["hand_no"])
            kim.send({"type": "trustee", "on": True})
        return bool(m["type"] == "match_end")

    kim.wait_for(trustee_to_the_end, 240.0)
    eye.wait_for(lambda m: m["type"] == "match_end", 60.0)

    watched = steps_of(eye, claims)
    assert len(watched) >= 100
    claimable = [s for s in watched if s.claimants]
    assert len(claimable) >= 5 and len(watched) - len(claimable) >= 50
    for step in watched:
        check_step(step, None)
    assert not any(m["type"] == "state" and (m["view"]["phase"] in ("claim", "rob") or m["view"]["offered"] is not None)
                   for m in eye.seen)

    played = steps_of(kim, claims)
    assert len(played) == len(watched)
    for step in played:
        check_step(step, 0)
    assert any(s.claimants and 0 not in s.claimants for s in played)  # others' claims, hidden from kim
    assert any(0 in s.claimants for s in played)  # kim's own, shown to kim
    kim_claims = [m for m in kim.seen if m["type"] == "state" and m["view"]["phase"] == "claim"]
    assert len(kim_claims) == sum(0 in s.claimants for s in played)


def test_versions_never_go_back_across_a_restart(serve: Build, db: str) -> None:
    slow = {"turn_timeout": 60.0, "claim_timeout": 60.0, "choice_timeout": 60.0}
    first = serve(db, **slow)
    kim = Client(first, "kim")
    code = kim.http.post("/api/quickstart", json={"hands": 2}).json()["code"]
    kim.connect(code)
    for _ in range(3):
        kim.wait_for(my_decision(kim))
        answer(kim, stay_in(kim))
    while not my_turn(kim.wait_for(my_decision(kim))):
        answer(kim, stay_in(kim))
    kim.drain()
    before = [m["version"] for m in kim.seen if m["type"] == "state"]
    assert before == sorted(before)
    pick = stay_in(kim)  # chosen, not sent, when the server stops
    assert kim.state is not None
    old = kim.state["version"]
    stop(first)

    again = serve(db, **slow, bot_delay=60.0, bot_claim_delay=60.0)
    kim2 = Back(again, kim)
    kim2.connect(code)
    state = kim2.wait_for(lambda m: m["type"] == "state")
    assert state["version"] > max(before) and state["decision"] > max(before)
    kim2.send({"type": "action", "action": pick, "version": old})
    refused = kim2.wait_for(lambda m: m["type"] == "error")
    assert refused["code"] == "stale" and refused["for"] == "action"
    kim2.send({"type": "action", "action": pick, "version": state["version"]})
    kim2.wait_for(lambda m: m["type"] == "ok" and m["for"] == "action")
    moved = kim2.wait_for(lambda m: m["type"] == "state")
    assert moved["version"] == state["version"] + 1
    assert any(ev["type"] == "discard" and ev["seat"] == 0 for ev in moved["events"])


def test_the_discard_pause_is_a_server_setting() -> None:
    assert ServerConfig().discard_pause == 0.6
    assert ServerConfig.from_mapping({"discard_pause": 1}).discard_pause == 1.0
    for bad in (-0.1, "0.6", True):
        with pytest.raises(XuezhanError) as refused:
            ServerConfig.from_mapping({"discard_pause": bad})
        assert refused.value.code == "bad_config"
    # a bot's claim answer falls inside the pause (at most half of it), and is as set without one
    assert delays_of(ServerConfig(bot_claim_delay=0.35, discard_pause=0.4)).claim == 0.2
    assert delays_of(ServerConfig(bot_claim_delay=0.35, discard_pause=1.0)).claim == 0.35
    assert delays_of(ServerConfig(bot_claim_delay=0.35, discard_pause=0.0)).claim == 0.35


def test_versions_rise_from_hand_to_hand_and_match_to_match() -> None:
    firsts = [hand_version(key, hand) for key in ("1", "2", "300") for hand in (1, 2, 128)]
    assert firsts == sorted(firsts) and len(set(firsts)) == len(firsts)
    assert hand_version("1", 2) - hand_version("1", 1) == 2**16  # room for the changes of a hand
    assert hand_version("1", 1, 3) == hand_version("1", 1) + 24  # eight versions for each action logged
    assert hand_version("1", 1, 2**13) <= hand_version("1", 2)
    assert hand_version(str(2**29 - 1), 128) + 2**16 < 2**53  # a safe integer to JavaScript


def test_a_window_open_at_a_restart_stays_hidden(serve: Build, db: str) -> None:
    slow = {"turn_timeout": 60.0, "claim_timeout": 60.0, "choice_timeout": 60.0, "seed": 3}
    first = serve(db, **slow)
    kim = Client(first, "kim")
    code = kim.http.post("/api/quickstart", json={"hands": 1}).json()["code"]
    kim.connect(code)
    while True:  # kim plays on until a discard may be claimed by kim, and thinks it over
        m = kim.wait_for(my_decision(kim), 60.0)
        if m["view"]["phase"] == "claim":
            break
        answer(kim, stay_in(kim))
    offered = m["view"]["offered"]
    stop(first)

    again = serve(db, **slow, bot_delay=60.0, bot_claim_delay=60.0)
    eye = Client(again, "eye")
    eye.connect(code, watch=True)
    watched = eye.wait_for(lambda m: m["type"] == "state")
    assert watched["view"]["phase"] == "turn" and watched["view"]["offered"] is None
    assert watched["events"][-1]["type"] == "discard" and watched["events"][-1]["tile"] == offered
    kim2 = Back(again, kim)
    kim2.connect(code)
    mine = kim2.wait_for(lambda m: m["type"] == "state")
    assert mine["view"]["phase"] == "claim" and mine["view"]["offered"] == offered and mine["view"]["legal"]
    kim2.send({"type": "action", "action": {"type": "pass"}, "version": mine["version"]})
    kim2.wait_for(lambda m: m["type"] == "ok" and m["for"] == "action")
    after = eye.wait_for(lambda m: m["type"] == "state")
    assert after["version"] == watched["version"] + 1 and after["view"]["offered"] is None


def test_a_claim_that_runs_out_tells_nobody(serve: Build, db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """kim answers every decision but the claims, which run out; the room message that tells of
    the stand-in's answer (its seats' 托管) waits for the window to close, so a spectator's
    messages between a discard and what follows it are the same whoever could claim."""
    claims = spy_on_discards(monkeypatch)
    app = serve(db, discard_pause=PAUSE, turn_timeout=60.0, claim_timeout=0.15, choice_timeout=60.0, seed=11)
    kim = Client(app, "kim")
    code = kim.http.post("/api/quickstart", json={"hands": 2}).json()["code"]
    eye = Client(app, "eye")
    eye.connect(code, watch=True)
    kim.connect(code)

    def all_but_claims(m: dict[str, Any]) -> bool:
        if m["type"] == "state" and m["view"]["phase"] != "claim":
            pick = kim.choose()
            if pick is not None:
                kim.send({"type": "action", "action": pick, "version": m["version"]})
        return bool(m["type"] == "match_end")

    kim.wait_for(all_but_claims, 240.0)
    eye.wait_for(lambda m: m["type"] == "match_end", 60.0)
    [table] = app.state.lobby.tables.values()
    assert table.timeouts >= 1  # a claim of kim's ran out and the stand-in took it
    steps = steps_of(eye, claims)
    assert any(0 in s.claimants for s in steps)
    seen = eye.seen
    for step in steps:
        between = seen[seen.index(step.discard) + 1:seen.index(step.after)]
        assert [m["type"] for m in between] == [], (step.claimants, [m["type"] for m in between])
