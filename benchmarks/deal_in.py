"""How often a bot deals in from a ready hand late in the wall, over duplicate deals.

    python benchmarks/deal_in.py [--bot expert] [--against heuristic] [--deals 200]
                                 [--rules qq] [--seed 2026] [--live 20] [--json]

Every deal is played twice, the bot in seats 0 and 2 and then in seats 1 and 3 (``--against``
in the others), as the league plays a pair. At each discard of the bot's seat whose hand is
ready after the discard, or could have been (some legal discard keeps it ready), with fewer
than ``--live`` tiles in the live wall, it counts:

- ``late_ready_discards``: such discards;
- ``deal_ins``: those another seat won on (a 点炮 from a ready hand, late);
- ``avoidable``: deal-ins where another discard kept the hand ready and no seat then waiting
  could have won on it (as the real hands show: a safe tile that kept the hand ready);

and per seat-hand ``seat_hands_dealt_in_late_ready`` (seat-hands with at least one such deal-in).
The rate asked about is ``deal_ins / late_ready_discards`` and, per seat-hand, the last count
over ``seat_hands``. It also gives the bot's CPU time per decision (median, p99, max) and,
for an expert, the worlds of its searched decisions (``worlds_mean``).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from typing import Any

from xuezhan.bots import Bot, make_bot
from xuezhan.engine import Game
from xuezhan.engine.actions import ActionType
from xuezhan.engine.views import SeatView
from xuezhan.hand import shanten
from xuezhan.match import hand_seed
from xuezhan.rules import Rules
from xuezhan.scoring import suits_of_melds


def closeness(game: Game, seat: int, counts: list[int]) -> int:
    """Steps from ready of ``seat``'s concealed ``counts`` with its melds and void (-1: a win)."""
    view = SeatView(game, seat)
    return shanten(counts, len(view.melds(seat)), meld_suits=suits_of_melds(view.melds(seat)), void=view.void)


def wins_on(game: Game, seat: int, tile: int) -> bool:
    """Whether ``seat``'s real hand would win on a discard of ``tile`` (a hand still playing)."""
    view = SeatView(game, seat)
    if view.won(seat) and not game.rules.blood_river:
        return False
    counts = list(view.counts)
    void = view.void
    if void is not None and (tile // 9 == void or any(counts[void * 9 : void * 9 + 9])):
        return False
    counts[tile] += 1
    return closeness(game, seat, counts) == -1


def play(rules: Rules, seed: int, bots: list[Bot], mine: set[int], live_below: int, tally: dict[str, int],
         times: list[float], worlds: list[int]) -> None:
    game = Game.new(rules, seed=seed)
    for s, b in enumerate(bots):
        start = getattr(b, "start_hand", None)
        if start is not None:
            start(seed * 4 + s)
    dealt: set[int] = set()
    while not game.over:
        seat = next(s for s in game.pending() if game.legal_actions(s))
        view, legal = SeatView(game, seat), game.legal_actions(seat)
        bot = bots[seat]
        t0 = time.process_time()
        action = bot.choose(view, legal)
        if seat in mine:
            times.append((time.process_time() - t0) * 1000)
            if getattr(bot, "worlds", 0):
                worlds.append(getattr(bot, "worlds", 0))
        if seat in mine and action.type is ActionType.DISCARD and view.live < live_below:
            counts = view.counts
            ready: dict[int, bool] = {}
            for a in legal:
                if a.type is ActionType.DISCARD and a.tile is not None and a.tile not in ready:
                    counts[a.tile] -= 1
                    ready[a.tile] = closeness(game, seat, counts) == 0
                    counts[a.tile] += 1
            if any(ready.values()):
                tally["late_ready_discards"] += 1
                t = action.tile or 0
                others = [o for o in range(4) if o != seat]
                if any(wins_on(game, o, t) for o in others):
                    tally["deal_ins"] += 1
                    dealt.add(seat)
                    if any(r and not any(wins_on(game, o, u) for o in others) for u, r in ready.items()):
                        tally["avoidable"] += 1
        game.apply(action)
    for s in mine:
        tally["seat_hands"] += 1
        tally["seat_hands_dealt_in_late_ready"] += s in dealt
        tally["points"] += game.deltas()[s]


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bot", default="expert")
    p.add_argument("--against", default="heuristic")
    p.add_argument("--deals", type=int, default=200)
    p.add_argument("--rules", default="qq")
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--live", type=int, default=20, help="count discards with fewer live tiles than this")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    rules = Rules.preset(args.rules)
    tally = dict.fromkeys(("late_ready_discards", "deal_ins", "avoidable", "seat_hands",
                           "seat_hands_dealt_in_late_ready", "points"), 0)
    times: list[float] = []
    worlds: list[int] = []
    for d in range(args.deals):
        seed = hand_seed(args.seed, d + 1)
        for first in (0, 1):
            mine = {first, first + 2}
            bots = [make_bot(args.bot if s in mine else args.against, random.Random(seed + s)) for s in range(4)]
            play(rules, seed, bots, mine, args.live, tally, times, worlds)
    out: dict[str, Any] = {"bot": args.bot, "against": args.against, "deals": args.deals, "rules": args.rules,
                           "seed": args.seed, "live_below": args.live, **tally}
    out["deal_in_rate"] = tally["deal_ins"] / max(1, tally["late_ready_discards"])
    out["seat_hand_rate"] = tally["seat_hands_dealt_in_late_ready"] / max(1, tally["seat_hands"])
    out["points_per_hand"] = tally["points"] / max(1, tally["seat_hands"])
    times.sort()
    out["decisions"] = len(times)
    out["decision_ms_median"] = statistics.median(times) if times else None
    out["decision_ms_p99"] = times[min(len(times) - 1, int(0.99 * len(times)))] if times else None
    out["decision_ms_max"] = times[-1] if times else None
    out["searched_decisions"] = len(worlds)
    out["worlds_mean"] = statistics.mean(worlds) if worlds else None
    if args.json:
        print(json.dumps(out))
    else:
        for k, v in out.items():
            print(f"{k:32} {v}")
    return out


if __name__ == "__main__":
    main()
