"""The environments on the compiled core against the environments on the Python engine.

Differential: over a few hundred seeded hands (both presets, 换三张 with 血流成河, and random
mixes of every option of docs/rules.md §14), the two engines step side by side with the same actions
(taken keenly: wins, kongs and pengs when offered, so that the rare moves happen) and give the
same observations (every field of :mod:`xuezhan.encoding`, byte for byte), masks, rewards,
terminations, next agents and final game records. Then the parallel and single-seat
environments, the index of every action, and what is refused."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import numpy as np
import pytest
from test_native import _FANS, _VALUES, _build

from xuezhan import native, rl
from xuezhan.encoding import OBS_FIELDS, OBS_SIZE
from xuezhan.engine.actions import ACTION_SPACE_SIZE, HU_INDEX, PENG_INDEX, ActionType, action_from_index, action_index
from xuezhan.errors import IllegalActionError, XuezhanError
from xuezhan.records import record_json
from xuezhan.rl.table import NativeTable, Obs, Table
from xuezhan.rules import Rules

if not native.available():  # the README's commands build it; a missing core is a failure, not a skip
    raise RuntimeError(f"the compiled core is not built: {native.why_unavailable()}")

BLOOD_EXCHANGE = Rules.preset("qq").with_options({"exchange_three": "clockwise", "blood_river": True})


def _mixes(count: int, seed: int) -> list[Rules]:
    rng = random.Random(seed)
    out: list[Rules] = []
    while len(out) < count:
        options: dict[str, Any] = {k: rng.choice(v) for k, v in _VALUES.items() if rng.random() < 0.5}
        options["fan"] = {k: rng.choice(v) for k, v in _FANS.items() if rng.random() < 0.3}
        rules = _build(rng.choice(("qq", "chengdu")), options)
        if rules is not None:
            out.append(rules)
    return out


RULE_SETS: list[tuple[str, Rules, int]] = [
    ("qq", Rules.preset("qq"), 70), ("chengdu", Rules.preset("chengdu"), 70),
    ("blood_exchange", BLOOD_EXCHANGE, 40),
    *((f"mix-{i}", rules, 8) for i, rules in enumerate(_mixes(16, 2027))),
]

_KEEN = (HU_INDEX, *range(27, 54), PENG_INDEX)  # a win, a kong, a peng


def _pick(mask: np.ndarray[Any, Any], rng: random.Random) -> int:
    legal = [int(i) for i in np.flatnonzero(mask)]
    keen = [i for i in legal if i in _KEEN]
    return rng.choice(keen) if keen and rng.random() < 0.7 else rng.choice(legal)


def _record(table: Table) -> dict[str, Any]:
    """The hand's game record, as the engine that plays it writes it."""
    return table.game.record() if isinstance(table, NativeTable) else record_json(table.game)


def _same_observation(a: Obs, b: Obs, where: str) -> None:
    assert a["observation"].dtype == b["observation"].dtype == np.float32
    assert a["action_mask"].dtype == b["action_mask"].dtype == np.int8
    assert a["observation"].shape == (OBS_SIZE,) and a["action_mask"].shape == (ACTION_SPACE_SIZE,)
    if a["observation"].tobytes() != b["observation"].tobytes():
        fields = [name for name, (at, n) in OBS_FIELDS.items()
                  if a["observation"][at:at + n].tobytes() != b["observation"][at:at + n].tobytes()]
        raise AssertionError(f"{where}: the observations differ in {fields}")
    assert a["action_mask"].tobytes() == b["action_mask"].tobytes(), f"{where}: the masks differ"


