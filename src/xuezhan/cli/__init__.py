"""The ``xuezhan`` command line (docs/interfaces.md §2).

Exit codes: 0 success, 1 a valid question whose answer is "no", 2 bad input
(a message on stderr; with ``--json`` also ``{"error": {"code", "message"}}`` on
stdout). No traceback ever reaches a user.
"""

from __future__ import annotations

import contextlib
import os
import sys

import click

from .. import i18n
from ..ids import ErrorCode
from ._common import emit_error, env_lang
from ._help import Context, click_message, group, help_lang, version_option
from .analysis import score_cmd, shanten_cmd, waits_cmd
from .bot import bot_cmd
from .dataset import dataset_cmd
from .games import replay_cmd, simulate_cmd
from .league import league_cmd
from .play import play_cmd
from .review import review_cmd
from .serve import serve_cmd
from .tournaments import tournaments_cmd


@group("xuezhan", context_settings={"help_option_names": ["-h", "--help"]})
@version_option
def cli() -> None:
    pass  # a group: its commands do the work


cli.add_command(score_cmd)
cli.add_command(waits_cmd)
cli.add_command(shanten_cmd)
cli.add_command(replay_cmd)
cli.add_command(review_cmd)
cli.add_command(simulate_cmd)
cli.add_command(play_cmd)
cli.add_command(serve_cmd)
cli.add_command(tournaments_cmd)
cli.add_command(league_cmd)
cli.add_command(bot_cmd)
cli.add_command(dataset_cmd)


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
