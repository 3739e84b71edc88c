"""The ``xuezhan`` command line (docs/interfaces.md §2).

Exit codes: 0 success, 1 a valid question whose answer is "no", 2 bad input
(a message on stderr; with ``--json`` also ``{"error": {"code", "message"}}`` on
stdout). No traceback ever reaches a user.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
from typing import Final

import click

from .. import i18n
from ..ids import ErrorCode
from ._common import emit_error, env_lang
from ._help import Context, Group, click_message, group, help_lang, version_option

COMMANDS: Final = {
    "score": ("analysis", "score_cmd"),
    "waits": ("analysis", "waits_cmd"),
    "shanten": ("analysis", "shanten_cmd"),
    "replay": ("games", "replay_cmd"),
    "review": ("review", "review_cmd"),
    "simulate": ("games", "simulate_cmd"),
    "play": ("play", "play_cmd"),
    "serve": ("serve", "serve_cmd"),
    "tournaments": ("tournaments", "tournaments_cmd"),
    "league": ("league", "league_cmd"),
    "bot": ("bot", "bot_cmd"),
    "dataset": ("dataset", "dataset_cmd"),
}
"""Each command's module and name in it: a command line imports only its own command's module
(``xuezhan score`` needs no bots, no server), ``--help`` every one."""


class Commands(Group):
    """The ``xuezhan`` group: its commands (:data:`COMMANDS`) are loaded when first asked for."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            module, name = COMMANDS[cmd_name]
            self.add_command(getattr(importlib.import_module(f"{__name__}.{module}"), name), cmd_name)
        return self.commands.get(cmd_name)


@group("xuezhan", cls=Commands, context_settings={"help_option_names": ["-h", "--help"]})
@version_option
def cli() -> None:
    pass  # a group: its commands do the work


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script and ``python -m xuezhan``."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        click.echo(cli.get_help(Context(cli, info_name="xuezhan")))
        return 0
    if any("\x00" in a for a in args):  # no shell passes one; a path with it cannot even be looked up
        emit_error(ErrorCode.BAD_INPUT, "an argument contains a NUL character", "--json" in args)
        return 2
    if not all(_is_argument(a) for a in args):  # no shell passes one either: a lone surrogate
        emit_error(ErrorCode.BAD_INPUT, "an argument is not text (a lone surrogate)", "--json" in args)
        return 2
    try:
        rv = cli.main(args=args, prog_name="xuezhan", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo(i18n.t("cli.aborted", env_lang()), err=True)
        return 130
    except click.ClickException as exc:
        code = ErrorCode.USAGE if isinstance(exc, click.UsageError) else ErrorCode.BAD_INPUT
        lang = help_lang(getattr(exc, "ctx", None))  # --lang of the command line, else the environment
        emit_error(code, click_message(exc, lang), "--json" in args, lang)
        return 2
    except KeyboardInterrupt:
        return 130
    except RecursionError:  # input nested deeper than any reader can follow (a rules file, say)
        emit_error(ErrorCode.BAD_INPUT, i18n.t("cli.too_deep", env_lang()), "--json" in args)
        return 2
    if isinstance(rv, int):
        return rv
    return 0


def _is_argument(arg: str) -> bool:
    """Whether ``arg`` is what a command line can pass: text, or the bytes of one that is not
    UTF-8 as Python holds them (surrogate escapes, which name files as the bytes did)."""
    try:
        os.fsencode(arg)
    except UnicodeEncodeError:
        return False
    return True


def _safe_streams() -> None:
    """Text that cannot be encoded (a lone surrogate: a byte of a file name or an argument that is
    not UTF-8) is written as a backslash escape, never as a raw byte and never as a traceback."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(OSError, ValueError):
                reconfigure(errors="backslashreplace")


def run() -> None:
    _safe_streams()
    code = main()
    try:
        sys.stdout.flush()
    except OSError:  # the output could not be written (a full disk): said on stderr already, or now
        _output_lost()
        code = 2
    sys.exit(code)


def _output_lost() -> None:
    """stdout cannot take what is left in its buffer: drop it, so that exiting does not try again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass
