"""The compiled heuristic bot (``csrc/xz_heuristic.c``) against :class:`HeuristicBot`, the reference.

Differential: over about 4,000 seeded hands per run (both presets with four heuristic seats,
heuristic and random seats mixed, random mixes of the options of docs/rules.md §14), the core's game
records are byte-identical to the Python engine's played by ``HeuristicBot``; so are those of
the quick variant (search play-outs); the core's shanten is ``hand.shanten``. Hands stopped in
the middle (sampled worlds included) are played out by the core to the Python engine's deltas,
and the expert decides the same with its play-outs in C.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest
from test_cli_games import run_json
from test_native import _FANS, _VALUES, _build, native_records, python_records

import xuezhan.native._core as core
from xuezhan import native
from xuezhan.bots.expert import ExpertBot
from xuezhan.bots.heuristic import HeuristicBot
from xuezhan.engine.actions import Action, ActionType
from xuezhan.engine.game import Game
from xuezhan.engine.views import reshuffle_wall, sample_world
from xuezhan.errors import XuezhanError
from xuezhan.hand import shanten
from xuezhan.native import QUICK_BOTS, play_out, play_outs, playout_state
from xuezhan.records import record_json
from xuezhan.rules import Rules
from xuezhan.runtime import HandDriver, Seat, bot_seed

H, R = "heuristic", "random"


def _rule_sets() -> list[tuple[str, Rules, tuple[str, ...], int]]:
    """(name, rules, bots, hands): the presets with four heuristic seats and mixed seats, then random
    mixes of options and seats."""
    qq, chengdu = Rules.preset("qq"), Rules.preset("chengdu")
    sets: list[tuple[str, Rules, tuple[str, ...], int]] = [
        ("qq", qq, (H, H, H, H), 800), ("chengdu", chengdu, (H, H, H, H), 800),
        ("qq-mixed", qq, (H, R, H, R), 250), ("chengdu-mixed", chengdu, (R, R, H, R), 250),
    ]
    rng = random.Random(2027)
    while sum(n for *_, n in sets) < 4_000:
        options: dict[str, Any] = {k: rng.choice(v) for k, v in _VALUES.items() if rng.random() < 0.5}
        options["fan"] = {k: rng.choice(v) for k, v in _FANS.items() if rng.random() < 0.3}
        rules = _build(rng.choice(("qq", "chengdu")), options)
        bots = tuple(rng.choice((H, H, R)) for _ in range(4))
        if rules is not None and H in bots:
            sets.append((f"mix-{len(sets)}", rules, bots, 60))
    return sets


RULE_SETS = _rule_sets()


@pytest.mark.parametrize(("name", "rules", "bots", "hands"), RULE_SETS, ids=[s[0] for s in RULE_SETS])
def test_records_are_byte_identical(name: str, rules: Rules, bots: tuple[str, ...], hands: int) -> None:
    seed = sum(name.encode()) + 7
    py = python_records(hands, seed, rules, bots)
    nat = native_records(hands, seed, rules, bots)
    assert len(py) == len(nat) == hands
    for k, (a, b) in enumerate(zip(py, nat, strict=True)):
        assert a == b, f"hand {k + 1} of {name} differs"


def test_the_compared_hands_hold_every_kind_of_move() -> None:
    # the differential compares the heuristic's exchanges, claims, kongs and wins, not only discards
    seen: Counter[str] = Counter()
    for name, rules, bots, hands in RULE_SETS:
        for line in native_records(hands, sum(name.encode()) + 7, rules, bots):
            for e in json.loads(line)["result"]["events"]:
                seen[e["type"]] += 1
                seen["robbed"] += bool(e.get("robbing"))
    for kind in ("exchange", "dingque", "peng", "angang", "bugang", "zhigang", "hu", "pass_hu", "wall_empty",
                 "robbed"):
        assert seen[kind] > 0, kind


def test_the_quick_variant_plays_as_in_python() -> None:
    rules = Rules.preset("chengdu").with_options({"blood_river": True, "exchange_three": "random"})
    quick = (native.HEURISTIC_QUICK,) * 4
    rng = random.Random(3)
    for preset in (rules, Rules.preset("qq")):
        words = native.marshal_rules(preset)
        for _ in range(120):
            seed = rng.getrandbits(64)
            game = Game.new(preset, rng=random.Random(seed))
            seats = [Seat.of_bot(HeuristicBot(random.Random(0), quick=True)) for _ in range(4)]
            HandDriver(game, seats, seed=seed).run()
            raw = core.play([seed], -1, False, words, quick, True)[0]
            nat = native.NativeHand(seed, *raw).record(preset)
            assert json.dumps(record_json(game)) == json.dumps(nat), seed


def test_decision_by_decision_the_core_chooses_as_the_bot() -> None:
    # NativeGame's hand asked for the compiled bot's choice at every decision of a Python hand
    rules = Rules.preset("qq").with_options({"dingque": False, "exchange_three": "opposite"})
    bot = HeuristicBot(random.Random(0))
    decisions = 0
    for seed in range(12):
        py = Game.new(rules, rng=random.Random(seed))
        nat = native.NativeGame(rules, seed)
        while not py.over:
            seat = py.pending()[0]
            legal = py.legal_actions(seat)
            k = nat._hand.choose(seat, 1)
            assert k is not None
            action = bot.choose(py.view(seat), legal)
            assert legal[k] == action, (seed, len(py.actions))
            py.apply(action)
            nat.apply(action)
            decisions += len(legal) > 1
        assert nat._hand.choose(0, 1) is None  # nothing to decide once the hand is over
    assert decisions > 300
    with pytest.raises(ValueError, match="no compiled bot"):
        nat._hand.choose(0, 9)


def test_the_core_computes_shanten_as_hand_shanten() -> None:
    rng = random.Random(11)
    pool = [t for t in range(27) for _ in range(4)]
    for _ in range(20_000):
        n = rng.randrange(5)
        size = rng.randrange(15) if rng.random() < 0.2 else 14 - 3 * n - rng.randrange(2)
        suits = rng.sample(range(3), 2)
        tiles = rng.sample([t for t in pool if t // 9 in suits or rng.random() < 0.15], size)
        counts = [0] * 27
        for t in tiles:
            counts[t] += 1
        meld_suits = rng.randrange(8) if n else 0
        void = rng.choice((None, 0, 1, 2))
        want = shanten(counts, n, meld_suits=meld_suits, void=void)
        assert core.shanten(bytes(counts), n, meld_suits, -1 if void is None else void) == want, (counts, n)
    with pytest.raises(ValueError):
        core.shanten(bytes([5] + [0] * 26), 0, 0, -1)


def test_heuristic_self_play_runs_on_the_core(capsys: pytest.CaptureFixture[str]) -> None:
    assert native.refusal(Rules.preset("qq"), [H, R, H, H]) is None
    rc, data = run_json(capsys, "simulate", "--games", "30", "--bots", "heuristic", "--seed", "4", "--rules",
                        "chengdu", "--engine", "native")
    assert rc == 0 and data["engine"] == "native" and "native_refused" not in data
    rc, py = run_json(capsys, "simulate", "--games", "30", "--bots", "heuristic", "--seed", "4", "--rules",
                      "chengdu", "--engine", "python")
    for x in (data, py):
        x.pop("engine")
        x.pop("hands_per_second")
    assert data == py


# --- search play-outs from a hand in the middle (native.play_out) -------------------------------------------


def _positions(rng: random.Random, hands: int) -> list[Game]:
    """Hands stopped at random decisions, half of them as a seat's sampled world."""
    out: list[Game] = []
    bot = HeuristicBot(random.Random(0))
    for _ in range(hands):
        options: dict[str, Any] = {k: rng.choice(v) for k, v in _VALUES.items() if rng.random() < 0.5}
        rules = _build(rng.choice(("qq", "chengdu")), options) or Rules.preset("qq")
        game = Game.new(rules, rng=random.Random(rng.getrandbits(64)))
        while not game.over:
            seat = game.pending()[0]
            legal = game.legal_actions(seat)
            if rng.random() < 0.06:
                out.append(sample_world(game.view(seat), rng) if rng.random() < 0.5 else game.copy())
            game.apply(bot.choose(game.view(seat), legal) if len(legal) > 1 and rng.random() < 0.8
                       else rng.choice(legal))
    return out


