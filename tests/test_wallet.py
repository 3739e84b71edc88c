"""Coins as the apps do it: rooms in tiers with a minimum balance and a warning when one hand could
cost more than the balance, bounded losses (an escape never wipes a balance that may sit down),
daily relief coins, the wallet's ledger in words with English plurals, the settlement explained,
and a finished hand replayed step by step as the player's seat saw it."""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Callable
from typing import Any

import pytest
from test_server import Client, Http, make_app

from xuezhan import i18n
from xuezhan.bots import make_bot
from xuezhan.engine.actions import Action, ActionType
from xuezhan.engine.game import Game
from xuezhan.explain import explain_hand
from xuezhan.match import TIERS, best_tier, max_hand_loss, tier
from xuezhan.match.room import worst_case_escape
from xuezhan.rules import Rules
from xuezhan.runtime import HandDriver, Seat

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

__all__ = ["make_app"]


def _code(r: Any) -> tuple[int, str]:
    return r.status_code, r.json()["error"]["code"] if r.status_code >= 400 else ""


# --- tiers and their bounds ------------------------------------------------------------------------------


def test_tiers_rise_and_each_minimum_pays_for_an_escape() -> None:
    assert [t.id for t in TIERS] == ["novice", "junior", "middle", "senior"]
    senior = tier("senior")
    assert (senior.base_score, senior.coefficient, senior.fee) == (6, 200, 400)  # seed 002's room
    for low, high in itertools.pairwise(TIERS):
        assert low.min_balance < high.min_balance and low.max_loss() < high.max_loss()
    for t in TIERS:
        assert worst_case_escape(t.rules()) * t.coefficient + t.fee <= t.min_balance, t.id
    assert best_tier(20_000).id == "junior" and best_tier(0).id == "novice" and best_tier(10**7).id == "senior"
    assert max_hand_loss(Rules.preset("qq")) is None  # no cap: nothing bounds a hand
    assert max_hand_loss(tier("novice").rules().with_options({"blood_river": True})) is None


def _play(rules: Rules, seed: int, escape_at: int | None) -> Game:
    rng = random.Random(seed)
    game = Game.new(rules, seed=seed)
    bots = ["random", "heuristic"]
    driver = HandDriver(game, [Seat.of_bot(make_bot(bots[(seed + s) % 2], random.Random(seed * 4 + s)))
                               for s in range(4)], seed=seed)
    steps = 0
    while not game.over:
        if escape_at is not None and steps == escape_at:
            driver.escape(rng.randrange(4))
            continue
        seat = driver.deciding()[0]
        driver.act(seat)
        steps += 1
    return game


@pytest.mark.parametrize("tier_id", [t.id for t in TIERS])
def test_no_hand_takes_more_than_the_tier_bound(tier_id: str) -> None:
    t = tier(tier_id)
    rules = t.rules()
    bound = max_hand_loss(rules)
    assert bound is not None
    worst = 0
    for seed in range(12):
        game = _play(rules, seed * 7919 + len(tier_id), escape_at=(seed * 13) % 90 if seed % 3 == 0 else None)
        deltas = game.deltas()
        assert sum(deltas) == 0
        worst = max(worst, -min(deltas))
        assert all(-d <= bound for d in deltas), (seed, deltas, bound)
    assert worst > 0  # someone lost something


# --- rooms in tiers over HTTP and at the table ------------------------------------------------------------


def test_tiers_are_listed_and_rooms_take_them(make_app: Callable[..., Any]) -> None:
    app = make_app(custom_stakes=False)
    c = Http(app.state.runner)
    assert c.post("/api/login", json={"name": "ton"}).status_code == 200
    listed = c.get("/api/tiers").json()["tiers"]
    assert [(x["id"], x["name"], x["max_loss"]) for x in listed] == [
        (t.id, i18n.t(f"server.tier.{t.id}", "zh-CN"), t.max_loss()) for t in TIERS]
    r = c.post("/api/quickstart", json={"hands": 1})
    assert r.status_code == 200 and r.json()["room"]["tier"] == "junior"  # the highest 20,000 covers
    room = r.json()["room"]
    assert (room["coefficient"], room["fee"]) == (tier("junior").coefficient, tier("junior").fee)
    r = c.post("/api/quickstart", json={"tier": "senior"})
    assert _code(r) == (403, "insufficient_balance")
    assert "高级场" in r.json()["error"]["message"] and "100000" in r.json()["error"]["message"]
    r = c.post("/api/quickstart", json={"tier": "middle"})
    assert _code(r) == (409, "stake_warning") and str(tier("middle").max_loss()) in r.json()["error"]["message"]
    assert len(app.state.lobby.tables) == 1  # nothing made for either
    r = c.post("/api/rooms", json={"tier": "middle", "accept_risk": True, "public": True})
    assert r.status_code == 200 and r.json()["room"]["tier"] == "middle"
    middle = r.json()["code"]
    for body, code in [({"tier": "nope"}, "bad_tier"), ({"tier": 3}, "bad_tier"),
                       ({"tier": "junior", "coefficient": 5}, "bad_room"),
                       ({"tier": "junior", "options": {"base_score": 3}}, "bad_room"),
                       ({"tier": "junior", "options": {"blood_river": True}}, "bad_room"),
                       ({"tier": "junior", "accept_risk": "yes"}, "bad_room")]:
        assert _code(c.post("/api/rooms", json=body)) == (400, code), body
    # joining a room by its code: the same checks, answered on the socket
    guest = Client(app, "una")
    guest.connect(middle)
    shown = guest.wait_for(lambda m: m["type"] == "room")["room"]
    assert (shown["tier"], shown["base_score"]) == ("middle", tier("middle").base_score)
    guest.send({"type": "sit"})
    refused = guest.wait_for(lambda m: m["type"] == "error")
    assert (refused["code"], refused["for"]) == ("stake_warning", "sit")
    guest.send({"type": "sit", "accept_risk": True})
    guest.wait_for(lambda m: m["type"] == "ok" and m["for"] == "sit")
    guest.close()


