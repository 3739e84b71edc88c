"""The compiled learned bot (``csrc/xz_learned.c``) against :class:`LearnedBot`, the reference.

Decision by decision over seeded hands (both presets, random mixes of the options of
docs/rules.md §14, the exchange and 定缺 included), the core's features of every legal action are
:func:`xuezhan.bots.learned.features` to the float, and it plays the action the Python network
scores highest, but where two scores lie within a float32 rounding of each other (the sums run in
another order than numpy's). The expert's play-outs by the network use it.
"""

from __future__ import annotations

import random
import subprocess
import sys
from typing import Any, NoReturn

import numpy as np
import pytest
from test_native import _FANS, _VALUES, _build

import xuezhan.native._core as core
from xuezhan import native
from xuezhan.bots.expert import ExpertBot
from xuezhan.bots.learned import LearnedBot, features, load_weights, shipped_weights
from xuezhan.engine.actions import ActionType
from xuezhan.engine.game import Game
from xuezhan.errors import XuezhanError
from xuezhan.rules import Rules

TIE = 1e-4
"""Scores closer than this may be ranked either way (float32 sums in another order)."""


def _rule_sets() -> list[tuple[str, Rules, int]]:
    sets: list[tuple[str, Rules, int]] = [
        ("qq", Rules.preset("qq"), 25), ("chengdu", Rules.preset("chengdu"), 25),
        ("chengdu-exchange", Rules.preset("chengdu").with_options({"exchange_three": "opposite"}), 8),
    ]
    rng = random.Random(2028)
    while len(sets) < 15:
        options: dict[str, Any] = {k: rng.choice(v) for k, v in _VALUES.items() if rng.random() < 0.5}
        options["fan"] = {k: rng.choice(v) for k, v in _FANS.items() if rng.random() < 0.3}
        rules = _build(rng.choice(("qq", "chengdu")), options)
        if rules is not None:
            sets.append((f"mix-{len(sets)}", rules, 6))
    return sets


RULE_SETS = _rule_sets()


class Networked(ExpertBot):
    """The expert with the network at every seat of its compiled play-outs."""

    learned_self = True
    learned_others = True


@pytest.fixture(scope="module")
def weights() -> dict[str, Any]:
    arrays = shipped_weights()
    assert native.use_learned_weights(arrays)
    return arrays


