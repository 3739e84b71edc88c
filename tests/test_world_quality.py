"""benchmarks/world_quality.py: how close each reading's worlds come to the real hands."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import pytest

from xuezhan.rules import Rules


@pytest.fixture(scope="module")
def quality(load_script: Callable[[str], ModuleType]) -> ModuleType:
    return load_script("benchmarks/world_quality.py")


def test_each_reading_is_measured_against_the_real_hands(quality: ModuleType) -> None:
    out = quality.measure(["uniform", "network", "sees-all", "knows-ready"], 12, Rules.preset("chengdu"), 5, 8)
    assert out["turns"] > 20
    r = out["readings"]
    # the worlds that are the real hands match them exactly
    assert r["sees-all"]["overlap"] == r["sees-all"]["ready"] == r["sees-all"]["waits"] == 1.0
    assert r["sees-all"]["false_ready"] in (0.0, None)
    # the reading network deals hands closer to the real ones than uniform worlds
    assert r["network"]["overlap"] > r["uniform"]["overlap"] > 0.3
    # uniform worlds seldom make a ready opponent ready; an oracle that knows who is ready does
    assert r["uniform"]["ready"] < 0.3 < 0.8 < r["knows-ready"]["ready"]
    bands = r["uniform"]["by_live"]
    assert set(bands) == {"0-9", "10-19", "20-39"}
    late = bands["0-9"]["opponents_ready"] or bands["10-19"]["opponents_ready"]
    assert late is not None and late > bands["10-19"]["worlds_ready"]


def test_the_same_arguments_give_the_same_figures(quality: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--readings", "network", "--hands", "3", "--worlds", "4", "--seed", "9", "--json"]
    one, two = quality.main(args), quality.main(args)
    assert {k: v for k, v in one.items() if k != "seconds"} == {k: v for k, v in two.items() if k != "seconds"}
    # a reading's figures do not depend on which others are measured beside it
    both = quality.main(["--readings", "uniform,network", "--hands", "3", "--worlds", "4", "--seed", "9"])
    assert both["readings"]["network"] == one["readings"]["network"]
    out = capsys.readouterr().out
    assert "overlap" in out and "network" in out


@pytest.mark.parametrize("args", [["--readings", "psychic"], ["--readings", ""], ["--hands", "0"],
                                  ["--worlds", "0"]])
def test_bad_arguments_exit_2(quality: ModuleType, args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        quality.main(args)
    assert exit_.value.code == 2
    assert "Traceback" not in capsys.readouterr().err


def test_an_unknown_preset_is_a_line_and_exit_2(quality: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        quality.main(["--rules", "xx", "--hands", "1"])
    assert exit_.value.code == 2
    assert capsys.readouterr().err.startswith("world_quality.py: unknown_preset: ")
