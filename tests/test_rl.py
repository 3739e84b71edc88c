"""The reinforcement-learning environments: the PettingZoo and Gymnasium API tests, hands played
to the end with random masked actions (points, masks), and observations that hold nothing the
seat may not see, on both engines (the compiled core against the Python engine, step by step:
``test_rl_native.py``)."""

from __future__ import annotations

import itertools
import random
import warnings
from typing import Any

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test

from xuezhan import rl
from xuezhan.encoding import OBS_FIELDS, OBS_SIZE, ObservationCache
from xuezhan.engine.actions import Action, ActionType, action_index
from xuezhan.engine.deal import Deal
from xuezhan.engine.game import Game
from xuezhan.engine.views import SeatView, seat_view_json, visible_events
from xuezhan.errors import IllegalActionError, XuezhanError
from xuezhan.native import NativeGame
from xuezhan.rl.table import NativeTable, load_rules
from xuezhan.rules import Rules

BLOOD_EXCHANGE = Rules.preset("qq").with_options({"exchange_three": "clockwise", "blood_river": True})
RULES: list[Any] = ["qq", "chengdu", BLOOD_EXCHANGE]
ENGINES = ["python", "native"]


def _legal_indices(game: Game | NativeGame, seat: int) -> set[int]:
    return {action_index(a) for a in game.legal_actions(seat)}


def _applied(game: Game | NativeGame) -> int:
    """How many actions the hand has applied."""
    return game.action_count if isinstance(game, Game) else game.step


def _mask_indices(mask: np.ndarray[Any, Any]) -> set[int]:
    assert mask.dtype == np.int8
    return {int(i) for i in np.flatnonzero(mask)}


