"""The match runtime: one decision loop (HandDriver) and one match controller (MatchRuntime)."""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Sequence
from pathlib import Path

import pytest

from xuezhan.bots import bot_faults, close_bot, make_bot
from xuezhan.engine.actions import Action, ActionType
from xuezhan.engine.game import Phase
from xuezhan.engine.views import SeatView
from xuezhan.errors import IllegalActionError, XuezhanError
from xuezhan.match import Match, MatchError, RoomConfig, hand_seed
from xuezhan.records import record_json
from xuezhan.rules import Rules
from xuezhan.runtime import HandLogEntry, MatchRuntime, Seat, SeatKind, StandIn, TimeLimits, bot_seed
from xuezhan.selfplay import PLAYERS, simulate
from xuezhan.server.config import ServerConfig

PEOPLE = ("ann", "bo", "cy", "di")


def bots_runtime(seed: int, bot: str = "random") -> MatchRuntime:
    match = Match(RoomConfig(rules=Rules.preset("qq"), hands=3), PEOPLE, seed=seed)
    return MatchRuntime(match, {p: Seat.of_bot(bot) for p in PEOPLE})


def test_the_driver_stops_for_a_person_and_goes_on_after_their_decision() -> None:
    seats = {p: Seat.of_bot("heuristic") for p in PEOPLE}
    seats["ann"] = Seat.of_person("ann", limits=TimeLimits(turn=9.0))
    runtime = MatchRuntime(Match(RoomConfig(), PEOPLE, seed=3), seats)
    driver = runtime.start_hand()
    assert not driver.run()  # the bots chose their void; ann has not
    assert driver.game.phase is Phase.DINGQUE and driver.deciding() == [0]
    assert driver.waiting_for_person()
    with pytest.raises(IllegalActionError):
        driver.submit(Action(1, ActionType.DINGQUE, suit=0))  # not seat 1's decision any more
    choice = driver.choose(0)  # what ann's stand-in bot would do
    driver.submit(choice)
    assert driver.seq == len(driver.game.actions)
    seats["ann"].trustee = True  # 托管: the stand-in plays on
    assert driver.run() and driver.over
    assert seats["ann"].limits is not None and seats["ann"].limits.for_phase(Phase.TURN) == 9.0


def test_an_illegal_decision_changes_nothing_and_is_not_logged() -> None:
    log: list[tuple[int, Action]] = []
    runtime = bots_runtime(5)
    driver = runtime.start_hand()
    driver.on_action = lambda seq, a: log.append((seq, a))
    before = json.dumps(record_json(driver.game, with_result=False))
    with pytest.raises(IllegalActionError) as err:
        driver.submit(Action(0, ActionType.DISCARD, tile=0))
    assert err.value.code
    assert json.dumps(record_json(driver.game, with_result=False)) == before and log == []
    driver.run()
    assert [seq for seq, _ in log] == list(range(len(driver.game.actions)))
    assert [a for _, a in log] == list(driver.game.actions)


def test_a_hand_rebuilt_from_its_log_goes_on_exactly_as_the_original() -> None:
    for seed in (1, 2, 3):
        original = bots_runtime(seed)
        log: list[Action] = []
        original.on_action = lambda hand, seq, a, log=log: log.append(a)
        driver = original.start_hand()
        cut = random.Random(seed).randrange(5, 60)
        while not driver.over and len(log) < cut:
            driver.act(driver.deciding()[0])
        prefix = list(log)
        driver.run()
        # a restart: the same match state, the hand dealt again and replayed to its last logged action
        again = bots_runtime(seed)
        rebuilt = again.resume_hand(hand_seed(seed, 1), prefix)
        assert list(rebuilt.game.actions) == prefix
        rebuilt.run()
        assert record_json(rebuilt.game) == record_json(driver.game)


def test_a_log_of_another_hand_is_refused() -> None:
    runtime = bots_runtime(8)
    with pytest.raises(XuezhanError) as err:
        runtime.resume_hand(hand_seed(8, 1) ^ 1, [])
    assert err.value.code == "log_mismatch"
    runtime.play_hand()  # and the match is still whole: the first hand can be dealt


