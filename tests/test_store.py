"""The store on SQLite and on a real PostgreSQL server (started here, on loopback; never skipped).

Every test that takes ``store`` or ``url`` runs twice: on a SQLite file and on a fresh
database of a PostgreSQL server that the test session starts itself
(:mod:`xuezhan.store.pgtemp`). If that server cannot start, those tests fail.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect, text
from sqlalchemy.exc import IntegrityError
from together import all_at_once

from xuezhan.bots import make_bot
from xuezhan.match import HandResult, ItemKind, Match, MatchError, RoomConfig, Transfer
from xuezhan.records import parse_record, replay
from xuezhan.rules import Rules
from xuezhan.runtime.incidents import play_match_hand
from xuezhan.store import (
    HOUSE,
    MINT,
    Store,
    StoreError,
    current_revision,
    default_url,
    downgrade,
    head_revision,
    make_engine,
    migrate,
    normalise_url,
)
from xuezhan.store.models import Base
from xuezhan.store.pgtemp import TempPostgres

TABLES = ("accounts", "balances", "rooms", "matches", "hands", "settlements", "hand_points", "coin_transfers",
          "postings", "item_stock", "item_spends", "item_purchases", "hand_logs", "hand_actions", "tournaments")


def counts(store: Store) -> dict[str, Any]:
    """Every row count and every balance: a settlement that failed must leave this unchanged."""
    with store.engine.connect() as conn:
        out: dict[str, Any] = {t: conn.execute(text(f"SELECT COUNT(*) FROM {t}")).scalar_one() for t in TABLES}
        out["balances"] = sorted(tuple(r) for r in conn.execute(text("SELECT account_id, coins FROM balances")))
        out["matches"] = sorted(tuple(r) for r in conn.execute(text("SELECT id, hands_played, status FROM matches")))
    return out


def synthetic(hand_no: int, seating: tuple[str, ...], transfers: list[Transfer]) -> HandResult:
    return HandResult(hand_no=hand_no, seed=hand_no, dealer=0, seating=seating, bets=(), transfers=tuple(transfers),
                      items=(), escaped=(), next_dealer=None, record={"note": "synthetic"})


def zimo_54(hand_no: int, players: tuple[str, ...]) -> HandResult:
    """002's example: one winner +54 against three losers of -18."""
    return synthetic(hand_no, players, [Transfer(p, players[0], 18, "zimo") for p in players[1:]])


# --- the server and the schema --------------------------------------------------------------------------------


def test_postgres_really_runs_on_loopback(postgres: TempPostgres) -> None:
    engine = make_engine(postgres.url())
    try:
        with engine.connect() as conn:
            assert engine.dialect.name == "postgresql"
            assert conn.execute(text("SELECT version()")).scalar_one().startswith("PostgreSQL")
            assert conn.execute(text("SELECT inet_server_addr()::text")).scalar_one().startswith("127.0.0.1")
    finally:
        engine.dispose()


def test_a_killed_test_run_leaves_no_server_behind() -> None:
    code = ("from xuezhan.store.pgtemp import TempPostgres; import time; "
            "print(TempPostgres().start().dir, flush=True); time.sleep(120)")
    owner = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert owner.stdout is not None
    top = Path(owner.stdout.readline().strip())
    postmaster = int((top / "data" / "postmaster.pid").read_text().split()[0])
    owner.kill()  # no atexit, no stop(): the watchdog must clean up
    owner.wait()
    for _ in range(100):
        if not top.exists() and not _alive(postmaster):
            break
        time.sleep(0.1)
    assert not top.exists() and not _alive(postmaster)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_migrations_make_the_models_schema(url: str) -> None:
    engine = make_engine(url)
    try:
        assert current_revision(engine) is None
        migrate(engine)
        assert current_revision(engine) == head_revision() == "0011"
        migrate(engine)  # a second run does nothing
        with engine.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}), Base.metadata)
            assert diff == []
            names = {r[0] for r in conn.execute(text("SELECT name FROM accounts"))}
            assert names == {"#house", "#mint", "#table"}
        downgrade(engine, "base")
        assert set(inspect(engine).get_table_names()) <= {"alembic_version"}
        migrate(url)  # by URL
        assert set(TABLES) <= set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_connections_opening_a_new_sqlite_file_together_all_open(tmp_path: Path) -> None:
    """Every connection to a new file switches it to the write-ahead log; SQLite refuses all but
    one of those that do so at the same moment, at once, without its busy timeout."""
    def open_one(engine: Any) -> None:
        with engine.connect() as conn:
            assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"

    for round_no in range(30):
        url = f"sqlite:///{tmp_path / f'new{round_no}.sqlite3'}"
        engines = [make_engine(url) for _ in range(8)]
        errors = all_at_once(open_one, engines)
        for engine in engines:
            engine.dispose()
        assert not errors, errors


