"""Help pages and click's own words in the language of the command line.

Every command is a :class:`Command` (a group is a :class:`Group`): its help page, the
help of each option and click's fixed words come from the catalog ``cli.toml``, in the
language of ``--lang`` when it is on the same command line (``xuezhan score --lang en
--help``) and the command takes it, else in the environment's (:func:`env_lang`)::

    cli.help.<command>.short     the command's line in its group's list of commands
    cli.help.<command>.long      the text under the usage line of its own page
    cli.help.<command>.<option>  an option's help (its long flag, ``-`` read as ``_``)
    cli.help.option.<option>     the help of an option several commands share (--rules, --help)
    cli.click.*                  click's words: headings, defaults, its error messages

``<command>`` is the command's path under ``xuezhan`` (``score``, ``bot.stdio``); the
top-level group itself is ``xuezhan``. The texts are wrapped by display width, so a
line of Chinese fits the terminal as a line of English does.
"""

from __future__ import annotations

import re
import string
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import cache
from typing import Any, TypeVar

import click

from .. import i18n
from ..i18n import Lang
from ._common import env_lang

ROOT = "xuezhan"
"""The top-level group's name: its texts are ``cli.help.xuezhan.*``."""

_LANG = "xuezhan.lang"
"""Where a command keeps the language named by ``--lang`` on its command line (``ctx.meta``)."""


def help_lang(ctx: click.Context | None) -> Lang:
    """The language of the help and of click's messages for ``ctx``: the ``--lang`` of its command
    line, else the environment's."""
    lang = ctx.meta.get(_LANG) if ctx is not None else None
    return lang if lang in i18n.LANGS else env_lang()


def _lang_in(args: Sequence[str]) -> Lang | None:
    """The language the last ``--lang X`` / ``--lang=X`` of ``args`` names (before ``--``), if any."""
    value: str | None = None
    for i, arg in enumerate(args):
        if arg == "--":
            break
        if arg == "--lang" and i + 1 < len(args):
            value = args[i + 1]
        elif arg.startswith("--lang="):
            value = arg.partition("=")[2]
    return i18n.parse_lang(value)


def _path(ctx: click.Context) -> str:
    """``score``, ``bot.stdio``, or ``xuezhan`` for the top-level group."""
    names: list[str] = []
    node: click.Context | None = ctx
    while node is not None:
        names.append(node.command.name or ROOT)
        node = node.parent
    names.reverse()
    if len(names) > 1 and names[0] == ROOT:
        names = names[1:]
    return ".".join(names)


def option_key(path: str, param: click.Parameter) -> str:
    """The catalog key of an option's help on the page of command ``path``."""
    flag = next((o for o in param.opts if o.startswith("--")), None)
    name = flag[2:].replace("-", "_") if flag else str(param.name)
    own = f"cli.help.{path}.{name}"
    return own if own in i18n.catalog() else f"cli.help.option.{name}"


# --- wrapping by display width --------------------------------------------------------------------------------

_CLOSING = frozenset("，。、；：？！）」』】》〉,.;:?!)]}")
"""Marks that never begin a line: each stays with what comes before it."""
_OPENING = frozenset("（「『【《〈([{")
"""Marks that never end a line: each stays with what follows it."""


def cell_width(text: str) -> int:
    """Terminal columns ``text`` takes: two for a wide (CJK, full-width) character, none for a
    combining one, else one."""
    return sum(
        0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text
    )


def _breaks(before: str, after: str) -> bool:
    """A line may break between these two characters: between two wide ones, after a wide closing mark
    (``、``), before a wide opening one (``（``); never before a closing mark nor after an opening one."""
    if after in _CLOSING or before in _OPENING:
        return False
    wide_before, wide_after = cell_width(before) == 2, cell_width(after) == 2
    return (wide_before and wide_after) or (wide_before and before in _CLOSING) or (wide_after and after in _OPENING)


def _pieces(text: str) -> Iterator[str]:
    """``text`` cut where a line may break: at spaces (given as ``" "``) and where :func:`_breaks`
    says, never inside brackets (``[默认：qq]``): ``5万`` and ``--lang`` stay whole."""
    piece = ""
    note = False  # inside [...]: a note such as [default: qq] is never cut
    for ch in text:
        if ch == "[" and not note:
            if piece:
                yield piece
            piece, note = "", True
        if note:
            piece += ch
            note = ch != "]"
            continue
        if ch.isspace():
            if piece:
                yield piece
            piece = ""
            yield " "
            continue
        if piece and _breaks(piece[-1], ch):
            yield piece
            piece = ""
        piece += ch
    if piece:
        yield piece


