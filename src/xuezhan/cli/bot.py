"""``xuezhan bot stdio --bot NAME``: one of our bots as an outside program over the bot protocol."""

from __future__ import annotations

import random
import sys

import click

from ..bots import ExpertBot, make_bot
from ..bots.protocol import capped_lines, serve
from ..runtime import play_out
from ._common import guarded
from ._help import group


@group("bot")
def bot_cmd() -> None:
    pass  # a group: its subcommands do the work


@bot_cmd.command("stdio")
@click.option("--bot", "name", default="heuristic", show_default=True, metavar="NAME")
@click.option("--seed", type=int, default=0, show_default=True)
@guarded
def stdio_cmd(name: str, seed: int) -> int:
    ExpertBot.use_play_out(play_out)  # the expert's Python play-outs run on the one decision loop
    bot = make_bot(name, random.Random(seed))
    serve(bot, capped_lines(sys.stdin.buffer, stderr=sys.stderr), sys.stdout, seed=seed, stderr=sys.stderr)
    return 0


__all__ = ["bot_cmd"]
