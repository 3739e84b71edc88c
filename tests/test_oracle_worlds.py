"""The yardsticks of benchmarks/oracle_worlds.py deal the worlds they say they deal."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from types import ModuleType

import pytest

from xuezhan.bots import BOTS, HeuristicBot
from xuezhan.engine import Game, seat_view_json
from xuezhan.engine.views import SeatView
from xuezhan.rules import Rules


@pytest.fixture(scope="module")
def oracles(load_script: Callable[[str], ModuleType]) -> ModuleType:
    return load_script("benchmarks/oracle_worlds.py")


def ready_positions(seed: int, limit: int) -> list[tuple[Game, int, set[int]]]:
    """Turns of a chengdu hand played by the heuristic at which another seat is ready: (game, seat,
    the ready opponents)."""
    game = Game.new(Rules.preset("chengdu"), seed=seed)
    bot = HeuristicBot(random.Random(0))
    out: list[tuple[Game, int, set[int]]] = []
    while not game.over and len(out) < limit:
        seat = next(s for s in game.pending() if game.legal_actions(s))
        view = SeatView(game, seat)
        if game.phase == "turn" and game.claim_window is None:
            ready = {o for o in range(4) if o != seat and not view.won(o) and game.is_ready(o)}
            if ready:
                out.append((game.copy(), seat, ready))
        game.apply(bot.choose(view, game.legal_actions(seat)))
    return out


def test_the_oracles_are_not_bots_unless_the_script_registers_them(oracles: ModuleType) -> None:
    assert not any(name.startswith("oracle-") for name in BOTS)
    assert oracles.oracle_name("none") == "expert"


def test_no_ready_opponent_waits_on_a_tile_it_let_go_by(oracles: ModuleType) -> None:
    """The heuristic takes every win: a tile another seat threw after a ready seat's last discard,
    still lying in the river, is never among that seat's waits (the first half of ``safe_tiles``)."""
    checked = 0
    for seed in range(8):
        for game, seat, ready in ready_positions(seed, 12):
            view = SeatView(game, seat)
            for o in ready:
                passed = oracles.safe_tiles(view, o) - set(view.river(o))
                assert not passed & set(game.waits(o))
                checked += bool(passed)
    assert checked > 10  # the check saw tiles let go by


@pytest.mark.parametrize("oracle", ["sees-all", "sees-ready", "knows-waits", "knows-ready", "knows-ready-safe"])
def test_each_oracle_deals_what_it_knows(oracles: ModuleType, oracle: str) -> None:
    bot = oracles.oracle_bot(oracle)(random.Random(0))
    positions = [p for seed in range(3) for p in ready_positions(seed, 4)]
    assert len(positions) >= 8
    for game, seat, ready in positions:
        view = SeatView(game, seat)
        visible = view.visible_counts()
        others = [o for o in range(4) if o != seat and not view.won(o)]
        for r in range(3):
            world = bot.world(view, random.Random(r), visible, bot.world_weights(view))
            assert world.tile_total() == 108
            assert seat_view_json(world, seat) == seat_view_json(game, seat)
            if oracle in ("sees-all", "sees-ready"):
                assert all(world.seat_state(o).counts == game.seat_state(o).counts for o in ready)
            if oracle == "sees-all":
                assert all(world.seat_state(o).counts == game.seat_state(o).counts for o in others)
                assert sorted(world.live_wall) == sorted(game.live_wall)
                continue
            assert all(world.is_ready(o) for o in ready) or oracle != "sees-ready"
            assert not any(world.is_ready(o) for o in others if o not in ready)
            if oracle == "knows-waits":
                assert all(set(world.waits(o)) & set(game.waits(o)) for o in ready if world.is_ready(o))
            if oracle == "knows-ready-safe":
                for o in ready:
                    if world.is_ready(o) and world.seat_state(o).counts != game.seat_state(o).counts:
                        assert not oracles.safe_tiles(view, o) & set(world.waits(o))


@pytest.mark.parametrize(("args", "code"), [
    (["--rules", "xx"], "unknown_preset"),
    (["--against", "nobody"], "unknown_bot"),
    (["--deals", "0"], "bad_deals"),
])
def test_bad_input_is_a_line_and_exit_2(oracles: ModuleType, args: list[str], code: str,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        oracles.main(["--oracle", "none", "--workers", "1", "--deals", "1", *args])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"oracle_worlds.py: {code}: ") and "Traceback" not in err


def test_the_json_says_where_the_points_came_from(oracles: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    out = oracles.main(["--oracle", "none", "--against", "random", "--workers", "1", "--deals", "1", "--json"])
    assert json.loads(capsys.readouterr().out) == out
    assert set(out) >= {"oracle", "against", "deals", "rules", "seed", "mean", "low", "high", "win_rate",
                        "deal_in_rate", "points_by_reason", "seconds"}
    net = sum(r["received"] - r["paid"] for r in out["points_by_reason"].values())
    assert net == pytest.approx(out["mean"] / 2)  # two bots, zero-sum: the pair's mean is twice one side's
