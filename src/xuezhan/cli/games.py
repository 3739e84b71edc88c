"""``xuezhan replay`` and ``xuezhan simulate``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import IO, Any

import click

from .. import native, vocab
from ..bots import BOTS
from ..errors import XuezhanError
from ..match import Hand, hand_record
from ..records import load_record, replay, result_json
from ..scale import Shard, check_workers
from ..selfplay import Stats, simulate
from ..vocab import Kind
from ._common import emit_json, guarded, json_option, load_rules, rules_option, workers_options


def describe_result(res: dict[str, Any]) -> str:
    lines = []
    if not res["complete"]:
        lines.append("the record stops before the end of the hand (complete: false)")
    for w in res["winners"]:
        how = "self-drawn" if w["from"] is None else f"on seat {w['from']}'s tile"
        base = f"{vocab.name(Kind.PATTERN, w['base'])} {w['base']}"
        lines.append(f"seat {w['seat']} won ({w['order']}) {how} with {w['tile']}: {base}, "
                     f"{w['fan']} fan, x{w['multiple']}")
    for e in res["ledger"]:
        reason = f"{vocab.name(Kind.REASON, e['reason'])} {e['reason']}"
        lines.append(f"  seat {e['from']} pays seat {e['to']} {e['points']} ({reason})")
    lines.append("deltas: " + " ".join(f"{d:+d}" for d in res["deltas"]))
    nd = res.get("next_dealer")
    lines.append(f"next dealer: {'by dice' if nd is None else f'seat {nd}'}")
    return "\n".join(lines)


@click.command("replay")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@json_option
@click.option("--view", is_flag=True, help="Step through the record in the terminal UI (n/b keys, q quits).")
@guarded
def replay_cmd(file: Path, as_json: bool, view: bool) -> int:
    """Replay a game record FILE and print the result."""
    record = load_record(file)
    game, complete = replay(record)
    if view:
        from ..tui.replay import ReplayApp

        ReplayApp(record, name=str(file)).run()
        return 0
    res = result_json(game, complete)
    if as_json:
        emit_json(res)
    else:
        click.echo(describe_result(res))
    return 0


def _bot_names(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    if len(names) == 1:
        names *= 4
    if len(names) != 4:
        raise XuezhanError("bad_bots", f"--bots takes one bot name or four, comma-separated; got {text!r}")
    for n in names:
        if n not in BOTS:
            raise XuezhanError("unknown_bot", f"unknown bot {n!r}: choose from {', '.join(sorted(BOTS))}")
    return names


@click.command("simulate")
@click.option("--games", type=int, required=True, help="Number of hands to play.")
@click.option("--bots", "bots", default="heuristic", show_default=True, metavar="A,B,C,D",
              help="One bot for every seat, or four comma-separated names (random, heuristic).")
@click.option("--seed", type=int, default=0, show_default=True, help="Same seed, same hands.")
@rules_option
@click.option("--out", "out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write every hand as a game record (JSON lines).")
@workers_options
@click.option("--engine", type=click.Choice(["python", "native"]), default=None,
              help="The compiled core (the default when it is built and plays these rules and bots) or the "
                   "pure-Python engine; both give the same records.")
@json_option
@guarded
def simulate_cmd(games: int, bots: str, seed: int, rules_spec: str, out: Path | None, workers: int, backend: str,
                 engine: str | None, as_json: bool) -> int:
    """Self-play of N hands between bots."""
    if games < 1:
        raise XuezhanError("bad_games", "--games must be at least 1")
    check_workers(workers, backend)
    names = _bot_names(bots)
    rules = load_rules(rules_spec)
    refused = native.refusal(rules, names) if engine != "python" else None
    use_native = engine != "python" and refused is None
    if engine == "native" and refused is not None:
        click.echo(f"the Python engine plays: {refused}", err=True)
    in_process = workers == 1 and backend == "local" and not use_native
    sink: IO[str] | None = None
    if out is not None:
        try:
            sink = out.open("w", encoding="utf-8")
        except OSError as exc:
            raise XuezhanError("unwritable", f"cannot write {out}: {exc.strerror}") from None
    progress: Any = None
    task: Any = None
    if sys.stderr.isatty():
        from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

        progress = Progress(TextColumn("simulating"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                            TimeRemainingColumn(), transient=True)
        progress.start()
        task = progress.add_task("hands", total=games)

    def on_hand(hand: Hand) -> None:
        if sink is not None:
            sink.write(json.dumps(hand_record(hand), ensure_ascii=False) + "\n")
        if progress is not None:
            progress.advance(task)

    def on_shard(shard: Shard, part: Stats) -> None:
        if progress is not None and not in_process:
            progress.advance(task, shard.size)

    try:
        stats = simulate(games, names, seed=seed, rules=rules, on_hand=on_hand if in_process else None,
                         workers=workers, backend=backend, keep_records=out is not None and not in_process,
                         on_shard=on_shard, engine="native" if use_native else "python")
        if sink is not None:
            for record in stats.records:
                sink.write(json.dumps(record, ensure_ascii=False) + "\n")
    finally:
        if progress is not None:
            progress.stop()
        if sink is not None:
            sink.close()
    summary = stats.to_json()
    summary["seed"] = seed
    summary["rules"] = rules.to_mapping()
    summary["engine"] = "native" if use_native else "python"
    if engine == "native" and refused is not None:
        summary["native_refused"] = refused
    if as_json:
        emit_json(summary)
        return 0
    click.echo(f"{summary['hands']} hands, {summary['hands_per_second']:.0f} hands/s ({summary['engine']} engine), "
               f"exhaustive draws {summary['draw_rate']:.1%}")
    for s in summary["by_seat"]:
        click.echo(f"  seat {s['seat']} {s['bot']:<10} win rate {s['win_rate']:.1%}  "
                   f"avg points {s['avg_points']:+.2f}  avg fan {s['avg_fan']:.2f}")
    return 0


__all__ = ["describe_result", "replay_cmd", "simulate_cmd"]