@pytest.mark.parametrize(("name", "rules", "hands"), RULE_SETS, ids=[s[0] for s in RULE_SETS])
def test_features_and_choices_are_the_python_bots(name: str, rules: Rules, hands: int,
                                                   weights: dict[str, Any]) -> None:
    bot = LearnedBot(arrays=weights)
    seen: set[str] = set()
    decisions = differ = 0
    for seed in range(hands):
        seed += sum(name.encode())
        py = Game.new(rules, rng=random.Random(seed))
        nat = native.NativeGame(rules, seed)
        while not py.over:
            seat = py.pending()[0]
            legal = py.legal_actions(seat)
            view = py.view(seat)
            got = nat.learned_features(seat)
            assert got is not None
            table, rows = features(view, legal)
            want = np.array([table + r for r in rows], dtype=np.float32)
            have = np.array([got[0] + r for r in got[1]], dtype=np.float32)
            assert np.array_equal(want, have), (name, seed, len(py.actions))
            k = nat._hand.choose(seat, native.LEARNED)
            action = bot.choose(view, legal)
            if len(legal) > 1:
                decisions += 1
                seen.add(f"{view.phase}:{legal[k].type}")
                if legal[k] != action:  # a near tie, ranked the other way by the rounding
                    differ += 1
                    scores = bot.net.scores(table, rows)
                    assert abs(scores[k] - scores[legal.index(action)]) < TIE
            py.apply(action)
            nat.apply(action)
        assert nat.learned_features(0) is None  # nothing to decide once the hand is over
    assert decisions > 20 * hands
    assert differ <= max(2, decisions // 50)  # near ties are rare
    if name in ("qq", "chengdu"):  # every kind of decision met, not only discards
        kinds = {s.split(":")[1] for s in seen}
        assert {str(t) for t in (ActionType.DISCARD, ActionType.PENG, ActionType.GANG, ActionType.DINGQUE,
                                 ActionType.PASS, ActionType.HU)} <= kinds, seen
    if name == "chengdu-exchange":
        assert any(s.startswith("exchange:") for s in seen), seen


def test_bad_weights_are_refused_and_change_nothing(weights: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="float32 values"):
        core.set_learned(b"\0" * 12)
    broken = {k: v for k, v in weights.items() if k != "s_w1"}
    with pytest.raises(XuezhanError) as err:
        native.use_learned_weights(broken)
    assert err.value.code == "bad_policy"
    short = dict(weights, s_b2=np.zeros(2, dtype=np.float32))
    with pytest.raises(XuezhanError) as err:
        native.use_learned_weights(short)
    assert err.value.code == "bad_policy"
    # the shipped weights still play: the same choices as before the refusals
    rules = Rules.preset("qq")
    nat = native.NativeGame(rules, 5)
    py = Game.new(rules, rng=random.Random(5))
    bot = LearnedBot(arrays=weights)
    while not py.over:
        seat = py.pending()[0]
        legal = py.legal_actions(seat)
        action = bot.choose(py.view(seat), legal)
        if len(legal) > 1:
            assert legal[nat._hand.choose(seat, native.LEARNED)] == action
        py.apply(action)
        nat.apply(action)


def test_other_weights_play_as_their_python_bot(tmp_path: Any) -> None:
    rng = np.random.default_rng(3)
    arrays = {k: (v + rng.normal(0, 0.05, v.shape)).astype(np.float32) for k, v in load_weights().items()}
    try:
        assert native.use_learned_weights(arrays)
        bot = LearnedBot(arrays=arrays)
        rules = Rules.preset("chengdu")
        for seed in range(4):
            py = Game.new(rules, rng=random.Random(seed))
            nat = native.NativeGame(rules, seed)
            while not py.over:
                seat = py.pending()[0]
                legal = py.legal_actions(seat)
                action = bot.choose(py.view(seat), legal)
                if len(legal) > 1:
                    k = nat._hand.choose(seat, native.LEARNED)
                    if legal[k] != action:
                        table, rows = features(py.view(seat), legal)
                        scores = bot.net.scores(table, rows)
                        assert abs(scores[k] - scores[legal.index(action)]) < TIE
                py.apply(action)
                nat.apply(action)
    finally:
        assert native.use_learned_weights(shipped_weights())


def test_the_learned_code_needs_weights_first() -> None:
    code = ("import xuezhan.native as n\n"
            "g = n.NativeGame(n.Rules.preset('qq'), 1)\n"
            "try:\n    g._hand.choose(0, n.LEARNED)\nexcept ValueError as e:\n    print('refused:', e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert "refused: the compiled learned bot has no weights" in out.stdout


def test_the_expert_plays_its_playouts_with_the_network_when_asked(weights: dict[str, Any]) -> None:
    class Mine(ExpertBot):
        learned_self = True

    class Theirs(ExpertBot):
        learned_others = True

    class Full(ExpertBot):
        quick_others = False

    rng = random.Random(0)
    q, h, L = native.HEURISTIC_QUICK, native.HEURISTIC, native.LEARNED
    assert ExpertBot(rng).playout_codes(1) == (q, q, q, q)  # the default: no network in the play-outs
    assert Networked(rng).playout_codes(2) == (L, L, L, L)
    assert Mine(rng).playout_codes(1) == (q, L, q, q)
    assert Theirs(rng).playout_codes(1) == (L, q, L, L)
    assert Full(rng).playout_codes(3) == (h, h, h, q)


def test_without_numpy_the_expert_plays_out_with_the_heuristic(monkeypatch: pytest.MonkeyPatch) -> None:
    from xuezhan.bots import expert

    def missing() -> NoReturn:
        raise XuezhanError("missing_extra", "the learned bot needs numpy")

    monkeypatch.setattr(expert, "shipped_weights", missing)
    monkeypatch.setattr(expert, "LearnedBot", lambda rng: missing())
    bot = Networked(random.Random(0))
    assert bot.playout_codes(0) == (native.HEURISTIC_QUICK,) * 4
    assert bot.default is bot.policy


def test_features_of_a_seat_that_is_not_one_are_refused() -> None:
    game = native.NativeGame(Rules.preset("qq"), 5)
    before = game.record()
    first = game.learned_features(game.pending()[0])
    assert first is not None
    for seat in (-1, 4, 2**70):
        with pytest.raises((ValueError, OverflowError)):
            game.learned_features(seat)
    with pytest.raises(TypeError):
        game.learned_features("0")  # type: ignore[arg-type]
    assert game.record() == before and game.learned_features(game.pending()[0]) == first  # nothing changed
