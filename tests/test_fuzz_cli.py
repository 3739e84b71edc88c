"""Fuzz target: every command of the ``xuezhan`` CLI with generated arguments.

Arguments are drawn from each command's own options (good values, bad values, files that are
records, rules or settings, broken or missing), mixed with unknown options and stray words.
``xuezhan.cli.main`` must return 0, 1 or 2 and never raise; exit 2 prints a message (and, with
``--json``, ``{"error": {"code", "message"}}`` whose code the vocabulary names) and leaves no
file behind. What would run for long is cut short at its edge, the code before it runs as is:
``simulate`` plays at most one hand in this process, ``review`` weighs each choice by two
play-outs, the terminal and web apps are not started.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

from fuzzing import BASE_RECORDS, FUZZ, not_utf8_names, odd_text, rule_mappings, tile_text, toml_text
from hypothesis import example, given
from hypothesis import strategies as st

from xuezhan import i18n, vocab
from xuezhan.cli import main
from xuezhan.review import review_record
from xuezhan.selfplay import simulate
from xuezhan.vocab import Kind

# --- files the arguments may name (written once, in a folder of their own) --------------------------------

FILES = Path(tempfile.mkdtemp(prefix="xuezhan-fuzz-cli-"))
atexit.register(shutil.rmtree, FILES, True)
(FILES / "record.json").write_text(json.dumps(BASE_RECORDS[0]), encoding="utf-8")
(FILES / "partial.json").write_text(json.dumps(BASE_RECORDS[3]), encoding="utf-8")
(FILES / "broken.json").write_text('{"dealer": 0, "hands": [', encoding="utf-8")
(FILES / "latin1.json").write_bytes(b"\xff\xfe{}")
(FILES / "house.toml").write_text('preset = "chengdu"\nbase_score = 2\n[fan]\njue_zhang = 1\n', encoding="utf-8")
(FILES / "bad.toml").write_text("preset = [\n", encoding="utf-8")
(FILES / "server.toml").write_text("[server]\nturn_seconds = 5\n", encoding="utf-8")
(FILES / "folder").mkdir()
# bad text: numbers past 4,300 digits, lone surrogates in keys and values, a file name that is not UTF-8
(FILES / "huge.json").write_text('{"dealer": ' + "9" * 5000 + "}", encoding="utf-8")
(FILES / "surrogate.json").write_text(json.dumps({**BASE_RECORDS[0], "\ud800": 1}), encoding="utf-8")
(FILES / "surrogate_value.json").write_text(json.dumps({**BASE_RECORDS[0], "rules": "\udcff"}), encoding="utf-8")
(FILES / "huge.toml").write_text("base_score = 0x" + "f" * 5000 + "\n", encoding="utf-8")
(FILES / os.fsdecode(b"name\xff.json")).write_text(json.dumps(BASE_RECORDS[0]), encoding="utf-8")
PATHS = [str(FILES / name) for name in
         ("record.json", "partial.json", "broken.json", "latin1.json", "house.toml", "bad.toml", "server.toml",
          "folder", "missing.json", "missing.toml", "huge.json", "surrogate.json", "surrogate_value.json", "huge.toml",
          os.fsdecode(b"name\xff.json"), os.fsdecode(b"missing\xfe.toml"))]

paths = st.one_of(st.sampled_from(PATHS), st.text(max_size=12), not_utf8_names)
ints = st.one_of(st.integers(-3, 3), st.integers(), st.sampled_from(["0", "1", "x", "", "1.5", "-0", "９"]))
numbers = st.one_of(st.floats(allow_nan=True), ints)
rules_specs = st.one_of(st.sampled_from(["qq", "chengdu", "QQ", ""]), paths)
bot_lists = st.one_of(st.sampled_from(["random", "heuristic", "random,random,random,random", "random,heuristic",
                                       "nobody", ",", "random,,random"]), st.text(max_size=10))
tiles = st.one_of(st.sampled_from(["5m", "1p", "9s", "5", "m", "55m"]), tile_text)
hands = st.one_of(st.sampled_from(["123m456m789m11p55p", "123m456m789m11p5p", "11223344556677m", "19m19p19s"]),
                  tile_text)

# Each command's options: (option, value strategy or None for a flag).
MELDS: list[tuple[str, Any]] = [("--peng", tiles), ("--gang", tiles), ("--angang", tiles)]
COMMON: list[tuple[str, Any]] = [("--json", None), ("--rules", rules_specs), ("--dingque", tile_text)]
COMMANDS: dict[str, tuple[list[Any], list[tuple[str, Any]]]] = {
    "score": ([hands], [("--win", tiles), *MELDS, *COMMON, *[(f"--{f}", None) for f in (
        "self-drawn", "after-kong", "robbing-kong", "last-tile", "last-copy", "tian-hu", "di-hu")]]),
    "waits": ([hands], [*MELDS, *COMMON]),
    "shanten": ([hands], [*MELDS, *COMMON]),
    "replay": ([paths], [("--json", None), ("--view", None)]),
    "review": ([paths], [("--json", None), ("--hand", ints), ("--seat", ints)]),
    "simulate": ([], [("--games", ints), ("--bots", bot_lists), ("--seed", ints), ("--rules", rules_specs),
                      ("--out", st.sampled_from(["out.jsonl", str(FILES / "folder"), "", "no/such/dir/x"])),
                      ("--workers", ints), ("--backend", st.sampled_from(["local", "ray", "Ray", ""])),
                      ("--json", None)]),
    "play": ([], [("--hands", ints), ("--seed", ints), ("--bots", bot_lists), ("--rules", rules_specs),
                  ("--record-dir", st.sampled_from(["records", str(FILES / "record.json"), ""])),
                  ("--glyphs", None), ("--delay", numbers)]),
    "serve": ([], [("--host", st.sampled_from(["127.0.0.1", "::1", "localhost", "", "999.1.1.1", "a b"])),
                   ("--port", st.one_of(st.integers(-1, 70000), st.sampled_from(["0", "x", "65536"]))),
                   ("--db", st.sampled_from(["sqlite:///x.sqlite3", "sqlite://", "nonsense", "mysql://", ""])),
                   ("--config", paths)]),
}
often = st.sampled_from([True] * 9 + [False])
STRAY = st.one_of(st.sampled_from(["--help", "-h", "--version", "--json", "--nope", "-x", "--", "", "score", "—",
                                    "--rules"]), not_utf8_names, odd_text)


@st.composite
def argvs(draw: st.DrawFn) -> list[str]:
    command = draw(st.sampled_from(sorted(COMMANDS))) if draw(often) else draw(st.text(max_size=8))
    positional, options = COMMANDS.get(command, ([], []))
    argv = [command]
    for strategy in positional:
        if draw(often):
            argv.append(str(draw(strategy)))
    if options:
        for name, strategy in draw(st.lists(st.sampled_from(options), max_size=6)):
            argv.append(name)
            if strategy is not None and draw(st.sampled_from([True] * 19 + [False])):
                argv.append(str(draw(strategy)))
    if not draw(often):
        argv.insert(draw(st.integers(0, len(argv))), draw(st.one_of(STRAY, st.text(max_size=8))))
    return argv


@contextlib.contextmanager
def bounded() -> Iterator[None]:
    """Cut the long-running parts short: one simulated hand at most, no app started."""
    def one_hand(n: int, *args: Any, **kwargs: Any) -> Any:
        return simulate(min(n, 1), *args, **kwargs)

    def short_review(*args: Any, **kwargs: Any) -> Any:
        return review_record(*args, **{**kwargs, "per_choice": 2})

    with (mock.patch("xuezhan.cli.games.simulate", one_hand),
          mock.patch("xuezhan.cli.review.review_record", short_review),
          mock.patch("xuezhan.tui.app.PlayApp.run", lambda self: None),
          mock.patch("xuezhan.tui.replay.ReplayApp.run", lambda self: None),
          mock.patch("xuezhan.tui.terminal.fit_mahjong_tiles_to_terminal", lambda: None),
          mock.patch("uvicorn.run", lambda *a, **k: None),
          mock.patch("uvicorn.Server.run", lambda *a, **k: None)):
        yield


def _files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


ERROR_PREFIXES = tuple(i18n.t("cli.error", lang, message="\0", what="").split("\0")[0] for lang in i18n.LANGS)
"""How an error line starts in each language (``--lang`` or the environment picks one)."""


@FUZZ
@given(argv=argvs())
@example(argv=["replay", "\x85", "--json"])  # a line break to str.splitlines() in the JSON error line
@example(argv=["replay", "a\u2028b\u2029", "--json"])
@example(argv=["replay", os.fsdecode(b"missing\xfe.json"), "--json"])  # a file name that is not UTF-8
@example(argv=["replay", str(FILES / "surrogate.json"), "--json"])  # a lone surrogate in a key
@example(argv=["replay", str(FILES / "huge.json"), "--json"])  # a number past 4,300 digits
@example(argv=["waits", "123m456m789m11p5p", "--rules", str(FILES / "huge.toml"), "--json"])
@example(argv=["score", "\ud800", "--json"])
@example(argv=["serve", "--port", "1", "--host", "\udc80"])  # a host name that is not UTF-8
@example(argv=["replay", "\ud800", "--json"])  # no command line passes one, but main() may be called with it
@example(argv=["waits", "123m456m789m11p5p", "--rules", "\ud800.toml", "--json"])
def test_fuzz_cli_arguments(argv: list[str]) -> None:
    out, err = io.StringIO(), io.StringIO()
    with tempfile.TemporaryDirectory() as cwd, bounded(), contextlib.chdir(cwd):
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = main(list(argv))
        left = _files(Path(cwd))
    assert rc in (0, 1, 2), (argv, rc)
    assert "Traceback" not in err.getvalue()
    if "--json" in argv:
        out.getvalue().encode("utf-8")  # --json output is UTF-8 text: no lone surrogate
    if rc == 2:
        assert err.getvalue().startswith(ERROR_PREFIXES), err.getvalue()
        assert not left, left  # a refused command leaves nothing behind
        if out.getvalue().strip():  # with --json (when it was not taken as another option's value)
            assert "--json" in argv
            error = json.loads(out.getvalue().strip().splitlines()[-1])["error"]
            assert vocab.find(Kind.ERROR, error["code"]) is not None, error
            assert error["message"]


@FUZZ
@given(mapping=rule_mappings, command=st.sampled_from(["score 123m456m789m11p555p --win 5p", "waits 123m456m789m11p5p",
                                                       "shanten 19m19p19s1234m", "simulate --games 1"]))
def test_fuzz_cli_rules_files(mapping: dict[str, Any], command: str) -> None:
    """``--rules FILE`` with generated rules files: read, or refused as bad input."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "house.toml")
        Path(path).write_text(toml_text(mapping), encoding="utf-8")
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = main([*command.split(), "--rules", path, "--json"])
    assert rc in (0, 1, 2) and "Traceback" not in err.getvalue()
    if rc == 2:
        code = json.loads(out.getvalue().strip().splitlines()[-1])["error"]["code"]
        assert code in {"bad_option", "unknown_option", "unknown_pattern", "unknown_preset", "bad_rules",
                        "rules_file_syntax"}, code
