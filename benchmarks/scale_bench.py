"""Scale-out speed: self-play hands per second with 1 and 2 workers, local processes and Ray.

    python benchmarks/scale_bench.py [--json] [--games N] [--bots NAME]

Plays the same N hands (default 4,000, four heuristic bots) with ``xuezhan.selfplay.simulate``
in this process, in 2 local worker processes, and as Ray tasks on a local Ray with 2 CPUs
(started, and its two workers given a first small task, before the clock starts, as a
cluster would be running already; null when Ray is not installed). Checks that the
summaries are the same and reports hands per second and the speed-ups over one worker
(target at least 1.7x with 2 workers on a 2-core machine).
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from typing import Any

from xuezhan.selfplay import simulate


def run(games: int, bots: list[str], workers: int, backend: str) -> tuple[float, dict[str, Any]]:
    start = time.perf_counter()
    stats = simulate(games, bots, seed=11, workers=workers, backend=backend)
    seconds = time.perf_counter() - start
    summary = stats.to_json()
    summary.pop("hands_per_second")
    return games / seconds, summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--bots", default="heuristic")
    args = parser.parse_args()
    bots = [args.bots] * 4
    one, base = run(args.games, bots, 1, "local")
    two, local = run(args.games, bots, 2, "local")
    result: dict[str, Any] = {
        "games": args.games, "bots": bots,
        "local_1_hands_per_second": one, "local_2_hands_per_second": two, "local_speedup": two / one,
        "ray_2_hands_per_second": None, "ray_speedup": None, "same_summary": local == base,
    }
    try:
        import ray

        have_ray = True
    except ImportError:
        have_ray = False
    if have_ray:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level=logging.WARNING)
        try:
            simulate(400, bots, seed=1, workers=2, backend="ray")  # two shards: both workers up, xuezhan imported
            on_ray, remote = run(args.games, bots, 2, "ray")
        finally:
            ray.shutdown()
        result.update(ray_2_hands_per_second=on_ray, ray_speedup=on_ray / one,
                      same_summary=result["same_summary"] and remote == base)
    if args.json:
        print(json.dumps(result))
        return
    print(f"1 worker:          {one:8.0f} hands/s")
    print(f"2 local processes: {two:8.0f} hands/s  ({two / one:.2f}x)")
    if result["ray_2_hands_per_second"] is not None:
        print(f"Ray, 2 CPUs:       {result['ray_2_hands_per_second']:8.0f} hands/s  ({result['ray_speedup']:.2f}x)")
    print(f"same summary: {result['same_summary']}")


if __name__ == "__main__":
    main()
