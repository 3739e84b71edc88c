"""Train the reading network (how likely each opponent holds each tile kind) and write its weights and manifest.

    pip install 'xuezhan[train]'
    python scripts/train_reading.py --out src/xuezhan/bots/weights/reading-1.npz

The defaults (:class:`xuezhan.rl.reading.ReadingConfig`) made the shipped weights; the manifest
(``reading-1.json`` beside them) records the command, the configuration, the seed, the data and
how well the network predicts the held-out hands.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from dataclasses import asdict, fields
from pathlib import Path

from xuezhan import __version__
from xuezhan.bots.reading import READ_SHAPES, READING_FORMAT
from xuezhan.errors import XuezhanError
from xuezhan.rl.reading import ReadingConfig, train_reading
from xuezhan.rl.train import check_writable, save_arrays


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("reading-1.npz"), help="the weights file to write")
    defaults = ReadingConfig()
    for f in fields(ReadingConfig):
        value = getattr(defaults, f.name)
        parser.add_argument("--" + f.name.replace("_", "-"), type=type(value), default=value, help=f"default {value}")
    args = parser.parse_args(argv)
    cfg = ReadingConfig(**{f.name: getattr(args, f.name) for f in fields(ReadingConfig)})
    if cfg.hands < 1 or not 0 < cfg.share <= 1 or cfg.epochs < 1 or not 0 < cfg.test_share < 1:
        print("train_reading.py: bad_config: --hands and --epochs at least 1, --share in (0, 1], "
              "--test-share in (0, 1)", file=sys.stderr)
        return 2
    try:
        check_writable(args.out.parent)  # before the self-play, not after
        arrays, summary = train_reading(cfg, log=lambda line: print(line, file=sys.stderr, flush=True))
    except XuezhanError as exc:
        print(f"train_reading.py: {exc.code}: {exc}", file=sys.stderr)
        return 2
    command = "python scripts/train_reading.py " + " ".join(
        shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:]))
    manifest = {
        "format": READING_FORMAT,
        "version": 1,
        "xuezhan_version": __version__,
        "command": command.strip(),
        "seed": cfg.seed,
        "config": asdict(cfg),
        "data": (f"self-play through the match runtime: {cfg.hands} hands (match seed {cfg.seed}, qq and "
                 f"chengdu in turn), each seat heuristic, learned (twice as likely) or expert-0.4; at "
                 f"{cfg.share:.0%} of the seats' turns and claims each opponent's holding read beside what it held"),
        "training": summary,
    }
    try:
        save_arrays(arrays, args.out, READ_SHAPES, manifest)
    except XuezhanError as exc:
        print(f"train_reading.py: {exc.code}: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {args.out} and {args.out.with_suffix('.json')}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
