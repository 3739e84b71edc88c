"""Property tests of settling random matches in the store, on SQLite and on PostgreSQL.

Random rooms (preset, N, A, options, items), 4-8 people with random balances (many
too small to pay), bots playing with random escapes and item cards, a random number
of retries of every settlement and exceptions injected at random steps inside
settlements. After every hand:

- coins are conserved: the changes sum to minus the fees, the house gains exactly the
  fees, and every balance moved by exactly its settled change;
- no balance is below zero;
- the settlement equals ``HandResult.coins`` on the balances before it (docs/rules.md §11);
- a retry returns the same settlement and changes nothing;
- a settlement that raised left no trace (every row count and balance unchanged).

At the end the books balance (:meth:`Ledger.audit`).
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from sqlalchemy import text

from xuezhan.bots import make_bot
from xuezhan.match import RoomConfig
from xuezhan.rules import Rules
from xuezhan.runtime.incidents import play_match_hand
from xuezhan.store import HOUSE, Store
from xuezhan.store.pgtemp import shared_server

TABLES = ("hands", "settlements", "hand_points", "coin_transfers", "postings", "matches")
STEPS = ("hand", "postings", "balances", "commit")


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('props') / 'store.sqlite3'}"
    else:
        url = shared_server().create_schema(f"p_{uuid.uuid4().hex[:20]}")  # fails, never skips, without a server
    s = Store(url)
    yield s
    s.close()


def snapshot(store: Store) -> dict[str, Any]:
    with store.engine.connect() as conn:
        out: dict[str, Any] = {t: conn.execute(text(f"SELECT COUNT(*) FROM {t}")).scalar_one() for t in TABLES}
        out["balances"] = sorted(tuple(r) for r in conn.execute(text("SELECT account_id, coins FROM balances")))
        out["state"] = sorted(str(tuple(r)) for r in conn.execute(text("SELECT id, hands_played, state FROM matches")))
    return out


class Injected(Exception):
    pass


@st.composite
def plans(draw: st.DrawFn) -> dict[str, Any]:
    people = draw(st.integers(4, 8))
    return {
        "preset": draw(st.sampled_from(["qq", "chengdu"])),
        "options": {
            "dealer_rule": draw(st.sampled_from(["first_winner", "dice", "discarder"])),
            "end_on_first_win": draw(st.booleans()),
            "escaped_winner_forfeits": draw(st.booleans()),
            "blood_river": draw(st.booleans()),
        },
        "n": draw(st.sampled_from([0, 1, 10, 200])),
        "a": draw(st.sampled_from([0, 5, 400])),
        "balances": draw(st.lists(st.one_of(st.integers(0, 600), st.integers(0, 50_000)), min_size=people,
                                  max_size=people)),
        "hands": draw(st.integers(1, 4)),
        "seed": draw(st.integers(0, 2**40)),
        "items": draw(st.booleans()),
        "escape_rate": draw(st.sampled_from([0.0, 0.003, 0.02])),
        "bots": draw(st.sampled_from(["heuristic", "random"])),
        "retries": draw(st.lists(st.integers(1, 3), min_size=4, max_size=4)),
        "faults": draw(st.lists(st.sampled_from([None, *STEPS]), min_size=4, max_size=4)),
    }


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plan=plans())
def test_random_matches_keep_the_books(store: Store, plan: dict[str, Any]) -> None:
    tag = uuid.uuid4().hex[:8]
    people = [f"{tag}-{i}" for i in range(len(plan["balances"]))]
    for p, coins in zip(people, plan["balances"], strict=True):
        store.accounts.create_account(p, coins)
    config = RoomConfig(Rules.preset(plan["preset"]).with_options(plan["options"]), coefficient=plan["n"],
                        fee=plan["a"], hands=plan["hands"], items_allowed=plan["items"])
    store.rooms.create_room(f"room-{tag}", config)
    match_id, match = store.rooms.start_match(f"room-{tag}", people, seed=plan["seed"])
    rng = random.Random(plan["seed"])
    newcomers = 0
    while not match.finished:
        seated = [p for p in match.seats if p is not None]
        double = rng.sample(seated, rng.randint(0, 2)) if plan["items"] else []
        flush = {p: None for p in rng.sample(seated, rng.randint(0, 1))} if plan["items"] else {}
        hand = match.start_hand(double=double, flush=flush)
        bots = [make_bot(plan["bots"], random.Random(rng.getrandbits(32))) for _ in range(4)]
        play_match_hand(hand, bots, rng, escape_rate=plan["escape_rate"], item_rate=0.1)
        result = match.finish_hand(hand)
        while None in match.seats:  # an escaper left and nobody was waiting: someone new sits down
            newcomers += 1
            name = f"{tag}-new{newcomers}"
            store.accounts.create_account(name, rng.randint(0, 2000))
            match.join(name)
        k = result.hand_no - 1
        everyone = sorted(set(result.participants) | set(match.people))
        before = store.ledger.balances(everyone)
        house = store.ledger.balance(HOUSE)
        expected = result.coins(config, before)

        fault = plan["faults"][k]
        if fault is not None:
            rows = snapshot(store)

            def inject(step: str, at: str = fault) -> None:
                if step == at:
                    raise Injected(step)

            store.fault = inject
            try:
                with pytest.raises(Injected):
                    store.settle_hand(match_id, result, match)
            finally:
                store.fault = None
            assert snapshot(store) == rows  # no trace

        settled = store.settle_hand(match_id, result, match)
        assert not settled.replayed
        for _ in range(plan["retries"][k] - 1):
            rows = snapshot(store)
            again = store.settle_hand(match_id, result, match)
            assert again.replayed and again.changes == settled.changes and again.fees == settled.fees
            assert snapshot(store) == rows  # never pays twice

        after = store.ledger.balances(everyone)
        assert [settled.changes[p] for p in result.participants] == list(expected.changes)
        assert sum(settled.changes.values()) == -settled.house == -sum(expected.fees)
        assert store.ledger.balance(HOUSE) - house == settled.house
        for p in everyone:
            assert after[p] == before[p] + settled.changes.get(p, 0)
            assert after[p] >= 0
        assert settled.points == result.points()
        event(f"escape: {bool(result.escaped)}")
        event(f"bystanders: {len(result.bets)}")
        event(f"fault: {fault}")
        event(f"someone could not pay: {any(c < 0 and after[p] == 0 for p, c in settled.changes.items())}")
    audit = store.ledger.audit()
    assert audit["players"] + audit["house"] == audit["issued"]
    assert store.rooms.load_match(match_id).state_json() == match.state_json()