def test_servers_starting_together_migrate_once(url: str) -> None:
    errors = all_at_once(lambda _: Store(url).close(), range(5))
    assert not errors, errors
    s = Store(url)
    try:
        assert current_revision(s.engine) == head_revision()
        assert s.ledger.audit() == {"issued": 0, "house": 0, "players": 0, "shop": 0}
    finally:
        s.close()


def test_urls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XUEZHAN_DB", raising=False)
    assert default_url() == "sqlite:///xuezhan.sqlite3"
    monkeypatch.chdir(tmp_path)
    s = Store()
    try:
        s.accounts.create_account("solo", 5)
    finally:
        s.close()
    assert (tmp_path / "xuezhan.sqlite3").is_file()  # SQLite file by default
    monkeypatch.setenv("XUEZHAN_DB", "sqlite:///other.sqlite3")
    assert default_url() == "sqlite:///other.sqlite3"
    assert normalise_url("postgresql://u@h/db").drivername == "postgresql+psycopg"
    assert normalise_url("postgres://u@h/db").drivername == "postgresql+psycopg"
    assert normalise_url("sqlite://").drivername == "sqlite"


# --- accounts and coins -------------------------------------------------------------------------------------------


def test_accounts_grants_and_postings(store: Store) -> None:
    store.accounts.create_account("ann", 1000)
    store.accounts.create_account("bo")
    for bad in ("", "#house", "x" * 101):
        with pytest.raises(StoreError) as exc:
            store.accounts.create_account(bad)
        assert exc.value.code == "bad_name"
    with pytest.raises(StoreError) as exc:
        store.accounts.create_account("ann")
    assert exc.value.code == "account_exists"
    assert store.ledger.grant("bo", 50, key="welcome/bo")
    assert not store.ledger.grant("bo", 50, key="welcome/bo")  # once per key
    assert store.ledger.grant("bo", 7)
    with pytest.raises(StoreError):
        store.ledger.grant("bo", 0)
    with pytest.raises(StoreError) as exc:
        store.ledger.balance("nobody")
    assert exc.value.code == "unknown_account"
    assert store.ledger.balances(["ann", "bo"]) == {"ann": 1000, "bo": 57}
    assert [(r, a) for _, r, a in store.ledger.postings("bo")] == [("grant", 50), ("grant", 7)]
    assert store.ledger.balance(MINT) == -1057
    assert store.ledger.audit() == {"issued": 1057, "house": 0, "players": 1057, "shop": 0}


def test_an_account_is_made_with_its_opening_coins_or_not_at_all(store: Store) -> None:
    before = counts(store)
    with pytest.raises(StoreError) as exc:
        store.accounts.create_account("ann", -5)  # the ledger refuses the grant: the account goes too
    assert exc.value.code == "bad_amount"
    with pytest.raises(StoreError) as exc:
        store.accounts.create_player("Bo", "bo", 0.5)  # type: ignore[arg-type]
    assert exc.value.code == "bad_amount"
    assert counts(store) == before
    assert store.accounts.player("ann") is None and store.accounts.player_by_key("bo") is None
    store.accounts.create_account("ann", 5)
    store.accounts.create_player("Bo", "bo", 7)
    assert store.ledger.balances(["ann", "Bo"]) == {"ann": 5, "Bo": 7}
    bo = store.accounts.player("Bo")
    assert bo is not None and store.ledger.grant_made(f"start/{bo.id}")  # the opening grant, once by its key


