"""How long the learned bot takes to decide: CPU time per decision, over whole hands.

    python benchmarks/learned_speed.py [--hands 40] [--presets qq,chengdu] [--json]

Four ``learned`` seats play ``--hands`` hands of each preset in this process; every decision
with a choice is timed (``time.process_time_ns`` around ``choose``: the features and the
network), and the median, p99 and maximum are printed. The hand analysis' caches start empty
(a fresh process), as at a table. The target is a p99 of at most 5 ms on one core.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Sequence
from typing import Any

from xuezhan.bots import LearnedBot
from xuezhan.engine.actions import Action
from xuezhan.engine.deal import random_deal
from xuezhan.engine.game import Game
from xuezhan.engine.views import SeatView
from xuezhan.rules import Rules
from xuezhan.selfplay import play_hand


class Timed:
    """The learned bot, timing each decision with a choice."""

    def __init__(self, bot: LearnedBot, times: list[int]) -> None:
        self.bot = bot
        self.name = bot.name
        self.times = times

    def start_hand(self, seed: int) -> None:
        self.bot.start_hand(seed)

    def choose(self, view: SeatView, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        t0 = time.process_time_ns()
        action = self.bot.choose(view, legal)
        self.times.append(time.process_time_ns() - t0)
        return action


def _ms(values: list[int]) -> dict[str, float]:
    ordered = sorted(values)
    return {"median_ms": round(statistics.median(ordered) / 1e6, 3),
            "p99_ms": round(ordered[int(0.99 * (len(ordered) - 1))] / 1e6, 3),
            "max_ms": round(ordered[-1] / 1e6, 3)}


def measure(preset: str, hands: int) -> dict[str, Any]:
    rules = Rules.preset(preset)
    times: list[int] = []
    bots = [Timed(LearnedBot(), times) for _ in range(4)]
    for seed in range(hands):
        play_hand(Game(rules, random_deal(random.Random(seed), seed % 4), seed % 4), bots)
    return {"preset": preset, "hands": hands, "decisions": len(times), **_ms(times)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=40)
    parser.add_argument("--presets", default="qq,chengdu")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = [measure(p, args.hands) for p in args.presets.split(",") if p]
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    for r in rows:
        print(f"{r['preset']:<8} {r['decisions']:>6} decisions  median {r['median_ms']:.3f} ms  "
              f"p99 {r['p99_ms']:.3f} ms  max {r['max_ms']:.3f} ms")


if __name__ == "__main__":
    main()
