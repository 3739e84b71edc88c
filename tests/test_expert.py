"""The expert (determinized Monte-Carlo search): it never reads what its seat cannot see,
and it decides the same for the same seed."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

import pytest

from xuezhan.bots import BOTS, Expert04Bot, ExpertBot, HeuristicBot, make_bot
from xuezhan.bots.expert import PLAYOUTS_0_4, Chances, Evaluation, HandValue, ReadingExpertBot
from xuezhan.engine import Game, sample_world, seat_view_json
from xuezhan.engine.actions import Action, ActionType
from xuezhan.engine.views import SeatView
from xuezhan.rules import Rules


def positions(preset: str, seed: int, limit: int,
              keep: Callable[[SeatView, Sequence[Action], Action], bool]) -> list[tuple[Game, int]]:
    """Positions of a hand played by heuristic bots that ``keep`` keeps (view, legal actions, choice)."""
    game = Game.new(Rules.preset(preset), seed=seed)
    policy = HeuristicBot(random.Random(0))
    out: list[tuple[Game, int]] = []
    while not game.over and len(out) < limit:
        seat = next(s for s in game.pending() if game.legal_actions(s))
        view, legal = SeatView(game, seat), game.legal_actions(seat)
        choice = policy.choose(view, legal)
        if keep(view, legal, choice):
            out.append((game.copy(), seat))
        game.apply(choice)
    return out


def searched_positions(preset: str, seed: int, limit: int) -> list[tuple[Game, int]]:
    """Positions of a hand played by heuristic bots where the expert searches (more than one candidate)."""
    probe = ExpertBot(random.Random(0))
    return positions(preset, seed, limit,
                     lambda view, legal, choice: len(legal) > 1 and len(probe.candidates(view, legal, choice)) > 1)


def decide(game: Game, seat: int, hand_seed: int) -> Action:
    bot = ExpertBot(random.Random(1), playouts=6)
    bot.start_hand(hand_seed)
    return bot.choose(SeatView(game, seat), game.legal_actions(seat))


def search(game: Game, seat: int, hand_seed: int) -> list[Evaluation]:
    """The search's figures themselves (points of every candidate), not only the choice."""
    bot = ExpertBot(random.Random(1), playouts=6)
    bot.start_hand(hand_seed)
    view, legal = SeatView(game, seat), game.legal_actions(seat)
    return bot.evaluate(view, bot.candidates(view, legal, bot.policy.choose(view, legal)))


def hidden(game: Game, seat: int) -> tuple[object, ...]:
    return (tuple(game.seat_state(o).hand for o in range(4) if o != seat), game.live_wall)


@pytest.mark.parametrize(("preset", "seed"), [("qq", 3), ("chengdu", 8)])
def test_decisions_never_read_hidden_tiles(preset: str, seed: int) -> None:
    positions = searched_positions(preset, seed, 3)
    assert positions, "the hand offers the expert something to search"
    for k, (game, seat) in enumerate(positions):
        real = decide(game, seat, 1234 + k)
        figures = search(game, seat, 1234 + k)
        for shuffle in range(2):
            # every tile the seat cannot see dealt afresh, consistently with its view
            world = sample_world(SeatView(game, seat), random.Random(99 + shuffle))
            assert seat_view_json(world, seat) == seat_view_json(game, seat)
            assert hidden(world, seat) != hidden(game, seat)
            assert decide(world, seat, 1234 + k) == real
            assert search(world, seat, 1234 + k) == figures


def test_sampled_worlds_keep_voids_and_counts() -> None:
    for game, seat in searched_positions("qq", 5, 4):
        view = SeatView(game, seat)
        for r in range(3):
            world = sample_world(view, random.Random(r))
            assert world.tile_total() == 108
            assert world.legal_actions(seat) == game.legal_actions(seat)
            for o in range(4):
                real, dealt = game.seat_state(o), world.seat_state(o)
                assert dealt.concealed == real.concealed
                river = real.river
                if o != seat and real.void is not None and river and river[-1] // 9 != real.void:
                    assert not dealt.holds_void()


