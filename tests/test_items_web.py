"""Item cards at the web table (docs/rules.md §13): the shop, rooms that allow cards, each card
played and each refusal, what the other seats are told, and a restart in the middle of a hand
with cards used."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from test_restart import Back, Build, db, serve, stop
from test_server import Client, make_app, parse_hand, table_of

from xuezhan.match import ItemKind
from xuezhan.server import ServerConfig
from xuezhan.store import Store

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
__all__ = ["db", "make_app", "serve"]  # the fixtures, from the server's and the restart's tests

SLOW = {"turn_timeout": 60.0, "claim_timeout": 60.0, "choice_timeout": 60.0}
"""A person's decisions wait for the person: on its turn nothing else moves."""
PRICES = ServerConfig().item_prices()


def buy(p: Client, kind: str, count: int = 1) -> Any:
    return p.http.post("/api/items/buy", json={"kind": kind, "count": count})


def owned(p: Client) -> dict[str, int]:
    return {i["kind"]: i["owned"] for i in p.http.get("/api/items").json()["items"]}


def use(p: Client, kind: str, **fields: Any) -> dict[str, Any]:
    """Send an item card; the answer to it (``ok`` or ``error``)."""
    version = p.state["version"] if p.state is not None else 0
    p.send({"type": "item", "kind": kind, "version": version, **fields})
    return p.wait_for(lambda m: m["type"] in ("ok", "error") and m.get("for") == "item")


def refused(p: Client, kind: str, **fields: Any) -> str:
    answer = use(p, kind, **fields)
    assert answer["type"] == "error", answer
    return str(answer["code"])


def items_room(p: Client, **fields: Any) -> str:
    r = p.http.post("/api/rooms", json={"items": True, "hands": 1, **fields})
    assert r.status_code == 200, r.text
    assert r.json()["room"]["items"] is True
    code: str = r.json()["code"]
    p.connect(code)
    room = p.wait_for(lambda m: m["type"] == "room")["room"]
    assert room["items"] == {"next_deal": [], "golden_fingers": []}
    return code


def to_my_turn(p: Client) -> dict[str, Any]:
    """Answer the player's decisions (never winning, never claiming) until its own turn to discard."""
    answered: int | None = None

    def open_decision(m: dict[str, Any]) -> bool:
        return (m["type"] == "state" and m["decision"] is not None and m["decision"] != answered
                and bool(m["view"]["legal"]))

    while True:
        p.drain()  # the latest state may already be read (a wait for another answer passes states by)
        state = p.state if p.state is not None and open_decision(p.state) else p.wait_for(open_decision)
        legal = state["view"]["legal"]
        if any(a["type"] == "discard" for a in legal):
            p.drain()
            assert p.state is not None
            return p.state
        pick = next((a for a in legal if a["type"] == "pass"), None) or next(
            (a for a in legal if a["type"] == "dingque"), None) or legal[0]
        pick = {k: v for k, v in pick.items() if k != "seat"}
        p.send({"type": "action", "action": pick, "version": state["version"]})
        p.wait_for(lambda m: m["type"] == "ok" and m["for"] == "action")
        answered = state["decision"]


def hand_tiles(state: dict[str, Any]) -> list[str]:
    return parse_hand(state["view"]["hand"])


def audit(app: Any) -> dict[str, int]:
    totals: dict[str, int] = app.state.bank.store.ledger.audit()
    assert totals["players"] + totals["house"] == totals["issued"]  # no coin made or lost
    return totals


# --- the shop ---------------------------------------------------------------------------------------------


def test_the_shop_sells_cards_at_the_configs_prices(make_app: Callable[..., Any]) -> None:
    app = make_app(item_price_seek=123)
    ann = Client(app, "ann")
    listed = ann.http.get("/api/items").json()["items"]
    assert [i["kind"] for i in listed] == ["double", "flush", "swap", "random_swap", "seek", "golden_finger",
                                           "match_ticket"]
    assert {i["kind"]: i["price"] for i in listed}["seek"] == 123
    assert all(i["owned"] == 0 for i in listed)
    r = buy(ann, "seek", 3)
    assert r.status_code == 200 and r.json() == {"coins": 20_000 - 369, "owned": 3}
    r = buy(ann, "double")
    assert r.json() == {"coins": 20_000 - 369 - PRICES[ItemKind.DOUBLE], "owned": 1}
    assert owned(ann) == {"double": 1, "flush": 0, "swap": 0, "random_swap": 0, "seek": 3, "golden_finger": 0,
                          "match_ticket": 0}
    assert ann.http.get("/api/me").json()["coins"] == r.json()["coins"]
    wallet = ann.http.get("/api/wallet").json()["ledger"]
    assert [(e["reason"], e["delta"]) for e in wallet[:2]] == [("item", -PRICES[ItemKind.DOUBLE]), ("item", -369)]
    assert "道具" in wallet[0]["text"]
    assert audit(app)["shop"] == 369 + PRICES[ItemKind.DOUBLE]


