"""``--help`` pages and click's own messages in the language of the command line.

Every expected text is read from the catalog (``cli.help.*``, ``cli.click.*``): each page must show
its command's texts and every option's help in the language of ``--lang`` on the same command
line, else of the environment (``LC_ALL``, ``LC_MESSAGES``, ``LANG``), and nothing of another one.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest

import xuezhan
from xuezhan import i18n, vocab
from xuezhan.cli import cli, main
from xuezhan.cli._help import _CLICK_MESSAGES, cell_width, wrap
from xuezhan.i18n import Lang

LOCALES: dict[Lang, str] = {"zh-CN": "zh_CN.UTF-8", "zh-TW": "zh_TW.UTF-8", "en": "en_US.UTF-8"}
WIDTH = 80
"""The terminal width the pages are laid out for here (COLUMNS): click writes them 2 columns narrower."""


def _tree(command: click.Command, words: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], click.Command]]:
    yield words, command
    if isinstance(command, click.Group):
        for name in command.list_commands(click.Context(command)):
            sub = command.get_command(click.Context(command), name)
            assert sub is not None
            yield from _tree(sub, (*words, name))


COMMANDS = list(_tree(cli))
PAGES = [words for words, _ in COMMANDS]


def _path(words: tuple[str, ...]) -> str:
    return ".".join(words) if words else "xuezhan"


def _flag(param: click.Parameter) -> str:
    flag = next(o for o in param.opts if o.startswith("--"))
    return flag[2:].replace("-", "_")


def _option_key(words: tuple[str, ...], param: click.Parameter) -> str:
    """The command's own text for the option, else the one its commands share."""
    own = f"cli.help.{_path(words)}.{_flag(param)}"
    return own if own in i18n.catalog() else f"cli.help.option.{_flag(param)}"


def _options(command: click.Command) -> list[click.Option]:
    """The command's own options (-h/--help, which every command has, aside)."""
    return [p for p in command.params if isinstance(p, click.Option)]


def _columns(line: str) -> int:
    """Terminal columns of a line: a wide (CJK) character takes two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in line)


def _squash(text: str) -> str:
    """Without any white space: a text as wrapped over lines reads as the same text."""
    return re.sub(r"\s+", "", text)


def _text(key: str, lang: Lang) -> str:
    return i18n.t(key, lang, bots="\0").split("\0")[0]  # up to the bot list play fills in


@pytest.fixture
def speak(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Set the environment's language (LANG, the others unset) and the terminal width."""
    monkeypatch.setenv("COLUMNS", str(WIDTH))

    def to(locale: str | None) -> None:
        for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
            monkeypatch.delenv(name, raising=False)
        if locale is not None:
            monkeypatch.setenv("LANG", locale)

    return to


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    rc = main(list(args))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return rc, out, err


def _rows(out: str, heading: str) -> dict[str, str]:
    """The definition list under ``heading``: term -> its text, continuation lines joined."""
    section = out.split(f"\n{heading}\n", 1)[1].split("\n\n", 1)[0]
    rows: dict[str, str] = {}
    term = ""
    for line in section.splitlines():
        match = re.match(r"  (\S(?:.*?\S)?)(?:\s{2,}(.*))?$", line)
        if match and not line.startswith("   "):
            term = match.group(1)
            rows[term] = match.group(2) or ""
        else:
            rows[term] += " " + line.strip()
    return rows


