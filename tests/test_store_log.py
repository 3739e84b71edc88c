"""Hands in play as append-only logs in the store (and through the server's bank), on
SQLite and on a real PostgreSQL server: the deal and every action, in order, read back
after a restart; retries change nothing; gaps, rewrites and late appends are refused
with their codes; settling closes the log once, whatever crashes.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from together import all_at_once

from xuezhan.match import HandResult, Match, RoomConfig, Transfer
from xuezhan.rules import Rules
from xuezhan.server.bank import LoggedHand, RunningMatch
from xuezhan.server.storebank import StoreBank
from xuezhan.store import Store, StoreError, current_revision, make_engine, migrate
from xuezhan.store import hands as hands_module
from xuezhan.store.hands import LogItem

PLAYERS = ("ann", "bo", "cai", "dan")
LOG_TABLES = ("hand_logs", "hand_actions", "hands", "settlements", "postings", "matches")


def counts(store: Store) -> dict[str, Any]:
    with store.engine.connect() as conn:
        out: dict[str, Any] = {t: conn.execute(text(f"SELECT COUNT(*) FROM {t}")).scalar_one() for t in LOG_TABLES}
        out["balances"] = sorted(tuple(r) for r in conn.execute(text("SELECT account_id, coins FROM balances")))
        out["logs"] = sorted(tuple(r) for r in conn.execute(
            text("SELECT id, hand_no, settled_at IS NOT NULL FROM hand_logs")))
        out["matches"] = sorted(tuple(r) for r in conn.execute(text("SELECT id, hands_played, status FROM matches")))
    return out


def after(store: Store, match_id: int, hands_played: int) -> Match:
    """The match as it stands after ``hands_played`` hands (people stay put)."""
    match = store.rooms.load_match(match_id)
    return Match.from_state(match.room, {**match.state_json(), "hands_played": hands_played})


def setup_match(store: Store, *, hands: int = 3) -> int:
    for p in PLAYERS:
        store.accounts.create_account(p, 100_000)
    store.rooms.create_room("r", RoomConfig(Rules.preset("qq"), coefficient=200, fee=400, hands=hands),
                            {"name": "Ann's table", "owner": "ann", "public": True})
    match_id, _ = store.rooms.start_match("r", list(PLAYERS), seed=1)
    return match_id


def zimo_54(hand_no: int, seed: int | None = None) -> HandResult:
    return HandResult(hand_no=hand_no, seed=hand_no if seed is None else seed, dealer=0, seating=PLAYERS, bets=(),
                      transfers=tuple(Transfer(p, PLAYERS[0], 18, "zimo") for p in PLAYERS[1:]), items=(),
                      escaped=(), next_dealer=None, record={"note": "synthetic"})


def start(hand_no: int) -> dict[str, Any]:
    return {"seating": list(PLAYERS), "dealer": 0, "bets": [], "items": [{"player": "bo", "kind": "double"}],
            "hand_no": hand_no}


def action(seq: int) -> dict[str, Any]:
    """Actions of every shape a log may hold: nested, unicode, null."""
    return {"seat": seq % 4, "type": ["discard", "peng", "hu"][seq % 3], "tile": [seq % 27],
            "note": "胡" if seq % 5 else None}


# --- the store -------------------------------------------------------------------------------------------------


def test_a_hand_is_logged_and_read_back_in_order_after_a_restart(store: Store, url: str) -> None:
    match_id = setup_match(store)
    assert [m.hand for m in store.rooms.running_matches()] == [None]  # between hands: nothing in play
    first = store.hands.begin_hand(match_id, 1, 11, start(1))
    for seq in range(7):
        store.hands.append_action(first, seq, action(seq))
    store.settle_hand(match_id, zimo_54(1), after(store, match_id, 1))
    log = store.hands.begin_hand(match_id, 2, 22, start(2))
    assert log != first
    for seq in range(40):
        store.hands.append_action(log, seq, action(seq))
    store.close()

    reopened = Store(url, migrate_schema=False)  # a new engine: a restarted server
    try:
        [running] = reopened.rooms.running_matches()
        assert running.match_id == match_id and running.room == "r"
        assert running.config == RoomConfig(Rules.preset("qq"), coefficient=200, fee=400, hands=3)
        assert running.meta == {"name": "Ann's table", "owner": "ann", "public": True}
        assert running.match.state_json() == reopened.rooms.load_match(match_id).state_json()
        assert running.match.hands_played == 1
        hand = running.hand
        assert hand is not None  # exactly the hand not settled, with its actions in order
        assert (hand.id, hand.hand_no, hand.seed, hand.start) == (log, 2, 22, start(2))
        assert hand.actions == tuple(action(seq) for seq in range(40))
        reopened.hands.append_action(log, 40, action(40))  # and it goes on where it stopped
        later = reopened.rooms.running_matches()[0].hand
        assert later is not None and len(later.actions) == 41
    finally:
        reopened.close()


def test_group_commits_of_many_hands(store: Store) -> None:
    first = setup_match(store)
    second, _ = store.rooms.start_match("r", list(PLAYERS), seed=2)  # a second match of the same room
    store.hands.write_log([("begin", first, 1, 11, start(1)), ("begin", second, 1, 22, start(1)),
                           ("action", first, 1, 0, action(0)), ("action", second, 1, 0, action(0))])
    for k in range(1, 30, 3):  # later batches of the same logs take this process's own count
        store.hands.write_log([("action", m, 1, k + j, action(k + j)) for j in range(3) for m in (first, second)])
    before = counts(store)
    cases: list[tuple[list[LogItem], str]] = [
        ([("action", first, 1, 32, action(32))], "action_gap"),
        ([("action", first, 1, 5, action(6))], "action_conflict"),
        ([("action", second, 1, 31, action(31)), ("action", second, 1, 31, action(32))], "action_conflict"),
        ([("action", first, 2, 0, action(0))], "unknown_hand"),
        ([("deal", first, 1, 0, {})], "bad_log_entry"),
    ]
    for bad, code in cases:
        with pytest.raises(StoreError) as err:
            store.hands.write_log(bad)
        assert err.value.code == code
        assert counts(store) == before  # all or nothing
    store.hands.write_log([("action", first, 1, 5, action(5))])  # a retried write changes nothing
    assert counts(store) == before
    store.hands.write_log([("action", first, 1, 31, action(31))])
    hands = {m.match_id: m.hand for m in store.rooms.running_matches()}
    one, two = hands[first], hands[second]
    assert one is not None and one.actions == tuple(action(k) for k in range(32))
    assert two is not None and two.actions == tuple(action(k) for k in range(31))
    store.settle_hand(first, zimo_54(1), after(store, first, 1))
    with pytest.raises(StoreError) as err:
        store.hands.write_log([("action", first, 1, 32, action(32))])
    assert err.value.code == "hand_settled"


def test_the_log_tails_kept_are_bounded_and_what_is_dropped_is_read_again(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hand never settled here (a match abandoned) leaves its log's tail in the cache; past
    ``_TAILS_KEPT`` tails only the last batch's stay, and a dropped log is counted again."""
    monkeypatch.setattr(hands_module, "_TAILS_KEPT", 1)
    first = setup_match(store)
    second, _ = store.rooms.start_match("r", list(PLAYERS), seed=2)
    store.hands.write_log([("begin", first, 1, 11, start(1)), ("action", first, 1, 0, action(0))])
    assert set(store.hands._log_tails) == {(first, 1)}
    store.hands.write_log([("begin", second, 1, 22, start(1)), ("action", second, 1, 0, action(0))])
    assert set(store.hands._log_tails) == {(second, 1)}  # two would be over the bound
    before = counts(store)
    with pytest.raises(StoreError) as err:  # the dropped log is read again: its count still holds
        store.hands.write_log([("action", first, 1, 2, action(2))])
    assert err.value.code == "action_gap" and counts(store) == before
    store.hands.write_log([("action", first, 1, 1, action(1)), ("action", second, 1, 1, action(1))])
    for m in (first, second):
        hand = {r.match_id: r.hand for r in store.rooms.running_matches()}[m]
        assert hand is not None and hand.actions == (action(0), action(1))
    assert set(store.hands._log_tails) == {(first, 1), (second, 1)}  # one batch's, even over the bound


