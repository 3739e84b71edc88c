"""A policy learnt from a dataset (examples/train_imitation.py) sits at a table as ``policy:FILE``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest
from click.testing import CliRunner

from xuezhan.bots import make_bot
from xuezhan.cli import cli
from xuezhan.engine.game import Game
from xuezhan.engine.views import SeatView
from xuezhan.errors import XuezhanError
from xuezhan.rules import Rules


def test_imitation_learns_from_a_dataset_and_the_policy_plays_at_a_table(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], load_script: Callable[[str], ModuleType]) -> None:
    data = tmp_path / "data"
    made = CliRunner().invoke(cli, ["dataset", "--games", "24", "--bots", "heuristic", "--out", str(data)],
                              standalone_mode=False)
    assert made.return_value == 0, made.output
    policy = tmp_path / "imitation.pt"
    example = load_script("examples/train_imitation.py")
    assert example.main([str(data), "--out", str(policy), "--epochs", "3", "--hidden", "64", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["examples"] > 100 and result["held_out_discards"] > 20
    assert 0.0 <= result["discard_top1"] <= 1.0 and result["train_top1"] > 0.35

    bot = make_bot(f"policy:{policy}")
    game = Game.new(Rules.preset("qq"), seed=3)
    for _ in range(40):  # the policy always answers with a legal action
        seat = game.pending()[0]
        legal = game.legal_actions(seat)
        action = bot.choose(SeatView(game, seat), legal)
        assert action in legal
        game.apply(action)
    played = CliRunner().invoke(cli, ["simulate", "--games", "3", "--json", "--bots",
                                      f"policy:{policy},heuristic,random,heuristic"], standalone_mode=False)
    assert played.return_value == 0, played.output
    summary = json.loads(played.output)
    assert summary["hands"] == 3 and summary["bots"][0] == f"policy:{policy}"


def test_a_policy_that_is_not_there_or_not_a_policy_is_bad_input(tmp_path: Path) -> None:
    with pytest.raises(XuezhanError) as exc:
        make_bot(f"policy:{tmp_path / 'missing.pt'}")
    assert exc.value.code == "unreadable"
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"not a policy")
    with pytest.raises(XuezhanError) as exc:
        make_bot(f"policy:{junk}")
    assert exc.value.code == "bad_policy"
    import torch

    other = tmp_path / "other.pt"
    torch.save({"format": "something else"}, str(other))
    with pytest.raises(XuezhanError) as exc:
        make_bot(f"policy:{other}")
    assert exc.value.code == "bad_policy"