def test_bots_decide_from_the_hand_seed_not_from_their_history() -> None:
    # the same seat seed and the same position: the same choice, whatever the bot chose before
    a, b = make_bot("random", random.Random(1)), make_bot("random", random.Random(2))
    runtime = bots_runtime(4)
    driver = runtime.start_hand()
    seat = driver.deciding()[0]
    for bot in (a, b):
        bot.start_hand(bot_seed(12345, seat))
    legal = driver.game.legal_actions(seat)
    assert a.choose(driver.view(seat), legal) == b.choose(driver.view(seat), legal)


def test_play_hand_needs_automatic_seats() -> None:
    seats = {p: Seat.of_bot("random") for p in PEOPLE}
    seats["di"] = Seat.of_person("di")
    runtime = MatchRuntime(Match(RoomConfig(), PEOPLE, seed=1), seats)
    with pytest.raises(XuezhanError) as err:
        runtime.play_hand()
    assert err.value.code == "not_automatic"
    assert seats["di"].kind is SeatKind.PERSON and not seats["di"].automatic


def test_a_match_plays_its_hands_and_points_sum_to_zero() -> None:
    runtime = bots_runtime(11, "heuristic")
    results = list(runtime.play())
    assert [r.hand_no for r in results] == [1, 2, 3] and runtime.match.finished
    for r in results:
        assert sum(r.points().values()) == 0
        assert r.record["match"] == {"seed": 11, "hand_no": r.hand_no} and r.record["seed"] == r.seed


def test_self_play_is_a_match_on_the_runtime() -> None:
    records: list[dict[str, object]] = []
    simulate(3, ["random"] * 4, seed=11, on_hand=lambda hand: records.append(record_json(hand.game)))
    again = MatchRuntime(Match(RoomConfig(rules=Rules.preset("qq")), PLAYERS, seed=11),
                         {p: Seat.of_bot("random") for p in PLAYERS})
    mine = []
    for _ in range(3):
        driver = again.start_hand()
        driver.run()
        mine.append(record_json(driver.game))
        again.finish_hand()
    assert mine == records


def test_server_settings_from_a_file(tmp_path: Path) -> None:
    good = tmp_path / "server.toml"
    good.write_text("[server]\nbot_delay = 0\nturn_timeout = 12.5\nseed = 7\nbot_name = \"random\"\n",
                    encoding="utf-8")
    config = ServerConfig.from_file(good)
    assert (config.bot_delay, config.turn_timeout, config.seed, config.bot_name) == (0.0, 12.5, 7, "random")
    for text, why in [("[server]\nturbo = 1\n", "unknown"), ("[server]\nbot_delay = -1\n", "bad value"),
                      ("[server]\nmax_rooms = \"many\"\n", "bad value"), ("server = 3\n", "table"),
                      ("[server\n", "TOML")]:
        bad = tmp_path / "bad.toml"
        bad.write_text(text, encoding="utf-8")
        with pytest.raises(XuezhanError, match=why) as err:
            ServerConfig.from_file(bad)
        assert err.value.code == "bad_config"
    with pytest.raises(XuezhanError) as err:
        ServerConfig.from_file(tmp_path / "missing.toml")
    assert err.value.code == "bad_config"


def test_the_random_bot_picks_uniformly_from_its_hand_seed() -> None:
    runtime = bots_runtime(2)
    view = runtime.start_hand().view(0)
    legal = [Action(0, ActionType.DISCARD, tile=t) for t in range(7)]
    bot = make_bot("random", random.Random(1))
    counts = [0] * 7
    seeds = random.Random(5)
    for _ in range(7000):  # the view is fixed here: the hand seeds alone spread the choices
        bot.start_hand(seeds.getrandbits(64))
        counts[bot.choose(view, legal).tile or 0] += 1
    expected = 1000
    chi2 = sum((c - expected) ** 2 / expected for c in counts)
    assert chi2 < 30, counts  # six degrees of freedom: 30 is far in the tail


