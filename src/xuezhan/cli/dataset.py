"""``xuezhan dataset``: training data, one Parquet row per decision (``pip install 'xuezhan[dataset]'``)."""

from __future__ import annotations

import time
from pathlib import Path

import click

from ..errors import XuezhanError
from ..ids import ErrorCode
from ..scale import check_workers
from ._common import (
    bot_options,
    check_bot_options,
    emit_json,
    guarded,
    json_option,
    load_rules,
    rules_option,
    workers_options,
)
from ._help import command
from .games import _bot_names


@command("dataset")
@click.option("--games", type=int, required=True)
@click.option("--bots", "bots", default="heuristic", show_default=True, metavar="A,B,C,D")
@click.option("--out", "out", type=click.Path(file_okay=False, path_type=Path), required=True)
@click.option("--shard-hands", type=int, default=500, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@bot_options
@click.option("--overwrite", is_flag=True)
@rules_option
@workers_options
@json_option
@guarded
def dataset_cmd(games: int, bots: str, out: Path, shard_hands: int, seed: int, bot_timeout: float, bot_max_line: int,
                overwrite: bool, rules_spec: str, workers: int, backend: str, as_json: bool) -> int:
    if games < 1:
        raise XuezhanError(ErrorCode.BAD_GAMES, "--games must be at least 1")
    if shard_hands < 1:
        raise XuezhanError(ErrorCode.BAD_INPUT, "--shard-hands must be at least 1")
    check_workers(workers, backend)
    check_bot_options(bot_timeout, bot_max_line)
    names = _bot_names(bots)
    rules = load_rules(rules_spec)
    from ..rl.dataset import make_dataset

    start = time.perf_counter()
    results = make_dataset(out, games, names, seed=seed, rules=rules, shard_hands=shard_hands, workers=workers,
                           backend=backend, bot_timeout=bot_timeout, bot_max_line=bot_max_line,
                           overwrite=overwrite)
    seconds = time.perf_counter() - start
    rows = sum(r.rows for r in results)
    summary = {"games": games, "rows": rows, "shards": len(results), "out": str(out), "bots": names,
               "seed": seed, "workers": workers, "backend": backend, "seconds": seconds,
               "hands_per_second": games / seconds if seconds > 0 else None,
               "files": [f for r in results for f in r.files],
               "bot_faults": {n: sum(r.bot_faults.get(n, 0) for r in results) for n in dict.fromkeys(names)}}
    if as_json:
        emit_json(summary)
    else:
        click.echo(f"{games} hands, {rows} rows in {len(results)} shard(s) in {out} ({seconds:.1f} s)")
    return 0


__all__ = ["dataset_cmd"]
