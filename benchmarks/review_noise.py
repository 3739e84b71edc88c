"""How much of a review (复盘) is the search's noise: the mistakes it lists, against a reference review
of the same hands with many more play-outs.

    python benchmarks/review_noise.py [--hands 3] [--budgets 64,256,512,1024] [--reference 4096]
                                      [--z 1.5,2,2.5,3] [--real 0.3] [--json]

``--hands`` hands of each preset (qq and chengdu) are played by a mix of bots (``expert``,
``learned``, ``heuristic`` and ``random`` seats, their own seeded choices, mistakes and all) and every
decision of every seat is reviewed (:func:`xuezhan.review.review_record`) twice: once as the
reference, ``--reference`` play-outs a choice with the review's seed, and once for each budget of
``--budgets`` with another seed (independent worlds). For each budget it counts the decisions a
review would list: every loss of 0.005 or more (the rule until 2026-12-05) and as mistakes at each
``--z`` (a loss of at least that many standard errors, :attr:`xuezhan.review.Decision.mistake` at
:data:`~xuezhan.review.MISTAKE_Z`), and of those how many the reference finds a loss of at least
``--real`` points (``real``) and how many it finds under 0.1 (``noise``). It also gives each budget's
CPU time a decision.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from typing import Any

from xuezhan.bots import make_bot
from xuezhan.engine import Game
from xuezhan.records import Record, parse_record, record_json
from xuezhan.review import REVIEW_SEED, SHOWN_LOSS, Review, review_record
from xuezhan.rules import Rules
from xuezhan.runtime import HandDriver, Seat

BOTS = ("expert", "learned", "heuristic", "random")


def hands(per_preset: int) -> list[Record]:
    """The hands reviewed: ``per_preset`` of each preset, the bots' seats rotated from hand to hand."""
    out = []
    for preset in ("qq", "chengdu"):
        for h in range(per_preset):
            seed = 100 + h
            game = Game.new(Rules.preset(preset), seed=seed)
            bots = [make_bot(BOTS[(s + h) % 4], random.Random(seed * 4 + s)) for s in range(4)]
            HandDriver(game, [Seat.of_bot(b) for b in bots], seed=seed).run()
            out.append(parse_record(record_json(game)))
    return out


def measure(records: list[Record], budgets: list[int], reference: int, zs: list[float],
            real: float) -> dict[str, Any]:
    def reviewed(per_choice: int, seed: int) -> tuple[list[Review], float]:
        start = time.process_time()
        out = [review_record(r, per_choice=per_choice, seed=seed) for r in records]
        return out, time.process_time() - start

    truth, truth_cpu = reviewed(reference, REVIEW_SEED)
    ref = [d.loss for r in truth for d in r.decisions]
    rows: dict[str, Any] = {"decisions": len(ref), "reference": reference,
                            "reference_real": sum(x >= real for x in ref), "budgets": {}}
    rules: dict[str, Any] = {"every loss": lambda loss, se: loss >= SHOWN_LOSS}
    for z in zs:
        rules[f"mistakes at {z:g} SE"] = lambda loss, se, z=z: loss >= SHOWN_LOSS and loss >= z * se
    for budget in budgets:
        reviews, cpu = reviewed(budget, REVIEW_SEED + 1)
        mine = [(d.loss, d.stderr) for r in reviews for d in r.decisions]
        assert len(mine) == len(ref)  # the same decisions, weighed again
        counts = {}
        for name, listed in rules.items():
            picked = [t for (loss, se), t in zip(mine, ref, strict=True) if listed(loss, se)]
            counts[name] = {"listed": len(picked), "real": sum(t >= real for t in picked),
                            "noise": sum(t < 0.1 for t in picked)}
        rows["budgets"][str(budget)] = {"ms_a_decision": round(1000 * cpu / len(ref), 1), **counts}
    rows["reference_ms_a_decision"] = round(1000 * truth_cpu / len(ref), 1)
    return rows


def _counts(text: str) -> list[int]:
    """A comma-separated list of play-out counts, each at least 1 (argparse reports a bad one)."""
    out = [int(x) for x in text.split(",")]
    if min(out) < 1:
        raise ValueError(text)
    return out


def _numbers(text: str) -> list[float]:
    return [float(x) for x in text.split(",")]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--hands", type=int, default=3)
    p.add_argument("--budgets", type=_counts, default=_counts("64,256,512,1024"))
    p.add_argument("--reference", type=int, default=4096)
    p.add_argument("--z", type=_numbers, default=_numbers("1.5,2,2.5,3"))
    p.add_argument("--real", type=float, default=0.3)
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    if args.hands < 1 or args.reference < 1:
        p.error("--hands and --reference must be at least 1")
    rows = measure(hands(args.hands), args.budgets, args.reference, args.z, args.real)
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    print(f"{rows['decisions']} decisions; the reference ({rows['reference']} play-outs a choice) finds a loss of "
          f"{args.real} or more in {rows['reference_real']}")
    for budget, row in rows["budgets"].items():
        print(f"{budget} a choice ({row['ms_a_decision']} ms a decision):")
        for name, c in row.items():
            if isinstance(c, dict):
                print(f"  {name}: listed {c['listed']}, real {c['real']}, noise {c['noise']}")


if __name__ == "__main__":
    main()
