"""Self-play speed and strength, side by side with RLCard's mahjong environment.

    python benchmarks/selfplay_bench.py [--json] [--seconds S] [--strength-hands N]

In one process: hands per second on one core with four random bots and with four
heuristic bots; the same with the compiled core (``xuezhan.native``, whole hands in C,
summaries only; null when it is not built), compared with the Python engine's figure of
the same bots measured in this run;
RLCard's ``mahjong`` environment with random agents (games per
second; ``pip install rlcard`` — reported as null when it is not installed); and the
strength check: heuristic against random over N hands (default 4,000) with the bots
rotated one seat every hand, mean points per hand with a 95% confidence interval of
the difference, win rates and mean fan.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from typing import Any

from xuezhan import native
from xuezhan.bots import make_bot
from xuezhan.engine.game import Game
from xuezhan.match import Hand
from xuezhan.rules import Rules
from xuezhan.selfplay import play_hand, simulate


def hands_per_second(bot: str, seconds: float, seed: int = 1) -> float:
    rules = Rules.preset("qq")
    master = random.Random(seed)
    bots = [make_bot(bot, random.Random(master.getrandbits(64))) for _ in range(4)]
    n = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        play_hand(Game.new(rules, rng=random.Random(master.getrandbits(64))), bots)
        n += 1
    return n / (time.perf_counter() - start)


def native_hands_per_second(bot: str, seconds: float, seed: int = 1) -> float | None:
    """Hands per second of the compiled core, a batch of hands per call, summaries only."""
    rules = Rules.preset("qq")
    if native.refusal(rules, [bot] * 4) is not None:
        return None
    master = random.Random(seed)
    n = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        seeds = [master.getrandbits(64) for _ in range(native.BATCH)]
        n += len(native.play_hands(seeds, rules, [bot] * 4, chain=False))
    return n / (time.perf_counter() - start)


def rlcard_games_per_second(seconds: float) -> float | None:
    try:
        import rlcard
        from rlcard.agents import RandomAgent
    except ImportError:
        return None
    env = rlcard.make("mahjong", config={"seed": 0})
    env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(env.num_players)])
    n = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.run(is_training=False)
        n += 1
    return n / (time.perf_counter() - start)


def strength(hands: int, seed: int = 7) -> dict[str, Any]:
    diffs: list[float] = []

    def on_hand(hand: Hand) -> None:
        # bots rotate one seat per hand: seats holding "heuristic" this hand
        i = len(diffs)
        names = [("heuristic", "random", "heuristic", "random")[(s - i % 4) % 4] for s in range(4)]
        d = hand.game.deltas()
        h = sum(d[s] for s in range(4) if names[s] == "heuristic") / 2
        r = sum(d[s] for s in range(4) if names[s] == "random") / 2
        diffs.append(h - r)

    stats = simulate(hands, ["heuristic", "random", "heuristic", "random"], seed=seed, on_hand=on_hand, rotate=True)
    mean = sum(diffs) / len(diffs)
    var = sum((x - mean) ** 2 for x in diffs) / (len(diffs) - 1)
    half = 1.96 * math.sqrt(var / len(diffs))
    summary = stats.to_json()
    return {
        "hands": hands,
        "heuristic_minus_random_points": mean,
        "ci95": [mean - half, mean + half],
        "ci_excludes_zero": mean - half > 0 or mean + half < 0,
        "by_bot": summary["by_bot"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--seconds", type=float, default=10.0, help="time for each speed figure")
    parser.add_argument("--strength-hands", type=int, default=4000)
    args = parser.parse_args()
    rlcard = rlcard_games_per_second(args.seconds)
    rand = hands_per_second("random", args.seconds)
    heur = hands_per_second("heuristic", args.seconds)
    native_rand = native_hands_per_second("random", args.seconds)
    native_heur = native_hands_per_second("heuristic", args.seconds)
    out: dict[str, Any] = {
        "random_hands_per_s": rand,
        "heuristic_hands_per_s": heur,
        "native_random_hands_per_s": native_rand,
        "native_random_vs_python": native_rand / rand if native_rand else None,
        "native_random_vs_rlcard": native_rand / rlcard if native_rand and rlcard else None,
        "native_heuristic_hands_per_s": native_heur,
        "native_heuristic_vs_python": native_heur / heur if native_heur else None,
        "rlcard_games_per_s": rlcard,
        "random_vs_rlcard": rand / rlcard if rlcard else None,
        "strength": strength(args.strength_hands) if args.strength_hands else None,
    }
    if args.json:
        print(json.dumps(out, indent=2))
        return
    print(f"random bots:    {rand:8.1f} hands/s")
    print(f"heuristic bots: {heur:8.1f} hands/s")
    if native_rand:
        print(f"compiled core, random bots: {native_rand:8.1f} hands/s ({native_rand / rand:.1f}x the Python engine)")
    else:
        print(f"compiled core: not used ({native.why_unavailable() or 'no compiled bot'})")
    if native_heur:
        print(f"compiled core, heuristic bots: {native_heur:8.1f} hands/s "
              f"({native_heur / heur:.1f}x the Python engine)")
    if rlcard:
        print(f"RLCard mahjong: {rlcard:8.1f} games/s  (random bots {rand / rlcard:.1f}x)")
    else:
        print("RLCard mahjong: not installed (pip install rlcard)")
    s = out["strength"]
    if s:
        lo, hi = s["ci95"]
        print(f"strength over {s['hands']} hands: heuristic - random = {s['heuristic_minus_random_points']:+.2f} "
              f"points/hand, 95% CI [{lo:+.2f}, {hi:+.2f}]")
        for name, b in s["by_bot"].items():
            print(f"  {name:<10} win rate {b['win_rate']:.1%}  mean points {b['avg_points']:+.2f}  "
                  f"mean fan {b['avg_fan']:.2f}")


if __name__ == "__main__":
    main()
