"""The runtime's pacer: bots' delays, people's time limits and 托管, for a time passed in."""

from __future__ import annotations

import math

import pytest

from xuezhan.engine.actions import ActionType
from xuezhan.engine.game import Phase
from xuezhan.match import ItemKind, Match, RoomConfig
from xuezhan.rules import Rules
from xuezhan.runtime import EXPIRIES_TO_TRUSTEE, GRACE, Delays, HandDriver, MatchRuntime, Move, Pacer, Seat, TimeLimits
from xuezhan.tui import TerminalTable
from xuezhan.tui.match import QUICK_DELAY, terminal_delays

PEOPLE = ("ann", "bo", "cy", "di")
LIMITS = TimeLimits(turn=20.0, claim=6.0, choice=40.0)
DELAYS = Delays(turn=1.0, claim=0.5, choice=2.0)


def table(preset: str = "chengdu", seed: int = 3) -> tuple[HandDriver, Seat]:
    """A hand with ann (seat 0 at the first hand) a person with time limits, the others bots."""
    ann = Seat.of_person("ann", limits=LIMITS)
    seats = {"ann": ann, **{p: Seat.of_bot("heuristic") for p in PEOPLE[1:]}}
    runtime = MatchRuntime(Match(RoomConfig(rules=Rules.preset(preset)), PEOPLE, seed=seed), seats)
    return runtime.start_hand(), ann


def person_seat(driver: HandDriver) -> int:
    return next(s for s, seat in enumerate(driver.seats) if seat.is_person)


def test_a_bot_acts_after_its_delay_for_the_phase() -> None:
    driver, _ = table()
    assert driver.game.phase in (Phase.EXCHANGE, Phase.DINGQUE)
    pacer = Pacer(DELAYS)
    pacer.refresh(driver, 100.0, version=7)
    bots = [s for s in driver.deciding() if driver.seats[s].automatic]
    assert bots and all(pacer.due[s] == 102.0 and pacer.since[s] == 7 for s in bots)
    assert pacer.next_move(driver, 101.99) is None
    assert pacer.next_due(driver) == 102.0
    assert pacer.next_move(driver, 102.0) == Move(bots[0], False)


def test_a_person_out_of_time_loses_that_decision_only() -> None:
    driver, ann = table()
    seat = person_seat(driver)
    pacer = Pacer(DELAYS)
    pacer.refresh(driver, 0.0)
    assert pacer.deadline[seat] == 40.0  # the choice's limit
    while (move := pacer.next_move(driver, 39.0)) is not None:  # the bots choose; ann has time left
        assert move.seat != seat
        driver.act(move.seat)
        pacer.refresh(driver, 39.0)
    assert driver.deciding() == [seat] and not ann.trustee
    assert pacer.next_due(driver) == 40.0
    assert pacer.next_move(driver, 40.0) == Move(seat, True)
    assert not ann.trustee and not ann.automatic and ann.expiries == 1  # the stand-in takes this one only


def run_to(driver: HandDriver, pacer: Pacer, seat: int, now: float) -> float:
    """The bots act, each when due from ``now`` on, until the person at ``seat`` must decide; the time then."""
    pacer.refresh(driver, now)
    while seat not in driver.deciding():
        move = pacer.next_move(driver, now)
        if move is None:
            wake = pacer.next_due(driver)
            assert wake is not None and now < wake < math.inf
            now = wake
            continue
        assert move.seat != seat
        driver.act(move.seat)
        pacer.refresh(driver, now)
    return now