def test_retries_change_nothing(store: Store) -> None:
    match_id = setup_match(store)
    log = store.hands.begin_hand(match_id, 1, 11, start(1))
    store.hands.append_action(log, 0, action(0))
    store.hands.append_action(log, 1, action(1))
    before = counts(store)
    assert store.hands.begin_hand(match_id, 1, 11, start(1)) == log
    assert store.hands.begin_hand(match_id, 1, 11, json.loads(json.dumps(start(1)))) == log
    store.hands.append_action(log, 0, action(0))
    store.hands.append_action(log, 1, dict(reversed(action(1).items())))  # the same action, keys in another order
    assert counts(store) == before
    assert store.hands.hand_log_id(match_id, 1) == log


def test_gaps_rewrites_and_bad_writes_are_refused(store: Store) -> None:
    match_id = setup_match(store)
    log = store.hands.begin_hand(match_id, 1, 11, start(1))
    store.hands.append_action(log, 0, action(0))
    before = counts(store)
    cases: list[tuple[str, Callable[[], object]]] = [
        ("action_gap", lambda: store.hands.append_action(log, 2, action(2))),
        ("action_conflict", lambda: store.hands.append_action(log, 0, action(1))),
        ("hand_seed_conflict", lambda: store.hands.begin_hand(match_id, 1, 12, start(1))),
        ("hand_start_conflict", lambda: store.hands.begin_hand(match_id, 1, 11, start(9))),
        ("out_of_order", lambda: store.hands.begin_hand(match_id, 2, 12, start(2))),
        ("out_of_order", lambda: store.hands.begin_hand(match_id, 0 + 3, 12, start(3))),
        ("unknown_match", lambda: store.hands.begin_hand(999, 1, 1, start(1))),
        ("unknown_hand", lambda: store.hands.append_action(999, 0, action(0))),
        ("unknown_hand", lambda: store.hands.hand_log_id(match_id, 2)),
        ("bad_seq", lambda: store.hands.append_action(log, -1, action(0))),
        ("bad_seq", lambda: store.hands.append_action(log, True, action(0))),
        ("bad_action", lambda: store.hands.append_action(log, 1, ["discard"])),  # type: ignore[arg-type]
        ("bad_action", lambda: store.hands.append_action(log, 1, {"tile": float("nan")})),
        ("bad_action", lambda: store.hands.append_action(log, 1, {"tile": object()})),
        ("bad_hand_start", lambda: store.hands.begin_hand(match_id, 1, 11, "seating")),  # type: ignore[arg-type]
        ("bad_hand_no", lambda: store.hands.begin_hand(match_id, 0, 11, start(0))),
        ("bad_seed", lambda: store.hands.begin_hand(match_id, 1, -1, start(1))),
        ("bad_seed", lambda: store.hands.begin_hand(match_id, 1, 2**63, start(1))),
        ("bad_room_meta", lambda: store.rooms.create_room("r2", RoomConfig(Rules.preset("qq")), {"owner": {1, 2}})),
    ]
    for code, attempt in cases:
        with pytest.raises(StoreError) as exc:
            attempt()
        assert exc.value.code == code, (code, exc.value)
    assert counts(store) == before