def test_a_hand_in_the_middle_is_played_out_as_by_the_python_engine() -> None:
    seats = [Seat.of_bot(HeuristicBot(random.Random(0), quick=True)) for _ in range(4)]
    kinds: Counter[str] = Counter()
    for world in _positions(random.Random(21), 50):
        state = playout_state(world)
        assert state is not None
        seat = world.pending()[0]
        for action in world.legal_actions(seat):
            game = world.copy()
            game.apply(action)
            if not game.over:
                HandDriver(game, seats).run()
            assert play_out(world, state, action) == tuple(game.deltas()), (action, world.phase)
            kinds[f"{world.phase}:{action.type}"] += 1
        assert play_out(world, state, None) == play_out(world, state, None)  # the state is not consumed
    for kind in ("turn:discard", "turn:gang", "claim:peng", "claim:pass", "claim:hu", "dingque:dingque"):
        assert kinds[kind] > 0, kind


def test_a_play_out_with_the_live_wall_in_another_order_is_the_python_engines() -> None:
    seats = [Seat.of_bot(HeuristicBot(random.Random(0), quick=True)) for _ in range(4)]
    rng = random.Random(8)
    changed = 0
    for world in _positions(random.Random(22), 30):
        state = playout_state(world)
        assert state is not None
        seat = world.pending()[0]
        for action in world.legal_actions(seat)[:3]:
            wall_seed = rng.getrandbits(64) | 1
            game = world.copy()
            reshuffle_wall(game, wall_seed)
            assert sorted(game.live_wall) == sorted(world.live_wall)  # the same tiles
            changed += game.live_wall != world.live_wall
            game.apply(action)
            if not game.over:
                HandDriver(game, seats).run()
            assert play_out(world, state, action, QUICK_BOTS, wall_seed) == tuple(game.deltas())
        # a world's batch: every wall order (0: as dealt) of every action, seeds outer
        actions = [*world.legal_actions(seat)[:3], None]
        seeds = [0, rng.getrandbits(64) | 1, rng.getrandbits(64) | 1]
        assert play_outs(world, state, actions, QUICK_BOTS, seeds) == [
            play_out(world, state, a, QUICK_BOTS, s) for s in seeds for a in actions]
    assert changed > 20


