"""叫马 at the web table (docs/rules.md §12): a spectator bets on the next hand.

A spectator asks between hands and is refused when it may not (a seat, a hand under way, four
bets already, too few coins); at the deal it alone is told its tile and seat, everyone else
only its name; the hand's end shows every bet and its coins, which are the bound seat's
points times the room's coefficient with no fee, in the bystander's wallet as ``jiao_ma``;
the books balance; a restart in the middle of the hand carries the bet on exactly.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_restart import Back, logged_hand, serve, stop
from test_server import Client, make_app, table_of

from xuezhan.match import BystanderBet, HandResult, RoomConfig, Transfer, jiao_ma_seat, mirror_for_bystanders
from xuezhan.server.bank import Account
from xuezhan.server.table import Status
from xuezhan.store import Store
from xuezhan.tiles import parse_tile, tile_name

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

__all__ = ["make_app", "serve"]  # the fixtures, shared

QUICK = {"hands": 2, "fee": 5, "coefficient": 10}
FAST = {"turn_timeout": 0.01, "claim_timeout": 0.01, "choice_timeout": 0.01, "next_hand_delay": 3600.0}


def _answer(client: Client) -> dict[str, Any]:
    return client.wait_for(lambda m: m.get("for") == "jiao_ma")


def _ask(client: Client) -> dict[str, Any]:
    client.send({"type": "jiao_ma"})
    return _answer(client)


def _audit(app: Any) -> dict[str, int]:
    totals: dict[str, int] = app.state.bank.store.ledger.audit()  # raises on any broken invariant
    assert totals["players"] + totals["house"] == totals["issued"]
    return totals


def test_a_spectator_bets_on_the_next_hand_and_only_it_sees_its_tile(make_app: Callable[..., Any]) -> None:
    app = make_app(**FAST)
    owner = Client(app, "olu")
    code = owner.http.post("/api/quickstart", json=QUICK).json()["code"]
    eve, fay = Client(app, "eve"), Client(app, "fay")
    for c in (eve, fay):
        c.connect(code, watch=True)
        c.wait_for(lambda m: m["type"] == "room")
    house_before = _audit(app)["house"]
    balance_before = app.state.bank.account("eve").balance

    # before the first deal: a spectator asks (again: still ok), the room names it
    assert _ask(eve) == {"type": "ok", "for": "jiao_ma"}
    assert _ask(eve) == {"type": "ok", "for": "jiao_ma"}
    room = fay.wait_for(lambda m: m["type"] == "room" and m["room"]["bystanders"])
    assert room["room"]["bystanders"] == ["eve"]

    owner.connect(code)  # the owner sits down: the match starts
    mine = eve.wait_for(lambda m: m["type"] == "jiao_ma")
    table = table_of(app, code)
    hand = table.hand
    assert hand is not None and table.match is not None
    [bet] = hand.bets
    assert (bet.player, mine["tile"], mine["seat"]) == ("eve", mine["tile"], bet.seat)
    assert parse_tile(mine["tile"]) == bet.tile == hand.game.bystander_tiles[0]
    assert mine["seat"] == jiao_ma_seat(bet.tile, hand.dealer)
    assert set(mine) == {"type", "tile", "seat"}
    assert hand.game.live == 55 - 1  # the tile left the wall

    # during the hand: nobody may ask, and a seat never may
    assert _ask(eve)["code"] == "not_between_hands"
    assert _ask(fay)["code"] == "not_between_hands"
    refused = _ask(owner)
    assert refused["type"] == "error" and refused["code"] == "already_seated"

    ends = {c.nickname: c.wait_for(lambda m: m["type"] == "hand_end") for c in (owner, eve, fay)}
    end = ends["eve"]
    [shown] = end["bystanders"]
    assert shown["name"] == "eve" and shown["tile"] == mine["tile"] and shown["seat"] == mine["seat"]
    # the bound seat's points in coins, no fee; everyone is shown the same bets
    assert shown["coins"] == end["points"][mine["seat"]] * QUICK["coefficient"]
    assert all(e["bystanders"] == end["bystanders"] for e in ends.values())
    assert app.state.bank.account("eve").balance == balance_before + shown["coins"]
    # the hand's coins sum to minus its fees: the bet moved coins between people only
    assert sum(end["coins"]) + shown["coins"] == -sum(end["fees"]) == -4 * QUICK["fee"]
    assert _audit(app)["house"] - house_before == 4 * QUICK["fee"]

    # privacy: before the hand's end nobody else met the tile or the seat, in any message
    for c in (owner, fay):
        before_end = c.seen[: next(i for i, m in enumerate(c.seen) if m["type"] == "hand_end")]
        assert not [m for m in before_end if m["type"] == "jiao_ma"]
        for m in before_end:
            if m["type"] == "room":
                assert all(isinstance(n, str) for n in m["room"]["bystanders"])
            assert "bystander_tiles" not in json.dumps(m)
            if m["type"] == "state":
                for ev in m["events"]:
                    assert ev["type"] != "start" or set(ev) >= {"bystanders"}  # a count, never a tile

    # one hand at a time: between hands nobody bets until asked again; the wallet names the bet
    assert table.status is Status.BETWEEN and table.match.bystanders == ()
    assert "eve" not in table.match.running  # a bet is no match standing
    room = [m for m in fay.seen if m["type"] == "room"][-1]  # the room as the hand ended
    assert room["room"]["status"] == "between" and room["room"]["bystanders"] == []
    wallet = eve.http.get("/api/wallet").json()["ledger"]
    bets = [line for line in wallet if line["reason"] == "jiao_ma"]
    assert sum(line["delta"] for line in bets) == shown["coins"]
    assert all(line["hand_no"] == 1 and line["room"] == code and line["text"] for line in bets)
    assert len(bets) == (shown["coins"] != 0)
    assert not [line for line in wallet if line["reason"] == "fee"]  # a bystander pays no fee
    [past] = eve.http.get("/api/history").json()["hands"]
    assert past["seat"] is None and past["coins"] == shown["coins"] and past["fee"] == 0
    assert eve.http.get(f"/api/history/{past['id']}").status_code == 404  # no seat's view to replay
    for c in (owner, eve, fay):
        c.close()


def test_four_bets_at_most_and_each_needs_the_rooms_minimum(make_app: Callable[..., Any]) -> None:
    app = make_app(**FAST)
    owner = Client(app, "host")
    code = owner.http.post("/api/rooms", json={"hands": 1, "fee": 100, "coefficient": 1}).json()["code"]
    watchers = [Client(app, f"w{k}") for k in range(5)]
    app.state.bank.starting_coins = 50  # under the room's minimum (its fee)
    poor = Client(app, "poor")
    for c in (*watchers, poor):
        c.connect(code, watch=True)
        c.wait_for(lambda m: m["type"] == "room")
    refused = _ask(poor)
    assert refused["code"] == "insufficient_balance" and "100" in refused["message"]
    for c in watchers[:4]:
        assert _ask(c)["type"] == "ok"
    refused = _ask(watchers[4])
    assert refused["type"] == "error" and refused["code"] == "too_many_bystanders"
    table = table_of(app, code)
    assert table.jiao_ma.players() == ["w0", "w1", "w2", "w3"]
    # a watcher who goes takes its request back: a place is free again
    watchers[3].close()
    owner.connect(code)
    owner.wait_for(lambda m: m["type"] == "room" and m["room"]["bystanders"] == ["w0", "w1", "w2"])
    assert _ask(watchers[4])["type"] == "ok"
    owner.send({"type": "start"})
    ends = [c.wait_for(lambda m: m["type"] == "hand_end") for c in (owner, watchers[0])]
    assert [b["name"] for b in ends[0]["bystanders"]] == ["w0", "w1", "w2", "w4"]
    end = ends[0]
    assert sum(end["coins"]) + sum(b["coins"] for b in end["bystanders"]) == -sum(end["fees"])
    _audit(app)
    for c in (owner, *watchers[:3], watchers[4], poor):
        c.close()


def test_a_restart_mid_hand_carries_the_bet_on(tmp_path: Path, serve: Callable[..., Any]) -> None:
    db = f"sqlite:///{tmp_path / 'jiaoma.sqlite3'}"
    slow = {"bot_delay": 3600.0, "bot_claim_delay": 3600.0, "turn_timeout": 3600.0, "claim_timeout": 3600.0,
            "choice_timeout": 3600.0}
    app = serve(db, **slow)
    owner = Client(app, "olu")
    code = owner.http.post("/api/quickstart", json={**QUICK, "hands": 1}).json()["code"]
    eve, fay = Client(app, "eve"), Client(app, "fay")
    for c in (eve, fay):
        c.connect(code, watch=True)
        c.wait_for(lambda m: m["type"] == "room")
    assert _ask(eve)["type"] == "ok"
    owner.connect(code)
    mine = eve.wait_for(lambda m: m["type"] == "jiao_ma")
    owner.wait_for(lambda m: m["type"] == "state" and m["decision"] is not None)
    hand_no, actions = logged_hand(db)
    assert hand_no == 1
    stop(app)

    again = serve(db, **FAST)
    table = table_of(again, code)
    assert table.status is Status.PLAYING and table.hand is not None
    [bet] = table.hand.bets
    assert (bet.player, bet.seat) == ("eve", mine["seat"]) and parse_tile(mine["tile"]) == bet.tile
    assert table.jiao_ma.names("zh-CN") == ["eve"]
    eve2, fay2, owner2 = Back(again, eve), Back(again, fay), Back(again, owner)
    eve2.connect(code, watch=True)
    assert eve2.wait_for(lambda m: m["type"] == "jiao_ma") == mine  # told again, the same bet
    fay2.connect(code, watch=True)
    room = fay2.wait_for(lambda m: m["type"] == "room")
    assert room["room"]["bystanders"] == ["eve"]
    owner2.connect(code)
    end = eve2.wait_for(lambda m: m["type"] == "hand_end", timeout=60)
    [shown] = end["bystanders"]
    assert (shown["name"], shown["tile"], shown["seat"]) == ("eve", mine["tile"], mine["seat"])
    assert shown["coins"] == end["points"][mine["seat"]] * QUICK["coefficient"]
    assert not [m for m in fay2.seen if m["type"] == "jiao_ma"]
    assert again.state.bank.account("eve").balance == 20_000 + shown["coins"]
    assert [a.to_json() for a in table.hand.game.actions][: len(actions)] == actions  # carried on, never back
    _audit(again)


def test_a_bystander_never_takes_the_seat_of_an_escaper(make_app: Callable[..., Any]) -> None:
    """The match seats a waiting person in an escaper's place; at the web table the bet ends with
    the hand and a bot takes the seat."""
    app = make_app(**FAST)
    owner = Client(app, "olu")
    code = owner.http.post("/api/quickstart", json=QUICK).json()["code"]
    eve = Client(app, "eve")
    eve.connect(code, watch=True)
    eve.wait_for(lambda m: m["type"] == "room")
    assert _ask(eve)["type"] == "ok"
    owner.connect(code)
    eve.wait_for(lambda m: m["type"] == "jiao_ma")
    owner.send({"type": "leave"})  # 逃跑: the owner leaves the hand and the match
    assert owner.wait_for(lambda m: m.get("for") == "leave")["type"] == "ok"
    end = eve.wait_for(lambda m: m["type"] == "hand_end")
    assert end["escaped"] == [0] and [b["name"] for b in end["bystanders"]] == ["eve"]
    table = table_of(app, code)
    assert table.match is not None
    assert "eve" not in table.match.seats and table.match.bystanders == ()
    assert None not in table.match.seats and table.players[0] is not None and table.players[0].startswith("bot:")
    saved = app.state.bank.store.rooms.load_match(int(table.match_key))
    assert saved.seats == table.match.seats and saved.waiting == []
    _audit(app)
    for c in (owner, eve):
        c.close()


def test_a_bet_is_a_jiao_ma_line_of_the_wallet_and_the_books_balance(store: Store) -> None:
    """On SQLite and PostgreSQL: the bystander's coins are its seat's, with no fee; its wallet calls
    them ``jiao_ma`` (the books keep stakes and winnings, as everyone's); the audit balances."""
    seats = ("ann", "bo", "cai", "dan")
    for p in (*seats, "eve"):
        store.accounts.create_account(p, 1_000)
    store.rooms.create_room("five", RoomConfig(coefficient=10, fee=3))
    match_id, _ = store.rooms.start_match("five", [*seats, "eve"], seed=1)
    issued = store.ledger.audit()["issued"]
    # bo pays ann 12 for a self-drawn win, cai pays dan 6; eve bet on ann (seat 0) and repeats her entry
    transfers = (Transfer("bo", "ann", 12, "zimo"), Transfer("cai", "dan", 6, "hu"),
                 Transfer("bo", "eve", 12, "jiao_ma", "zimo"))
    result = HandResult(hand_no=1, seed=1, dealer=0, seating=seats, bets=(BystanderBet("eve", 0, 0),),
                        transfers=transfers, items=(), escaped=(), next_dealer=None, record={})
    settled = store.settle_hand(match_id, result)
    assert settled.changes == {"ann": 117, "bo": -243, "cai": -63, "dan": 57, "eve": 120}
    assert settled.fees["eve"] == 0 and sum(settled.changes.values()) == -settled.house == -4 * 3
    [line] = store.ledger.wallet("eve")[:1]
    assert (line.reason, line.amount, line.room, line.hand_no) == ("jiao_ma", 120, "five", 1)
    assert [w.reason for w in store.ledger.wallet("ann")[:2]] == ["winnings", "fee"]
    assert {r for _, r, _ in store.ledger.postings("eve")} == {"grant", "winnings"}
    totals = store.ledger.audit()
    assert totals["issued"] == issued and totals["players"] + totals["house"] == issued


def test_a_bettor_short_at_the_deal_bets_on_nothing(make_app: Callable[..., Any],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The balance is read again at the deal: coins spent meanwhile (at another table) can leave a
    bettor under the room's minimum; it is told so and the hand is dealt without it."""
    app = make_app(**FAST)
    owner = Client(app, "olu")
    code = owner.http.post("/api/quickstart", json=QUICK).json()["code"]
    eve = Client(app, "eve")
    eve.connect(code, watch=True)
    eve.wait_for(lambda m: m["type"] == "room")
    assert _ask(eve)["type"] == "ok"
    bank = app.state.bank
    real = bank.account

    def spent(player: str) -> Account | None:  # eve's coins went elsewhere meanwhile
        found = real(player)
        return Account(player, player, 0) if player == "eve" else found

    monkeypatch.setattr(bank, "account", spent)
    owner.connect(code)
    refused = _answer(eve)
    assert refused["code"] == "insufficient_balance" and refused["type"] == "error"
    owner.wait_for(lambda m: m["type"] == "state")
    table = table_of(app, code)
    assert table.hand is not None and table.hand.bets == () and table.hand.game.live == 55
    assert not [m for m in eve.drain() if m["type"] == "jiao_ma"]
    for c in (owner, eve):
        c.close()


SEATS = ("ann", "bo", "cai", "dan")


@settings(max_examples=200)
@given(entries=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(1, 96)), max_size=12),
       bets=st.lists(st.integers(0, 3), max_size=4),
       balances=st.lists(st.integers(0, 5_000), min_size=8, max_size=8),
       coefficient=st.integers(0, 50), fee=st.integers(0, 300))
