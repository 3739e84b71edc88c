"""Environment speed: xuezhan's PettingZoo AEC environment beside RLCard's mahjong environment.

    python benchmarks/env_bench.py [--json] [--seconds S]

In one process, for about S seconds each (default 10): steps per second of
``xuezhan.rl.env()`` with random masked actions (each step: ``last()`` gives the
observation and the mask of the seat to act, a legal action is drawn from the mask,
``step()`` applies it), on the engine it picks by default (the compiled core when built:
``aec_engine``) and on the Python engine (``engine="python"``); the same loop over
``xuezhan.rl.parallel_env()`` on both; the bare Python engine (no observation: the speed
limit of the rules in Python); and RLCard's ``mahjong`` environment with random legal
actions (``env.step`` returns the next player's encoded state; reported as null when RLCard
is not installed). Every loop draws its actions with the same ``random.Random``.
``ratio`` is AEC steps/s (default engine) over RLCard steps/s, ``python_ratio`` the same
for the Python engine.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from typing import Any

from xuezhan import rl
from xuezhan.engine.game import Game
from xuezhan.rules import Rules


def aec_steps_per_second(seconds: float, seed: int = 1, engine: str = "auto") -> tuple[float, int, str]:
    env = rl.env(seed=seed, engine=engine)
    rng = random.Random(seed)
    steps = hands = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset()
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = obs["action_mask"].nonzero()[0]
            env.step(int(legal[int(rng.random() * len(legal))]))
            steps += 1
        hands += 1
    return steps / (time.perf_counter() - start), hands, env.engine


def parallel_steps_per_second(seconds: float, seed: int = 1, engine: str = "auto") -> float:
    env = rl.parallel_env(seed=seed, engine=engine)
    rng = random.Random(seed)
    decisions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        obs, _ = env.reset()
        while env.agents:
            actions = {}
            for a in env.agents:
                legal = obs[a]["action_mask"].nonzero()[0]
                actions[a] = int(legal[int(rng.random() * len(legal))]) if len(legal) else 0
                decisions += len(legal) > 0
            obs, _, _, _, _ = env.step(actions)
    return decisions / (time.perf_counter() - start)


def engine_steps_per_second(seconds: float, seed: int = 1) -> float:
    rules = Rules.preset("qq")
    rng = random.Random(seed)
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        game = Game.new(rules, rng=random.Random(rng.getrandbits(64)))
        while not game.over:
            seat = game.pending()[0]
            game.apply(rng.choice(game.legal_actions(seat)))
            steps += 1
    return steps / (time.perf_counter() - start)


def rlcard_steps_per_second(seconds: float, seed: int = 1) -> float | None:
    try:
        import rlcard
    except ImportError:
        return None
    env = rlcard.make("mahjong", config={"seed": seed})
    rng = random.Random(seed)
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state, _ = env.reset()
        while not env.is_over():
            legal = list(state["legal_actions"])
            state, _ = env.step(legal[int(rng.random() * len(legal))])
            steps += 1
    return steps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    secs = args.seconds
    aec, hands, engine = aec_steps_per_second(secs)
    aec_python, _, _ = aec_steps_per_second(secs, engine="python")
    rlc = rlcard_steps_per_second(secs)
    result: dict[str, Any] = {
        "aec_steps_per_second": aec,
        "aec_engine": engine,
        "aec_hands": hands,
        "aec_python_steps_per_second": aec_python,
        "parallel_decisions_per_second": parallel_steps_per_second(secs),
        "parallel_python_decisions_per_second": parallel_steps_per_second(secs, engine="python"),
        "engine_steps_per_second": engine_steps_per_second(secs),
        "rlcard_steps_per_second": rlc,
        "ratio": aec / rlc if rlc else None,
        "python_ratio": aec_python / rlc if rlc else None,
        "aec_vs_python": aec / aec_python,
        "load_average": os.getloadavg()[0],
        "observation_size": rl.OBS_SIZE,
        "action_space": rl.ACTION_SPACE_SIZE,
    }
    if args.json:
        print(json.dumps(result))
        return
    print(f"xuezhan AEC env ({engine}):{aec:12.0f} steps/s ({hands} hands)")
    print(f"xuezhan AEC env (python):  {aec_python:10.0f} steps/s")
    print(f"xuezhan parallel env:      {result['parallel_decisions_per_second']:10.0f} decisions/s ({engine})")
    print(f"                           {result['parallel_python_decisions_per_second']:10.0f} decisions/s (python)")
    print(f"xuezhan Python engine:     {result['engine_steps_per_second']:10.0f} steps/s")
    if rlc:
        print(f"RLCard mahjong env:        {rlc:10.0f} steps/s")
        print(f"ratio AEC / RLCard:        {result['ratio']:10.1f}x (python: {result['python_ratio']:.1f}x)")
    else:
        print("RLCard mahjong env:        not installed")
    print(f"load average:              {result['load_average']:10.2f}")


if __name__ == "__main__":
    main()
