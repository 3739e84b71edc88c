"""Scale-out (xuezhan.scale): shards by the seed range only, the same summary whatever the
workers and backend (in-process, local processes, a local Ray cluster)."""

from __future__ import annotations

import json
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from xuezhan.cli import main
from xuezhan.errors import XuezhanError
from xuezhan.match import hand_record
from xuezhan.records import record_json
from xuezhan.rules import Rules
from xuezhan.scale import Shard, iter_shards, map_shards, shards
from xuezhan.selfplay import simulate

BOTS = ["heuristic", "random", "heuristic", "random"]


def summary(workers: int, backend: str = "local", **kw: Any) -> dict[str, Any]:
    stats = simulate(10, BOTS, seed=5, rules=Rules.preset("chengdu"), rotate=True, workers=workers,
                     backend=backend, shard_hands=3, keep_records=True, **kw)
    data = stats.to_json()
    data.pop("hands_per_second")
    data["records"] = stats.records
    return data


def square_sum(shard: Shard) -> int:
    return sum(k * k for k in shard)


def test_shards_cover_the_range_in_order() -> None:
    parts = shards(10, 4)
    assert [(p.index, p.start, p.stop) for p in parts] == [(0, 0, 4), (1, 4, 8), (2, 8, 10)]
    assert [k for p in parts for k in p] == list(range(10))
    assert shards(0, 4) == ()
    with pytest.raises(ValueError):
        shards(5, 0)


def test_map_shards_returns_in_shard_order_and_reports_each() -> None:
    parts = shards(50, 7)
    seen: list[int] = []
    got = map_shards(square_sum, parts, workers=2, on_done=lambda shard, r: seen.append(shard.index))
    assert got == [square_sum(p) for p in parts]
    assert sorted(seen) == list(range(len(parts)))


@pytest.mark.parametrize("workers", [1, 2])
def test_iter_shards_hands_over_in_order_with_few_shards_ahead(workers: int) -> None:
    parts = shards(60, 3)
    finished: list[int] = []
    got = []
    with closing(iter_shards(square_sum, parts, workers=workers, ahead=3,
                             on_done=lambda shard, r: finished.append(shard.index))) as results:
        for k, result in enumerate(results):
            assert len(finished) <= k + 3  # never more than `ahead` shards played and not yet taken
            got.append(result)
    assert got == [square_sum(p) for p in parts]


@dataclass(frozen=True)
class Mark:
    """A shard's work that leaves a file behind (seen from any process)."""

    folder: Path

    def __call__(self, shard: Shard) -> int:
        (self.folder / str(shard.index)).touch()
        return shard.index


def test_iter_shards_stops_when_closed(tmp_path: Path) -> None:
    parts = shards(60, 3)
    results = iter_shards(Mark(tmp_path), parts, workers=2, ahead=2)
    assert next(results) == 0
    results.close()  # the shards not started are cancelled; the pool is shut down
    assert len(list(tmp_path.iterdir())) <= 3 < len(parts)
    with pytest.raises(ValueError):
        iter_shards(square_sum, parts, ahead=0)


@pytest.mark.parametrize(("workers", "backend"), [(0, "local"), (2, "cluster")])
def test_bad_workers_or_backend(workers: int, backend: str) -> None:
    with pytest.raises(XuezhanError) as err:
        map_shards(square_sum, shards(3, 1), workers=workers, backend=backend)
    assert err.value.code == ("bad_workers" if workers < 1 else "bad_backend")


def test_one_and_two_workers_same_summary_and_records() -> None:
    one = summary(1)
    assert one["hands"] == 10 and len(one["records"]) == 10
    two = summary(2)
    assert two == one
    # the hands are those of one match seeded 5: hand k from hand_seed(5, k)
    assert [r["match"]["hand_no"] for r in one["records"]] == list(range(1, 11))


def test_on_hand_sees_the_same_hands_as_the_workers() -> None:
    seen: list[dict[str, Any]] = []
    stats = simulate(10, BOTS, seed=5, rules=Rules.preset("chengdu"), rotate=True, shard_hands=3,
                     on_hand=lambda hand: seen.append(hand_record(hand)))
    assert [record_json_of(r) for r in seen] == [record_json_of(r) for r in summary(2)["records"]]
    assert stats.hands == 10
    with pytest.raises(ValueError):
        simulate(2, BOTS, workers=2, on_hand=lambda hand: None)


def record_json_of(record: dict[str, Any]) -> str:
    return json.dumps(record, sort_keys=True)


def test_ray_backend_same_summary() -> None:
    assert summary(2, "ray") == summary(1)


def test_simulate_cli_workers(capsys: pytest.CaptureFixture[str]) -> None:
    outs = []
    for extra in ([], ["--workers", "2"]):
        code = main(["simulate", "--games", "4", "--bots", "random", "--seed", "3", "--json", *extra])
        out, _ = capsys.readouterr()
        assert code == 0
        data = json.loads(out)
        data.pop("hands_per_second")
        outs.append(data)
    assert outs[0] == outs[1]
    code = main(["simulate", "--games", "4", "--workers", "0", "--json"])
    out, _ = capsys.readouterr()
    assert code == 2 and json.loads(out)["error"]["code"] == "bad_workers"
    code = main(["simulate", "--games", "4", "--backend", "spark", "--json"])
    out, _ = capsys.readouterr()
    assert code == 2 and json.loads(out)["error"]["code"] == "bad_backend"


def test_records_are_replayable() -> None:
    from xuezhan.records import parse_record, replay

    for rec in summary(2)["records"][:3]:
        game, complete = replay(parse_record(rec))
        assert complete and record_json(game)["actions"] == rec["actions"]
