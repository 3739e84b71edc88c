"""How close the expert's sampled worlds come to the hands the opponents really hold.

    python benchmarks/world_quality.py [--readings uniform,network,knows-ready,knows-waits] [--hands 100]
                                       [--rules chengdu] [--seed 2027] [--worlds 16] [--json]

Four ``heuristic`` seats play ``--hands`` hands (deal *d* of a league seeded ``--seed``). At about
one in five turns of a seat with fewer than 40 live tiles, once every void is known, each reading
deals ``--worlds`` worlds of that seat's view the way the search deals them
(:meth:`~xuezhan.bots.expert.ExpertBot.world` with the reading's weights), and each opponent still
in the hand (not won, its hand not laid down, no face-down kong) is compared with what it really
holds:

- ``overlap``: the tiles a dealt hand shares with the real one, a share of the tiles held;
- ``ready``: of the opponents that are ready, the share of worlds in which the dealt hand is ready
  too; ``false_ready``: of those that are not, the share in which it is;
- ``waits``: of the ready opponents, the share of their waits the dealt hand waits on too;
- ``by_live``: for 0-9, 10-19 and 20-39 live tiles, the share of opponents ready and of dealt hands
  ready.

Readings: ``uniform`` (the unseen tiles dealt alike, ``read_worlds`` off), ``network`` (``expert``:
the reading network), and the oracles of ``oracle_worlds.py`` (``sees-all``, ``sees-ready``,
``knows-waits``, ``knows-ready``, ``knows-ready-safe``) as yardsticks. A few seconds a reading,
where a league of ``oracle_worlds.py`` takes minutes: this says how far a reading is from the real
hands, the league what that is worth to the search. The same arguments give the same figures.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from xuezhan.bots import ExpertBot, make_bot
from xuezhan.bots.base import Bot
from xuezhan.engine.actions import Action
from xuezhan.engine.game import Game
from xuezhan.engine.views import SeatView
from xuezhan.engine.visibility import viewed_state
from xuezhan.errors import XuezhanError
from xuezhan.league.duplicate import play_deal
from xuezhan.rules import Rules
from xuezhan.runtime import Seat


def _oracle_worlds() -> ModuleType:
    """``oracle_worlds.py`` beside this script (its oracles are the yardsticks here)."""
    if "oracle_worlds" in sys.modules:
        return sys.modules["oracle_worlds"]
    spec = importlib.util.spec_from_file_location("oracle_worlds", Path(__file__).with_name("oracle_worlds.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["oracle_worlds"] = module
    spec.loader.exec_module(module)
    return module


_ORACLES = _oracle_worlds()
READINGS = ("uniform", "network", *_ORACLES.ORACLES[1:])
BANDS = ((0, 10, "0-9"), (10, 20, "10-19"), (20, 40, "20-39"))
SHARE = 0.2
"""The share of the eligible turns at which the worlds are dealt and compared."""


class _Uniform(ExpertBot):
    read_worlds = False


def reading_bot(reading: str) -> ExpertBot:
    """The search whose worlds ``reading`` deals (only its :meth:`~ExpertBot.world` is used)."""
    rng = random.Random(0)
    if reading == "uniform":
        return _Uniform(rng)
    if reading == "network":
        return ExpertBot(rng)
    bot: ExpertBot = _ORACLES.oracle_bot(reading)(rng)
    return bot


class _Tally:
    def __init__(self) -> None:
        self.overlap: list[float] = []
        self.ready: list[bool] = []
        self.false_ready: list[bool] = []
        self.waits: list[float] = []
        self.band_real: dict[str, list[bool]] = {b: [] for _, _, b in BANDS}
        self.band_world: dict[str, list[bool]] = {b: [] for _, _, b in BANDS}

    def to_json(self) -> dict[str, Any]:
        def mean(xs: Sequence[float]) -> float | None:
            return round(sum(xs) / len(xs), 4) if xs else None

        return {
            "overlap": mean(self.overlap), "ready": mean(self.ready), "false_ready": mean(self.false_ready),
            "waits": mean(self.waits),
            "by_live": {b: {"opponents_ready": mean(self.band_real[b]), "worlds_ready": mean(self.band_world[b])}
                        for _, _, b in BANDS},
        }


class _Probe:
    """A seat that plays as ``inner`` and now and then compares each reading's worlds with the real hands."""

    def __init__(self, inner: Bot, rng: random.Random, readings: dict[str, ExpertBot], worlds: int,
                 tallies: dict[str, _Tally]) -> None:
        self.inner, self.name, self.rng = inner, inner.name, rng
        self.readings, self.worlds, self.tallies = readings, worlds, tallies
        self.compared = 0

    def start_hand(self, seed: int) -> None:
        self.inner.start_hand(seed)

    def choose(self, view: SeatView, legal: Sequence[Action]) -> Action:
        if (view.phase == "turn" and view.live < BANDS[-1][1] and all(v is not None for v in view.voids())
                and self.rng.random() < SHARE):
            self.compare(view)
        return self.inner.choose(view, legal)

    def compare(self, view: SeatView) -> None:
        real = Game.from_state(viewed_state(view).copy())  # read only, never the table's own state
        band = next(b for lo, hi, b in BANDS if lo <= view.live < hi)
        opponents = [o for o in range(4) if o != view.seat and not view.won(o) and not view.hidden_kongs(o)
                     and not real.seat_state(o).revealed]
        if not opponents:
            return
        self.compared += 1
        ready = {o: set(real.waits(o)) for o in opponents}
        visible = view.visible_counts()
        turn = self.rng.getrandbits(64)
        for name, bot in self.readings.items():
            tally = self.tallies[name]
            weights = bot.world_weights(view)
            rng = random.Random(f"{turn}:{name}")  # a reading's worlds do not depend on the others listed
            for o in opponents:
                tally.band_real[band].append(bool(ready[o]))
            for _ in range(self.worlds):
                world = bot.world(view, rng, visible, weights)
                for o in opponents:
                    held, dealt = real.seat_state(o).counts, world.seat_state(o).counts
                    tally.overlap.append(sum(map(min, held, dealt)) / max(1, sum(held)))
                    waits = set(world.waits(o))
                    tally.band_world[band].append(bool(waits))
                    if ready[o]:
                        tally.ready.append(bool(waits))
                        tally.waits.append(len(waits & ready[o]) / len(ready[o]))
                    else:
                        tally.false_ready.append(bool(waits))


