"""``xuezhan replay`` and ``xuezhan simulate``."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

import click

from .. import i18n, native
from ..bots import make_bot
from ..engine.game import Game
from ..errors import RecordError, XuezhanError
from ..explain import explain_hand, item_lines
from ..i18n import DEFAULT_LANG, Lang
from ..ids import ErrorCode
from ..match import Hand
from ..records import Record, RecordItem, loads_text, parse_record, replay, result_json
from ..scale import Shard, check_workers
from ..selfplay import Stats, simulate
from . import _common
from ._common import (
    bot_options,
    check_bot_options,
    emit_json,
    guarded,
    json_option,
    lang_option,
    load_rules,
    rules_option,
    workers_options,
)
from ._help import command


def describe_result(game: Game, complete: bool, lang: Lang = DEFAULT_LANG,
                    items: Sequence[RecordItem] = ()) -> str:
    """The result of a replayed hand in words: the item cards used (``items``, the record's), the
    settlement explained, then the next dealer."""
    lines = item_lines(items, lang)
    if not complete:
        lines.append(i18n.t("cli.replay.incomplete", lang))
    if not game.winners and game.over:
        lines.append(i18n.t("cli.replay.nobody_won", lang))
    lines += explain_hand(game, lang)
    if game.over:
        nd = game.next_dealer()
        lines.append(i18n.t("cli.replay.next_dealer_dice", lang) if nd is None
                     else i18n.t("cli.replay.next_dealer", lang, seat=i18n.t("common.seat", lang, seat=nd)))
    return "\n".join(lines)


def _read_text(file: str, lang: Lang) -> str:
    """The file's text, or stdin's for ``-``."""
    name = i18n.t("cli.stdin_name", lang) if file == "-" else file
    try:
        if file == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(file, "rb") as f:
                data = f.read()
    except OSError as exc:
        raise RecordError(ErrorCode.UNREADABLE, i18n.t("cli.replay.unreadable", lang, file=name,
                                               problem=exc.strerror or str(exc))) from None
    except UnicodeEncodeError as exc:  # a name no file can have (a lone surrogate)
        raise RecordError(ErrorCode.UNREADABLE, i18n.t("cli.replay.unreadable", lang, file=name,
                                               problem=exc.reason)) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise RecordError(ErrorCode.BAD_JSON, i18n.t("cli.replay.not_utf8", lang, file=name)) from None


def _decode(text: str, name: str, lang: Lang) -> list[Any]:
    """One JSON document, or JSON lines (one record a line, as ``simulate --out`` writes them)."""
    try:
        return [loads_text(text)]
    except json.JSONDecodeError as whole:
        lines = [(i, line) for i, line in enumerate(text.splitlines(), start=1) if line.strip()]
        if not lines:
            raise RecordError(ErrorCode.BAD_JSON, i18n.t("cli.replay.empty", lang, file=name)) from None
        if len(lines) == 1 or whole.msg != "Extra data":
            raise RecordError(
                ErrorCode.BAD_JSON, i18n.t("cli.replay.bad_json", lang, file=name, problem=str(whole))
            ) from None
        out = []
        for number, line in lines:
            try:
                out.append(loads_text(line))
            except json.JSONDecodeError as exc:
                raise RecordError(ErrorCode.BAD_JSON, i18n.t("cli.replay.bad_line", lang, file=name, line=number,
                                                     problem=str(exc))) from None
        return out


def load_hand(file: str, hand: int | None, lang: Lang = DEFAULT_LANG) -> Record:
    """The record in ``file`` (``-``: stdin): the only one, or hand ``hand`` (from 1) of a JSON-lines file."""
    name = i18n.t("cli.stdin_name", lang) if file == "-" else file
    if hand is not None and hand < 1:
        raise XuezhanError(ErrorCode.BAD_HAND_NO, i18n.t("cli.replay.bad_hand", lang, hand=hand))
    text = _read_text(file, lang)
    try:
        records = _decode(text, name, lang)
        if hand is None and len(records) > 1:
            raise RecordError(
                ErrorCode.BAD_JSON, i18n.t("cli.replay.many_records", lang, file=name, count=len(records))
            )
        if hand is not None and hand > len(records):
            raise XuezhanError(ErrorCode.BAD_HAND_NO, i18n.t("cli.replay.no_such_hand", lang, file=name,
                                                     count=len(records), hand=hand))
        return parse_record(records[0 if hand is None else hand - 1])
    except RecursionError:
        raise RecordError(ErrorCode.BAD_JSON, i18n.t("cli.json.too_deep", lang, file=name)) from None


@command("replay")
@click.argument("file", metavar="FILE")
@click.option("--hand", "hand", type=int, default=None, metavar="N")
@json_option
@click.option("--view", is_flag=True)
@lang_option
@guarded
def replay_cmd(file: str, hand: int | None, as_json: bool, view: bool, lang: Lang) -> int:
    if view and as_json:
        raise XuezhanError(ErrorCode.USAGE, i18n.t("cli.replay.view_json", lang))
    if view and file == "-":
        raise XuezhanError(ErrorCode.USAGE, i18n.t("cli.replay.view_stdin", lang))
    record = load_hand(file, hand, lang)
    try:
        game, complete = replay(record)
    except RecursionError:
        raise RecordError(ErrorCode.BAD_JSON, i18n.t("cli.json.too_deep", lang, file=file)) from None
    if view and not _common.has_terminal():
        raise XuezhanError(ErrorCode.NO_TERMINAL, i18n.t("cli.no_terminal", lang, command="replay --view"))
    if view:
        from ..tui.replay import ReplayApp

        ReplayApp(record, name=file if hand is None else f"{file} #{hand}", lang=lang).run()
        return 0
    if as_json:
        emit_json(result_json(game, complete))
    else:
        click.echo(describe_result(game, complete, lang, record.items))
    return 0


def _bot_names(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    if len(names) == 1:
        names *= 4
    if len(names) != 4:
        raise XuezhanError(ErrorCode.BAD_BOTS, f"--bots takes one bot name or four, comma-separated; got {text!r}")
    for n in set(names):
        make_bot(n)  # an unknown name is bad input (unknown_bot) before any hand is played
    return names


@command("simulate")
@click.option("--games", type=int, required=True)
@click.option("--bots", "bots", default="heuristic", show_default=True, metavar="A,B,C,D")
@bot_options
@click.option("--seed", type=int, default=0, show_default=True)
@rules_option
@click.option("--out", "out", type=click.Path(dir_okay=False, path_type=Path), default=None)
@workers_options
@click.option("--engine", type=click.Choice(["python", "native"]), default=None)
@json_option
@lang_option
@guarded
def simulate_cmd(games: int, bots: str, bot_timeout: float, bot_max_line: int, seed: int, rules_spec: str,
                 out: Path | None, workers: int, backend: str, engine: str | None, as_json: bool, lang: Lang) -> int:
    if games < 1:
        raise XuezhanError(ErrorCode.BAD_GAMES, "--games must be at least 1")
    check_bot_options(bot_timeout, bot_max_line)
    check_workers(workers, backend)
    names = _bot_names(bots)
    rules = load_rules(rules_spec)
    refused = native.refusal(rules, names) if engine != "python" else None
    use_native = engine != "python" and refused is None
    if engine == "native" and refused is not None:
        click.echo(i18n.t("cli.simulate.python_engine", lang, why=refused), err=True)
    in_process = workers == 1 and backend == "local" and not use_native
    sink: IO[bytes] | None = None
    if out is not None:
        try:
            sink = out.open("wb")
        except OSError as exc:
            raise XuezhanError(ErrorCode.UNWRITABLE, i18n.t("cli.out.unwritable", lang, file=out,
                                                    problem=exc.strerror or str(exc))) from None
    progress: Any = None
    task: Any = None
    if sys.stderr.isatty():
        from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

        progress = Progress(TextColumn(i18n.t("cli.simulate.progress", lang)), BarColumn(),
                            TextColumn("{task.completed}/{task.total}"),
                            TimeRemainingColumn(), transient=True)
        progress.start()
        task = progress.add_task("hands", total=games)

    def on_hand(hand: Hand) -> None:
        progress.advance(task)

    per_hand = in_process and progress is not None  # the Python engine here: a bar that moves hand by hand

    def on_shard(shard: Shard, part: Stats) -> None:
        if progress is not None and not per_hand:
            progress.advance(task, shard.size)

    def unwritable(exc: OSError) -> XuezhanError:  # a full disk, a file that went away
        return XuezhanError(ErrorCode.UNWRITABLE, i18n.t("cli.out.unwritable", lang, file=out,
                                                 problem=exc.strerror or str(exc)))

    try:
        stats = simulate(games, names, seed=seed, rules=rules, on_hand=on_hand if per_hand else None,
                         workers=workers, backend=backend, on_shard=on_shard, bot_timeout=bot_timeout,
                         engine="native" if use_native else "python", bot_max_line=bot_max_line, out=sink)
    except OSError as exc:
        raise unwritable(exc) from None
    finally:
        if progress is not None:
            progress.stop()
        if sink is not None:
            try:
                sink.close()
            except OSError as exc:
                raise unwritable(exc) from None
    summary = stats.to_json()
    summary["seed"] = seed
    summary["rules"] = rules.to_mapping()
    summary["engine"] = "native" if use_native else "python"
    if engine == "native" and refused is not None:
        summary["native_refused"] = refused
    if as_json:
        emit_json(summary)
        return 0
    click.echo(i18n.t("cli.simulate.summary", lang, hands=summary["hands"], count=summary["hands"],
                      speed=f"{summary['hands_per_second'] or 0:.0f}", draws=f"{summary['draw_rate']:.1%}"))
    for s in summary["by_seat"]:
        click.echo(i18n.t("cli.simulate.seat", lang, seat=i18n.t("common.seat", lang, seat=s["seat"]),
                          bot=s["bot"], win_rate=f"{s['win_rate']:.1%}", points=f"{s['avg_points']:+.2f}",
                          fan=f"{s['avg_fan']:.2f}"))
    return 0


__all__ = ["describe_result", "replay_cmd", "simulate_cmd"]
