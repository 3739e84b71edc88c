"""``xuezhan replay`` and ``xuezhan simulate`` (docs/interfaces.md §2.6-2.7): results, errors, determinism.

Most commands run in-process through ``xuezhan.cli.main`` (output read with capsys); a few
run as ``python -m xuezhan`` in a subprocess, as a user would.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from xuezhan.cli import main
from xuezhan.records import parse_record, replay, result_json
from xuezhan.tiles import counts_of, parse_tiles, tile_name

# seat 0 (dealer) discards 5p; seat 1 (123m 456m 789m 55p 11p) wins on it: 555p 11p, ping_hu.
HANDS = [
    "123456789m 5p 678p 9p",
    "123m 456m 789m 55p 11p",
    "123m 456m 789m 2p 4p 5p 9p",
    "9m 1p 2p 3p 4p 6p 7p 8p 55s 999s",
]
DINGQUE = [{"seat": s, "type": "dingque", "suit": "s"} for s in range(4)]
DISCARD_5P = {"seat": 0, "type": "discard", "tile": "5p"}
HU_1 = {"seat": 1, "type": "hu"}


@pytest.fixture(autouse=True)
def english(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests read the English text output (the language comes from the environment)."""
    monkeypatch.setenv("LC_ALL", "en_US.UTF-8")


def wall_for(hands: list[str], head: str = "") -> str:
    """Every tile not in ``hands``, ``head`` first, one tile per word."""
    first = parse_tiles(head) if head else []
    used = counts_of([t for h in hands for t in parse_tiles(h)] + first)
    return " ".join(tile_name(t) for t in first + [t for t in range(27) for _ in range(4 - used[t])])


def a_record(**changes: Any) -> dict[str, Any]:
    rec: dict[str, Any] = {
        "rules": {"preset": "chengdu", "options": {"end_on_first_win": True}},
        "dealer": 0,
        "hands": list(HANDS),
        "wall": wall_for(HANDS),
        "actions": [*DINGQUE, DISCARD_5P, HU_1],
    }
    rec.update(changes)
    return rec