def test_a_player_whose_coins_fall_under_the_tier_minimum_is_stood_up_between_hands(
        make_app: Callable[..., Any]) -> None:
    novice = tier("novice")
    app = make_app(custom_stakes=False, starting_coins=novice.min_balance, next_hand_delay=60.0,
                   turn_timeout=0.01, claim_timeout=0.01, choice_timeout=0.01)
    outcomes: set[bool] = set()
    for k in range(12):  # until both a loss and no loss in the first hand were seen
        p = Client(app, f"low{k}")
        r = p.http.post("/api/quickstart", json={"tier": "novice", "hands": 2, "accept_risk": True})
        assert r.status_code == 200, r.json()
        p.connect(r.json()["code"])
        end = p.wait_for(lambda m: m["type"] == "hand_end")
        balance = p.http.get("/api/me").json()["coins"]
        assert balance == novice.min_balance + end["coins"][0]
        p.send({"type": "ready"})
        short = balance < novice.min_balance
        if short:
            refused = p.wait_for(lambda m: m["type"] == "error")
            assert (refused["code"], refused["for"]) == ("insufficient_balance", "sit")
            assert str(novice.min_balance) in refused["message"]
            assert p.wait_for(lambda m: m["type"] == "hello")["seat"] is None  # watching now
            room = p.wait_for(lambda m: m["type"] == "room" and m["room"]["seats"][0]["bot"])["room"]
            assert all(seat["bot"] for seat in room["seats"])  # a bot took the seat
        else:
            state = p.wait_for(lambda m: m["type"] == "state" and m["hand_no"] == 2)
            assert state["view"]["seat"] == 0  # dealt in again
        outcomes.add(short)
        p.close()
        if outcomes == {True, False}:
            break
    assert outcomes == {True, False}


# --- relief and the wallet -----------------------------------------------------------------------------------


def test_relief_once_a_day_below_the_floor_and_the_wallet_in_words(make_app: Callable[..., Any]) -> None:
    app = make_app(starting_coins=1, relief_floor=1_000, relief_amount=2_000, turn_timeout=0.01, claim_timeout=0.01,
                   choice_timeout=0.01)
    c = Http(app.state.runner)
    me = c.post("/api/login", json={"name": "pip"}).json()
    assert me["coins"] == 1 and me["relief"] == {"available": True, "amount": 2_000, "floor": 1_000}
    assert _code(c.post("/api/quickstart", json={"tier": "novice"})) == (403, "insufficient_balance")
    r = c.post("/api/relief")
    assert r.json() == {"granted": 2_000, "coins": 2_001}
    assert _code(c.post("/api/relief")) == (409, "relief_unavailable")  # above the floor now, and taken today
    wallet = c.get("/api/wallet").json()
    assert wallet["coins"] == 2_001 and wallet["relief"]["available"] is False
    assert [(e["delta"], e["reason"]) for e in wallet["ledger"]] == [(2_000, "relief"), (1, "start")]
    assert [e["text"] for e in wallet["ledger"]] == ["领取救济金 2000 金币", "新账号赠送 1 金币"]
    en = app.state.runner.get("/api/wallet", headers={"cookie": f"xz_session={c.token}; lang=en"}).json()
    assert [e["text"] for e in en["ledger"]] == ["Relief coins: 2000 coins", "Welcome grant: 1 coin"]
    # a hand's coins, line by line, with the room and the hand
    code = c.post("/api/quickstart", json={"tier": "novice", "hands": 1}).json()["code"]
    with c.websocket_connect(f"/ws/{code}") as ws:
        while (msg := ws.receive_json())["type"] != "hand_end":
            pass
    lines = c.get("/api/wallet").json()["ledger"]
    moved = msg["coins"][0]
    if moved:
        assert lines[0]["reason"] in ("stake", "winnings") and code in lines[0]["text"]
        assert lines[0]["delta"] == moved and "第 1 局" in lines[0]["text"]
    assert c.get("/api/me").json()["coins"] == 2_001 + moved