def test_same_seed_same_decision_and_budget_option() -> None:
    game, seat = searched_positions("qq", 3, 1)[0]
    assert decide(game, seat, 7) == decide(game, seat, 7)
    bot = ExpertBot(random.Random(0), playouts=10)
    bot.start_hand(7)
    view = SeatView(game, seat)
    legal = game.legal_actions(seat)
    cands = bot.candidates(view, legal, HeuristicBot(random.Random(0)).choose(view, legal))
    evals = bot.evaluate(view, cands)
    assert [e.action for e in evals] == cands
    orders = bot.wall_orders
    assert all(e.playouts == orders * max(2, -(-10 // (len(cands) * orders))) for e in evals)
    assert evals[0].diff == 0.0
    with pytest.raises(ValueError):
        ExpertBot(random.Random(0), playouts=1)


def test_the_default_budget_follows_where_the_play_outs_run(monkeypatch: pytest.MonkeyPatch) -> None:
    from xuezhan import native
    from xuezhan.bots import expert

    assert native.available()  # the suite runs with the compiled core built
    assert ExpertBot(random.Random(0)).playouts == expert.PLAYOUTS
    monkeypatch.setattr(native, "_core", None)  # an install where nothing could be compiled
    monkeypatch.setattr(native, "_IMPORT_ERROR", "No module named 'xuezhan.native._core'")
    assert ExpertBot(random.Random(0)).playouts == expert.PYTHON_PLAYOUTS < expert.PLAYOUTS
    assert ExpertBot(random.Random(0)).wall_orders == 1  # each world played once
    assert ExpertBot(random.Random(0), playouts=40).playouts == 40  # an explicit budget stands
    assert ExpertBot(random.Random(0), playouts=40).wall_orders == ExpertBot.wall_orders > 1  # as with the core


def test_expert_is_a_bot_by_name() -> None:
    assert "expert" in BOTS
    assert make_bot("expert").name == "expert"


@pytest.mark.parametrize(("options", "bystanders", "seed"), [
    ({"blood_river": True}, 2, 4),
    ({"blood_river": True, "kong_draw_from_tail": True}, 0, 3),
    ({"end_on_first_win": True}, 1, 5),
])
def test_every_sampled_world_looks_the_same_to_the_seat(options: dict[str, object], bystanders: int,
                                                        seed: int) -> None:
    """At every decision of a hand (robbing windows and bystanders' tiles included) a sampled
    world shows the seat exactly its own view, with the 108 tiles."""
    from xuezhan.engine.deal import random_deal

    rules = Rules.preset("chengdu").with_options(options)
    game = Game(rules, random_deal(random.Random(seed), 0), 0, bystanders=bystanders)
    bot = HeuristicBot(random.Random(0))
    step = 0
    while not game.over:
        seat = next(s for s in game.pending() if game.legal_actions(s))
        view, legal = SeatView(game, seat), game.legal_actions(seat)
        if game.phase in ("turn", "claim", "rob"):
            world = sample_world(view, random.Random(step))
            assert seat_view_json(world, seat) == seat_view_json(game, seat)
            assert world.tile_total() == 108 and world.legal_actions(seat) == legal
        game.apply(bot.choose(view, legal))
        step += 1


def test_face_down_kongs_are_dealt_afresh_when_the_kinds_outside_a_void_run_out() -> None:
    """Seat 1 has seen a copy of every kind but the two kongs' (3m of a seat void in s, 5p of a
    seat void in m): when the first kong is dealt 5p, the second takes 3m despite its void, and
    the world keeps its 108 tiles and seat 1's view."""
    from test_engine_rules import build, discard, gang

    from xuezhan.records import parse_record, replay
    from xuezhan.tiles import parse_tile, parse_tiles, tile_name

    hands = ["112478999m1378p", "1246899p124579s", "3333m566m1244669p", "5555p123367889s"]
    draws = "1m2m6m3s9m4m3p8s5m7m7p6s8m"  # each drawn and thrown: every other kind in sight
    actions = [gang(2, "3m"), discard(2, "1p"), gang(3, "5p"), discard(3, "9s")]
    actions += [discard(k % 4, tile_name(t)) for k, t in enumerate(parse_tiles(draws))]
    record = build(hands, "6p7s9s" + draws + "5s", voids="smsm", dealer=2, autoplay=False, actions=actions)
    game, _ = replay(parse_record(record))
    view = SeatView(game, 1)
    assert game.pending() == [1]
    assert [t for t in range(27) if view.visible_counts()[t] == 0] == [parse_tile("3m"), parse_tile("5p")]
    kongs = set()
    for r in range(16):
        world = sample_world(view, random.Random(r))
        assert world.tile_total() == 108
        assert seat_view_json(world, 1) == seat_view_json(game, 1)
        assert world.legal_actions(1) == game.legal_actions(1)
        kongs.add(tuple(world.seat_state(o).melds[0].tile for o in (2, 3)))
    assert kongs == {(parse_tile("3m"), parse_tile("5p")), (parse_tile("5p"), parse_tile("3m"))}


@pytest.mark.parametrize(("preset", "seed"), [("qq", 21), ("chengdu", 22)])
def test_discards_near_ready_are_searched_among_the_closest(preset: str, seed: int) -> None:
    """On its own turn without a kong on offer or a void tile in hand, the expert searches the
    discards of a hand at most ``search_shanten`` steps from ready: its choice first, then the
    others that keep the hand as close, by their worth two draws ahead; further from ready it
    searches nothing (with ``search_shanten`` 2, a hand without void tiles is seldom further)."""

    class Far(ExpertBot):
        search_shanten = 2
        discard_candidates = 4

    for bot in (ExpertBot(random.Random(0)), Far(random.Random(0))):
        searched, unsearched = _searched_discards(bot, preset, seed)
        assert searched > 0
        assert unsearched > 0 or bot.search_shanten == 2


def _searched_discards(bot: ExpertBot, preset: str, seed: int) -> tuple[int, int]:
    """Two hands played by the heuristic, the expert's discard candidates checked at each of its
    turns: (discards searched, discards of a hand too far from ready to search)."""
    searched = unsearched = 0
    for k in range(2):
        game = Game.new(Rules.preset(preset), seed=seed + k)
        while not game.over:
            seat = next(s for s in game.pending() if game.legal_actions(s))
            view, legal = SeatView(game, seat), game.legal_actions(seat)
            choice = bot.policy.choose(view, legal)
            kinds = {a.type for a in legal}
            counts = view.counts
            void = view.void
            if (game.phase == "turn" and kinds == {ActionType.DISCARD} and len(legal) > 1
                    and not (void is not None and any(counts[void * 9 : void * 9 + 9]))):
                hv = HandValue(view)
                after: dict[Action, int] = {}
                for a in legal:
                    counts[a.tile or 0] -= 1
                    after[a] = hv.shanten(counts)
                    counts[a.tile or 0] += 1
                best = min(after.values())
                cands = bot.candidates(view, legal, choice)
                assert cands[0] == choice and len(set(cands)) == len(cands) and set(cands) <= set(legal)
                if best > bot.search_shanten:
                    assert cands == [choice]
                    unsearched += 1
                else:
                    assert all(after[a] == best for a in cands[1:])
                    assert len(cands) <= bot.discard_candidates
                    searched += len(cands) > 1
            game.apply(choice)
    return searched, unsearched


def play_hand_digest(name: str, preset: str, seed: int) -> str:
    """A digest of every action of one hand played by four bots ``name`` (each seeded from ``seed``)."""
    import hashlib

    game = Game.new(Rules.preset(preset), seed=seed)
    bots = [make_bot(name, random.Random(seed * 4 + s)) for s in range(4)]
    for s, bot in enumerate(bots):
        assert isinstance(bot, ExpertBot)
        bot.start_hand(seed * 31 + s)
    actions = []
    while not game.over:
        seat = next(s for s in game.pending() if game.legal_actions(s))
        action = bots[seat].choose(SeatView(game, seat), game.legal_actions(seat))
        actions.append(f"{seat}:{action}")
        game.apply(action)
    return hashlib.sha256(";".join(actions).encode()).hexdigest()[:16]


@pytest.mark.parametrize(("preset", "seed", "digest"), [
    ("qq", 7, "e2dfab85b5618b2d"), ("chengdu", 8, "7abf5ac4a9dbd70b"), ("qq", 9, "4d9beac2e6f16590"),
])
def test_expert_0_4_plays_as_released(preset: str, seed: int, digest: str) -> None:
    """``expert-0.4`` is the expert of 0.4.0: these hands, played by four of it on the compiled
    core, were recorded from the expert as released, action for action."""
    from xuezhan import native

    assert native.available()
    bot = make_bot("expert-0.4")
    assert isinstance(bot, Expert04Bot) and bot.name == "expert-0.4" and "expert-0.4" in BOTS
    assert bot.playouts == PLAYOUTS_0_4 and not bot.read_worlds and bot.defence_live == 0
    assert play_hand_digest("expert-0.4", preset, seed) == digest
    assert play_hand_digest("expert", preset, seed) != digest  # expert searches from the network's choice


def test_the_expert_searches_from_the_network_s_choice_with_the_heuristic_in_its_play_outs() -> None:
    """``expert`` starts from the learned network's choice, deals its worlds by the reading network,
    plays its play-outs with the quick heuristic at every seat, searches the discards of a hand at
    most one step from ready among three candidates and asks a candidate to beat the first choice
    by 1.5 standard errors (docs/bots.md: the worlds read by the network gained on qq; the network
    in the play-outs, two steps and four candidates, was no measurably stronger at three times the
    time); the network in the play-outs is a knob. Its other reading knobs are 0.4.0's (the
    reading expert gained no points that a confidence interval shows), which the reading expert
    changes, every one, and deals its worlds by fixed weights."""
    from xuezhan import native

    assert (ExpertBot.prior, ExpertBot.search_margin) == ("learned", 1.5)
    assert (ExpertBot.read_worlds, ExpertBot.reading) == (True, "network")
    assert (ExpertBot.learned_self, ExpertBot.learned_others) == (False, False)
    assert (ExpertBot.search_shanten, ExpertBot.discard_candidates, ExpertBot.core_playouts) == (1, 3, 384)
    assert (Expert04Bot.prior, Expert04Bot.search_margin, Expert04Bot.read_worlds) == ("heuristic", 1.5, False)
    assert ExpertBot(random.Random(0)).margin == 1.5 and Expert04Bot(random.Random(0)).margin == 1.5
    assert ExpertBot(random.Random(0), margin=0.5).margin == 0.5
    assert ExpertBot(random.Random(0)).playout_codes(1) == (native.HEURISTIC_QUICK,) * 4  # knobs: test_native_learned
    knobs = ("core_playouts", "danger_weight", "kong_margin", "search_shanten", "discard_candidates",
             "learned_self", "learned_others")
    assert [getattr(ExpertBot, k) for k in knobs] == [getattr(Expert04Bot, k) for k in knobs]
    reading = ("core_playouts", "danger_weight", "read_worlds", "kong_margin")
    assert all(getattr(ReadingExpertBot, k) != getattr(Expert04Bot, k) for k in reading)
    assert ReadingExpertBot.reading == "discards"
    assert ExpertBot.world_weights is ReadingExpertBot.world_weights  # one search, its knobs apart


def test_the_expert_says_how_many_worlds_it_searched() -> None:
    game, seat = searched_positions("qq", 3, 1)[0]
    bot = ExpertBot(random.Random(0), playouts=48)
    assert bot.worlds == 0
    view, legal = SeatView(game, seat), game.legal_actions(seat)
    cands = bot.candidates(view, legal, bot.policy.choose(view, legal))
    bot.evaluate(view, cands)
    assert bot.worlds == max(2, -(-48 // (len(cands) * bot.wall_orders)))
    bot.choose(view, legal)
    assert bot.worlds == max(2, -(-48 // (len(bot.candidates(view, legal, bot.policy.choose(view, legal)))
                                          * bot.wall_orders)))
    first = Game.new(Rules.preset("qq"), seed=3)
    seat = next(s for s in first.pending() if first.legal_actions(s))
    bot.choose(SeatView(first, seat), first.legal_actions(seat))
    assert bot.worlds == 0  # 换三张 or 定缺: nothing searched


def test_worlds_are_dealt_by_what_the_discards_say() -> None:
    """A seat is dealt fewer tiles of the suit it has been discarding, and of the tiles it
    discarded itself; with a weight of zero on a suit it is dealt none of it while other tiles last."""
    game = Game.new(Rules.preset("qq"), seed=12)
    bot = HeuristicBot(random.Random(0))
    while not game.over and game.live > 40:
        seat = next(s for s in game.pending() if game.legal_actions(s))
        game.apply(bot.choose(SeatView(game, seat), game.legal_actions(seat)))
    me = 0
    view = SeatView(game, me)
    expert = ReadingExpertBot(random.Random(0))
    weights = expert.world_weights(view)
    assert weights is not None and weights[me] == [1.0] * 27
    for o in (1, 2, 3):
        river = view.river(o)
        for t in set(river):
            assert weights[o][t] < 1.0
    assert Expert04Bot(random.Random(0)).world_weights(view) is None
    # a weight of zero on a suit keeps it from a seat
    o = 1
    zero = [[1.0] * 27 for _ in range(4)]
    zero[o] = [0.0 if t // 9 == 2 else 1.0 for t in range(27)]
    for r in range(8):
        world = sample_world(view, random.Random(r), None, zero)
        assert world.tile_total() == 108
        assert seat_view_json(world, me) == seat_view_json(game, me)
        assert not any(world.seat_state(o).counts[18:27])
    # the weights shift what a seat holds, on average, away from what it threw
    thrown = set(view.river(o))
    uniform = weighted = 0
    for r in range(200):
        uniform += sum(sample_world(view, random.Random(r)).seat_state(o).counts[t] for t in thrown)
        weighted += sum(sample_world(view, random.Random(r), None, weights).seat_state(o).counts[t] for t in thrown)
    assert weighted < uniform


def test_late_in_the_wall_a_close_hand_weighs_danger() -> None:
    game = Game.new(Rules.preset("qq"), seed=21)
    bot = HeuristicBot(random.Random(0))
    expert = ReadingExpertBot(random.Random(0))
    old = Expert04Bot(random.Random(0))
    weighed = 0
    while not game.over:
        seat = next(s for s in game.pending() if game.legal_actions(s))
        view, legal = SeatView(game, seat), game.legal_actions(seat)
        cost = expert.danger_cost(view)
        threats, visible = bot.threats(view), view.visible_counts()
        for t in range(27):
            assert old.danger_cost(view)(t) == 0.0
            if view.live >= expert.defence_live:
                assert cost(t) == 0.0
            else:
                d = bot.danger(view, t, threats, visible)
                assert cost(t) == pytest.approx(expert.danger_weight * bot.stake(view) * d)
                weighed += d > 0
        game.apply(bot.choose(view, legal))
    assert weighed > 0


def test_kongs_are_taken_on_expected_points(monkeypatch: pytest.MonkeyPatch) -> None:
    """A kong that beats the first choice on the mean is taken, however wide the error; any
    other candidate needs ``margin`` standard errors (as 0.4.0 asked of a kong too)."""
    positions = searched_positions("qq", 3, 40) + searched_positions("chengdu", 8, 40)
    game, seat = next((g, s) for g, s in positions if any(a.type is ActionType.GANG for a in g.legal_actions(s)))
    view, legal = SeatView(game, seat), game.legal_actions(seat)

    def narrow_win(self: ExpertBot, view: SeatView, cands: list[Action],
                   playouts: int | None = None) -> list[Evaluation]:
        return [Evaluation(a, 0.0, 0.0 if k == 0 else 0.5, 0.0 if k == 0 else 1.0, 8) for k, a in enumerate(cands)]

    monkeypatch.setattr(ExpertBot, "evaluate", narrow_win)
    for cls, moves in ((ReadingExpertBot, True), (ExpertBot, False), (Expert04Bot, False)):
        bot = cls(random.Random(0))
        choice = bot.default.choose(view, legal)
        cands = bot.candidates(view, legal, choice)
        assert any(a.type is ActionType.GANG for a in cands)
        assert (bot.choose(view, legal) != choice) is moves


@pytest.mark.parametrize(("preset", "seed"), [("qq", 21), ("chengdu", 22)])
def test_with_the_learned_prior_the_search_starts_from_the_network_s_choice(preset: str, seed: int) -> None:
    """Where it searches nothing the expert (``prior = "learned"``) plays as ``learned``; where it
    searches, the network's choice is the first candidate (the reference the others must beat)."""
    from xuezhan.bots import LearnedBot

    game = Game.new(Rules.preset(preset), seed=seed)
    bot = ExpertBot(random.Random(0), playouts=24)
    bot.start_hand(seed)
    learned = LearnedBot()
    assert isinstance(bot.default, LearnedBot)
    searched = plain = 0
    while not game.over:
        seat = next(s for s in game.pending() if game.legal_actions(s))
        view, legal = SeatView(game, seat), game.legal_actions(seat)
        action = bot.choose(view, legal) if len(legal) > 1 else legal[0]
        if len(legal) > 1:
            mine = learned.choose(view, legal)
            cands = bot.candidates(view, legal, mine)
            if bot.worlds == 0:
                assert action == mine
                plain += 1
            else:
                assert cands[0] == mine and action in cands
                searched += 1
        game.apply(action)
    assert plain > 10 and searched > 0


@pytest.mark.usefixtures("no_numpy")
def test_without_numpy_the_learned_prior_is_the_heuristic_s() -> None:
    bot = ExpertBot(random.Random(0))
    assert bot.default is bot.policy


def discard_wins(preset: str, seeds: range) -> list[tuple[Game, int]]:
    """Positions of hands played by heuristic bots where a seat may win on another's discard."""
    return [p for seed in seeds for p in positions(
        preset, seed, 1_000,
        lambda view, legal, choice: view.phase != "turn" and any(a.type is ActionType.HU for a in legal))]


def test_a_win_on_a_discard_is_searched_against_letting_it_go_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    """``search_wins`` (on in ``expert``, off in ``expert-0.4``): a win on another's discard is
    compared with passing it, and let go only when passing beats it by ``margin`` standard errors;
    the seat then may not win on that tile before it draws (过水)."""

    class SearchWins(ExpertBot):
        search_wins = True

    class NoWins(ExpertBot):
        search_wins = False

    assert ExpertBot.search_wins is True and Expert04Bot.search_wins is False
    assert ExpertBot.ready_worlds is True and Expert04Bot.ready_worlds is False
    positions = discard_wins("chengdu", range(1, 6))
    assert positions
    game, seat = positions[0]
    view, legal = SeatView(game, seat), game.legal_actions(seat)
    hu = next(a for a in legal if a.type is ActionType.HU)
    plain, asked = NoWins(random.Random(0)), SearchWins(random.Random(0))
    assert plain.candidates(view, legal, hu) == [hu]
    cands = asked.candidates(view, legal, hu)
    assert cands[0] == hu and set(cands) == set(legal) and any(a.type is ActionType.PASS for a in cands)
    asked.start_hand(5)
    evals = asked.evaluate(view, cands, playouts=16)  # the play-outs go on after the win let go
    assert [e.action for e in evals] == cands and evals[0].diff == 0.0
    assert SeatView(game, seat).counts == view.counts  # the search played copies, not the game

    def passing_wins(by: float) -> object:
        def evaluate(self: ExpertBot, view: SeatView, cands: list[Action],
                     playouts: int | None = None) -> list[Evaluation]:
            return [Evaluation(a, 0.0, by if a.type is ActionType.PASS else 0.0, 1.0, 8) for a in cands]
        return evaluate

    monkeypatch.setattr(ExpertBot, "evaluate", passing_wins(1.0))  # within 1.5 standard errors: the win stands
    assert SearchWins(random.Random(0)).choose(view, legal).type is ActionType.HU
    monkeypatch.setattr(ExpertBot, "evaluate", passing_wins(2.0))
    let_go = SearchWins(random.Random(0)).choose(view, legal)
    assert let_go.type is ActionType.PASS
    assert NoWins(random.Random(0)).choose(view, legal).type is ActionType.HU  # off: never searched
    before = len(game.events)
    game.apply(let_go)
    assert any(e["type"] == "pass_hu" and e["seat"] == seat for e in game.events[before:])


def test_a_world_deals_the_given_hands_and_the_rest_around_them() -> None:
    """``sample_world(..., hands=)``: the seats given a hand hold it, the others and the live wall
    are dealt from what is left, the seat's view and the 108 tiles stay; with no hand given the
    world is the one dealt without the argument; a hand that does not fit is refused."""
    for game, seat in searched_positions("chengdu", 5, 3):
        view = SeatView(game, seat)
        o = (seat + 1) % 4
        real = list(game.seat_state(o).counts)
        for r in range(3):
            world = sample_world(view, random.Random(r), hands={o: real})
            assert list(world.seat_state(o).counts) == real
            assert world.tile_total() == 108
            assert seat_view_json(world, seat) == seat_view_json(game, seat)
            assert world.legal_actions(seat) == game.legal_actions(seat)
            assert (hidden(sample_world(view, random.Random(r), hands={}), seat)
                    == hidden(sample_world(view, random.Random(r)), seat))
        with pytest.raises(ValueError, match="cannot be given"):
            sample_world(view, random.Random(0), hands={o: [*real[:-1], real[-1] + 1]})  # a tile too many
        with pytest.raises(ValueError, match="cannot be given"):
            sample_world(view, random.Random(0), hands={seat: list(game.seat_state(seat).counts)})  # its own
        with pytest.raises(ValueError, match="cannot be given"):
            sample_world(view, random.Random(0), hands={o: [-1, real[0] + real[1] + 1, *real[2:]]})  # below zero
        unseen = [4 - v for v in view.visible_counts()]
        seen = min(range(27), key=lambda t: unseen[t] - real[t])  # one copy more than the seat has not seen
        wrong = real[:]
        for _ in range(unseen[seen] - real[seen] + 1):
            wrong[next(t for t in range(27) if wrong[t] and t != seen)] -= 1
            wrong[seen] += 1
        with pytest.raises(ValueError, match="has seen"):
            sample_world(view, random.Random(0), hands={o: wrong})


def test_given_hands_that_leave_no_tile_for_a_face_down_kong_are_refused() -> None:
    """The position of the face-down kongs above: only 3m and 5p have four copies unseen, the two
    kongs' tiles; a hand given to seat 0 that holds a 3m leaves one of them nothing."""
    from test_engine_rules import build, discard, gang

    from xuezhan.records import parse_record, replay
    from xuezhan.tiles import parse_tile, parse_tiles, tile_name

    hands = ["112478999m1378p", "1246899p124579s", "3333m566m1244669p", "5555p123367889s"]
    draws = "1m2m6m3s9m4m3p8s5m7m7p6s8m"
    actions = [gang(2, "3m"), discard(2, "1p"), gang(3, "5p"), discard(3, "9s")]
    actions += [discard(k % 4, tile_name(t)) for k, t in enumerate(parse_tiles(draws))]
    record = build(hands, "6p7s9s" + draws + "5s", voids="smsm", dealer=2, autoplay=False, actions=actions)
    game, _ = replay(parse_record(record))
    view = SeatView(game, 1)
    unseen = [4 - v for v in view.visible_counts()]
    size = game.seat_state(0).concealed
    hand = [0] * 27
    hand[parse_tile("3m")] = 1
    for t in range(27):
        while sum(hand) < size and hand[t] < unseen[t] and t not in (parse_tile("3m"), parse_tile("5p")):
            hand[t] += 1
    assert sum(hand) == size
    with pytest.raises(ValueError, match="face-down kong"):
        sample_world(view, random.Random(0), hands={0: hand})
    hand[parse_tile("3m")] -= 1
    hand[next(t for t in range(27) if hand[t] < unseen[t] and t not in (parse_tile("3m"), parse_tile("5p")))] += 1
    assert sample_world(view, random.Random(0), hands={0: hand}).tile_total() == 108


def test_the_search_takes_its_worlds_from_one_method() -> None:
    """:meth:`ExpertBot.world` is where every world of a search comes from: a subclass that deals
    the real hands sees them in every world it searches."""
    game, seat = searched_positions("qq", 3, 1)[0]
    dealt: list[Game] = []

    class Counting(ExpertBot):
        def world(self, view: SeatView, rng: random.Random, visible: Sequence[int],
                  weights: list[list[float]] | None, chances: Chances | None = None) -> Game:
            world = super().world(view, rng, visible, weights, chances)
            dealt.append(world)
            return world

    bot = Counting(random.Random(0), playouts=48)
    view, legal = SeatView(game, seat), game.legal_actions(seat)
    bot.evaluate(view, bot.candidates(view, legal, bot.policy.choose(view, legal)))
    assert len(dealt) == bot.worlds > 1
    assert all(seat_view_json(w, seat) == seat_view_json(game, seat) for w in dealt)


def test_a_win_searched_with_ready_worlds_deals_the_opponents_ready_by_their_chance(
        request: pytest.FixtureRequest) -> None:
    """``ready_worlds``: at a win on another's discard each opponent the worlds can build (not won,
    no face-down kong) gets the readiness network's chance and the tiles it let go by; a world then
    deals it a ready hand that waits on none of those with that chance, and a hand that is not
    ready otherwise. Nowhere else, and never without ``ready_worlds``."""
    from xuezhan.bots import reading

    class ReadyWins(ExpertBot):
        search_wins = True
        ready_worlds = True

    wins = discard_wins("chengdu", range(1, 8))
    assert len(wins) >= 5
    bot = ReadyWins(random.Random(0))
    checked = 0
    for game, seat in wins:
        view, legal = SeatView(game, seat), game.legal_actions(seat)
        others = [o for o in range(4) if o != seat and not view.won(o) and not view.hidden_kongs(o)]
        chances = bot.ready_chances(view, legal)
        assert sorted(chances) == others
        for o, (chance, avoid) in chances.items():
            assert 0.0 < chance < 1.0 and chance == pytest.approx(reading.ready_probability(view, o))
            assert avoid == reading.passed_since(view, o)
        assert Expert04Bot(random.Random(0)).ready_chances(view, legal) == {}  # off: the reading worlds
        visible = view.visible_counts()
        for r in range(4):
            sure = bot.ready_world(view, random.Random(r), visible, None, {o: (1.0, chances[o][1]) for o in others})
            never = bot.ready_world(view, random.Random(r), visible, None, {o: (0.0, set()) for o in others})
            for world in (sure, never):
                if world is None:
                    continue
                assert world.tile_total() == 108 and seat_view_json(world, seat) == seat_view_json(game, seat)
            if sure is not None:
                built = [o for o in others if sure.is_ready(o)]
                checked += len(built)
                for o in built:
                    assert not set(sure.waits(o)) & chances[o][1]
            if never is not None:
                assert not any(never.is_ready(o) for o in others)
    assert checked > 10
    turns = searched_positions("chengdu", 3, 3)
    for game, seat in turns:  # its own turns and other claims: the reading worlds
        view, legal = SeatView(game, seat), game.legal_actions(seat)
        assert bot.ready_chances(view, legal) == {}
    game, seat = wins[0]
    request.getfixturevalue("no_numpy")
    assert bot.ready_chances(SeatView(game, seat), game.legal_actions(seat)) == {}  # without numpy: reading worlds


def test_each_search_hands_its_worlds_its_own_ready_chances() -> None:
    """The ready chances of a win's search reach every world it deals (the Python loop here), and
    the next search, at a turn, deals its worlds without them: nothing is kept between decisions."""
    given: list[Chances | None] = []

    class Spy(ExpertBot):
        core_worlds = False

        def world(self, view: SeatView, rng: random.Random, visible: Sequence[int],
                  weights: list[list[float]] | None, chances: Chances | None = None) -> Game:
            given.append(chances)
            return super().world(view, rng, visible, weights, chances)

    bot = Spy(random.Random(0), playouts=24)
    game, seat = discard_wins("chengdu", range(1, 8))[0]
    view, legal = SeatView(game, seat), game.legal_actions(seat)
    bot.evaluate(view, bot.candidates(view, legal, bot.default.choose(view, legal)))
    assert len(given) == bot.worlds and all(c == bot.ready_chances(view, legal) and c for c in given)
    given.clear()
    game, seat = searched_positions("chengdu", 3, 1)[0]
    view, legal = SeatView(game, seat), game.legal_actions(seat)
    bot.evaluate(view, bot.candidates(view, legal, bot.default.choose(view, legal)))
    assert len(given) == bot.worlds and not any(given)


def test_a_search_with_ready_worlds_plays_a_whole_hand_the_same_twice() -> None:
    class ReadyWins(ExpertBot):
        search_wins = True
        ready_worlds = True

    def play(seed: int) -> list[object]:
        game = Game.new(Rules.preset("chengdu"), seed=seed)
        bots = [ReadyWins(random.Random(s)) for s in range(4)]
        for s, b in enumerate(bots):
            b.start_hand(seed * 4 + s)
        while not game.over:
            seat = next(s for s in game.pending() if game.legal_actions(s))
            legal = game.legal_actions(seat)
            game.apply(bots[seat].choose(SeatView(game, seat), legal) if len(legal) > 1 else legal[0])
        return list(game.events)

    assert play(11) == play(11)
