"""Reading the opponents' hands: the features, the shipped network, its training, its place in the search."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from xuezhan.bots import Expert04Bot, ExpertBot, HeuristicBot
from xuezhan.bots.expert import ReadingExpertBot
from xuezhan.bots.reading import (
    NQ,
    NR,
    READ_FEATURES,
    READ_SHAPES,
    READING_WEIGHTS,
    READY_SHAPES,
    READY_SUMMARY,
    READY_WEIGHTS,
    built_ready_hand,
    hand_weights,
    load_reading,
    load_ready,
    log_weights,
    passed_since,
    read_features,
    ready_features,
    ready_logit,
    ready_probability,
    shipped_reading,
    shipped_ready,
)
from xuezhan.engine import Game, sample_world, seat_view_json
from xuezhan.engine.views import SeatView
from xuezhan.errors import XuezhanError
from xuezhan.hand import shanten, winning_tiles
from xuezhan.ids import ErrorCode
from xuezhan.rules import Rules

F = {name: i for i, name in enumerate(READ_FEATURES)}


def midgame(seed: int, live: int = 40) -> Game:
    game = Game.new(Rules.preset("qq"), seed=seed)
    bot = HeuristicBot(random.Random(0))
    while not game.over and game.live > live:
        seat = next(s for s in game.pending() if game.legal_actions(s))
        game.apply(bot.choose(SeatView(game, seat), game.legal_actions(seat)))
    return game


def test_the_features_say_what_a_seat_threw() -> None:
    game = midgame(12)
    view = SeatView(game, 0)
    for o in (1, 2, 3):
        x = read_features(view, o)
        assert x.shape == (27, NR) and x.dtype == np.float32
        river = view.river(o)
        void = view.voids()[o]
        for t in range(27):
            s, r = divmod(t, 9)
            assert x[t, F["one"]] == 1.0
            assert x[t, F["discarded"]] == river.count(t)
            assert x[t, F["suit_discarded"]] == pytest.approx(
                sum(1 for u in river if u // 9 == s and u // 9 != void) / 5)
            assert x[t, F["terminal"]] == float(r in (0, 8))
            assert x[t, F["void_done"]] + x[t, F["void_held"]] == float(s == void)
            if s == void:
                assert x[t, F["void_done"]] == float(river[-1] // 9 != void)
        assert read_features(view, o).tobytes() == x.tobytes()  # a function of the view


def test_the_features_read_only_what_the_seat_sees() -> None:
    """Two games that differ only in what seat 0 cannot see give seat 0 the same features."""
    game = midgame(12)
    view = SeatView(game, 0)
    for r in range(4):
        world = sample_world(view, random.Random(r))
        assert seat_view_json(world, 0) == seat_view_json(game, 0)
        for o in (1, 2, 3):
            assert read_features(SeatView(world, 0), o).tobytes() == read_features(view, o).tobytes()


def shipped_training(arrays: dict[str, Any], shapes: dict[str, tuple[int, ...]], weights: Path,
                     fmt: str, command: str) -> dict[str, Any]:
    """Shipped arrays are of their shapes and read-only, and their manifest names its format and the
    command that made them: its ``training`` summary."""
    assert {k: v.shape for k, v in arrays.items()} == shapes
    assert all(not v.flags.writeable for v in arrays.values())
    manifest = json.loads(weights.with_suffix(".json").read_text(encoding="utf-8"))
    assert manifest["format"] == fmt
    assert manifest["command"].startswith(command)
    training: dict[str, Any] = manifest["training"]
    return training


def test_the_shipped_weights_come_with_their_manifest_and_predict_better_than_uniform() -> None:
    arrays = shipped_reading()
    training = shipped_training(arrays, READ_SHAPES, READING_WEIGHTS, "xuezhan-reading-1",
                                "python scripts/train_reading.py")
    assert training["log_loss"] < training["uniform_log_loss"]
    # on hands never trained on, the held tiles are likelier under the network than uniformly
    from xuezhan.rl.reading import ReadingConfig, gather

    examples = gather(ReadingConfig(seed=99, hands=16))
    assert len(examples.held) > 100
    uniform = network = 0.0
    for x, unseen, held in zip(examples.features, examples.unseen, examples.held, strict=True):
        u = np.asarray(unseen, dtype=np.float64)
        c = np.asarray(held, dtype=np.float64)
        for logw, total in ((np.zeros(27), "u"), (log_weights(arrays, x).astype(np.float64), "n")):
            p = u * np.exp(logw)
            p /= p.sum()
            ll = float((c[c > 0] * np.log(p[c > 0])).sum())
            if total == "u":
                uniform += ll
            else:
                network += ll
    assert network > uniform


def test_hand_weights_read_the_opponents_and_leave_the_seat_alone() -> None:
    game = midgame(12)
    view = SeatView(game, 0)
    weights = hand_weights(view)
    assert len(weights) == 4 and weights[0] == [1.0] * 27
    for o in (1, 2, 3):
        assert all(0.0 < w < float("inf") for w in weights[o]) and len(set(weights[o])) > 1
        void = view.voids()[o]
        river = view.river(o)
        if void is not None and river and river[-1] // 9 != void:  # finished with its void: seldom holds it
            assert max(weights[o][void * 9 : void * 9 + 9]) < min(weights[o][t] for t in range(27) if t // 9 != void)
    fresh = Game.new(Rules.preset("qq"), seed=12)  # before 定缺: nothing to read
    assert hand_weights(SeatView(fresh, 0)) == [[1.0] * 27] * 4
    assert ExpertBot(random.Random(0)).world_weights(SeatView(fresh, 0)) is None  # uniform worlds then
    home = Game.new(Rules.preset("qq").with_options({"dingque": False}), seed=12)  # no void ever: uniform too
    bot = HeuristicBot(random.Random(0))
    while not home.over and home.live > 40:
        seat = next(s for s in home.pending() if home.legal_actions(s))
        home.apply(bot.choose(SeatView(home, seat), home.legal_actions(seat)))
    assert ExpertBot(random.Random(0)).world_weights(SeatView(home, 0)) is None


def test_the_expert_deals_its_worlds_by_the_reading_network() -> None:
    game = midgame(12)
    view = SeatView(game, 0)
    expert = ExpertBot(random.Random(0))
    assert ExpertBot.read_worlds and ExpertBot.reading == "network"
    assert expert.world_weights(view) == hand_weights(view)
    assert ReadingExpertBot.reading == "discards" and Expert04Bot(random.Random(0)).world_weights(view) is None
    weights = expert.world_weights(view)
    assert weights is not None
    o = 1
    # the worlds follow the reading: a seat is dealt more of what the network weighs up
    heavy = sorted(range(27), key=lambda t: -weights[o][t])[:9]
    uniform = weighted = 0
    for r in range(150):
        uniform += sum(sample_world(view, random.Random(r)).seat_state(o).counts[t] for t in heavy)
        world = sample_world(view, random.Random(r), None, weights)
        assert seat_view_json(world, 0) == seat_view_json(game, 0) and world.tile_total() == 108
        weighted += sum(world.seat_state(o).counts[t] for t in heavy)
    assert weighted > uniform


def test_without_numpy_the_expert_deals_uniform_worlds(request: pytest.FixtureRequest) -> None:
    game = midgame(12)
    view = SeatView(game, 0)
    expert = ExpertBot(random.Random(0))
    request.getfixturevalue("no_numpy")
    with pytest.raises(XuezhanError) as err:
        hand_weights(view)
    assert err.value.code == ErrorCode.MISSING_EXTRA
    assert expert.world_weights(view) is None


@pytest.mark.parametrize("load", [load_reading, load_ready], ids=["reading", "readiness"])
@pytest.mark.parametrize(("content", "code"), [(b"not a zip", ErrorCode.BAD_POLICY), (None, ErrorCode.UNREADABLE)])
def test_a_bad_weights_file_is_refused(tmp_path: Path, content: bytes | None, code: ErrorCode,
                                       load: Callable[[Path], dict[str, Any]]) -> None:
    path = tmp_path / "w.npz"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(XuezhanError) as err:
        load(path)
    assert err.value.code == code


def test_a_wrong_shape_or_a_value_not_finite_is_refused(tmp_path: Path) -> None:
    good: dict[str, Any] = {k: np.zeros(s, dtype=np.float32) for k, s in READ_SHAPES.items()}
    for name, bad in (("r_w0", np.zeros((3, 3), dtype=np.float32)),
                      ("r_b1", np.array([np.nan], dtype=np.float32))):
        path = tmp_path / f"{name}.npz"
        with path.open("wb") as fh:
            np.savez(fh, **{**good, name: bad})
        with pytest.raises(XuezhanError) as err:
            load_reading(path)
        assert err.value.code == ErrorCode.BAD_POLICY


def test_a_tiny_reading_run_reproduces_bit_for_bit(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   load_script: Callable[[str], ModuleType]) -> None:
    script = load_script("scripts/train_reading.py")
    args = ["--hands", "6", "--epochs", "20"]
    assert script.main([*args, "--out", str(tmp_path / "a.npz")]) == 0
    assert script.main([*args, "--out", str(tmp_path / "b.npz")]) == 0
    a, b = load_reading(tmp_path / "a.npz"), load_reading(tmp_path / "b.npz")
    assert all(np.array_equal(a[k], b[k]) for k in READ_SHAPES)
    manifest = json.loads((tmp_path / "a.json").read_text(encoding="utf-8"))
    assert manifest["config"]["hands"] == 6 and manifest["training"]["examples"] > 20
    assert script.main([*args, "--seed", "2", "--out", str(tmp_path / "c.npz")]) == 0
    assert not np.array_equal(a["r_w0"], load_reading(tmp_path / "c.npz")["r_w0"])
    capsys.readouterr()
    assert script.main(["--hands", "0", "--out", str(tmp_path / "d.npz")]) == 2
    err = capsys.readouterr().err
    assert "train_reading.py: bad_config:" in err and "Traceback" not in err
    assert not (tmp_path / "d.npz").exists()
    blocked = tmp_path / "file"
    blocked.write_text("not a folder", encoding="utf-8")
    assert script.main(["--hands", "2", "--epochs", "2", "--out", str(blocked / "e.npz")]) == 2
    err = capsys.readouterr().err
    assert "train_reading.py: unwritable:" in err and "Traceback" not in err


def test_weights_are_written_by_one_writer_and_read_back(tmp_path: Path) -> None:
    """``save_arrays`` writes what ``load_reading`` reads; an output it cannot write is ``unwritable``."""
    from xuezhan.rl.train import check_writable, save_arrays

    arrays = {k: v.copy() for k, v in shipped_reading().items()}
    save_arrays(arrays, tmp_path / "sub" / "r.npz", READ_SHAPES, {"format": "x"})
    back = load_reading(tmp_path / "sub" / "r.npz")
    assert all(np.array_equal(back[k], arrays[k]) for k in READ_SHAPES)
    assert json.loads((tmp_path / "sub" / "r.json").read_text(encoding="utf-8")) == {"format": "x"}
    blocked = tmp_path / "file"
    blocked.write_text("not a folder", encoding="utf-8")
    with pytest.raises(XuezhanError) as info:
        save_arrays(arrays, blocked / "r.npz", READ_SHAPES)
    assert info.value.code == ErrorCode.UNWRITABLE
    with pytest.raises(XuezhanError) as info:
        check_writable(blocked / "d")
    assert info.value.code == ErrorCode.UNWRITABLE


def test_a_built_ready_hand_is_ready_outside_its_void_and_waits_on_none_it_avoids() -> None:
    rng = random.Random(3)
    built = 0
    for k in range(60):
        unseen = [rng.randint(0, 4) for _ in range(27)]
        size = (13, 10, 7, 4, 1)[k % 5]
        void = k % 3
        avoid = {rng.randrange(27) for _ in range(4)}
        melds = (13 - size) // 3
        hand = built_ready_hand(unseen, size, void, melds, 0, rng, avoid)
        if hand is None:
            continue
        assert sum(hand) == size
        assert all(0 <= h <= u for h, u in zip(hand, unseen, strict=True))
        assert not any(hand[void * 9: void * 9 + 9])
        assert shanten(hand, melds, void=void) == 0
        assert not avoid & set(winning_tiles(hand, melds, void=void))
        built += 1
    assert built > 30


def test_a_hand_built_for_given_waits_waits_on_them() -> None:
    """``built_ready_hand(..., want=)``: the waits of a random ready hand, asked for, are what the
    built hand waits on (nearly always; else the closest found, which shares one of them)."""
    rng = random.Random(5)
    exact = shared = 0
    for k in range(40):
        size, void = (13, 10, 7, 4, 1)[k % 5], k % 3
        melds = (13 - size) // 3
        full = [4] * 27
        model = built_ready_hand(full, size, void, melds, 0, rng, set())
        assert model is not None
        want = set(winning_tiles(model, melds, void=void))
        hand = built_ready_hand(full, size, void, melds, 0, rng, set(), want)
        assert hand is not None and sum(hand) == size and not any(hand[void * 9: void * 9 + 9])
        waits = set(winning_tiles(hand, melds, void=void))
        exact += waits == want
        shared += bool(waits & want)
    assert shared == 40 and exact >= 30


def claim_window(seed: int, rules: str = "chengdu") -> Game | None:
    """The first claim window of a heuristic hand in which a seat may win on the tile on offer."""
    game = Game.new(Rules.preset(rules), seed=seed)
    bot = HeuristicBot(random.Random(0))
    while not game.over:
        seat = next(s for s in game.pending() if game.legal_actions(s))
        legal = game.legal_actions(seat)
        if game.phase == "claim" and any(a.type.name == "HU" for a in legal):
            return game
        game.apply(bot.choose(SeatView(game, seat), legal))
    return None


def test_the_tiles_a_seat_let_go_by_leave_out_the_one_on_offer() -> None:
    game = midgame(12)
    events = [e for e in game.events if e["type"] == "discard"]
    view = SeatView(game, 0)
    for o in (1, 2, 3):
        last = max(i for i, e in enumerate(events) if e["seat"] == o)
        assert passed_since(view, o) == {e["tile"] for e in events[last + 1:] if e["seat"] != o}
    # in a claim window a seat that may win on the tile on offer has not let it go: the heuristic
    # takes every win, so no tile it let go by is among its waits, the one on offer included
    found = 0
    for seed in range(40):
        window = claim_window(seed)
        if window is None:
            continue
        winners = [s for s in range(4) if any(a.type.name == "HU" for a in window.legal_actions(s))]
        for s in winners:
            for seat in range(4):
                assert not passed_since(SeatView(window, seat), s) & set(window.waits(s))
            found += 1
    assert found > 10


def test_the_readiness_features_are_the_reading_and_the_table() -> None:
    game = midgame(12)
    view = SeatView(game, 0)
    for o in (1, 2, 3):
        x = ready_features(view, o)
        assert x.shape == (NQ,) and x.dtype == np.float32 and 27 * NR + len(READY_SUMMARY) == NQ
        assert x[: 27 * NR].tobytes() == read_features(view, o).reshape(-1).tobytes()
        summary = dict(zip(READY_SUMMARY, x[27 * NR:].tolist(), strict=True))
        assert summary["live"] == pytest.approx(view.live / 55)
        assert summary["live_squared"] == pytest.approx((view.live / 55) ** 2)
        assert summary["river"] == pytest.approx(len(view.river(o)) / 20)
        assert summary["melds"] == pytest.approx(len(view.melds(o)) / 4)
        assert summary["table_discards"] == pytest.approx(sum(len(view.river(s)) for s in range(4)) / 60)
        assert summary["passed_since"] == pytest.approx(len(passed_since(view, o)) / 5)
        for r in range(3):  # what the seat cannot see does not enter
            world = sample_world(view, random.Random(r))
            assert ready_features(SeatView(world, 0), o).tobytes() == x.tobytes()


def test_the_readiness_of_constructed_weights_is_their_sigmoid() -> None:
    arrays = {k: np.zeros(shape, dtype=np.float32) for k, shape in READY_SHAPES.items()}
    view = SeatView(midgame(12), 0)
    assert ready_probability(view, 1, arrays) == pytest.approx(0.5)
    arrays["q_b1"][:] = 2.0
    assert ready_probability(view, 1, arrays) == pytest.approx(1 / (1 + np.exp(-2.0)))
    arrays["q_b1"][:] = 100.0  # clipped: never certain
    assert ready_probability(view, 1, arrays) < 1.0
    assert ready_logit(arrays, np.zeros((3, NQ), dtype=np.float32)).shape == (3,)


def test_the_shipped_readiness_network_tells_ready_hands_apart() -> None:
    """On hands never trained on (seed 99), the seats the network calls likelier ready are ready
    more often, and it predicts better than the share ready alone."""
    arrays = shipped_ready()
    training = shipped_training(arrays, READY_SHAPES, READY_WEIGHTS, "xuezhan-ready-1",
                                "python scripts/train_reading.py --net ready")
    assert training["log_loss"] < training["base_log_loss"]
    from xuezhan.rl.reading import ReadingConfig, gather

    examples = gather(ReadingConfig(seed=99, hands=24))
    y = np.asarray(examples.ready, dtype=np.float64)
    assert 20 < y.sum() < len(y) - 20
    z = ready_logit(arrays, np.asarray(examples.ready_features, dtype=np.float32)).astype(np.float64)
    p = 1 / (1 + np.exp(-z))
    rate = y.mean()
    network = -float(np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))
    base = -float(rate * np.log(rate) + (1 - rate) * np.log(1 - rate))
    assert network < base
    ready, not_ready = p[y == 1], p[y == 0]
    auc = float((ready[:, None] > not_ready[None, :]).mean())
    assert auc > 0.8


def test_a_readiness_file_of_the_wrong_shape_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "q.npz"
    good: dict[str, Any] = {k: np.zeros(s, dtype=np.float32) for k, s in READY_SHAPES.items()}
    with path.open("wb") as fh:
        np.savez(fh, **{**good, "q_w0": np.zeros((NQ - 1, 32), dtype=np.float32)})
    with pytest.raises(XuezhanError) as err:
        load_ready(path)
    assert err.value.code == ErrorCode.BAD_POLICY


def test_a_tiny_readiness_run_reproduces_bit_for_bit(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     load_script: Callable[[str], ModuleType]) -> None:
    script = load_script("scripts/train_reading.py")
    args = ["--net", "ready", "--hands", "6", "--epochs", "20"]
    assert script.main([*args, "--out", str(tmp_path / "a.npz")]) == 0
    assert script.main([*args, "--out", str(tmp_path / "b.npz")]) == 0
    a, b = load_ready(tmp_path / "a.npz"), load_ready(tmp_path / "b.npz")
    assert all(np.array_equal(a[k], b[k]) for k in READY_SHAPES)
    manifest = json.loads((tmp_path / "a.json").read_text(encoding="utf-8"))
    assert manifest["format"] == "xuezhan-ready-1" and manifest["command"].endswith(str(tmp_path / "a.npz"))
    assert manifest["training"]["examples"] > 20 and set(manifest["training"]["calibration"]) == {
        "0-0.1", "0.1-0.5", "0.5-0.9", "0.9-1"}
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_info:
        script.main(["--net", "nope"])
    assert exit_info.value.code == 2
    assert "invalid choice" in capsys.readouterr().err
