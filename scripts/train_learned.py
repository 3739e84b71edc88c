"""Train the learned bot's network and write its weights and manifest.

    pip install 'xuezhan[train]'
    python scripts/train_learned.py --out src/xuezhan/bots/weights/learned-1.npz

The defaults (:class:`xuezhan.rl.train.TrainConfig`) made the shipped weights. The manifest
(``learned-1.json`` beside the weights) records the command, the configuration, the seed, the
data and the training's own figures; the league figures are added to it once measured
(docs/bots.md, "learned").
"""

from __future__ import annotations

import argparse
import shlex
import sys
from dataclasses import fields
from pathlib import Path
from typing import Any

from xuezhan import __version__
from xuezhan.errors import XuezhanError
from xuezhan.rl.train import TrainConfig, check_writable, config_json, save_weights, train
from xuezhan.scale import check_workers


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("learned-1.npz"), help="the weights file to write")
    defaults = TrainConfig()
    for f in fields(TrainConfig):
        value = getattr(defaults, f.name)
        flag = "--" + f.name.replace("_", "-")
        if isinstance(value, bool):  # --improve-core / --no-improve-core
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=value, help=f"default {value}")
        elif isinstance(value, tuple):
            parser.add_argument(flag, default=",".join(value), help=f"comma-separated (default {','.join(value)})")
        else:
            parser.add_argument(flag, type=type(value), default=value, help=f"default {value}")
    parser.add_argument("--checkpoints", type=Path, default=None,
                        help="a folder for the weights after the imitation and at each snapshot")
    parser.add_argument("--workers", type=int, default=1,
                        help="processes playing the improvement's hands (the weights do not depend on it)")
    args = parser.parse_args(argv)
    options = {f.name: getattr(args, f.name) for f in fields(TrainConfig)}
    options["rules"] = tuple(x for x in options["rules"].split(",") if x)
    cfg = TrainConfig(**options)
    if not 0.0 <= cfg.gae_lambda <= 1.0:
        print("train_learned.py: bad_config: --gae-lambda is between 0 and 1", file=sys.stderr)
        return 2
    folder = args.checkpoints

    def checkpoint(stage: str, weights: dict[str, Any]) -> None:
        if folder is not None:
            save_weights(weights, folder / f"{stage}.npz")

    try:
        check_workers(args.workers, "local")  # before any work, not after the imitation
        for target in (args.out.parent, folder):  # before hours of training, not after
            if target is not None:
                check_writable(target)
        arrays, summary = train(cfg, log=lambda line: print(line, file=sys.stderr, flush=True),
                                checkpoint=checkpoint, workers=args.workers)
    except XuezhanError as exc:
        print(f"train_learned.py: {exc.code}: {exc}", file=sys.stderr)
        return 2
    command = "python scripts/train_learned.py " + " ".join(shlex.quote(a) for a in (argv if argv is not None
                                                                                        else sys.argv[1:]))
    manifest = {
        "version": 1,
        "xuezhan_version": __version__,
        "command": command.strip(),
        "seed": cfg.seed,
        "config": config_json(cfg),
        "data": (f"self-play through the match runtime: {cfg.imitation_hands} hands of four {cfg.teacher} seats "
                 f"(match seed {cfg.seed * 1000}, presets {', '.join(cfg.rules)} in turn) imitated, then "
                 f"{cfg.rl_iterations} rounds of {cfg.rl_deals} deals, each played {cfg.rl_samples} times, of "
                 f"policy gradient against heuristic and earlier versions (match seed {cfg.seed * 1000 + 1})"
                 + (f", then {cfg.improve_rounds} rounds of improvement: {cfg.improve_hands} hands each of the "
                    f"network (greedy, two seats) against heuristic, {cfg.improve_share:.0%} of its decisions "
                    f"played out ({cfg.improve_candidates} candidates, {cfg.improve_orders} wall orders each"
                    f"{', on the compiled core' if cfg.improve_core else ''})"
                    if cfg.improve_rounds else "")
                 + (f"; started from {cfg.init}" if cfg.init else "")),
        "training": summary,
    }
    try:
        save_weights(arrays, args.out, manifest)
    except XuezhanError as exc:
        print(f"train_learned.py: {exc.code}: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {args.out} and {args.out.with_suffix('.json')}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
