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
    NR,
    READ_FEATURES,
    READ_SHAPES,
    READING_WEIGHTS,
    hand_weights,
    load_reading,
    log_weights,
    read_features,
    shipped_reading,
)
from xuezhan.engine import Game, sample_world, seat_view_json
from xuezhan.engine.views import SeatView
from xuezhan.errors import XuezhanError
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


def test_the_shipped_weights_come_with_their_manifest_and_predict_better_than_uniform() -> None:
    arrays = shipped_reading()
    assert {k: v.shape for k, v in arrays.items()} == READ_SHAPES
    assert all(not v.flags.writeable for v in arrays.values())
    manifest = json.loads(READING_WEIGHTS.with_suffix(".json").read_text(encoding="utf-8"))
    assert manifest["format"] == "xuezhan-reading-1"
    assert manifest["command"].startswith("python scripts/train_reading.py")
    training = manifest["training"]
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


@pytest.mark.parametrize(("content", "code"), [(b"not a zip", ErrorCode.BAD_POLICY), (None, ErrorCode.UNREADABLE)])
def test_a_bad_weights_file_is_refused(tmp_path: Path, content: bytes | None, code: ErrorCode) -> None:
    path = tmp_path / "r.npz"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(XuezhanError) as err:
        load_reading(path)
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
