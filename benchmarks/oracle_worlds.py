"""What the expert's search lacks: the same search with worlds that know more than its seat may.

    python benchmarks/oracle_worlds.py --oracle sees-ready [--against heuristic] [--deals 2000]
                                       [--rules chengdu] [--seed 2027] [--workers 2] [--json]

Each oracle is :class:`~xuezhan.bots.expert.ExpertBot` (the same prior, candidates, margin and
play-outs) whose worlds (:meth:`~xuezhan.bots.expert.ExpertBot.world`) know something its seat
cannot see. It plays a duplicate league against ``--against``
(:func:`xuezhan.league.league.run_league`); the mean points a hand of the pair, with its 95 % CI,
is what that knowledge is worth to the search. They are yardsticks, not bots: only this script
registers them, for its own league.

- ``none``: ``expert`` itself (worlds read by the reading network).
- ``sees-all``: every world is the real hands, the live wall in a fresh order.
- ``sees-ready``: at the seat's turns, an opponent that is ready holds its real hand in every
  world; the others are dealt as ``expert`` deals them, and never ready.
- ``knows-waits``: at the seat's turns, which opponents are ready and their waits but not their
  hands: a ready one holds a hand built as below that waits on those tiles
  (:func:`~xuezhan.bots.reading.built_ready_hand` with ``want``); the others as in ``sees-ready``.
- ``knows-ready``: at the seat's turns, which opponents are ready but not their hands: a ready one
  holds a hand built from a pair and sets of the tiles the seat has not seen (none of its void),
  less one tile; the others as in ``sees-ready``.
- ``knows-ready-safe``: the same, and a built hand waits on none of :func:`safe_tiles`: the tiles
  others discarded since the opponent's last discard and its own last three discards (a seat
  that could win takes the win, so the first are never its waits; the second seldom are).

Worlds whose opponents cannot be dealt as an oracle asks (no ready hand fits, a face-down kong
needs the copies) are dealt as ``expert`` deals them.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Sequence
from typing import Any

from xuezhan.bots import BOTS, ExpertBot
from xuezhan.bots.expert import Chances
from xuezhan.bots.reading import BUILD_TRIES, built_ready_hand, passed_since
from xuezhan.engine.game import Game
from xuezhan.engine.views import SeatView, reshuffle_wall, sample_world
from xuezhan.engine.visibility import viewed_state
from xuezhan.errors import XuezhanError
from xuezhan.league.league import run_league
from xuezhan.rules import Rules
from xuezhan.scoring import suits_of_melds

ORACLES = ("none", "sees-all", "sees-ready", "knows-waits", "knows-ready", "knows-ready-safe")
OWN_DISCARDS = 3
"""An opponent's last discards (outside its void) taken as not among its waits (``knows-ready-safe``)."""



def safe_tiles(view: SeatView, seat: int) -> set[int]:
    """Tiles ``seat`` is taken not to wait on, as ``view``'s seat sees the table: every tile another
    seat discarded after ``seat``'s last discard (:func:`~xuezhan.bots.reading.passed_since`: ``seat``
    did not win on it), and ``seat``'s own last :data:`OWN_DISCARDS` discards outside its void."""
    safe = passed_since(view, seat)
    void = view.voids()[seat]
    safe.update([t for t in view.river(seat) if t // 9 != void][-OWN_DISCARDS:])
    return safe


class OracleExpert(ExpertBot):
    """``expert`` whose worlds know what ``oracle`` says (module docstring)."""

    oracle = "none"

    def world(self, view: SeatView, rng: random.Random, visible: Sequence[int],
              weights: list[list[float]] | None, chances: Chances | None = None) -> Game:
        if self.oracle == "none":
            return super().world(view, rng, visible, weights, chances)
        real = Game.from_state(viewed_state(view).copy())
        if self.oracle == "sees-all":
            reshuffle_wall(real, rng.getrandbits(64) | 1)
            return real
        if view.phase != "turn" or real.claim_window is not None:
            return super().world(view, rng, visible, weights, chances)
        others = [o for o in range(4) if o != view.seat and not view.won(o) and not real.seat_state(o).revealed]
        ready = {o for o in others if real.is_ready(o)}
        hands: dict[int, list[int]] = {}
        if self.oracle == "sees-ready":
            hands = {o: list(real.seat_state(o).counts) for o in ready}
        else:
            unseen = [4 - v for v in visible]
            for o in sorted(ready):
                s = real.seat_state(o)
                avoid = safe_tiles(view, o) if self.oracle == "knows-ready-safe" else set()
                want = set(real.waits(o)) if self.oracle == "knows-waits" else None
                meld_suits = suits_of_melds(s.melds)
                hand = built_ready_hand(unseen, s.concealed, s.void, len(s.melds), meld_suits, rng, avoid, want)
                if hand is not None:
                    hands[o] = hand
                    unseen = [u - h for u, h in zip(unseen, hand, strict=True)]
        world: Game | None = None
        for _ in range(BUILD_TRIES):  # the opponents that are not ready are never ready
            try:
                world = sample_world(view, rng, visible, weights, hands)
            except ValueError:
                break
            if not any(world.is_ready(o) for o in others if o not in ready):
                return world
        return world if world is not None else super().world(view, rng, visible, weights, chances)


def oracle_name(oracle: str) -> str:
    return "expert" if oracle == "none" else f"oracle-{oracle}"


def oracle_bot(oracle: str) -> type[OracleExpert]:
    """The yardstick ``oracle`` as a bot class."""
    return type(f"Oracle_{oracle.replace('-', '_')}", (OracleExpert,), {"oracle": oracle})


def register() -> None:
    """Register the oracles as bots, in this process only (the script's own league)."""
    for oracle in ORACLES[1:]:
        BOTS[oracle_name(oracle)] = oracle_bot(oracle)


if __name__ in ("__main__", "__mp_main__"):  # the script, or a league worker it spawned
    register()


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--oracle", choices=ORACLES, default="sees-ready")
    p.add_argument("--against", default="heuristic")
    p.add_argument("--deals", type=int, default=2000)
    p.add_argument("--rules", default="chengdu")
    p.add_argument("--seed", type=int, default=2027)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    name = oracle_name(args.oracle)
    start = time.perf_counter()
    try:
        league = run_league([name, args.against], args.deals, seed=args.seed, rules=Rules.preset(args.rules),
                            workers=args.workers)
    except XuezhanError as exc:  # an unknown preset or bot, no deals: said in a line, exit 2
        print(f"oracle_worlds.py: {exc.code}: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    ci = league.pairs[0].ci
    tally = league.tallies[name].to_json()
    out: dict[str, Any] = {
        "oracle": args.oracle, "against": args.against, "deals": args.deals, "rules": args.rules,
        "seed": args.seed, "mean": ci.mean, "low": ci.low, "high": ci.high,
        **{k: tally[k] for k in ("win_rate", "deal_in_rate", "points_by_reason")},
        "seconds": round(time.perf_counter() - start, 1),
    }
    if args.json:
        print(json.dumps(out))
    else:
        print(f"{name} - {args.against}, {args.rules}, {args.deals} deals of seed {args.seed}: "
              f"{ci.mean:+.2f} [{ci.low:+.2f}, {ci.high:+.2f}] a hand")
    return out


if __name__ == "__main__":
    main()