def test_the_terminal_deals_the_hands_of_simulate() -> None:
    from xuezhan.tui import TerminalTable

    records: list[dict[str, object]] = []
    simulate(2, ["heuristic"] * 4, seed=31, on_hand=lambda hand: records.append(record_json(hand.game)))
    table = TerminalTable(Rules.preset("qq"), hands=2, seed=31)
    for record in records:
        game = table.start_hand()
        table.seats[0].trustee = True  # the human's seat played by its heuristic stand-in
        table.run_bots()
        assert record_json(game) == record
        table.finish_hand()
    assert [r.seed for r in table.results] == [hand_seed(31, 1), hand_seed(31, 2)]


def test_the_random_bots_choices_in_a_hand_are_independent() -> None:
    class Step:  # the one thing the random bot reads of a view
        def __init__(self, step: int) -> None:
            self.step = step

    bot = make_bot("random", random.Random(1))
    legal = [Action(0, ActionType.DISCARD, tile=t) for t in range(5)]
    pairs = [[0] * 5 for _ in range(5)]
    seeds = random.Random(9)
    for _ in range(400):
        bot.start_hand(seeds.getrandbits(64))
        previous = None
        for step in range(50):
            choice = bot.choose(Step(step), legal).tile  # type: ignore[arg-type]
            assert choice is not None
            if previous is not None:
                pairs[previous][choice] += 1
            previous = choice
    expected = 400 * 49 / 25
    chi2 = sum((n - expected) ** 2 / expected for row in pairs for n in row)
    assert chi2 < 60, pairs  # 24 degrees of freedom: 60 is far in the tail


def test_item_cards_are_logged_and_replayed() -> None:
    room = RoomConfig(rules=Rules.preset("qq"), items_allowed=True)
    log: list[HandLogEntry] = []
    numbers: list[int] = []

    def logged(hand: object, seq: int, entry: HandLogEntry) -> None:
        numbers.append(seq)
        log.append(entry)

    runtime = MatchRuntime(Match(room, PEOPLE, seed=6), {p: Seat.of_bot("heuristic") for p in PEOPLE},
                           on_action=logged, on_item=logged)
    driver = runtime.start_hand()
    hand = runtime.hand
    assert hand is not None
    while driver.game.phase is not Phase.TURN:
        driver.act(driver.deciding()[0])
    seat = driver.game.turn
    held = driver.game.seat_state(seat).hand[0]
    wanted = next(t for t in driver.game.live_wall if t != held)
    swap = hand.swap(seat, held, wanted)  # 换牌卡: one entry of the log, its engine action with it
    assert log[-1] == swap and swap.at == len(driver.game.actions) - 1
    assert driver.game.actions[-1] == Action(seat, ActionType.SWAP, tile=held, tiles=(wanted,))
    seek = hand.seek((seat + 1) % 4, 5)  # 查找卡: in the log, and nothing of the engine's
    assert log[-1] == seek
    driver.act(driver.deciding()[0])
    cut = list(log)
    assert numbers == list(range(len(log)))  # one numbering, no gaps
    driver.run()
    again = MatchRuntime(Match(room, PEOPLE, seed=6), {p: Seat.of_bot("heuristic") for p in PEOPLE})
    rebuilt = again.resume_hand(hand.seed, cut)
    assert again.hand is not None and again.hand.items == [swap, seek]  # the cards are used, once
    assert again.logged == len(cut)
    with pytest.raises(MatchError) as exc:
        again.hand.seek((seat + 1) % 4, 6)
    assert exc.value.code == "item_used"
    rebuilt.run()
    assert record_json(rebuilt.game) == record_json(driver.game)