def test_a_settled_hand_takes_no_more_actions(store: Store) -> None:
    match_id = setup_match(store)
    log = store.hands.begin_hand(match_id, 1, 11, start(1))
    store.hands.append_action(log, 0, action(0))
    store.settle_hand(match_id, zimo_54(1))
    with pytest.raises(StoreError) as exc:
        store.hands.append_action(log, 1, action(1))
    assert exc.value.code == "hand_settled"
    store.hands.append_action(log, 0, action(0))  # a late retry of a logged action still changes nothing
    assert store.hands.begin_hand(match_id, 1, 11, start(1)) == log  # so does a late retry of the deal
    assert [m.hand for m in store.rooms.running_matches()] == [None]
    assert counts(store)["logs"] == [(log, 1, True)]


def test_hands_settle_without_a_log(store: Store) -> None:
    """A hand settled without being logged (a caller that does not log) still settles."""
    match_id = setup_match(store)
    store.settle_hand(match_id, zimo_54(1))
    assert store.hands.begin_hand(match_id, 2, 2, start(2)) > 0
    with pytest.raises(StoreError) as exc:
        store.hands.begin_hand(match_id, 1, 1, start(1))  # settled, never logged: too late now
    assert exc.value.code == "out_of_order"


def test_the_last_hand_finishes_the_match(store: Store) -> None:
    match_id = setup_match(store, hands=2)
    for n in (1, 2):
        log = store.hands.begin_hand(match_id, n, n, start(n))
        store.hands.append_action(log, 0, action(0))
        store.settle_hand(match_id, zimo_54(n), after(store, match_id, n))
    assert store.rooms.running_matches() == []
    assert counts(store)["matches"] == [(match_id, 2, "finished")]
    assert all(settled for _, _, settled in counts(store)["logs"])
    with pytest.raises(StoreError) as exc:
        store.hands.begin_hand(match_id, 3, 3, start(3))
    assert exc.value.code == "match_over"


