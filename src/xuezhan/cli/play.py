"""``xuezhan play``: a match against three bots in the terminal."""

from __future__ import annotations

import secrets
from pathlib import Path

import click

from .. import i18n
from ..bots import BOTS, make_bot
from ..errors import XuezhanError
from ..i18n import Lang
from ..ids import ErrorCode
from . import _common
from ._common import guarded, lang_option, load_rules, rules_option
from ._help import command


@command("play", help_params={"bots": ", ".join(sorted(BOTS))})
@rules_option
@click.option("--hands", type=int, default=8, show_default=True)
@click.option("--seed", type=int, default=None)
@click.option("--bots", "bot", default="heuristic", show_default=True, metavar="BOT")
@click.option("--record-dir", "record_dir", type=click.Path(file_okay=False, path_type=Path), default=None)
@click.option("--glyphs", is_flag=True)
@click.option("--delay", type=float, default=0.45, show_default=True, metavar="SECONDS")
@lang_option
@guarded
def play_cmd(rules_spec: str, hands: int, seed: int | None, bot: str, record_dir: Path | None, glyphs: bool,
             delay: float, lang: Lang) -> int:
    if hands < 1:
        raise XuezhanError(ErrorCode.BAD_HANDS, f"--hands must be at least 1, not {hands}")
    if delay < 0:
        raise XuezhanError(ErrorCode.BAD_DELAY, "--delay cannot be negative")
    if "," in bot:
        raise XuezhanError(ErrorCode.BAD_BOTS, "--bots takes one bot name: the same bot plays the three other seats")
    make_bot(bot)  # an unknown name is bad input (unknown_bot)
    rules = load_rules(rules_spec)
    if not _common.has_terminal():
        raise XuezhanError(ErrorCode.NO_TERMINAL, i18n.t("cli.no_terminal", lang, command="play"))
    if seed is None:  # a seed of its own, so that the final table can tell how to play these deals again
        seed = secrets.randbelow(1 << 31)
    from ..tui.match import TerminalTable, check_record_dir

    if record_dir is not None:
        check_record_dir(record_dir)
    match = TerminalTable(rules, hands=hands, seed=seed, bot=bot, record_dir=record_dir)
    from ..tui.app import PlayApp

    if glyphs:
        from ..tui.terminal import fit_mahjong_tiles_to_terminal

        fit_mahjong_tiles_to_terminal()
    app = PlayApp(match, glyphs=glyphs, bot_delay=delay, lang=lang)
    app.run()
    return 0


__all__ = ["play_cmd"]