def write(tmp_path: Path, data: Any, name: str = "record.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, Any]:
    code, out, err = run(capsys, *args, "--json")
    assert "Traceback" not in out + err
    return code, json.loads(out)


def python_m(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "xuezhan", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=300, check=False)


# --- replay: results ----------------------------------------------------------------------------------


def test_replay_result_fields(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, res = run_json(capsys, "replay", str(write(tmp_path, a_record())))
    assert code == 0
    assert set(res) >= {"complete", "winners", "ledger", "deltas", "next_dealer", "events"}
    assert res["complete"] is True
    # chengdu, base 1: ping_hu 1 fan ×1 = 1 point from the discarder
    assert len(res["winners"]) == 1
    w = res["winners"][0]
    assert {k: w[k] for k in ("seat", "from", "tile", "fan", "multiple", "order")} == {
        "seat": 1, "from": 0, "tile": "5p", "fan": 1, "multiple": 1, "order": 1}
    assert res["ledger"] == [{"from": 0, "to": 1, "points": 1, "reason": "hu"}]
    assert res["deltas"] == [-1, 1, 0, 0]
    assert res["next_dealer"] == 1  # chengdu: the first winner deals the next hand
    assert isinstance(res["events"], list) and res["events"]
    assert res["events"][-1]["type"] == "end"
    assert all(isinstance(e, dict) and "type" in e for e in res["events"])


def test_replay_self_drawn_win_has_null_from_and_zimo_payments(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    # seat 0 discards 9p, seat 1 draws the last 1p on its first draw and wins: 地胡 (di_hu)
    rec = a_record(wall=wall_for(HANDS, "1p"), actions=[*DINGQUE, {"seat": 0, "type": "discard", "tile": "9p"},
                                                        HU_1])
    rec["rules"] = {"preset": "qq", "options": {"end_on_first_win": True, "dealer_rule": "discarder"}}
    code, res = run_json(capsys, "replay", str(write(tmp_path, rec)))
    assert code == 0 and res["complete"] is True
    (w,) = res["winners"]
    assert (w["seat"], w["from"], w["tile"], w["order"]) == (1, None, "1p", 1)
    # qq: di_hu 6 fan ×32 = 6 × 32 = 192, + the self-draw bonus of one base (6), from every other seat
    assert w["fan"] == 6 and w["multiple"] == 32 and w["base"] == "di_hu"
    assert sorted(e["from"] for e in res["ledger"]) == [0, 2, 3]
    assert all(e == {"from": e["from"], "to": 1, "points": 198, "reason": "zimo"} for e in res["ledger"])
    assert res["deltas"] == [-198, 594, -198, -198]
    assert res["next_dealer"] == 1  # discarder rule, self-drawn win: the winner deals


def test_replay_deltas_are_the_ledger_by_seat(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = a_record(rules="qq", actions=[*DINGQUE, DISCARD_5P, HU_1], autoplay="tsumogiri")
    code, res = run_json(capsys, "replay", str(write(tmp_path, rec)))
    assert code == 0 and res["complete"] is True
    deltas = [0, 0, 0, 0]
    for e in res["ledger"]:
        assert set(e) == {"from", "to", "points", "reason"}
        deltas[e["from"]] -= e["points"]
        deltas[e["to"]] += e["points"]
    assert res["deltas"] == deltas and sum(deltas) == 0
    assert res["winners"][0]["seat"] == 1 and res["winners"][0]["from"] == 0
    assert res["next_dealer"] is None  # qq: the dice choose every dealer


def test_replay_without_autoplay_is_incomplete(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = a_record(actions=[*DINGQUE, DISCARD_5P])
    path = write(tmp_path, rec)
    code, res = run_json(capsys, "replay", str(path))
    assert code == 0
    assert res["complete"] is False
    assert res["winners"] == [] and res["ledger"] == [] and res["deltas"] == [0, 0, 0, 0]
    assert res["next_dealer"] is None
    code, out, err = run(capsys, "replay", str(path))
    assert code == 0 and "complete: false" in out and err == ""


def test_replay_with_autoplay_is_complete(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = a_record(rules="qq", actions=[], autoplay="tsumogiri")
    code, res = run_json(capsys, "replay", str(write(tmp_path, rec)))
    assert code == 0 and res["complete"] is True
    assert res["events"][-1]["type"] == "end"


def test_replay_text_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "replay", str(write(tmp_path, a_record())))
    assert code == 0 and err == ""
    assert out.splitlines() == [
        "seat 1 won on 5筒, discarded by seat 0 (plain win, 1 fan, x1); seat 0 paid 1 point",
        "This hand: seat 0 -1, seat 1 +1, seat 2 +0, seat 3 +0",
        "next dealer: seat 1",
    ]


# --- replay: broken records -------------------------------------------------------------------------------

BROKEN: list[tuple[str, Any, str, str]] = [
    # (id, file content or record changes, error code, text the message must hold)
    ("bad_json", "{ not json", "bad_json", "not valid JSON"),
    ("empty_file", "", "bad_json", "JSON"),
    ("not_an_object", "[1, 2, 3]", "bad_record", "object"),
    ("a_string", '"hello"', "bad_record", "object"),
    ("wrong_tile_count", {"hands": [HANDS[0], "123m 456m 789m 55p 1p", HANDS[2], HANDS[3] + " 1p"]},
     "wrong_tile_count", "hands[1]"),
    ("dealer_hand_short", {"dealer": 1}, "wrong_tile_count", "hands[0]"),
    ("wall_short", {"wall": wall_for(HANDS).rsplit(" ", 1)[0]}, "not_108_tiles", "108"),
    ("fifth_copy", {"wall": wall_for(HANDS).rsplit(" ", 1)[0] + " 5p"}, "not_108_tiles", "108"),
    ("no_wall", {"wall": None}, "bad_record", "wall"),
    ("bad_tile_in_hands", {"hands": ["123456789m 5p 678p 0p", *HANDS[1:]]}, "bad_tiles", "hands[0]"),
    ("unknown_action_type", {"actions": [*DINGQUE, {"seat": 0, "type": "chi"}]}, "unknown_action", "actions[4]"),
    ("bad_tile_in_action", {"actions": [*DINGQUE, {"seat": 0, "type": "discard", "tile": "10m"}]}, "bad_action",
     "actions[4]"),
    ("suitless_tile_in_action", {"actions": [{"seat": 0, "type": "discard", "tile": "5"}]}, "bad_action",
     "actions[0]"),
    ("action_without_tile", {"actions": [{"seat": 0, "type": "discard"}]}, "bad_action", "tile"),
    ("bad_seat_in_action", {"actions": [{"seat": 4, "type": "pass"}]}, "bad_action", "seat"),
    ("actions_not_a_list", {"actions": {"seat": 0}}, "bad_record", "actions"),
    ("unknown_field", {"players": ["a", "b"]}, "unknown_field", "players"),
    ("bad_rules_preset", {"rules": "tokyo"}, "bad_rules", "tokyo"),
    ("bad_rules_option", {"rules": {"preset": "qq", "options": {"no_such_rule": True}}}, "bad_rules",
     "no_such_rule"),
    ("bad_rules_value", {"rules": {"preset": "qq", "options": {"blood_river": "often"}}}, "bad_rules",
     "blood_river"),
    ("bad_dealer", {"dealer": 4}, "bad_dealer", "dealer"),
    ("bad_autoplay", {"autoplay": "always"}, "bad_autoplay", "autoplay"),
    ("illegal_action", {"actions": [*DINGQUE, {"seat": 2, "type": "discard", "tile": "5p"}]}, "illegal_action",
     "actions[4]"),
    ("forced_dingque", {"actions": [{"seat": 0, "type": "dingque", "suit": "m"}]}, "illegal_action",
     "actions[0]"),
    ("action_after_the_end", {"actions": [*DINGQUE, DISCARD_5P, HU_1, {"seat": 2, "type": "pass"}]},
     "actions_after_end", "actions[6]"),
]


@pytest.mark.parametrize(("content", "code", "needle"), [b[1:] for b in BROKEN], ids=[b[0] for b in BROKEN])
def test_replay_broken_record(tmp_path: Path, capsys: pytest.CaptureFixture[str], content: Any, code: str,
                              needle: str) -> None:
    path = write(tmp_path, content if isinstance(content, str) else a_record(**content))
    rc, out, err = run(capsys, "replay", str(path), "--json")
    assert rc == 2
    assert "Traceback" not in out + err
    data = json.loads(out)
    assert set(data) == {"error"} and set(data["error"]) == {"code", "message"}
    assert data["error"]["code"] == code, data
    assert needle in data["error"]["message"], data
    assert data["error"]["message"] in err  # the same message on stderr for people
    # without --json: the message on stderr only, nothing on stdout
    rc, out, err = run(capsys, "replay", str(path))
    assert rc == 2 and out == "" and needle in err and "Traceback" not in err


def test_replay_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope.json"
    rc, out, err = run(capsys, "replay", str(missing), "--json")
    assert rc == 2
    data = json.loads(out)
    assert data["error"]["code"] == "unreadable" and "nope.json" in data["error"]["message"]
    assert "Traceback" not in err
    rc, out, err = run(capsys, "replay", str(tmp_path), "--json")  # a directory
    assert rc == 2 and "error" in json.loads(out)


def test_replay_not_utf8(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"rules": "\xe9"}')
    rc, out, _ = run(capsys, "replay", str(path), "--json")
    assert rc == 2 and json.loads(out)["error"]["code"] == "bad_json"


def test_replay_illegal_action_names_its_index_and_why(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # discarding 4s, a tile seat 0 does not hold, is the 5th action
    rec = a_record(actions=[*DINGQUE, {"seat": 0, "type": "discard", "tile": "4s"}])
    rc, data = run_json(capsys, "replay", str(write(tmp_path, rec)))
    assert rc == 2
    assert data["error"]["code"] == "illegal_action"
    assert "actions[4]" in data["error"]["message"] and "tile_not_in_hand" in data["error"]["message"]


# --- simulate ----------------------------------------------------------------------------------------------


def _stats(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    rc, data = run_json(capsys, "simulate", *args)
    assert rc == 0, data
    assert isinstance(data, dict)
    return data


def test_simulate_json_statistics(capsys: pytest.CaptureFixture[str]) -> None:
    data = _stats(capsys, "--games", "12", "--bots", "random,heuristic,random,heuristic", "--seed", "5")
    assert data["hands"] == 12
    assert data["bots"] == ["random", "heuristic", "random", "heuristic"]
    assert 0.0 <= data["draw_rate"] <= 1.0
    assert [s["seat"] for s in data["by_seat"]] == [0, 1, 2, 3]
    for s in data["by_seat"]:
        assert 0.0 <= s["win_rate"] <= 1.0 and "avg_points" in s and "avg_fan" in s
    # points are zero-sum, so the seats' average points sum to zero
    assert abs(sum(s["avg_points"] for s in data["by_seat"])) < 1e-9
    assert set(data["by_bot"]) == {"random", "heuristic"}
    assert "hands_per_second" in data


def test_simulate_same_seed_same_results(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    outs = []
    stats = []
    for i, seed in enumerate(("7", "7", "8")):
        out = tmp_path / f"hands{i}.jsonl"
        data = _stats(capsys, "--games", "15", "--bots", "random", "--seed", seed, "--out", str(out))
        data.pop("hands_per_second")
        stats.append(data)
        outs.append(out.read_text(encoding="utf-8"))
    assert stats[0] == stats[1]
    assert outs[0] == outs[1]
    assert outs[0] != outs[2]  # another seed, other hands
    assert stats[2]["seed"] == 8


def test_simulate_out_records_replay_to_their_results(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "hands.jsonl"
    rules = tmp_path / "rules.toml"
    rules.write_text('preset = "qq"\nblood_river = true\nexchange_three = "random"\n', encoding="utf-8")
    data = _stats(capsys, "--games", "10", "--bots", "random,random,heuristic,random", "--seed", "3",
                  "--rules", str(rules), "--out", str(out))
    assert data["rules"]["options"] == {"blood_river": True, "exchange_three": "random"}
    lines = out.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 10
    for n, line in enumerate(lines):
        rec = json.loads(line)
        stored = rec["result"]
        assert stored["complete"] is True
        assert set(stored) >= {"complete", "winners", "ledger", "deltas", "next_dealer", "events"}
        game, complete = replay(parse_record(rec))
        assert complete
        assert json.loads(json.dumps(result_json(game, complete))) == stored
        if n < 3:  # and through the command line, from a file without the stored result
            path = write(tmp_path, {k: v for k, v in rec.items() if k != "result"}, f"hand{n}.json")
            rc, res = run_json(capsys, "replay", str(path))
            assert rc == 0 and res == stored


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["--games", "0"], "bad_games"),
        (["--games", "-3"], "bad_games"),
        (["--games", "2", "--bots", "random,heuristic"], "bad_bots"),
        (["--games", "2", "--bots", "random,random,random,random,random"], "bad_bots"),
        (["--games", "2", "--bots", ","], "bad_bots"),
        (["--games", "2", "--bots", "random,random,alphago,random"], "unknown_bot"),
        (["--games", "2", "--bots", "genius"], "unknown_bot"),
        (["--games", "2", "--rules", "tokyo"], "unknown_preset"),
        (["--games", "two"], "usage"),
        (["--bots", "random"], "usage"),
    ],
)
def test_simulate_bad_arguments(capsys: pytest.CaptureFixture[str], args: list[str], code: str) -> None:
    rc, data = run_json(capsys, "simulate", *args)
    assert rc == 2
    assert data["error"]["code"] == code
    assert data["error"]["message"]


def test_simulate_bad_rules_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases = {
        "unknown.toml": ('preset = "qq"\nno_such_rule = 1\n', "unknown_option"),
        "value.toml": ('preset = "qq"\nblood_river = "sometimes"\n', "bad_option"),
        "syntax.toml": ("preset = \n", "rules_file_syntax"),
        "preset.toml": ('preset = "tokyo"\n', "unknown_preset"),
    }
    for name, (text, code) in cases.items():
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        rc, data = run_json(capsys, "simulate", "--games", "1", "--rules", str(path))
        assert rc == 2 and data["error"]["code"] == code, (name, data)
    rc, data = run_json(capsys, "simulate", "--games", "1", "--rules", str(tmp_path / "missing.toml"))
    assert rc == 2 and data["error"]["code"] == "rules_file_unreadable"


def test_simulate_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(capsys, "simulate", "--games", "3", "--bots", "random", "--rules", "chengdu")
    assert rc == 0 and "3 hands" in out and "Traceback" not in err
    assert out.count("seat ") == 4


# --- as a user runs it: python -m xuezhan --------------------------------------------------------------------


def test_subprocess_replay_and_simulate(tmp_path: Path) -> None:
    path = write(tmp_path, a_record())
    proc = python_m("replay", str(path), "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    res = json.loads(proc.stdout)
    assert res["complete"] is True and res["deltas"] == [-1, 1, 0, 0]
    out = tmp_path / "hands.jsonl"
    proc = python_m("simulate", "--games", "4", "--bots", "random", "--seed", "11", "--out", str(out), "--json",
                    cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["hands"] == 4
    assert len(out.read_text(encoding="utf-8").splitlines()) == 4
    assert proc.stderr == ""  # no progress bar when stderr is not a terminal


def test_subprocess_errors_never_show_a_traceback(tmp_path: Path) -> None:
    bad = write(tmp_path, "{ broken", "bad.json")
    illegal = write(tmp_path, a_record(actions=[*DINGQUE, {"seat": 3, "type": "hu"}]), "illegal.json")
    for args, code in (
        (["replay", str(bad), "--json"], "bad_json"),
        (["replay", str(illegal), "--json"], "illegal_action"),
        (["replay", str(tmp_path / "missing.json"), "--json"], "unreadable"),
        (["simulate", "--games", "0", "--json"], "bad_games"),
        (["simulate", "--games", "1", "--bots", "nobody", "--json"], "unknown_bot"),
    ):
        proc = python_m(*args, cwd=tmp_path)
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        assert "Traceback" not in proc.stdout + proc.stderr
        assert json.loads(proc.stdout)["error"]["code"] == code
        assert proc.stderr.strip(), args  # a message for people on stderr
    proc = python_m("replay", str(bad), cwd=tmp_path)
    assert proc.returncode == 2 and proc.stdout == "" and "bad.json" in proc.stderr
