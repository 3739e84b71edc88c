"""The engine's events are typed: one typed dict per event kind, and every event a hand logs has
exactly the fields of its kind's typed dict, its ``type`` a member of :class:`EventKind`."""

from __future__ import annotations

import json
import random
from typing import Any, get_args, get_type_hints

import pytest

from xuezhan.engine.actions import Action, ActionType
from xuezhan.engine.events import Event, EventKind, event_json
from xuezhan.engine.game import Game, Phase
from xuezhan.ids import Reason
from xuezhan.rules import Rules

KINDS: dict[EventKind, Any] = {}
for _cls in get_args(Event):
    (_member,) = get_args(get_type_hints(_cls)["type"])
    KINDS[_member] = _cls


def test_one_typed_dict_per_event_kind() -> None:
    assert len(get_args(Event)) == len(EventKind)
    assert set(KINDS) == set(EventKind)


def _play(game: Game, rng: random.Random, escape_at: int | None = None, swap: bool = False) -> None:
    while not game.over:
        if escape_at is not None and game.action_count == escape_at:
            game.apply(Action(rng.randrange(4), ActionType.ESCAPE))
            continue
        if swap and game.phase is Phase.TURN and game.live > 8:
            seat = game.turn
            hand = game.seat_state(seat).hand
            wanted = game.live_wall[-1]
            if not game.seat_state(seat).won and wanted != hand[0]:
                game.apply(Action(seat, ActionType.SWAP, tile=hand[0], tiles=(wanted,)))
                swap = False
                continue
        seat = game.pending()[0]
        game.apply(rng.choice(game.legal_actions(seat)))


def _games() -> list[Game]:
    games = []
    for seed in range(40):
        rules = Rules.preset("qq" if seed % 2 else "chengdu")
        if seed % 5 == 0:
            rules = rules.with_options({"blood_river": True, "end_on_first_win": False})
        if seed % 4 == 1:
            rules = rules.with_options({"exchange_three": "clockwise"})
        game = Game.new(rules, seed=seed)
        rng = random.Random(seed)
        _play(game, rng, escape_at=60 + seed if seed % 7 == 3 else None, swap=seed % 3 == 0)
        games.append(game)
    return games


GAMES = _games()


def test_the_games_log_every_kind() -> None:
    seen = {ev["type"] for g in GAMES for ev in g.events}
    assert seen == set(EventKind)


@pytest.mark.parametrize("index", range(40))
def test_each_event_has_the_fields_of_its_kind(index: int) -> None:
    game = GAMES[index]
    for ev in game.events:
        kind = ev["type"]
        assert isinstance(kind, EventKind), ev
        cls = KINDS[kind]
        keys = set(ev)
        assert cls.__required_keys__ <= keys <= cls.__required_keys__ | cls.__optional_keys__, ev


def test_an_event_is_written_as_before() -> None:
    game = GAMES[1]
    first = game.events[0]
    assert first["type"] is EventKind.START and first == {"type": "start", "dealer": game.dealer, "wall": 55,
                                                          "bystanders": 0}
    assert json.dumps(event_json(first)) == (f'{{"type": "start", "dealer": {game.dealer}, "wall": 55, '
                                            f'"bystanders": 0}}')



def test_the_pay_events_are_the_ledger() -> None:
    total = 0
    for game in GAMES:
        pays = [(ev["from"], ev["to"], ev["points"], ev["reason"]) for ev in game.events if ev["type"] == "pay"]
        assert pays == [(e.from_seat, e.to_seat, e.points, e.reason) for e in game.ledger]
        assert all(isinstance(e.reason, Reason) for e in game.ledger)
        total += len(pays)
    assert total > 50
