"""``xuezhan bot stdio --bot NAME``: one of our bots as an outside program over the bot protocol."""

from __future__ import annotations

import random
import sys

import click

from ..bots import make_bot
from ..bots.protocol import serve
from ._common import guarded


@click.group("bot")
def bot_cmd() -> None:
    """Bots as outside programs."""


@bot_cmd.command("stdio")
@click.option("--bot", "name", default="heuristic", show_default=True, metavar="NAME",
              help="The bot that answers (random, heuristic, policy:FILE, cmd:COMMAND).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seeds the bot's choices, hand by hand.")
@guarded
def stdio_cmd(name: str, seed: int) -> int:
    """Play bot NAME over the JSON-lines bot protocol on stdin and stdout (until stdin ends)."""
    bot = make_bot(name, random.Random(seed))
    serve(bot, sys.stdin, sys.stdout, seed=seed, stderr=sys.stderr)
    return 0


__all__ = ["bot_cmd"]