def test_the_shop_refuses_bad_purchases_and_changes_nothing(make_app: Callable[..., Any]) -> None:
    app = make_app()
    bo = Client(app, "bo")
    cases = [
        ({"kind": "rocket"}, 400, "bad_item"),
        ({"kind": 3}, 400, "bad_item"),
        ({"kind": "seek", "count": 0}, 400, "bad_amount"),
        ({"kind": "seek", "count": 100}, 400, "bad_amount"),
        ({"kind": "seek", "count": True}, 400, "bad_amount"),
        ({"kind": "seek", "count": "2"}, 400, "bad_amount"),
        ({"kind": "seek", "price": 1}, 400, "bad_request"),
        ({"kind": "match_ticket", "count": 5}, 409, "insufficient_balance"),  # 25,000 coins; bo has 20,000
    ]
    for body, status, code in cases:
        r = bo.http.post("/api/items/buy", json=body)
        assert (r.status_code, r.json()["error"]["code"]) == (status, code), body
    r = bo.http.post("/api/items/buy", json={"kind": "match_ticket", "count": 5})
    assert "25000" in r.json()["error"]["message"] and "20000" in r.json()["error"]["message"]
    assert all(n == 0 for n in owned(bo).values())
    assert bo.http.get("/api/me").json()["coins"] == 20_000
    assert audit(app)["shop"] == 0
    anonymous = app.state.runner.post("/api/items/buy", json={"kind": "seek"})
    assert anonymous.status_code == 401
    assert app.state.runner.get("/api/items").status_code == 401


def test_bots_buy_no_cards(make_app: Callable[..., Any]) -> None:
    app = make_app()
    with pytest.raises(Exception) as exc:
        app.state.bank.buy_items("bot:1", "seek", 1, 10)
    assert getattr(exc.value, "code", None) == "bad_name"
    assert app.state.bank.items("bot:1") == {}