# --- the settlement explained ----------------------------------------------------------------------------------


def _exhausted_game() -> Game:
    for seed in range(400):
        game = _play(Rules.preset("qq"), seed, None)
        if any(e.get("type") == "wall_empty" for e in game.events) and any(
                e.reason == "cha_jiao" for e in game.ledger):
            return game
    raise AssertionError("no exhausted hand with 查大叫 in 400 seeds")


def test_an_empty_wall_says_who_was_ready_and_what_each_paid() -> None:
    game = _exhausted_game()
    names = ["甲", "乙", "丙", "丁"]
    lines = explain_hand(game, "zh-CN", names=names)
    assert any("流局" in line for line in lines)
    for s in range(4):
        if not game.contending(s):
            continue
        said = [line.strip() for line in lines if line.strip().startswith(names[s])]
        if game.is_hua_zhu(s):
            assert any("花猪" in line for line in said), said
        elif any(e.reason == "cha_jiao" and e.to_seat == s for e in game.ledger):
            assert any("听牌" in line and "番" in line for line in said), said
    for e in game.ledger:
        if e.reason == "cha_jiao":  # each 查大叫 payment names its payer and the ready seat paid
            assert any(line.startswith("查大叫") and names[e.from_seat] in line and names[e.to_seat] in line
                       for line in lines), lines
    english = explain_hand(game, "en", names=["A", "B", "C", "D"])
    assert any("wall is empty" in line for line in english)
    assert not any(" 1 points" in line for line in english)


def test_an_escape_and_its_refund_are_explained() -> None:
    game = Game.new(Rules.preset("qq"), seed=3)
    driver = HandDriver(game, [Seat.of_bot("heuristic") for _ in range(4)], seed=3)
    driver.apply(Action(1, ActionType.ESCAPE))
    lines = explain_hand(game, "en", names=["ann", "bo", "cy", "di"])
    paid = [e.points for e in game.ledger if e.reason == "escape"]
    assert len(paid) == 3 and len(set(paid)) == 1
    assert lines[:3] == [f"bo left the table and paid {n} {paid[0]} points" for n in ("ann", "cy", "di")]


# --- a finished hand, step by step ---------------------------------------------------------------------------------


def test_history_replays_a_hand_as_the_players_seat_saw_it(make_app: Callable[..., Any]) -> None:
    app = make_app(turn_timeout=0.01, claim_timeout=0.01, choice_timeout=0.01)
    p = Client(app, "hal")
    code = p.http.post("/api/quickstart", json={"hands": 1}).json()["code"]
    p.connect(code)
    end = p.wait_for(lambda m: m["type"] == "hand_end")
    states = [m for m in p.seen if m["type"] == "state"]
    [listed] = p.http.get("/api/history").json()["hands"]
    assert (listed["room"], listed["hand_no"], listed["seat"], listed["delta"]) == (code, 1, 0, end["coins"][0])
    replay = p.http.get(f"/api/history/{listed['id']}").json()
    assert replay["seat"] == 0 and replay["names"] == end["names"]
    steps = replay["steps"]
    assert steps[0]["action"] is None and [s["seq"] for s in steps] == list(range(len(steps)))
    assert steps[0]["view"] == states[0]["view"]  # the deal, as the table showed it
    assert steps[-1]["view"] == states[-1]["view"]  # and the end
    # every view the player was sent is a step, but the discard pause's: the table just after a
    # discard (or an added kong), before what followed it, which no action of the log ends at
    paused = [m for m in states if m["events"] and m["view"]["phase"] == "turn"
              and m["events"][-1]["type"] in ("discard", "bugang_declared")
              and m["events"][-1]["seat"] == m["view"]["turn"]]
    assert paused and all(not m["view"]["legal"] and m["view"]["drawn"] is None for m in paused)
    shown = {json_key(s["view"]) for s in states if s not in paused}
    assert shown <= {json_key(s["view"]) for s in steps}
    for s in steps:
        for entry in s["view"]["seats"]:
            if entry["seat"] != 0 and "hand" in entry:
                assert entry["won"] or s["view"]["phase"] == "over"  # others' tiles only once laid down
    result = replay["result"]
    assert result["deltas"] == end["points"]
    assert [e["text"] for e in result["ledger"]] == [e["text"] for e in end["ledger"]]
    stranger = Client(app, "sid")
    assert _code(stranger.http.get(f"/api/history/{listed['id']}")) == (404, "unknown_hand")
    assert _code(p.http.get("/api/history/abc")) == (404, "unknown_hand")
    p.close()
    stranger.close()


def json_key(view: dict[str, Any]) -> str:
    return json.dumps(view, sort_keys=True)