def test_a_match_that_cannot_resume_is_ended(store: Store) -> None:
    match_id = setup_match(store)
    log = store.hands.begin_hand(match_id, 1, 11, start(1))
    store.hands.append_action(log, 0, action(0))
    with pytest.raises(StoreError) as exc:
        store.rooms.end_match(match_id, "running")
    assert exc.value.code == "bad_status"
    with pytest.raises(StoreError) as exc:
        store.rooms.end_match(999, "abandoned")
    assert exc.value.code == "unknown_match"
    store.rooms.end_match(match_id, "abandoned")
    store.rooms.end_match(match_id, "abandoned")  # again: nothing happens
    assert store.rooms.running_matches() == []
    assert counts(store)["matches"] == [(match_id, 0, "abandoned")]
    cases: list[tuple[str, Callable[[], object]]] = [
        ("match_over", lambda: store.rooms.end_match(match_id, "finished")),
        ("match_over", lambda: store.hands.append_action(log, 1, action(1))),
        ("match_over", lambda: store.hands.begin_hand(match_id, 2, 2, start(2))),
        ("match_over", lambda: store.settle_hand(match_id, zimo_54(1))),
    ]
    for code, attempt in cases:
        with pytest.raises(StoreError) as exc:
            attempt()
        assert exc.value.code == code
    other, _ = store.rooms.start_match("r", list(PLAYERS), seed=2)
    store.rooms.end_match(other, "finished")
    assert counts(store)["matches"] == [(match_id, 0, "abandoned"), (other, 0, "finished")]


def test_an_exception_in_a_settlement_leaves_the_hand_in_play(store: Store) -> None:
    match_id = setup_match(store)
    log = store.hands.begin_hand(match_id, 1, 11, start(1))
    store.hands.append_action(log, 0, action(0))
    before = counts(store)

    def fail(at: str) -> None:
        if at == "commit":
            raise RuntimeError("injected")

    store.fault = fail
    with pytest.raises(RuntimeError):
        store.settle_hand(match_id, zimo_54(1, 11))
    store.fault = None
    assert counts(store) == before
    hand = store.rooms.running_matches()[0].hand
    assert hand is not None and hand.actions == (action(0),)
    assert not store.settle_hand(match_id, zimo_54(1, 11)).replayed
    settled = counts(store)
    assert settled["logs"] == [(log, 1, True)]
    assert store.settle_hand(match_id, zimo_54(1, 11)).replayed
    assert counts(store) == settled


