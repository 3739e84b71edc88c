"""``replay`` of one hand of a JSON-lines file or stdin, refusals that never hang or trace back, a
full disk, and the language of the text output (``--lang``, else the environment)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from xuezhan import i18n
from xuezhan.cli import _common, main
from xuezhan.records import parse_record, replay, result_json
from xuezhan.tui import ReplayApp


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


@pytest.fixture(scope="module")
def jsonl(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sim") / "hands.jsonl"
    assert main(["simulate", "--games", "3", "--bots", "random", "--seed", "5", "--out", str(path), "--json"]) == 0
    return path


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("n", [1, 3])
def test_replay_takes_one_hand_out_of_a_jsonl_file(jsonl: Path, capsys: pytest.CaptureFixture[str], n: int) -> None:
    rc, out, _ = run(capsys, "replay", str(jsonl), "--hand", str(n), "--json")
    assert rc == 0
    wanted = records(jsonl)[n - 1]
    assert json.loads(out)["deltas"] == wanted["result"]["deltas"]
    game, complete = replay(parse_record(wanted))
    assert json.loads(out) == result_json(game, complete)


def test_replay_reads_stdin(jsonl: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    data = jsonl.read_bytes()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
    rc, out, _ = run(capsys, "replay", "-", "--hand", "2", "--json")
    assert rc == 0 and json.loads(out)["deltas"] == records(jsonl)[1]["result"]["deltas"]
    one = json.dumps(records(jsonl)[0]).encode()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(one), encoding="utf-8"))
    rc, out, _ = run(capsys, "replay", "-", "--json")
    assert rc == 0 and json.loads(out)["deltas"] == records(jsonl)[0]["result"]["deltas"]


@pytest.mark.parametrize(
    ("args", "code", "words"),
    [
        (["--hand", "4"], "bad_hand_no", "holds 3 hands, so there is no hand 4"),
        (["--hand", "0"], "bad_hand_no", "--hand counts from 1"),
        ([], "bad_json", "holds 3 records (JSON lines): choose one with --hand N"),
    ],
)
def test_replay_hand_numbers_are_checked(jsonl: Path, capsys: pytest.CaptureFixture[str], args: list[str],
                                         code: str, words: str) -> None:
    rc, out, err = run(capsys, "replay", str(jsonl), *args, "--json", "--lang", "en")
    assert rc == 2 and json.loads(out)["error"]["code"] == code and words in err


def test_a_broken_line_is_named(jsonl: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = jsonl.read_text(encoding="utf-8").splitlines()
    lines[1] = lines[1][:50]
    path = tmp_path / "broken.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    rc, out, err = run(capsys, "replay", str(path), "--hand", "1", "--json", "--lang", "en")
    assert rc == 2 and json.loads(out)["error"]["code"] == "bad_json" and "line 2" in err


def test_deeply_nested_json_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    rc, out, err = run(capsys, "replay", str(path), "--json", "--lang", "en")
    assert rc == 2 and json.loads(out)["error"]["code"] == "bad_json" and "nested too deeply" in err
    path.write_text('{"rules": ' + "[" * 100_000 + "]" * 100_000 + "}", encoding="utf-8")
    rc, out, err = run(capsys, "replay", str(path), "--json")
    assert rc == 2 and json.loads(out)["error"]["code"] == "bad_json"


def test_view_with_json_is_refused(jsonl: Path, capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_common, "has_terminal", lambda: True)
    monkeypatch.setattr(ReplayApp, "run", lambda self: pytest.fail("the viewer must not open"))
    rc, out, err = run(capsys, "replay", str(jsonl), "--hand", "1", "--view", "--json", "--lang", "en")
    assert rc == 2 and json.loads(out)["error"]["code"] == "usage" and "--view" in err
    rc, out, err = run(capsys, "replay", "-", "--view", "--lang", "en")
    assert rc == 2 and "stdin" in err


def test_view_without_a_terminal_is_refused(jsonl: Path, capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ReplayApp, "run", lambda self: pytest.fail("the viewer must not open"))
    rc, out, err = run(capsys, "replay", str(jsonl), "--hand", "1", "--view", "--lang", "en")  # capsys: no tty
    assert rc == 2 and out == "" and "needs a terminal" in err
    rc, out, err = run(capsys, "play", "--lang", "zh-CN")
    assert rc == 2 and "需要一个终端" in err and "不是终端" in err


def test_a_full_disk_is_bad_input_not_a_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(capsys, "simulate", "--games", "2", "--bots", "random", "--out", "/dev/full", "--json",
                       "--lang", "en")
    assert rc == 2 and json.loads(out)["error"]["code"] == "unwritable"
    assert "cannot write /dev/full" in err and "No space left" in err


def test_an_unwritable_out_file_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys, "simulate", "--games", "1", "--out", str(tmp_path / "no" / "such" / "dir.jsonl"),
                       "--json")
    assert rc == 2 and json.loads(out)["error"]["code"] == "unwritable"


# --- the language ---------------------------------------------------------------------------------------


def test_text_output_follows_lang_and_the_environment(jsonl: Path, capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(name, raising=False)
    args = ["waits", "1112345678999m"]
    _, zh, _ = run(capsys, *args)  # nothing set: Simplified Chinese
    assert "听牌" in zh
    monkeypatch.setenv("LANG", "zh_TW.UTF-8")
    _, tw, _ = run(capsys, *args)
    assert "聽牌" in tw
    monkeypatch.setenv("LC_ALL", "en_US.UTF-8")
    _, en, _ = run(capsys, *args)
    assert "ready on" in en
    _, forced, _ = run(capsys, *args, "--lang", "zh-CN")
    assert forced == zh
    rc, _, err = run(capsys, *args, "--lang", "klingon")
    assert rc == 2 and "klingon" in err


@pytest.mark.parametrize(
    "args",
    [
        ["score", "11224444557799m", "--win", "9m"],
        ["score", "123m456m789m123p55s", "--win", "5s"],
        ["waits", "1112345678999m"],
        ["shanten", "123m456m789p11s3s"],
        ["simulate", "--games", "2", "--bots", "random"],
    ],
)
def test_json_is_the_same_in_every_language(capsys: pytest.CaptureFixture[str], args: list[str]) -> None:
    outputs = set()
    for lang in i18n.LANGS:
        rc, out, _ = run(capsys, *args, "--json", "--lang", lang)
        data = json.loads(out)
        data.pop("hands_per_second", None)  # a measured speed
        outputs.add(json.dumps(data, sort_keys=True))
        rc_text, text, _ = run(capsys, *args, "--lang", lang)
        assert rc_text == rc and text.strip()
    assert len(outputs) == 1


def test_replay_settlement_in_chinese(jsonl: Path, capsys: pytest.CaptureFixture[str]) -> None:
    wanted = records(jsonl)[0]
    rc, out, _ = run(capsys, "replay", str(jsonl), "--hand", "1", "--lang", "zh-CN")
    assert rc == 0
    deltas = "，".join(f"{s} 号位 {d:+d}" for s, d in enumerate(wanted["result"]["deltas"]))
    assert f"本局得失：{deltas}" in out.splitlines()
    assert out.splitlines()[-1].startswith("下一局庄家：")


def test_a_full_stdout_is_exit_2_with_a_message(tmp_path: Path) -> None:
    for extra in ([], ["--json"]):
        with open("/dev/full", "w", encoding="utf-8") as full:
            proc = subprocess.run([sys.executable, "-m", "xuezhan", "waits", "1112345678999m", "--lang", "en",
                                   *extra], stdout=full, stderr=subprocess.PIPE, text=True, timeout=120,
                                  check=False, cwd=tmp_path)
        assert proc.returncode == 2, proc.stderr
        assert "Traceback" not in proc.stderr and "Exception ignored" not in proc.stderr
        assert proc.stderr.count("cannot write stdout: No space left on device") == 1


def test_a_deeply_nested_rules_file_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rules = tmp_path / "deep.toml"
    rules.write_text("a = " + "[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8")
    rc, out, err = run(capsys, "shanten", "11m", "--rules", str(rules), "--json", "--lang", "en")
    assert rc == 2 and json.loads(out)["error"]["code"] == "bad_input" and "nested too deeply" in err