# --- the library API tests --------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_the_aec_env_passes_the_pettingzoo_api_test(engine: str) -> None:
    env = rl.env(seed=1, render_mode="ansi", engine=engine)
    assert env.engine == engine
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the dict observation (as in PettingZoo's own classic envs)
        api_test(env, num_cycles=300)


@pytest.mark.parametrize("engine", ENGINES)
def test_the_parallel_env_passes_the_pettingzoo_parallel_api_test(engine: str) -> None:
    parallel_api_test(rl.parallel_env(seed=2, engine=engine), num_cycles=300)


@pytest.mark.parametrize(("engine", "opponents"), [("python", "heuristic"), ("native", "random")])
def test_the_single_seat_env_passes_the_gymnasium_env_checker(engine: str, opponents: str) -> None:
    env = rl.single_agent_env(opponents=opponents, seed=3, render_mode="ansi", engine=engine)
    assert env.engine == engine
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # no render fps, no registered spec
        check_env(env)


# --- hands to the end -------------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("rules", RULES, ids=["qq", "chengdu", "blood_exchange"])
def test_aec_hands_with_random_masked_actions_pay_the_points_and_mask_exactly_the_legal_actions(
        rules: Any, engine: str) -> None:
    env = rl.env(rules=rules, engine=engine)
    rng = random.Random(7)
    for seed in range(4):
        env.reset(seed=seed)
        game = env.table.game
        total = dict.fromkeys(env.possible_agents, 0.0)
        steps = 0
        for agent in env.agent_iter(max_iter=5000):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            for other in env.agents:  # every seat's mask is exactly its legal actions now
                seat = env.possible_agents.index(other)
                assert _mask_indices(env.observe(other)["action_mask"]) == _legal_indices(game, seat)
            assert game.legal_actions(env.possible_agents.index(agent))
            env.step(rng.choice(sorted(_mask_indices(obs["action_mask"]))))
            steps += 1
            assert sum(env.rewards.values()) == 0
            for a, r in env.rewards.items():
                total[a] += r
        assert game.over and not env.agents and steps > 10
        assert [total[a] for a in env.possible_agents] == env.table.deltas()
        assert sum(total.values()) == 0


@pytest.mark.parametrize("engine", ENGINES)
def test_parallel_hands_with_random_masked_actions_pay_the_points(engine: str) -> None:
    env = rl.parallel_env(rules=BLOOD_EXCHANGE, engine=engine)
    for seed in range(4):
        obs, _ = env.reset(seed=seed)
        game = env.table.game
        total = dict.fromkeys(env.possible_agents, 0.0)
        simultaneous = 0
        while env.agents:
            for a in env.agents:
                assert _mask_indices(obs[a]["action_mask"]) == _legal_indices(game, env.possible_agents.index(a))
            deciding = [a for a in env.agents if obs[a]["action_mask"].any()]
            simultaneous = max(simultaneous, len(deciding))
            actions = {a: env.action_space(a).sample(mask=obs[a]["action_mask"]) for a in env.agents}
            obs, rew, _, _, _ = env.step(actions)
            assert sum(rew.values()) == 0
            for a, r in rew.items():
                total[a] += r
        assert simultaneous == 4  # 换三张 and 定缺: all four at once
        assert [total[a] for a in env.possible_agents] == env.table.deltas()


@pytest.mark.parametrize(("engine", "opponents"), [("python", ["random", "heuristic", "heuristic"]),
                                                   ("native", ["random"] * 3)])
def test_the_single_seat_env_plays_hands_against_bots_for_the_seats_points(engine: str, opponents: list[str]) -> None:
    env = rl.single_agent_env(opponents=opponents, rules="chengdu", seat=2, engine=engine)
    rng = random.Random(5)
    for seed in range(4):
        obs, _ = env.reset(seed=seed)
        game = env.table.game
        total = 0.0
        done = False
        while not done:
            assert _mask_indices(obs["action_mask"]) == _legal_indices(game, 2)
            assert set(np.flatnonzero(env.action_masks())) == _legal_indices(game, 2)
            obs, r, done, _, info = env.step(rng.choice(sorted(_mask_indices(obs["action_mask"]))))
            assert info["illegal_action"] is False
            total += r
        assert total == env.table.deltas()[2]


@pytest.mark.parametrize(("engine", "opponents"), [("python", "heuristic"), ("native", "random")])
def test_an_illegal_action_in_the_single_seat_env_is_taken_by_the_stand_in(engine: str, opponents: str) -> None:
    env = rl.single_agent_env(opponents=opponents, seed=11, engine=engine)
    obs, _ = env.reset()
    illegal = next(i for i in range(rl.ACTION_SPACE_SIZE) if not obs["action_mask"][i])
    game = env.table.game
    before = _applied(game)
    _, _, _, _, info = env.step(illegal)
    assert info["illegal_action"] is True
    assert _applied(game) > before


@pytest.mark.parametrize("engine", ENGINES)
def test_an_illegal_action_in_the_aec_env_is_refused_and_changes_nothing(engine: str) -> None:
    env = rl.env(seed=4, engine=engine)
    env.reset()
    obs = env.observe(env.agent_selection)
    illegal = next(i for i in range(rl.ACTION_SPACE_SIZE) if not obs["action_mask"][i])
    before = _applied(env.table.game)
    with pytest.raises(IllegalActionError) as info:
        env.step(illegal)
    assert info.value.code == "illegal_action"
    assert _applied(env.table.game) == before


@pytest.mark.parametrize("engine", ENGINES)
def test_the_same_seed_deals_the_same_hand_and_the_next_reset_the_next_one(engine: str) -> None:
    a, b = rl.env(seed=9, engine=engine), rl.env(engine=engine)
    a.reset()
    b.reset(seed=9)
    assert a.table.view(0).to_json() == b.table.view(0).to_json()
    a.reset()
    b.reset(seed=10)
    assert a.table.view(1).to_json() == b.table.view(1).to_json()
    c = rl.single_agent_env(opponents="random", seed=9, engine=engine)
    first, _ = c.reset()
    again, _ = c.reset(seed=9)
    assert np.array_equal(first["observation"], again["observation"])


def test_bad_arguments_are_refused_with_a_code() -> None:
    with pytest.raises(XuezhanError) as exc:
        rl.single_agent_env(opponents="nobody")
    assert exc.value.code == "unknown_bot"
    with pytest.raises(XuezhanError) as exc:
        rl.env(render_mode="human")
    assert exc.value.code == "bad_input"
    with pytest.raises(XuezhanError) as exc:
        rl.single_agent_env(opponents=["random", "random"])
    assert exc.value.code == "bad_bots"


@pytest.mark.parametrize("engine", ENGINES)
def test_render_ansi_shows_the_table_as_text(engine: str) -> None:
    env = rl.single_agent_env(opponents="random", seed=1, render_mode="ansi", engine=engine)
    env.reset()
    text = env.render()
    assert isinstance(text, str) and "seat 0" in text and "seat 3" in text and "wall 55" in text
    assert "?" * 13 in text  # another seat's concealed hand, face down


# --- the encoding -------------------------------------------------------------------------------------


def _random_game(rules: Rules, seed: int, steps: int) -> Game:
    game = Game.new(rules, rng=random.Random(seed))
    rng = random.Random(seed + 1)
    for _ in range(steps):
        if game.over:
            break
        seat = game.pending()[0]
        game.apply(rng.choice(game.legal_actions(seat)))
    return game


def test_the_batch_encoder_stacks_the_single_encodings_and_the_layout_is_whole() -> None:
    games = [_random_game(BLOOD_EXCHANGE, s, n) for s, n in enumerate((1, 5, 12, 20, 30, 40))]
    views = [SeatView(g, g.pending()[0]) for g in games]
    batch = rl.encode_batch(views)
    assert batch.shape == (6, OBS_SIZE) and batch.dtype == np.float32
    for i, v in enumerate(views):
        assert np.array_equal(batch[i], rl.encode(v))
    assert rl.encode_batch([]).shape == (0, OBS_SIZE)
    legals = [g.legal_actions(v.seat) for g, v in zip(games, views, strict=True)]
    masks = rl.mask_batch(legals)
    assert masks.shape == (6, rl.ACTION_SPACE_SIZE) and masks.dtype == np.int8
    for i, legal in enumerate(legals):
        assert np.array_equal(masks[i], rl.action_mask(legal)) and masks[i].sum() == len(legal) > 0
    offsets = sorted(OBS_FIELDS.values())
    assert offsets[0][0] == 0 and all(a + n == b for (a, n), (b, _) in itertools.pairwise(offsets))
    assert offsets[-1][0] + offsets[-1][1] == OBS_SIZE


_KEEN = frozenset({ActionType.HU, ActionType.GANG, ActionType.PENG})


@pytest.mark.parametrize("rules", RULES, ids=["qq", "chengdu", "blood_exchange"])
def test_the_kept_observations_equal_the_encoding_from_scratch_at_every_step(rules: Any) -> None:
    """Random hands that take wins, kongs and pengs when they can and now and then lose a seat to
    an escape; after every action some seats (a random few, so that several events pile up
    between two looks) compare their kept observation with the one encoded from the view."""
    rules = load_rules(rules)
    rng = random.Random(29)
    compared = 0
    kinds: set[str] = set()
    for _ in range(100):
        game = Game.new(rules, rng=random.Random(rng.getrandbits(64)))
        cache = ObservationCache()
        while not game.over:
            seat = game.pending()[0]
            legal = game.legal_actions(seat)
            keen = [a for a in legal if a.type in _KEEN]
            if game.can_escape(seat) and rng.random() < 0.003:
                game.apply(Action(seat, ActionType.ESCAPE))
            else:
                game.apply(rng.choice(keen) if keen and rng.random() < 0.7 else rng.choice(legal))
            for observer in rng.sample(range(4), rng.randint(1, 4)):
                kept = cache.observe(game, observer)
                assert np.array_equal(kept, rl.encode(SeatView(game, observer))), (observer, game.events[-1])
                compared += 1
        for observer in range(4):
            assert np.array_equal(cache.observe(game, observer), rl.encode(SeatView(game, observer)))
        kinds.update(str(ev["type"]) for ev in game.events)
    assert compared > 1000
    assert {"discard", "peng", "hu", "angang", "bugang", "zhigang", "escape", "end"} <= kinds


@pytest.mark.parametrize("engine", ENGINES)
def test_the_aec_env_observes_what_the_encoder_gives_at_every_step(engine: str) -> None:
    env = rl.env(rules=BLOOD_EXCHANGE, seed=11, engine=engine)
    rng = random.Random(3)
    for _ in range(3):
        env.reset()
        for agent in env.agent_iter(max_iter=5000):
            obs, _, term, trunc, _ = env.last()
            seat = env.possible_agents.index(agent)
            assert np.array_equal(obs["observation"], rl.encode(env.table.view(seat)))
            assert _mask_indices(obs["action_mask"]) == _legal_indices(env.table.game, seat)
            env.step(None if term or trunc else rng.choice(sorted(_mask_indices(obs["action_mask"]))))


def test_the_encoding_reads_the_seats_own_hand_and_the_rivers_in_order() -> None:
    game = _random_game(Rules.preset("qq"), 5, 60)
    for seat in range(4):
        view = SeatView(game, seat)
        obs = rl.encode(view)
        at, n = OBS_FIELDS["hand"]
        assert list(obs[at : at + n]) == view.counts
        for k in range(4):
            other = (seat + k) % 4
            at, n = OBS_FIELDS[f"s{k}_river_order"]
            order = [abs(int(x)) - 1 for x in obs[at : at + n] if x]
            assert order == view.river(other)
            at, _ = OBS_FIELDS[f"s{k}_points"]
            assert obs[at] == game.deltas()[other]


def _hidden_swap(game: Game, rng: random.Random) -> Deal | None:
    """A deal where one tile first dealt to seat ``j`` trades places with a tile of the wall."""
    deal = game.deal
    j = rng.randrange(4)
    hands = [list(h) for h in deal.hands]
    wall = list(deal.wall)
    p = rng.randrange(len(hands[j]))
    q = rng.randrange(len(wall))
    if hands[j][p] == wall[q]:
        return None
    hands[j][p], wall[q] = wall[q], hands[j][p]
    return Deal(hands=tuple(tuple(h) for h in hands), wall=tuple(wall))


def _replayed(rules: Rules, deal: Deal, game: Game, actions: list[Action]) -> Game | None:
    copy = Game(rules, deal, game.dealer, exchange_direction=game.exchange_direction)
    try:
        for a in actions:
            copy.apply(a)
    except IllegalActionError:
        return None
    return copy


def _native_observation(rules: Rules, deal: Deal, game: Game, actions: list[Action], seat: int) -> tuple[bytes, bytes]:
    """The observation and the mask of ``seat`` the compiled core writes after ``actions`` from ``deal``."""
    table = NativeTable(rules, learners=range(4), opponents={})
    table.start(deal, game.dealer, game.exchange_direction)
    for a in actions:
        table.step(a.seat, action_index(a))
    obs = table.observation(seat)
    return obs["observation"].tobytes(), obs["action_mask"].tobytes()


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("rules", [Rules.preset("qq"), BLOOD_EXCHANGE], ids=["qq", "blood_exchange"])
def test_no_observation_holds_a_tile_the_seat_may_not_see(rules: Rules, engine: str) -> None:
    """Another seat's concealed tiles and the wall are shuffled (one dealt tile trades places with
    a wall tile) where the seat cannot tell: its observation must not change (the Python encoder's,
    or the one the compiled core writes from its own replay of the hands)."""
    rng = random.Random(13)
    checked = 0
    for seed in range(6):
        full = _random_game(rules, seed, 400)
        actions = list(full.actions)
        for cut in sorted(rng.sample(range(1, len(actions)), 4)):
            original = _replayed(rules, full.deal, full, actions[:cut])
            assert original is not None
            for _ in range(12):
                deal = _hidden_swap(full, rng)
                if deal is None:
                    continue
                copy = _replayed(rules, deal, full, actions[:cut])
                if copy is None:
                    continue
                hidden_differs = copy.live_wall != original.live_wall or any(
                    copy.seat_state(s).hand != original.seat_state(s).hand for s in range(4))
                if not hidden_differs:
                    continue
                for seat in range(4):
                    same_sight = (visible_events(copy, seat) == visible_events(original, seat)
                                  and seat_view_json(copy, seat) == seat_view_json(original, seat))
                    if not same_sight:
                        continue  # the seat can tell the copy apart (it drew or saw the tile)
                    if engine == "native":
                        seen = _native_observation(rules, deal, full, actions[:cut], seat)
                        assert seen == _native_observation(rules, full.deal, full, actions[:cut], seat)
                        assert seen[0] == rl.encode(SeatView(copy, seat)).tobytes()  # and the encoder's
                    else:
                        assert np.array_equal(rl.encode(SeatView(copy, seat)), rl.encode(SeatView(original, seat)))
                        assert np.array_equal(rl.action_mask(copy.legal_actions(seat)),
                                              rl.action_mask(original.legal_actions(seat)))
                    checked += 1
    assert checked > 50


@pytest.mark.parametrize("engine", ENGINES)
def test_an_illegal_answer_in_the_parallel_env_is_refused_before_any_answer_is_applied(engine: str) -> None:
    env = rl.parallel_env(seed=6, engine=engine)
    obs, _ = env.reset()
    deciding = [a for a in env.agents if obs[a]["action_mask"].any()]
    assert len(deciding) == 4  # 定缺: everyone at once
    actions = {a: int(np.flatnonzero(obs[a]["action_mask"])[0]) for a in env.agents}
    last = deciding[-1]
    actions[last] = next(i for i in range(rl.ACTION_SPACE_SIZE) if not obs[last]["action_mask"][i])
    before = _applied(env.table.game)
    with pytest.raises(IllegalActionError):
        env.step(actions)
    assert _applied(env.table.game) == before
    with pytest.raises(XuezhanError) as exc:
        env.step({a: actions[a] for a in deciding[:-1]})
    assert exc.value.code == "bad_action"


def test_an_outside_bot_opponent_keeps_running_from_hand_to_hand() -> None:
    import shlex
    import sys

    name = f"cmd:{shlex.quote(sys.executable)} -m xuezhan bot stdio --bot heuristic"
    outside = rl.single_agent_env(opponents=[name, "heuristic", "heuristic"], seed=21)
    inside = rl.single_agent_env(opponents="heuristic", seed=21)
    bot = outside.table.seats[1].bot
    for _ in range(2):
        a, _ = outside.reset()
        b, _ = inside.reset()
        done = False
        while not done:
            assert np.array_equal(a["observation"], b["observation"])
            step = int(np.flatnonzero(a["action_mask"])[-1])
            a, ra, done, _, _ = outside.step(step)
            b, rb, done_b, _, _ = inside.step(step)
            assert ra == rb and done == done_b
    assert outside.table.seats[1].bot is bot and getattr(bot, "faults", None) == 0