CHILD = textwrap.dedent("""
    import json, os, sys
    from xuezhan.match import HandResult
    from xuezhan.store import Store

    url, match_id, path, step = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]

    def crash(at):
        if at == step:
            os._exit(17)  # the process dies before the commit

    store = Store(url, fault=crash, migrate_schema=False)
    store.settle_hand(match_id, HandResult.from_json(json.load(open(path))))
    os._exit(17)  # committed, but dies before anyone hears of it
""")


@pytest.mark.parametrize("step", ["balances", "commit", "after"])
def test_a_hand_settles_once_whatever_crashes(store: Store, url: str, tmp_path: Path, step: str) -> None:
    match_id = setup_match(store)
    log = store.hands.begin_hand(match_id, 1, 11, start(1))
    for seq in range(3):
        store.hands.append_action(log, seq, action(seq))
    result = zimo_54(1, 11)
    path = tmp_path / "result.json"
    path.write_text(json.dumps(result.to_json()))
    before = counts(store)
    proc = subprocess.run([sys.executable, "-c", CHILD, url, str(match_id), str(path), step],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 17, proc.stderr
    committed = step == "after"
    if not committed:
        assert counts(store) == before
        hand = store.rooms.running_matches()[0].hand
        assert hand is not None and hand.actions == tuple(action(seq) for seq in range(3))
    again = store.settle_hand(match_id, result)  # the retry
    assert again.replayed == committed
    after = counts(store)
    assert after["logs"] == [(log, 1, True)] and after["settlements"] == 1
    assert store.settle_hand(match_id, result).replayed
    assert counts(store) == after
    assert store.ledger.balance("ann") == 110400
    store.ledger.audit()


def test_concurrent_retries_log_once(store: Store, url: str) -> None:
    match_id = setup_match(store)
    stores = [Store(url, migrate_schema=False) for _ in range(4)]
    ids: list[int] = []

    def attempt(s: Store) -> None:
        log = s.hands.begin_hand(match_id, 1, 11, start(1))
        ids.append(log)
        for seq in range(5):
            s.hands.append_action(log, seq, action(seq))

    errors = all_at_once(attempt, stores)
    for s in stores:
        s.close()
    assert not errors, errors
    assert len(set(ids)) == 1
    hand = store.rooms.running_matches()[0].hand
    assert hand is not None and hand.actions == tuple(action(seq) for seq in range(5))
    assert counts(store)["hand_actions"] == 5


# --- the migration -----------------------------------------------------------------------------------------------


def test_0003_upgrades_a_database_with_data(url: str) -> None:
    engine = make_engine(url)
    try:
        migrate(engine, "0002")
        config = RoomConfig(Rules.preset("qq"), coefficient=200, fee=400, hands=3)
        state = Match(config, list(PLAYERS), seed=1).state_json()
        with engine.begin() as conn:
            for p in PLAYERS:
                conn.execute(text("INSERT INTO accounts (name, kind) VALUES (:n, 'player')"), {"n": p})
            conn.execute(text("INSERT INTO balances (account_id, coins, overdraft) "
                              "SELECT id, 0, false FROM accounts WHERE kind = 'player'"))
            conn.execute(text("INSERT INTO rooms (name, config) VALUES ('old', :c)"),
                         {"c": json.dumps(config.to_mapping())})
            for status in ("running", "finished"):
                conn.execute(text("INSERT INTO matches (room_id, seed, status, hands_played, state) "
                                  "SELECT id, 1, :s, 0, :st FROM rooms"), {"s": status, "st": json.dumps(state)})
            conn.execute(text("INSERT INTO hands (match_id, hand_no, seed, dealer, record, result) "
                              "SELECT id, 1, 1, 0, '{}', '{}' FROM matches WHERE status = 'finished'"))
        migrate(engine, "0003")
        assert current_revision(engine) == "0003"
        with engine.connect() as conn:
            assert conn.execute(text("SELECT COUNT(*) FROM hands")).scalar_one() == 1
            assert sorted(r[0] for r in conn.execute(text("SELECT status FROM matches"))) == ["finished", "running"]
            if engine.dialect.name == "sqlite":
                assert conn.execute(text("PRAGMA foreign_key_check")).all() == []
                assert conn.execute(text("PRAGMA integrity_check")).scalar_one() == "ok"
    finally:
        engine.dispose()
    store = Store(url)
    try:
        [running] = store.rooms.running_matches()
        assert (running.room, running.config, running.meta, running.hand) == ("old", config, {}, None)
        assert store.rooms.room_meta("old") == {}
        log = store.hands.begin_hand(running.match_id, 1, 5, start(1))
        store.hands.append_action(log, 0, action(0))
        store.settle_hand(running.match_id, zimo_54(1, 5))
        store.rooms.end_match(running.match_id, "abandoned")
        store.ledger.audit()
    finally:
        store.close()
    with pytest.raises(Exception, match=r"(?i)check"), make_engine(url).begin() as conn:
        conn.execute(text("UPDATE matches SET status = 'paused'"))


# --- the server's bank ---------------------------------------------------------------------------------------------


def test_the_bank_logs_hands_and_gives_them_back_after_a_restart(url: str) -> None:
    bank = StoreBank.open(url)
    config = RoomConfig(Rules.preset("qq"), coefficient=1, fee=0, hands=2)
    meta = {"name": "东风", "owner": "ann", "public": False}
    bank.open_room("ab12", config, meta)
    bank.open_room("cd34", config)
    key, match = bank.open_match("ab12", ["bot:1", "bot:2", "bot:3", "bot:4"], 7)
    key2, _ = bank.open_match("cd34", ["bot:1", "bot:2", "bot:3", "bot:4"], 8)
    bank.write_log([(key, ("begin", 1, 101, start(1)))])
    bank.write_log([(key, ("begin", 1, 101, start(1)))])  # a retry
    bank.write_log([(key, ("action", 1, seq, action(seq))) for seq in range(4)])
    bank.write_log([(key, ("action", 1, 3, action(3)))])  # a retry
    with pytest.raises(StoreError) as exc:
        bank.write_log([(key, ("action", 1, 5, action(5)))])
    assert exc.value.code == "action_gap"
    with pytest.raises(StoreError) as exc:
        bank.write_log([(key, ("action", 2, 0, action(0)))])
    assert exc.value.code == "unknown_hand"
    bank.close()

    bank = StoreBank.open(url)  # restarted
    try:
        bank.write_log([(key, ("action", 1, 4, action(4)))])  # a new bank: the log is looked up
        running = {m.key: m for m in bank.running_matches()}
        assert set(running) == {key, key2}
        assert running[key] == RunningMatch(
            key=key, room_code="ab12", room=config, meta=meta, match=running[key].match,
            hand=LoggedHand(hand_no=1, seed=101, start=start(1), actions=tuple(action(s) for s in range(5))))
        assert running[key].match.state_json() == match.state_json()
        assert running[key2].meta == {} and running[key2].hand is None
        bank.write_log([(key, ("action", 1, 5, action(5)))])
        hand = bank.running_matches()[0].hand
        assert hand is not None and len(hand.actions) == 6

        bots = ("bot:1", "bot:2", "bot:3", "bot:4")
        result = HandResult(hand_no=1, seed=101, dealer=0, seating=bots, bets=(),
                            transfers=(Transfer("bot:2", "bot:1", 3, "zimo"),), items=(), escaped=(),
                            next_dealer=None, record={"note": "synthetic"})
        after = Match.from_state(config, {**match.state_json(), "hands_played": 1})
        assert bank.settle_hand(key, result, after).changes == (3, -3, 0, 0)
        with pytest.raises(StoreError) as exc:
            bank.write_log([(key, ("action", 1, 6, action(6)))])
        assert exc.value.code == "hand_settled"
        assert [r.hand for r in bank.running_matches()] == [None, None]
        bank.end_match(key2, "abandoned")
        assert [r.key for r in bank.running_matches()] == [key]
        with pytest.raises(StoreError) as exc:
            bank.write_log([(key2, ("action", 1, 0, action(0)))])
        assert exc.value.code == "unknown_hand"
    finally:
        bank.close()
