"""``xuezhan score``, ``waits`` and ``shanten`` against docs/interfaces.md §2.1-2.3.

Exit codes: 0 success, 1 "no" (not a winning hand), 2 bad input (message on stderr;
with ``--json`` also ``{"error": {"code", "message"}}`` on stdout). Never a traceback.
Expected numbers are worked out by hand from docs/rules.md §6 (see tests/test_scoring.py).
"""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import click
import pytest

import xuezhan
from xuezhan.cli import main

H = "123m456m789m123p55p"  # ping_hu, 1 fan
H13 = "123m456m789m123p5p"  # the same, one tile short: ready on 5p

SCORE_KEYS = {"hu", "fan", "multiple", "points", "base", "extras", "split"}
WAIT_KEYS = {"tile", "fan", "multiple", "base", "live"}


@pytest.fixture(autouse=True)
def english(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests read the English text output (the language comes from the environment)."""
    monkeypatch.setenv("LC_ALL", "en_US.UTF-8")


def xz(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    rc = main(list(args))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return rc, out, err


def xz_json(capsys: pytest.CaptureFixture[str], *args: str, exit_code: int = 0) -> Any:
    rc, out, err = xz(capsys, *args, "--json")
    assert rc == exit_code, (out, err)
    return json.loads(out)


def toml(tmp_path: Path, text: str, name: str = "house.toml") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


# --- score -------------------------------------------------------------------------------------------


def test_score_json_exact(capsys: pytest.CaptureFixture[str]) -> None:
    assert xz_json(capsys, "score", H, "--win", "5p") == {
        "hu": True,
        "fan": 1,
        "multiple": 1,
        "points": 6,
        "base": "ping_hu",
        "extras": {},
        "split": ["55p", "123m", "456m", "789m", "123p"],
    }


def test_score_interfaces_example_shape(capsys: pytest.CaptureFixture[str]) -> None:
    # A pung of 1m with the fourth 1m in hand: qing_yi_se 3 + gen 1 = 4 fan ×8 = 48 (qq).
    got = xz_json(capsys, "score", "12345678999m", "--peng", "1m", "--win", "9m")
    assert set(got) == SCORE_KEYS
    assert got == {
        "hu": True, "fan": 4, "multiple": 8, "points": 48, "base": "qing_yi_se", "extras": {"gen": 1},
        "split": ["99m", "111m", "123m", "456m", "789m"],
    }


@pytest.mark.parametrize(
    ("args", "base", "extras", "fan", "multiple", "points"),
    [
        # docs/rules.md §6 worked examples through the CLI.
        (["11123777888999p", "--win", "1p"], "qing_yao_jiu", {}, 5, 16, 96),
        (["11222244p557799m", "--win", "1p"], "long_qi_dui", {}, 5, 16, 96),
        (["11222244p557799m", "--win", "1p", "--rules", "chengdu"], "qi_dui", {"gen": 1}, 4, 8, 8),
        (["222555888s88855m", "--win", "5m", "--rules", "chengdu"], "jiang_dui", {}, 5, 8, 8),
        # melds: exposed kong (gen), concealed kong + 杠上花, four pengs (金钩钓 in chengdu)
        (["123m456m789m55p", "--gang", "9p", "--win", "5p"], "ping_hu", {"gen": 1}, 2, 2, 12),
        (["123m456m789m77m", "--angang", "9p", "--win", "7m", "--self-drawn", "--after-kong"],
         "ping_hu", {"gen": 1, "gang_shang_hua": 1}, 3, 4, 30),
        (["123m456m789m77m", "--angang", "9p", "--win", "7m", "--self-drawn", "--after-kong", "--rules", "chengdu"],
         "ping_hu", {"gen": 1, "gang_shang_hua": 1}, 3, 4, 5),
        (["88p", "--peng", "2m", "--peng", "7m", "--peng", "3p", "--peng", "6p", "--win", "8p"],
         "dui_dui_hu", {}, 2, 2, 12),
        (["88p", "--peng", "2m", "--peng", "7m", "--peng", "3p", "--peng", "6p", "--win", "8p", "--rules", "chengdu"],
         "dui_dui_hu", {"jin_gou_diao": 1}, 3, 4, 4),
        (["123m456m789m55p", "--peng", "9p", "--win", "5p"], "ping_hu", {}, 1, 1, 6),
        # context flags
        ([H, "--win", "5p", "--self-drawn"], "ping_hu", {}, 1, 1, 12),
        ([H, "--win", "5p", "--self-drawn", "--rules", "chengdu"], "ping_hu", {}, 1, 1, 2),
        ([H, "--win", "5p", "--after-kong"], "ping_hu", {"gang_shang_pao": 1}, 2, 2, 12),
        (["123456789m11234p", "--win", "3p", "--robbing-kong"], "ping_hu", {}, 1, 1, 6),
        (["123456789m11234p", "--win", "3p", "--robbing-kong", "--rules", "chengdu"],
         "ping_hu", {"qiang_gang_hu": 1}, 2, 2, 2),
        ([H, "--win", "5p", "--last-tile"], "ping_hu", {}, 1, 1, 6),
        ([H, "--win", "5p", "--last-tile", "--rules", "chengdu"], "ping_hu", {"hai_di": 1}, 2, 2, 2),
        ([H, "--win", "5p", "--last-tile", "--self-drawn", "--rules", "chengdu"], "ping_hu", {"hai_di": 1}, 2, 2, 3),
        ([H, "--win", "5p", "--last-copy"], "ping_hu", {}, 1, 1, 6),
        # tian_hu/di_hu: qq 6 fan ×32 = 192 + self-draw bonus 6; chengdu ×8 (cap) + 1.
        ([H, "--win", "5p", "--tian-hu"], "tian_hu", {}, 6, 32, 198),
        ([H, "--win", "5p", "--di-hu", "--self-drawn"], "di_hu", {}, 6, 32, 198),
        ([H, "--win", "5p", "--tian-hu", "--rules", "chengdu"], "tian_hu", {}, 4, 8, 9),
        ([H, "--win", "5p", "--di-hu", "--rules", "chengdu"], "di_hu", {}, 4, 8, 9),
        # --dingque of a suit the hand does not hold
        ([H, "--win", "5p", "--dingque", "s"], "ping_hu", {}, 1, 1, 6),
        ([H, "--win", "5p", "--dingque", "条"], "ping_hu", {}, 1, 1, 6),
        # Chinese suffixes on the command line
        (["123万456万789万123筒55饼", "--win", "5筒"], "ping_hu", {}, 1, 1, 6),
    ],
)
def test_score(
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    base: str,
    extras: dict[str, int],
    fan: int,
    multiple: int,
    points: int,
) -> None:
    got = xz_json(capsys, "score", *args)
    assert set(got) == SCORE_KEYS
    assert got["hu"] is True
    assert (got["base"], got["extras"], got["fan"], got["multiple"], got["points"]) == (
        base, extras, fan, multiple, points,
    )


def test_score_rules_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = toml(tmp_path, 'preset = "qq"\nbase_score = 2\nself_draw_bonus = "fan"\n[fan]\njue_zhang = 1\n')
    # ping_hu 1 + jue_zhang 1 + zi_mo_jia_fan 1 = 3 fan ×4, base 2 → 8 points (no base bonus in "fan" mode).
    got = xz_json(capsys, "score", H, "--win", "5p", "--last-copy", "--self-drawn", "--rules", path)
    assert (got["base"], got["extras"], got["fan"], got["multiple"], got["points"]) == (
        "ping_hu", {"jue_zhang": 1, "zi_mo_jia_fan": 1}, 3, 4, 8,
    )


def test_score_rules_file_chengdu_with_a_bigger_cap(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = toml(tmp_path, 'preset = "chengdu"\ncap_multiple = 16\n')
    # qing_qi_dui 5 + gen 1 = 6 fan ×32, capped at ×16, base 1.
    got = xz_json(capsys, "score", "11224444557799m", "--win", "9m", "--rules", path)
    assert (got["base"], got["fan"], got["multiple"], got["points"]) == ("qing_qi_dui", 6, 16, 16)


def test_score_dingque_off_by_rules_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = toml(tmp_path, "dingque = false\n")
    got = xz_json(capsys, "score", H, "--win", "5p", "--dingque", "p", "--rules", path)
    assert got["hu"] is True and got["base"] == "ping_hu"


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        ([H, "--win", "5p", "--dingque", "p"], "void_suit_tile"),
        ([H, "--win", "5p", "--dingque", "m"], "void_suit_tile"),
        (["123m456m789m55m", "--peng", "1p", "--win", "5m", "--dingque", "p"], "void_suit_tile"),
        (["123m456p789s123p55p", "--win", "5p"], "three_suits"),
        (["123m456m789m55p", "--peng", "1s", "--win", "5p"], "three_suits"),
        (["123m456m789m124p55p", "--win", "5p"], "not_complete"),
        (["123m456m789m124p55p", "--win", "5p", "--rules", "chengdu"], "not_complete"),
    ],
)
def test_score_not_a_win(capsys: pytest.CaptureFixture[str], args: list[str], reason: str) -> None:
    assert xz_json(capsys, "score", *args, exit_code=1) == {"hu": False, "reason": reason}
    rc, out, err = xz(capsys, "score", *args)
    assert rc == 1 and reason in out and err == ""


def test_score_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = xz(capsys, "score", "11224444557799m", "--win", "9m", "--rules", "chengdu")
    assert rc == 0 and err == ""
    assert "pure seven pairs (qing_qi_dui)" in out and "root (gen) +1" in out
    assert "6 fan" in out and "x8" in out and "8 points" in out
    assert "capped" in out
    assert "split:" in out


# --- waits -------------------------------------------------------------------------------------------------


def w(tile: str, fan: int, multiple: int, base: str, live: int) -> dict[str, Any]:
    return {"tile": tile, "fan": fan, "multiple": multiple, "base": base, "live": live}


NINE_GATES_QQ = [
    w("1p", 4, 8, "qing_yi_se", 1),  # 1111p: gen
    *[w(f"{r}p", 3, 4, "qing_yi_se", 3) for r in range(2, 9)],
    w("9p", 4, 8, "qing_yi_se", 1),  # 9999p: gen
]


@pytest.mark.parametrize(
    ("args", "waits"),
    [
        (["1112345678999p"], NINE_GATES_QQ),
        (["1112345678999p", "--rules", "chengdu"], NINE_GATES_QQ),  # all within the ×8 cap
        (["1112345678999p", "--dingque", "m"], NINE_GATES_QQ),
        # 1m and 4m: 11 + four runs, qing_yi_se; 7m also makes seven pairs: qing_qi_dui 5 fan.
        (["1122334455667m"], [w("1m", 3, 4, "qing_yi_se", 2), w("4m", 3, 4, "qing_yi_se", 2),
                              w("7m", 5, 16, "qing_qi_dui", 3)]),
        (["1122334455667m", "--rules", "chengdu"], [w("1m", 3, 4, "qing_yi_se", 2), w("4m", 3, 4, "qing_yi_se", 2),
                                                    w("7m", 5, 8, "qing_qi_dui", 3)]),
        ([H13], [w("5p", 1, 1, "ping_hu", 3)]),
        ([H13, "--dingque", "s"], [w("5p", 1, 1, "ping_hu", 3)]),
        # melds: live counts the copies in melds too; a kong is a gen.
        (["123m456m789m5p", "--peng", "9p"], [w("5p", 1, 1, "ping_hu", 3)]),
        (["123m456m789m5p", "--gang", "9p"], [w("5p", 2, 2, "ping_hu", 3)]),
        (["123m456m789m5p", "--angang", "9p"], [w("5p", 2, 2, "ping_hu", 3)]),
        # 46p waits on 5p, three of which are in the peng: live 1, and the win makes a gen (2 fan).
        (["456m789m46p99p", "--peng", "5p"], [w("5p", 2, 2, "ping_hu", 1)]),
    ],
)
def test_waits(capsys: pytest.CaptureFixture[str], args: list[str], waits: list[dict[str, Any]]) -> None:
    got = xz_json(capsys, "waits", *args)
    assert set(got) == {"ready", "shanten", "waits"}
    assert got == {"ready": True, "shanten": 0, "waits": waits}


@pytest.mark.parametrize(
    ("args", "shanten"),
    [
        # The only wait is a fifth 1p: not a wait at all (docs/interfaces.md §2.2: four copies in the hand).
        (["123m456m789m1111p"], 1),
        # 123m 123m 456p 789s 5p is ready on 5p in shape, but holds three suits.
        (["123m123m456p789s5p"], 3),
        # Void p: every tile is useless; 13 swaps to reach ready.
        (["1112345678999p", "--dingque", "p"], 13),
        ([H13, "--dingque", "p"], 4),
        (["123m456m789m13p59p"], 1),
        # 5p single + a 5p peng: the only wait would be a fifth 5p.
        (["456m789m5p", "--peng", "1m", "--peng", "5p"], 1),
    ],
)
def test_waits_not_ready(capsys: pytest.CaptureFixture[str], args: list[str], shanten: int) -> None:
    assert xz_json(capsys, "waits", *args) == {"ready": False, "shanten": shanten, "waits": []}


@pytest.mark.parametrize("hand", ["2345678m11p", "123m", "123m456m789m123p"])
def test_waits_of_a_short_hand(capsys: pytest.CaptureFixture[str], hand: str) -> None:
    # Fewer than 13 tile-equivalents (as the conformance kit asks): a valid question, never ready.
    got = xz_json(capsys, "waits", hand)
    assert got["ready"] is False and got["waits"] == [] and got["shanten"] >= 1


def test_waits_rules_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = toml(tmp_path, 'preset = "chengdu"\ncap_multiple = 64\n[fan]\nqing_qi_dui = 6\n')
    got = xz_json(capsys, "waits", "1122334455667m", "--rules", path)
    assert got["waits"][-1] == w("7m", 6, 32, "qing_qi_dui", 3)


def test_waits_dingque_off_by_rules_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = toml(tmp_path, "dingque = false\n")
    got = xz_json(capsys, "waits", H13, "--dingque", "p", "--rules", path)
    assert got == {"ready": True, "shanten": 0, "waits": [w("5p", 1, 1, "ping_hu", 3)]}


def test_waits_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = xz(capsys, "waits", "1122334455667m")
    assert rc == 0 and err == ""
    assert "ready on 3 tiles" in out
    assert "7m: pure seven pairs (qing_qi_dui), 5 fan, x16" in out
    rc, out, _ = xz(capsys, "waits", "123m456m789m1111p")
    assert rc == 0 and "not ready (shanten 1)" in out


# --- shanten -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "shanten"),
    [
        ([H], -1),
        ([H13], 0),
        (["123m456m789m123p59p"], 0),  # 14 tiles: discard 9p to be ready
        (["123m456m789m13p59p"], 1),
        (["1133557799m113p"], 0),  # seven pairs only
        (["11335577m992244p"], -1),  # complete seven pairs
        (["123m123m456p789s5p"], 3),  # 4 sets + single in shape, but three suits
        (["123m456m789m5p", "--peng", "9p"], 0),
        (["123m456m789m55p", "--gang", "9p"], -1),
        (["456m789m55p", "--angang", "1m", "--peng", "9p"], -1),
        ([H13, "--dingque", "p"], 4),  # void p: the four p tiles are useless
        ([H13, "--dingque", "s"], 0),
        (["1112345678999p", "--dingque", "p"], 13),
        ([H, "--rules", "chengdu"], -1),
        # Fewer tiles are accepted: 123456789m needs a set and a pair (5 tiles): distance 5, shanten 4.
        (["123m456m789m"], 4),
        # Ready in shape only on a fifth 5p (one in hand, three in the peng): not ready.
        (["456m789m5p", "--peng", "1m", "--peng", "5p"], 1),
        # 14 tiles: discarding 1m leaves the dead 5p wait, discarding 5p a dead 1m wait (1m peng).
        (["1456m789m5p", "--peng", "1m", "--peng", "5p"], 1),
        (["1456m789m5p", "--peng", "2m", "--peng", "5p"], 0),  # discard 5p: 1m single wait is live
    ],
)
def test_shanten(capsys: pytest.CaptureFixture[str], args: list[str], shanten: int) -> None:
    assert xz_json(capsys, "shanten", *args) == {"shanten": shanten}


def test_shanten_rules_file_without_dingque(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = toml(tmp_path, "dingque = false\n")
    assert xz_json(capsys, "shanten", H13, "--dingque", "p", "--rules", path) == {"shanten": 0}


def test_shanten_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = xz(capsys, "shanten", H13)
    assert rc == 0 and err == "" and "shanten 0 (ready)" in out
    rc, out, _ = xz(capsys, "shanten", H)
    assert rc == 0 and "shanten -1 (complete)" in out


# --- bad input: exit 2, message on stderr, JSON error with --json, never a traceback ------------------------


def _bad(capsys: pytest.CaptureFixture[str], args: list[str], code: str, names: str) -> None:
    # --json right after the command, so that it is never taken as an option's value.
    rc, out, err = xz(capsys, args[0], "--json", *args[1:])
    assert rc == 2, (out, err)
    data = json.loads(out)
    assert set(data) == {"error"} and set(data["error"]) == {"code", "message"}
    assert data["error"]["code"] == code
    message = data["error"]["message"]
    assert names in message
    assert message in err and err.startswith("xuezhan: error:")
    # Without --json: the message on stderr only.
    rc, out, err = xz(capsys, *args)
    assert rc == 2 and out == "" and message in err


BAD_HANDS = [
    ("123x", "bad_char", "'x'"),
    ("123m456m789m123p5z5p", "honour_tile", "'z'"),
    ("东南西北", "honour_tile", "'东'"),
    ("0m", "bad_rank", "rank 0"),
    ("123", "missing_suit", "'123'"),
    ("m", "missing_rank", "'m'"),
    ("", "empty", "no tiles"),
    ("11111m", "too_many_copies", "1m"),
]


@pytest.mark.parametrize(("hand", "code", "names"), BAD_HANDS)
@pytest.mark.parametrize("command", ["score", "waits", "shanten"])
def test_bad_tile_strings(capsys: pytest.CaptureFixture[str], command: str, hand: str, code: str, names: str) -> None:
    args = [command, hand] + (["--win", "1m"] if command == "score" else [])
    _bad(capsys, args, code, names)


BAD_COMMON = [
    # bad --dingque suit
    (["--dingque", "x"], "bad_suit", "'x'"),
    (["--dingque", ""], "bad_suit", "''"),
    (["--dingque", "mp"], "bad_suit", "'mp'"),
    # bad melds
    (["--peng", "5x"], "bad_char", "'x'"),
    (["--gang", "55m"], "not_one_tile", "'55m'"),
    (["--angang", "0p"], "bad_rank", "rank 0"),
    # bad rules
    (["--rules", "tenhou"], "unknown_preset", "'tenhou'"),
    (["--rules", "/nonexistent/house.toml"], "rules_file_unreadable", "house.toml"),
]


def _with_hand(command: str, extra: list[str]) -> list[str]:
    if command == "score":
        return ["score", H, "--win", "5p", *extra]
    return [command, H13, *extra]


@pytest.mark.parametrize(("extra", "code", "names"), BAD_COMMON)
@pytest.mark.parametrize("command", ["score", "waits", "shanten"])
def test_bad_options(
    capsys: pytest.CaptureFixture[str], command: str, extra: list[str], code: str, names: str
) -> None:
    _bad(capsys, _with_hand(command, extra), code, names)


BAD_RULES_FILES = [
    ('preset = "qq"\ncap_multiple = \n', "rules_file_syntax"),
    ('preset = "tenhou"\n', "unknown_preset"),
    ("red_fives = true\n", "unknown_option"),
    ('self_draw_bonus = "double"\n', "bad_option"),
    ('hua_zhu_multiple = "cap"\n', "bad_option"),
    ("[fan]\nyakuman = 13\n", "unknown_pattern"),
]


@pytest.mark.parametrize(("text", "code"), BAD_RULES_FILES)
@pytest.mark.parametrize("command", ["score", "waits", "shanten"])
def test_bad_rules_files(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str, text: str, code: str
) -> None:
    path = toml(tmp_path, text)
    _bad(capsys, _with_hand(command, ["--rules", path]), code, "")


@pytest.mark.parametrize("command", ["score", "waits", "shanten"])
def test_rules_file_not_utf8(capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str) -> None:
    path = tmp_path / "latin1.toml"
    path.write_bytes(b"base_score = 2 # \xe9\n")
    _bad(capsys, _with_hand(command, ["--rules", str(path)]), "rules_file_syntax", "latin1.toml")


@pytest.mark.parametrize(
    ("args", "code", "names"),
    [
        # bad --win
        (["score", H, "--win", "5x"], "bad_char", "'x'"),
        (["score", H, "--win", "55p"], "not_one_tile", "'55p'"),
        (["score", H, "--win", "0p"], "bad_rank", "rank 0"),
        (["score", H, "--win", ""], "empty", "no tiles"),
        (["score", H, "--win", "9s"], "win_tile_not_in_hand", "9s"),
        # wrong tile counts
        (["score", H13, "--win", "5p"], "wrong_tile_count", "13"),
        (["score", H + "9p", "--win", "5p"], "wrong_tile_count", "15"),
        (["score", H, "--win", "5p", "--peng", "9s"], "wrong_tile_count", "17"),
        (["score", "123m789m123p55p", "--gang", "5p", "--win", "5p"], "too_many_copies", "5p"),
        # impossible context
        (["score", H, "--win", "5p", "--robbing-kong", "--self-drawn"], "conflicting_context", "robbing"),
        (["score", H, "--win", "5p", "--tian-hu", "--di-hu"], "conflicting_context", "tian_hu"),
        (["score", H, "--win", "5p", "--self-drawn", "--after-kong"], "conflicting_context", "kong"),
        (["waits", H], "wrong_tile_count", "14"),
        (["waits", H13, "--peng", "9s"], "wrong_tile_count", "16"),
        (["waits", "111m456m789m5p", "--peng", "1m"], "too_many_copies", "1m"),
        (["shanten", H + "9p"], "wrong_tile_count", "15"),
        (["shanten", "111m456m789m5p", "--peng", "1m"], "too_many_copies", "1m"),
        # melds that can never win: a peng of the void suit, or melds in three suits
        (["waits", "123m456m789m5p", "--peng", "9p", "--dingque", "p"], "no_winning_hand", "void"),
        (["shanten", "123m456m789m5p", "--peng", "9p", "--dingque", "p"], "no_winning_hand", "void"),
        (["shanten", "123m5p", "--peng", "1m", "--peng", "1p", "--peng", "1s"], "no_winning_hand", "three suits"),
        # usage errors: unknown flag, missing argument or option, missing option value, unknown command
        (["score", H, "--win", "5p", "--bogus"], "usage", "--bogus"),
        (["waits", H13, "--bogus"], "usage", "--bogus"),
        (["shanten", H13, "--self-drawn"], "usage", "--self-drawn"),
        (["score"], "usage", "HAND"),
        (["waits"], "usage", "HAND"),
        (["shanten"], "usage", "HAND"),
        (["score", H], "usage", "--win"),
        (["score", H, "--win"], "usage", "--win"),
        (["waits", H13, "--dingque"], "usage", "--dingque"),
        (["shanten", H13, "--rules"], "usage", "--rules"),
        (["score", H, "--win", "5p", "extra"], "usage", "extra"),
        (["scroe", H], "usage", "scroe"),
    ],
)
def test_bad_input(capsys: pytest.CaptureFixture[str], args: list[str], code: str, names: str) -> None:
    _bad(capsys, args, code, names)


# --- the installed entry point -----------------------------------------------------------------------------


def _python_m(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "xuezhan", *args], capture_output=True, text=True, encoding="utf-8", timeout=60
    )


def test_entry_point_score() -> None:
    p = _python_m("score", "12345678999m", "--peng", "1m", "--win", "9m", "--json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["points"] == 48


def test_entry_point_no_win_and_bad_input() -> None:
    p = _python_m("score", H, "--win", "5p", "--dingque", "p", "--json")
    assert p.returncode == 1
    assert json.loads(p.stdout) == {"hu": False, "reason": "void_suit_tile"}
    p = _python_m("waits", "123x", "--json")
    assert p.returncode == 2
    assert json.loads(p.stdout)["error"]["code"] == "bad_char"
    assert "xuezhan: error:" in p.stderr and "Traceback" not in p.stderr


def test_entry_point_rules_file_and_usage(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_bytes(b"\xff\xfe")
    p = _python_m("shanten", H13, "--rules", str(path), "--json")
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert json.loads(p.stdout)["error"]["code"] == "rules_file_syntax"
    p = _python_m("shanten", "--json", H13, "--nope")
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert json.loads(p.stdout)["error"]["code"] == "usage"
    p = _python_m("--version")
    assert p.returncode == 0 and xuezhan.__version__ in p.stdout
    assert importlib.metadata.version("xuezhan") == xuezhan.__version__  # one version, in pyproject and the package


@pytest.mark.parametrize("args", [["score", H, "--win", "5p", "--json"], ["waits", H13, "--json"],
                                  ["shanten", H13, "--json"], ["score", "1m", "--win", "1m", "--json"]])
def test_the_hand_commands_load_no_engine_bots_or_server(args: list[str]) -> None:
    """A command line imports its own command only: a score, a wait or a bad hand needs no game
    engine, no bot and no server (each would add to every call's start-up)."""
    code = ("import sys; from xuezhan.cli import main; rc = main(sys.argv[1:]); "
            "print([m for m in sys.modules if m.split('.')[:2] in "
            "(['xuezhan', 'engine'], ['xuezhan', 'bots'], ['xuezhan', 'server'], ['xuezhan', 'records'])])")
    run = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=False)
    assert run.stdout.splitlines()[-1] == "[]", run.stdout + run.stderr
    assert json.loads(run.stdout.splitlines()[0])  # the command's own answer came first


def test_help_lists_every_command_and_each_runs_by_its_name() -> None:
    from xuezhan.cli import COMMANDS, cli

    run = subprocess.run([sys.executable, "-m", "xuezhan", "--help"], capture_output=True, text=True, check=False,
                         env={"LC_ALL": "en_US.UTF-8", "PATH": "/usr/bin:/bin"})
    assert run.returncode == 0
    for name in COMMANDS:
        assert f"  {name}" in run.stdout
        command = cli.get_command(click.Context(cli), name)
        assert command is not None and command.name == name
    assert cli.get_command(click.Context(cli), "nonesuch") is None