@pytest.mark.parametrize(("name", "rules", "hands"), RULE_SETS, ids=[name for name, _, _ in RULE_SETS])
def test_the_aec_env_on_the_core_steps_exactly_as_on_the_python_engine(name: str, rules: Rules, hands: int) -> None:
    py = rl.env(rules=rules, engine="python", seed=sum(name.encode()))
    nat = rl.env(rules=rules, engine="native", seed=sum(name.encode()))
    assert (py.engine, nat.engine) == ("python", "native")
    rng = random.Random(name)
    kinds: Counter[str] = Counter()
    for hand in range(hands):
        py.reset()
        nat.reset()
        for step, (a, b) in enumerate(zip(py.agent_iter(5000), nat.agent_iter(5000), strict=True)):
            where = f"{name} hand {hand} step {step}"
            assert a == b, where
            last_a, last_b = py.last(), nat.last()
            _same_observation(last_a[0], last_b[0], where)
            assert last_a[1:] == last_b[1:], where  # reward, terminated, truncated, info
            other = rng.choice(py.agents)
            _same_observation(py.observe(other), nat.observe(other), f"{where} ({other})")
            action = None if last_a[2] or last_a[3] else _pick(last_a[0]["action_mask"], rng)
            py.step(action)
            nat.step(action)
            assert py.rewards == nat.rewards and py.terminations == nat.terminations, where
            assert py._cumulative_rewards == nat._cumulative_rewards, where
        assert not py.agents and not nat.agents
        record = _record(py.table)
        assert json.dumps(_record(nat.table)) == json.dumps(record), f"{name} hand {hand}: the records differ"
        assert nat.table.deltas() == py.table.deltas() == record["result"]["deltas"]
        kinds.update(e["type"] for e in record["result"]["events"])
    if name in ("qq", "chengdu", "blood_exchange"):  # the hands compared hold the rare moves too
        for kind in ("peng", "angang", "bugang", "zhigang", "hu", "pass_hu", "pay", "end"):
            assert kinds[kind] > 0, (name, kind)
    if name == "blood_exchange":
        assert kinds["exchange"] > 0 and kinds["wall_empty"] > 0


def test_the_parallel_env_on_the_core_steps_exactly_as_on_the_python_engine() -> None:
    py = rl.parallel_env(rules=BLOOD_EXCHANGE, engine="python", seed=5)
    nat = rl.parallel_env(rules=BLOOD_EXCHANGE, engine="native", seed=5)
    rng = random.Random(8)
    for hand in range(12):
        obs_a, _ = py.reset()
        obs_b, _ = nat.reset()
        while True:
            assert py.agents == nat.agents and obs_a.keys() == obs_b.keys()
            for agent in obs_a:
                _same_observation(obs_a[agent], obs_b[agent], f"hand {hand} {agent}")
            assert np.array_equal(py.state(), nat.state())
            if not py.agents:
                break
            actions = {a: _pick(obs_a[a]["action_mask"], rng) if obs_a[a]["action_mask"].any() else 0
                       for a in py.agents}
            obs_a, rew_a, term_a, trunc_a, _ = py.step(actions)
            obs_b, rew_b, term_b, trunc_b, _ = nat.step(actions)
            assert (rew_a, term_a, trunc_a) == (rew_b, term_b, trunc_b)
        assert _record(nat.table) == _record(py.table)


@pytest.mark.parametrize("opponents", [["random", "random", "random"], ["heuristic", "random", "heuristic"]])
def test_the_single_seat_env_on_the_core_plays_as_on_the_python_engine_stand_in_included(opponents: list[str]) -> None:
    """Compiled bots in the three other seats; now and then the learner gives an action outside
    its mask, and its stand-in bot decides for it on either engine."""
    py = rl.single_agent_env(opponents=opponents, rules="chengdu", seat=1, engine="python", seed=40, render_mode="ansi")
    nat = rl.single_agent_env(opponents=opponents, rules="chengdu", seat=1, engine="native", seed=40,
                              render_mode="ansi")
    assert nat.engine == "native"
    rng = random.Random(2)
    illegal = 0
    for hand in range(10):
        a, _ = py.reset()
        b, _ = nat.reset()
        done = False
        while True:
            _same_observation(a, b, f"hand {hand}")
            assert np.array_equal(py.action_masks(), nat.action_masks())
            if done:
                break
            if rng.random() < 0.1:
                action = next(i for i in range(ACTION_SPACE_SIZE) if not a["action_mask"][i])
            else:
                action = _pick(a["action_mask"], rng)
            a, ra, done, trunc, info = py.step(action)
            b, rb, done_b, trunc_b, info_b = nat.step(action)
            assert (ra, done, trunc, info) == (rb, done_b, trunc_b, info_b)
            illegal += info["illegal_action"]
        assert _record(nat.table) == _record(py.table)
        assert nat.render() == py.render()
    assert illegal > 5