def test_balances_cannot_go_negative_in_the_database(store: Store) -> None:
    store.accounts.create_account("ann", 10)
    with pytest.raises(IntegrityError), store.engine.begin() as conn:
        conn.execute(text("UPDATE balances SET coins = -1 WHERE account_id = "
                          "(SELECT id FROM accounts WHERE name = 'ann')"))
    assert store.ledger.balance("ann") == 10


# --- settling hands ----------------------------------------------------------------------------------------------

PLAYERS = ("ann", "bo", "cai", "dan")


def setup_match(store: Store, coins: int = 100_000, *, hands: int = 3, people: tuple[str, ...] = PLAYERS,
                n: int = 200, a: int = 400) -> tuple[int, Match]:
    for p in people:
        store.accounts.create_account(p, coins)
    store.rooms.create_room("r", RoomConfig(Rules.preset("qq"), coefficient=n, fee=a, hands=hands))
    return store.rooms.start_match("r", list(people), seed=1)


def test_settle_the_002_example(store: Store) -> None:
    match_id, _ = setup_match(store)
    settled = store.settle_hand(match_id, zimo_54(1, PLAYERS))
    assert settled.changes == {"ann": 10400, "bo": -4000, "cai": -4000, "dan": -4000}
    assert settled.house == 1600 and not settled.replayed
    assert store.ledger.balances(PLAYERS) == {"ann": 110400, "bo": 96000, "cai": 96000, "dan": 96000}
    assert store.ledger.balance(HOUSE) == 1600
    assert sorted((r, a) for _, r, a in store.ledger.postings("bo")) == [("fee", -400), ("grant", 100000),
                                                                        ("stake", -3600)]
    assert sorted((r, a) for _, r, a in store.ledger.postings("ann")) == [("fee", -400), ("grant", 100000),
                                                                          ("winnings", 10800)]
    assert store.ledger.audit() == {"issued": 400000, "house": 1600, "players": 398400, "shop": 0}


def test_a_settlement_tops_up_in_its_own_transaction_and_reads_the_balances_back(store: Store) -> None:
    # bo and cai hold less than half of 50,000: each is given what it lacks before it pays; dan does not
    for p, coins in (("ann", 100_000), ("bo", 20_000), ("cai", 24_999), ("dan", 25_000)):
        store.accounts.create_account(p, coins)
    store.rooms.create_room("r", RoomConfig(Rules.preset("qq"), coefficient=200, fee=400, hands=2))
    match_id, _ = store.rooms.start_match("r", list(PLAYERS), seed=1)
    floats = {"bo": 50_000, "cai": 50_000, "dan": 50_000}
    settled = store.settle_hand(match_id, zimo_54(1, PLAYERS), top_up=floats)
    assert settled.changes == {"ann": 10400, "bo": -4000, "cai": -4000, "dan": -4000}
    assert settled.balances == {"ann": 110400, "bo": 46000, "cai": 46000, "dan": 21000}
    assert settled.balances == store.ledger.balances(PLAYERS)
    assert sorted((r, a) for _, r, a in store.ledger.postings("cai")) == [("fee", -400), ("grant", 24_999),
                                                                         ("grant", 25_001), ("stake", -3600)]
    assert [r for _, r, _ in store.ledger.postings("dan")] == ["grant", "fee", "stake"]
    # a retry is told the same balances, and tops nobody up again
    again = store.settle_hand(match_id, zimo_54(1, PLAYERS), top_up=floats)
    assert again.replayed and again.balances == settled.balances
    assert store.ledger.audit() == {"issued": 169_999 + 30_000 + 25_001, "house": 1600, "players": 223_400, "shop": 0}


