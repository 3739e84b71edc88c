"""The worlds of the expert's search dealt in the compiled core (``xz_deal_world``,
:func:`xuezhan.native.search_worlds`) against the Python loop they replace.

Differential: at decisions of seeded hands under mixes of the options of docs/rules.md §14, every
legal action's expected points (:meth:`ExpertBot.expected_points`) come out the same, number for
number, whether the worlds are dealt in C or by :func:`~xuezhan.engine.views.sample_world`: uniform
worlds (``expert-0.4``), worlds weighted by the reading network, ready worlds at a win on a
discard, claim and robbing windows, other seats' face-down kongs. World by world, a deal with given
hands (a ready world) and the deal that falls back when they do not fit leave the generator where
the Python loop leaves it.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from test_native import _VALUES, _build

from xuezhan.bots import expert
from xuezhan.bots.expert import Expert04Bot, ExpertBot
from xuezhan.bots.heuristic import HeuristicBot
from xuezhan.bots.reading import BUILD_TRIES
from xuezhan.engine.actions import Action, ActionType
from xuezhan.engine.deal import random_deal
from xuezhan.engine.game import Game
from xuezhan.engine.views import SeatView, sample_world, world_deal
from xuezhan.errors import XuezhanError
from xuezhan.native import QUICK_BOTS, play_outs, playout_state, search_worlds
from xuezhan.rules import Rules


def _decisions(rng: random.Random, hands: int, rate: float) -> list[tuple[Game, int]]:
    """Copies of hands stopped at a share ``rate`` of their decisions with a choice, and the seat deciding;
    some hands with bystanders (叫马), whose tiles the seat does not see either."""
    out: list[tuple[Game, int]] = []
    bot = HeuristicBot(random.Random(0))
    for _ in range(hands):
        options: dict[str, Any] = {k: rng.choice(v) for k, v in _VALUES.items() if rng.random() < 0.4}
        rules = _build(rng.choice(("qq", "chengdu")), options) or Rules.preset("qq")
        dealer = rng.randrange(4)
        direction = rng.choice((1, 2, 3)) if rules.exchange_three == "random" else None
        game = Game(rules, random_deal(random.Random(rng.getrandbits(64)), dealer), dealer,
                    exchange_direction=direction, bystanders=rng.choice((0, 0, 1, 2)))  # 叫马: tiles off the wall
        while not game.over:
            seat = next(s for s in game.pending() if game.legal_actions(s))
            legal = game.legal_actions(seat)
            if len(legal) > 1 and rng.random() < rate:
                out.append((game.copy(), seat))
            game.apply(bot.choose(game.view(seat), legal) if rng.random() < 0.9 else rng.choice(legal))
    return out


def _robbing_windows(rng: random.Random, wanted: int) -> list[tuple[Game, int]]:
    """Hands of four heuristic seats stopped where a seat may rob an added kong (about one hand in a
    hundred), ``wanted`` of them."""
    out: list[tuple[Game, int]] = []
    bot = HeuristicBot(random.Random(0))
    while len(out) < wanted:
        game = Game.new(Rules.preset(rng.choice(("qq", "chengdu"))), rng=random.Random(rng.getrandbits(64)))
        while not game.over:
            seat = next(s for s in game.pending() if game.legal_actions(s))
            legal = game.legal_actions(seat)
            if game.phase == "rob":
                out.append((game.copy(), seat))
                break
            game.apply(bot.choose(game.view(seat), legal))
    return out


def _hidden_kong(view: SeatView) -> bool:
    return any(view.hidden_kongs(o) for o in range(4) if o != view.seat)


def test_the_core_deals_the_worlds_of_the_python_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    kinds: Counter[str] = Counter()
    calls = Counter[bool]()

    def spy(*args: Any, **kwargs: Any) -> list[tuple[int, ...]]:
        calls[bool(kwargs.get("hands", args[9] if len(args) > 9 else None))] += 1
        return search_worlds(*args, **kwargs)

    monkeypatch.setattr(expert, "search_worlds", spy)
    for game, seat in [*_decisions(random.Random(31), 70, 0.08), *_robbing_windows(random.Random(34), 3)]:
        view, legal = game.view(seat), game.legal_actions(seat)
        for cls in (ExpertBot, Expert04Bot):
            bot = cls(random.Random(seat))
            bot.start_hand(len(game.state.actions))
            assert world_deal(view) is not None
            fast = bot.expected_points(view, legal, 48)
            with monkeypatch.context() as m:
                m.setattr(cls, "core_worlds", False)
                slow = bot.expected_points(view, legal, 48)
            assert fast == slow, (cls.name, game.phase, legal)
            if cls is ExpertBot:
                kinds["ready"] += bool(bot.ready_chances(view, legal))
                kinds["weighted"] += bot.world_weights(view) is not None
        kinds[str(game.phase)] += 1
        kinds["hidden kong"] += _hidden_kong(view)
        kinds["bystanders"] += bool(game.bystander_tiles)
    for kind in ("turn", "claim", "rob", "ready", "weighted", "hidden kong", "bystanders"):
        assert kinds[kind] > 0, (kind, kinds)
    assert calls[False] > 100 and calls[True] > 0  # the core dealt the worlds, ready ones with built hands too


def _python_world(view: SeatView, rng: random.Random, visible: list[int], weights: list[list[float]] | None,
                  hands: dict[int, list[int]], check: list[int]) -> Game:
    """``ExpertBot.ready_world``'s loop, and the plain deal its ``None`` falls back to."""
    world: Game | None = None
    for _ in range(BUILD_TRIES):
        try:
            world = sample_world(view, rng, visible, weights, hands)
        except ValueError:
            return sample_world(view, rng, visible, weights)
        if not any(world.is_ready(o) for o in check):
            return world
    assert world is not None
    return world


