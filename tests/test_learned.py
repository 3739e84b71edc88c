"""The learned bot: its shipped weights, legal and deterministic play on both presets, its errors,
its action features on positions written as tile strings, and a training run that reproduces."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from test_heuristic import Position as HeuristicPosition

from xuezhan.bots import BOTS, LearnedBot, make_bot
from xuezhan.bots import learned as learned_module
from xuezhan.bots.learned import ACTION_FEATURES, NA, NT, SHAPES, TABLE_FEATURES, WEIGHTS, features, load_weights
from xuezhan.engine.actions import Action, ActionType
from xuezhan.engine.deal import random_deal
from xuezhan.engine.game import Game
from xuezhan.engine.views import SeatView
from xuezhan.errors import XuezhanError
from xuezhan.ids import ErrorCode
from xuezhan.rules import Rules
from xuezhan.selfplay import play_hand
from xuezhan.tiles import parse_tile

A = {name: i for i, name in enumerate(ACTION_FEATURES)}
T = {name: i for i, name in enumerate(TABLE_FEATURES)}


# --- the shipped weights ---------------------------------------------------------------------------
def test_the_weights_ship_with_their_manifest() -> None:
    assert WEIGHTS.is_file() and WEIGHTS.stat().st_size < 1_000_000
    arrays = load_weights()
    assert {k: a.shape for k, a in arrays.items()} == SHAPES
    manifest = json.loads(WEIGHTS.with_suffix(".json").read_text(encoding="utf-8"))
    for key in ("version", "command", "seed", "data", "league"):
        assert key in manifest
    assert manifest["format"] == learned_module.FORMAT
    assert "scripts/train_learned.py" in manifest["command"]


def test_learned_is_a_bot_by_name() -> None:
    assert BOTS["learned"] is LearnedBot
    bot = make_bot("learned")
    assert isinstance(bot, LearnedBot) and bot.name == "learned"


class Checked:
    """Plays as ``inner`` and checks that each action it takes is among the legal ones."""

    def __init__(self, inner: LearnedBot) -> None:
        self.inner = inner
        self.name = inner.name
        self.taken: list[Action] = []

    def start_hand(self, seed: int) -> None:
        self.inner.start_hand(seed)

    def choose(self, view: SeatView, legal: Any) -> Action:
        a = self.inner.choose(view, legal)
        assert a in legal
        self.taken.append(a)
        return a


@pytest.mark.parametrize("preset", ["qq", "chengdu"])
def test_plays_whole_hands_legally_and_deterministically(preset: str) -> None:
    rules = Rules.preset(preset)
    runs = []
    for _ in range(2):
        taken = []
        for seed in range(8):
            bots = [Checked(LearnedBot()) for _ in range(4)]
            game = play_hand(Game(rules, random_deal(random.Random(seed), seed % 4), seed % 4), bots)
            assert game.over
            taken.append([a for b in bots for a in b.taken])
        runs.append(taken)
    assert runs[0] == runs[1]


# --- errors ----------------------------------------------------------------------------------------
@pytest.mark.usefixtures("no_numpy")
def test_without_numpy_the_bot_answers_missing_extra() -> None:
    with pytest.raises(XuezhanError) as err:
        make_bot("learned")
    assert err.value.code == ErrorCode.MISSING_EXTRA


def test_the_shipped_weights_are_read_once_and_shared_read_only() -> None:
    """Every ``learned`` bot (and every expert's first choice) of a process shares one read of the
    shipped weights; no player can change them for the others. Another file is read afresh."""
    from xuezhan.bots import ExpertBot
    from xuezhan.bots.learned import shipped_weights

    a, b = LearnedBot(), LearnedBot()
    expert = ExpertBot(random.Random(0))
    assert isinstance(expert.default, LearnedBot)
    assert a.net.arrays is b.net.arrays is expert.default.net.arrays is shipped_weights()
    for name, array in load_weights().items():
        assert np.array_equal(a.net.arrays[name], array)
    with pytest.raises(ValueError):
        a.net.arrays["s_b0"][0] = 1.0
    assert LearnedBot(path=WEIGHTS).net.arrays is not a.net.arrays


def test_a_corrupted_weights_file_is_bad_policy(tmp_path: Path) -> None:
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"PK\x03\x04 not a zip at all")
    with pytest.raises(XuezhanError) as err:
        LearnedBot(path=junk)
    assert err.value.code == ErrorCode.BAD_POLICY


def test_a_wrong_shape_is_bad_policy(tmp_path: Path) -> None:
    arrays = dict(load_weights())
    arrays["s_w1"] = np.zeros((3, 3), dtype=np.float32)
    wrong = tmp_path / "wrong.npz"
    np.savez(wrong, **arrays)
    with pytest.raises(XuezhanError) as err:
        LearnedBot(path=wrong)
    assert err.value.code == ErrorCode.BAD_POLICY and "s_w1" in str(err.value)


def test_a_missing_file_is_unreadable(tmp_path: Path) -> None:
    with pytest.raises(XuezhanError) as err:
        LearnedBot(path=tmp_path / "none.npz")
    assert err.value.code == ErrorCode.UNREADABLE


# --- features on positions -------------------------------------------------------------------------
@dataclass
class Position(HeuristicPosition):
    """What seat 0 sees, as tile strings: the heuristic's tests' position (the members a bot
    reads), with the tile just drawn and the points so far, which the features read too."""

    live: int = 40
    drawn: int | None = None

    def deltas(self) -> list[int]:
        return [0, 0, 0, 0]


def discard(tile: str) -> Action:
    return Action(0, ActionType.DISCARD, tile=parse_tile(tile))


def test_the_discard_that_keeps_the_hand_ready_says_so() -> None:
    # 123m 456m 789p 55p 67p and the void 9s: throwing 9s leaves a hand ready on 5p/8p
    pos = Position("123m 456m 789p 55p 67p 9s")
    legal = [discard(t) for t in ("9s", "1m", "5p", "7p")]
    table, rows = features(pos.view(), legal)
    assert len(table) == NT and all(len(r) == NA for r in rows)
    assert table[T["shanten"]] == 0.0 and table[T["void_held"]] > 0  # ready in shape, a void tile held
    void, one_m, five_p, seven_p = rows
    assert void[A["discard"]] == 1.0 and void[A["void_tile"]] == 1.0
    assert void[A["after_0"]] == 1.0 and void[A["shanten_change"]] == 0.0
    assert void[A["waits"]] == 5 / 8  # waits 5p and 8p: two live copies of 5p (two in hand), three of 8p
    assert void[A["ready_worth"]] > 0.0
    for row in (one_m, five_p, seven_p):  # each of these throws away the readiness
        assert row[A["after_0"]] == 0.0 and row[A["void_tile"]] == 0.0
        assert row[A["shanten_change"]] >= 1.0 and row[A["ready_worth"]] == 0.0


def test_effective_tiles_and_danger_of_discards_one_step_from_ready() -> None:
    # no void tile left; one step from ready after either 9m or 2p (three sets, a pair, two loose tiles)
    pos = Position("123m 456m 9m 789p 55p 6p 2p", rivers={1: "9m 9m"}, pengs={1: "111p 333p 444p"})
    legal = [discard("9m"), discard("2p")]
    table, rows = features(pos.view(), legal)
    assert table[T["threat_top"]] > 0.5  # three pengs: likely ready
    nine_m, two_p = rows
    assert nine_m[A["after_1"]] == 1.0 and two_p[A["after_1"]] == 1.0
    assert nine_m[A["effective"]] > 0 and two_p[A["effective"]] > 0
    assert two_p[A["danger"]] > nine_m[A["danger"]]  # its suit is the one seat 1 builds in; 9m it threw itself
    assert nine_m[A["seen"]] == 3 / 4


def test_a_peng_and_a_pass_on_offer() -> None:
    pos = Position("55p 123m 456m 78p 99s", phase="claim", offered="5p", void_suits=("s", "m", "m", "m"))
    legal = [Action(0, ActionType.PENG), Action(0, ActionType.PASS)]  # the peng's tile: the offered one
    table, rows = features(pos.view(), legal)
    assert table[T["phase_claim"]] == 1.0
    peng, pass_ = rows
    assert peng[A["peng"]] == 1.0 and pass_[A["pass"]] == 1.0
    assert peng[A["shanten_change"]] <= 0.0


# --- training --------------------------------------------------------------------------------------
def test_a_tiny_training_run_reproduces_bit_for_bit(tmp_path: Path) -> None:
    from xuezhan.rl.train import TrainConfig, save_weights, train

    cfg = TrainConfig(seed=3, teacher="heuristic", imitation_hands=12, imitation_epochs=2, rl_iterations=2,
                      rl_deals=3, snapshot_every=1)
    first, summary = train(cfg)
    second, _ = train(cfg)
    assert all(np.array_equal(first[k], second[k]) for k in SHAPES)
    assert summary["imitation_decisions"] > 100 and len(summary["rl_points_per_round"]) == 2
    other, _ = train(TrainConfig(**{**cfg.__dict__, "seed": 4}))
    assert not np.array_equal(first["s_w0"], other["s_w0"])
    path = tmp_path / "tiny.npz"
    save_weights(first, path, {"version": 0, "seed": 3})
    bot = LearnedBot(path=path)  # the file trains and loads as the bot's own
    assert json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))["seed"] == 3
    others = [make_bot("heuristic") for _ in range(3)]
    game = play_hand(Game(Rules.preset("qq"), random_deal(random.Random(5), 0), 0), [bot, *others])
    assert game.over


def test_credit_by_lambda_follows_each_seat_s_decisions_of_a_play() -> None:
    """Generalised advantage estimation: a decision's credit is the value after it less the value
    before it, plus λ times the next decision's credit; the hand's points are the last value."""
    from xuezhan.rl.train import Decision, _credit

    def hand(play: int, seat: int, ret: float, n: int) -> list[Decision]:
        return [Decision([], [], 0, seat, ret=ret, play=play) for _ in range(n)]

    a, b, c = hand(0, 0, 5.0, 3), hand(0, 2, -1.0, 2), hand(1, 0, 2.0, 1)
    decisions = [a[0], b[0], a[1], b[1], c[0], a[2]]  # two seats and two plays interleaved
    values = [1.0, 0.5, 4.0, -0.5, 1.5, 3.0]
    _credit(decisions, values, 0.5)
    assert [d.advantage for d in a] == [3.0 + 0.5 * 0.0, (3.0 - 4.0) + 0.5 * 2.0, 5.0 - 3.0]
    assert [d.advantage for d in b] == [-1.0 + 0.5 * -0.5, -1.0 + 0.5]
    assert c[0].advantage == 0.5
    _credit(decisions, values, 1.0)  # λ 1: the hand's points less the value before each decision
    assert [d.advantage for d in a] == [4.0, 1.0, 2.0] and [d.advantage for d in b] == [-1.5, -0.5]


def test_a_tiny_run_with_credit_by_lambda_trains_and_reproduces() -> None:
    from xuezhan.rl.train import TrainConfig, train

    cfg = TrainConfig(seed=3, imitation_hands=0, init=str(WEIGHTS), rl_iterations=1, rl_deals=2, rl_samples=2,
                      gae_lambda=0.9)
    first, _ = train(cfg)
    second, _ = train(cfg)
    plain, _ = train(TrainConfig(**{**cfg.__dict__, "gae_lambda": 1.0}))
    assert all(np.array_equal(first[k], second[k]) for k in SHAPES)
    assert not np.array_equal(first["s_w0"], plain["s_w0"])  # the credit changed the step


def test_the_improvement_reproduces_whatever_the_workers() -> None:
    from xuezhan.rl.train import TrainConfig, train

    cfg = TrainConfig(seed=5, imitation_hands=0, rl_iterations=0, init=str(WEIGHTS), improve_rounds=1,
                      improve_hands=4, improve_epochs=2)
    one, summary = train(cfg, workers=1)
    two, _ = train(cfg, workers=2)
    assert all(np.array_equal(one[k], two[k]) for k in SHAPES)
    assert summary["improve_decisions"][0] > 10
    start = load_weights(WEIGHTS)
    assert not np.array_equal(one["s_w0"], start["s_w0"])  # the play-outs moved the network
    assert np.array_equal(one["v_w0"], start["v_w0"])  # and only its scorer


def test_the_labels_play_out_the_network_s_best_candidates() -> None:
    from xuezhan.bots.learned import LearnedNet
    from xuezhan.rl.train import TrainConfig, _LabelShard
    from xuezhan.scale import Shard

    cfg = TrainConfig(improve_share=1.0, improve_candidates=2, improve_orders=2)
    arrays = load_weights(WEIGHTS)
    labels = _LabelShard(arrays, cfg, 0)(Shard(0, 0, 2))
    net = LearnedNet(arrays)
    assert len(labels) > 20
    for label in labels:
        scores = net.scores(label.table, label.rows)
        top = max(range(len(scores)), key=scores.__getitem__)
        assert label.candidates[0] == top and len(set(label.candidates)) == len(label.candidates)
        assert 2 <= len(label.candidates) <= 3 and all(0 <= c < len(label.rows) for c in label.candidates)
        assert all(abs(p) < 1000 for p in label.points)
    # a decision's play-outs differ between candidates somewhere: they are not the same hand
    assert any(len(set(label.points)) > 1 for label in labels)


def test_the_improvement_moves_the_choice_towards_the_best_played_candidate() -> None:
    import torch

    from xuezhan.bots.learned import LearnedNet
    from xuezhan.rl.train import Label, Model, TrainConfig, _improve

    rng = np.random.default_rng(7)
    arrays = load_weights(WEIGHTS)
    net = LearnedNet(arrays)
    labels = []
    for _ in range(200):
        table = rng.random(NT).round(3).tolist()
        rows = rng.random((4, NA)).round(3).tolist()
        scores = net.scores(table, rows)
        order = sorted(range(4), key=lambda i: -scores[i])[:3]
        # the network's last choice of the three played out best
        labels.append(Label(table, rows, order, [-5.0, -5.0, 5.0]))
    model = Model(torch, 0)
    model.load(arrays)
    cfg = TrainConfig(improve_epochs=30, improve_lr=1e-2, improve_kl=0.0)
    gain = _improve(model, labels, cfg, random.Random(0), lambda s: None)
    assert gain > 0.0  # its first choice started 3.33 below the candidates' mean


def test_the_training_script_refuses_bad_input_with_a_code(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                           load_script: Callable[[str], ModuleType]) -> None:
    """Bad workers, a missing ``--init`` file or an output it cannot write: a line with the code, exit 2, no
    traceback, no weights."""
    script = load_script("scripts/train_learned.py")
    out = tmp_path / "w.npz"
    for args, code in ((["--workers", "0"], "bad_workers"), (["--init", str(tmp_path / "none.npz")], "unreadable"),
                       (["--gae-lambda", "1.5"], "bad_config"), (["--gae-lambda", "-0.1"], "bad_config")):
        assert script.main([*args, "--imitation-hands", "0", "--rl-iterations", "0", "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert f"train_learned.py: {code}:" in err and "Traceback" not in err
    assert not out.exists()
    blocked = tmp_path / "file"
    blocked.write_text("not a folder", encoding="utf-8")
    for args in (["--out", str(blocked / "w.npz")], ["--out", str(out), "--checkpoints", str(blocked / "c")]):
        assert script.main(["--imitation-hands", "0", "--rl-iterations", "0", *args]) == 2
        err = capsys.readouterr().err
        assert "train_learned.py: unwritable:" in err and "Traceback" not in err
    assert not out.exists()


def test_the_training_script_plays_the_improvement_on_the_core_when_asked(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, load_script: Callable[[str], ModuleType],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from xuezhan import native

    script = load_script("scripts/train_learned.py")
    out = tmp_path / "w.npz"
    tiny = ["--imitation-hands", "0", "--rl-iterations", "0", "--init", str(WEIGHTS), "--improve-rounds", "1",
            "--improve-hands", "2", "--improve-epochs", "1", "--out", str(out)]
    assert script.main([*tiny, "--improve-core", "--improve-orders", "4"]) == 0
    manifest = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    assert manifest["config"]["improve_core"] is True and "on the compiled core" in manifest["data"]
    assert script.main([*tiny, "--no-improve-core"]) == 0
    assert json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))["config"]["improve_core"] is False
    # without the core: a line with the code before any training, no traceback, no weights
    out.unlink()
    monkeypatch.setattr(native, "available", lambda: False)
    assert script.main([*tiny, "--improve-core"]) == 2
    err = capsys.readouterr().err
    assert "train_learned.py: native_unavailable:" in err and "Traceback" not in err
    assert not out.exists()


def test_the_core_plays_the_improvement_s_play_outs_as_the_match_runtime_does(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from xuezhan import native
    from xuezhan.bots.heuristic import HeuristicBot
    from xuezhan.bots.learned import LearnedNet
    from xuezhan.engine.game import Game
    from xuezhan.rl.train import TrainConfig, _Labeller
    from xuezhan.rules import Rules
    from xuezhan.runtime import HandDriver, Seat

    arrays = load_weights(WEIGHTS)
    opponent = HeuristicBot(random.Random(0))
    found: dict[bool, list[tuple[list[int], list[float]]]] = {}
    calls: list[int] = []
    play_outs = native.play_outs

    def spy(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return play_outs(*args, **kwargs)

    monkeypatch.setattr(native, "play_outs", spy)
    for core in (False, True):
        cfg = TrainConfig(improve_share=0.5, improve_candidates=3, improve_orders=3, improve_core=core)
        game = Game.new(Rules.preset("chengdu"), seed=41)
        seat = _Labeller(LearnedNet(arrays), cfg, random.Random(41), game, (0, 2), opponent, 1.0)
        # the heuristic after the decision at every seat, in Python and in C: the same play-outs
        seat.greedy = opponent
        if core:
            assert seat.core_bots == (native.LEARNED, native.HEURISTIC, native.LEARNED, native.HEURISTIC)
            seat.core_bots = (native.HEURISTIC,) * 4
        else:
            assert seat.core_bots is None
        HandDriver(game, [Seat.of_bot(seat if o in (0, 2) else opponent) for o in range(4)]).run()
        found[core] = [(x.candidates, x.points) for x in seat.labels]
        assert len(calls) == (len(seat.labels) if core else 0)  # the core played every label's play-outs, or none
    assert len(found[True]) > 5
    assert found[True] == found[False]
    assert any(len(set(points)) > 1 for _, points in found[True])


def test_the_improvement_on_the_core_reproduces_and_moves_the_scorer() -> None:
    from xuezhan.rl.train import TrainConfig, train

    cfg = TrainConfig(seed=6, imitation_hands=0, rl_iterations=0, init=str(WEIGHTS), improve_rounds=1,
                      improve_hands=4, improve_epochs=2, improve_core=True, improve_orders=16)
    one, summary = train(cfg, workers=1)
    two, _ = train(cfg, workers=2)
    assert all(np.array_equal(one[k], two[k]) for k in SHAPES)
    assert summary["improve_decisions"][0] > 10
    assert not np.array_equal(one["s_w0"], load_weights(WEIGHTS)["s_w0"])