def test_a_log_whose_item_card_comes_out_otherwise_is_refused() -> None:
    room = RoomConfig(rules=Rules.preset("qq"), items_allowed=True)
    log: list[HandLogEntry] = []
    runtime = MatchRuntime(Match(room, PEOPLE, seed=3), {p: Seat.of_bot("heuristic") for p in PEOPLE},
                           on_action=lambda hand, seq, a: log.append(a), on_item=lambda hand, seq, u: log.append(u))
    driver = runtime.start_hand()
    hand = runtime.hand
    assert hand is not None
    while driver.game.phase is not Phase.TURN:
        driver.act(driver.deciding()[0])
    seek = hand.seek(driver.game.turn, 0)
    assert seek.quarters is not None
    forged = dataclasses.replace(seek, quarters=(9, 9, 9, 9))
    again = MatchRuntime(Match(room, PEOPLE, seed=3), {p: Seat.of_bot("heuristic") for p in PEOPLE})
    with pytest.raises(XuezhanError) as exc:
        again.resume_hand(hand.seed, [*log[:-1], forged])
    assert exc.value.code == "log_mismatch"


def test_a_broken_bot_does_not_stop_the_hand() -> None:
    class Broken:
        name = "broken"

        def __init__(self, fail: bool) -> None:
            self.fail = fail

        def start_hand(self, seed: int) -> None:
            pass

        def choose(self, view: object, legal: object) -> Action:
            if self.fail:
                raise RuntimeError("bug")
            return Action(3, ActionType.HU)  # never legal for the seat asking

    for fail in (True, False):
        seats = {p: Seat.of_bot("random") for p in PEOPLE}
        seats["ann"] = Seat.of_bot(Broken(fail))
        runtime = MatchRuntime(Match(RoomConfig(), PEOPLE, seed=2), seats)
        driver = runtime.start_hand()
        while not driver.over:
            driver.act(driver.deciding()[0])
        assert runtime.finish_hand().hand_no == 1


class LetsWinsGo:
    """The heuristic, but it never wins (a bot that lets every win go); it counts what the runtime
    hands it."""

    name = "lets-wins-go"

    def __init__(self) -> None:
        self.heuristic = make_bot("heuristic")
        self.faults = 2
        self.ended = 0
        self.closed = False

    def start_hand(self, seed: int) -> None:
        self.heuristic.start_hand(seed)

    def choose(self, view: SeatView, legal: Sequence[Action]) -> Action:
        return self.heuristic.choose(view, [a for a in legal if a.type is not ActionType.HU] or list(legal))

    def end_hand(self, view: SeatView) -> None:
        self.ended += 1

    def close(self) -> None:
        self.closed = True


def test_a_stand_in_takes_every_win_its_bot_would_let_go() -> None:
    """托管 plays for a person with the seat's stand-in bot, but a win on offer is always taken:
    letting one go for a bigger one later is the person's choice (docs/interfaces.md)."""

    def play(person: bool, seed: int) -> tuple[int, int, list[LetsWinsGo]]:
        bots = [LetsWinsGo() for _ in PEOPLE]
        seats = {p: Seat.of_person(p, stand_in=b) if person else Seat.of_bot(b)
                 for p, b in zip(PEOPLE, bots, strict=True)}
        for seat in seats.values():
            seat.trustee = True
        driver = MatchRuntime(Match(RoomConfig(rules=Rules.preset("chengdu")), PEOPLE, seed=seed), seats).start_hand()
        assert driver.run() and driver.over
        kinds = [e["type"] for e in driver.game.events]
        return kinds.count("pass_hu"), kinds.count("hu") + kinds.count("zimo"), bots

    passed = sum(play(False, seed)[0] for seed in range(4))
    assert passed > 0  # the bot alone lets wins go
    for seed in range(4):
        let_go, won, bots = play(True, seed)
        assert let_go == 0 and won > 0
        assert all(b.ended == 1 for b in bots)  # the stand-in passes the rest on to its bot
    seat = Seat.of_person("ann", stand_in=bots[0])
    assert isinstance(seat.bot, StandIn) and seat.bot.name == "lets-wins-go"
    assert Seat.of_person("ann", stand_in=seat.bot).bot is seat.bot  # wrapped once
    assert bot_faults(seat.bot) == 2
    close_bot(seat.bot)
    assert bots[0].closed
    assert not isinstance(Seat.of_bot(bots[0]).bot, StandIn)