def measure(readings: Sequence[str], hands: int, rules: Rules, seed: int, worlds: int) -> dict[str, Any]:
    """Play ``hands`` hands of four heuristic seats and compare each reading's worlds with the real hands."""
    bots = {name: reading_bot(name) for name in readings}
    tallies = {name: _Tally() for name in readings}
    compared = 0
    for deal in range(hands):
        probes = [_Probe(make_bot("heuristic", random.Random(f"{seed}:{deal}:{s}:bot")),
                         random.Random(f"{seed}:{deal}:{s}:turns"), bots, worlds, tallies) for s in range(4)]
        play_deal(seed, deal, rules, [Seat.of_bot(p) for p in probes])
        compared += sum(p.compared for p in probes)
    return {"turns": compared, "readings": {name: tallies[name].to_json() for name in readings}}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--readings", default="uniform,network,knows-ready,knows-waits")
    p.add_argument("--hands", type=int, default=100)
    p.add_argument("--rules", default="chengdu")
    p.add_argument("--seed", type=int, default=2027)
    p.add_argument("--worlds", type=int, default=16)
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    readings = [r for r in args.readings.split(",") if r]
    unknown = [r for r in readings if r not in READINGS]
    if unknown or not readings:
        p.error(f"--readings: choose from {', '.join(READINGS)} (not {', '.join(unknown) or 'none'})")
    if args.hands < 1 or args.worlds < 1:
        p.error("--hands and --worlds are at least 1")
    start = time.perf_counter()
    try:
        rules = Rules.preset(args.rules)
    except XuezhanError as exc:  # an unknown preset: said in a line, exit 2
        print(f"world_quality.py: {exc.code}: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    out: dict[str, Any] = {"hands": args.hands, "rules": args.rules, "seed": args.seed, "worlds": args.worlds,
                           **measure(readings, args.hands, rules, args.seed, args.worlds),
                           "seconds": round(time.perf_counter() - start, 1)}
    if args.json:
        print(json.dumps(out))
    else:
        print(f"{args.hands} hands of {args.rules}, seed {args.seed}: {out['turns']} turns compared, "
              f"{args.worlds} worlds each")
        print(f"{'reading':<18}{'overlap':>8}{'ready':>8}{'false':>8}{'waits':>8}")
        for name, r in out["readings"].items():
            cells = [r["overlap"], r["ready"], r["false_ready"], r["waits"]]
            print(f"{name:<18}" + "".join(f"{x:>8.1%}" if x is not None else f"{'-':>8}" for x in cells))
    return out


if __name__ == "__main__":
    main()