@pytest.mark.parametrize("lang", list(LOCALES))
@pytest.mark.parametrize("words", PAGES, ids=_path)
def test_every_page_is_in_the_language_of_the_environment(capsys: pytest.CaptureFixture[str], speak: Any,
                                                          words: tuple[str, ...], lang: Lang) -> None:
    speak(LOCALES[lang])
    command = dict(COMMANDS)[words]
    rc, out, err = _run(capsys, *words, "--help")
    assert rc == 0 and err == ""
    lines = out.splitlines()
    usage = i18n.t("cli.click.usage", lang)
    assert lines[0].startswith(usage) and f"xuezhan {' '.join(words)}".strip() in lines[0]
    assert _squash(i18n.t(f"cli.help.{_path(words)}.long", lang)) in _squash(out)
    rows = _rows(out, i18n.t("cli.click.options", lang))
    options = _options(command)
    assert len(rows) == len(options) + 1
    assert _squash(rows.pop("-h, --help")) == _squash(i18n.t("cli.help.option.help", lang))
    for option in options:
        (term,) = [t for t in rows if t.split(" ")[0].rstrip(",") in option.opts]
        shown = rows[term]
        assert _squash(shown).startswith(_squash(_text(_option_key(words, option), lang))), (term, shown)
        if option.required:
            assert shown.endswith(f"[{i18n.t('cli.click.required', lang)}]"), shown
        elif option.show_default and option.default is not None:
            assert shown.endswith(f"[{i18n.t('cli.click.default', lang, default=option.default)}]"), shown
    if isinstance(command, click.Group):
        listed = _rows(out, i18n.t("cli.click.commands", lang))
        assert set(listed) == set(command.list_commands(click.Context(command)))
        for name, short in listed.items():
            assert _squash(short) == _squash(i18n.t(f"cli.help.{_path((*words, name))}.short", lang))
    for line in lines:
        assert _columns(line) <= WIDTH - 2, line  # wrapped by the columns a line takes, Chinese too
    if lang != "en":  # not a line of English: neither ours nor click's
        keys = [f"cli.help.{_path(words)}.long", "cli.help.option.help", *(_option_key(words, o) for o in options)]
        for key in keys:
            assert _squash(_text(key, "en")) not in _squash(out), key
        for word in ("Usage:", "Options:", "Commands:", "Show this message", "[default:", "[required]"):
            assert word not in out


def test_every_help_text_in_the_catalog_is_shown_somewhere() -> None:
    used = {f"cli.help.{_path(words)}.long" for words in PAGES}
    used |= {f"cli.help.{_path(words)}.short" for words in PAGES if words}
    used |= {_option_key(words, o) for words, command in COMMANDS for o in _options(command)}
    used.add("cli.help.option.help")
    assert set(i18n.keys("cli.help.")) == used


def test_no_help_text_is_written_in_the_code() -> None:
    """Every text comes from the catalog: an option given ``help=`` in the code would not be shown."""
    for words, command in COMMANDS:
        for option in _options(command):
            assert option.help is None, (words, option.opts)


@pytest.mark.parametrize(
    ("env", "args", "lang"),
    [
        ("zh_CN.UTF-8", ["score", "--lang", "en", "--help"], "en"),
        ("en_US.UTF-8", ["replay", "--lang=zh-TW", "-h"], "zh-TW"),
        ("zh_TW.UTF-8", ["simulate", "--lang", "zh_CN", "--help"], "zh-CN"),
        ("en_US.UTF-8", ["waits", "--help", "--lang", "zh-Hant"], "zh-TW"),
        ("en_US.UTF-8", ["play", "--lang", "klingon", "--help"], "en"),  # not a language: the environment's
        (None, ["shanten", "--help"], "zh-CN"),  # no language anywhere: Simplified Chinese
    ],
)
def test_lang_on_the_command_line_chooses_the_help(capsys: pytest.CaptureFixture[str], speak: Any,
                                                   env: str | None, args: list[str], lang: Lang) -> None:
    speak(env)
    rc, out, _ = _run(capsys, *args)
    assert rc == 0
    assert out.startswith(i18n.t("cli.click.usage", lang))
    assert _squash(i18n.t("cli.help.option.lang", lang)) in _squash(out)


