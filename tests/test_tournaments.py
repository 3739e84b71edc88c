"""Tournaments (比赛): the config, the schedule, seating and standings, the coins (entries,
refunds, prizes, and the audit that checks them), and whole tournaments on an in-process
server, carried on across a restart."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select, update
from sqlalchemy.orm import Session
from starlette.testclient import TestClient
from test_server import Client

from xuezhan.errors import XuezhanError
from xuezhan.ids import ErrorCode
from xuezhan.match import ItemKind, RoomConfig
from xuezhan.server import ServerConfig, create_app
from xuezhan.server.tournament_config import TournamentConfig, tournaments_from
from xuezhan.server.tournaments import (
    Held,
    TournamentTable,
    first_round_order,
    seat_tables,
    standings,
    table_sizes,
)
from xuezhan.store import Store, StoreError
from xuezhan.store.models import CoinTransfer, HandRow, MatchRow, Room, TournamentRow

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

WAIT = 90.0
FAST = {"turn_timeout": 0.02, "claim_timeout": 0.02, "choice_timeout": 0.02, "next_hand_delay": 0.02,
        "restart_grace": 0.0}
"""Nobody is connected to the tables here: each absent person's decision is the stand-in's at once."""


def tournament(**fields: Any) -> TournamentConfig:
    data: dict[str, Any] = {"id": "t", "name": "测试赛", "starts": "2026-12-02T20:00:00+08:00", "entry": 100,
                            "rounds": 2, "hands_per_round": 1, "prizes": [1000, 500]}
    data.update(fields)
    return TournamentConfig.from_mapping(data)


# --- the config -------------------------------------------------------------------------------------------
def test_a_config_file_holds_tournaments(tmp_path: Path) -> None:
    path = tmp_path / "server.toml"
    path.write_text("""
[server]
bot_delay = 0.1

[[tournament]]
id = "evening"
name = "晚间赛"
starts = "2026-12-02T20:00:00+08:00"
entry = 500
rounds = 3
hands_per_round = 4
preset = "chengdu"
options = { exchange_three = "random" }
prizes = [3000, 1500, 500]

