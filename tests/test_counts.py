"""Counts of what is legal, pinned, as chess engines pin perft: any change in what is legal
shows up here.

- perft: from fixed positions (a seeded deal, or a seeded deal after some uniformly chosen
  actions), the number of distinct sequences of legal actions of a given length. At each
  step the seat that acts is the first of ``Game.pending()`` (during 定缺 and claim windows
  several seats may act; the first one answers first).
- action kinds: the number of actions of each kind over 10,000 hands (2,500 under each of
  four rule sets) played by the random bot through ``selfplay.play_hand`` (hand seed
  ``i * 100000 + k``), whose choice is a hash of its hand seed and ``view.step``.

When a change of the rules makes a count move on purpose, recount and say why in the commit.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from xuezhan.bots import make_bot
from xuezhan.engine.game import Game
from xuezhan.rules import Rules
from xuezhan.selfplay import play_hand


def perft(game: Game, depth: int) -> int:
    if depth == 0 or game.over:
        return 1
    total = 0
    for action in game.legal_actions(game.pending()[0]):
        child = game.copy()
        child.apply(action)
        total += perft(child, depth - 1)
    return total


def position(rules: Rules, seed: int, actions: int) -> Game:
    """The seeded deal after ``actions`` actions chosen uniformly with ``random.Random(seed)``."""
    rng = random.Random(seed)
    game = Game.new(rules, seed=seed)
    while not game.over and game.action_count < actions:
        legal = game.legal_actions(game.pending()[0])
        game.apply(legal[rng.randrange(len(legal))])
    assert game.action_count == actions
    return game


@pytest.mark.parametrize(
    ("preset", "options", "seed", "actions", "depth", "count"),
    [
        ("qq", {}, 1, 0, 8, 24936),
        ("qq", {}, 2, 0, 8, 14585),
        ("chengdu", {}, 3, 0, 8, 19753),
        ("qq", {"dingque": False}, 1, 0, 4, 23170),
        ("qq", {"exchange_three": "opposite"}, 2, 0, 3, 4914),
        ("qq", {}, 5, 40, 4, 1134),
        ("chengdu", {"blood_river": True}, 6, 60, 4, 2965),
    ],
)
def test_perft(preset: str, options: dict[str, Any], seed: int, actions: int, depth: int, count: int) -> None:
    game = position(Rules.preset(preset).with_options(options), seed, actions)
    assert perft(game, depth) == count


@pytest.mark.parametrize(
    ("index", "preset", "options", "counts"),
    [
        (0, "qq", {},
         {"dingque": 10000, "discard": 149163, "gang": 1309, "hu": 149, "pass": 10274, "peng": 10006}),
        (1, "chengdu", {},
         {"dingque": 10000, "discard": 149263, "gang": 1363, "hu": 187, "pass": 9984, "peng": 10141}),
        (2, "qq", {"exchange_three": "clockwise", "blood_river": True},
         {"dingque": 10000, "discard": 149257, "exchange": 10000, "gang": 1536, "hu": 264, "pass": 10493,
          "peng": 10287}),
        (3, "chengdu", {"dingque": False, "kong_draw_from_tail": True},
         {"discard": 149544, "gang": 925, "hu": 16, "pass": 10002, "peng": 10037}),
    ],
)
def test_action_kinds_over_random_hands(index: int, preset: str, options: dict[str, Any],
                                        counts: dict[str, int]) -> None:
    rules = Rules.preset(preset).with_options(options)
    seen: Counter[str] = Counter()
    for k in range(2500):
        seed = index * 100000 + k
        game = Game.new(rules, seed=seed)
        play_hand(game, [make_bot("random", random.Random(0)) for _ in range(4)], seed=seed)
        assert game.over
        seen.update(str(a.type) for a in game.actions)
    assert dict(sorted(seen.items())) == counts