def test_two_expired_decisions_in_a_row_start_trustee_and_an_answer_resets_the_count() -> None:
    driver, ann = table()
    seat = person_seat(driver)
    pacer = Pacer(DELAYS)
    run_to(driver, pacer, seat, 0.0)
    now = pacer.deadline[seat]
    assert pacer.next_move(driver, now) == Move(seat, True)
    driver.act(seat)
    assert ann.expiries == 1 and not ann.trustee
    now = run_to(driver, pacer, seat, now)
    driver.submit(driver.choose(seat))  # ann answers the next one herself
    pacer.answered(ann)
    assert ann.expiries == 0
    run_to(driver, pacer, seat, now)
    now = pacer.deadline[seat]
    assert pacer.next_move(driver, now) == Move(seat, True)  # one expiry: still hers to decide after it
    driver.act(seat)
    assert not ann.trustee
    run_to(driver, pacer, seat, now)
    now = pacer.deadline[seat]
    assert pacer.next_move(driver, now) == Move(seat, True)
    assert ann.trustee and ann.automatic  # the second in a row: 托管 from here on
    assert pacer.due[seat] <= now  # the stand-in takes this one now, when a bot would have
    assert EXPIRIES_TO_TRUSTEE == 2


def test_no_deadline_falls_before_not_before() -> None:
    driver, _ = table()
    seat = person_seat(driver)
    pacer = Pacer(DELAYS)
    pacer.not_before = 100.0
    pacer.refresh(driver, 0.0)
    assert pacer.deadline[seat] == 100.0  # more than the choice's 40 s
    other, _ = table(seed=4)
    pacer.refresh(other, 90.0)  # a new hand keeps the floor
    assert pacer.deadline[person_seat(other)] == 90.0 + LIMITS.choice
    assert all(pacer.due[s] == 90.0 + DELAYS.choice for s in pacer.due if not other.seats[s].is_person)


def test_the_same_decision_keeps_its_clocks_and_a_new_one_starts_them() -> None:
    driver, _ = table()
    pacer = Pacer(DELAYS)
    pacer.refresh(driver, 0.0, version=1)
    first = dict(pacer.due)
    pacer.refresh(driver, 5.0, version=2)
    assert pacer.due == first and set(pacer.since.values()) == {1}
    while driver.game.phase is not Phase.TURN:
        driver.act(driver.deciding()[0])
    pacer.refresh(driver, 9.0, version=3)
    turn = driver.game.turn
    assert pacer.due[turn] == 9.0 + DELAYS.turn and pacer.since[turn] == 3
    assert pacer.deadline[turn] == (9.0 + LIMITS.turn if driver.seats[turn].is_person else math.inf)
    assert set(pacer.ctx) == set(driver.game.pending())  # the seats that need not decide are forgotten


def test_back_from_trustee_a_person_gets_at_least_the_grace() -> None:
    driver, ann = table()
    seat = person_seat(driver)
    pacer = Pacer(DELAYS)
    pacer.refresh(driver, 0.0)
    assert pacer.set_trustee(ann, seat, True, 1.0)
    assert not pacer.set_trustee(ann, seat, True, 2.0)  # no change: the due time stands
    assert pacer.due[seat] == 1.0 + DELAYS.turn
    assert pacer.set_trustee(ann, seat, False, 10.0, driver)
    assert pacer.deadline[seat] == 40.0  # more than the grace left: the clock runs on
    pacer.set_trustee(ann, seat, True, 39.5)
    pacer.set_trustee(ann, seat, False, 39.5, driver)
    assert GRACE > 40.0 - 39.5 and pacer.deadline[seat] == 39.5 + LIMITS.choice  # a fresh limit
    bot = driver.seats[(seat + 1) % 4]
    assert not pacer.set_trustee(bot, (seat + 1) % 4, True, 0.0) and not bot.trustee  # bots have no 托管


def test_between_hands_trustee_changes_no_clock() -> None:
    driver, ann = table()
    seat = person_seat(driver)
    pacer = Pacer(DELAYS)
    ann.trustee = True
    pacer.set_trustee(ann, seat, False, 5.0)  # no hand given
    assert not ann.trustee and seat not in pacer.deadline


def test_a_new_hand_starts_every_clock_afresh() -> None:
    driver, _ = table()
    pacer = Pacer(DELAYS)
    pacer.refresh(driver, 0.0, version=4)
    other, _ = table(seed=4)
    pacer.refresh(other, 50.0, version=9)
    assert pacer.driver is other
    assert set(pacer.since.values()) == {9} and min(pacer.due.values()) == 50.0 + DELAYS.choice


def test_without_limits_a_person_is_never_out_of_time() -> None:
    driver, ann = table()
    ann.limits = None
    seat = person_seat(driver)
    pacer = Pacer(DELAYS)
    pacer.refresh(driver, 0.0)
    assert pacer.deadline[seat] == math.inf
    assert pacer.next_move(driver, 1e12) in (None, Move(next(s for s in driver.deciding() if s != seat), False))


@pytest.mark.parametrize("bot_delay", [0.45, 0.05])
def test_the_terminal_paces_turns_only_and_hurries_once_the_human_is_out(bot_delay: float) -> None:
    delays = terminal_delays(bot_delay)
    assert (delays.turn, delays.claim, delays.choice, delays.unwatched) == (bot_delay, 0.0, 0.0, QUICK_DELAY)
    match = TerminalTable(Rules.preset("qq"), hands=1, seed=5)
    match.pacer = Pacer(delays)
    match.start_hand()
    now = 0.0
    acted, wake = match.pace(now)
    assert acted > 0 and match.human_pending() and wake is None  # 定缺 at once; the human's turn to choose
    waited = 0
    while not match.game.over:
        if match.human_pending():
            if match.game.phase is Phase.TURN:
                match.play(match.human_legal()[-1])
            else:
                match.play(match.human_legal()[0])
        acted, wake = match.pace(now)
        if acted == 0 and not match.game.over and not match.human_pending():
            assert wake is not None and match.game.phase is Phase.TURN
            step = min(bot_delay, QUICK_DELAY) if not match.game.active(0) else bot_delay
            assert wake == pytest.approx(now + step)
            assert match.pace(wake - 1e-6) == (0, wake)
            now = wake
            waited += 1
    assert waited > 10


def test_a_swap_card_on_the_turn_keeps_the_turns_clocks() -> None:
    ann = Seat.of_person("ann", limits=LIMITS)
    seats = {"ann": ann, **{p: Seat.of_bot("heuristic") for p in PEOPLE[1:]}}
    runtime = MatchRuntime(Match(RoomConfig(rules=Rules.preset("chengdu"), items_allowed=True), PEOPLE, seed=3), seats)
    driver = runtime.start_hand()
    hand = runtime.hand
    assert hand is not None
    seat = person_seat(driver)
    pacer = Pacer(DELAYS)
    now = 0.0
    while not (driver.game.phase is Phase.TURN and driver.game.turn == seat):
        now = run_to(driver, pacer, seat, now)
        if driver.game.phase is Phase.TURN and driver.game.turn == seat:
            break
        driver.act(seat)  # the person's 换三张, 定缺 or claim answer
        now += 1.0
    pacer.refresh(driver, now, version=10)
    deadline, due, since = pacer.deadline[seat], pacer.due[seat], pacer.since[seat]
    assert deadline == now + LIMITS.turn
    held = sorted(set(driver.game.seat_state(seat).hand))
    wanted = next(t for t in range(27) if t not in held and driver.game.can_swap(seat, held[0], t) is None)
    hand.use_item(seat, ItemKind.SWAP, held[0], wanted)
    assert driver.game.actions[-1].type is ActionType.SWAP
    pacer.refresh(driver, now + 5.0, version=11)  # the changed hand is shown: the same decision
    assert (pacer.deadline[seat], pacer.due[seat], pacer.since[seat]) == (deadline, due, since)
    driver.submit(next(a for a in driver.legal(seat) if a.type is ActionType.DISCARD))
    run_to(driver, pacer, seat, now + 6.0)  # the next decision of the seat starts its clocks afresh
    assert pacer.deadline[seat] > deadline