def test_only_rooms_made_with_items_allow_them(make_app: Callable[..., Any]) -> None:
    app = make_app(**SLOW)
    cy = Client(app, "cy")
    assert buy(cy, "double").status_code == 200
    r = cy.http.post("/api/rooms", json={"items": "yes"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_room"
    code = cy.http.post("/api/rooms", json={"hands": 1}).json()["code"]
    assert "items" not in table_of(app, code).summary()
    cy.connect(code)
    room = cy.wait_for(lambda m: m["type"] == "room")["room"]
    assert "items" not in room and "tournament" not in room  # an ordinary table
    assert refused(cy, "double") == "items_not_allowed"
    assert owned(cy)["double"] == 1


# --- the cards at a table -----------------------------------------------------------------------------------


def test_each_card_and_each_refusal_at_an_items_table(make_app: Callable[..., Any]) -> None:
    app = make_app(**SLOW)
    dee = Client(app, "dee")
    for kind in ("double", "flush", "swap", "random_swap", "seek"):
        assert buy(dee, kind, 2).status_code == 200
    code = items_room(dee)
    watcher = Client(app, "eve")
    watcher.connect(code)  # a spectator: told that cards were used, never what they did

    # the cards of the deal, before it
    assert refused(dee, "swap", tile="1m", wanted="2m") == "not_now"
    assert refused(dee, "double", suit="x") == "bad_item"
    assert refused(dee, "flush", suit="mp") == "bad_item"
    assert refused(dee, "golden_finger") == "no_item"  # none bought
    assert use(dee, "double")["type"] == "ok"
    room = dee.wait_for(lambda m: m["type"] == "room")["room"]
    assert room["items"]["next_deal"] == [{"seat": 0, "kind": "double"}]
    assert refused(dee, "double") == "item_used"  # one of a kind per hand, though dee holds two
    assert use(dee, "flush", suit="p")["type"] == "ok"
    assert owned(dee)["double"] == 2  # spent when the hand is dealt
    dee.send({"type": "start"})
    first = dee.wait_for(lambda m: m["type"] == "state" and m["decision"] is not None)
    assert first["view"]["phase"] == "dingque"  # the seat's turn has not come: the engine's code
    assert refused(dee, "swap", tile=hand_tiles(first)[0], wanted="5s") == "not_your_turn"
    state = to_my_turn(dee)
    assert owned(dee)["double"] == 1 and owned(dee)["flush"] == 1 and owned(dee)["swap"] == 2
    assert state["items"] == [{"player": "dee", "seat": 0, "kind": "flush", "suit": "p"},
                              {"player": "dee", "seat": 0, "kind": "double"}]
    assert refused(dee, "double") == "not_now"  # the deal is past

    # the cards of the hand, on dee's turn
    held = hand_tiles(state)
    assert refused(dee, "swap", tile=held[0]) == "bad_item"  # a swap names the wanted tile
    assert refused(dee, "swap", tile=held[0], wanted=held[0]) in ("same_tile", "tile_not_in_wall")
    absent = next(f"{r}{s}" for s in "smp" for r in range(9, 0, -1) if f"{r}{s}" not in held)
    assert refused(dee, "swap", tile=absent, wanted="1m" if absent != "1m" else "2m") == "tile_not_in_hand"
    assert owned(dee)["swap"] == 2  # a refused card is not spent
    done = None
    for wanted in [f"{r}{s}" for s in "mps" for r in range(1, 10)]:
        answer = use(dee, "swap", tile=held[0], wanted=wanted)
        if answer["type"] == "ok":
            done = wanted
            break
        assert answer["code"] in ("same_tile", "tile_not_in_wall"), answer
    assert done is not None
    state = dee.wait_for(lambda m: m["type"] == "state" and any(e["type"] == "swap" for e in m["events"]))
    assert done in hand_tiles(state)
    swap = next(e for e in state["events"] if e["type"] == "swap")
    assert swap["tile"] == held[0] and swap["tiles"] == done
    assert owned(dee)["swap"] == 1
    assert refused(dee, "swap", tile=hand_tiles(state)[0], wanted=held[0]) == "item_used"
    assert use(dee, "random_swap", tile=hand_tiles(state)[-1])["type"] == "ok"
    state = dee.wait_for(lambda m: m["type"] == "state" and len(m["items"]) == 4)
    assert refused(dee, "random_swap", tile=hand_tiles(state)[0]) == "item_used"
    assert refused(dee, "seek") == "bad_item"  # a seek card names a tile
    assert use(dee, "seek", tile="5p")["type"] == "ok"
    seek = dee.wait_for(lambda m: m["type"] == "seek")
    assert seek["tile"] == "5p" and len(seek["quarters"]) == 4 and 0 <= sum(seek["quarters"]) <= 4
    state = dee.wait_for(lambda m: m["type"] == "state" and len(m["items"]) == 5)
    assert refused(dee, "seek", tile="6p") == "item_used"
    kinds = [i["kind"] for i in state["items"]]
    assert kinds == ["flush", "double", "swap", "random_swap", "seek"]
    assert state["items"][4]["quarters"] == seek["quarters"]
    assert owned(dee) == {"double": 1, "flush": 1, "swap": 1, "random_swap": 1, "seek": 1, "golden_finger": 0,
                          "match_ticket": 0}

    # the spectator: every card's kind and seat, nothing else; no seek answer, no swap's tiles
    seen = watcher.wait_for(lambda m: m["type"] == "state" and len(m.get("items", [])) == 5)
    assert seen["items"] == [{"seat": 0, "kind": k} for k in kinds]
    assert not [m for m in watcher.seen if m["type"] == "seek"]
    for m in watcher.seen:
        for e in m.get("events", []):
            if e["type"] == "swap":
                assert "tile" not in e and "tiles" not in e
    assert refused(watcher, "seek", tile="1m") == "not_seated"

    dee.send({"type": "trustee", "on": True})
    end = dee.wait_for(lambda m: m["type"] == "hand_end", timeout=60.0)
    assert refused(dee, "seek", tile="1m") == "not_now"  # between hands
    # the double card: dee's result counts twice
    (result,) = app.state.bank.store.hands.hand_results(int(table_of(app, code).match_key))
    assert result.points()["dee"] == 2 * end["points"][0]
    assert sum(result.points().values()) == 0 and sum(end["coins"]) == -sum(end["fees"])  # the cards move no coin
    assert [u.kind for u in result.items] == ["flush", "double", "swap", "random_swap", "seek"]
    audit(app)


def test_a_card_the_player_does_not_hold_is_refused(make_app: Callable[..., Any]) -> None:
    app = make_app(**SLOW)
    fay = Client(app, "fay")
    items_room(fay)
    assert refused(fay, "double") == "no_item"
    fay.send({"type": "start"})
    state = to_my_turn(fay)
    assert refused(fay, "seek", tile="1m") == "no_item"
    assert refused(fay, "random_swap", tile=hand_tiles(state)[0]) == "no_item"
    assert state["items"] == []


def test_used_cards_survive_a_restart(serve: Build, db: str) -> None:
    first = serve(db, **SLOW)
    gus = Client(first, "gus")
    for kind in ("double", "swap", "seek"):
        buy(gus, kind, 2)
    code = items_room(gus)
    assert use(gus, "double")["type"] == "ok"
    gus.send({"type": "start"})
    state = to_my_turn(gus)
    assert use(gus, "random_swap", tile=hand_tiles(state)[0])["type"] == "error"  # none bought: no_item
    assert use(gus, "seek", tile="3s")["type"] == "ok"
    seek = gus.wait_for(lambda m: m["type"] == "seek")
    gus.wait_for(lambda m: m["type"] == "state" and len(m["items"]) == 2)
    before = gus.state
    assert before is not None
    stop(first)

    again = serve(db, **SLOW)
    gus2 = Back(again, gus)
    gus2.connect(code)
    state = gus2.wait_for(lambda m: m["type"] == "state")
    assert state["items"] == before["items"]  # the seek's answer too: the log replayed it
    assert state["items"][1]["quarters"] == seek["quarters"]
    assert state["view"]["hand"] == before["view"]["hand"]
    assert refused(gus2, "seek", tile="4s") == "item_used"  # the card was used before the restart
    assert owned(gus2)["seek"] == 1 and owned(gus2)["double"] == 1  # each spent once
    assert use(gus2, "swap", tile=hand_tiles(state)[0], wanted=hand_tiles(state)[0])["type"] == "error"
    gus2.send({"type": "trustee", "on": True})
    end = gus2.wait_for(lambda m: m["type"] == "hand_end", timeout=60.0)
    assert end is not None
    stop(again)
    store = Store(db)
    try:
        totals = store.ledger.audit()
        assert totals["players"] + totals["house"] == totals["issued"]
        assert totals["shop"] == 2 * sum(PRICES[k] for k in (ItemKind.DOUBLE, ItemKind.SWAP, ItemKind.SEEK))
        assert store.rooms.running_matches() == []  # the match is over
        (result,) = store.hands.hand_results(_match_id(store, code))
        assert [(u.kind, u.seat) for u in result.items] == [(ItemKind.DOUBLE, 0), (ItemKind.SEEK, 0)]
        record = store.hands.hand_record(_match_id(store, code), 1)
        assert [i["kind"] for i in record["items"]] == ["double", "seek"]
        assert record["items"][1]["quarters"] == seek["quarters"]
    finally:
        store.close()


def _match_id(store: Store, code: str) -> int:
    from test_restart import match_of

    return match_of(store, code).id


def test_the_prices_are_server_settings_of_at_least_one_coin() -> None:
    assert ServerConfig.from_mapping({"item_price_seek": 7}).item_prices()[ItemKind.SEEK] == 7
    with pytest.raises(ValueError):
        ServerConfig(item_price_double=0)
    with pytest.raises(Exception) as exc:
        ServerConfig.from_mapping({"item_price_flush": 0})
    assert getattr(exc.value, "code", None) == "bad_config"
    assert ServerConfig.from_mapping({"item_price_golden_finger": 5}).item_prices()[ItemKind.GOLDEN_FINGER] == 5
    with pytest.raises(Exception) as exc:
        ServerConfig.from_mapping({"item_price_golden_finger": 0})
    assert getattr(exc.value, "code", None) == "bad_config"


# --- the golden finger; what a restart keeps of the cards asked for ----------------------------------------


def golden(p: Client) -> list[int]:
    """The seats a golden finger marks, from the player's latest ``room`` message."""
    room = [m for m in p.seen if m["type"] == "room"][-1]["room"]
    return list(room["items"]["golden_fingers"])


def test_a_golden_finger_marks_the_seat_until_its_player_leaves(make_app: Callable[..., Any]) -> None:
    app = make_app(**SLOW)
    hal = Client(app, "hal")
    assert buy(hal, "golden_finger", 2).status_code == 200
    assert audit(app)["shop"] == 2 * PRICES[ItemKind.GOLDEN_FINGER]
    code = items_room(hal, hands=2)
    watcher = Client(app, "ivy")
    watcher.connect(code)
    watcher.wait_for(lambda m: m["type"] == "room")
    assert refused(watcher, "golden_finger") == "not_seated"

    # in the waiting room: spent once, shown to everyone; a second one while it shows is refused
    hal.send({"type": "item", "kind": "golden_finger"})  # no version: it answers no decision
    assert hal.wait_for(lambda m: m.get("for") == "item") == {"type": "ok", "for": "item"}
    room = watcher.wait_for(lambda m: m["type"] == "room" and m["room"]["items"]["golden_fingers"])["room"]
    assert room["items"]["golden_fingers"] == [0]
    assert refused(hal, "golden_finger") == "item_used"
    assert owned(hal)["golden_finger"] == 1

    # it lasts through the match: the deal, the hand, between hands
    hal.send({"type": "start"})
    hal.wait_for(lambda m: m["type"] == "state")
    table = table_of(app, code)
    assert table.match is not None and table.match.golden_fingers == {"hal"}
    assert refused(hal, "golden_finger") == "item_used"
    hal.send({"type": "trustee", "on": True})
    hal.wait_for(lambda m: m["type"] == "hand_end", timeout=60.0)
    assert golden(hal) == [0]
    store = app.state.bank.store
    assert store.rooms.load_match(int(table.match_key)).golden_fingers == {"hal"}  # in the match's state

    # leaving the seat ends it; sitting again shows none until another is played
    hal.send({"type": "leave"})
    hal.wait_for(lambda m: m.get("for") == "leave")
    room = watcher.wait_for(lambda m: m["type"] == "room" and not m["room"]["items"]["golden_fingers"])["room"]
    assert room["items"]["golden_fingers"] == []
    assert table.match.golden_fingers == set()
    hal.send({"type": "sit", "seat": 0})
    hal.wait_for(lambda m: m.get("for") == "sit")
    assert golden(hal) == []
    assert use(hal, "golden_finger")["type"] == "ok"
    watcher.wait_for(lambda m: m["type"] == "room" and m["room"]["items"]["golden_fingers"] == [0])
    assert owned(hal)["golden_finger"] == 0  # each shown once, each a card
    assert refused(hal, "golden_finger") == "item_used"
    audit(app)


def test_a_golden_finger_is_not_played_where_items_are_not_allowed(make_app: Callable[..., Any]) -> None:
    app = make_app(**SLOW)
    jo = Client(app, "jo")
    buy(jo, "golden_finger")
    jo.connect(jo.http.post("/api/rooms", json={"hands": 1}).json()["code"])
    jo.wait_for(lambda m: m["type"] == "room")
    assert refused(jo, "golden_finger") == "items_not_allowed"
    assert owned(jo)["golden_finger"] == 1


def test_a_golden_finger_played_during_a_hand_survives_a_restart(serve: Build, db: str) -> None:
    first = serve(db, **SLOW)
    kim = Client(first, "kim")
    buy(kim, "golden_finger", 2)
    code = items_room(kim)
    kim.send({"type": "start"})
    to_my_turn(kim)
    assert use(kim, "golden_finger")["type"] == "ok"
    kim.wait_for(lambda m: m["type"] == "room" and m["room"]["items"]["golden_fingers"] == [0])
    stop(first)

    again = serve(db, **SLOW)
    kim2 = Back(again, kim)
    kim2.connect(code)
    room = kim2.wait_for(lambda m: m["type"] == "room")["room"]
    assert room["status"] == "playing" and room["items"]["golden_fingers"] == [0]
    assert refused(kim2, "golden_finger") == "item_used"
    assert owned(kim2)["golden_finger"] == 1  # spent once
    kim2.send({"type": "trustee", "on": True})
    kim2.wait_for(lambda m: m["type"] == "hand_end", timeout=60.0)
    audit(again)


def test_cards_asked_for_the_next_deal_survive_a_restart(serve: Build, db: str) -> None:
    first = serve(db, **SLOW)
    lea = Client(first, "lea")
    for kind in ("double", "flush", "golden_finger"):
        buy(lea, kind)
    code = items_room(lea, hands=2)
    lea.send({"type": "start"})
    lea.wait_for(lambda m: m["type"] == "state")
    lea.send({"type": "trustee", "on": True})
    lea.wait_for(lambda m: m["type"] == "hand_end", timeout=60.0)
    assert use(lea, "double")["type"] == "ok"  # between hands: for the next deal
    assert use(lea, "flush", suit="s")["type"] == "ok"
    assert use(lea, "golden_finger")["type"] == "ok"
    lea.wait_for(lambda m: m["type"] == "room" and len(m["room"]["items"]["next_deal"]) == 2
                 and m["room"]["items"]["golden_fingers"] == [0])
    stop(first)

    again = serve(db, **SLOW)
    lea2 = Back(again, lea)
    table = table_of(again, code)
    assert table.items.next_deal == {"lea": {ItemKind.DOUBLE: None, ItemKind.FLUSH: 2}}
    assert owned(lea2)["double"] == 1 and owned(lea2)["flush"] == 1  # nothing spent before the deal
    lea2.connect(code)  # a person back at the table: the next hand is dealt
    room = lea2.wait_for(lambda m: m["type"] == "room")["room"]
    assert room["status"] == "between"
    assert room["items"] == {"next_deal": [{"seat": 0, "kind": "double"}, {"seat": 0, "kind": "flush"}],
                             "golden_fingers": [0]}
    state = lea2.wait_for(lambda m: m["type"] == "state" and m["hand_no"] == 2)
    assert state["items"] == [{"player": "lea", "seat": 0, "kind": "flush", "suit": "s"},
                              {"player": "lea", "seat": 0, "kind": "double"}]
    assert owned(lea2)["double"] == 0 and owned(lea2)["flush"] == 0  # spent at the deal, once
    assert golden(lea2) == [0]
    assert "next_deal" not in table.pending_meta()  # spent: nothing is kept for a restart any more
    deadline = time.monotonic() + 10.0
    while "next_deal" in again.state.bank.store.rooms.room_meta(code):  # saved once the deal is done
        assert time.monotonic() < deadline, "the spent cards stay in the room's metadata"
        time.sleep(0.02)
    audit(again)


def test_a_waiting_rooms_cards_and_golden_finger_survive_a_restart(serve: Build, db: str) -> None:
    first = serve(db, **SLOW)
    max_ = Client(first, "max")
    for kind in ("double", "golden_finger"):
        buy(max_, kind)
    code = items_room(max_)
    assert use(max_, "double")["type"] == "ok"
    assert use(max_, "golden_finger")["type"] == "ok"
    max_.wait_for(lambda m: m["type"] == "room" and m["room"]["items"]["golden_fingers"] == [0])
    assert first.state.bank.store.rooms.room_meta(code)["golden_fingers"] == {"match": "", "hand": 0,
                                                                              "players": ["max"]}
    stop(first)

    again = serve(db, **SLOW)
    max2 = Back(again, max_)
    table = table_of(again, code)
    assert table.status.value == "waiting" and table.items.golden == {"max"}
    max2.connect(code)
    room = max2.wait_for(lambda m: m["type"] == "room")["room"]
    assert room["items"] == {"next_deal": [{"seat": 0, "kind": "double"}], "golden_fingers": [0]}
    assert owned(max2)["golden_finger"] == 0 and owned(max2)["double"] == 1
    max2.send({"type": "start"})
    state = max2.wait_for(lambda m: m["type"] == "state")
    assert state["items"] == [{"player": "max", "seat": 0, "kind": "double"}]
    assert table.match is not None and table.match.golden_fingers == {"max"}  # carried into the match
    assert owned(max2)["double"] == 0
    audit(again)


def test_a_swap_leaves_the_turns_clock_running(make_app: Callable[..., Any]) -> None:
    app = make_app(**{**SLOW, "turn_timeout": 30.0})
    ned = Client(app, "ned")
    buy(ned, "swap")
    code = items_room(ned)
    ned.send({"type": "start"})
    state = to_my_turn(ned)
    assert state["timer"]["mine"] is True
    table = table_of(app, code)
    deadline = table.pacer.deadline[0]
    time.sleep(1.2)
    held = hand_tiles(state)
    for wanted in [f"{r}{s}" for s in "mps" for r in range(1, 10)]:
        if use(ned, "swap", tile=held[0], wanted=wanted)["type"] == "ok":
            break
    after = ned.wait_for(lambda m: m["type"] == "state" and any(e["type"] == "swap" for e in m["events"]))
    assert table.pacer.deadline[0] == deadline  # the same decision: its clock runs on
    assert after["timer"]["remaining_ms"] <= 30_000 - 1_000
    assert after["timer"]["total_ms"] == 30_000
