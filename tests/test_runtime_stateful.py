"""A match on the runtime as a state machine (hypothesis ``RuleBasedStateMachine``).

Rules: people join and leave between hands (4 to 8: the fifth to eighth are bystanders),
hands are dealt, a person decides (a random legal action through
:meth:`HandDriver.submit`), bots decide (:meth:`HandDriver.act`, :meth:`HandDriver.run`),
托管 goes on and off, seats escape, illegal actions are tried (they raise with a code and
change nothing), and the process "restarts": the runtime is thrown away, the match is
rebuilt from the ``state_json()`` saved before the hand and, mid-hand, the hand from its
seed and the actions logged through ``on_action`` (:meth:`MatchRuntime.resume_hand`).

Invariants: 108 tiles always; the log numbers every action of the hand in order; each
finished hand's points sum to zero and it is finished once; coins chained hand to hand
through :meth:`HandResult.coins` are conserved (the house gains what the people lose);
running points sum to zero; no seat's view or events ever hold another seat's concealed
tiles; a rebuilt hand equals the original (record, events, every seat's view).

CI runs a small fixed profile; ``XUEZHAN_STATEFUL=heavy`` runs a larger random one.
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from xuezhan.engine.actions import Action, ActionType
from xuezhan.engine.game import Game
from xuezhan.engine.views import SeatView, events_for
from xuezhan.errors import IllegalActionError, XuezhanError
from xuezhan.match import HandResult, Match, MatchError, RoomConfig
from xuezhan.records import record_json
from xuezhan.rules import Rules
from xuezhan.runtime import HandDriver, MatchRuntime, Seat
from xuezhan.tiles import NUM_TILES, format_tiles

HEAVY = os.environ.get("XUEZHAN_STATEFUL") == "heavy"
NAMES = tuple(f"p{i}" for i in range(12))
PRIVATE_TILES = ("tile", "tiles")


def check_views(game: Game) -> None:
    """Each seat's view and events: its own concealed tiles, never another's (until laid down)."""
    voids_secret = game.phase in ("exchange", "dingque")
    for me in range(4):
        view = SeatView(game, me).to_json()
        assert view["seat"] == me
        assert view["hand"] == format_tiles(game.seats[me].tiles())
        assert all(a["seat"] == me for a in view["legal"])
        for other, entry in enumerate(view["seats"]):
            if other == me:
                continue
            seat = game.seats[other]
            if seat.revealed:
                assert entry.get("hand") == format_tiles(seat.tiles())
            else:
                assert "hand" not in entry, (me, other)
                assert all(m["tile"] is None for m in entry["melds"] if m["type"] == "angang"), (me, other)
            if voids_secret:
                assert entry["void"] is None
        shown = iter(events_for(game, me))
        for ev, private in zip(game.events, game.event_owners, strict=True):
            if private is not None and private != me:
                if ev.get("type") == "pass_hu":
                    continue  # its mere existence is secret
                got = next(shown)
                assert not any(k in got for k in PRIVATE_TILES), (me, got)
            else:
                next(shown)
        assert next(shown, None) is None


def snapshot(game: Game) -> str:
    """Everything that an illegal action must leave alone, as one text."""
    return json.dumps({
        "record": record_json(game),
        "events": [events_for(game, s) for s in (0, 1, 2, 3, None)],
        "views": [SeatView(game, s).to_json() for s in range(4)],
        "pending": game.pending(),
        "tiles": game.tile_total(),
    }, sort_keys=True, default=str)


class MatchMachine(RuleBasedStateMachine):
    """One match on the runtime, with the model of what it must keep."""

    def __init__(self) -> None:
        super().__init__()
        self.room = RoomConfig()
        self.match = Match(self.room, list(NAMES[:4]), seed=0)
        self.seats: dict[str, Seat] = {}
        self.runtime = MatchRuntime(self.match, self.seats)
        self.balances: dict[str, int] = {}
        self.issued = 0
        self.house = 0
        self.log: list[Action] = []
        self.saved: dict[str, Any] = {}
        self.finished: list[int] = []
        self.restarts = 0

    # --- setting up -----------------------------------------------------------------------------
    @initialize(
        people=st.integers(4, 8),
        persons=st.sets(st.integers(0, 7), min_size=1, max_size=4),
        seed=st.integers(0, 2**40),
        preset=st.sampled_from(["qq", "chengdu"]),
        blood=st.booleans(),
        exchange=st.sampled_from(["none", "random", "clockwise"]),
        coefficient=st.integers(0, 50),
        fee=st.integers(0, 30),
        coins=st.integers(0, 5_000),
    )
    def setup(self, people: int, persons: set[int], seed: int, preset: str, blood: bool, exchange: str,
              coefficient: int, fee: int, coins: int) -> None:
        rules = Rules.preset(preset).with_options({"blood_river": blood, "exchange_three": exchange})
        self.room = RoomConfig(rules, coefficient=coefficient, fee=fee, hands=12)
        names = list(NAMES[:people])
        for k, name in enumerate(NAMES):
            self.seats[name] = (Seat.of_person(name, stand_in="random") if k in persons
                                else Seat.of_bot("random", name=name))
        self.match = Match(self.room, names, seed=seed)
        self.runtime = self._runtime(self.match)
        for k, name in enumerate(names):
            self._grant(name, coins + 97 * k)

    def _grant(self, player: str, coins: int) -> None:
        self.balances[player] = coins
        self.issued += coins

    def _runtime(self, match: Match) -> MatchRuntime:
        def on_action(hand: Any, seq: int, action: Action) -> None:
            assert hand is runtime.hand
            assert seq == len(self.log), "actions are numbered in order, from 0, within the hand"
            self.log.append(action)

        runtime = MatchRuntime(match, self.seats, on_action=on_action)
        return runtime

    # --- the state ------------------------------------------------------------------------------
    @property
    def driver(self) -> HandDriver | None:
        return self.runtime.driver

    def playing(self) -> bool:
        return self.runtime.driver is not None and not self.runtime.driver.over

    def between(self) -> bool:
        return self.runtime.hand is None

    def hand_over(self) -> bool:
        return self.runtime.driver is not None and self.runtime.driver.over

    def _persons_deciding(self) -> list[int]:
        driver = self.driver
        assert driver is not None
        return [s for s in driver.deciding() if not driver.seats[s].automatic]

    # --- people between hands -------------------------------------------------------------------------
    @rule(k=st.integers(0, len(NAMES) - 1), coins=st.integers(0, 3_000))
    def join(self, k: int, coins: int) -> None:
        name = NAMES[k]
        people = self.match.people
        if not self.between() or name in people or len(people) >= 8:
            with pytest.raises(MatchError) as exc:
                self.match.join(name)
            assert exc.value.code in ("hand_in_progress", "already_at_table", "table_full")
            assert self.match.people == people
            return
        self.match.join(name)
        self.seats[name].trustee = False
        if name not in self.balances:
            self._grant(name, coins)
        event("bystanders at the table" if self.match.waiting else "a joiner took a seat")

    @rule(k=st.integers(0, len(NAMES) - 1))
    def leave(self, k: int) -> None:
        people = self.match.people
        name = NAMES[k]
        if not self.between() or name not in people:
            with pytest.raises(MatchError) as exc:
                self.match.leave(name)
            assert exc.value.code in ("hand_in_progress", "not_at_table")
            assert self.match.people == people
            return
        waiting = list(self.match.waiting)
        seat = self.match.seats.index(name) if name in self.match.seats else None
        self.match.leave(name)
        assert name not in self.match.people
        if seat is not None:  # the longest-waiting bystander takes the seat
            assert self.match.seats[seat] == (waiting[0] if waiting else None)

    # --- hands --------------------------------------------------------------------------------------------
    @rule()
    def start_hand(self) -> None:
        if not self.between() or self.match.finished or None in self.match.seats:
            with pytest.raises(MatchError) as exc:
                self.runtime.start_hand()
            assert exc.value.code in ("hand_in_progress", "match_over", "seat_empty")
            return
        self.saved = json.loads(json.dumps(self.match.state_json()))
        self.log = []
        driver = self.runtime.start_hand()
        hand = self.runtime.hand
        assert hand is not None and hand.hand_no == self.match.hands_played + 1
        assert driver.seq == 0
        assert len(hand.bets) == len(self.match.waiting)

    @rule()
    def bots_run(self) -> None:
        driver = self.driver
        if driver is None or driver.over:
            return
        over = driver.run()
        assert over == driver.over
        if not over:  # it stopped for a person
            assert self._persons_deciding()

    @rule(k=st.integers(0, 3))
    def bot_acts(self, k: int) -> None:
        """A seat's bot decides for it: a bot's move, 托管, or a person's timeout."""
        driver = self.driver
        if driver is None or driver.over:
            return
        deciding = driver.deciding()
        assert deciding, "a hand being played waits for someone"
        seat = deciding[k % len(deciding)]
        action = driver.act(seat)
        assert self.log[-1] == action and action.seat == seat

    @rule(n=st.integers(1, 60), k=st.integers(0, 3))
    def bots_play_a_while(self, n: int, k: int) -> None:
        """Up to ``n`` decisions, each taken by a deciding seat's bot, whoever holds the seat."""
        driver = self.driver
        for _ in range(n):
            if driver is None or driver.over:
                return
            deciding = driver.deciding()
            driver.act(deciding[k % len(deciding)])

    @rule(k=st.integers(0, 3), pick=st.integers(0, 10**6))
    def person_submits(self, k: int, pick: int) -> None:
        driver = self.driver
        if driver is None or driver.over:
            return
        deciding = self._persons_deciding() or driver.deciding()
        seat = deciding[k % len(deciding)]
        legal = driver.legal(seat)
        action = legal[pick % len(legal)]
        before = driver.seq
        driver.submit(action)
        assert driver.seq == before + 1 and self.log[-1] == action

    @rule(k=st.integers(0, 3))
    def toggle_trustee(self, k: int) -> None:
        driver = self.driver
        if driver is None:
            return
        seat = driver.seats[k]
        seat.trustee = not seat.trustee
        assert seat.automatic == (not seat.is_person or seat.trustee)

    @rule(seat=st.integers(0, 3))
    def escape(self, seat: int) -> None:
        driver = self.driver
        if driver is None:
            return
        game = driver.game
        could = game.can_escape(seat)
        before = driver.seq
        assert driver.escape(seat) == could
        assert driver.seq == before + could
        assert game.seats[seat].escaped or (driver.over and not could)

    @rule(
        seat=st.integers(-1, 4),
        kind=st.sampled_from(list(ActionType)),
        tile=st.none() | st.integers(-1, 27),
        suit=st.none() | st.integers(-1, 3),
        tiles=st.lists(st.integers(0, 26), max_size=4).map(tuple),
    )
    def illegal_action(self, seat: int, kind: ActionType, tile: int | None, suit: int | None,
                       tiles: tuple[int, ...]) -> None:
        driver = self.driver
        if driver is None:
            return
        game = driver.game
        action = Action(seat, kind, tile=tile, suit=suit, tiles=tiles)
        if 0 <= seat <= 3 and (
            action in game.legal_actions(seat)
            or (kind is ActionType.ESCAPE and game.can_escape(seat))
            or (kind is ActionType.SWAP and not game.over
                and game.can_swap(seat, -1 if tile is None else tile, tiles[0] if tiles else -1) is None)
        ):
            return  # legal: not this rule's
        before = snapshot(game)
        logged = len(self.log)
        with pytest.raises(IllegalActionError) as exc:
            driver.submit(action)
        assert isinstance(exc.value.code, str) and exc.value.code
        assert snapshot(game) == before
        assert len(self.log) == logged

    @rule()
    def finish_hand(self) -> None:
        if not self.hand_over():
            with pytest.raises(XuezhanError) as exc:
                self.runtime.finish_hand()
            assert exc.value.code in ("no_hand", "hand_not_over")
            return
        hand = self.runtime.hand
        assert hand is not None
        with pytest.raises(IllegalActionError) as exc:
            self.runtime.driver.submit(Action(0, ActionType.PASS))  # type: ignore[union-attr]
        assert exc.value.code == "hand_over"
        players = set(self.match.people)
        result = self.runtime.finish_hand()
        self._settle(result)
        assert result.hand_no not in self.finished, "a hand is finished once"
        assert result.hand_no == (self.finished[-1] + 1 if self.finished else 1)
        self.finished.append(result.hand_no)
        assert set(self.match.people) == players - set(result.escaped)
        with pytest.raises(XuezhanError) as again:
            self.runtime.finish_hand()
        assert again.value.code == "no_hand"
        event(f"hands finished in a match: {len(self.finished)}")
        if result.escaped:
            event("a hand with an escape finished")

    def _settle(self, result: HandResult) -> None:
        assert all(t.points > 0 and t.payer != t.payee for t in result.transfers)
        points = result.points()
        assert sum(points.values()) == 0
        coins = result.coins(self.room, self.balances)
        assert sum(coins.changes) == -sum(coins.fees) == -coins.house
        for player, change in zip(result.participants, coins.changes, strict=True):
            self.balances[player] += change
            assert self.balances[player] >= 0
        self.house += coins.house

    # --- a restart ------------------------------------------------------------------------------------------
    @rule()
    def restart(self) -> None:
        """Throw the runtime away; rebuild the match from what a server keeps, and the hand from its log."""
        self.restarts += 1
        old = self.runtime
        for seat in self.seats.values():  # new seat owners, who remember only 托管
            trustee = seat.trustee
            fresh = (Seat.of_person(seat.name, stand_in="random") if seat.is_person
                     else Seat.of_bot("random", name=seat.name))
            fresh.trustee = trustee
            self.seats[seat.name] = fresh
        if old.hand is None:
            state = json.loads(json.dumps(self.match.state_json()))
            self.match = Match.from_state(self.room, state)
            assert self.match.state_json() == state
            self.runtime = self._runtime(self.match)
            event("restart between hands")
            return
        old_game = old.hand.game
        seed = old.hand.seed
        logged = list(self.log)
        match = Match.from_state(self.room, self.saved)
        runtime = self._runtime(match)
        with pytest.raises(XuezhanError) as exc:  # a log that does not belong to this match
            runtime.resume_hand(seed ^ 1, logged)
        assert exc.value.code == "log_mismatch" and match.current is None
        self.log = []
        driver = runtime.resume_hand(seed, [Action.from_json(a.to_json()) for a in logged])
        self.log = logged  # replayed actions are in the log already: on_action is not told again
        game = driver.game
        assert driver.seq == len(logged)
        assert record_json(game) == record_json(old_game)
        assert game.events == old_game.events and game.event_owners == old_game.event_owners
        assert game.ledger == old_game.ledger
        for s in range(4):
            assert SeatView(game, s).to_json() == SeatView(old_game, s).to_json()
            assert driver.legal(s) == old.driver.legal(s)  # type: ignore[union-attr]
        assert [b.player for b in runtime.hand.bets] == [b.player for b in old.hand.bets]  # type: ignore[union-attr]
        self.match = match
        self.runtime = runtime
        event("restart mid-hand, over" if game.over else "restart mid-hand, in play")

    # --- invariants -----------------------------------------------------------------------------------------
    @invariant()
    def tiles_and_views(self) -> None:
        driver = self.driver
        if driver is None:
            return
        with pytest.raises(MatchError) as exc:  # a match is saved between hands only
            self.match.state_json()
        assert exc.value.code == "hand_in_progress"
        game = driver.game
        assert game.tile_total() == NUM_TILES
        assert len(self.log) == driver.seq == len(game.actions)
        assert self.log == game.actions
        check_views(game)

    @invariant()
    def books(self) -> None:
        assert sum(self.match.running.values()) == 0
        assert sum(self.balances.values()) + self.house == self.issued
        assert self.match.hands_played == len(self.finished)
        people = self.match.people
        assert 0 <= len(people) <= 8 and len(set(people)) == len(people)
        assert self.match.bystanders == tuple(self.match.waiting)


