"""How strong the bots are, by duplicate leagues (``xuezhan.league``), and how fast the expert is.

    python benchmarks/bot_strength.py [--deals 1000] [--heuristic-deals 20000] [--random-deals 300]
                                      [--presets qq,chengdu] [--workers W] [--speed-hands 40] [--json]

For each preset:

- ``expert`` against ``heuristic`` over ``--deals`` deals (target: the whole 95 % CI above
  zero, and at least +1.5 points per hand);
- ``heuristic`` against the heuristic of the previous release (commit ``a54f309``, read with
  ``git show`` into a temporary module for this run only) over ``--heuristic-deals`` deals
  (target: the CI above zero);
- ``heuristic`` and ``expert`` against ``random`` over ``--random-deals`` deals (target: at
  least +30 points per hand);

then the expert's decision time (CPU time per decision: median and p99, over all decisions
and over the searched ones) and the hands per second of four experts, over
``--speed-hands`` hands of the qq preset in one process; where the compiled core is built
the play-outs run in it, and the same seeds are measured again as an install without the core
plays them (``speed_python_playouts``: its default budget of 12 play-outs in Python, so other
decisions, side by side).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from xuezhan import native
from xuezhan.bots import BOTS, ExpertBot
from xuezhan.engine.actions import Action
from xuezhan.engine.views import SeatView
from xuezhan.league import run_league
from xuezhan.rules import Rules
from xuezhan.selfplay import simulate

PREVIOUS = "a54f309"
"""The release whose heuristic the new one is measured against."""
PREVIOUS_NAME = f"heuristic@{PREVIOUS}"


def load_previous_heuristic(commit: str = PREVIOUS) -> type[Any]:
    """The heuristic bot of ``commit``, read from git into a temporary module (never into the package)."""
    repo = Path(__file__).resolve().parent.parent
    text = subprocess.run(["git", "show", f"{commit}:src/xuezhan/bots/heuristic.py"], cwd=repo,
                          capture_output=True, text=True, check=True).stdout
    text = text.replace("from ..", "from xuezhan.")  # the module sits outside the package
    folder = Path(tempfile.mkdtemp(prefix="xuezhan-prev-"))
    path = folder / "previous_heuristic.py"
    path.write_text(text, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("previous_heuristic", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    cls: type[Any] = type("PreviousHeuristic", (module.HeuristicBot,), {"name": PREVIOUS_NAME})
    return cls


def pair(bots: Sequence[str], deals: int, preset: str, workers: int, seed: int) -> dict[str, Any]:
    start = time.perf_counter()
    result = run_league(list(bots), deals, seed=seed, rules=Rules.preset(preset), workers=workers)
    data = result.to_json()
    p = data["pairs"][0]
    return {"a": p["a"], "b": p["b"], "preset": preset, "deals": p["deals"], "hands": p["hands"],
            "mean_diff": p["mean_diff"], "ci95": p["ci95"], "bots": data["bots"],
            "seconds": time.perf_counter() - start}


def expert_speed(hands: int, seed: int = 11) -> dict[str, Any]:
    """CPU time per decision of four experts, and their hands per second."""
    all_ns: list[int] = []
    searched_ns: list[int] = []
    original = ExpertBot.choose
    original_eval = ExpertBot.evaluate
    searching = [False]

    def timed(self: ExpertBot, view: SeatView, legal: Sequence[Action]) -> Action:
        t0 = time.process_time_ns()
        searching[0] = False
        action = original(self, view, legal)
        spent = time.process_time_ns() - t0
        all_ns.append(spent)
        if searching[0]:
            searched_ns.append(spent)
        return action

    def flagged(self: ExpertBot, *args: Any, **kwargs: Any) -> Any:
        searching[0] = True
        return original_eval(self, *args, **kwargs)

    ExpertBot.choose = timed  # type: ignore[method-assign]
    ExpertBot.evaluate = flagged  # type: ignore[method-assign]
    try:
        wall, cpu = time.perf_counter(), time.process_time()
        simulate(hands, ["expert"] * 4, seed=seed)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    finally:
        ExpertBot.choose = original  # type: ignore[method-assign]
        ExpertBot.evaluate = original_eval  # type: ignore[method-assign]

    def ms(values: list[int], q: float) -> float | None:
        if not values:
            return None
        ordered = sorted(values)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] / 1e6

    return {
        "hands": hands,
        "hands_per_cpu_second": hands / cpu,
        "hands_per_second": hands / wall,
        "decisions": len(all_ns),
        "searched_decisions": len(searched_ns),
        "decision_ms_median": statistics.median(all_ns) / 1e6,
        "decision_ms_p99": ms(all_ns, 0.99),
        "searched_ms_median": statistics.median(searched_ns) / 1e6 if searched_ns else None,
        "searched_ms_p99": ms(searched_ns, 0.99),
        "max_ms": max(all_ns) / 1e6,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=1000, help="deals of expert against heuristic")
    parser.add_argument("--heuristic-deals", type=int, default=20000,
                        help="deals of heuristic against the previous one")
    parser.add_argument("--random-deals", type=int, default=300, help="deals of each bot against random")
    parser.add_argument("--presets", default="qq,chengdu")
    parser.add_argument("--workers", type=int, default=1, help="workers for the leagues with the expert")
    parser.add_argument("--speed-hands", type=int, default=40)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    BOTS[PREVIOUS_NAME] = load_previous_heuristic()
    out: dict[str, Any] = {"pairs": [], "speed": None}
    for preset in args.presets.split(","):
        # the previous heuristic lives in this process only: that league runs here
        out["pairs"].append(pair(["heuristic", PREVIOUS_NAME], args.heuristic_deals, preset, 1, args.seed))
        out["pairs"].append(pair(["heuristic", "random"], args.random_deals, preset, 1, args.seed))
        out["pairs"].append(pair(["expert", "heuristic"], args.deals, preset, args.workers, args.seed))
        out["pairs"].append(pair(["expert", "random"], args.random_deals, preset, args.workers, args.seed))
        print(f"... {preset} done", file=sys.stderr, flush=True)
    if args.speed_hands:
        out["speed"] = expert_speed(args.speed_hands)
        if native.available():
            ExpertBot.native_playouts = False
            try:
                out["speed_python_playouts"] = expert_speed(args.speed_hands)
            finally:
                ExpertBot.native_playouts = True
    targets = []
    for p in out["pairs"]:
        lo, hi = p["ci95"]
        if p["b"] == "random":
            # 30 points of qq (base score 6) a hand: 5 base scores, so 5 points under chengdu's base 1
            need = 30 * Rules.preset(p["preset"]).base_score / 6
            ok = p["mean_diff"] >= need
            goal = f"≥ +{need:g} per hand"
        elif p["a"] == "expert":
            need = 1.5 * Rules.preset(p["preset"]).base_score / 6  # 1.5 qq points: a quarter of a base score
            ok = lo > 0 and p["mean_diff"] >= need and p["deals"] >= 1000
            goal = f"CI above 0 and ≥ +{need:g} per hand over ≥ 1,000 deals"
        else:
            ok = lo > 0
            goal = "CI above 0"
        targets.append({"pair": f"{p['a']} vs {p['b']}", "preset": p["preset"], "goal": goal, "met": ok})
    if out["speed"]:
        targets.append({"pair": "four experts", "preset": "qq", "goal": "≥ 5 hands/s",
                        "met": out["speed"]["hands_per_cpu_second"] >= 5})
    out["targets"] = targets
    if args.json:
        print(json.dumps(out, indent=2, ensure_ascii=False))
        return
    for p in out["pairs"]:
        lo, hi = p["ci95"]
        print(f"{p['preset']:<8} {p['a']:>20} vs {p['b']:<20} {p['deals']:>5} deals  "
              f"{p['mean_diff']:+7.2f} per hand  95% CI [{lo:+.2f}, {hi:+.2f}]  ({p['seconds']:.0f} s)")
    s = out["speed"]
    if s:
        print(f"expert decisions: median {s['decision_ms_median']:.2f} ms, p99 {s['decision_ms_p99']:.1f} ms; "
              f"searched ({s['searched_decisions']} of {s['decisions']}): median {s['searched_ms_median']:.1f} ms, "
              f"p99 {s['searched_ms_p99']:.1f} ms (CPU time)")
        print(f"four experts: {s['hands_per_cpu_second']:.1f} hands per CPU second "
              f"({s['hands_per_second']:.1f} per wall second on this machine)")
    slow = out.get("speed_python_playouts")
    if slow:
        print(f"the same with the play-outs in Python: {slow['hands_per_cpu_second']:.1f} hands per CPU second, "
              f"searched decisions median {slow['searched_ms_median']:.1f} ms")
    for t in targets:
        print(f"target {t['pair']} ({t['preset']}): {t['goal']}: {'met' if t['met'] else 'NOT met'}")


if __name__ == "__main__":
    main()
