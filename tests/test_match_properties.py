"""Property tests of whole matches without a database: random rooms, people, items and escapes.

Over every hand: 108 tiles; transfers are positive and sum to zero; a bystander wins or
loses what its seat does; the hand's record replays to the same ledger; the dealer
follows docs/rules.md §9; and coins chained over the match (``HandResult.coins``) are conserved
(the changes sum to minus the fees) with no balance ever below zero.
"""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from xuezhan.bots import make_bot
from xuezhan.engine.deal import throw_for_dealer
from xuezhan.match import JIAO_MA, HandResult, Match, RoomConfig, hand_seed
from xuezhan.records import parse_record, replay
from xuezhan.rules import Rules
from xuezhan.runtime.incidents import play_match_hand


def own_points(result: HandResult, player: str) -> int:
    return sum((t.points if t.payee == player else -t.points) for t in result.transfers
               if t.reason != JIAO_MA and player in (t.payer, t.payee))


@st.composite
def plans(draw: st.DrawFn) -> dict[str, Any]:
    return {
        "preset": draw(st.sampled_from(["qq", "chengdu"])),
        "options": {
            "dealer_rule": draw(st.sampled_from(["first_winner", "dice", "discarder"])),
            "end_on_first_win": draw(st.booleans()),
            "escaped_winner_forfeits": draw(st.booleans()),
            "exchange_three": draw(st.sampled_from(["none", "random"])),
        },
        "people": draw(st.integers(4, 8)),
        "n": draw(st.integers(0, 300)),
        "a": draw(st.integers(0, 500)),
        "coins": draw(st.integers(0, 20_000)),
        "hands": draw(st.integers(1, 5)),
        "seed": draw(st.integers(0, 2**40)),
        "items": draw(st.booleans()),
        "escape_rate": draw(st.sampled_from([0.0, 0.005, 0.02])),
        "bots": draw(st.sampled_from(["heuristic", "random"])),
    }


@settings(max_examples=100, deadline=None)
@given(plan=plans())
def test_random_matches(plan: dict[str, Any]) -> None:
    rules = Rules.preset(plan["preset"]).with_options(plan["options"])
    room = RoomConfig(rules, coefficient=plan["n"], fee=plan["a"], hands=plan["hands"], items_allowed=plan["items"])
    people = [f"p{i}" for i in range(plan["people"])]
    match = Match(room, people, seed=plan["seed"])
    rng = random.Random(plan["seed"])
    balances = {p: rng.randint(0, plan["coins"]) for p in people}
    prev: HandResult | None = None
    newcomers = 0
    while not match.finished:
        seated = [p for p in match.seats if p is not None]
        changed = prev is not None and tuple(seated) != prev.seating
        hand = match.start_hand(
            double=rng.sample(seated, rng.randint(0, 2)) if plan["items"] else [],
            flush={p: rng.choice([None, 0, 1, 2]) for p in rng.sample(seated, rng.randint(0, 2))}
            if plan["items"] else {},
        )
        if prev is None or changed or prev.next_dealer is None:
            assert hand.dealer == throw_for_dealer(random.Random(hand_seed(plan["seed"], hand.hand_no)))
        else:
            assert hand.dealer == prev.next_dealer
        assert hand.game.tile_total() == 108
        bots = [make_bot(plan["bots"], random.Random(rng.getrandbits(32))) for _ in range(4)]
        play_match_hand(hand, bots, rng, escape_rate=plan["escape_rate"], item_rate=0.1)
        assert hand.game.tile_total() == 108
        result = match.finish_hand(hand)

        assert all(t.points > 0 and t.payer != t.payee for t in result.transfers)
        points = result.points()
        assert sum(points.values()) == 0
        for bet in result.bets:
            assert points[bet.player] == own_points(result, result.seating[bet.seat])
        if plan["options"]["end_on_first_win"]:
            assert all(w["order"] == 1 for w in result.record["result"]["winners"])
        game, complete = replay(parse_record(json.loads(json.dumps(result.record))))
        assert complete and game.ledger == hand.game.ledger

        coins = result.coins(room, balances)
        assert sum(coins.changes) == -sum(coins.fees)
        for p, change in zip(result.participants, coins.changes, strict=True):
            balances[p] += change
            assert balances[p] >= 0
        while None in match.seats:
            newcomers += 1
            match.join(f"new{newcomers}")
            balances[f"new{newcomers}"] = rng.randint(0, plan["coins"])
        prev = result
    assert sum(match.running.values()) == 0