def test_settle_a_player_who_cannot_pay(store: Store) -> None:
    match_id, _ = setup_match(store)
    store.accounts.create_account("poor", 1000)
    store.rooms.create_room("r2", RoomConfig(Rules.preset("qq"), coefficient=200, fee=400, hands=1))
    match2, _ = store.rooms.start_match("r2", ["ann", "bo", "cai", "poor"], seed=2)
    settled = store.settle_hand(match2, zimo_54(1, ("ann", "bo", "cai", "poor")))
    # poor: the fee (400) first, then the 600 it has left; ann gets what was actually paid
    assert settled.changes == {"ann": 3600 + 3600 + 600 - 400, "bo": -4000, "cai": -4000, "poor": -1000}
    assert store.ledger.balance("poor") == 0
    assert store.ledger.audit()["house"] == 1600
    assert match_id != match2


def test_settlement_is_idempotent(store: Store) -> None:
    match_id, _ = setup_match(store, hands=2)
    first = store.settle_hand(match_id, zimo_54(1, PLAYERS))
    before = counts(store)
    again = store.settle_hand(match_id, zimo_54(1, PLAYERS))
    assert again.replayed and again.changes == first.changes and again.fees == first.fees
    assert counts(store) == before  # never pays twice
    other = synthetic(1, PLAYERS, [Transfer("bo", "ann", 6, "hu")])
    with pytest.raises(StoreError) as exc:
        store.settle_hand(match_id, other)
    assert exc.value.code == "settlement_conflict"
    with pytest.raises(StoreError) as exc:
        store.settle_hand(match_id, zimo_54(3, PLAYERS))
    assert exc.value.code == "out_of_order"
    store.settle_hand(match_id, zimo_54(2, PLAYERS))
    with pytest.raises(StoreError) as exc:
        store.settle_hand(match_id, zimo_54(3, PLAYERS))
    assert exc.value.code == "match_over"
    with pytest.raises(StoreError) as exc:
        store.settle_hand(999, zimo_54(1, PLAYERS))
    assert exc.value.code == "unknown_match"
    assert counts(store)["settlements"] == 2


@pytest.mark.parametrize("step", ["hand", "postings", "balances", "commit"])
def test_an_exception_inside_a_settlement_leaves_no_trace(store: Store, step: str) -> None:
    match_id, _ = setup_match(store)
    before = counts(store)
    audit = store.ledger.audit()

    def fail(at: str) -> None:
        if at == step:
            raise RuntimeError(f"injected at {at}")

    store.fault = fail
    with pytest.raises(RuntimeError, match="injected"):
        store.settle_hand(match_id, zimo_54(1, PLAYERS))
    assert counts(store) == before and store.ledger.audit() == audit
    store.fault = None
    settled = store.settle_hand(match_id, zimo_54(1, PLAYERS))  # the retry settles it, once
    assert not settled.replayed and settled.changes["ann"] == 10400
    assert store.settle_hand(match_id, zimo_54(1, PLAYERS)).replayed


CHILD = textwrap.dedent("""
    import json, os, sys
    from xuezhan.match import HandResult
    from xuezhan.store import Store

    url, match_id, path, step = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]

    def crash(at):
        if at == step:
            os._exit(17)  # the process dies in the middle of the transaction

    store = Store(url, fault=crash)
    store.settle_hand(match_id, HandResult.from_json(json.load(open(path))))
    sys.exit(0)
""")