def test_lc_all_comes_before_lang(capsys: pytest.CaptureFixture[str], speak: Any,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    speak("en_US.UTF-8")
    monkeypatch.setenv("LC_ALL", "zh_TW.UTF-8")
    rc, out, _ = _run(capsys, "--help")
    assert rc == 0 and out.startswith(i18n.t("cli.click.usage", "zh-TW"))
    assert _squash(i18n.t("cli.help.score.short", "zh-TW")) in _squash(out)


def test_no_arguments_show_the_top_page(capsys: pytest.CaptureFixture[str], speak: Any) -> None:
    speak("zh_TW.UTF-8")
    rc, out, _ = _run(capsys)
    assert rc == 0
    assert _squash(i18n.t("cli.help.xuezhan.long", "zh-TW")) in _squash(out)


@pytest.mark.parametrize("lang", list(LOCALES))
def test_version(capsys: pytest.CaptureFixture[str], speak: Any, lang: Lang) -> None:
    speak(LOCALES[lang])
    rc, out, _ = _run(capsys, "--version")
    assert rc == 0
    assert out.strip() == i18n.t("cli.click.version", lang, prog="xuezhan", version=xuezhan.__version__)


def _error(lang: Lang, message: str) -> str:
    return i18n.t("cli.error", lang, message=message, what=vocab.name_or_id(vocab.Kind.ERROR, "usage", lang))


@pytest.mark.parametrize("lang", list(LOCALES))
def test_an_unknown_option_exits_2_in_the_language(capsys: pytest.CaptureFixture[str], speak: Any,
                                                   lang: Lang) -> None:
    speak(LOCALES[lang])
    rc, out, err = _run(capsys, "score", "1m", "--bogus")
    assert rc == 2 and out == ""
    assert err.strip() == _error(lang, i18n.t("cli.click.no_such_option", lang, name="--bogus"))


def test_lang_on_the_command_line_chooses_the_error_language(capsys: pytest.CaptureFixture[str], speak: Any) -> None:
    speak("zh_CN.UTF-8")
    rc, _, err = _run(capsys, "waits", "--lang", "en", "1m", "--bogus")
    assert rc == 2
    assert err.strip() == _error("en", i18n.t("cli.click.no_such_option", "en", name="--bogus"))


def _click_errors(tmp_path: Path) -> list[tuple[list[str], str, dict[str, Any], str | None]]:
    """Command lines click refuses: the catalog message each gets, its fields and, for a bad value, the
    option whose value it is."""
    a_file = tmp_path / "a-file"
    a_file.write_text("x", encoding="utf-8")
    return [
        (["score", "1m", "--win"], "cli.click.needs_value", {"name": "--win"}, None),
        (["score", "1m", "--win", "1m", "--json=1"], "cli.click.takes_no_value", {"name": "--json"}, None),
        (["score", "1m", "2m", "--win", "1m"], "cli.click.extra_argument", {"args": "2m"}, None),
        (["score", "1m", "2m", "3m", "--win", "1m"], "cli.click.extra_arguments", {"args": "2m 3m"}, None),
        (["score", "1m", "--jsn"], "cli.click.no_such_option_like", {"name": "--jsn", "names": ["--json", "--win"]},
         None),
        (["scroe"], "cli.click.no_such_command_like", {"name": "scroe", "names": ["score"]}, None),
        (["nosuch"], "cli.click.no_such_command", {"name": "nosuch"}, None),
        (["bot", "--"], "cli.click.missing_command", {}, None),
        (["simulate"], "cli.click.missing_option", {"name": "--games"}, None),
        (["score"], "cli.click.missing_argument", {"name": "HAND"}, None),
        (["simulate", "--games", "x"], "cli.click.not_integer", {"value": "x"}, "--games"),
        (["play", "--delay", "soon"], "cli.click.not_float", {"value": "soon"}, "--delay"),
        (["simulate", "--games", "1", "--engine", "py"], "cli.click.not_choice",
         {"value": "py", "choices": "'python', 'native'"}, "--engine"),
        (["simulate", "--games", "1", "--out", str(tmp_path)], "cli.click.is_a_directory", {"name": str(tmp_path)},
         "--out"),
        (["play", "--record-dir", str(a_file)], "cli.click.is_a_file", {"name": str(a_file)}, "--record-dir"),
    ]


@pytest.mark.parametrize("lang", list(LOCALES))
def test_clicks_messages_in_the_language(capsys: pytest.CaptureFixture[str], speak: Any, tmp_path: Path,
                                         lang: Lang) -> None:
    speak(LOCALES[lang])
    cases = _click_errors(tmp_path)
    for args, key, params, option in cases:
        if "names" in params:
            params = {**params, "names": i18n.t("cli.click.name_sep", lang).join(params["names"])}
        message = i18n.t(key, lang, **params)
        if option is not None:  # the value's problem inside "the value of OPTION is wrong"
            message = i18n.t("cli.click.bad_value", lang, name=option, problem=message)
        rc, _, err = _run(capsys, *args)
        assert rc == 2, args
        assert err.strip() == _error(lang, message), args
    assert {key for _, key in _CLICK_MESSAGES} <= {key for _, key, _, _ in cases}  # each of click's messages is met


def test_the_installed_command_speaks_the_environment() -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("LC_ALL", "LC_MESSAGES", "LANG")}
    p = subprocess.run([sys.executable, "-m", "xuezhan", "league", "--help"], capture_output=True, text=True,
                       encoding="utf-8", timeout=60, env={**env, "LANG": "zh_TW.UTF-8"})
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith(i18n.t("cli.click.usage", "zh-TW"))
    assert _squash(i18n.t("cli.help.league.deals", "zh-TW")) in _squash(p.stdout)
    p = subprocess.run([sys.executable, "-m", "xuezhan", "league", "--nope"], capture_output=True, text=True,
                       encoding="utf-8", timeout=60, env={**env, "LANG": "zh_TW.UTF-8"})
    assert p.returncode == 2
    assert i18n.t("cli.click.no_such_option", "zh-TW", name="--nope") in p.stderr


