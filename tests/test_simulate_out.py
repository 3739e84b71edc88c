"""``xuezhan simulate --out``: the records stream out shard by shard, byte for byte as they were
written when every record was kept until the end, on both engines, any workers, both backends."""

from __future__ import annotations

import hashlib
import io
import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from xuezhan.cli import main
from xuezhan.jsontext import json_line
from xuezhan.match import Hand, hand_record
from xuezhan.rules import Rules
from xuezhan.scale import Shard
from xuezhan.selfplay import Stats, simulate

# SHA-256 of the --out file and of the --json summary (without hands_per_second, keys sorted) as
# `simulate` wrote them when it kept every record until the end of the run (revision a5b8809).
BEFORE: dict[str, tuple[str, str]] = {
    "--games 450 --engine native --seed 0": (
        "4defbae4fd34c1b255e334e61f15c2d803e97d958fc4239f7e709383304dd4e3",
        "97fa962019fa21a6bf6d3a747418529f1160fd4df7269280ae0b78dac0a82d12"),
    "--games 450 --engine native --seed 5 --rules chengdu --bots random,heuristic,random,heuristic --workers 2": (
        "44b8644029c56be98bc35b57495675110e2d493b051003f37e73bfcaf24b0239",
        "07cc0115c5d16418ed755f453402eb30901255f688a376fbea9496a49d4c85bd"),
    "--games 5 --engine native --seed 1180591620717411303424": (
        "ba8b1035f053fbb297af7fd762c98514a39ceafc1e79f3f36e701fcd2920c54b",
        "d72f801b4298ba8545fa9a9bafddbc96bfb4bfbdade6a4e30f30ba7a0e6bebe2"),
    "--games 3 --engine native --seed -3 --bots random": (
        "85e465eeceb50f59f22cdd568192e25ac8ef64d8c3c20f8533ffacf2fba050b3",
        "531b9a4d4b381b9d7caccb092e3eb9bf70954c402d3e020e25b43fdf9c95e172"),
    "--games 12 --engine python --bots random --seed 3": (
        "f631ee36af979a31ddf68eb1fdfccb79094553d7b5ec811a89137798dec6e81e",
        "e68f5368524698e0ea957da351ea3e7fe86d0d455ea75b6a14844773ddf4f31c"),
    "--games 12 --engine python --bots random --seed 3 --workers 2": (
        "f631ee36af979a31ddf68eb1fdfccb79094553d7b5ec811a89137798dec6e81e",
        "e68f5368524698e0ea957da351ea3e7fe86d0d455ea75b6a14844773ddf4f31c"),
    "--games 4 --engine python --bots heuristic --seed 11 --rules chengdu": (
        "d682cbbf2e4ac9585ad2447ef6c74eb8757372bb20433eb21f48b4bcac1ee5f0",
        "4f2f58bc728cac9648362d8548d411d36eed419c914c0dc27612583f31a37560"),
    # expert-0.4 plays as `expert` did then: the same records; the summary names the bot
    "--games 6 --bots random,expert-0.4,random,heuristic --seed 2": (
        "1d1b1ddde6785cd9e6b157326067be094f9b8eb462a7d0a9eba026712c257644",
        "5713fba9d37cac854d3f4c6ae5d241e92151e99d833db91321e9878838bf1fff"),
}


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def run_out(capsys: pytest.CaptureFixture[str], tmp_path: Path, args: list[str]) -> tuple[bytes, dict[str, Any]]:
    """The --out file and the --json summary (without its speed) of ``simulate ARGS``."""
    path = tmp_path / "out.jsonl"
    assert main(["simulate", *args, "--out", str(path), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    summary.pop("hands_per_second")
    return path.read_bytes(), summary


@pytest.mark.parametrize("args", list(BEFORE), ids=list(BEFORE))
def test_out_and_summary_are_those_written_before(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                  args: str) -> None:
    data, summary = run_out(capsys, tmp_path, args.split())
    assert data.endswith(b"\n") and len(data.splitlines()) == summary["hands"]
    assert (sha256(data), sha256(json.dumps(summary, sort_keys=True).encode())) == BEFORE[args]


def test_ray_writes_the_same_bytes(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    same = "--games 12 --engine python --bots random --seed 3"
    data, summary = run_out(capsys, tmp_path, [*same.split(), "--workers", "2", "--backend", "ray"])
    assert (sha256(data), sha256(json.dumps(summary, sort_keys=True).encode())) == BEFORE[same]


def reference(games: int, bots: list[str], seed: int, rules: Rules, shard_hands: int) -> bytes:
    """The records as the Python engine plays them in this process, each written by ``json_line``."""
    lines: list[str] = []

    def keep(hand: Hand) -> None:
        lines.append(json_line(hand_record(hand)) + "\n")

    simulate(games, bots, seed=seed, rules=rules, on_hand=keep, shard_hands=shard_hands)
    return "".join(lines).encode("utf-8")


@pytest.mark.parametrize(("engine", "workers"), [("python", 1), ("python", 2), ("native", 1), ("native", 2)])
def test_out_is_json_line_of_every_record_in_order(engine: str, workers: int) -> None:
    rules = Rules.preset("chengdu")
    want = reference(23, ["random"] * 4, 17, rules, shard_hands=5)
    sink = io.BytesIO()
    stats = simulate(23, ["random"] * 4, seed=17, rules=rules, shard_hands=5, workers=workers, engine=engine, out=sink)
    assert sink.getvalue() == want
    assert stats.hands == 23 and stats.records == []  # nothing of them is kept


class Sink(io.BytesIO):
    """A file that notes each write among the shards' ends."""

    def __init__(self, log: list[tuple[str, int]]) -> None:
        super().__init__()
        self.log = log

    def write(self, data: Any) -> int:
        self.log.append(("write", len(bytes(data).splitlines())))
        return super().write(data)


@pytest.mark.parametrize("workers", [1, 2])
def test_each_shard_is_written_as_it_comes(workers: int) -> None:
    log: list[tuple[str, int]] = []

    def done(shard: Shard, part: Stats) -> None:
        log.append(("done", shard.index))

    simulate(40, ["random"] * 4, seed=3, shard_hands=4, workers=workers, engine="native", out=Sink(log),
             on_shard=done)
    writes = [n for kind, n in log if kind == "write"]
    assert writes == [4] * 10  # one write a shard, in order, each with its shard's records
    first = log.index(("write", 4))
    assert sum(kind == "done" for kind, _ in log[:first]) <= 2 * workers  # not all played before writing


class Null(io.BytesIO):
    """A file that forgets what it is given."""

    def write(self, data: Any) -> int:
        return len(bytes(data))


def test_memory_does_not_grow_with_the_hands() -> None:
    def peak(games: int) -> int:
        tracemalloc.start()
        try:
            simulate(games, ["random"] * 4, seed=1, shard_hands=25, engine="native", out=Null())
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    peak(5)  # what is loaded once
    small, large = peak(100), peak(600)
    assert large < 1.3 * small, (small, large)