def wrap(text: str, width: int) -> list[str]:
    """One paragraph in lines of at most ``width`` columns (a piece wider than that gets a line of its own)."""
    lines: list[str] = []
    line, used, space = "", 0, False
    for piece in _pieces(text):
        if piece == " ":
            space = bool(line)
            continue
        size = cell_width(piece)
        gap = 1 if space else 0
        if line and used + gap + size > width:
            lines.append(line)
            line, used = piece, size
        else:
            line += " " * gap + piece
            used += gap + size
        space = False
    if line:
        lines.append(line)
    return lines


class Formatter(click.HelpFormatter):
    """Click's help layout, measured in terminal columns, with headings written as the catalog has them."""

    def write_heading(self, heading: str) -> None:
        self.write(f"{'':>{self.current_indent}}{heading}\n")

    def write_text(self, text: str) -> None:
        indent = " " * self.current_indent
        for i, paragraph in enumerate(p for p in re.split(r"\n\s*\n", text) if p.strip()):
            if i:
                self.write("\n")
            for line in wrap(paragraph, max(self.width - self.current_indent, 11)):
                self.write(f"{indent}{line}\n")

    def write_dl(self, rows: Iterable[tuple[str, str]], col_max: int = 30, col_spacing: int = 2) -> None:
        rows = list(rows)
        if not rows:
            return
        first_col = min(max(cell_width(term) for term, _ in rows), col_max) + col_spacing
        text_width = max(self.width - first_col - 2, 10)
        for term, text in rows:
            self.write(f"{'':>{self.current_indent}}{term}")
            if not text:
                self.write("\n")
                continue
            if cell_width(term) <= first_col - col_spacing:
                self.write(" " * (first_col - cell_width(term)))
            else:
                self.write("\n" + " " * (first_col + self.current_indent))
            lines = wrap(text, text_width) or [""]
            self.write(f"{lines[0]}\n")
            for line in lines[1:]:
                self.write(f"{'':>{first_col + self.current_indent}}{line}\n")


class Context(click.Context):
    formatter_class = Formatter


# --- the pages ---------------------------------------------------------------------------------------------


def _extras(ctx: click.Context, param: click.Parameter, lang: Lang) -> str:
    """``[default: qq]`` or ``[required]`` in ``lang``, as click adds them after an option's help."""
    if not isinstance(param, click.Option):
        return ""
    if param.required:
        return f"[{i18n.t('cli.click.required', lang)}]"
    show = param.show_default if param.show_default is not None else ctx.show_default
    if isinstance(show, str):
        return f"[{i18n.t('cli.click.default', lang, default=show)}]"
    default = param.get_default(ctx, call=False)
    if show and not param.is_flag and isinstance(default, str | int | float) and default != "":
        return f"[{i18n.t('cli.click.default', lang, default=default)}]"
    return ""