def test_a_world_with_given_hands_is_the_python_loops_draw_for_draw() -> None:
    """Given hands that fit, hands that do not (a tile too many: the plain deal instead), and the
    check of the seats that must not be ready; the generator ends where the Python loop's does."""
    fitted = misfit = 0
    bot = ExpertBot(random.Random(0))
    for game, seat in _decisions(random.Random(32), 30, 0.05):
        view = game.view(seat)
        if None in view.voids():
            continue
        visible = view.visible_counts()
        weights = bot.world_weights(view)
        deal = world_deal(view, visible, weights)
        assert deal is not None
        world, words, rates = deal
        state = playout_state(world)
        assert state is not None
        others = [o for o in range(4) if o != seat and view.shown_counts(o) is None and not view.hidden_kongs(o)]
        if not others:
            continue
        rng = random.Random(len(game.state.actions))
        chances = {o: (0.7, set[int]()) for o in others}
        hands = bot.ready_hands(view, rng, visible, chances)
        if hands and rng.random() < 0.3:  # one tile too many: sample_world refuses the hand
            o = next(iter(hands))
            hands[o] = list(hands[o])
            hands[o][next(t for t in range(27) if visible[t] < 4)] += 1
            misfit += 1
        else:
            fitted += bool(hands)
        check = [o for o in others if o not in hands]
        mirror = random.Random()
        mirror.setstate(rng.getstate())
        actions: list[Action | None] = [None, *game.legal_actions(seat)[:2]]
        rows = search_worlds(world, state, words, rates, rng, 1, 3, actions, QUICK_BOTS, hands, check, BUILD_TRIES)
        expected = _python_world(view, mirror, visible, weights, hands, check)
        seeds = [0, *(mirror.getrandbits(64) | 1 for _ in range(2))]
        deltas = play_outs(expected, playout_state(expected) or b"", actions, QUICK_BOTS, seeds)
        assert rows == [tuple(sum(d[seat] for d in deltas[k :: len(actions)]) for k in range(len(actions)))]
        assert rng.getstate() == mirror.getstate()
    assert fitted > 5 and misfit > 2


def test_a_deal_the_core_cannot_read_is_refused() -> None:
    game = Game.new(Rules.preset("qq"), rng=random.Random(4))
    view = game.view(0)
    deal = world_deal(view)
    assert deal is not None
    world, words, rates = deal
    state = playout_state(world)
    assert state is not None
    rng = random.Random(1)
    before = rng.getstate()
    bad_words = [
        words[:-1],  # a word short
        [5, *words[1:]],  # no such seat
        [*words[:3], 5, *words[4:]],  # five copies of a tile
        [*words[:3], *([0] * 27), *words[30:]],  # no unseen tile for the hidden hands
    ]
    for bad in bad_words:
        with pytest.raises(XuezhanError) as info:
            search_worlds(world, state, bad, rates, rng, 2, 1, [None])
        assert info.value.code == "bad_batch"
    with pytest.raises(XuezhanError) as info:
        search_worlds(world, state, words, [1.0] * 5, rng, 2, 1, [None])  # rates of no seat
    assert info.value.code == "bad_batch"
    with pytest.raises(XuezhanError) as info:
        search_worlds(world, state, words, [float("nan")] * 81, rng, 2, 1, [None])
    assert info.value.code == "bad_batch"
    with pytest.raises(XuezhanError) as info:
        search_worlds(world, state, words, rates, rng, 2, 1, [Action(1, ActionType.DISCARD, tile=0)])
    assert info.value.code == "bad_batch"
    with pytest.raises(XuezhanError) as info:  # a hand for the seat itself, which the deal does not deal
        search_worlds(world, state, words, rates, rng, 2, 1, [None], QUICK_BOTS, {0: [0] * 27})
    assert info.value.code == "bad_batch"
    with pytest.raises(XuezhanError) as info:  # a hand of five copies
        search_worlds(world, state, words, rates, rng, 2, 1, [None], QUICK_BOTS, {1: [5] + [0] * 26})
    assert info.value.code == "bad_batch"
    assert rng.getstate() == before  # nothing drawn from a refused search
    assert len(search_worlds(world, state, words, rates, rng, 2, 1, [None])) == 2


def test_a_world_the_core_does_not_deal_is_the_python_loops() -> None:
    """An escaped seat (the core has no escapes): no deal, the expert searches in Python."""
    game = Game.new(Rules.preset("qq"), rng=random.Random(3))
    game.apply(Action(2, ActionType.ESCAPE))
    view = game.view(0)
    assert world_deal(view) is None
    bot = ExpertBot(random.Random(0))
    assert bot.core_search(view, game.legal_actions(0), random.Random(0), 2, view.visible_counts(), None,
                           bot.playout_codes(0)) is None
