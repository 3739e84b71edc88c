"""``xuezhan play`` and ``xuezhan replay FILE --view`` on the command line.

Bad input exits 2 with a message naming what is wrong, before any screen opens;
good input builds the app and runs it (``App.run`` is replaced here, the app itself
is tested in tests/test_tui.py), and leaving it is exit 0.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from xuezhan.cli import _common, main
from xuezhan.engine.game import Game
from xuezhan.records import record_json
from xuezhan.rules import Rules
from xuezhan.tui import PlayApp, ReplayApp, TerminalTable


def xz(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    rc = main(list(args))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return rc, out, err


@pytest.fixture(autouse=True)
def english(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests read the English messages (the language comes from the environment)."""
    monkeypatch.setenv("LC_ALL", "en_US.UTF-8")


@pytest.fixture
def launched(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Apps that would have opened a full screen: recorded, not run."""
    apps: list[Any] = []

    def fake_run(self: Any, *args: Any, **kwargs: Any) -> int:
        apps.append(self)
        return 0

    monkeypatch.setattr(PlayApp, "run", fake_run)
    monkeypatch.setattr(ReplayApp, "run", fake_run)
    monkeypatch.setattr(_common, "has_terminal", lambda: True)
    return apps


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--rules", "nonsense"], "unknown preset 'nonsense'"),
        (["--rules", "missing.toml"], "cannot read rules file missing.toml"),
        (["--hands", "0"], "--hands must be at least 1"),
        (["--hands", "-3"], "--hands must be at least 1"),
        (["--hands", "many"], "'many' is not a valid integer"),
        (["--bots", "oracle"], "unknown bot 'oracle'"),
        (["--bots", "heuristic,random"], "--bots takes one bot name"),
        (["--seed", "x"], "'x' is not a valid integer"),
        (["--delay", "-1"], "--delay cannot be negative"),
    ],
)
def test_play_bad_input_exits_2(capsys: pytest.CaptureFixture[str], launched: list[Any], args: list[str],
                                words: str) -> None:
    rc, _, err = xz(capsys, "play", *args)
    assert rc == 2
    assert words in err
    assert not launched


def test_play_unwritable_record_dir_exits_2(capsys: pytest.CaptureFixture[str], launched: list[Any],
                                            tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory", encoding="utf-8")
    rc, _, err = xz(capsys, "play", "--record-dir", str(blocker / "records"))
    assert rc == 2
    assert "--record-dir" in err and "cannot write there" in err
    assert not launched


def test_play_builds_the_match_and_exits_0(capsys: pytest.CaptureFixture[str], launched: list[Any],
                                           tmp_path: Path) -> None:
    rules = tmp_path / "house.toml"
    rules.write_text('preset = "chengdu"\nbase_score = 2\n', encoding="utf-8")
    records = tmp_path / "new" / "records"
    rc, _, err = xz(capsys, "play", "--rules", str(rules), "--hands", "3", "--seed", "9", "--glyphs",
                    "--record-dir", str(records), "--delay", "0")
    assert rc == 0, err
    (app,) = launched
    assert isinstance(app, PlayApp)
    match: TerminalTable = app.match
    assert match.hands == 3 and match.seed == 9 and match.rules.base_score == 2
    assert match.rules.preset_name == "chengdu" and match.record_dir == records and records.is_dir()
    assert app.glyphs and app.bot_delay == 0
    assert app.lang == "en"  # from the environment


def test_play_defaults(capsys: pytest.CaptureFixture[str], launched: list[Any]) -> None:
    rc, _, _ = xz(capsys, "play")
    assert rc == 0
    (app,) = launched
    assert app.match.hands == 8 and app.match.rules == Rules.preset("qq") and app.match.bot_name == "heuristic"
    assert app.match.record_dir is None and not app.glyphs
    assert isinstance(app.match.seed, int)  # chosen at random, shown at the end to play the deals again


def test_play_is_listed_in_help(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = xz(capsys, "--help")
    assert rc == 0 and "play" in out
    rc, out, _ = xz(capsys, "play", "--help")
    assert rc == 0 and "--record-dir" in out and "--glyphs" in out


def _record(tmp_path: Path) -> Path:
    game = Game.new(Rules.preset("qq"), seed=4)
    data = record_json(game, with_result=False)
    data["autoplay"] = "tsumogiri"
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_replay_view_opens_the_viewer_and_exits_0(capsys: pytest.CaptureFixture[str], launched: list[Any],
                                                   tmp_path: Path) -> None:
    rc, out, err = xz(capsys, "replay", str(_record(tmp_path)), "--view")
    assert rc == 0, err
    (app,) = launched
    assert isinstance(app, ReplayApp)
    assert app.stepper.complete and app.stepper.total > 0
    assert out == ""  # the viewer, not the printed result


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("{not json", "is not valid JSON"),
        ('{"rules": "qq", "dealer": 0, "hands": ["1m"], "wall": "2m"}', "'hands' must be a list of four"),
        (None, "cannot read"),
    ],
)
def test_replay_view_broken_record_exits_2(capsys: pytest.CaptureFixture[str], launched: list[Any],
                                           tmp_path: Path, content: str | None, words: str) -> None:
    path = tmp_path / "broken.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    rc, _, err = xz(capsys, "replay", str(path), "--view")
    assert rc == 2
    assert words in err
    assert not launched


def test_replay_view_illegal_action_exits_2(capsys: pytest.CaptureFixture[str], launched: list[Any],
                                            tmp_path: Path) -> None:
    data = json.loads(_record(tmp_path).read_text(encoding="utf-8"))
    data["actions"] = [{"seat": 1, "type": "hu"}]
    path = tmp_path / "illegal.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    rc, _, err = xz(capsys, "replay", str(path), "--view")
    assert rc == 2
    assert "actions[0]" in err
    assert not launched