@pytest.mark.parametrize(("quick_self", "quick_others"), [(True, True), (False, True), (True, False)])
def test_the_expert_decides_the_same_with_compiled_play_outs(quick_self: bool, quick_others: bool) -> None:
    rng = random.Random(5)
    searched = 0
    for preset in ("qq", "chengdu", "qq"):
        seed = rng.getrandbits(64)
        game = Game.new(Rules.preset(preset), rng=random.Random(seed))
        compiled = [ExpertBot(random.Random(1), playouts=12) for _ in range(4)]
        python = [ExpertBot(random.Random(1), playouts=12) for _ in range(4)]
        for s in range(4):
            for bot in (compiled[s], python[s]):  # the heuristic's play-outs, which both can play
                bot.quick_self, bot.quick_others = quick_self, quick_others
                bot.learned_self = bot.learned_others = False
            python[s].native_playouts = False
            compiled[s].start_hand(bot_seed(seed, s))
            python[s].start_hand(bot_seed(seed, s))
        while not game.over:
            seat = game.pending()[0]
            legal = game.legal_actions(seat)
            want = python[seat].choose(game.view(seat), legal)
            assert compiled[seat].choose(game.view(seat), legal) == want
            view = game.view(seat)
            searched += len(python[seat].candidates(view, legal, python[seat].policy.choose(view, legal))) > 1
            game.apply(want)
    assert searched > 10


def test_what_the_core_cannot_hold_is_played_out_in_python(monkeypatch: pytest.MonkeyPatch) -> None:
    game = Game.new(Rules.preset("qq"), rng=random.Random(3))
    state = playout_state(game)
    assert state is not None
    with monkeypatch.context() as m:  # without the core, the expert searches in Python
        m.setattr(native, "_core", None)
        assert playout_state(game) is None
        bot = ExpertBot(random.Random(1))
        seat = game.pending()[0]
        assert bot.choose(game.view(seat), game.legal_actions(seat)) in game.legal_actions(seat)
    for bad, action, why in ((state[:-8], None, "malformed"), (state + state, None, "malformed"),
                             (state, Action(0, ActionType.DISCARD, tile=0), "not legal")):
        with pytest.raises(XuezhanError, match=why) as info:
            play_out(game, bad, action)
        assert info.value.code == "bad_batch"
    for wall_seed in (-1, 1 << 64):
        with pytest.raises(XuezhanError, match="wall seed") as info:
            play_out(game, state, None, QUICK_BOTS, wall_seed)
        assert info.value.code == "bad_batch"
    game.apply(Action(2, ActionType.ESCAPE))  # the core has no escapes (the expert plays such a hand in Python)
    assert playout_state(game) is None