def _choices(game: object, actions: Sequence[Action]) -> list[int]:
    """The actions (by number) whose seat had more than one legal action, found by replaying them."""
    from xuezhan.engine.game import Game

    assert isinstance(game, Game)
    again = Game(game.rules, game.deal, game.dealer)
    out = []
    for i, a in enumerate(actions):
        if len(again.legal_actions(a.seat)) > 1:
            out.append(i)
        again.apply(a)
    return out


def test_the_driver_marks_the_decisions_a_persons_stand_in_took() -> None:
    seats = {p: Seat.of_bot("heuristic") for p in PEOPLE}
    seats["ann"] = Seat.of_person("ann", limits=TimeLimits(turn=9.0))
    runtime = MatchRuntime(Match(RoomConfig(), PEOPLE, seed=3), seats)
    marked_when_told: list[bool] = []
    runtime.on_action = lambda hand, seq, a: marked_when_told.append(
        bool(hand.stand_in) and hand.stand_in[-1] == len(hand.game.actions) - 1)
    driver = runtime.start_hand()
    hand = runtime.hand
    assert hand is not None and driver.stand_in is hand.stand_in
    driver.run()
    driver.submit(driver.choose(0))  # ann's own 定缺: not the stand-in's
    assert hand.stand_in == []
    driver.run()
    while not driver.over and 0 not in driver.deciding():
        driver.act(driver.deciding()[0])
    assert not driver.over
    n = len(driver.game.actions)
    driver.act(0)  # ann's time ran out: the stand-in took her decision
    assert hand.stand_in == [n] and marked_when_told[-1]
    seats["ann"].trustee = True  # 托管 for the rest of the hand
    driver.run()
    assert driver.over
    actions = driver.game.actions
    ann = [i for i in _choices(driver.game, actions) if actions[i].seat == 0]
    assert hand.stand_in == [i for i in ann if i >= n]  # every choice of hers from then on, no other
    assert len(hand.stand_in) > 1
    assert [i for i, marked in enumerate(marked_when_told) if marked] == hand.stand_in
    assert list(runtime.finish_hand().stand_in) == hand.stand_in


def test_a_bots_decisions_and_a_persons_single_choice_are_not_marked() -> None:
    runtime = bots_runtime(4, "heuristic")
    driver = runtime.start_hand()
    driver.act(driver.deciding()[0])
    driver.run()
    assert driver.over and driver.stand_in == []
    person = Seat.of_person("ann")
    person.trustee = True
    match = Match(RoomConfig(), PEOPLE, seed=8)
    again = MatchRuntime(match, {p: person if p == "ann" else Seat.of_bot("heuristic") for p in PEOPLE})
    d = again.start_hand()
    d.run()
    actions = d.game.actions
    only = [i for i, a in enumerate(actions) if a.seat == 0 and i not in _choices(d.game, actions)]
    assert only  # she had a single legal action at times (an offer to pass, a forced discard)
    assert not set(only) & set(d.stand_in)


def test_a_resumed_hand_keeps_the_logged_stand_in_marks() -> None:
    seats = {p: Seat.of_bot("heuristic") for p in PEOPLE}
    seats["ann"] = Seat.of_person("ann")
    seats["ann"].trustee = True
    runtime = MatchRuntime(Match(RoomConfig(), PEOPLE, seed=3), seats)
    log: list[HandLogEntry] = []
    runtime.on_action = lambda hand, seq, a: log.append(a)
    driver = runtime.start_hand()
    while not driver.over and len(driver.stand_in) < 3:
        driver.act(driver.deciding()[0])
    marks = list(driver.stand_in)
    again = MatchRuntime(Match(RoomConfig(), PEOPLE, seed=3), seats)
    rebuilt = again.resume_hand(hand_seed(3, 1), log, stand_in=marks)
    assert again.hand is not None and again.hand.stand_in == marks and rebuilt.stand_in is again.hand.stand_in
    rebuilt.run()
    assert rebuilt.stand_in[:3] == marks and len(rebuilt.stand_in) > 3
