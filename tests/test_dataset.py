"""``xuezhan dataset``: one Parquet row per decision, exactly the records' decisions, read back whole."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from xuezhan import native, rl
from xuezhan.cli import cli
from xuezhan.engine.actions import Action, action_index
from xuezhan.engine.views import SeatView
from xuezhan.records import parse_record
from xuezhan.rl.dataset import make_dataset, read_dataset


def _dataset(out: Path, *extra: str) -> dict[str, Any]:
    args = ["dataset", "--games", "5", "--bots", "heuristic,random,heuristic,random", "--out", str(out),
            "--shard-hands", "3", "--seed", "4", "--json", *extra]
    result = CliRunner().invoke(cli, args, standalone_mode=False)
    assert result.return_value == 0, result.output
    summary: dict[str, Any] = json.loads(result.output)
    return summary


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    out = tmp_path_factory.mktemp("data") / "ds"
    return out, _dataset(out)


def _records(out: Path) -> dict[str, dict[str, Any]]:
    records = {}
    for f in sorted((out / "_records").glob("*.jsonl")):
        for line in f.read_text(encoding="utf-8").splitlines():
            rec = json.loads(line)
            records[rec["id"]] = rec
    return records


def test_the_rows_of_each_hand_are_the_decisions_of_its_record(made: tuple[Path, dict[str, Any]]) -> None:
    out, summary = made
    df = pd.read_parquet(out)
    records = _records(out)
    assert summary["games"] == 5 and summary["shards"] == 2 and len(records) == 5
    assert summary["bot_faults"] == {"heuristic": 0, "random": 0}
    assert summary["rows"] == len(df) == sum(len(r["actions"]) for r in records.values())
    for rid, rows in df.groupby("record_id", sort=False):
        rec = records[str(rid)]
        assert list(rows["step"]) == list(range(len(rec["actions"])))
        for (_, row), act in zip(rows.iterrows(), rec["actions"], strict=True):
            assert row["seat"] == act["seat"]
            assert row["action"] == action_index(Action.from_json(act))
            assert row["action_mask"][row["action"]] == 1 and row["action_mask"].sum() == row["legal_count"]
            assert row["points"] == rec["result"]["deltas"][act["seat"]]
            assert row["bot"] == ["heuristic", "random"][act["seat"] % 2]


def test_the_observations_read_back_are_the_seats_views_replayed_from_the_records(
        made: tuple[Path, dict[str, Any]]) -> None:
    out, _ = made
    table = read_dataset(out)
    meta = json.loads(table.schema.metadata[b"xuezhan"])
    assert meta["obs_fields"]["hand"] == [0, 27] and meta["action_space"] == rl.ACTION_SPACE_SIZE
    obs = np.asarray(table.column("observation").combine_chunks().flatten()).reshape(-1, rl.OBS_SIZE)
    masks = np.asarray(table.column("action_mask").combine_chunks().flatten()).reshape(-1, rl.ACTION_SPACE_SIZE)
    assert obs.dtype == np.float32 and masks.dtype == np.int8
    ids = table.column("record_id").to_pylist()
    records = _records(out)
    i = 0
    for rid in dict.fromkeys(ids):
        rec = records[rid]
        parsed = parse_record({k: v for k, v in rec.items() if k not in ("id", "result")})
        game = parsed.new_game()
        for act in parsed.actions:
            assert np.array_equal(obs[i], rl.encode(SeatView(game, act.seat)))
            assert np.array_equal(masks[i], rl.action_mask(game.legal_actions(act.seat)))
            game.apply(act)
            i += 1
        assert game.deltas() == rec["result"]["deltas"]
    assert i == len(obs)


def test_the_same_seed_makes_the_same_dataset_whatever_the_workers(
        made: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    out, _ = made
    again = tmp_path / "again"
    summary = _dataset(again, "--workers", "2")
    assert summary["workers"] == 2 and summary["rows"] == made[1]["rows"]
    assert read_dataset(again).equals(read_dataset(out))
    assert _records(again) == _records(out)


def test_the_python_engine_writes_the_rows_the_compiled_core_writes(
        made: tuple[Path, dict[str, Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out, _ = made  # replayed on the compiled core (built for the tests)
    monkeypatch.setattr(native, "_core", None)
    monkeypatch.setattr(native, "_IMPORT_ERROR", "No module named 'xuezhan.native._core'")
    again = tmp_path / "python"
    _dataset(again)
    assert read_dataset(again).equals(read_dataset(out))


def test_the_ray_backend_writes_the_same_dataset(made: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    out, _ = made
    again = tmp_path / "ray"
    # as _dataset makes it, on a local Ray cluster of 2 CPUs (the Python API: Ray writes its own lines on the terminal)
    results = make_dataset(again, 5, ["heuristic", "random", "heuristic", "random"], seed=4, shard_hands=3,
                           workers=2, backend="ray")
    assert [r.shard for r in results] == [0, 1] and sum(r.rows for r in results) == made[1]["rows"]
    assert read_dataset(again).equals(read_dataset(out))
    assert _records(again) == _records(out)


def test_bad_dataset_arguments_are_bad_input(tmp_path: Path) -> None:
    a_file = tmp_path / "file"
    a_file.write_text("x", encoding="utf-8")
    for args, code in ((["--games", "0"], "bad_games"), (["--games", "1", "--workers", "0"], "bad_workers"),
                       (["--games", "1", "--bots", "nobody"], "unknown_bot"),
                       (["--games", "1", "--out", str(a_file / "sub")], "unwritable")):
        if "--out" not in args:
            args = [*args, "--out", str(tmp_path / "ds")]
        result = CliRunner().invoke(cli, ["dataset", *args, "--json"], standalone_mode=False)
        assert result.return_value == 2, args
        assert json.loads(result.output.splitlines()[-1])["error"]["code"] == code
