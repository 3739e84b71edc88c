"""Train the reading network (how likely each opponent holds each tile kind) or the readiness network
(how likely it is ready) and write its weights and manifest.

    pip install 'xuezhan[train]'
    python scripts/train_reading.py --out src/xuezhan/bots/weights/reading-1.npz
    python scripts/train_reading.py --net ready --out src/xuezhan/bots/weights/ready-1.npz

Both read the same self-play (:func:`xuezhan.rl.reading.gather`); the defaults
(:class:`xuezhan.rl.reading.ReadingConfig`) made the shipped weights. The manifest (``.json``
beside the weights) records the command, the configuration, the seed, the data and how well the
network predicts the held-out holdings.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from dataclasses import asdict, fields
from pathlib import Path

from xuezhan import __version__
from xuezhan.bots.reading import READ_SHAPES, READING_FORMAT, READY_FORMAT, READY_SHAPES
from xuezhan.errors import XuezhanError
from xuezhan.rl.reading import ReadingConfig, train_reading, train_ready
from xuezhan.rl.train import check_writable, save_arrays

NETS = {"reading": (train_reading, READ_SHAPES, READING_FORMAT, "each opponent's holding read beside what it held"),
        "ready": (train_ready, READY_SHAPES, READY_FORMAT, "each opponent read beside whether it was ready")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--net", choices=sorted(NETS), default="reading", help="the network to train (default reading)")
    parser.add_argument("--out", type=Path, default=None, help="the weights file to write (default NET-1.npz)")
    defaults = ReadingConfig()
    for f in fields(ReadingConfig):
        value = getattr(defaults, f.name)
        parser.add_argument("--" + f.name.replace("_", "-"), type=type(value), default=value, help=f"default {value}")
    args = parser.parse_args(argv)
    trainer, shapes, fmt, what = NETS[args.net]
    out: Path = args.out if args.out is not None else Path(f"{args.net}-1.npz")
    cfg = ReadingConfig(**{f.name: getattr(args, f.name) for f in fields(ReadingConfig)})
    if cfg.hands < 1 or not 0 < cfg.share <= 1 or cfg.epochs < 1 or not 0 < cfg.test_share < 1:
        print("train_reading.py: bad_config: --hands and --epochs at least 1, --share in (0, 1], "
              "--test-share in (0, 1)", file=sys.stderr)
        return 2
    try:
        check_writable(out.parent)  # before the self-play, not after
        arrays, summary = trainer(cfg, log=lambda line: print(line, file=sys.stderr, flush=True))
    except XuezhanError as exc:
        print(f"train_reading.py: {exc.code}: {exc}", file=sys.stderr)
        return 2
    command = "python scripts/train_reading.py " + " ".join(
        shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:]))
    manifest = {
        "format": fmt,
        "version": 1,
        "xuezhan_version": __version__,
        "command": command.strip(),
        "seed": cfg.seed,
        "config": asdict(cfg),
        "data": (f"self-play through the match runtime: {cfg.hands} hands (match seed {cfg.seed}, qq and "
                 f"chengdu in turn), each seat heuristic, learned (twice as likely) or expert-0.4; at "
                 f"{cfg.share:.0%} of the seats' turns and claims {what}"),
        "training": summary,
    }
    try:
        save_arrays(arrays, out, shapes, manifest)
    except XuezhanError as exc:
        print(f"train_reading.py: {exc.code}: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {out} and {out.with_suffix('.json')}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
