"""``xuezhan league``: duplicate, seat-rotated matches between bots (docs/interfaces.md §2.8)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from ..errors import XuezhanError
from ..ids import ErrorCode
from ..league import run_league
from ..league.duplicate import ShardResult, reason_key
from ..league.league import check_bots
from ..scale import Shard, check_workers
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


@command("league")
@click.option("--bots", "bots", required=True, metavar="A,B[,C...]")
@click.option("--deals", type=int, required=True)
@bot_options
@rules_option
@click.option("--seed", type=int, default=0, show_default=True)
@workers_options
@json_option
@click.option("--plot", "plot", type=click.Path(dir_okay=False, path_type=Path), default=None,
              metavar="FILE.png")
@guarded
def league_cmd(bots: str, deals: int, bot_timeout: float, bot_max_line: int, rules_spec: str, seed: int, workers: int,
               backend: str, as_json: bool, plot: Path | None) -> int:
    names = check_bots([n.strip() for n in bots.split(",") if n.strip()])
    if deals < 1:
        raise XuezhanError(ErrorCode.BAD_DEALS, "--deals must be at least 1")
    check_workers(workers, backend)
    check_bot_options(bot_timeout, bot_max_line)
    rules = load_rules(rules_spec)
    progress: Any = None
    task: Any = None
    if sys.stderr.isatty():
        from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

        progress = Progress(TextColumn("league"), BarColumn(), TextColumn("{task.completed}/{task.total} deals"),
                            TimeRemainingColumn(), transient=True)
        progress.start()
        task = progress.add_task("deals", total=deals)

    def on_shard(shard: Shard, part: ShardResult) -> None:
        if progress is not None:
            progress.advance(task, shard.size)

    try:
        result = run_league(names, deals, seed=seed, rules=rules, workers=workers, backend=backend,
                            on_shard=on_shard, bot_timeout=bot_timeout, bot_max_line=bot_max_line)
    finally:
        if progress is not None:
            progress.stop()
    if plot is not None:
        from ..league.plot import plot_league

        plot_league(result, plot)
    data = result.to_json()
    if as_json:
        emit_json(data)
        return 0
    click.echo(f"{deals} deals per pair, duplicate ABAB/BABA, seed {seed}, {result.seconds:.1f} s")
    click.echo(f"{'pair':<28}{'deals':>7}{'A − B per hand':>16}{'95% CI':>20}")
    for p in data["pairs"]:
        lo, hi = p["ci95"]
        click.echo(f"{p['a'] + ' vs ' + p['b']:<28}{p['deals']:>7}{p['mean_diff']:>+16.2f}"
                   f"{f'[{lo:+.2f}, {hi:+.2f}]':>20}")
    click.echo(f"{'bot':<16}{'rating':>8}{'pts/hand':>10}{'win':>8}{'deal-in':>9}{'fan':>6}{'清一色':>5}"
               f"{'kongs':>7}{'faults':>8}")
    for name, b in data["bots"].items():
        click.echo(f"{name:<16}{b['rating']:>8.0f}{b['points_per_hand']:>+10.2f}{b['win_rate']:>8.1%}"
                   f"{b['deal_in_rate']:>9.1%}{b['mean_fan']:>6.2f}{b['qing_yi_se_share']:>9.1%}"
                   f"{b['kongs_per_hand']:>7.2f}{data['bot_faults'][name]:>8}")
    reasons = sorted({r for b in data["bots"].values() for r in b["points_by_reason"]}, key=reason_key)
    if reasons:
        click.echo("points a hand by reason (received − paid):")
        click.echo(f"{'bot':<16}" + "".join(f"{r:>14}" for r in reasons))
        for name, b in data["bots"].items():
            by = b["points_by_reason"]
            click.echo(f"{name:<16}" + "".join(
                f"{by[r]['received'] - by[r]['paid']:>+14.2f}" if r in by else f"{'':>14}" for r in reasons))
    if plot is not None:
        click.echo(f"plot: {plot}")
    return 0


__all__ = ["league_cmd"]
