"""Hand analysis speed, side by side with the ``mahjong`` package (riichi calculator).

    python benchmarks/hand_bench.py [--json] [--hands N] [--repeat R] [--seed S]

In one process, on the same seeded random hands (all suited, so the 34-tile arrays
given to ``mahjong`` are our 27 counts followed by seven zeros):

- win check: ``xuezhan.hand.is_complete_keys`` (what the engine runs: the three suit
  keys it keeps up to date as tiles move) against ``Agari.is_agari`` on 14-tile hands,
  half complete (four sets and a pair, one in ten seven pairs, one or two suits) and
  half random deals (nearly always incomplete); ``win_check_from_counts`` times
  ``xuezhan.hand.is_complete``, which first builds the keys from 27 counts;
- shanten: ``xuezhan.hand.shanten`` with no void and ``two_suits=False`` (the same
  question ``mahjong`` answers: regular form and seven pairs, any suits) against
  ``Shanten.calculate_shanten`` on random 13-tile deals; ``standard_shanten`` is
  shown beside it;
- waits: ``winning_tiles`` on the same 13-tile deals;
- scoring: ``xuezhan.scoring.score_win`` on the complete hands, rules ``qq``.

Each figure is the best of ``R`` passes over all hands (microseconds per call). The
``mahjong`` package is needed (``pip install mahjong``).
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

from mahjong.agari import Agari
from mahjong.shanten import Shanten

from xuezhan import hand
from xuezhan.rules import Rules
from xuezhan.scoring import Score, WinContext, score_win
from xuezhan.tiles import NUM_KINDS, Tile, tiles_of

Counts = list[int]

_RUNS = [(s * 9 + r, s * 9 + r + 1, s * 9 + r + 2) for s in range(3) for r in range(7)]


def deal(rng: random.Random, n: int) -> Counts:
    """``n`` tiles drawn from a full set of 108."""
    counts = [0] * NUM_KINDS
    for t in rng.sample(range(108), n):
        counts[t // 4] += 1
    return counts


def complete_hand(rng: random.Random) -> Counts:
    """A random complete 14-tile hand in one or two suits (at most four copies of a kind)."""
    suits = rng.sample(range(3), rng.choice((1, 2)))
    kinds = [s * 9 + r for s in suits for r in range(9)]
    while True:
        counts = [0] * NUM_KINDS
        if rng.random() < 0.1:  # seven pairs
            for t in rng.sample(kinds, 7):
                counts[t] += 2
        else:
            for _ in range(4):
                if rng.random() < 0.6:
                    for t in rng.choice([run for run in _RUNS if run[0] // 9 in suits]):
                        counts[t] += 1
                else:
                    counts[rng.choice(kinds)] += 3
            counts[rng.choice(kinds)] += 2
        if max(counts) <= 4:
            return counts


def best_times(loops: dict[str, tuple[Callable[[], None], int]], repeat: int) -> dict[str, float]:
    """Microseconds per call of each ``(loop, calls)``, best of ``repeat`` consecutive passes.

    As ``timeit`` does: one function at a time, garbage collector off while timing.
    """
    best = dict.fromkeys(loops, float("inf"))
    gc_was_on = gc.isenabled()
    try:
        for name, (loop, calls) in loops.items():
            gc.collect()
            gc.disable()
            for _ in range(repeat):
                start = time.perf_counter()
                loop()
                best[name] = min(best[name], (time.perf_counter() - start) / calls * 1e6)
            gc.enable()
    finally:
        if gc_was_on:
            gc.enable()
        else:
            gc.disable()
    return best


def run(n_hands: int, repeat: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    complete = [complete_hand(rng) for _ in range(n_hands // 2)]
    win_hands = complete + [deal(rng, 14) for _ in range(n_hands - n_hands // 2)]
    rng.shuffle(win_hands)
    win_34 = [c + [0] * 7 for c in win_hands]
    deals = [deal(rng, 13) for _ in range(n_hands)]
    deals_34 = [c + [0] * 7 for c in deals]
    rules = Rules.preset("qq")
    ctx = WinContext()
    score_args: list[tuple[list[Tile], Tile]] = []
    for c in complete:
        tiles = tiles_of(c)
        score_args.append((tiles, rng.choice(tiles)))

    # the answers must be the same question answered (seven pairs aside: mahjong wants distinct pairs)
    assert all(hand.is_complete(c) for c in complete)
    assert all(isinstance(score_win(t, [], w, ctx, rules), Score) for t, w in score_args)
    hand.shanten(deals[0])  # the tables load on first use: not inside the timings

    win_keys = [hand.suit_keys(c) for c in win_hands]
    assert all(hand.is_complete_keys(*k) == hand.is_complete(c) for k, c in zip(win_keys, win_hands, strict=True))
    is_complete, is_complete_keys, is_agari = hand.is_complete, hand.is_complete_keys, Agari.is_agari
    shanten, standard_shanten, calc_shanten = hand.shanten, hand.standard_shanten, Shanten.calculate_shanten
    winning_tiles = hand.winning_tiles

    def loop_win_ours() -> None:
        for c in win_hands:
            is_complete(c)

    def loop_win_keys() -> None:
        for k0, k1, k2 in win_keys:
            is_complete_keys(k0, k1, k2)

    def loop_win_theirs() -> None:
        for c in win_34:
            is_agari(c)

    def loop_shanten_ours() -> None:
        for c in deals:
            shanten(c, 0, void=None, two_suits=False)

    def loop_standard_ours() -> None:
        for c in deals:
            standard_shanten(c)

    def loop_shanten_theirs() -> None:
        for c in deals_34:
            calc_shanten(c)

    def loop_waits() -> None:
        for c in deals:
            winning_tiles(c)

    def loop_score() -> None:
        for tiles, w in score_args:
            score_win(tiles, [], w, ctx, rules)

    t = best_times(
        {
            "win_ours": (loop_win_ours, len(win_hands)),
            "win_keys": (loop_win_keys, len(win_keys)),
            "win_theirs": (loop_win_theirs, len(win_34)),
            "shanten_ours": (loop_shanten_ours, len(deals)),
            "shanten_theirs": (loop_shanten_theirs, len(deals_34)),
            "standard_ours": (loop_standard_ours, len(deals)),
            "waits": (loop_waits, len(deals)),
            "score": (loop_score, len(score_args)),
        },
        repeat,
    )
    return {
        "win_check": _pair(t["win_keys"], t["win_theirs"]),
        "win_check_from_counts": _pair(t["win_ours"], t["win_theirs"]),
        "shanten": _pair(t["shanten_ours"], t["shanten_theirs"]),
        "waits_us": round(t["waits"], 3),
        "score_us": round(t["score"], 3),
        "_standard_shanten_us": round(t["standard_ours"], 3),
        "_agree": _agreement(win_hands, win_34, deals, deals_34),
    }


def _pair(ours: float, theirs: float) -> dict[str, float]:
    return {"xuezhan_us": round(ours, 3), "mahjong_us": round(theirs, 3), "speedup": round(theirs / ours, 2)}


def _agreement(
    win_hands: Sequence[Counts], win_34: Sequence[Counts], deals: Sequence[Counts], deals_34: Sequence[Counts]
) -> dict[str, int]:
    """How often the two libraries give the same answer (a sanity check, not a timing)."""
    win_same = sum(hand.is_complete(a) == Agari.is_agari(b) for a, b in zip(win_hands, win_34, strict=True))
    regular = Shanten.calculate_shanten_for_regular_hand
    std_same = sum(hand.standard_shanten(a) == regular(b) for a, b in zip(deals, deals_34, strict=True))
    return {"hands": len(deals), "win_check_same": win_same, "standard_shanten_same": std_same}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    parser.add_argument("--hands", type=int, default=2000, help="hands per list (default 2000)")
    parser.add_argument("--repeat", type=int, default=15, help="passes per figure, the best is kept (default 15)")
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()
    result = run(args.hands, args.repeat, args.seed)
    if args.json:
        print(json.dumps({k: v for k, v in result.items() if not k.startswith("_")}))
        return
    win, sh, wc = result["win_check"], result["shanten"], result["win_check_from_counts"]
    agree = result["_agree"]
    print(f"hands: {args.hands} per list, best of {args.repeat} passes, seed {args.seed}")
    print(
        f"win check   xuezhan {win['xuezhan_us']:8.3f} us   mahjong Agari.is_agari        "
        f"{win['mahjong_us']:8.3f} us   x{win['speedup']}"
    )
    print(
        f"  from counts       {wc['xuezhan_us']:8.3f} us   (keys built from 27 counts first)       x{wc['speedup']}"
    )
    print(
        f"shanten     xuezhan {sh['xuezhan_us']:8.3f} us   mahjong Shanten.calculate_shanten "
        f"{sh['mahjong_us']:8.3f} us   x{sh['speedup']}"
    )
    print(f"standard_shanten    {result['_standard_shanten_us']:8.3f} us")
    print(f"waits (winning_tiles) {result['waits_us']:8.3f} us")
    print(f"score_win (qq)        {result['score_us']:8.3f} us")
    print(
        f"same answers: win check {agree['win_check_same']}/{agree['hands']}, "
        f"regular-form shanten {agree['standard_shanten_same']}/{agree['hands']}"
    )


if __name__ == "__main__":
    main()
