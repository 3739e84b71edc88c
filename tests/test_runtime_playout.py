"""The expert's Python play-outs run on the runtime's decision loop, which the runtime hands it:
the bots never import the runtime."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest
from test_import_graph import GRAPH

from xuezhan.bots import Bot, ExpertBot, make_bot
from xuezhan.bots import expert as expert_module
from xuezhan.engine.game import Game
from xuezhan.rules import Rules
from xuezhan.runtime import play_out


def test_no_bot_module_imports_the_runtime() -> None:
    bots = {m: deps for m, deps in GRAPH.items() if m == "xuezhan.bots" or m.startswith("xuezhan.bots.")}
    assert len(bots) >= 5 and "xuezhan.bots.expert" in bots
    found = {m: sorted(d for d in deps if d.startswith("xuezhan.runtime")) for m, deps in bots.items()}
    assert {m: d for m, d in found.items() if d} == {}


def python_expert() -> ExpertBot:
    bot = ExpertBot(random.Random(2), playouts=8)
    bot.native_playouts = False
    return bot


def searched_game() -> tuple[Game, int]:
    """A hand played by the heuristic up to a decision the expert searches."""
    rng = random.Random(11)
    for _ in range(50):
        game = Game.new(Rules.preset("chengdu"), rng=random.Random(rng.getrandbits(32)))
        probe = python_expert()
        while not game.over:
            seat = game.pending()[0]
            legal = game.legal_actions(seat)
            view = game.view(seat)
            if len(probe.candidates(view, legal, probe.policy.choose(view, legal))) > 1:
                return game, seat
            game.apply(probe.policy.choose(view, legal))
    raise AssertionError("no searched decision found")


def test_python_play_outs_run_on_the_loop_the_runtime_gave(monkeypatch: pytest.MonkeyPatch) -> None:
    game, seat = searched_game()
    legal = game.legal_actions(seat)
    want = python_expert().choose(game.view(seat), legal)
    calls: list[int] = []

    def counting(g: Game, bots: Sequence[Bot]) -> None:
        calls.append(len(bots))
        play_out(g, bots)

    monkeypatch.setattr(expert_module, "_play_out", [])
    ExpertBot.use_play_out(counting)
    assert python_expert().choose(game.view(seat), legal) == want  # the same decision, on the given loop
    assert calls and set(calls) == {4}


def test_without_the_runtime_python_play_outs_refuse(monkeypatch: pytest.MonkeyPatch) -> None:
    game, seat = searched_game()
    monkeypatch.setattr(expert_module, "_play_out", [])
    with pytest.raises(RuntimeError, match="decision loop"):
        python_expert().choose(game.view(seat), game.legal_actions(seat))


def test_the_runtime_plays_a_hand_out() -> None:
    game = Game.new(Rules.preset("qq"), rng=random.Random(4))
    play_out(game, [make_bot("heuristic") for _ in range(4)])
    assert game.over
