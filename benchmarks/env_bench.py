"""Environment speed: xuezhan's PettingZoo AEC environment beside RLCard's mahjong environment.

    python benchmarks/env_bench.py [--json] [--seconds S]

In one process, for about S seconds each (default 10): steps per second of
``xuezhan.rl.env()`` with random masked actions (each step: ``last()`` encodes the
observation and the mask of the seat to act, a legal action is drawn from the mask,
``step()`` applies it); the same loop over ``xuezhan.rl.parallel_env()`` and over the bare
engine (no observation: the speed limit of the rules); and RLCard's ``mahjong``
environment with random legal actions (``env.step`` returns the next player's encoded
state; reported as null when RLCard is not installed). ``ratio`` is AEC steps/s over
RLCard steps/s.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from typing import Any

import numpy as np

from xuezhan import rl
from xuezhan.engine.game import Game
from xuezhan.rules import Rules


def aec_steps_per_second(seconds: float, seed: int = 1) -> tuple[float, int]:
    env = rl.env(seed=seed)
    rng = np.random.default_rng(seed)
    steps = hands = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset()
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
        hands += 1
    return steps / (time.perf_counter() - start), hands


def parallel_steps_per_second(seconds: float, seed: int = 1) -> float:
    env = rl.parallel_env(seed=seed)
    rng = np.random.default_rng(seed)
    decisions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        obs, _ = env.reset()
        while env.agents:
            actions = {}
            for a in env.agents:
                legal = np.flatnonzero(obs[a]["action_mask"])
                actions[a] = int(rng.choice(legal)) if len(legal) else 0
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
    rng = np.random.default_rng(seed)
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state, _ = env.reset()
        while not env.is_over():
            state, _ = env.step(int(rng.choice(list(state["legal_actions"]))))
            steps += 1
    return steps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    aec, hands = aec_steps_per_second(args.seconds)
    result: dict[str, Any] = {
        "aec_steps_per_second": aec,
        "aec_hands": hands,
        "parallel_decisions_per_second": parallel_steps_per_second(args.seconds),
        "engine_steps_per_second": engine_steps_per_second(args.seconds),
        "rlcard_steps_per_second": rlcard_steps_per_second(args.seconds),
        "observation_size": rl.OBS_SIZE,
        "action_space": rl.ACTION_SPACE_SIZE,
    }
    rlc = result["rlcard_steps_per_second"]
    result["ratio"] = aec / rlc if rlc else None
    if args.json:
        print(json.dumps(result))
        return
    print(f"xuezhan AEC env:        {aec:10.0f} steps/s ({hands} hands)")
    print(f"xuezhan parallel env:   {result['parallel_decisions_per_second']:10.0f} decisions/s")
    print(f"xuezhan engine alone:   {result['engine_steps_per_second']:10.0f} steps/s")
    if rlc:
        print(f"RLCard mahjong env:     {rlc:10.0f} steps/s")
        print(f"ratio AEC / RLCard:     {result['ratio']:10.1f}x")
    else:
        print("RLCard mahjong env:     not installed")


if __name__ == "__main__":
    main()
