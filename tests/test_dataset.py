"""``xuezhan dataset``: one Parquet row per decision, exactly the records' decisions, read back whole."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from xuezhan import __version__, native, rl
from xuezhan.cli import cli
from xuezhan.encoding import ENCODING_VERSION
from xuezhan.engine.actions import Action, action_index
from xuezhan.engine.views import SeatView
from xuezhan.errors import XuezhanError
from xuezhan.records import parse_record
from xuezhan.rl.dataset import make_dataset, read_dataset, read_manifest, record_id_of


def _run(out: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    args = ["dataset", "--games", "5", "--bots", "heuristic,random,heuristic,random", "--out", str(out),
            "--shard-hands", "3", "--seed", "4", "--json", *extra]
    result = CliRunner().invoke(cli, args, standalone_mode=False)
    return result.return_value, json.loads(result.output.splitlines()[-1])


def _dataset(out: Path, *extra: str) -> dict[str, Any]:
    rc, summary = _run(out, *extra)
    assert rc == 0, summary
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
            records[record_id_of(rec)] = rec
    return records


def test_the_rows_of_each_hand_are_the_decisions_of_its_record(made: tuple[Path, dict[str, Any]]) -> None:
    out, summary = made
    df = pd.read_parquet(out, ignore_prefixes=[".", "_", "manifest"])  # as docs/training.md reads it
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


def test_rewards_add_up_to_the_points_and_next_row_links_each_seats_decisions(
        made: tuple[Path, dict[str, Any]]) -> None:
    out, _ = made
    table = read_dataset(out)  # next_row counted over the whole dataset
    df = table.select(["record_id", "step", "seat", "points", "reward", "done", "next_row"]).to_pandas()
    records = _records(out)
    assert len(df) > 20 and df["done"].sum() == 4 * len(records) and (df["reward"] != 0).any()
    for rid, rows in df.groupby("record_id", sort=False):
        rec = records[str(rid)]
        parsed = parse_record(rec)
        game = parsed.new_game()
        for seat in range(4):
            mine = rows[rows["seat"] == seat]
            assert mine["reward"].sum() == rec["result"]["deltas"][seat] == mine["points"].iloc[0]
            assert list(mine["next_row"]) == [*mine.index[1:], -1]
            assert list(mine["done"]) == [False] * (len(mine) - 1) + [True]
        latest = [-1, -1, -1, -1]
        expected: dict[int, int] = {}
        for (at, row), act in zip(rows.iterrows(), parsed.actions, strict=True):
            latest[act.seat] = int(at)
            expected[int(at)] = 0
            before = game.deltas()
            game.apply(act)
            for seat, (a, b) in enumerate(zip(before, game.deltas(), strict=True)):
                if b != a:  # what a step pays goes to each seat's latest decision
                    assert latest[seat] >= 0
                    expected[latest[seat]] += b - a
            nxt = int(row["next_row"])
            if nxt >= 0:
                assert df.loc[nxt, "seat"] == row["seat"] and df.loc[nxt, "record_id"] == rid
                assert df.loc[nxt, "step"] > row["step"]
        assert {at: float(r) for at, r in rows["reward"].items()} == expected


def test_the_records_replay_with_xuezhan_replay(made: tuple[Path, dict[str, Any]]) -> None:
    out, _ = made
    first = sorted((out / "_records").glob("*.jsonl"))[0]
    lines = first.read_text(encoding="utf-8").splitlines()
    for hand, line in enumerate(lines, start=1):
        result = CliRunner().invoke(cli, ["replay", str(first), "--hand", str(hand), "--json"])
        assert result.exit_code == 0, result.output
        assert json.loads(result.output)["deltas"] == json.loads(line)["result"]["deltas"]


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
        parsed = parse_record(rec)  # a record as xuezhan replay reads it, whole
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


def test_the_manifest_says_what_the_run_was(made: tuple[Path, dict[str, Any]]) -> None:
    out, summary = made
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest == read_manifest(out)
    assert manifest["seed"] == 4 and manifest["bots"] == ["heuristic", "random", "heuristic", "random"]
    assert manifest["rules"] == {"preset": "qq", "options": {}} and manifest["games"] == 5
    assert manifest["xuezhan_version"] == __version__ and manifest["encoding_version"] == ENCODING_VERSION
    rows = [s["rows"] for s in manifest["shards"]]
    assert manifest["shards"] == [
        {"file": "shard-00000.parquet", "records": "_records/shard-00000.jsonl", "hands": 3, "rows": rows[0]},
        {"file": "shard-00001.parquet", "records": "_records/shard-00001.jsonl", "hands": 2, "rows": rows[1]},
    ]
    assert sum(rows) == manifest["rows"] == summary["rows"] == read_dataset(out).num_rows
    for entry in manifest["shards"]:
        assert (out / entry["file"]).is_file() and (out / entry["records"]).is_file()


def test_a_folder_holding_another_run_is_refused_unless_overwrite(
        made: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    out = tmp_path / "mixed"
    shutil.copytree(made[0], out)
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    args = ["--games", "2", "--shard-hands", "1", "--seed", "9"]  # would write shard 0 and 1 over the others
    rc, answer = _run(out, *args)
    assert (rc, answer["error"]["code"]) == (2, "dataset_exists")
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == before  # nothing touched
    rc, summary = _run(out, *args, "--overwrite")
    assert rc == 0 and summary["games"] == 2
    assert sorted(p.name for p in out.glob("shard-*")) == ["shard-00000.parquet", "shard-00001.parquet"]
    assert len(list((out / "_records").iterdir())) == 2 and (out / "notes.txt").read_text(encoding="utf-8") == "mine"
    table = read_dataset(out)
    assert table.num_rows == summary["rows"] == read_manifest(out)["rows"]
    assert {rid.split(":")[1] for rid in table.column("record_id").to_pylist()} <= {"1", "2"}


def test_reading_a_folder_that_is_not_its_manifests_is_bad_dataset(
        made: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    def broken(change: Any) -> str:
        out = tmp_path / f"case{len(list(tmp_path.iterdir()))}"
        shutil.copytree(made[0], out)
        change(out)
        with pytest.raises(XuezhanError) as err:
            read_dataset(out)
        return err.value.code

    assert broken(lambda out: (out / "manifest.json").unlink()) == "bad_dataset"
    assert broken(lambda out: (out / "manifest.json").write_text("{", encoding="utf-8")) == "bad_dataset"
    assert broken(lambda out: (out / "shard-00001.parquet").unlink()) == "bad_dataset"
    assert broken(lambda out: shutil.copy(out / "shard-00001.parquet", out / "shard-00002.parquet")) == "bad_dataset"
    assert broken(lambda out: shutil.copy(out / "shard-00000.parquet", out / "shard-00001.parquet")) == "bad_dataset"

    def other_seed(out: Path) -> None:
        manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
        (out / "manifest.json").write_text(json.dumps({**manifest, "seed": 5}), encoding="utf-8")

    assert broken(other_seed) == "bad_dataset"
    # and the same folder, untouched, reads
    assert read_dataset(made[0]).num_rows == made[1]["rows"]