def test_bets_never_make_a_hands_coins_sum_to_anything_but_the_fees(
    entries: list[tuple[int, int, int]], bets: list[int], balances: list[int], coefficient: int, fee: int
) -> None:
    """Whatever the seats paid each other, whoever bets on whom, and however little anyone holds
    (扣尽): the coins sum to minus the fees the seats paid, a bystander pays none, nobody goes below zero."""
    seat_transfers = [Transfer(SEATS[a], SEATS[b], pts, "hu") for a, b, pts in entries if a != b]
    people = [f"by{k}" for k in range(len(bets))]
    placed = [BystanderBet(p, 1, seat) for p, seat in zip(people, bets, strict=True)]
    transfers = seat_transfers + mirror_for_bystanders(seat_transfers, SEATS, placed)
    result = HandResult(hand_no=1, seed=1, dealer=0, seating=SEATS, bets=tuple(placed), transfers=tuple(transfers),
                        items=(), escaped=(), next_dealer=None, record={})
    held = dict(zip((*SEATS, *people), balances, strict=False))
    coins = result.coins(RoomConfig(coefficient=coefficient, fee=fee), held)
    assert sum(coins.changes) == -sum(coins.fees)
    assert coins.fees[4:] == (0,) * len(people)
    assert all(held[p] + c >= 0 for p, c in zip(result.participants, coins.changes, strict=True))
    # each bet repeats its seat's own entries of the hand (what other bets pay that seat is not repeated)
    points = result.points()
    own = {p: sum(t.points for t in seat_transfers if t.payee == p) - sum(t.points for t in seat_transfers
                                                                          if t.payer == p) for p in SEATS}
    assert all(points[b.player] == own[SEATS[b.seat]] for b in placed)