class Command(click.Command):
    """A command whose help page is read from the catalog in the language of its command line.

    ``help_params`` fills placeholders of its texts that the code knows (the names of the bots).
    """

    context_class = Context

    def __init__(self, *args: Any, help_params: Mapping[str, str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.help_params = dict(help_params or {})

    def catalog_text(self, ctx: click.Context, key: str) -> str:
        """The catalog text ``key`` in the language of ``ctx``, filled with ``help_params``."""
        return i18n.t(key, help_lang(ctx), **self.help_params)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        # Before click parses anything: --help is eager and may come before or after --lang.
        if any("--lang" in p.opts for p in self.params):
            lang = _lang_in(args)
            if lang is not None:
                ctx.meta[_LANG] = lang
        return super().parse_args(ctx, args)

    def format_usage(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        word = i18n.t("cli.click.usage", help_lang(ctx))
        prefix = word if cell_width(word[-1]) == 2 else word + " "  # a full-width colon brings its own space
        formatter.write_usage(ctx.command_path, " ".join(self.collect_usage_pieces(ctx)), prefix=prefix)

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        formatter.write_paragraph()
        with formatter.indentation():
            formatter.write_text(self.catalog_text(ctx, f"cli.help.{_path(ctx)}.long"))

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        lang = help_lang(ctx)
        path = _path(ctx)
        rows = []
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None or isinstance(param, click.Argument):
                continue
            text = self.catalog_text(ctx, option_key(path, param))
            extras = _extras(ctx, param, lang)
            rows.append((record[0], f"{text}  {extras}" if extras else text))
        if rows:
            with formatter.section(i18n.t("cli.click.options", lang)):
                formatter.write_dl(rows)


class Group(Command, click.Group):
    """A group of :class:`Command` (its subcommands are made with this class too)."""

    command_class = Command
    group_class = type  # a group made under it is a Group as well

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_options(ctx, formatter)
        self.format_commands(ctx, formatter)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        path = _path(ctx)
        prefix = "" if path == ROOT else f"{path}."
        rows = []
        for name in self.list_commands(ctx):
            sub = self.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                rows.append((name, i18n.t(f"cli.help.{prefix}{name}.short", help_lang(ctx))))
        if rows:
            with formatter.section(i18n.t("cli.click.commands", help_lang(ctx))):
                formatter.write_dl(rows)


F = TypeVar("F", bound=Callable[..., Any])


def command(name: str, **attrs: Any) -> Callable[[Callable[..., Any]], Command]:
    """``@click.command(name)`` made a :class:`Command`."""
    made: Callable[[Callable[..., Any]], Command] = click.command(name, cls=Command, **attrs)
    return made


def group(name: str, **attrs: Any) -> Callable[[Callable[..., Any]], Group]:
    """``@click.group(name)`` made a :class:`Group`."""
    attrs.setdefault("cls", Group)
    made: Callable[[Callable[..., Any]], Group] = click.group(name, **attrs)
    return made


def version_option(fn: F) -> F:
    """``--version``: the program and its version, in the language of the environment."""

    def show(ctx: click.Context, param: click.Parameter, value: bool) -> None:
        if value and not ctx.resilient_parsing:
            from .. import __version__

            click.echo(i18n.t("cli.click.version", help_lang(ctx), prog=ROOT, version=__version__))
            ctx.exit()

    return click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=show)(fn)


# --- click's error messages --------------------------------------------------------------------------------

_CLICK_MESSAGES: tuple[tuple[str, str], ...] = (
    ("Option {name!r} requires an argument.", "cli.click.needs_value"),
    ("Option {name!r} does not take a value.", "cli.click.takes_no_value"),
    ("Got unexpected extra argument ({args})", "cli.click.extra_argument"),
    ("Got unexpected extra arguments ({args})", "cli.click.extra_arguments"),
    ("No such command {name!r}.", "cli.click.no_such_command"),
    ("Missing command.", "cli.click.missing_command"),
    ("{value!r} is not a valid integer.", "cli.click.not_integer"),
    ("{value!r} is not a valid float.", "cli.click.not_float"),
    ("{value!r} is not one of {choices}.", "cli.click.not_choice"),
    ("{value!r} is not {choices}.", "cli.click.not_choice"),
    ("Directory {name!r} is a file.", "cli.click.is_a_file"),
    ("File {name!r} is a directory.", "cli.click.is_a_directory"),
)
"""Click's English messages (as it writes them without a translation) and the catalog key of each; the
first that matches is taken."""


@cache
def _patterns() -> tuple[tuple[re.Pattern[str], str], ...]:
    """Each message of :data:`_CLICK_MESSAGES` as a pattern that reads its fields back (a ``!r`` field
    without its quotes)."""
    out = []
    for template, key in _CLICK_MESSAGES:
        pattern = ""
        for literal, field, _, conversion in string.Formatter().parse(template):
            pattern += re.escape(literal)
            if field is not None:
                pattern += f"'(?P<{field}>.*)'" if conversion == "r" else f"(?P<{field}>.*)"
        out.append((re.compile(pattern, re.DOTALL), key))
    return tuple(out)


def _said(message: str, lang: Lang) -> str:
    """One of click's own messages in ``lang``; a message it does not know is given as it is."""
    for pattern, key in _patterns():
        found = pattern.fullmatch(message)
        if found:
            return i18n.t(key, lang, **found.groupdict())
    return message


def _param_name(param: click.Parameter) -> str:
    return " / ".join(param.opts) if isinstance(param, click.Option) else param.human_readable_name


def click_message(exc: click.ClickException, lang: Lang) -> str:
    """The message of a usage error click raised, in ``lang``."""
    sep = i18n.t("cli.click.name_sep", lang)
    if isinstance(exc, click.NoSuchOption):
        if exc.possibilities:
            return i18n.t("cli.click.no_such_option_like", lang, name=exc.option_name,
                          names=sep.join(exc.possibilities))
        return i18n.t("cli.click.no_such_option", lang, name=exc.option_name)
    command_name = getattr(exc, "command_name", None)  # click.NoSuchCommand, since click 8.4
    if isinstance(command_name, str):
        possibilities = getattr(exc, "possibilities", None)
        if possibilities:
            return i18n.t("cli.click.no_such_command_like", lang, name=command_name, names=sep.join(possibilities))
        return i18n.t("cli.click.no_such_command", lang, name=command_name)
    if isinstance(exc, click.MissingParameter) and exc.param is not None:
        kind = "argument" if isinstance(exc.param, click.Argument) else "option"
        return i18n.t(f"cli.click.missing_{kind}", lang, name=_param_name(exc.param))
    if isinstance(exc, click.BadParameter) and exc.param is not None:
        return i18n.t("cli.click.bad_value", lang, name=_param_name(exc.param), problem=_said(exc.message, lang))
    return _said(exc.format_message(), lang)


__all__ = [
    "Command",
    "Context",
    "Formatter",
    "Group",
    "cell_width",
    "click_message",
    "command",
    "group",
    "help_lang",
    "option_key",
    "version_option",
    "wrap",
]