[[tournament]]
id = "half-hourly"
starts = "every 30m"
entry = "match_ticket"
""", encoding="utf-8")
    config = ServerConfig.from_file(path)
    assert config.bot_delay == 0.1
    evening, half = config.tournaments
    assert (evening.id, evening.name, evening.entry, evening.rounds, evening.hands_per_round) == (
        "evening", "晚间赛", 500, 3, 4)
    assert evening.prizes == (3000, 1500, 500) and evening.min_players == 4
    assert evening.room.rules.preset_name == "chengdu" and evening.room.rules.exchange_three == "random"
    assert (evening.room.coefficient, evening.room.fee, evening.room.hands) == (0, 0, 4)  # points, not coins
    assert evening.at == datetime(2026, 12, 2, 12, tzinfo=UTC)
    assert half.entry == "match_ticket" and half.every == timedelta(minutes=30) and half.name == "half-hourly"


@pytest.mark.parametrize(("fields", "says"), [
    ({"id": "Bad Id"}, "id must be"),
    ({"starts": "2026-12-02T20:00:00"}, "needs its offset"),
    ({"starts": "tomorrow"}, "neither an ISO 8601"),
    ({"starts": "every 0m"}, "period"),
    ({"entry": -5}, "entry must be"),
    ({"entry": "gold"}, "entry must be"),
    ({"rounds": 0}, "rounds must be"),
    ({"hands_per_round": True}, "hands_per_round must be"),
    ({"preset": "tokyo"}, "preset must be"),
    ({"options": {"no_such_option": 1}}, "options:"),
    ({"prizes": [100, -1]}, "prizes must be"),
    ({"min_players": 1}, "min_players must be"),
    ({"min_players": 9, "max_players": 8}, "min_players must be"),
    ({"colour": "red"}, "unknown key"),
])
def test_a_bad_tournament_is_bad_config_saying_what(fields: dict[str, Any], says: str) -> None:
    with pytest.raises(XuezhanError) as err:
        tournament(**fields)
    assert err.value.code == ErrorCode.BAD_CONFIG and says in err.value.message


def test_tournament_ids_are_unique_and_the_server_limits_apply(tmp_path: Path) -> None:
    with pytest.raises(XuezhanError, match="used twice"):
        tournaments_from([{"id": "a", "starts": "every 1h"}, {"id": "a", "starts": "every 2h"}])
    with pytest.raises(XuezhanError, match="array of tables"):
        tournaments_from({"id": "a"})
    path = tmp_path / "server.toml"
    path.write_text('[server]\nmax_hands = 2\n[[tournament]]\nid = "long"\nstarts = "every 1h"\n'
                    'hands_per_round = 3\n', encoding="utf-8")
    with pytest.raises(XuezhanError, match="tournament 'long': hands 3 is over"):
        ServerConfig.from_file(path)
    with pytest.raises(XuezhanError, match="unknown server setting"):
        ServerConfig.from_mapping({"tournaments": []})


# --- the schedule -----------------------------------------------------------------------------------------
def test_a_tournament_held_once_opens_until_its_start() -> None:
    t = tournament()
    start = datetime(2026, 12, 2, 12, tzinfo=UTC)
    assert t.next_start(start - timedelta(seconds=1)) == start
    assert t.next_start(start) is None
    assert t.instance_id(start) == "t"


def test_every_30m_starts_on_the_half_hours_utc_each_with_its_own_id() -> None:
    t = tournament(starts="every 30m")
    assert t.next_start(datetime(2026, 12, 2, 3, 14, tzinfo=UTC)) == datetime(2026, 12, 2, 3, 30, tzinfo=UTC)
    assert t.next_start(datetime(2026, 12, 2, 3, 30, tzinfo=UTC)) == datetime(2026, 12, 2, 4, 0, tzinfo=UTC)
    shanghai = datetime(2026, 12, 2, 11, 59, tzinfo=UTC).astimezone(timezone(timedelta(hours=8)))
    assert t.next_start(shanghai) == datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
    assert t.instance_id(datetime(2026, 12, 2, 4, 0, tzinfo=UTC)) == "t-202612020400"
    assert tournament(starts="every 2h").next_start(datetime(2026, 12, 2, 3, 0, tzinfo=UTC)) == datetime(
        2026, 12, 2, 4, 0, tzinfo=UTC)


# --- seating and standings --------------------------------------------------------------------------------
@pytest.mark.parametrize(("n", "sizes"), [(1, [1]), (4, [4]), (5, [3, 2]), (6, [3, 3]), (8, [4, 4]), (9, [3, 3, 3]),
                                          (13, [4, 3, 3, 3])])
def test_entrants_sit_at_as_few_tables_as_can_hold_them_as_evenly_as_can_be(n: int, sizes: list[int]) -> None:
    assert table_sizes(n) == sizes
    names = [f"p{i}" for i in range(n)]
    tables = seat_tables(names)
    assert [len(t) for t in tables] == sizes and [p for t in tables for p in t] == names


def test_standings_by_points_then_the_better_last_round_then_the_round_before_then_entry() -> None:
    entrants = ["a", "b", "c", "d", "e"]
    rounds = [{"a": 10, "b": 30, "c": 20, "d": 0, "e": 20},
              {"a": 20, "b": 0, "c": 10, "d": 30, "e": 10}]
    ranked = standings(entrants, rounds)
    # a, b, c, d all have 30: d's last round (30) beats a's (20), c's (10), b's (0); c and e tie on
    # everything but the entry order
    assert [(s.name, s.points, s.place) for s in ranked] == [
        ("d", 30, 1), ("a", 30, 2), ("c", 30, 3), ("e", 30, 4), ("b", 30, 5)]
    assert [s.place for s in standings(["x", "y"], [])] == [1, 2]
    three = standings(["a", "b"], [{"a": 5, "b": 5}, {"a": 0, "b": 0}, {"a": 1, "b": 1}])
    assert [s.name for s in three] == ["a", "b"]  # equal in every round: the earlier entrant
    earlier = standings(["a", "b"], [{"a": 4, "b": 6}, {"a": 1, "b": 1}, {"a": 1, "b": -1}])
    assert [s.name for s in earlier] == ["a", "b"]  # 6 each; a's last round is better


def test_later_rounds_seat_by_the_standings() -> None:
    held = Held.new(tournament(rounds=3), datetime(2026, 12, 2, tzinfo=UTC))
    held.status = "running"
    held.paid = [f"p{i}" for i in range(8)]
    held.round = 1
    held.points = [{f"p{i}": i for i in range(8)}]
    order = [s.name for s in held.standings()]
    assert order == [f"p{i}" for i in reversed(range(8))]
    assert seat_tables(order) == [["p7", "p6", "p5", "p4"], ["p3", "p2", "p1", "p0"]]
    first = first_round_order("t", held.paid)
    assert first == first_round_order("t", held.paid) and sorted(first) == held.paid  # drawn, and again the same


# --- the coins ---------------------------------------------------------------------------------------------
def open_tournament(store: Store, key: str, entrants: list[str], entry: int | str = 100,
                    prizes: list[int] | None = None) -> None:
    store.tournaments.save(key, "open", datetime(2026, 12, 2, tzinfo=UTC),
                           {"entrants": entrants, "entry": entry, "prizes": prizes or [1000, 500]})


def test_too_few_who_can_pay_cancel_it_and_every_entry_is_refunded(store: Store) -> None:
    for name, coins in (("a", 500), ("b", 500), ("c", 50)):
        store.accounts.create_account(name, coins)
    open_tournament(store, "t1", ["a", "b", "c"])
    status, paid = store.tournaments.start("t1", 3)
    assert (status, paid) == ("cancelled", ["a", "b"])  # c could not pay: left out, so too few
    assert store.ledger.balances(["a", "b", "c"]) == {"a": 500, "b": 500, "c": 50}
    assert [(r, a) for _, r, a in store.ledger.postings("a")] == [("grant", 500), ("entry", -100), ("refund", 100)]
    assert store.tournaments.start("t1", 3) == ("cancelled", ["a", "b"])  # again: nothing moves
    store.tournaments.cancel("t1")
    assert store.ledger.balance("a") == 500
    totals = store.audit()
    assert (totals["entries"], totals["refunds"], totals["prizes"], totals["house"]) == (200, 200, 0, 0)


def test_a_ticket_entry_spends_the_card_and_a_cancellation_gives_it_back(store: Store) -> None:
    for name in ("a", "b"):
        store.accounts.create_account(name, 100)
    store.ledger.grant_items("a", ItemKind.MATCH_TICKET, 2)
    open_tournament(store, "t2", ["a", "b"], entry="match_ticket")
    assert store.tournaments.start("t2", 2) == ("cancelled", ["a"])  # b holds no ticket
    assert store.ledger.items("a") == {ItemKind.MATCH_TICKET: 2}
    open_tournament(store, "t3", ["a"], entry="match_ticket")
    assert store.tournaments.start("t3", 1) == ("running", ["a"])
    assert store.ledger.items("a") == {ItemKind.MATCH_TICKET: 1}
    store.tournaments.finish("t3", {"a": 1})
    totals = store.audit()
    assert totals["prizes"] == 1000 and store.ledger.balance("a") == 1100


def test_prizes_go_by_place_from_the_mint_once_and_the_books_balance(store: Store) -> None:
    for name in ("a", "b", "c", "d"):
        store.accounts.create_account(name, 1000)
    open_tournament(store, "t4", ["a", "b", "c", "d"], entry=100, prizes=[700, 300])
    assert store.tournaments.start("t4", 4) == ("running", ["a", "b", "c", "d"])
    before = store.audit()
    assert before["house"] == 400 and before["entries"] == 400
    with pytest.raises(StoreError):
        store.tournaments.finish("t4", {"a": 1, "b": 1, "c": 2, "d": 3})  # places are 1..N, each once
    won = store.tournaments.finish("t4", {"c": 1, "a": 2, "d": 3, "b": 4})
    assert won == {"c": 700, "a": 300}
    assert store.tournaments.finish("t4", {"c": 1, "a": 2, "d": 3, "b": 4}) == won  # again: nothing paid twice
    assert store.ledger.balances(["a", "b", "c", "d"]) == {"a": 1200, "b": 900, "c": 1600, "d": 900}
    after = store.audit()
    assert after["prizes"] == 1000 and after["issued"] == before["issued"] + 1000
    assert after["players"] + after["house"] == after["issued"]
    with pytest.raises(StoreError, match="is finished"):
        store.tournaments.save("t4", "running", datetime(2026, 12, 2, tzinfo=UTC), {})


def test_the_audit_finds_a_prize_or_an_entry_that_does_not_fit(store: Store) -> None:
    for name in ("a", "b"):
        store.accounts.create_account(name, 1000)
    open_tournament(store, "t5", ["a", "b"], entry=100, prizes=[500])
    store.tournaments.start("t5", 2)
    store.tournaments.finish("t5", {"a": 1, "b": 2})
    store.audit()
    with Session(store.engine) as s, s.begin():  # a prize of a place that has another amount
        s.execute(update(CoinTransfer).where(CoinTransfer.reason == "prize").values(key="tournament/t5/prize/2"))
    with pytest.raises(StoreError, match="prize"):
        store.audit()
    with Session(store.engine) as s, s.begin():
        s.execute(update(CoinTransfer).where(CoinTransfer.reason == "prize").values(key="tournament/t5/prize/1"))
        s.execute(update(CoinTransfer).where(CoinTransfer.reason == "entry").values(reason="refund"))
    with pytest.raises(StoreError, match=r"does not fit|refund"):
        store.audit()


def test_the_audit_finds_an_entry_that_went_elsewhere_than_the_house(store: Store) -> None:
    store.accounts.create_account("a", 1000)
    open_tournament(store, "t6", ["a"], entry=100)
    store.tournaments.start("t6", 1)
    with Session(store.engine) as s, s.begin():
        s.execute(update(CoinTransfer).where(CoinTransfer.reason == "entry").values(reason="prize"))
    with pytest.raises(StoreError, match="goes from player to house, not mint to player"):
        store.ledger.audit()


def test_a_rounds_rooms_are_found_by_their_metadata(store: Store) -> None:
    room = RoomConfig.from_mapping({})
    for name, meta in (("R1T0", {"tournament": "cup", "round": 1, "table": 0}),
                       ("R1T1", {"tournament": "cup", "round": 1, "table": 1}),
                       ("R2T0", {"tournament": "cup", "round": 2, "table": 0}),
                       ("MUG1", {"tournament": "mug", "round": 1, "table": 0}),
                       ("OLD1", {"tournament": "cup", "round": 1}),  # no table number: not taken up
                       ("PLAIN", {"name": "a room"})):
        store.rooms.create_room(name, room, meta)
    store.rooms.create_room("BARE", room)
    store.rooms.create_room("AGAIN", room, {"tournament": "cup", "round": 2, "table": 0})  # opened after R2T0
    assert store.tournaments.round_rooms("cup", 1) == {0: "R1T0", 1: "R1T1"}
    assert store.tournaments.round_rooms("cup", 2) == {0: "R2T0"}
    assert store.tournaments.round_rooms("mug", 1) == {0: "MUG1"}
    assert store.tournaments.round_rooms("cup", 3) == {}


# --- on a server -------------------------------------------------------------------------------------------
@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[..., Any]]:
    apps: list[Any] = []

    def build(db: str, *tournaments: TournamentConfig, **overrides: Any) -> Any:
        app = create_app(db, config=ServerConfig.fast(**{**FAST, **overrides}, tournaments=tournaments))
        runner = TestClient(app)
        runner.__enter__()
        app.state.runner = runner
        app.state.clients = []
        apps.append(app)
        return app

    yield build
    for app in apps:
        stop(app)


def stop(app: Any) -> None:
    """Stop the app as a crash would: the tables and the tournaments stop first, then the lifespan."""
    if getattr(app.state, "stopped", False):
        return
    app.state.stopped = True
    app.state.runner.portal.call(app.state.lobby.close)
    for client in app.state.clients:
        client.close()
    app.state.runner.__exit__(None, None, None)


def soon(seconds: float = 1.5) -> str:
    return (datetime.now(UTC) + timedelta(seconds=seconds)).isoformat()


def wait_until(app: Any, tid: str, pred: Callable[[dict[str, Any]], bool], timeout: float = WAIT) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        r = app.state.runner.get(f"/api/tournaments/{tid}")
        assert r.status_code == 200, r.text
        body: dict[str, Any] = r.json()
        if pred(body):
            return body
        assert time.monotonic() < deadline, body
        time.sleep(0.05)


def test_a_tournament_from_entries_to_prizes(serve: Callable[..., Any], tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'cup.sqlite3'}"
    app = serve(db, tournament(id="cup", starts=soon(4), entry=300, prizes=[2000, 1000, 500]))
    people = [Client(app, name) for name in ("ann", "bo", "cai", "dee", "eve")]
    listed = app.state.runner.get("/api/tournaments").json()
    assert [(t["id"], t["status"], t["entrants"]) for t in listed] == [("cup", "open", [])]
    for p in people:
        r = p.http.post("/api/tournaments/cup/join")
        assert r.status_code == 200, r.text
    assert r.json() == {"id": "cup", "entrants": ["ann", "bo", "cai", "dee", "eve"]}
    r = people[4].http.runner.delete("/api/tournaments/cup/join", headers=people[4].http._headers())
    assert r.json()["entrants"] == ["ann", "bo", "cai", "dee"]
    assert people[4].http.post("/api/tournaments/cup/join").status_code == 200  # back in, at the end
    assert app.state.runner.get("/api/tournaments/nope").status_code == 404
    r = app.state.runner.post("/api/tournaments/cup/join")
    assert r.status_code == 401

    running = wait_until(app, "cup", lambda b: b["status"] == "running" and len(b["tables"]) == 2)
    assert running["round"] == 1  # five: a table of 3 and one of 2, bots fill
    first = app.state.lobby.tournaments.held["cup"].plan[0]
    assert [len(t) for t in first] == [3, 2]
    late = people[0].http.post("/api/tournaments/cup/join")
    assert late.status_code == 409 and late.json()["error"]["code"] == "tournament_closed"
    mine = people[0].http.get("/api/tournaments/cup").json()["table"]
    assert mine in running["tables"]
    table = app.state.lobby.tables[mine]
    assert isinstance(table, TournamentTable) and table.room.coefficient == 0
    assert sum(1 for p in table.players if p is not None and p.startswith("bot:")) >= 1
    assert table.out.room_message()["room"]["tournament"] == "cup"  # the page's way back to the standings
    assert table.meta()["tournament"] == "cup"

    done = wait_until(app, "cup", lambda b: b["status"] == "finished")
    held = app.state.lobby.tournaments.held["cup"]
    assert done["round"] == 2 and len(held.points) == 2
    # round 2 sat by the standings after round 1
    assert [p for t in held.plan[1] for p in t] == [s.name for s in standings(held.paid, held.points[:1])]
    ranked = done["standings"]
    assert [s["place"] for s in ranked] == [1, 2, 3, 4, 5]
    assert sorted(s["name"] for s in ranked) == ["ann", "bo", "cai", "dee", "eve"]  # no bot is ranked
    assert [s["prize"] for s in ranked] == [2000, 1000, 500, 0, 0]
    totals = [s["points"] for s in ranked]
    assert totals == sorted(totals, reverse=True)
    store = Store(db)
    try:
        by_name = {s["name"]: s for s in ranked}
        with Session(store.engine) as s:  # each round's tables played their one hand, settled once
            rooms = s.execute(select(Room.name, MatchRow.status, MatchRow.hands_played)
                              .join(MatchRow, MatchRow.room_id == Room.id)).all()
            assert len(rooms) == 4 and all(st == "finished" and n == 1 for _, st, n in rooms)
            prize_payees = s.scalars(select(CoinTransfer.memo).where(CoinTransfer.reason == "prize")).all()
            assert len(prize_payees) == 3
        for name, s in by_name.items():
            assert store.ledger.balance(name) == 20_000 - 300 + s["prize"]  # points at the tables move no coins
        for bot in ("bot:1", "bot:2", "bot:3", "bot:4"):
            assert all(reason != "prize" for _, reason, _ in store.ledger.postings(bot))
        totals_ = store.audit()
        assert (totals_["entries"], totals_["refunds"], totals_["prizes"]) == (1500, 0, 3500)
        assert totals_["players"] + totals_["house"] == totals_["issued"]
    finally:
        store.close()
    wallet = people[0].http.get("/api/wallet").json()["ledger"]
    assert {e["reason"] for e in wallet} >= {"entry"}
    assert any("cup" in e["text"] for e in wallet if e["reason"] == "entry")


def test_too_few_entrants_cancel_it_and_refund_them(serve: Callable[..., Any], tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'few.sqlite3'}"
    app = serve(db, tournament(id="few", starts=soon(3), entry=300))
    people = [Client(app, name) for name in ("ann", "bo", "cai")]
    for p in people:
        assert p.http.post("/api/tournaments/few/join").status_code == 200
    done = wait_until(app, "few", lambda b: b["status"] == "cancelled")
    assert done["tables"] == [] and not app.state.lobby.tables
    store = Store(db)
    try:
        assert store.ledger.balances(["ann", "bo", "cai"]) == {"ann": 20_000, "bo": 20_000, "cai": 20_000}
        assert store.audit()["refunds"] == 900
    finally:
        store.close()


def test_entries_that_cannot_be_paid_are_refused(serve: Callable[..., Any], tmp_path: Path) -> None:
    app = serve(f"sqlite:///{tmp_path / 'x.sqlite3'}", tournament(id="rich", starts=soon(60), entry=50_000),
                tournament(id="ticket", starts=soon(60), entry="match_ticket"),
                tournament(id="small", starts=soon(60), entry=0, min_players=2, max_players=2))
    ann = Client(app, "ann")
    r = ann.http.post("/api/tournaments/rich/join")
    assert (r.status_code, r.json()["error"]["code"]) == (403, "insufficient_balance")
    r = ann.http.post("/api/tournaments/ticket/join")
    assert (r.status_code, r.json()["error"]["code"]) == (409, "no_ticket")
    for name in ("bo", "cai"):
        assert Client(app, name).http.post("/api/tournaments/small/join").status_code == 200
    r = ann.http.post("/api/tournaments/small/join")
    assert (r.status_code, r.json()["error"]["code"]) == (409, "tournament_full")


def test_a_running_tournament_survives_a_restart(serve: Callable[..., Any], tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'restart.sqlite3'}"
    cup = tournament(id="cup", starts=soon(3), entry=100, rounds=2, hands_per_round=2, prizes=[900, 100])
    # the first life: slow enough that the stop lands in round 1's hands
    app = serve(db, cup, bot_delay=0.05)
    for name in ("ann", "bo", "cai", "dee"):
        assert Client(app, name).http.post("/api/tournaments/cup/join").status_code == 200
    running = wait_until(app, "cup", lambda b: b["status"] == "running" and bool(b["tables"]))
    code = running["tables"][0]
    deadline = time.monotonic() + WAIT
    while app.state.lobby.tables[code].hand is None:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    stop(app)
    store = Store(db)
    try:
        with Session(store.engine) as s:
            row = s.scalars(select(TournamentRow).where(TournamentRow.key == "cup")).one()
            assert row.status == "running" and row.state["round"] == 1
            assert s.scalar(select(MatchRow.status).join(Room, Room.id == MatchRow.room_id)
                            .where(Room.name == code)) == "running"
    finally:
        store.close()

    again = serve(db, cup)
    table = again.state.lobby.tables[code]
    assert isinstance(table, TournamentTable) and table.tournament == "cup"  # carried on as a table of the cup
    assert table.out.room_message()["room"]["tournament"] == "cup"
    done = wait_until(again, "cup", lambda b: b["status"] == "finished")
    assert [s["place"] for s in done["standings"]] == [1, 2, 3, 4]
    assert [s["prize"] for s in done["standings"]] == [900, 100, 0, 0]
    store = Store(db)
    try:
        with Session(store.engine) as s:
            matches = s.execute(select(MatchRow.id, MatchRow.status, MatchRow.hands_played)).all()
            assert len(matches) == 2 and all(st == "finished" and n == 2 for _, st, n in matches)
            hands = s.execute(select(HandRow.match_id, HandRow.hand_no).order_by(HandRow.id)).all()
            assert sorted(hands) == sorted({(m, n) for m, _, _ in matches for n in (1, 2)})  # each once
            assert len(s.scalars(select(CoinTransfer.id).where(CoinTransfer.reason == "entry")).all()) == 4
        totals = store.audit()
        assert (totals["entries"], totals["prizes"]) == (400, 1000)
    finally:
        store.close()


def test_a_tournament_that_cannot_open_its_tables_is_cancelled_and_refunded(serve: Callable[..., Any],
                                                                          tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'full.sqlite3'}"
    app = serve(db, tournament(id="full", starts=soon(3), entry=300), max_rooms=0)
    for name in ("ann", "bo", "cai", "dee"):
        assert Client(app, name).http.post("/api/tournaments/full/join").status_code == 200
    done = wait_until(app, "full", lambda b: b["status"] == "cancelled")
    assert done["tables"] == [] and not app.state.lobby.tables
    store = Store(db)
    try:
        assert set(store.ledger.balances(["ann", "bo", "cai", "dee"]).values()) == {20_000}
        totals = store.audit()
        assert (totals["entries"], totals["refunds"], totals["house"]) == (1200, 1200, 0)
    finally:
        store.close()


def test_a_table_opened_just_before_a_stop_is_taken_up_not_opened_twice(serve: Callable[..., Any],
                                                                        tmp_path: Path) -> None:
    """A stop between opening a round's room and writing its code into the tournament's state: the
    next life finds the room by its metadata (tournament, round, table) and plays that one."""
    db = f"sqlite:///{tmp_path / 'cut.sqlite3'}"
    cup = tournament(id="cup", starts=soon(3), entry=100, rounds=2, hands_per_round=1, prizes=[900, 100])
    app = serve(db, cup, bot_delay=0.05)
    for name in ("ann", "bo", "cai", "dee"):
        assert Client(app, name).http.post("/api/tournaments/cup/join").status_code == 200
    code = wait_until(app, "cup", lambda b: b["status"] == "running" and bool(b["tables"]))["tables"][0]
    assert app.state.lobby.tables[code].meta()["table"] == 0
    stop(app)
    store = Store(db)
    try:
        with Session(store.engine) as s, s.begin():  # as if the stop came before the code was written
            row = s.scalars(select(TournamentRow).where(TournamentRow.key == "cup")).one()
            state = dict(row.state)
            assert state["round"] == 1 and state["tables"] == [[code]]
            row.state = {**state, "tables": [[]]}
        assert store.tournaments.round_rooms("cup", 1) == {0: code}
        assert store.tournaments.round_rooms("cup", 2) == {} and store.tournaments.round_rooms("mug", 1) == {}
    finally:
        store.close()

    again = serve(db, cup)
    done = wait_until(again, "cup", lambda b: b["status"] == "finished")
    assert [s["prize"] for s in done["standings"]] == [900, 100, 0, 0]
    assert again.state.lobby.tournaments.held["cup"].tables[0] == [code]
    store = Store(db)
    try:
        with Session(store.engine) as s:
            matches = s.execute(select(MatchRow.status, MatchRow.hands_played)).all()
            assert matches == [("finished", 1), ("finished", 1)]  # one table a round, not a second for round 1
        assert store.tournaments.round_rooms("cup", 2).keys() == {0}
    finally:
        store.close()