def test_every_action_has_the_python_index_in_the_core() -> None:
    type_codes = {t: i for i, t in enumerate((ActionType.EXCHANGE, ActionType.DINGQUE, ActionType.DISCARD,
                                             ActionType.PENG, ActionType.GANG, ActionType.HU, ActionType.PASS))}
    table = native.learning_table(Rules.preset("qq"), [None] * 4)
    for index in range(ACTION_SPACE_SIZE - 1):  # the last is an escape, never offered by the core
        action = action_from_index(2, index)
        tiles = list(action.tiles)
        rng = random.Random(index)
        rng.shuffle(tiles)  # the tiles in any order
        packed = (type_codes[action.type], -1 if action.tile is None else action.tile,
                  -1 if action.suit is None else action.suit, *(tiles or [-1, -1, -1]))
        assert table.action_index(*packed) == index == action_index(action)
    with pytest.raises(ValueError):
        table.action_index(type_codes[ActionType.EXCHANGE], -1, -1, 0, 1, 9)  # two suits


def test_the_core_writes_into_buffers_of_the_right_size_only() -> None:
    table = NativeTable("qq", learners=range(4), opponents={})
    table.deal(3)
    obs = bytearray(4 * OBS_SIZE)
    mask = bytearray(ACTION_SPACE_SIZE)
    assert table.observe_into(0, obs, mask) == int(table.mask(0).sum()) > 0  # type: ignore[arg-type]
    assert np.array_equal(np.frombuffer(obs, dtype=np.float32), table.observation(0)["observation"])
    bad: list[tuple[Any, Any]] = [
        (np.zeros(OBS_SIZE, np.float64), None), (np.zeros(OBS_SIZE - 1, np.float32), None),
        (None, np.zeros(ACTION_SPACE_SIZE, np.int16)), (bytes(4 * OBS_SIZE), None),
        (np.zeros((OBS_SIZE, 2), np.float32)[:, 0], None),  # the right length, not contiguous
    ]
    for bad_obs, bad_mask in bad:
        with pytest.raises((ValueError, TypeError, BufferError)):
            table.observe_into(0, bad_obs, bad_mask)
    with pytest.raises(ValueError):
        table.observe_into(4, None, None)


def test_the_engine_is_chosen_or_refused_with_a_code(monkeypatch: pytest.MonkeyPatch) -> None:
    assert rl.env().engine == "native" and rl.parallel_env().engine == "native"
    assert rl.single_agent_env(opponents="random").engine == "native"
    assert rl.single_agent_env(opponents="heuristic").engine == "native"
    assert rl.single_agent_env(opponents=["random", "expert", "random"]).engine == "python"  # not compiled
    assert rl.env(engine="python").engine == "python"
    with pytest.raises(XuezhanError) as info:
        rl.single_agent_env(opponents=["random", "expert", "random"], engine="native")
    assert info.value.code == "native_refused"
    with pytest.raises(XuezhanError) as info:
        rl.env(engine="compiled")
    assert info.value.code == "bad_input"
    monkeypatch.setattr(native, "_core", None)
    monkeypatch.setattr(native, "_IMPORT_ERROR", "No module named 'xuezhan.native._core'")
    assert rl.env().engine == "python"
    with pytest.raises(XuezhanError) as info:
        rl.parallel_env(engine="native")
    assert info.value.code == "native_unavailable"


def test_a_native_table_refuses_steps_before_and_after_its_hand() -> None:
    table = NativeTable("qq", learners=range(4), opponents={})
    assert table.observation(0)["action_mask"].sum() == 0 and table.first_deciding() is None
    with pytest.raises(IllegalActionError) as info:
        table.step(0, 0)
    assert info.value.code == "hand_over"
    with pytest.raises(XuezhanError) as exc:
        table.observe_into(0, None, None)
    assert exc.value.code == "no_hand"
    table.deal(1)
    seat = table.first_deciding()
    assert seat is not None
    with pytest.raises(IllegalActionError) as info:
        table.step(seat, ACTION_SPACE_SIZE - 1)
    assert info.value.code == "illegal_action"
    while not table.over:
        seat = table.first_deciding()
        assert seat is not None
        table.step(seat, int(np.flatnonzero(table.mask(seat))[0]))
    with pytest.raises(IllegalActionError) as info:
        table.step(0, 0)
    assert info.value.code == "hand_over"
    assert sum(table.deltas()) == 0 and table.phase == "over"