# --- wrapping by the columns a text takes -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "width", "lines"),
    [
        ("一二三四五", 4, ["一二", "三四", "五"]),
        ("一二，三四", 4, ["一", "二，", "三四"]),  # a comma never begins a line
        ("一（二三）四", 6, ["一（二", "三）四"]),  # nor does a bracket end one
        ("一（random、heuristic、expert）", 11, ["一", "（random、", "heuristic、", "expert）"]),
        ("one two three", 7, ["one two", "three"]),
        ("用 --self-drawn 时", 6, ["用", "--self-drawn", "时"]),  # a flag stays whole, even too wide
        ("5万 5万", 3, ["5万", "5万"]),  # a tile stays whole
        ("种子一样。 [默认：qq]", 12, ["种子一样。", "[默认：qq]"]),  # a note in brackets stays whole
        ("  a   b  ", 10, ["a b"]),
    ],
)
def test_wrap(text: str, width: int, lines: list[str]) -> None:
    assert wrap(text, width) == lines


def test_cell_width() -> None:
    assert cell_width("5m") == 2
    assert cell_width("5万") == 3
    assert cell_width("用法：") == 6


def test_every_help_that_lists_bots_names_every_bot() -> None:
    """A help text that lists the bots by name lists all of them (``xuezhan.bots.BOTS`` and the prefixes)."""
    from xuezhan.bots import BOTS, PREFIXES

    lists = [(key, lang, text) for key, lang, text in _catalog_texts() if "random" in text and "heuristic" in text]
    assert len(lists) >= 9  # simulate, dataset, league, bot stdio …, in three languages
    for key, lang, text in lists:
        missing = [name for name in (*BOTS, *PREFIXES) if name not in text]
        assert missing == [], f"{key} ({lang}) leaves out {missing}"


def _catalog_texts() -> Iterator[tuple[str, str, str]]:
    import tomllib

    catalog = Path(xuezhan.__file__).parent / "i18n" / "catalogs" / "cli.toml"

    def walk(key: str, table: dict[str, Any]) -> Iterator[tuple[str, str, str]]:
        for name, value in table.items():
            if isinstance(value, dict):
                yield from walk(f"{key}.{name}" if key else name, value)
            elif isinstance(value, str):
                yield key, name, value

    yield from walk("", tomllib.loads(catalog.read_text(encoding="utf-8")))
