"""The league (xuezhan.league, ``xuezhan league``): statistics on constructed data, duplicate
deals, same seed same league whatever the workers."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from xuezhan.cli import main
from xuezhan.league import BotTally, bradley_terry, paired_ci, play_deal, run_league, summarize
from xuezhan.league.duplicate import ShardResult
from xuezhan.league.stats import t95
from xuezhan.records import record_json
from xuezhan.rules import Rules
from xuezhan.runtime import Seat


def test_paired_ci_of_known_data() -> None:
    ci = paired_ci([1.0, 2.0, 3.0, 4.0, 5.0])
    # mean 3, sample sd sqrt(2.5), t(4) = 2.776
    half = 2.776 * math.sqrt(2.5 / 5)
    assert ci.mean == 3.0
    assert ci.low == pytest.approx(3.0 - half) and ci.high == pytest.approx(3.0 + half)
    assert ci.excludes_zero
    wide = paired_ci([-4.0, 5.0, -3.0, 4.0])
    assert wide.low < 0 < wide.high and not wide.excludes_zero
    assert paired_ci([2.5]).low == paired_ci([2.5]).high == 2.5
    big = paired_ci([float(k % 7) for k in range(100)])
    assert big.high - big.mean == pytest.approx(1.959964 * math.sqrt(
        sum((k % 7 - big.mean) ** 2 for k in range(100)) / 99 / 100))
    with pytest.raises(ValueError):
        paired_ci([])
    assert t95(1) == 12.706 and t95(29) == 2.045 and t95(500) == pytest.approx(1.96, abs=1e-3)


def test_bradley_terry_of_known_results() -> None:
    # a wins 3 of 4; with one virtual game split evenly the odds are 3.5 : 1.5
    r = bradley_terry(["a", "b"], {("a", "b"): (3.0, 4)})
    assert r["a"] - r["b"] == pytest.approx(400 * math.log10(3.5 / 1.5), abs=1e-6)
    assert (r["a"] + r["b"]) / 2 == pytest.approx(1500)
    # a transitive chain keeps its order; an unbeaten bot stays finite
    r3 = bradley_terry(["x", "y", "z"], {("x", "y"): (10.0, 10), ("y", "z"): (7.0, 10), ("x", "z"): (9.0, 10)})
    assert r3["x"] > r3["y"] > r3["z"] and all(math.isfinite(v) for v in r3.values())


def test_summary_of_constructed_shards() -> None:
    t = BotTally(hands=8, points=40, won=3, wins=3, fan=6, qing=1, dealt_in=2, kongs=4)
    parts = [ShardResult({("a", "b"): [1.0, 2.0]}, {"a": t, "b": BotTally(hands=8, points=-40)}),
             ShardResult({("a", "b"): [3.0, -1.0, 5.0]}, {"a": BotTally(hands=2, points=10), "b": BotTally(hands=2)})]
    res = summarize(("a", "b"), 5, 1, Rules.preset("qq"), parts)
    pair = res.pairs[0]
    assert res.diffs[("a", "b")] == [1.0, 2.0, 3.0, -1.0, 5.0]
    assert pair.ci == paired_ci([1.0, 2.0, 3.0, -1.0, 5.0]) and pair.a_deals_won == 4.0
    data = res.to_json()
    assert data["bots"]["a"]["points_per_hand"] == 5.0 and data["bots"]["a"]["hands"] == 10
    assert data["bots"]["a"]["mean_fan"] == 2.0 and data["bots"]["a"]["qing_yi_se_share"] == pytest.approx(1 / 3)
    assert data["bots"]["a"]["deal_in_rate"] == 0.2 and data["bots"]["a"]["kongs_per_hand"] == 0.4
    assert data["bots"]["a"]["rating"] > data["bots"]["b"]["rating"]
    assert data["pairs"][0]["hands"] == 10 and data["bot_faults"] == {"a": 0, "b": 0}


def test_points_by_reason_merge_across_shards_in_the_engine_order() -> None:
    one = BotTally(hands=3, received={"zimo": 6, "hu": 3}, paid={"hu": 2})
    two = BotTally(hands=1, received={"hu": 1, "cha_jiao": 4}, paid={"angang": 8})
    parts = [ShardResult({("a", "b"): [0.0]}, {"a": one, "b": BotTally(hands=3)}),
             ShardResult({("a", "b"): [0.0]}, {"a": two, "b": BotTally(hands=1)})]
    by = summarize(("a", "b"), 2, 1, Rules.preset("qq"), parts).to_json()["bots"]["a"]["points_by_reason"]
    assert list(by) == ["hu", "zimo", "angang", "cha_jiao"]  # the order of xuezhan.ids.Reason
    assert by["hu"] == {"received": 1.0, "paid": 0.5} and by["zimo"] == {"received": 1.5, "paid": 0.0}
    assert by["angang"] == {"received": 0.0, "paid": 2.0} and by["cha_jiao"] == {"received": 1.0, "paid": 0.0}
    assert one.received == {"zimo": 6, "hu": 3}  # the shards' own tallies are left as they were
    one.merge(two)
    assert one.received == {"zimo": 6, "hu": 4, "cha_jiao": 4} and one.paid == {"hu": 2, "angang": 8}


def test_both_seat_patterns_play_the_same_deal() -> None:
    rules = Rules.preset("chengdu")
    g1 = play_deal(9, 4, rules, [Seat.of_bot(n) for n in ("heuristic", "random") * 2])
    g2 = play_deal(9, 4, rules, [Seat.of_bot(n) for n in ("random", "heuristic") * 2])
    r1, r2 = record_json(g1), record_json(g2)
    assert (r1["dealer"], r1["dice"], r1["wall_layout"]) == (r2["dealer"], r2["dice"], r2["wall_layout"])
    assert r1["actions"] != r2["actions"]


def league_json(**kw: Any) -> dict[str, Any]:
    return run_league(["heuristic", "random"], 12, seed=3, rules=Rules.preset("chengdu"), **kw).to_json()


def test_same_seed_same_league_whatever_the_workers() -> None:
    one = league_json()
    assert one == league_json()
    assert league_json(workers=2) == one
    pair = one["pairs"][0]
    assert pair["deals"] == 12 and pair["hands"] == 24
    assert one["bots"]["heuristic"]["hands"] == one["bots"]["random"]["hands"] == 48
    # zero-sum hands: A's and B's points per hand are opposite, and the pair's mean is their difference
    pts = one["bots"]["heuristic"]["points_per_hand"]
    assert one["bots"]["random"]["points_per_hand"] == pytest.approx(-pts)
    assert pair["mean_diff"] == pytest.approx(2 * pts)
    # the points by reason add up to the points; between the two bots what one receives the other pays
    by = {name: one["bots"][name]["points_by_reason"] for name in ("heuristic", "random")}
    assert {"hu", "zimo"} <= set(by["heuristic"])
    for name in by:
        net = sum(r["received"] - r["paid"] for r in by[name].values())
        assert net == pytest.approx(one["bots"][name]["points_per_hand"])
    for reason in set(by["heuristic"]) | set(by["random"]):
        got = sum(by[n].get(reason, {"received": 0.0})["received"] for n in by)
        assert got == pytest.approx(sum(by[n].get(reason, {"paid": 0.0})["paid"] for n in by))
    assert league_json() != run_league(["heuristic", "random"], 12, seed=4, rules=Rules.preset("chengdu")).to_json()


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(list(args))
    out, _ = capsys.readouterr()
    return code, out


def test_league_cli(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    png = tmp_path / "league.png"
    code, out = run(capsys, "league", "--bots", "heuristic,random", "--deals", "3", "--json", "--plot", str(png))
    assert code == 0
    data = json.loads(out)
    assert set(data) >= {"pairs", "bots", "bot_faults"}
    assert set(data["pairs"][0]) >= {"a", "b", "deals", "hands", "mean_diff", "ci95"}
    assert set(data["bots"]["heuristic"]) >= {"rating", "points_per_hand", "win_rate", "deal_in_rate", "mean_fan"}
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    code, out = run(capsys, "league", "--bots", "heuristic,random", "--deals", "2")
    assert code == 0 and "heuristic vs random" in out
    assert "points a hand by reason" in out and "zimo" in out
    for args, err in ((["--bots", "heuristic,nobody", "--deals", "2"], "unknown_bot"),
                      (["--bots", "heuristic", "--deals", "2"], "bad_bots"),
                      (["--bots", "heuristic,heuristic", "--deals", "2"], "bad_bots"),
                      (["--bots", "heuristic,random", "--deals", "0"], "bad_deals"),
                      (["--bots", "heuristic,random", "--deals", "2", "--workers", "0"], "bad_workers")):
        code, out = run(capsys, "league", *args, "--json")
        assert code == 2 and json.loads(out)["error"]["code"] == err