@pytest.mark.parametrize("step", ["postings", "commit"])
def test_a_crash_half_way_leaves_no_trace(store: Store, url: str, tmp_path: Path, step: str) -> None:
    match_id, _ = setup_match(store)
    result = zimo_54(1, PLAYERS)
    path = tmp_path / "result.json"
    path.write_text(json.dumps(result.to_json()))
    before = counts(store)
    proc = subprocess.run([sys.executable, "-c", CHILD, url, str(match_id), str(path), step],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 17, proc.stderr
    assert counts(store) == before
    store.ledger.audit()
    assert not store.settle_hand(match_id, result).replayed
    assert store.ledger.balance("ann") == 110400


def test_concurrent_retries_pay_once(store: Store, url: str) -> None:
    match_id, _ = setup_match(store)
    result = zimo_54(1, PLAYERS)
    outcomes: list[bool] = []
    stores = [Store(url, migrate_schema=False) for _ in range(6)]
    errors = all_at_once(lambda s: outcomes.append(s.settle_hand(match_id, result).replayed), stores)
    for s in stores:
        s.close()
    assert not errors, errors
    assert sorted(outcomes) == [False] + [True] * 5
    assert store.ledger.balance("ann") == 110400 and store.ledger.audit()["house"] == 1600


def test_concurrent_matches_keep_the_books(store: Store, url: str) -> None:
    """Two matches sharing the house account (and a player) settle at the same time."""
    match1, _ = setup_match(store, hands=5)
    store.accounts.create_account("eve", 100_000)
    match2, _ = store.rooms.start_match("r", ["eve", "bo", "cai", "dan"], seed=9)

    def run(match: tuple[int, tuple[str, ...]]) -> None:
        match_id, players = match
        s = Store(url, migrate_schema=False)
        try:
            for k in range(1, 6):
                s.settle_hand(match_id, zimo_54(k, players))
        finally:
            s.close()

    errors = all_at_once(run, [(match1, PLAYERS), (match2, ("eve", "bo", "cai", "dan"))])
    assert not errors, errors
    assert store.ledger.balances(["ann", "bo", "eve"]) == {"ann": 100_000 + 5 * 10400, "bo": 100_000 - 10 * 4000,
                                                           "eve": 100_000 + 5 * 10400}
    assert store.ledger.audit()["house"] == 10 * 1600


# --- matches, rooms and items --------------------------------------------------------------------------------------


def test_rooms(store: Store) -> None:
    config = RoomConfig(Rules.preset("chengdu").with_options({"base_score": 5}), coefficient=3, fee=1, hands=2,
                        items_allowed=True)
    room_id = store.rooms.create_room("home", config)
    assert store.rooms.room("home") == (room_id, config)
    with pytest.raises(StoreError) as exc:
        store.rooms.create_room("home", config)
    assert exc.value.code == "room_exists"
    with pytest.raises(StoreError):
        store.rooms.room("nowhere")
    with pytest.raises(StoreError) as exc:
        store.rooms.start_match("home", ["x", "y", "z", "w"], seed=1)
    assert exc.value.code == "unknown_account"
    for p in "xyzw":
        store.accounts.create_account(p)
    with pytest.raises(StoreError) as exc:
        store.rooms.start_match("home", list("xyzw"), seed=-1)
    assert exc.value.code == "bad_seed"


def test_match_tickets_all_or_none(store: Store) -> None:
    for p in PLAYERS:
        store.accounts.create_account(p, 10)
    store.rooms.create_room("cup", RoomConfig(Rules.preset("qq"), ticket_required=True, hands=1))
    for p in PLAYERS[:3]:
        store.ledger.grant_items(p, ItemKind.MATCH_TICKET, 2)
    before = counts(store)
    with pytest.raises(MatchError) as exc:
        store.rooms.start_match("cup", list(PLAYERS), seed=1)
    assert exc.value.code == "no_ticket"
    assert counts(store) == before  # nobody's ticket was spent
    store.ledger.grant_items("dan", ItemKind.MATCH_TICKET)
    match_id, _ = store.rooms.start_match("cup", list(PLAYERS), seed=1)
    assert store.ledger.items("ann") == {ItemKind.MATCH_TICKET: 1}
    assert store.ledger.items("dan") == {}
    assert match_id > 0


def test_spending_items_is_idempotent(store: Store) -> None:
    store.accounts.create_account("ann")
    with pytest.raises(MatchError) as exc:
        store.ledger.spend_item("ann", ItemKind.DOUBLE, key="k1")
    assert exc.value.code == "no_item"
    store.ledger.grant_items("ann", ItemKind.DOUBLE, 2)
    assert store.ledger.spend_item("ann", ItemKind.DOUBLE, key="k1")
    assert not store.ledger.spend_item("ann", ItemKind.DOUBLE, key="k1")
    assert store.ledger.items("ann") == {ItemKind.DOUBLE: 1}
    with pytest.raises(StoreError):
        store.ledger.grant_items("ann", ItemKind.SEEK, 0)


def test_a_whole_match_is_persisted(store: Store, url: str) -> None:
    people = ("ann", "bo", "cai", "dan", "eve", "fu")
    for p in people:
        store.accounts.create_account(p, 3000)
    store.rooms.create_room("r", RoomConfig(Rules.preset("chengdu"), coefficient=50, fee=20, hands=4,
                                            items_allowed=True))
    match_id, match = store.rooms.start_match("r", list(people), seed=5)
    rng = random.Random(5)
    results = []
    while not match.finished:
        hand = match.start_hand(double=[p for p in match.seats[:1] if p is not None])
        play_match_hand(hand, [make_bot("heuristic", random.Random(k)) for k in range(4)], rng,
                        escape_rate=0.002, item_rate=0.1)
        result = match.finish_hand(hand)
        if None in match.seats:
            store.accounts.create_account(f"new{match.hands_played}", 500)
            match.join(f"new{match.hands_played}")
        settled = store.settle_hand(match_id, result, match)
        assert sum(settled.changes.values()) == -settled.house
        results.append(result)
        # a fresh store (a restarted server) goes on from the saved state
        reopened = Store(url, migrate_schema=False)
        try:
            assert reopened.rooms.load_match(match_id).state_json() == match.state_json()
        finally:
            reopened.close()
    assert store.hands.hand_results(match_id) == results
    for r in results:
        game, complete = replay(parse_record(store.hands.hand_record(match_id, r.hand_no)))
        assert complete
        assert [(e.from_seat, e.to_seat, e.points, e.reason) for e in game.ledger] == [
            (e["from"], e["to"], e["points"], e["reason"]) for e in r.record["result"]["ledger"]]
    with store.engine.connect() as conn:
        assert conn.execute(text("SELECT status FROM matches WHERE id = :i"), {"i": match_id}).scalar_one() == \
            "finished"
    audit = store.ledger.audit()
    assert audit["players"] + audit["house"] == audit["issued"]
    with pytest.raises(StoreError) as exc:
        store.hands.hand_record(match_id, 99)
    assert exc.value.code == "unknown_hand"
    history = store.hands.history("bo")
    assert [h.hand_no for h in history] == [r.hand_no for r in reversed(results) if "bo" in r.participants]
    for h in history:
        r = results[h.hand_no - 1]
        assert h.room == "r" and h.match_id == match_id and h.points == r.points()["bo"]
        assert h.seat == (r.seating.index("bo") if "bo" in r.seating else None)


def test_save_match_between_hands(store: Store) -> None:
    match_id, match = setup_match(store, people=(*PLAYERS, "eve"))
    store.accounts.create_account("fu")
    match.join("fu")
    store.rooms.save_match(match_id, match)
    assert store.rooms.load_match(match_id).bystanders == ("eve", "fu")
    store.settle_hand(match_id, zimo_54(1, PLAYERS))
    with pytest.raises(StoreError) as exc:
        store.rooms.save_match(match_id, match)  # this copy has not seen hand 1
    assert exc.value.code == "stale_match"


def test_store_errors_have_stable_codes() -> None:
    err = StoreError("settlement_conflict", "x")
    assert isinstance(err, ValueError) and err.to_json() == {"code": "settlement_conflict", "message": "x"}
