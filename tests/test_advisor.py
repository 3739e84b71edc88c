"""The advisor (xuezhan.bots.advisor) and the terminal hint built on it: the expert's ranking
of every legal choice with its reasons, as JSON-able data; kongs included."""

from __future__ import annotations

import json
import random
from collections.abc import Callable

from xuezhan import vocab
from xuezhan.bots import HeuristicBot
from xuezhan.bots.advisor import advise, advise_game
from xuezhan.engine import Game
from xuezhan.engine.actions import Action, ActionType
from xuezhan.engine.views import SeatView
from xuezhan.hints import hint_json, hint_lines
from xuezhan.rules import Rules
from xuezhan.vocab import Kind


def find(wanted: Callable[[Game, int, tuple[Action, ...]], bool]) -> tuple[Game, int]:
    """The first position of heuristic self-play (seeds 0, 1, ...) where ``wanted`` holds."""
    bot = HeuristicBot(random.Random(0))
    for seed in range(200):
        game = Game.new(Rules.preset("qq"), seed=seed)
        while not game.over:
            seat = next(s for s in game.pending() if game.legal_actions(s))
            legal = game.legal_actions(seat)
            if wanted(game, seat, legal):
                return game, seat
            game.apply(bot.choose(SeatView(game, seat), legal))
    raise AssertionError("no such position in 200 hands")


def test_a_discard_ranks_every_tile_with_its_reasons() -> None:
    game, seat = find(lambda g, s, legal: g.phase == "turn" and len({a.tile for a in legal}) > 5
                      and not g.seat_state(s).holds_void() and g.live < 45)
    advice = advise_game(game, seat)
    data = json.loads(json.dumps(advice.to_json()))
    legal = game.legal_actions(seat)
    assert data["choice"] == advice.choice.to_json() and advice.choice in legal
    assert data["ranking"][0]["action"] == data["choice"]
    assert sorted(json.dumps(c["action"], sort_keys=True) for c in data["ranking"]) == sorted(
        json.dumps(a.to_json(), sort_keys=True) for a in dict.fromkeys(legal))
    for c in data["ranking"]:
        assert isinstance(c["shanten"], int) and c["live_effective"] >= 0 and c["danger"] >= 0
        if c["shanten"] <= 1:
            assert c["expected_points"] is not None and c["basis"] in ("draws", "playouts")
    assert advise_game(game, seat).to_json() == data  # same seed, same advice
    lines = hint_lines(SeatView(game, seat), legal, "en")
    assert lines[0].startswith("Hint: " + vocab.name(Kind.ACTION, "discard", "en") + " ")
    assert hint_lines(SeatView(game, seat), legal)[0].startswith("提示：" + vocab.name(Kind.ACTION, "discard") + " ")


def test_a_claim_is_searched_and_hinted_in_the_vocabulary_s_words() -> None:
    game, seat = find(lambda g, s, legal: any(a.type is ActionType.PENG for a in legal)
                      and not any(a.type is ActionType.HU for a in legal))
    advice = advise(SeatView(game, seat), game.legal_actions(seat))
    kinds = [c.action.type for c in advice.ranking]
    assert set(kinds) == {a.type for a in game.legal_actions(seat)}
    assert all(c.basis == "playouts" and c.expected_points is not None for c in advice.ranking)
    text = "\n".join(hint_lines(SeatView(game, seat), game.legal_actions(seat), "en"))
    assert vocab.name(Kind.ACTION, "peng", "en") in text and vocab.name(Kind.ACTION, "pass", "en") in text
    assert "expected" in text
    message = hint_json(SeatView(game, seat), game.legal_actions(seat), "zh-TW")
    assert [c["action"] for c in message["choices"]] == [c.action.to_json() for c in advice.ranking]
    assert all(c["reasons"] for c in message["choices"]) and "預計" in "".join(message["lines"])


def test_the_hint_covers_kongs_on_one_s_own_turn() -> None:
    game, seat = find(lambda g, s, legal: g.phase == "turn" and any(a.type is ActionType.GANG for a in legal))
    legal = game.legal_actions(seat)
    advice = advise(SeatView(game, seat), legal)
    gangs = [c for c in advice.ranking if c.action.type is ActionType.GANG]
    assert gangs and all(c.shanten is not None and c.basis == "playouts" for c in gangs)
    text = "\n".join(hint_lines(SeatView(game, seat), legal))
    assert vocab.name(Kind.ACTION, "gang") in text


def test_the_ranking_lists_each_action_once() -> None:
    """Over self-play hands of both presets, at every decision (and with the legal list named
    twice over), the advice, the web hint and the hint's lines never repeat an action."""
    bot = HeuristicBot(random.Random(3))
    decisions = 0
    for preset, seed in (("qq", 5), ("chengdu", 6), ("chengdu", 7)):
        game = Game.new(Rules.preset(preset), seed=seed)
        while not game.over:
            seat = next(s for s in game.pending() if game.legal_actions(s))
            legal = game.legal_actions(seat)
            view = SeatView(game, seat)
            for named in (legal, (*legal, *reversed(legal))):
                advice = advise(view, named, playouts=4)
                actions = [json.dumps(c.action.to_json(), sort_keys=True) for c in advice.ranking]
                assert len(actions) == len(set(actions)), (preset, seed, game.phase, actions)
                assert set(actions) <= {json.dumps(a.to_json(), sort_keys=True) for a in legal}
            decisions += 1
            game.apply(bot.choose(view, legal))
    assert decisions > 100
    game, seat = find(lambda g, s, legal: g.phase == "dingque")
    legal = game.legal_actions(seat)
    message = hint_json(SeatView(game, seat), (*legal, *legal), "en")
    words = [c["words"] for c in message["choices"]]
    assert len(words) == len(set(words)) == len(set(legal))
