"""The batched environment: every table of ``vector_env`` plays what one table plays alone."""

from __future__ import annotations

import random
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from xuezhan import native
from xuezhan.encoding import OBS_SIZE
from xuezhan.engine.actions import ACTION_SPACE_SIZE
from xuezhan.errors import IllegalActionError, XuezhanError
from xuezhan.records import parse_record
from xuezhan.rl import single_agent_env, vector_env
from xuezhan.rl.table import LearningTable


def _draw(mask: Any, rng: random.Random) -> int:
    legal = np.flatnonzero(mask)
    return int(legal[rng.randrange(len(legal))])


def test_the_core_is_built() -> None:
    assert native.available(), native.why_unavailable()


@pytest.mark.parametrize("opponents", [None, "heuristic"])
def test_every_table_plays_the_hands_of_its_seeds_as_the_python_engine_does(opponents: str | None) -> None:
    n, seed = 6, 40
    env = vector_env(n, seed=seed, opponents=opponents)
    learners = [0, 1, 2, 3] if opponents is None else [0]
    bots = {} if opponents is None else dict.fromkeys((1, 2, 3), opponents)
    alone = [LearningTable("qq", learners, bots) for _ in range(n)]
    for i, table in enumerate(alone):
        table.deal(seed + i)
    assert env.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    obs, info = env.reset()
    assert obs["observation"].shape == (n, OBS_SIZE) and obs["observation"].dtype == np.float32
    assert obs["action_mask"].shape == (n, ACTION_SPACE_SIZE) and obs["action_mask"].dtype == np.int8
    assert info["seed"].tolist() == list(range(seed, seed + n))
    rng = random.Random(7)
    hands = [0] * n
    totals = np.zeros((n, 4))
    while min(hands) < 2:
        for i, table in enumerate(alone):
            seat = table.first_deciding()
            assert seat is not None and info["seat"][i] == seat
            mine = table.observation(seat)
            assert np.array_equal(obs["observation"][i], mine["observation"])
            assert np.array_equal(obs["action_mask"][i], mine["action_mask"])
        actions = [_draw(obs["action_mask"][i], rng) for i in range(n)]
        obs, rewards, terminated, truncated, info = env.step(np.array(actions))
        assert rewards.shape == (n, 4) and terminated.dtype == np.bool_ and not truncated.any()
        totals += rewards
        for i, table in enumerate(alone):
            table.step(int(alone[i].first_deciding()), actions[i])  # type: ignore[arg-type]
            assert rewards[i].tolist() == table.rewards()
            assert bool(terminated[i]) == table.over
            if table.over:  # the table dealt its next hand at once: seed + i + n, + 2n, ...
                assert totals[i].tolist() == table.deltas() and sum(table.deltas()) == 0
                totals[i] = 0
                assert info["final_seed"][i] == seed + i + n * hands[i]
                hands[i] += 1
                table.deal(seed + i + n * hands[i])
                assert info["seed"][i] == seed + i + n * hands[i]
            else:
                assert info["final_seed"][i] == -1


def test_the_arrays_of_a_step_are_the_callers_to_keep() -> None:
    env = vector_env(4, seed=9)
    obs, _ = env.reset()
    rng = random.Random(3)
    kept: list[tuple[Any, ...]] = []  # every step's arrays, kept
    held: list[list[Any]] = []  # what they held when given
    while sum(bool(arrays[3].any()) for arrays in kept) < 2:  # steps where a hand ended, and steps where none did
        obs, rewards, terminated, truncated, info = env.step([_draw(m, rng) for m in obs["action_mask"]])
        arrays = (obs["observation"], obs["action_mask"], rewards, terminated, info["seat"], info["seed"],
                  info["final_seed"])
        assert all(a.flags.writeable for a in arrays)
        assert not truncated.flags.writeable and not truncated.any()
        assert not kept or not any(np.shares_memory(a, b) for a in arrays for b in kept[-1])
        assert (info["final_seed"] >= 0).tolist() == terminated.tolist()
        kept.append(arrays)
        held.append([a.copy() for a in arrays])
    assert len(kept) > 2
    for arrays, then in zip(kept, held, strict=True):
        assert all(np.array_equal(a, h) for a, h in zip(arrays, then, strict=True))


def test_an_illegal_action_names_its_table_and_no_table_steps() -> None:
    env = vector_env(2, seed=3)
    obs, _ = env.reset()
    good = int(np.flatnonzero(obs["action_mask"][0])[0])
    bad = int(np.flatnonzero(obs["action_mask"][1] == 0)[0])
    with pytest.raises(IllegalActionError, match="table 1") as exc:
        env.step([good, bad])
    assert exc.value.code == "illegal_action"
    again = vector_env(2, seed=3)
    again.reset()
    other = int(np.flatnonzero(obs["action_mask"][1])[0])
    mine, _, _, _, _ = env.step([good, other])  # the first table did not step: the same as a fresh one
    theirs, _, _, _, _ = again.step([good, other])
    assert np.array_equal(mine["observation"], theirs["observation"])


def test_the_batch_refuses_what_it_cannot_play() -> None:
    with pytest.raises(XuezhanError) as exc:
        vector_env(2, opponents="expert")
    assert exc.value.code == "native_refused"
    for bad in (0, -1, 1.5, True):
        with pytest.raises(XuezhanError) as exc:
            vector_env(bad)  # type: ignore[arg-type]
        assert exc.value.code == "bad_input"
    with pytest.raises(XuezhanError) as exc:
        vector_env(2).step([0, 0])
    assert exc.value.code == "no_hand"
    env = vector_env(2, seed=1)
    env.reset()
    for wrong in ([0, 0, 0], 3, ["a", "b"]):
        with pytest.raises(XuezhanError) as exc:
            env.step(wrong)
        assert exc.value.code == "bad_action"


def test_bots_by_seat_leave_the_other_seats_to_learn() -> None:
    env = vector_env(4, seed=11, opponents={0: "heuristic", 2: "random"})
    assert env.learners == (1, 3)
    obs, info = env.reset()
    rng = random.Random(1)
    for _ in range(200):
        assert set(info["seat"].tolist()) <= {1, 3}
        obs, _, _, _, info = env.step([_draw(m, rng) for m in obs["action_mask"]])


def test_single_seat_is_registered_with_gymnasium_and_ends_with_the_hands_record() -> None:
    env = gymnasium.make("xuezhan/SingleSeat-v0", opponents="heuristic", seed=21)
    obs, _ = env.reset()
    rng = random.Random(2)
    done = False
    info: dict[str, Any] = {}
    total = 0.0
    while not done:
        assert "record" not in info
        obs, reward, done, _, info = env.step(_draw(obs["action_mask"], rng))
        total += float(reward)
    record = info["record"]
    assert record["match"] == {"seed": 21, "hand_no": 1}
    assert record["result"]["deltas"][0] == total
    parse_record(record)  # xuezhan replay reads it
    alone = single_agent_env("heuristic", seed=21, engine="python")
    alone.reset()
    rng = random.Random(2)
    done = False
    obs2 = alone.table.observation(0)
    while not done:
        obs2, _, done, _, info2 = alone.step(_draw(obs2["action_mask"], rng))
    assert info2["record"] == record  # both engines, the same record


def test_the_single_seat_leaves_the_record_out_when_asked() -> None:
    env = gymnasium.make("xuezhan/SingleSeat-v0", seed=4, record=False)
    obs, _ = env.reset()
    rng = random.Random(5)
    done = False
    while not done:
        obs, _, done, _, info = env.step(_draw(obs["action_mask"], rng))
    assert info == {"illegal_action": False}