def _settings() -> settings:
    if HEAVY:
        return settings(max_examples=300, stateful_step_count=120, deadline=None,
                        suppress_health_check=[HealthCheck.too_slow])
    return settings(max_examples=100, stateful_step_count=50, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


TestMatchRuntime = MatchMachine.TestCase
TestMatchRuntime.settings = _settings()


@pytest.mark.parametrize(
    "action",
    [
        Action(0, ActionType.DISCARD, tile=-1),
        Action(0, ActionType.DISCARD, tile=27),
        Action(0, ActionType.DINGQUE, suit=3),
        Action(0, ActionType.EXCHANGE, tiles=(0, 1, 40)),
        Action(0, ActionType.SWAP, tile=0),
        Action(0, ActionType.SWAP, tile=0, tiles=(1, 2)),
    ],
)
def test_a_malformed_action_is_refused_with_a_code_and_changes_nothing(action: Action) -> None:
    match = Match(RoomConfig(), list(NAMES[:4]), seed=5)
    driver = MatchRuntime(match, {p: Seat.of_person(p, stand_in="random") for p in NAMES[:4]}).start_hand()
    before = snapshot(driver.game)
    with pytest.raises(IllegalActionError) as exc:
        driver.submit(action)
    assert exc.value.code == "bad_action"
    assert snapshot(driver.game) == before
