"""Batched environment speed: ``xuezhan.rl.vector_env`` beside the PettingZoo AEC loop.

    python benchmarks/vector_env.py [--json] [--seconds S] [--envs N]

In one process, for about S seconds each (default 5): decisions per second of the AEC loop
of ``xuezhan.rl.env()`` (``last()`` gives the seat to act's observation and mask, a legal
action is drawn from the mask, ``step()`` applies it; on the compiled core when built) and of
``xuezhan.rl.vector_env(N)`` (default 64 tables; one ``step`` applies one drawn action at every
table, counted as N decisions). Both play four learners, no bot, from the same seed; each draws
a uniformly random legal action (the AEC loop with ``random.Random`` over the mask's nonzero
entries, the batch with one numpy draw of a number a table, over the nonzero entries of all the
masks at once, each row's found by ``searchsorted``). ``ratio`` is the batch's decisions per
second over the AEC loop's.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from typing import Any

import numpy as np

from xuezhan import rl


def aec_loop(seconds: float, seed: int = 1, *, inside: bool = False) -> tuple[int, float, str]:
    """The AEC loop for about ``seconds``: decisions, CPU seconds (with ``inside``: only those spent
    inside the environment's ``last()`` and ``step()``), the engine it ran on."""
    env = rl.env(seed=seed)
    rng = random.Random(seed)
    clock = time.process_time  # CPU time: the machine may be running other work
    steps = 0
    spent = 0.0
    start = clock()
    wall = time.perf_counter()
    while time.perf_counter() - wall < seconds:
        env.reset()
        for _ in env.agent_iter():
            if inside:
                t0 = clock()
                obs, _, term, trunc, _ = env.last()
                spent += clock() - t0
            else:
                obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = obs["action_mask"].nonzero()[0]
            action = int(legal[int(rng.random() * len(legal))])
            if inside:
                t0 = clock()
                env.step(action)
                spent += clock() - t0
            else:
                env.step(action)
            steps += 1
    return steps, spent if inside else clock() - start, env.engine


def vector_loop(seconds: float, envs: int, seed: int = 1, *, inside: bool = False) -> tuple[int, float, int]:
    """``vector_env(envs)`` for about ``seconds``: decisions, CPU seconds (with ``inside``: only
    those spent inside ``step()``), hands ended."""
    env = rl.vector_env(envs, seed=seed)
    rng = np.random.default_rng(seed)
    clock = time.process_time
    obs, _ = env.reset()
    width = obs["action_mask"].shape[1]
    edges = np.arange(envs + 1) * width  # where each table's row begins in the flat masks, and the end
    rows = edges[:-1]
    steps = hands = 0
    spent = 0.0
    start = clock()
    wall = time.perf_counter()
    while time.perf_counter() - wall < seconds:
        legal = obs["action_mask"].view(np.bool_).ravel().nonzero()[0]  # row by row, as the AEC loop's
        bounds = legal.searchsorted(edges)  # each row's legal actions: legal[bounds[i]:bounds[i + 1]]
        first = bounds[:-1]
        actions = legal[first + (rng.random(envs) * (bounds[1:] - first)).astype(np.int64)] - rows
        if inside:
            t0 = clock()
            obs, _, terminated, _, _ = env.step(actions)
            spent += clock() - t0
        else:
            obs, _, terminated, _, _ = env.step(actions)
        steps += envs
        hands += int(np.count_nonzero(terminated))
    return steps, spent if inside else clock() - start, hands


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--envs", type=int, default=64)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    steps, cpu, engine = aec_loop(args.seconds)
    vsteps, vcpu, hands = vector_loop(args.seconds, args.envs)
    isteps, icpu, _ = aec_loop(args.seconds / 2, inside=True)
    visteps, vicpu, _ = vector_loop(args.seconds / 2, args.envs, inside=True)
    aec, vec, aec_env, vec_env = steps / cpu, vsteps / vcpu, isteps / icpu, visteps / vicpu
    out: dict[str, Any] = {
        "seconds": args.seconds, "envs": args.envs, "aec_engine": engine, "vector_hands": hands,
        "aec_steps_per_second": round(aec), "vector_steps_per_second": round(vec), "ratio": round(vec / aec, 2),
        "aec_env_steps_per_second": round(aec_env), "vector_env_steps_per_second": round(vec_env),
        "env_ratio": round(vec_env / aec_env, 2),
    }
    if args.json:
        print(json.dumps(out))
    else:
        print(f"AEC loop ({engine}): {aec:,.0f} decisions per CPU second ({aec_env:,.0f} inside the environment)")
        print(f"vector_env({args.envs}): {vec:,.0f} decisions per CPU second ({vec_env:,.0f} inside the "
              f"environment; {hands} hands)")
        print(f"ratio: {vec / aec:.1f}x the whole loop, {vec_env / aec_env:.1f}x inside the environment")


if __name__ == "__main__":
    main()