def test_a_request_between_hands_survives_a_restart(tmp_path: Path, serve: Callable[..., Any]) -> None:
    db = f"sqlite:///{tmp_path / 'jiaoma-between.sqlite3'}"
    app = serve(db, **FAST)
    owner = Client(app, "olu")
    code = owner.http.post("/api/quickstart", json=QUICK).json()["code"]
    eve, fay = Client(app, "eve"), Client(app, "fay")
    owner.connect(code)
    owner.wait_for(lambda m: m["type"] == "hand_end", timeout=60)  # the stand-in plays it: the clocks are short
    for c in (eve, fay):
        c.connect(code, watch=True)
        c.wait_for(lambda m: m["type"] == "room")
        assert _ask(c)["type"] == "ok"  # between hands, for hand 2
    assert table_of(app, code).status is Status.BETWEEN
    assert app.state.bank.store.rooms.room_meta(code)["next_deal"] == {
        "match": table_of(app, code).match_key, "hand": 2, "items": [], "jiao_ma": ["eve", "fay"]}
    stop(app)

    again = serve(db, **FAST)
    table = table_of(again, code)
    assert table.status is Status.BETWEEN and table.jiao_ma.asked == ["eve", "fay"]
    eve2, owner2 = Back(again, eve), Back(again, owner)
    eve2.connect(code, watch=True)  # eve comes back; fay does not
    room = eve2.wait_for(lambda m: m["type"] == "room")["room"]
    assert room["bystanders"] == ["eve", "fay"]
    owner2.connect(code)
    mine = eve2.wait_for(lambda m: m["type"] == "jiao_ma", timeout=60)
    assert table.hand is not None and table.hand.hand_no == 2
    [bet] = table.hand.bets  # fay, not back by the deal, bets on nothing
    assert (bet.player, tile_name(bet.tile), bet.seat) == ("eve", mine["tile"], mine["seat"])
    end = eve2.wait_for(lambda m: m["type"] == "hand_end", timeout=60)
    [shown] = end["bystanders"]
    assert shown["name"] == "eve" and again.state.bank.account("eve").balance == 20_000 + shown["coins"]
    assert again.state.bank.account("fay").balance == 20_000
    assert table.jiao_ma.asked == []
    _audit(again)
